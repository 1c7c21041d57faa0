"""What the ``ssb`` command modules share: the user-error exception, the ``--out DIR`` option and the
check of the run options. (``ssb.cli`` imports the command modules at its end, so they cannot import
these from it.)"""

import click


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


def refuse_other_game_options(ctx, game_title, owner_title, *names):
    """A UserError when an option that only ``owner_title``'s games read was given to a command
    playing ``game_title`` (instead of ignoring it)."""
    given = given_options(ctx, *names)
    if given:
        raise UserError(
            f"{given[0]}: an option of {owner_title} only; this command plays {game_title}, which has no use "
            f"for it (leave it out{', or pass --game echidna' if owner_title.startswith('Echidna') else ''})"
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
