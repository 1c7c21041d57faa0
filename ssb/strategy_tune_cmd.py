"""``ssb strategies tune`` and ``ssb strategies ladder``: tuning a strategy's weights and measuring
the skill ladder (``strategies.tune``, ``strategies.ladder``)."""

from pathlib import Path

import click

from simulator import games as registry
from simulator.errors import DataError
from ssb.common import DEFAULT_SEED

STARTER = registry.get().starter  # the default game's own setting (Game.starter): the commands' default


def name_list(value, what):
    names = tuple(n.strip() for n in str(value).split(",") if n.strip())
    if not names:
        raise click.BadParameter(f"give at least one {what}")
    return names


def _counts(value, allowed):
    out = []
    for part in name_list(value, "player count"):
        if not part.isdigit() or int(part) not in allowed:
            raise click.BadParameter(f"'{part}' is not a player count ({', '.join(map(str, allowed[:-1]))} or {allowed[-1]})")
        if int(part) in out:
            raise click.BadParameter(f"player count {part} is given twice")
        out.append(int(part))
    return tuple(out)


def job_count(jobs):
    import os

    return max(1, os.cpu_count() or 1) if jobs == 0 else jobs


def _check_profile_name(name, out, strategy_dirs):
    """Refuse, before any game, a name the written profile could not be loaded under: one that is
    not a strategy name, or one another profile already defines (a shipped one, or one of
    --strategy-dir other than the file to write)."""
    from simulator.validate import name_problem
    from strategies.tune import TUNED_GAME

    problem = name_problem(name)
    if problem:
        raise click.BadParameter(f"'{name}' {problem}", param_hint="--name")
    try:
        taken = TUNED_GAME.strategies(tuple(strategy_dirs))._by_name.get(name.lower())
    except DataError:
        return  # (the tune itself reports the broken folder)
    if taken is not None and Path(taken.path).resolve() != Path(out).resolve():
        raise click.BadParameter(
            f"'{name}' is already the strategy of {taken.path}: the profile written would not load; choose another --name",
            param_hint="--name",
        )


@click.command("tune")
@click.option("--name", default="my-tuned", show_default=True, help="Name of the tuned strategy (the profile's strategy.name); not a name another profile has (tuned, greedy, ...).")
@click.option("--start", default="greedy", show_default=True, help="Profile whose weights the search starts from (a greedy-kind strategy).")
@click.option("--players", "players", default="4", show_default=True, metavar="2,3,4", help="Player counts the weights are scored at (one row for all of them).")
@click.option(
    "--opponents", default=",".join((*registry.get().weight_tune.opponents, "champion")), show_default=True, metavar="A,B,...",
    help="The population a candidate meets: named strategies, and 'champion' (the search's current estimate).",
)
@click.option("--weights", "weight_names", default="", metavar="W1,W2,...", help="Weights to search (default: all but points and focus).")
@click.option("--late", is_flag=True, help="Search the late-game row [weights_late] as well (interpolated by game progress).")
@click.option("--deals", type=click.IntRange(1), default=64, show_default=True, help="Deals per candidate and generation (each played in every seat rotation against each opponent).")
@click.option("--generations", type=click.IntRange(1), default=30, show_default=True, help="CMA-ES generations per run.")
@click.option("--popsize", type=click.IntRange(0), default=0, show_default=True, help="Candidates per generation (0: cma's default, 4 + 3 ln(dimension)).")
@click.option("--sigma0", type=click.FloatRange(0, 5, min_open=True), default=0.3, show_default=True, help="Initial step size, in units of each weight's scale.")
@click.option("--runs", type=click.IntRange(1), default=3, show_default=True, help="Independent CMA-ES runs (own seeds and deals); the best after re-scoring wins.")
@click.option("--rescore-deals", type=click.IntRange(1), default=1000, show_default=True, help="Fresh deals on which the runs' results are re-scored against the population.")
@click.option("--verify-deals", type=click.IntRange(2), default=2000, show_default=True, help="Untouched deals on which the winner is measured against greedy seats.")
@click.option("--seed", type=click.IntRange(0), default=DEFAULT_SEED, show_default=True, help="Tune seed: every deal and every CMA-ES run derives from it.")
@click.option("--instruments", default=",".join(STARTER), show_default=True, metavar="A,B,C", help="The instrument set the games are played on.")
@click.option("--instrument-dir", "instrument_dirs", multiple=True, metavar="DIR", help="Folder of extra instruments; may be repeated.")
@click.option("--strategy-dir", "strategy_dirs", multiple=True, metavar="DIR", help="Folder of extra strategy profiles (*.toml); may be repeated.")
@click.option("--description", default="", help="One-line description for the profile (default: its measured strength).")
@click.option("-j", "--jobs", type=click.IntRange(0), default=1, show_default=True, help="Worker processes (0: one per core); the result does not depend on it.")
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False), default=None, metavar="FILE", help="Profile file to write (default: NAME.toml).")
@click.option("--replay", "replay_path", type=click.Path(dir_okay=False), default=None, metavar="PROFILE", help="Tune again with the settings of PROFILE's provenance and check the result is identical (exit 1 if not).")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
@click.option("--game", default=registry.DEFAULT_GAME, show_default=True, metavar="NAME", help="The game whose strategy is tuned: one whose strategies are rows of weights (another is refused, with the reason).")
def strategies_tune(
    name, start, players, opponents, weight_names, late, deals, generations, popsize, sigma0, runs,
    rescore_deals, verify_deals, seed, instruments, instrument_dirs, strategy_dirs, description, jobs,
    out, replay_path, quiet, game,
):
    """Tune a strategy's weight row with CMA-ES (the `cma` library).

    Each candidate row plays one seat against each opponent of the population in every other seat,
    on the same deals for every candidate of a generation, in every seat rotation. Several independent
    runs; their results are re-scored on fresh deals, the best is measured once more on untouched
    deals against greedy seats (win rate with a 95% interval counting deals, and its advantage over
    the start profile on the same deals). Writes a profile whose [provenance] table records every
    setting, so that --replay reproduces it bit for bit. The games played are counted in the
    provenance (games); greedy plays very roughly 1,000-3,000 four-player games per second per core.

    Example:

    \b
        ssb strategies tune --players 4 --jobs 2 -o my_profiles/tuned.toml
        ssb strategies tune --instrument-dir my_instruments/ --instruments Bass,Vibes,Mine -o mine.toml
        ssb strategies tune --deals 8 --generations 4 --runs 2 --rescore-deals 50 --verify-deals 100
        ssb strategies tune --replay simulator/shuffle_swing/data/strategies/tuned.toml --jobs 2
    """
    from strategies import tune as T

    if T.tuned_game(game) is not T.TUNED_GAME:  # (one game's weights are tuned: the default game's)
        raise DataError("--game", "game", f"ssb strategies tune serves {T.TUNED_GAME.title} only")
    log = (lambda m: None) if quiet else (lambda m: click.echo(m, err=True))
    jobs = job_count(jobs)
    if replay_path:
        if not Path(replay_path).is_file():
            raise click.BadParameter(f"{replay_path}: no such file", param_hint="--replay")
        settings, _prov = T.read_provenance(replay_path)
        log(f"replaying: {T.command_line(settings)}")
        strategy, prov = T.tune(settings, jobs=jobs, log=log)
        new = T.profile_text(strategy, prov)
        old = Path(replay_path).read_text(encoding="utf-8")
        if out:
            Path(out).write_text(new, encoding="utf-8")
            click.echo(f"wrote {out}")
        same, same_code = T.compare(old, new)
        if same:
            click.echo(f"reproduced {replay_path}: identical" + ("" if same_code else " (the kernel has changed since, its decisions have not)"))
            return
        click.echo(f"NOT reproduced: the tune of {replay_path}'s provenance gives another file")
        import difflib

        click.echo("".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), replay_path, "replay", n=1)))
        raise click.exceptions.Exit(1)

    settings = T.TuneSettings(
        name=name, description=description, start=start, players=_counts(players, T.PLAYER_COUNTS),
        opponents=name_list(opponents, "opponent"),
        weights=tuple(n.strip() for n in weight_names.split(",") if n.strip()), late=late, deals=deals,
        generations=generations, popsize=popsize, sigma0=float(sigma0), runs=runs,
        rescore_deals=rescore_deals, verify_deals=verify_deals, seed=seed,
        instruments=name_list(instruments, "instrument"), instrument_dirs=tuple(instrument_dirs),
        strategy_dirs=tuple(strategy_dirs),
    ).checked("--")
    out = out or f"{name}.toml"
    parent = Path(out).resolve().parent
    if not parent.is_dir():
        raise click.BadParameter(f"folder {parent} does not exist", param_hint="--out")
    _check_profile_name(name, out, strategy_dirs)
    from scenarios.writelock import folder_lock

    with folder_lock(parent):  # one writer per folder: a second live tune into it is refused
        strategy, prov = T.tune(settings, jobs=jobs, log=log)
        T.write_profile(out, strategy, prov)
    for n, v in prov["verify"].items():
        lo, hi = v["interval_95"]
        click.echo(
            f"{n} players: {v['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] as one seat against greedy "
            f"(par {v['par']:.0%}; start profile {v['start_win_rate']:.1%}) on {v['deals']} fresh deals"
        )
    click.echo(f"{prov['games']} games; {'accepted' if prov['accepted'] else 'NOT accepted (no sure gain over the start profile)'}")
    click.echo(f"wrote {out}")


@click.command("ladder")
@click.option("--rungs", default=None, metavar="A,B,...", help="Rungs from weakest to strongest (default: the shipped ladder); NAME@param=value sets a parameter, e.g. greedy@temperature=1.")
@click.option("--game", default=registry.DEFAULT_GAME, show_default=True, metavar="NAME", help=f"The game whose ladder is measured, with its own profiles: {', '.join(registry.names())}.")
@click.option("--board", default=None, metavar="NAME", help="A game of boards: the board every game is played on (default: the game's first).")
@click.option("--players", "players", default=None, metavar="2,3,4", help="Player counts of the win-rate matrix (default: the game's ladder's, 2,3,4 for Shuffle and Swing; any the game supports).")
@click.option("--deals", type=click.IntRange(2), default=40, show_default=True, help="Deals per matrix cell (each played in every seat arrangement).")
@click.option("--depth-budgets", default="1,2,4,8", show_default=True, metavar="B1,B2,...", help="Budgets of the skill-depth figure (each against its double); empty to skip.")
@click.option("--depth-rung", default=None, metavar="NAME", help="Search strategy of the skill-depth figure (default: the fast search rung).")
@click.option("--depth-deals", type=click.IntRange(2), default=30, show_default=True, help="Deals per skill-depth comparison.")
@click.option("--instruments", default=",".join(STARTER), show_default=True, metavar="A,B,C", help="The instrument set.")
@click.option("--instrument-dir", "instrument_dirs", multiple=True, metavar="DIR", help="Folder of extra instruments; may be repeated.")
@click.option("--strategy-dir", "strategy_dirs", multiple=True, metavar="DIR", help="Folder of extra strategy profiles (*.toml); may be repeated.")
@click.option("--seed", type=click.IntRange(0), default=DEFAULT_SEED, show_default=True, help="Seed of every deal.")
@click.option("-j", "--jobs", type=click.IntRange(0), default=1, show_default=True, help="Worker processes (0: one per core); the figures (not the timings) do not depend on it.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, metavar="FILE", help="Also write every figure as JSON.")
@click.option("--placed", default=None, metavar="A,B,...", help="Strategies measured against every rung and placed where they fall, not rungs (default: the game's, e.g. saboteur,lookahead-near for Echidna Shuffle; '' for none).")
@click.option("--cost-time", type=click.FloatRange(0.001, 60), default=0.5, show_default=True, metavar="S", help="Seconds each timed batch of the cost figure aims at (5 batches per rung and greedy).")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines: only the figures (and nothing else with --json); the exit status still says whether the ladder is monotone.")
def strategies_ladder(game, board, rungs, players, deals, depth_budgets, depth_rung, depth_deals, instruments, instrument_dirs,
                      strategy_dirs, seed, jobs, json_path, placed, cost_time, quiet=False):
    """Measure the skill ladder: a win-rate matrix over the rungs, a monotone-ladder check, each rung
    against three greedy seats, the skill depth of the search player and each rung's cost per game.

    Matrix cell (row A, column B): A's share of the wins in games of A against B with the seats split
    between them (1-1 at 2 players with Pri, 2-1 and 1-2 at 3, 2-2 at 4), every seat arrangement of
    each deal played, par 50%, 95% intervals counting deals. The ladder is monotone when every rung
    beats the rung below it with an interval above 50% at 2 and 4 players. Skill depth: the search
    rung with budget 2b against itself with budget b, 2-2 at 4 players. Cost: seconds per game of a
    mirror of the rung divided by greedy's on the same deals, measured in the same run (fastest of 5). Exits 1 when the
    ladder is not monotone.

    Another game's ladder (--game) uses its own profiles, rungs and settings, e.g. Echidna Shuffle on one --board: rungs random, plain-setup,
    greedy, lookahead, setup-lean (NAME@weight=value or NAME@depth=k sets a parameter); saboteur and
    lookahead-near are placed where they fall against the rungs (--placed); one seat against three
    greedy and three lookahead; no skill-depth figure.

    Example:

    \b
        ssb strategies ladder --deals 40 --jobs 2
        ssb strategies ladder --rungs greedy@temperature=1,greedy,tuned --players 4 --depth-budgets ''
        ssb strategies ladder --game echidna --board snow --deals 100 --jobs 2
    """
    from ssb.common import refuse_other_game_options
    from strategies import ladder as LD

    ctx = click.get_current_context()
    chosen = registry.get(game, "--game", "game")
    # The instrument options are a game's own (Game.cli_options); the skill-depth figure's are there
    # for a game whose ladder declares it, and an empty --depth-budgets asks for no figure, which any
    # game can. (A board given to a game without boards is refused below.)
    depth = ("depth_rung", "depth_deals") + (("depth_budgets",) if depth_budgets.strip() else ())

    def owns(g, name):
        return bool(g.ladder is not None and g.ladder.depth) if name in depth else name in g.cli_options

    refuse_other_game_options(ctx, chosen, "instruments", "instrument_dirs", *depth, owns=owns)
    if rungs is not None:
        names = [n.strip() for n in rungs.split(",")]
        if not any(names):
            raise click.BadParameter("give at least two rungs (or leave --rungs out for the shipped ladder)", param_hint="--rungs")
        if "" in names:
            raise click.BadParameter(f"'{rungs}' has an empty rung", param_hint="--rungs")
        seen = {}
        for n in names:
            if n.lower() in seen:
                raise click.BadParameter(
                    f"'{n}' is given twice: a rung cannot beat itself, so the ladder could never pass its check",
                    param_hint="--rungs",
                )
            seen[n.lower()] = n
        if len(names) < 2:
            raise click.BadParameter("give at least two rungs: a ladder compares each rung with the one below", param_hint="--rungs")
    budgets = tuple(int(b) for b in name_list(depth_budgets, "budget") if b.isdigit()) if depth_budgets.strip() else ()
    if depth_budgets.strip() and len(budgets) != len(name_list(depth_budgets, "budget")):
        raise click.BadParameter(f"'{depth_budgets}' is not a list of positive integers", param_hint="--depth-budgets")
    if any(b < 1 for b in budgets):
        raise click.BadParameter("budgets are positive integers", param_hint="--depth-budgets")
    g = registry.get(game, "--game", "game")
    if g.ladder is None:
        raise click.BadParameter(f"{g.title} declares no skill ladder", param_hint="--game")
    if board is not None and board not in g.boards:
        known = f"({', '.join(g.boards)})" if g.boards else "(it has no boards)"
        raise click.BadParameter(f"'{board}' is not a board of {g.title} {known}", param_hint="--board")
    counts = _counts(players, tuple(g.player_counts)) if players else tuple(g.ladder.players)
    cfg = LD.LadderConfig(
        rungs=name_list(rungs, "rung") if rungs else None, players=counts, deals=deals, game=g.name, board=board,
        depth_budgets=budgets, depth_rung=depth_rung, depth_deals=depth_deals,
        instruments=name_list(instruments, "instrument"), instrument_dirs=tuple(instrument_dirs),
        strategy_dirs=tuple(strategy_dirs), seed=seed, cost_s=cost_time,
        placed=None if placed is None else tuple(n.strip() for n in placed.split(",") if n.strip()),
    )
    from ssb.common import check_json_path, write_json

    check_json_path(json_path, what="measured")
    result = LD.run_ladder(cfg, jobs=job_count(jobs), log=(lambda m: None) if quiet else (lambda m: click.echo(m, err=True)))
    if json_path:  # written before the figures are printed: a full disk loses nothing printed
        write_json(json_path, result)
    if not (quiet and json_path):
        click.echo(LD.format_ladder(result))
    if json_path and not quiet:
        click.echo(f"wrote {json_path}")
    if not result["monotone"]["ok"]:
        raise click.exceptions.Exit(1)
