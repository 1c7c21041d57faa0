"""The desk's background work: a *check* (did this change move the balance?) and a *tune* (which
number should I change?), each a chain of ordinary ``ssb`` commands run by a small driver process
in a folder of its own under ``results/desk/``.

A check plays the regression gate's scenario (``ci``: the starter set at 2, 3 and 4 players, greedy
mirrors, the run seed of ``baselines/ci-baseline.json``) with the designer's changed file, on the
baseline's own deals, then asks ``ssb regress`` what moved (a paired comparison, deal by deal), then
writes the run's balance report::

    ssb run ci --out results/desk/<id> --set 'instrument_dirs=["designs/instruments"]' --games N
    ssb regress results/desk/<id> --baseline baselines/ci-baseline.json --json .../regress.json
    ssb report results/desk/<id>

The folder is an ordinary run folder (``manifest.json``, the tables, ``report/``) with ``desk.json``
beside them: the commands, the driver's process id and how far it got. Everything the desk shows of
a check is read from that folder, so a check survives a closed browser and a stopped desk: its
driver runs in a session of its own, and a stopped one is taken up again with ``ssb run --resume``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

DESK_FILE = "desk.json"
LOG_FILE = "desk.log"
GATE_SCENARIO = "ci"
QUEUED, RUNNING, DONE, FAILED, CANCELLED, STOPPED = "queued", "running", "done", "failed", "cancelled", "stopped"


def now():
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def baseline_path():
    """The committed baseline of the gate scenario: beside the installed code (a source checkout)."""
    here = Path(__file__).resolve().parents[2]
    return here / "baselines" / f"{GATE_SCENARIO}-baseline.json"


def read_state(folder):
    try:
        return json.loads((Path(folder) / DESK_FILE).read_text())
    except (OSError, ValueError):
        return None


def write_state(folder, state):
    path = Path(folder) / DESK_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    tmp.replace(path)


def command_line(argv):
    """An argv as the ``ssb ...`` line a designer would type."""
    return shlex.join(["ssb", *argv[1:]] if argv and argv[0] == "ssb" else argv)


def _ssb():
    return [sys.executable, "-m", "ssb.cli"]


def check_steps(folder, sets, games, chunk_size=None, adaptive_budget=None, jobs=0):
    """The ``ssb`` argv (first word ``ssb``) of a check: run, regress, report (``jobs`` worker
    processes; 0: all cores)."""
    folder = str(folder)
    run = ["ssb", "run", GATE_SCENARIO, "--out", folder, "--jobs", str(jobs), "--quiet"]
    for s in sets:
        run += ["--set", s]
    if games:
        run += ["--games", str(games)]
    if chunk_size:
        run += ["--chunk-size", str(chunk_size)]
    regress = ["ssb", "regress", folder, "--baseline", str(baseline_path()), "--jobs", str(jobs),
               "--json", str(Path(folder) / "regress.json"), "--summary-md", str(Path(folder) / "regress.md")]
    if adaptive_budget:
        regress += ["--adaptive", "--budget", str(adaptive_budget)]
    report = ["ssb", "report", folder]
    return [run, regress, report]


def tune_steps(folder, tune, sets=(), jobs=0):
    """The ``ssb tune`` argv of a balance search."""
    argv = ["ssb", "tune", tune, "--out", str(folder), "--jobs", str(jobs)]
    for s in sets:
        argv += ["--set", s]
    return [argv]


def start(folder, kind, steps, title, cwd, env=None):
    """Write ``desk.json`` and start the driver (its own session: it outlives the desk)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = {"kind": kind, "title": title, "steps": steps, "step": 0, "status": QUEUED, "started": now(),
             "cwd": str(cwd), "pid": None, "finished": None, "returncodes": []}
    write_state(folder, state)
    return spawn(folder, env)


def spawn(folder, env=None):
    """Start the driver of ``folder``'s ``desk.json``; returns its pid."""
    folder = Path(folder)
    state = read_state(folder)
    log = open(folder / LOG_FILE, "ab")  # noqa: SIM115 (the child keeps it)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ssb.desk.jobs", str(folder)],
        cwd=state["cwd"],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )
    log.close()
    state["pid"] = proc.pid
    state["status"] = RUNNING
    write_state(folder, state)
    return proc.pid


def alive(pid):
    if not pid:
        return False
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:  # a zombie child of this process counts as ended
        done, _ = os.waitpid(int(pid), os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def cancel(folder):
    """Stop a running check: its whole process group (driver, ``ssb``, workers)."""
    state = read_state(folder)
    if not state:
        return None
    pid = state.get("pid")
    if alive(pid):
        try:
            os.killpg(int(pid), signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    state["status"] = CANCELLED
    state["finished"] = now()
    write_state(folder, state)
    return state


def resume(folder, env=None):
    """Take a cancelled or stopped check up again where it was (``ssb run --resume``)."""
    state = read_state(folder)
    steps = state["steps"]
    for argv in steps:
        if argv[:2] == ["ssb", "run"] and "--resume" not in argv:
            argv.append("--resume")
        if argv[:2] == ["ssb", "tune"] and "--resume" not in argv:
            argv.append("--resume")
    state["steps"], state["status"], state["finished"] = steps, QUEUED, None
    state["step"] = min(int(state.get("step", 0)), len(steps) - 1)
    write_state(folder, state)
    return spawn(folder, env)


def status(folder):
    """What a check folder says now: ``desk.json`` with ``status`` corrected for a driver that died
    (``stopped``), ``progress`` (games played / planned, from the chunks on disk) and ``answer``."""
    from scenarios.results import done_chunks

    folder = Path(folder)
    state = read_state(folder) or {}
    if state.get("status") == RUNNING and not alive(state.get("pid")):
        state["status"] = STOPPED
    progress = 0.0
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
        plan = manifest["chunks"]["plan"]
        done = done_chunks(folder, len(plan))
        total = sum(b - a for _k, _c, a, b in plan) or 1
        progress = sum(b - a for k, _c, a, b in plan if k in done) / total
    except (OSError, ValueError, KeyError, TypeError):
        pass
    nsteps = max(len(state.get("steps", [])), 1)
    step = int(state.get("step", 0))
    if state.get("kind") == "check":
        # The run is most of the work: it fills 80% of the bar, the gate and the report the rest.
        overall = 0.8 * progress if step == 0 else 0.8 + 0.2 * step / nsteps
    else:
        overall = step / nsteps
    if state.get("status") == DONE:
        overall = 1.0
    state["progress"] = round(min(max(overall, 0.0), 1.0), 3)
    state["games_fraction"] = progress
    if state.get("kind") == "tune" or state.get("status") in (FAILED, STOPPED):
        # A search has no chunk plan to count: its own last lines say how far it is.
        try:
            lines = (folder / LOG_FILE).read_text(errors="replace").replace("\r", "\n").splitlines()
        except OSError:
            lines = []
        state["log_tail"] = [x for x in lines if x.strip()][-6:]
    state["answer"] = answer(folder)
    return state


def answer(folder):
    """The regression gate's verdict of a check (``regress.json``), or the tune's summary line."""
    folder = Path(folder)
    try:
        res = json.loads((folder / "regress.json").read_text())
    except (OSError, ValueError):
        res = None
    if res:
        return {"verdict": res.get("verdict"), "counts": res.get("counts", {}), "figures": _win_rates(res)}
    md = folder / "summary.md"
    if md.exists():
        lines = [x for x in md.read_text().splitlines() if x.strip() and not x.startswith("#")]
        return {"verdict": "tuned", "counts": {}, "figures": [], "lines": lines[:6]}
    return None


def _win_rates(res):
    """The seat win-rate figures of a gate result, for the designer's question about seat edges."""
    out = []
    for row in res.get("figures", res.get("rows", [])) or []:
        if not isinstance(row, dict):
            continue
        label = str(row.get("label", row.get("figure", "")))
        if "win rate" in label or str(row.get("figure", "")).startswith("win_rate"):
            out.append(row)
    return out


def main(folder):
    """The driver: run each step of ``desk.json`` in turn, recording how far it got."""
    folder = Path(folder)
    state = read_state(folder)
    state["status"] = RUNNING
    state["pid"] = os.getpid()
    write_state(folder, state)
    steps = state["steps"]
    for i in range(int(state.get("step", 0)), len(steps)):
        state["step"] = i
        write_state(folder, state)
        argv = _ssb() + steps[i][1:]
        print(f"$ {command_line(steps[i])}", flush=True)
        rc = subprocess.call(argv, cwd=state["cwd"], stdin=subprocess.DEVNULL)
        state = read_state(folder)
        state.setdefault("returncodes", []).append(rc)
        # ssb regress exits 1 for a figure that moved (its verdict, not a failure of the check).
        if rc != 0 and not (steps[i][:2] == ["ssb", "regress"] and rc == 1):
            state["status"] = FAILED if state.get("status") != CANCELLED else CANCELLED
            state["finished"] = now()
            write_state(folder, state)
            return rc
    state["step"] = len(steps)
    state["status"] = DONE
    state["finished"] = now()
    write_state(folder, state)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
