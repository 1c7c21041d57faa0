"""What the ``ssb`` command modules share: the user-error exception and the click group that turns
data and usage errors into it, the shared options (``--players``, ``--instruments``, ``--seed``,
``--out DIR``...), the check of the run options, the lineup of one game and the compile notice."""

import json
import os
from pathlib import Path

import click

from simulator import games as registry
from simulator.errors import DataError


class UserError(click.ClickException):
    """A mistake of the user's: shown as ``error: <message>`` on stderr, exit status 2."""

    exit_code = 2

    def show(self, file=None):
        click.echo(f"error: {self.format_message()}", file=file, err=file is None)


def out_dir_option(help_text):
    """``--out DIR`` (the parameter ``out_dir``, default None): the folder a command writes."""

    def decorate(f):
        return click.option(
            "-o", "--out", "out_dir", type=click.Path(file_okay=False), default=None, metavar="DIR", help=help_text
        )(f)

    return decorate


def run_backend(resume, force, backend, scheduler):
    """The backend of a command that plays a run: ``--resume`` and ``--force`` exclude each other,
    ``--scheduler`` implies (and needs) dask; a mistake is a UserError."""
    if resume and force:
        raise UserError("--resume and --force exclude each other")
    if scheduler and backend == "local":
        raise UserError("--scheduler needs --backend dask")
    return backend or ("dask" if scheduler else "local")


# =========================================================================== error reporting


def _as_user_error(exc):
    if isinstance(exc, click.UsageError):
        msg = exc.format_message()
        if exc.ctx is not None:
            msg += f" (see '{exc.ctx.command_path} --help')"
        return UserError(msg)
    return UserError(str(exc))


class SsbGroup(click.Group):
    """A click group that turns ``DataError`` and usage errors anywhere below it into ``UserError``."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise _as_user_error(exc) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except (DataError, click.UsageError) as exc:
            raise _as_user_error(exc) from None


SsbGroup.group_class = SsbGroup


# =========================================================================== shared options


class NameList(click.ParamType):
    """Comma-separated names: ``Violin,Piano,Horns``."""

    name = "names"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        names = tuple(n.strip() for n in str(value).split(",") if n.strip())
        if not names:
            self.fail("give at least one name", param, ctx)
        return names


class PlayerCounts(click.ParamType):
    """Comma-separated player counts: ``2,3,4``."""

    name = "counts"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        out = []
        for part in str(value).split(","):
            part = part.strip()
            if not part:
                continue
            if not part.isdigit() or int(part) < 2:
                self.fail(f"'{part}' is not a player count (a whole number, at least 2; the game says which it plays)", param, ctx)
            if int(part) not in out:
                out.append(int(part))
        if not out:
            self.fail("give at least one player count", param, ctx)
        return tuple(out)


def players_option(f):
    """``--players``: the player count of one game (default 4); the command checks it against the
    game's own player counts (:func:`check_players`)."""
    return click.option(
        "--players",
        type=click.IntRange(2),
        default=4,
        show_default=True,
        metavar="N",
        help="Number of players, one the game plays (Shuffle and Swing 2 to 4: 2 adds Pri, 3 the neutral pieces).",
    )(f)


def check_players(game, counts, param_hint="--players"):
    """Every player count in ``counts`` is one ``game`` (a registered game) plays, else a usage error."""
    for n in counts:
        if n not in game.player_counts:
            raise click.BadParameter(
                f"'{n}' is not a player count of {game.title} ({', '.join(map(str, game.player_counts))})",
                param_hint=param_hint,
            )


def instrument_dir_option(f):
    """``--instrument-dir``: extra instrument files, repeatable."""
    return click.option(
        "--instrument-dir",
        "instrument_dirs",
        multiple=True,
        metavar="DIR",
        help="Folder (or single .toml file) of extra instruments; may be repeated.",
    )(f)


def strategy_dir_option(f):
    """``--strategy-dir``: extra strategy profiles, repeatable."""
    return click.option(
        "--strategy-dir",
        "strategy_dirs",
        multiple=True,
        metavar="DIR",
        help="Folder of extra strategy profiles (*.toml); may be repeated.",
    )(f)


class Seed(click.ParamType):
    """A seed: an integer from 0 to 2**64 - 1 (the kernel's generator is 64-bit)."""

    name = "seed"

    def convert(self, value, param, ctx):
        try:
            seed = int(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not an integer", param, ctx)
        if not 0 <= seed < 2**64:
            self.fail(f"{seed} is outside 0 .. 2**64 - 1", param, ctx)
        return seed


def seed_option(default, help_text):
    """``--seed``: a non-negative 64-bit integer seed."""

    def decorate(f):
        return click.option(
            "--seed", type=Seed(), default=default, show_default=True, metavar="N", help=help_text
        )(f)

    return decorate


# =========================================================================== helpers


def lineup(names, nplayers, param_hint="--strategies"):
    """One strategy per seat: a single name mirrors to every seat."""
    names = list(names)
    if len(names) == 1:
        return names * nplayers
    if len(names) != nplayers:
        raise click.BadParameter(
            f"give one strategy for all seats or one per seat: {nplayers} players, got {len(names)} names",
            param_hint=param_hint,
        )
    return names


def announce_compile(entry, what="the rules kernel"):
    """A context for the first call of the kernel entry point ``entry`` (``simulator.warmup._entry``):
    when it is not compiled and cached yet, one line on stderr with the time it took here last, the
    seconds elapsed while it compiles, and the time recorded for the next notice."""
    from simulator.warmup import compile_watch

    return compile_watch(entry, what, echo=lambda m: click.echo(m, err=True))


def given_options(ctx, *names):
    """The options among ``names`` (parameter names) that the user gave on the command line (or in
    the environment), not left at their defaults, as their ``--spelling``."""
    from click.core import ParameterSource

    by_name = {p.name: p for p in ctx.command.params}
    out = []
    for n in names:
        if ctx.get_parameter_source(n) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            out.append(max(by_name[n].opts, key=len))
    return out


def _game_words(game):
    """How a refusal names a game: its title, and the ``--game`` that picks it unless it is the default."""
    return game.title if game.name == registry.DEFAULT_GAME else f"{game.title} (--game {game.name})"


def refuse_other_game_options(ctx, game, *names, owns=None):
    """A UserError when an option the command's ``game`` (a registered game) does not read was given
    on the command line (instead of ignoring it), naming the games whose option it is. ``names``:
    the parameter names checked (default: every parameter of the command that some registered game
    declares its own, ``Game.cli_options``); ``owns(game, name)``: whether a game reads an option
    (default: it is among the game's ``cli_options``)."""
    owns = owns or (lambda g, name: name in g.cli_options)
    every = [registry.get(n) for n in sorted(registry.names(), key=lambda n: n != registry.DEFAULT_GAME)]
    if not names:
        names = [p.name for p in ctx.command.params if any(owns(g, p.name) for g in every)]
    for name in names:
        if owns(game, name) or not given_options(ctx, name):
            continue
        flag = given_options(ctx, name)[0]
        owners = [g for g in every if owns(g, name)]
        if not owners:
            raise UserError(f"{flag}: this command plays {game.title}, which has no use for it (leave it out)")
        pick = [f"--game {g.name}" for g in owners if g.name != registry.DEFAULT_GAME]
        raise UserError(
            f"{flag}: an option of {' and '.join(map(_game_words, owners))} only; this command plays {game.title}, "
            f"which has no use for it (leave it out{', or pass ' + ' or '.join(pick) if pick else ''})"
        )


# The spelling of the options every command shares (docs/guide/errors-and-resume.md):
#   -o, --out PATH    what the command writes (a folder or a file)
#   -j, --jobs N      worker processes
#   -q, --quiet       no progress and no summary
#   --seed N          the seed, default 1
# Earlier spellings stay accepted as hidden aliases (``old_spelling``).
DEFAULT_SEED = 1


def old_spelling(flag, name, **kw):
    """A hidden option ``flag`` that fills parameter ``name``: an earlier spelling, still accepted
    (click lets the option given on the command line win over the other's default)."""
    return click.option(flag, name, hidden=True, default=None, help=f"Earlier spelling of the option that fills {name}.", **kw)


def table(headers, rows):
    """Plain left-aligned columns; the last column is left unpadded."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=True)]
    lines = []
    for row in [headers, *rows]:
        cells = [str(c).ljust(w) for c, w in zip(row[:-1], widths[:-1], strict=True)] + [str(row[-1])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def check_json_path(path, what="played"):
    """The JSON file's folder exists and can be written, before any game is played."""
    if path is None:
        return
    folder = Path(path).parent
    if not folder.is_dir():
        raise click.BadParameter(f"{path}: folder '{folder}' does not exist (nothing was {what})", param_hint="--json")
    if not os.access(folder, os.W_OK):
        raise click.BadParameter(f"{path}: folder '{folder}' is not writable (nothing was {what})", param_hint="--json")


def write_json(path, doc):
    """Write ``doc`` under a temporary name beside ``path``, then rename: a full or vanished disk
    leaves any earlier file whole and no temporary, and is ``error: FILE: cannot write: reason``
    (a device such as ``/dev/full`` is written in place)."""
    path = Path(path)
    # A device or a pipe (``/dev/stdout``, ``/dev/full``) is written in place, never replaced.
    special = path.exists() and not path.is_file()
    tmp = path if special else path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, indent=2))
            fh.flush()
            if not special:
                os.fsync(fh.fileno())
        if not special:
            os.replace(tmp, path)
    except OSError as exc:
        if not special:
            tmp.unlink(missing_ok=True)
        raise UserError(f"{path}: cannot write: {exc.strerror or exc}") from None
