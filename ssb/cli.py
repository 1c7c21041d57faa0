"""The ``ssb`` command line: a thin click layer over the simulator and the strategies.

One click group; shared option bundles are decorators (``players_option``, ``instruments_option``,
``instrument_dir_option``, ...). Every command's help carries an ``Example:`` (tests/test_docs.py
fails when one is missing). A user mistake (unknown name, bad option value, malformed data file)
prints ``error: <message>`` on stderr and exits with status 2, never a traceback.

Commands that play games import the kernel lazily, so ``ssb --help`` and the data commands stay quick.
"""

import json
import time
from pathlib import Path

import click

from simulator.shuffle_swing import layout as L
from simulator import games as registry
from simulator.errors import DataError
from simulator.shuffle_swing.library import InstrumentLibrary
from simulator.shuffle_swing.board import load_board

from ssb.common import (
    NameList,
    PlayerCounts,
    SsbGroup,
    DEFAULT_SEED,
    UserError,
    announce_compile,
    refuse_other_game_options,
    check_players,
    instrument_dir_option,
    instruments_option,
    lineup,
    old_spelling,
    players_option,
    seed_option,
    strategy_dir_option,
)
from ssb.game_options import game_options, is_default



# =========================================================================== helpers


def _game_setup(nplayers, instruments, **kw):
    """``GameSetup`` for ``--instruments``; a wrong choice of names blames the argument (a broken
    instrument file keeps naming its file)."""
    from simulator.shuffle_swing.library import LIBRARY_SOURCE
    from simulator.shuffle_swing.playout import GameSetup

    try:
        return GameSetup(nplayers=nplayers, instruments=instruments, **kw)
    except DataError as exc:
        if exc.file in (LIBRARY_SOURCE, "game") and exc.key in ("name", "instruments"):
            raise DataError("--instruments", ",".join(instruments), exc.reason) from None
        raise


def _refuse_other_game(game, *first_game_options):
    """Options of the other game are refused, naming the game they belong to (never ignored):
    --board and --variant are Echidna Shuffle's, ``first_game_options`` Shuffle and Swing's."""
    ctx = click.get_current_context()
    if is_default(game):
        refuse_other_game_options(ctx, "Shuffle and Swing", "Echidna Shuffle (--game echidna)", "board", "variants")
    else:
        refuse_other_game_options(ctx, "Echidna Shuffle", "Shuffle and Swing", *first_game_options)


def _replay_command(nplayers, setup, seed, strategies, instrument_dirs):
    parts = ["ssb play", f"--players {nplayers}", f"--instruments {','.join(setup.instruments)}"]
    if len(set(strategies)) == 1:
        parts.append(f"--strategies {strategies[0]}")
    else:
        parts.append(f"--strategies {','.join(strategies)}")
    parts += [f"--instrument-dir {d}" for d in instrument_dirs]
    parts.append(f"--seed {seed}")
    return " ".join(parts)


def _table(headers, rows):
    """Plain left-aligned columns; the last column is left unpadded."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=True)]
    lines = []
    for row in [headers, *rows]:
        cells = [str(c).ljust(w) for c, w in zip(row[:-1], widths[:-1], strict=True)] + [str(row[-1])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


# =========================================================================== the group


@click.group(cls=SsbGroup)
@click.version_option(package_name="shuffle-swing-balance", prog_name="ssb")
def cli():
    """Shuffle and Swing balance lab: play, check and inspect games of the simulator.

    Example:

    \b
        ssb play --players 4 --seed 7
    """


# --------------------------------------------------------------------------- play


@cli.command()
@players_option
@instruments_option
@click.option(
    "--strategies",
    type=NameList(),
    default="greedy",
    show_default=True,
    metavar="NAME[,NAME...]",
    help="One strategy for every seat, or one per seat in turn order (name:colour sets a focus).",
)
@seed_option(DEFAULT_SEED, "Game seed, used as is: the same seed replays the same game.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON document instead of the account.")
@instrument_dir_option
@strategy_dir_option
@game_options
def play(players, instruments, strategies, seed, as_json, instrument_dirs, strategy_dirs, game, board, variants):
    """Play one game and tell it turn by turn, ending with the final scoring table.

    The account shows every pawn move, die, recruit, build, brag, inspector step and score with its
    reason; the table gives each seat's total, score sources, pieces and brag spaces, and the winner.
    With --json the same game is printed as a machine-readable document (setup, seed, named events,
    per-seat and per-game results). The exit status is 1 if the game broke an invariant.

    Example:

    \b
        ssb play --players 2 --strategies greedy,random --seed 5
        ssb play --instruments Bass,Vibes,Drums --json > game.json
        ssb play --game echidna --players 5 --board snow --variant catch_up --seed 3
    """
    _refuse_other_game(game, "instruments", "instrument_dirs")
    if not is_default(game):
        return game_cmd.play(game, players, strategies, seed, as_json, board, variants, strategy_dirs)
    check_players(registry.get(game), [players])
    from simulator.shuffle_swing.narrate import game_document, narrate
    from simulator.shuffle_swing.playout import GameSetup, play_one
    from simulator.shuffle_swing.strategies import StrategyLibrary

    setup = _game_setup(players, instruments, instrument_dirs=tuple(instrument_dirs))
    names = lineup(strategies, players)
    strat = StrategyLibrary(extra_dirs=tuple(strategy_dirs)).matrix(names, source="--strategies")
    from simulator.shuffle_swing.playout import game_entry

    with announce_compile(game_entry(strat)):
        record = play_one(setup, strat, seed)
    if as_json:
        click.echo(json.dumps(game_document(record, names), indent=2))
    else:
        click.echo(narrate(record, names), nl=False)
    if record.violation:
        raise click.exceptions.Exit(1)


# --------------------------------------------------------------------------- check


@cli.command()
@click.option(
    "--games", type=click.IntRange(1), default=1000, show_default=True, metavar="N", help="Games per player count."
)
@seed_option(DEFAULT_SEED, "Run seed; each game's own seed is derived from it and the game's index.")
@click.option(
    "--players",
    "player_counts",
    type=PlayerCounts(),
    default="2,3,4",
    show_default=True,
    metavar="N[,N...]",
    help="Player counts to soak.",
)
@instruments_option
@click.option(
    "--all-sets",
    is_flag=True,
    help="Soak every instrument set (one instrument per department from the library) instead of one.",
)
@instrument_dir_option
@game_options
def check(games, seed, player_counts, instruments, all_sets, instrument_dirs, game, board, variants):
    """Soak the rules: play random games and check every invariant after every turn.

    Every seat plays the uniformly random strategy. For each player count (and, with --all-sets,
    each of the 64 instrument sets) the command prints the games, turns and games per second, then
    either "no violation" or each violation with the game seed and turn that reproduce it and the
    `ssb play` line that replays that game. The exit status is 1 when a violation is found.

    Example:

    \b
        ssb check --games 2000 --seed 1 --players 3,4
        ssb check --games 20 --all-sets
        ssb check --game echidna --games 20000 --players 2,3,4,5,6
    """
    _refuse_other_game(game, "instruments", "instrument_dirs", "all_sets")
    if not is_default(game):
        return game_cmd.check(game, games, seed, player_counts, board, variants)
    check_players(registry.get(game), player_counts)
    import itertools

    from simulator.shuffle_swing.library import InstrumentLibrary
    from simulator.shuffle_swing.playout import GameSetup, soak
    from simulator.shuffle_swing.strategies import StrategyLibrary

    lib = StrategyLibrary()
    library = InstrumentLibrary(extra_dirs=tuple(instrument_dirs))
    if all_sets:
        per_dept = [[i.name for i in library.by_department(d)] for d in range(L.N_DEPT)]
        sets = list(itertools.product(*per_dept))
    else:
        sets = [tuple(instruments)]
    # One untimed game first, so loading the compiled kernel does not count against games/s.
    warm = _game_setup(player_counts[0], sets[0], library=library)
    with announce_compile("play_batch"):
        soak(warm, lib.matrix(["random"] * player_counts[0]), 1, seed)
    total_games = total_turns = 0
    total_time = 0.0
    found = 0
    if all_sets:
        click.echo(f"Soak: random seats, {len(sets)} instrument sets, run seed {seed}, {games} games per cell")
    for inst_set in sets:
        for n in player_counts:
            setup = GameSetup(nplayers=n, instruments=inst_set, library=library)
            if not all_sets and total_games == 0:
                click.echo(
                    f"Soak: random seats, {setup.label}, run seed {seed}, {games} games per player count"
                )
            names = ["random"] * n
            t0 = time.perf_counter()
            report = soak(setup, lib.matrix(names), games, seed)
            dt = time.perf_counter() - t0
            total_games += report.games
            total_turns += report.turns
            total_time += dt
            rate = report.games / dt if dt > 0 else float("inf")
            verdict = "no violation" if not report.violations else f"{len(report.violations)} violation(s)"
            where = f"{setup.label}, " if all_sets else ""
            click.echo(f"{where}{n} players: {report.games} games, {report.turns} turns, {rate:.1f} games/s, {verdict}")
            for game_seed, turn, code, message in report.violations:
                found += 1
                click.echo(f"  violation {code} ({message}) at turn {turn} of game seed {game_seed}")
                click.echo(f"    replay: {_replay_command(n, setup, game_seed, names, instrument_dirs)}")
    rate = total_games / total_time if total_time > 0 else float("inf")
    verdict = "no violation" if not found else f"{found} violation(s)"
    click.echo(f"Total: {total_games} games, {total_turns} turns, {rate:.1f} games/s, {verdict}")
    if found:
        raise click.exceptions.Exit(1)


# --------------------------------------------------------------------------- instruments


@cli.group(cls=SsbGroup)
def instruments():
    """List, show, validate and draw instrument boards.

    Instruments are TOML files in simulator/shuffle_swing/data/instruments; --instrument-dir adds more.

    Example:

    \b
        ssb instruments list
    """


@instruments.command("list")
@instrument_dir_option
def instruments_list(instrument_dirs):
    """Table of every instrument: department, set, spaces, total cost, sections and scoring rules.

    Example:

    \b
        ssb instruments list --instrument-dir my_instruments/
    """
    lib = InstrumentLibrary(extra_dirs=tuple(instrument_dirs))
    rows = [
        (
            i.name,
            i.department_name,
            "expansion" if i.expansion else "base",
            i.nspaces,
            i.total_cost,
            i.nsections,
            i.rule_summary(),
        )
        for i in lib
    ]
    click.echo(_table(("name", "department", "set", "spaces", "cost", "sections", "rules"), rows))


def show_instrument_text(inst):
    """The layout of one instrument as text lines."""
    out = []
    kind = "expansion" if inst.expansion else "base game"
    out.append(f"{inst.name}: {inst.department_name} department, {kind}")
    paid = " and ".join(L.COLOUR_NAMES[c] for c in inst.allowed_colours)
    out.append(
        f"{inst.nspaces} spaces, total cost {inst.total_cost}, built with {paid} cats, "
        f"penalty {inst.penalty_per_space} per unbuilt space"
    )
    if inst.description:
        out.append(inst.description)
    out.append(f"File: {inst.path}")
    out.append("")
    out.append("Spaces:")
    rows = []
    for i, sid in enumerate(inst.space_ids):
        secs = ",".join(inst.section_ids[s] for s in inst.space_sections[i]) or "-"
        links = ",".join(inst.space_ids[j] for j in inst.neighbours(i))
        rows.append((sid, inst.numbers[i], L.COLOUR_NAMES[inst.colours[i]], secs, links))
    out += ["  " + line for line in _table(("id", "number", "colour", "sections", "lines to"), rows).splitlines()]
    out.append("")
    out.append(f"Inspector lines ({len(inst.lines)}):")
    pairs = [f"{inst.space_ids[a]}-{inst.space_ids[b]}" for a, b in inst.lines]
    for k in range(0, len(pairs), 10):
        out.append("  " + " ".join(pairs[k : k + 10]))
    out.append("")
    out.append("Sections:")
    for s, sid in enumerate(inst.section_ids):
        extras = []
        if inst.section_symbols[s]:
            extras.append(f"symbol {inst.section_symbols[s]}")
        if inst.section_numbers[s] is not None:
            extras.append(f"number {inst.section_numbers[s]}")
        extra = f" ({', '.join(extras)})" if extras else ""
        spaces = " ".join(inst.space_ids[i] for i in inst.section_spaces[s])
        out.append(f"  {sid}{extra}: {spaces}")
        out.append(f"    scoring: {' + '.join(t.text for t in inst.section_terms[s])}")
        if inst.section_adjacent[s]:
            out.append(f"    adjacent: {', '.join(inst.section_ids[a] for a in inst.section_adjacent[s])}")
    out.append("")
    out.append(f"Neutral spaces (3 players): {', '.join(inst.space_ids[i] for i in inst.neutral)}")
    tokens = [str(k) for k, t in enumerate(inst.track_token) if t]
    out.append(
        f"Brag track: pieces needed {'/'.join(map(str, inst.track_need))}; "
        f"points {'/'.join(map(str, inst.track_vp))}; "
        f"{L.TOKEN_NAMES[inst.department]} token on spaces {', '.join(tokens) or 'none'}"
    )
    if inst.reconstructed:
        out.append("")
        out.append(
            "Note: this layout is reconstructed. The printed board is not public; the sections and "
            "their scoring follow the instrument appendix, the spaces, numbers, colours and lines are "
            "a plausible design."
        )
    return out


@instruments.command("show")
@click.argument("name")
@instrument_dir_option
def instruments_show(name, instrument_dirs):
    """Print one instrument's layout: spaces, lines, sections and their rules, neutral spaces.

    Example:

    \b
        ssb instruments show Horns
    """
    inst = InstrumentLibrary(extra_dirs=tuple(instrument_dirs)).get(name)
    click.echo("\n".join(show_instrument_text(inst)))


@instruments.command("validate")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
def instruments_validate(paths):
    """Load and check instrument files; a folder checks every *.toml in it.

    Prints OK per good file and the error (file, key, reason) per bad one; the exit status is 2
    if any file failed.

    Example:

    \b
        ssb instruments validate my_instruments/tuba.toml
    """
    from simulator.shuffle_swing.library import validate_paths

    failed = 0
    for f, result in validate_paths(paths, load_board()):
        if isinstance(result, DataError):
            failed += 1
            click.echo(f"error: {result}", err=True)
        else:
            click.echo(f"OK {f}: {result}")
    if failed:
        raise click.exceptions.Exit(2)


@instruments.command("draw")
@click.argument("name")
@click.option(
    "-o",
    "--out",
    "output",
    default=None,
    type=click.Path(dir_okay=False),
    metavar="FILE.png",
    help="Picture to write (required); its suffix chooses the format: .png, .svg, .pdf or .jpg.",
)
@old_spelling("--output", "output", type=click.Path(dir_okay=False))
@instrument_dir_option
def instruments_draw(name, output, instrument_dirs):
    """Draw an instrument's reconstructed layout as a picture (PNG, SVG, PDF or JPEG, by suffix).

    Spaces are circles filled with the cat colour they cost, labelled with id and number; grey lines
    are the inspector lines; each section is an outlined, labelled group.

    Example:

    \b
        ssb instruments draw Piano -o piano.png
    """
    if output is None:
        raise click.BadParameter("give the picture to write, e.g. -o piano.png", param_hint="--out")
    from simulator.shuffle_swing.drawing import PICTURE_FORMATS, draw_instrument, picture_format

    if picture_format(output) is None:
        raise UserError(
            f"-o: {output}: cannot tell the picture type from the suffix "
            f"'{Path(output).suffix}'; use one of {', '.join(PICTURE_FORMATS)}"
        )
    inst = InstrumentLibrary(extra_dirs=tuple(instrument_dirs)).get(name)
    try:
        draw_instrument(inst, output)
    except OSError as exc:
        raise UserError(f"cannot write {output}: {exc.strerror or exc}") from None
    click.echo(f"wrote {output}")


# --------------------------------------------------------------------------- strategies


@cli.group(cls=SsbGroup)
def strategies():
    """List and show the named strategies (profiles in simulator/shuffle_swing/data/strategies).

    Example:

    \b
        ssb strategies list
    """


@strategies.command("list")
@strategy_dir_option
def strategies_list(strategy_dirs):
    """Table of every strategy: kind, focus and description.

    Example:

    \b
        ssb strategies list --strategy-dir my_profiles/
    """
    from simulator.shuffle_swing.strategies import StrategyLibrary

    lib = StrategyLibrary(extra_dirs=tuple(strategy_dirs))
    rows = [
        (s.name, s.kind, L.DEPT_NAMES[s.focus] if s.focus >= 0 else "-", s.description) for s in lib.all()
    ]
    click.echo(_table(("name", "kind", "focus", "description"), rows))


@strategies.command("show")
@click.argument("name")
@strategy_dir_option
def strategies_show(name, strategy_dirs):
    """Print one strategy: kind, flags, description and its full weight table.

    NAME may carry a focus, e.g. greedy:orange.

    Example:

    \b
        ssb strategies show greedy
    """
    from simulator.shuffle_swing.strategies import StrategyLibrary

    s = StrategyLibrary(extra_dirs=tuple(strategy_dirs)).get(name, source="NAME")
    click.echo(f"{s.name}: {s.kind}")
    if s.description:
        click.echo(s.description)
    click.echo(f"focus: {L.DEPT_NAMES[s.focus] if s.focus >= 0 else '-'}")
    if s.kind == "lookahead":
        click.echo(f"budget: {s.budget} rollouts per candidate")
    click.echo(f"file: {s.path}")
    click.echo("weights:" if s.kind != "random" else "weights (unused by the random kind):")
    width = max(len(w) for w in L.WEIGHT_NAMES)
    for w in L.WEIGHT_NAMES:
        click.echo(f"  {w:<{width}}  {s.weights.get(w, 0.0):g}")


from ssb.strategy_tune_cmd import strategies_ladder, strategies_tune  # noqa: E402  (tuning and the skill ladder)

strategies.add_command(strategies_tune)
strategies.add_command(strategies_ladder)

from ssb.meta_cmd import strategies_meta  # noqa: E402  (the meta-game of a strategy pool)

strategies.add_command(strategies_meta)


@cli.command()
@click.option(
    "--games",
    type=click.IntRange(min=1, max=1_000_000),
    default=2000,
    show_default=True,
    help="Games per throughput measurement (1 .. 1,000,000; --quick plays at most 200).",
)
@click.option("--quick", is_flag=True, help="Small counts and no child-process timings (JIT speed-up, compile).")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Measure the kernel's speed relative to a reference loop run alongside and write it to FILE.",
)
@click.option(
    "--compare",
    "compare_path",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Measure the relative speed and compare it with FILE (from --save); exit 1 on a slowdown.",
)
@click.option(
    "--ratio",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.8,
    show_default=True,
    metavar="R",
    help="With --compare: flag a workload whose relative speed fell below R times the saved one.",
)
def bench(games, quick, as_json, save_path, compare_path, ratio):
    """Measure the engine: games and decisions per second per core (greedy, random, 2-4 players),
    the greedy's win rate against three random players, the speed-up over the interpreted kernel
    (NUMBA_DISABLE_JIT=1), compile time cold and cached, and the start time of `ssb play`.

    With --save or --compare only the speed relative to this machine is measured: games per second
    of three lineups divided by the speed of a fixed pure-Python loop timed alongside in the same
    process, so the figure does not depend on the machine. --compare exits with status 1 when a
    workload's relative speed fell below --ratio times the saved one.

    Example:

    \b
        ssb bench --quick
        ssb bench --save benchmarks/baseline.json
        ssb bench --compare benchmarks/baseline.json --ratio 0.8
    """
    import json

    from ssb.benchmark import (
        compare_speed,
        format_report,
        format_speed,
        load_speed,
        relative_speed,
        run_all,
        save_speed,
    )

    if save_path or compare_path:
        saved = None
        if compare_path:
            try:
                saved = load_speed(compare_path)
            except ValueError as exc:
                raise UserError(str(exc)) from None
        now = relative_speed(games=saved["games"] if saved else 300, seed=saved["seed"] if saved else 11)
        cmp = compare_speed(now, saved, ratio) if saved else None
        if save_path:
            save_speed(now, save_path)
        if as_json:
            click.echo(json.dumps({"now": now, "compare": cmp}, indent=2))
        else:
            click.echo(format_speed(now, cmp))
            if save_path:
                click.echo(f"saved -> {save_path}")
        if cmp is not None and cmp["slow"]:
            raise click.exceptions.Exit(1)
        return

    fig = run_all(games, quick=quick)
    click.echo(json.dumps(fig, indent=2) if as_json else format_report(fig))


from ssb import game_cmd  # noqa: E402  (other games: play/check --game, boards)
from ssb.game_cmd import boards  # noqa: E402
from ssb.report_cmd import report  # noqa: E402  (the balance report)
from ssb.run_cmd import run  # noqa: E402  (the experiment runner)

cli.add_command(run)
cli.add_command(report)
cli.add_command(boards)

from ssb.regress_cmd import baseline, regress  # noqa: E402  (the balance regression gate)

cli.add_command(baseline)
cli.add_command(regress)

from ssb.tune_cmd import tune  # noqa: E402  (the balance search)

cli.add_command(tune)


def main():
    """Console entry point (``ssb``)."""
    cli.main(prog_name="ssb")


if __name__ == "__main__":
    main()
