"""``ssb run``: play a scenario file and write its result tables (a thin layer over scenarios.runner)."""

import sys

import click

from simulator.errors import DataError
from ssb.common import UserError, out_dir_option, run_backend


def _fmt_rate(games, seconds):
    return f"{games / seconds:,.0f} games/s" if seconds > 0 else "-"


def _instrument_dirs_set(scenario, instrument_dirs, sets):
    """The ``--set instrument_dirs=[...]`` that adds the ``--instrument-dir`` folders (relative to
    the working directory) to the scenario's own (relative to its file), so the run records them."""
    import json
    from pathlib import Path

    from scenarios.load import scenario_game
    from scenarios.spec import find_scenario
    from simulator.validate import read_toml

    if any(str(s).partition("=")[0].strip() == "instrument_dirs" for s in sets):
        raise UserError("--instrument-dir: give the folders with --instrument-dir or with --set instrument_dirs, not both")
    path = Path(find_scenario(scenario))
    doc = read_toml(path)
    game = scenario_game(doc, path)
    if "instrument_dirs" not in game.cli_options:  # (a game's own options: Game.cli_options)
        raise UserError(f"--instrument-dir: {path} is a scenario of {game.title}, a game without instruments")
    for d in instrument_dirs:
        if not Path(d).exists():
            raise DataError("--instrument-dir", d, "instrument folder not found")
    own = doc.get("instrument_dirs", [])
    own = [own] if isinstance(own, str) else own if isinstance(own, list) else []
    dirs = [str((path.resolve().parent / d).resolve()) for d in own if isinstance(d, str)]
    dirs += [str(Path(d).resolve()) for d in instrument_dirs]
    return "instrument_dirs=" + json.dumps(dirs)


def _looks(looks, against):
    """``(deal counts, stopping rule)`` of ``--looks`` and ``--against`` (both or neither)."""
    if looks is None and against is None:
        return (), None
    if looks is None or against is None:
        raise UserError("--looks and --against go together: the deals of each look and the baseline they are tested against")
    try:
        counts = tuple(int(x) for x in looks.split(","))
    except ValueError:
        raise DataError("--looks", looks, "expected deal counts separated by commas, e.g. 500,1000") from None
    from ssb.regress_cmd import looks_stop

    return counts, looks_stop(against)


@click.command(name="run")
@click.argument("scenario", metavar="SCENARIO")
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Games per cell (overrides the scenario's 'games'; rounded up to whole deals, a deal being one game per distinct seat rotation of the lineup).",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=0, max=1024),
    default=0,
    metavar="J",
    help="Worker processes (local backend) or local dask workers; 0 (the default): all cores.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0, max=2**63 - 1),
    default=None,
    metavar="S",
    help="Run seed (overrides the scenario's 'seed').",
)
@out_dir_option("Result directory. Default: results/<scenario name>.")
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Change a scenario key before validation; VALUE is read as TOML "
    "(players=[2,4], wheel=fixed, overrides.Horns.instrument.penalty_per_space=3). Repeatable.",
)
@click.option(
    "--backend",
    type=click.Choice(["local", "dask"]),
    default=None,
    help="local: joblib/loky processes on this machine (default); dask: dask.distributed.",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Address of a running dask scheduler (tcp://host:8786); implies --backend dask.",
)
@click.option("--resume", is_flag=True, help="Continue an interrupted run in DIR, playing only missing chunks.")
@click.option(
    "--force", is_flag=True, help="Replace whatever run DIR holds (its tables, manifest and report/ folder)."
)
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Games per chunk (a task and a pair of files). Default 1000, or the run's own on --resume.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary.")
@click.option(
    "--instrument-dir",
    "instrument_dirs",
    multiple=True,
    metavar="DIR",
    help="Folder (or .toml file) of extra instruments, added to the scenario's instrument_dirs and "
    "recorded with the run (e.g. the folder ssb tune writes); may be repeated.",
)
@click.option(
    "--looks",
    default=None,
    metavar="N,N",
    help="With --against: play the deals in growing prefixes (e.g. 500,1000 of 1,500) and stop at the first "
    "look where the gate is decided (every figure held or moved, or one moved); ssb regress then tests at "
    "alpha split over the looks.",
)
@click.option(
    "--against",
    default=None,
    type=click.Path(dir_okay=False),
    metavar="BASELINE",
    help="The baseline the looks are tested against (the run's own scenario and seed: its deals).",
)
def run(scenario, games, jobs, seed, out_dir, sets, backend, scheduler, resume, force, chunk_size, quiet, instrument_dirs,
        looks, against):
    """Play every cell of a scenario and write the result tables.

    SCENARIO is a scenario TOML file or the name of a shipped one (starter, expansion, grid, ci).
    Each cell (player count x setting x lineup) plays its deals in every seat rotation;
    results go to DIR/seats/*.parquet (one row per game and seat), DIR/games/*.parquet (one row per
    game) and DIR/manifest.json. Results are the same whatever --jobs, --chunk-size or --backend.
    An interrupted run (Ctrl-C, a killed machine) continues with --resume, which also plays again
    any chunk it cannot read back; a directory holding a finished or different run is never
    overwritten without --force. On the first run after a change to the kernel, it is compiled
    once, here, before the workers start (a one-line notice says so and for about how long).

    Example:

    \b
        ssb run starter --games 2000 --jobs 2 --out results/starter
        ssb run starter --games 2000 --jobs 2 --out results/starter --resume
        ssb run grid --set players=[4] --scheduler tcp://scheduler-host:8786
        ssb run ci-strong --looks 500,1000 --against baselines/ci-strong-baseline.json --out results/ci-strong
    """
    from scenarios.results import RunDirError
    from scenarios.runner import run_scenario

    backend = run_backend(resume, force, backend, scheduler)
    deal_looks, stop = _looks(looks, against)
    try:
        if instrument_dirs:
            sets = tuple(sets) + (_instrument_dirs_set(scenario, instrument_dirs, sets),)
        summary = run_scenario(
            scenario,
            out_dir,
            jobs=jobs,
            games=games,
            seed=seed,
            sets=sets,
            backend=backend,
            scheduler=scheduler,
            resume=resume,
            force=force,
            chunk_size=chunk_size,
            looks=deal_looks,
            stop=stop,
            # On a terminal a progress bar; elsewhere (a log, CI) a plain line every 30 s.
            progress=False if quiet else (None if sys.stderr.isatty() else "log"),
        )
    except (DataError, RunDirError) as exc:
        raise UserError(str(exc)) from None
    except KeyboardInterrupt:
        click.echo(
            "interrupted: the chunks already written are kept; continue with the same command and --resume",
            err=True,
        )
        raise click.exceptions.Exit(130) from None
    except OSError as exc:
        # A dask scheduler that cannot be reached, a full disk, ...
        raise UserError(str(exc)) from None
    if not quiet:
        skipped = (
            f", {summary.chunks_skipped} of {summary.chunks} chunks already on disk" if summary.chunks_skipped else ""
        )
        click.echo(
            f"{summary.scenario}: {summary.games_total:,} games in {summary.cells} cells "
            f"({summary.chunks} chunks{skipped}) -> {summary.out_dir}\n"
            f"played {summary.games_played:,} games in {summary.wall_seconds:.1f} s "
            f"({_fmt_rate(summary.games_played, summary.wall_seconds)})"
        )
        line = _sequential_line(summary.manifest)
        if line:
            click.echo(line)
        line = proof_line(summary.manifest)
        if line:
            click.echo(line)
        if summary.manifest.get("looks"):
            from reports.gate.format import looks_words

            click.echo("looks: " + looks_words(summary.manifest["looks"]))


def proof_line(manifest):
    """One line on the strong judge's proof (scenarios.sequential_proof): on how many settings it
    was shown stronger than the reference, and where not (empty: no proof played)."""
    from stats.sequences import STRONGER

    rec = (manifest.get("sequential") or {}).get("proof") or {}
    settings = rec.get("settings") or []
    if not settings:
        return ""
    shown = [s for s in settings if s.get("verdict") == STRONGER]
    line = (f"proof: {rec['strong']} shown stronger than {rec['reference']} on {len(shown)} of {len(settings)} "
            f"settings ({rec.get('seconds_spent', 0):g} of {rec.get('seconds', 0):g} declared CPU seconds)")
    rest = [s for s in settings if s.get("verdict") != STRONGER]
    if rest:
        where = "; ".join(f"{s['players']} players{_setting_words(s)}: {100 * s['share']:.1f}% "
                          f"[{100 * s['lo']:.1f}, {100 * s['hi']:.1f}], fair {100 * s['fair']:.0f}%, {s['deals']:,} deals"
                          for s in rest)
        line += f"; its verdicts rest on an unproven judge at {where}"
    return line


def _setting_words(s):
    return f" {s['setting']}" if s.get("setting") else ""


def _sequential_line(manifest):
    """One line on the cells of a sequential run: how many were decided, and how (none: not one)."""
    from stats.words import verdict_word  # an older record's balanced / imbalanced read as fair / unfair

    seq = manifest.get("sequential") or {}
    cells = [c for c in seq.get("cells") or [] if c]
    if not cells:
        return ""
    if seq.get("sets"):  # a run decided by its instrument sets: the sets' verdicts, not the seats'
        sets = seq["sets"]
        counts = {}
        for r in sets:
            counts[r.get("verdict")] = counts.get(r.get("verdict"), 0) + 1
        how = ", ".join(f"{n} {w}" for w, n in sorted(counts.items()))
        decided = sum(n for w, n in counts.items() if w != "open")
        kind = "variant" if "variants" in (seq.get("settings") or {}).get("verdicts", []) else "instrument"
        return f"sequential: {decided} of {len(sets)} {kind} verdicts decided ({how})"
    decided = [c for c in cells if c.get("stop") == "decided"]
    counts = {}
    for c in decided:
        word = verdict_word(c.get("verdict"))
        counts[word] = counts.get(word, 0) + 1
    how = ", ".join(f"{n} {w}" for w, n in sorted(counts.items()))
    stops = {}
    for c in cells:
        if c.get("stop") != "decided":
            stops[c.get("stop")] = stops.get(c.get("stop"), 0) + 1
    why = {"cap": "at their cap of games", "budget": "at their judge's budget of games", "seconds": "when the seconds ran out"}
    rest = "; " + ", ".join(f"{n} stopped {why.get(w, w)}" for w, n in sorted(stops.items())) if stops else ""
    return f"sequential: {len(decided)} of {len(cells)} cells decided" + (f" ({how})" if how else "") + rest
