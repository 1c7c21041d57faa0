"""``ssb tune``: the smallest data change that meets a balance target (wires scenarios.tuning to the
report's verdicts in reports.tune.verdicts and writes the answer)."""

from pathlib import Path

import click

from simulator.errors import DataError
from ssb.common import UserError, run_backend


TuneError = UserError  # the command's user errors: ``error: <message>``, exit status 2


def write_answer(spec, result, out_dir):
    """Write the changed data files, their diff and the summaries; returns the paths written."""
    from reports.tune.summary import to_html, to_markdown
    from scenarios.results import write_atomic
    from scenarios.tuning import answer_folder, changed_files, data_diff, write_changed_files

    out_dir = Path(out_dir)
    diff_text = ""
    folder = out_dir / answer_folder(spec)
    written = []
    if result["fix"] is not None:
        changes = {c["key"]: c["after"] for c in result["fix"]["changes"]}
        files = changed_files(spec, changes)
        diff_text = data_diff(files)
        written += write_changed_files(files, folder)
        write_atomic(out_dir / "data.diff", diff_text.encode())
        written.append(out_dir / "data.diff")
    elif folder.is_dir():
        for old in folder.glob("*.toml"):
            old.unlink()
    write_atomic(out_dir / "summary.md", to_markdown(result, diff_text).encode())
    write_atomic(out_dir / "summary.html", to_html(result, diff_text).encode())
    return written + [out_dir / "summary.md", out_dir / "summary.html"]


def _race(spec, out_dir, jobs, backend, scheduler, resume, force, quiet):
    """The race (``[search] method = "race"``): DIR/tune.json, summary.md, overrides.toml."""
    from reports.tune.race import change_text, overrides_toml, to_markdown
    from scenarios.results import write_atomic
    from scenarios.tuning.race import Race

    out = Path(out_dir) if out_dir else Path("results") / "tune" / spec.name
    try:
        result = Race(spec, out, jobs=jobs, backend=backend, scheduler=scheduler, resume=resume, force=force,
                      progress=False if quiet else None).run()
        write_atomic(out / "summary.md", to_markdown(result).encode())
        write_atomic(out / "overrides.toml", overrides_toml(result).encode())
    except DataError as exc:
        raise TuneError(str(exc)) from None
    except KeyboardInterrupt:
        click.echo("interrupted: the finished rounds are kept; continue with the same command and --resume", err=True)
        raise click.exceptions.Exit(130) from None
    except OSError as exc:
        raise TuneError(str(exc)) from None
    if not quiet:
        fix, cost = result["fix"], result["cost"]
        if fix is None:
            best = result["candidates"][0] if result["candidates"] else None
            click.echo(f"{spec.name}: no candidate met every target (stopped: {result['stop']})"
                       + (f"; closest: {change_text(best)}" if best else ""))
        else:
            click.echo(f"{spec.name}: {change_text(fix)} (every target cell decided fair)")
        click.echo(f"{cost['games']:,} games, {cost['seconds_spent']:,.0f} of {cost['seconds']:,.0f} declared CPU s; "
                   f"wrote {out / 'summary.md'}, {out / 'overrides.toml'}, {out / 'tune.json'}")


@click.command(name="tune")
@click.argument("tuning_file", metavar="TUNING_FILE")
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Output folder (study.db, tune.json, summary.md/.html, instruments/). Default: results/tune/<name>.")
@click.option("-j", "--jobs", type=click.IntRange(0), default=0, metavar="J",
              help="Worker processes (local backend) or local dask workers. Default: all cores.")
@click.option("--backend", type=click.Choice(["local", "dask"]), default=None,
              help="local: joblib/loky processes (default); dask: dask.distributed.")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="A running dask scheduler; implies --backend dask.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Change a key of the tuning file, VALUE read as TOML (search.trials=8, seed=3). Repeatable.")
@click.option("--resume", is_flag=True, help="Continue the interrupted study in DIR.")
@click.option("--force", is_flag=True, help="Replace the study DIR holds.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary on the terminal.")
def tune(tuning_file, out_dir, jobs, backend, scheduler, sets, resume, force, quiet):
    """Find the smallest change of the data that meets a balance target.

    TUNING_FILE (a path, or the name of a shipped one: organ-points, bass-seats, echidna-tokens, starter-seats) names a scenario, the judges (lineups of named strategies), the targets (verdicts
    of the balance report: seats balanced, an instrument's objective points near its department's,
    a build rate, a game length, stalled games) and a search space of data keys as in scenario
    overrides, each with a range or a list of values (for another game, e.g. Echidna Shuffle: the
    switches of one of the scenario's variants, such as token_schedule.0 or catch_up; the answer is
    then the changed scenario, DIR/scenario/). Candidates race through growing game counts on common deals
    (optuna TPE studies in DIR/study.db, several restarts); every winner is re-played on fresh
    deals and under the strong judge before it is reported. Smallest means fewest keys changed,
    then the least total change (each key's change over its range). The answer: DIR/summary.md and
    summary.html, DIR/data.diff and the changed data files in DIR/instruments/ (pass that folder
    with --instrument-dir, or copy the files over the shipped ones). Results do not depend on --jobs.

    With [search] method = "race" (starter-seats) every candidate is judged cell by cell (player
    count x mirror judge of [judges] race) by the sequential zone test that ssb run prints, dropped
    at its first cell decided unfair and halved each round, within [search] seconds of declared CPU;
    DIR/progress.json says how far it is after every round, and the answer is DIR/summary.md,
    DIR/overrides.toml (the change as a scenario's [overrides]) and DIR/tune.json.

    Example:

    \b
        ssb tune organ-points --jobs 2
        ssb tune organ-points --jobs 2 --resume
        ssb tune starter-seats --jobs 1
        ssb tune my_tunes/horns.toml --set search.trials=8 --out results/tune/horns-quick
        ssb run expansion --instrument-dir results/tune/organ-points/instruments
    """
    from reports.tune.verdicts import judge
    from scenarios.tuning import Tuner, load_tuning

    backend = run_backend(resume, force, backend, scheduler)
    try:
        spec = load_tuning(tuning_file, sets=sets)
        if spec.method == "race":
            return _race(spec, out_dir, jobs, backend, scheduler, resume, force, quiet)
        out = Path(out_dir) if out_dir else Path("results") / "tune" / spec.name
        result = Tuner(spec, judge, out, jobs=jobs, backend=backend, scheduler=scheduler, resume=resume,
                       force=force, progress=False if quiet else None).run()
        paths = write_answer(spec, result, out)
    except DataError as exc:
        raise TuneError(str(exc)) from None
    except KeyboardInterrupt:
        click.echo("interrupted: the finished candidates are kept in the study; continue with the same "
                   "command and --resume", err=True)
        raise click.exceptions.Exit(130) from None
    except OSError as exc:
        raise TuneError(str(exc)) from None
    if not quiet:
        fix = result["fix"]
        if fix is None:
            click.echo(f"{spec.name}: no confirmed change within {spec.settings['max_keys']} key(s)")
        else:
            change = ", ".join(f"{c['key']}: {c['before']} -> {c['after']}" for c in fix["changes"])
            click.echo(f"{spec.name}: {change} (confirmed on fresh deals)")
        cost = result["cost"]
        click.echo(f"{cost['total']:,} games ({cost['search']:,} search, {cost['confirm']:,} confirmation); "
                   f"wrote {', '.join(str(p) for p in paths)}")
