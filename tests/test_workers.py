"""Worker processes of `ssb run`: one compile, in the parent, announced; no orphans after kill -9."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from scenarios.runner import run_scenario

ROOT = Path(__file__).resolve().parent.parent
SSB = Path(sys.executable).parent / "ssb"


def test_workers_only_load_the_compiled_kernel(tmp_path):
    """Two worker processes, and neither compiled the kernel: the parent made sure it was cached."""
    out = tmp_path / "run"
    run_scenario("ci", out, jobs=2, games=16, chunk_size=4, progress=False)
    runs = json.loads((out / "manifest.json").read_text())["timings"]["runs"]
    assert runs[-1]["worker_compiles"] == 0
    assert "compile_seconds" in runs[-1]


def test_a_cold_kernel_is_announced_and_compiled_before_the_workers(tmp_path, monkeypatch):
    """With the cache reported cold, the parent prints the notice once and plays one game itself
    before any chunk is dispatched."""
    import scenarios.rundir as rundir
    import simulator.warmup as warmup

    order = []
    monkeypatch.setattr(warmup, "kernel_cached", lambda entry="play_batch": False)
    monkeypatch.setattr(warmup, "record_compile",
                        lambda seconds, entry="play_batch", cpu_seconds=None, state="cold": order.append("recorded"))
    real_dispatcher = rundir.dispatcher

    def dispatcher(*args, **kw):
        order.append("workers")
        return real_dispatcher(*args, **kw)

    monkeypatch.setattr(rundir, "dispatcher", dispatcher)  # the one dispatcher every run loop uses
    notices = []
    run_scenario("ci", tmp_path / "run", jobs=1, games=4, progress=False, announce=lambda m: (notices.append(m), order.append("notice")))
    # Cold, a figure is quoted; warm (another test compiled in this process first), one measured warm or none.
    assert notices[0].startswith("compiling the rules kernel (play_game_plain), first run only") and "load" in notices[0]
    assert notices[-1].startswith("compiled the rules kernel in ")
    assert order[0] == "notice" and order[-3:] == ["recorded", "notice", "workers"]


def test_the_compile_notice_quotes_the_last_measured_time(tmp_path, monkeypatch):
    import simulator.warmup as warmup

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert warmup.expected_compile_seconds() == warmup.DEFAULT_COMPILE_SECONDS
    assert "not measured on this one yet" in warmup.compile_notice()
    warmup.record_compile(187.4)
    assert warmup.compile_notice().startswith("compiling the rules kernel, first run only: about 190 s (last measured here")


def _workers(proc):
    try:
        return [c for c in psutil.Process(proc.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def test_no_orphans_after_kill_9(tmp_path):
    """kill -9 of `ssb run` while its two workers play: both exit within seconds (they watch it)."""
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [str(SSB), "run", "ci", "--games", "400000", "--chunk-size", "200", "--jobs", "2", "--out", str(out), "-q"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    children = []
    try:
        deadline = time.time() + 240
        while time.time() < deadline:
            done = list((out / "games").glob("chunk-*.parquet")) if (out / "games").is_dir() else []
            children = [c for c in _workers(proc) if "loky" in " ".join(c.cmdline())]
            if len(done) >= 2 and len(children) >= 2:
                break
            assert proc.poll() is None, "ssb run ended early"
            time.sleep(0.5)
        else:
            pytest.fail("the workers did not start in time")
        everyone = _workers(proc)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        gone, alive = psutil.wait_procs(everyone, timeout=20)
        assert not alive, f"orphaned after kill -9: {[(p.pid, p.cmdline()[-3:]) for p in alive]}"
    finally:
        for c in children:
            try:
                c.kill()
            except psutil.NoSuchProcess:
                pass
        if proc.poll() is None:
            proc.kill()
