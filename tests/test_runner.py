"""The runner: identical tables whatever the jobs or chunking, resume after interruption (Ctrl-C and
kill -9), refusal to overwrite, the manifest, reading results back, and `ssb run` on bad input."""

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import click
import pandas as pd
import pytest
from click.testing import CliRunner

import scenarios.rundir as runner_mod
from scenarios.results import MANIFEST, RunDirError, chunk_paths, load_results, read_manifest, write_manifest
from scenarios.load import load_scenario
from scenarios.runner import run_scenario
from scenarios.schema import FORMAT_VERSION, GAME_COLUMNS, SEAT_COLUMNS
from simulator.errors import DataError
from ssb.run_cmd import run

REPO = Path(__file__).resolve().parent.parent

TINY = """\
name = "tiny"
seed = 5
games = 24
players = [2, 4]

[instruments]
sets = [["Violin", "Piano", "Horns"], ["Bass", "Organ", "Drums"]]

[lineup]
seats = { 2 = ["greedy", "random"], 4 = ["greedy", "random", "random", "random"] }
"""


@pytest.fixture
def tiny(tmp_path):
    p = tmp_path / "tiny.toml"
    p.write_text(TINY)
    return p


def snapshot(folder):
    """Every file under a folder with the hash of its bytes."""
    folder = Path(folder)
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def assert_same_tables(a, b):
    sa, ga, _ = load_results(a)
    sb, gb, _ = load_results(b)
    pd.testing.assert_frame_equal(sa, sb)
    pd.testing.assert_frame_equal(ga, gb)


# =========================================================================== results


def test_run_writes_schema_tables_and_a_manifest(tiny, tmp_path):
    out = tmp_path / "out"
    summary = run_scenario(tiny, out, jobs=1, chunk_size=10)
    assert summary.status == "complete" and summary.games_played == summary.games_total == 96
    seats, games, manifest = load_results(out)
    assert tuple(seats.columns) == SEAT_COLUMNS and tuple(games.columns) == GAME_COLUMNS
    assert len(games) == 96 and len(seats) == 2 * 24 * 2 + 4 * 24 * 2
    assert list(games.groupby("cell").size()) == [24, 24, 24, 24]
    assert manifest["format_version"] == FORMAT_VERSION and manifest["status"] == "complete"
    sc = manifest["scenario"]
    assert sc["name"] == "tiny" and hashlib.sha256(sc["text"].encode()).hexdigest() == sc["sha256"]
    assert manifest["run_seed"] == 5 and manifest["settings"]["chunk_size"] == 10
    assert [c["cell_key"] for c in manifest["cells"]] == sorted(
        set(games["cell_key"]), key=list(games["cell_key"]).index
    )
    assert len(manifest["chunks"]["plan"]) == 4 * 3
    assert set(manifest["data_files"]["instruments"]) == {"Violin", "Piano", "Horns", "Bass", "Organ", "Drums"}
    assert set(manifest["data_files"]["strategies"]) == {"greedy", "random"}
    assert len(manifest["code"]["kernel_sha256"]) == 64 and manifest["code"]["version"]
    assert manifest["timings"]["games_played"] == 96 and manifest["timings"]["wall_seconds"] > 0
    assert not list(out.rglob("*.tmp"))


def test_jobs_and_chunk_size_do_not_change_the_tables(tiny, tmp_path):
    run_scenario(tiny, tmp_path / "a", jobs=1, chunk_size=1000)
    run_scenario(tiny, tmp_path / "b", jobs=2, chunk_size=7)
    assert_same_tables(tmp_path / "a", tmp_path / "b")


def test_load_results_errors(tiny, tmp_path):
    with pytest.raises(RunDirError, match="not found"):
        load_results(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunDirError, match="no manifest"):
        load_results(tmp_path / "empty")
    out = tmp_path / "out"
    run_scenario(tiny, out, jobs=1, chunk_size=10)
    m = read_manifest(out)
    m["status"] = "running"
    write_manifest(out, m)
    with pytest.raises(RunDirError, match="not finished"):
        load_results(out)
    _, games, _ = load_results(out, allow_partial=True)
    assert len(games) == 96
    chunk_paths(out, 0)[1].unlink()
    _, games, _ = load_results(out, allow_partial=True)
    assert len(games) == 96 - 10 and 0 not in set(games["game"][games["cell"] == 0])
    m["format_version"] = FORMAT_VERSION - 1
    m["status"] = "complete"
    write_manifest(out, m)
    with pytest.raises(RunDirError, match="format"):
        load_results(out)


# =========================================================================== resume


def test_resume_plays_only_missing_chunks_and_matches(tiny, tmp_path):
    ref, out = tmp_path / "ref", tmp_path / "out"
    run_scenario(tiny, ref, jobs=1, chunk_size=5)
    run_scenario(tiny, out, jobs=1, chunk_size=5)
    for c in (0, 7):
        chunk_paths(out, c)[0].unlink()
    chunk_paths(out, 11)[1].unlink()
    m = read_manifest(out)
    m["status"] = "running"
    write_manifest(out, m)
    summary = run_scenario(tiny, out, jobs=1, resume=True)  # chunk size taken from the manifest
    assert summary.chunks_skipped == summary.chunks - 3
    assert summary.games_played == 5 + 5 + 5
    assert_same_tables(ref, out)
    # The chunk files themselves are byte-identical.
    for name in ("seats", "games"):
        assert snapshot(ref / name) == snapshot(out / name)
    m = read_manifest(out)
    assert m["status"] == "complete" and len(m["timings"]["runs"]) == 2 and m["timings"]["runs"][1]["resumed"]


def test_ctrl_c_midway_then_resume(tiny, tmp_path, monkeypatch):
    ref, out = tmp_path / "ref", tmp_path / "out"
    run_scenario(tiny, ref, jobs=1, chunk_size=4)
    real = runner_mod.play_chunk
    calls = []

    def interrupted(task):
        calls.append(task.chunk)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(runner_mod, "play_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_scenario(tiny, out, jobs=1, chunk_size=4)
    monkeypatch.setattr(runner_mod, "play_chunk", real)
    m = read_manifest(out)
    assert m["status"] == "running" and m["timings"]["runs"][0]["games"] == 5 * 4
    with pytest.raises(RunDirError, match="unfinished run of this scenario.*--resume"):
        run_scenario(tiny, out, jobs=1, chunk_size=4)
    with pytest.raises(RunDirError, match="not finished"):
        load_results(out)
    summary = run_scenario(tiny, out, jobs=2, resume=True)
    assert summary.chunks_skipped == 5
    assert_same_tables(ref, out)


def test_kill_9_midway_then_resume(tmp_path):
    """A run killed with SIGKILL (with its worker processes) resumes to the same tables."""
    out, ref = tmp_path / "out", tmp_path / "ref"
    args = {"games": 3200, "chunk_size": 80}
    script = (
        "from scenarios.runner import run_scenario\n"
        f"run_scenario('ci', {str(out)!r}, jobs=2, progress=False, games={args['games']}, "
        f"chunk_size={args['chunk_size']})\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=REPO,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            done = len(list((out / "games").glob("chunk-*.parquet"))) if (out / "games").is_dir() else 0
            if done >= 4:
                break
            assert proc.poll() is None, f"run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}"
            assert time.monotonic() < deadline, "run too slow to start"
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
    m = read_manifest(out)
    nchunks = len(m["chunks"]["plan"])
    on_disk = len(list((out / "games").glob("chunk-*.parquet")))
    assert m["status"] == "running" and on_disk < nchunks, "the run finished before the kill"
    summary = run_scenario("ci", out, jobs=2, resume=True, games=args["games"])
    assert summary.chunks_skipped >= 4 and summary.games_played < summary.games_total
    assert not list(out.rglob(".*.tmp"))
    run_scenario("ci", ref, jobs=1, **args)
    assert_same_tables(ref, out)


# =========================================================================== refusal to overwrite


def test_a_finished_run_is_never_overwritten(tiny, tmp_path):
    out = tmp_path / "out"
    run_scenario(tiny, out, jobs=1)
    before = snapshot(out)
    with pytest.raises(RunDirError, match="finished run of this scenario"):
        run_scenario(tiny, out, jobs=1)
    with pytest.raises(RunDirError, match="finished run of scenario 'tiny' with other settings"):
        run_scenario(tiny, out, jobs=1, games=8)
    with pytest.raises(RunDirError, match="another scenario or settings"):
        run_scenario(tiny, out, jobs=1, games=8, resume=True)
    with pytest.raises(RunDirError, match="chunk plan differs"):
        run_scenario(tiny, out, jobs=1, resume=True, chunk_size=3)
    assert snapshot(out) == before
    # Resuming a finished run has nothing to do and changes no table.
    summary = run_scenario(tiny, out, jobs=1, resume=True)
    assert summary.games_played == 0
    assert {k: v for k, v in snapshot(out).items() if k != MANIFEST} == {
        k: v for k, v in before.items() if k != MANIFEST
    }
    # --force replaces it.
    summary = run_scenario(tiny, out, jobs=1, games=8, force=True)
    assert summary.games_played == summary.games_total == 2 * 8 + 2 * 8
    assert len(load_results(out)[1]) == 32


def test_changed_data_refuses_resume(tiny, tmp_path):
    out = tmp_path / "out"
    run_scenario(tiny, out, jobs=1)
    m = read_manifest(out)
    m["status"] = "running"
    m["data_files"]["instruments"]["Horns"]["sha256"] = "0" * 64
    write_manifest(out, m)
    with pytest.raises(RunDirError, match="data changed.*instrument Horns"):
        run_scenario(tiny, out, jobs=1, resume=True)
    m["data_files"] = read_manifest(out)["data_files"]
    m["data_files"]["instruments"]["Horns"]["sha256"] = load_scenario(tiny).data_files()[
        "instruments"
    ]["Horns"]["sha256"]
    m["code"]["kernel_sha256"] = "0" * 64
    write_manifest(out, m)
    with pytest.raises(RunDirError, match="kernel changed"):
        run_scenario(tiny, out, jobs=1, resume=True)


def test_tables_without_a_manifest_are_not_overwritten(tiny, tmp_path):
    out = tmp_path / "out"
    (out / "seats").mkdir(parents=True)
    (out / "seats" / "chunk-00000.parquet").write_bytes(b"precious")
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(RunDirError, match="no manifest"):
        run_scenario(tiny, out, jobs=1)
    assert (out / "seats" / "chunk-00000.parquet").read_bytes() == b"precious"
    run_scenario(tiny, out, jobs=1, force=True)
    assert (out / "notes.txt").read_text() == "keep me"  # --force removes only what a run writes
    assert len(load_results(out)[1]) == 96


def test_a_bad_scenario_writes_nothing(tiny, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(DataError, match="players"):
        run_scenario(tiny, out, jobs=1, sets=["players=[5]"])
    assert not out.exists()


# =========================================================================== ssb run


@pytest.fixture
def cli():
    group = click.Group()
    group.add_command(run)
    runner = CliRunner()

    def invoke(*args):
        result = runner.invoke(group, ["run", *map(str, args)])
        out = result.output + (result.stderr if hasattr(result, "stderr") else "")
        assert "Traceback" not in out
        if result.exit_code not in (0,):
            assert isinstance(result.exception, SystemExit), result.exception
        return result.exit_code, out

    return invoke


def test_run_help_has_an_example(cli):
    code, out = cli("--help")
    assert code == 0 and "Example:" in out and "ssb run" in out


def test_run_command(cli, tiny, tmp_path):
    code, out = cli(tiny, "--out", tmp_path / "o", "--jobs", 1, "--games", 8, "--quiet")
    assert code == 0 and out == ""
    assert len(load_results(tmp_path / "o")[1]) == 32
    code, out = cli(
        tiny, "--out", tmp_path / "p", "-j", 1, "--set", "players=[2]", "--set", "wheel=fixed", "--chunk-size", 5
    )
    assert code == 0 and "48 games in 2 cells" in out
    m = read_manifest(tmp_path / "p")
    assert m["settings"]["wheel"] == "fixed" and m["settings"]["players"] == [2]


def write(tmp_path, text):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    "old, new, key, reason",
    [
        ('"greedy", "random"]', '"greedy", "nobody"]', "lineup.seats.2[1]", "unknown strategy"),
        ('"Bass"', '"Basoon"', "instruments.sets[1][0]", "unknown instrument 'Basoon'"),
        ("players = [2, 4]", "players = [2, 5]", "players[1]", "5 players is not supported"),
        (
            '"greedy", "random", "random", "random"]',
            '"greedy", "random", "random"]',
            "lineup.seats.4",
            "needs 4 strategies",
        ),
        ("players = [2, 4]", "players = []", "players", "no cells"),
        (
            'sets = [["Violin", "Piano", "Horns"], ["Bass", "Organ", "Drums"]]',
            "sets = []",
            "instruments.sets",
            "no cells",
        ),
        (
            "[lineup]",
            '[overrides]\n"Horns.section.tuba.score.0.awards" = [1]\n\n[lineup]',
            'overrides."Horns.section.tuba.score.0.awards"',
            "no entry with id 'tuba'",
        ),
    ],
)
def test_run_bad_input(cli, tmp_path, old, new, key, reason):
    assert old in TINY
    p = write(tmp_path, TINY.replace(old, new))
    out_dir = tmp_path / "out"
    code, out = cli(p, "--out", out_dir, "-j", 1)
    assert code == 2
    assert out.startswith("error: ") and f"{p}: {key}: " in out and reason in out
    assert not out_dir.exists()


@pytest.mark.parametrize(
    "args, text",
    [
        (["--set", "plyers=4"], "plyers: unknown scenario key"),
        (["--set", "overrides.Tuba.section.x=1"], "unknown instrument 'Tuba'"),
        (["--set", "players=[3]"], "lineup.seats"),
        (["--set", "games"], "expected KEY=VALUE"),
        (["--resume", "--force"], "exclude each other"),
        (["--backend", "local", "--scheduler", "tcp://127.0.0.1:1"], "needs --backend dask"),
    ],
)
def test_run_bad_options(cli, tiny, tmp_path, args, text):
    code, out = cli(tiny, "--out", tmp_path / "out", "-j", 1, *args)
    assert code == 2 and out.startswith("error: ") and text in out


def test_run_refuses_a_directory_of_another_run(cli, tiny, tmp_path):
    out_dir = tmp_path / "out"
    assert cli(tiny, "--out", out_dir, "-j", 1, "-q")[0] == 0
    before = snapshot(out_dir)
    code, out = cli("ci", "--out", out_dir, "-j", 1)
    assert code == 2 and f"error: {out_dir}: holds a finished run of scenario 'tiny'" in out and "--force" in out
    code, out = cli("ci", "--out", out_dir, "-j", 1, "--resume")
    assert code == 2 and "another scenario" in out
    assert snapshot(out_dir) == before


def test_run_missing_scenario(cli, tmp_path):
    code, out = cli(tmp_path / "nope.toml", "--out", tmp_path / "o")
    assert code == 2 and "scenario file not found" in out


def test_two_runs_cannot_write_one_directory(tiny, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with runner_mod.locked(out), pytest.raises(RunDirError, match="another ssb command is writing"):
        run_scenario(tiny, out, jobs=1)
    assert not (out / MANIFEST).exists()
