"""``ssb bench``: the speed figures of the rules kernel (the measuring itself is :mod:`ssb.games.shuffle_swing.benchmark`)."""

import json

import click

from ssb.common import UserError


@click.command()
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

    from ssb.games.shuffle_swing.benchmark import (
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
