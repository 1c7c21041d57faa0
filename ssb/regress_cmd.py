"""``ssb baseline`` and ``ssb regress``: the balance regression gate (a thin layer over reports.gate.regress).

``baseline`` freezes the figures of a finished run into a JSON file; ``regress`` tests a later run
against it and says, per figure, held / moved / undecided. With ``--adaptive`` it plays more deals
for the undecided cells itself (through scenarios.runner), which is why the game-playing part of
the sequential mode lives here and not in ``reports``.
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path

import click

from simulator.errors import DataError
from ssb.common import UserError

MODES = ("fail", "warn")


GateError = UserError  # the command's user errors: ``error: <message>``, exit status 2


def _load(results_dir):
    from scenarios.results import load_results

    return load_results(results_dir)


# =========================================================================== baseline


@click.command(name="baseline")
@click.argument("results_dir", metavar="RESULTS_DIR")
@click.option(
    "-o",
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Baseline file to write (JSON), e.g. baselines/ci-baseline.json.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors (the baseline is written all the same).")
def baseline(results_dir, out, quiet):
    """Freeze the balance figures of a finished run into a baseline file.

    RESULTS_DIR is a directory written by `ssb run`, of any game. Per cell the file keeps each
    seat's and each strategy's win rate, the mean rounds (and the stalled-game rate of a game that
    can stall) and the figures the game declares (Shuffle and Swing: each department's objective
    points per game and build rate, the score spread; Echidna Shuffle: tokens spent, moves lost,
    deliveries on others' turns and pick-ups per game), as per-deal counts, sums and sums of squares
    (what a later test needs), plus the game, the scenario hash, the SHA-256 of every data file and
    the code version. Test a later run against it with `ssb regress`.

    Example:

    \b
        ssb run ci --out results/ci-baseline --force
        ssb baseline results/ci-baseline -o baselines/ci-baseline.json
        ssb run echidna-ci --out results/echidna-ci-baseline --force
        ssb baseline results/echidna-ci-baseline -o baselines/echidna-ci-baseline.json
    """
    from reports.gate.baseline import build_baseline, write_baseline

    try:
        seats, games, manifest = _load(results_dir)
    except DataError as exc:
        raise GateError(str(exc)) from None
    if len(games) == 0:
        raise GateError(f"{results_dir}: the run holds no games")
    doc = build_baseline(seats, games, manifest, source=results_dir)
    from reports.feel.section import gate_figures  # descriptive game-feel figures of a run with the lead record

    feel = gate_figures(results_dir)
    if feel:
        doc["feel"] = feel
    from scenarios.writelock import folder_lock

    parent = Path(out).resolve().parent
    if not parent.is_dir():
        raise GateError(f"{out}: cannot write the baseline: folder {parent} does not exist")
    try:
        with folder_lock(parent):  # one writer per folder: a second live baseline into it is refused
            write_baseline(doc, out)
    except DataError as exc:
        raise GateError(str(exc)) from None
    nfig = sum(len(c["figures"]) for c in doc["cells"])
    if not quiet:
        click.echo(
            f"baseline of '{doc['scenario']['name']}' (run seed {doc['run_seed']}, {len(games):,} games): "
            f"{len(doc['cells'])} cell(s), {nfig} figures -> {out}"
        )


# =========================================================================== regress


def looks_stop(baseline_path):
    """The stopping rule of a run played in looks (``ssb run --looks ... --against BASELINE``):
    after a look, the gate on the deals played so far (at alpha split over the looks, the default
    margins) is decided when every figure held or moved, or when one moved (the gate fails
    whatever the rest says). The baseline is read (and checked) before any game is played."""
    from reports.gate.baseline import read_baseline
    from reports.gate.regress import FAIL, INCONCLUSIVE, regress
    from scenarios.results import load_results

    try:
        base = read_baseline(baseline_path)
    except DataError as exc:
        raise GateError(str(exc)) from None

    def stop(out_dir, look):
        seats, games, manifest = load_results(out_dir, allow_partial=True)
        counts = regress(base, seats, games, manifest, baseline_path=baseline_path)["counts"]
        return counts[FAIL] > 0 or counts[INCONCLUSIVE] == 0

    return stop


def _round_player(results_dir, manifest, jobs, rounds_dir, quiet):
    """The function that plays an adaptive round: fresh deals (a new run seed) for the given cells."""
    from simulator.seeds import round_seed
    from scenarios.results import RunDirError
    from scenarios.runner import file_hashes, run_scenario
    from simulator.provenance import code_version
    from scenarios.load import scenario_from_doc

    sc = manifest["scenario"]
    doc = tomllib.loads(sc["text"])
    # The extra rounds play the games their plan asks for: a sequential run's [sequential] table
    # (rounds until decided) would stop a round short of it, and the budget would count games never played.
    doc.pop("sequential", None)
    path = sc.get("file") or str(results_dir)
    run_seed = int(manifest.get("run_seed", doc.get("seed", 0)))
    base_dir = Path(rounds_dir) if rounds_dir else Path(results_dir) / "adaptive"

    # The new games must be played by the same data and rules as the run they are merged with.
    # (Any game: scenario_from_doc reads a scenario of another game through scenarios.generic.)
    probe = scenario_from_doc(doc, path)
    now = file_hashes(probe.data_files())
    then = file_hashes(manifest["data_files"])
    changed = sorted(k for k in set(now) | set(then) if now.get(k) != then.get(k))
    if changed:
        raise GateError(
            f"{results_dir}: data files changed since the run was played ({', '.join(changed)}); "
            "--adaptive would mix two versions: play the run again first"
        )
    if code_version(probe.game)["kernel_sha256"] != manifest.get("code", {}).get("kernel_sha256"):
        raise GateError(
            f"{results_dir}: the rules kernel changed since the run was played; --adaptive would mix two "
            "versions: play the run again first"
        )

    def play_more(plan, round_index):
        seed = round_seed(run_seed, round_index)
        games = max(plan.values())
        scenario = scenario_from_doc(doc, path, seed=seed, games=games)
        cells = tuple(dataclasses.replace(c, deals=plan[c.key] // c.rotations) for c in scenario.cells if c.key in plan)
        scenario = dataclasses.replace(scenario, cells=cells)
        out = base_dir / f"round-{round_index:02d}"
        if not quiet:
            click.echo(
                f"adaptive round {round_index}: {sum(plan.values()):,} games in {len(cells)} cell(s), "
                f"run seed {seed} -> {out}",
                err=True,
            )
        try:
            run_scenario(scenario, out, jobs=jobs, resume=True, progress=False)
        except RunDirError:
            run_scenario(scenario, out, jobs=jobs, force=True, progress=False)
        from reports.gate.baseline import figure_table

        s, g, _ = _load(out)
        if len(g) != sum(plan.values()):
            raise GateError(f"{out}: adaptive round {round_index} played {len(g):,} games, its plan asked for "
                            f"{sum(plan.values()):,}; the figures would be wrong: delete {out} and try again")
        return figure_table(s, g, game=manifest.get("game"))

    return play_more


@click.command(name="regress")
@click.argument("results_dir", metavar="RESULTS_DIR")
@click.option(
    "--baseline",
    "baseline_path",
    required=True,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Baseline file written by `ssb baseline` (e.g. baselines/ci-baseline.json).",
)
@click.option(
    "--mode",
    type=click.Choice(MODES),
    default="fail",
    show_default=True,
    help="fail: exit status 1 when a figure moved beyond its margin; warn: report it, exit 0.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Fail (exit status 1) also when a figure is undecided (not shown within its margin); "
    "`make regress` and CI use it.",
)
@click.option(
    "--margin",
    "margins",
    multiple=True,
    metavar="KIND=VALUE",
    help="Margin of a kind of figure; rates in percentage points. Kinds and defaults: every game: win_rate=3, "
    "rounds=0.5, stall_rate=1; Shuffle and Swing: build_rate=3, objective_points=1 (points per game), "
    "score_spread=2 (points); Echidna Shuffle (per game): tokens_spent=0.5, moves_lost=0.5, "
    "deliveries_off_turn=0.1, pickups=0.5. A kind the baseline's game lacks is ignored. Repeatable.",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 0.5, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    metavar="A",
    help="Error rate: the chance of a false fail over the whole run (and over all looks with --adaptive).",
)
@click.option(
    "--summary-md",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Write a Markdown summary (for a pull-request comment).",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Write every figure and verdict as JSON.",
)
@click.option(
    "--adaptive",
    is_flag=True,
    help="Play more games for cells with undecided figures, in rounds, until decided or --budget is spent.",
)
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    default=None,
    metavar="GAMES",
    help="With --adaptive: most extra games to play over all rounds (default: as many as the run holds).",
)
@click.option(
    "--looks",
    type=click.IntRange(min=2, max=20),
    default=4,
    show_default=True,
    metavar="K",
    help="With --adaptive: most looks, the first included; alpha is split evenly over them.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(0),
    default=0,
    metavar="J",
    help="With --adaptive: worker processes for the extra rounds (default: all cores).",
)
@click.option(
    "--rounds-dir",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="With --adaptive: where the extra rounds' result tables go. Default: RESULTS_DIR/adaptive.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
def regress(
    results_dir,
    baseline_path,
    mode,
    strict,
    margins,
    alpha,
    summary_md,
    json_path,
    adaptive,
    budget,
    looks,
    jobs,
    rounds_dir,
    quiet,
):
    """Test a run against a baseline: did a change move any balance figure beyond its margin?

    For every figure of every cell (win rates per seat and strategy, rounds, and the figures the
    game declares: see `ssb baseline --help`) the verdict is held (shown within the margin: TOST at
    alpha), moved (shown beyond it, Holm-corrected over all figures) or undecided (neither).
    When the run played the baseline's deals (same scenario and run seed) every figure is compared
    deal by deal (paired); otherwise as two independent samples. A figure that is the same on every
    deal of both runs is left out. Exit status 1 when a figure moved in fail mode (or, with
    --strict, is undecided), else 0; 2 for a mistake (a baseline of another game or of other
    cells, a missing or malformed file). --summary-md writes a pull-request comment: what moved, by how much, with intervals, and
    which data files changed since the baseline. --adaptive plays more deals (fresh seeds) for
    undecided cells in up to K looks, alpha split over the looks.

    Example:

    \b
        ssb run ci --out results/ci
        ssb regress results/ci --baseline baselines/ci-baseline.json --strict --summary-md summary.md
        ssb regress results/ci --baseline baselines/ci-baseline.json --adaptive --budget 16000
        ssb run echidna-ci --out results/echidna-ci
        ssb regress results/echidna-ci --baseline baselines/echidna-ci-baseline.json --strict
    """
    from reports.gate.baseline import read_baseline
    import os

    from reports.gate.regress import gate_status, parse_margins
    from reports.gate.format import result_json, summary_markdown, summary_text
    from reports.gate.regress import regress as run_regress

    try:
        margin_values = parse_margins(margins)
        base = read_baseline(baseline_path)
        seats, games, manifest = _load(results_dir)
        extra = None
        if adaptive:
            spend = budget if budget is not None else len(games)
            extra = {
                "play_more": _round_player(results_dir, manifest, jobs, rounds_dir, quiet),
                "budget": spend,
                "looks": looks,
            }
        elif budget is not None or rounds_dir is not None:
            raise GateError("--budget and --rounds-dir go with --adaptive")
        result = run_regress(
            base,
            seats,
            games,
            manifest,
            margins=margin_values,
            alpha=alpha,
            baseline_path=baseline_path,
            adaptive=extra,
        )
    except DataError as exc:
        raise GateError(str(exc)) from None
    if summary_md:
        Path(summary_md).parent.mkdir(parents=True, exist_ok=True)
        # The balance report of the same run (`ssb report RESULTS_DIR` writes it there).
        link = os.path.relpath(Path(results_dir) / "report" / "report.html", Path(summary_md).resolve().parent)
        link = Path(link).as_posix()
        Path(summary_md).write_text(
            summary_markdown(result, mode, results_dir, strict=strict, report_link=link), encoding="utf-8"
        )
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(result_json(result, mode, strict), indent=1) + "\n", encoding="utf-8")
    if not quiet:
        click.echo(summary_text(result, mode, strict))
        from reports.feel.section import gate_lines  # descriptive game-feel figures, never a verdict

        for line in gate_lines(base.get("feel"), results_dir):
            click.echo(line)
    _, status = gate_status(result, mode, strict)
    if status:
        raise click.exceptions.Exit(status)
