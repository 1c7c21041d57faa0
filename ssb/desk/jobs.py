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

The desk acts only on what it started and still owns: ``desk.json`` records the driver's process id
with its start time, and a signal goes only to the process that has that id, started at that time,
and runs this module on this folder (:func:`owned`; a reused id is another process). Resume runs
only the commands the desk writes for the folder, checked word by word (:func:`check_argv`), in the
desk's own folder; a damaged ``desk.json`` is refused with the reason (:class:`JobError`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import psutil

from ssb.desk import guard

DESK_FILE = "desk.json"
LOG_FILE = "desk.log"
GATE_SCENARIO = "ci"
# The same gate at strong play (the strong judge's mirrors, its leaf held at the shipped fit): played
# after greedy's, in the check's folder ``strong/``, against its own baseline; greedy's answer shows
# first, the strong one fills in.
STRONG_SCENARIO = "ci-strong"
STRONG_DIR = "strong"
# A full strong check plays the baseline's deals in looks (500, 1,000, then every deal) and stops at
# the first look where its gate is decided (``ssb run --looks``; as ``make regress`` plays the gate).
STRONG_LOOKS = "500,1000"
_JUDGES: dict = {}


def gate_judge(scenario):
    """The strategy in every seat of a gate's scenario (its first cell's lineup), as the answer names it."""
    if scenario not in _JUDGES:
        from scenarios.load import load_scenario

        _JUDGES[scenario] = load_scenario(scenario).cells[0].lineup[0]
    return _JUDGES[scenario]
# One narrated sample game with the change (what ``ssb play`` prints), greedy in every seat, a fixed
# seed: played after greedy's report, its story kept in the check's folder beside the answer.
SAMPLE_FILE = "sample.txt"
SAMPLE_PLAYERS = 3
SAMPLE_SEED = 1
CHANGE_FILE = "change.json"  # the keys and values of the checked file that differ from the shipped one
MAX_STEPS = 6
QUEUED, RUNNING, DONE, FAILED, CANCELLED, STOPPED = "queued", "running", "done", "failed", "cancelled", "stopped"
DAMAGED = "damaged"
DRIVER = "ssb.desk.jobs"
MAX_GAMES = 1_000_000  # games per player count a check may ask for (the gate's baseline has 3000)


class JobError(Exception):
    """A check folder the desk does not act on (no or a damaged ``desk.json``, a process it does not
    own); ``str()`` says why, in a sentence."""


def now():
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def stamp():
    return _dt.datetime.now(_dt.UTC).strftime("%Y%m%d-%H%M%S")


def baseline_path(scenario=GATE_SCENARIO):
    """The committed baseline of a gate scenario: beside the installed code (a source checkout)."""
    here = Path(__file__).resolve().parents[2]
    return here / "baselines" / f"{scenario}-baseline.json"


def new_folder(root, stem):
    """A new, empty folder ``results/desk/<stem>-<time>`` under ``root`` (``-2``, ``-3``, ... when
    that name is taken: one folder per check whatever the clock says). Raises
    :class:`ssb.desk.guard.Refused` when a part of it is a link, ``OSError`` when it cannot be made."""
    root = Path(root)
    base = guard.make_dirs(root, root / "results" / "desk")
    name = f"{stem}-{stamp()}"
    for n in range(1, 10_000):
        folder = base / (name if n == 1 else f"{name}-{n}")
        try:
            os.mkdir(folder)
        except FileExistsError:
            continue
        return folder
    raise OSError(f"{base}: no free folder name for {name}")


def read_state(folder):
    """``desk.json`` of ``folder`` as a dict, or None when it is missing or damaged."""
    try:
        return load_state(folder)
    except JobError:
        return None


def load_state(folder):
    """``desk.json`` of ``folder``, checked for the fields the desk reads; raises :class:`JobError`."""
    path = Path(folder) / DESK_FILE
    if path.is_symlink():
        raise JobError(f"{DESK_FILE} is a link; the desk reads only its own files")
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise JobError(f"this folder has no {DESK_FILE}: the desk did not start it") from None
    except (OSError, ValueError, RecursionError) as exc:
        raise JobError(f"{DESK_FILE} cannot be read ({type(exc).__name__}: {exc})") from None
    if not isinstance(state, dict):
        raise JobError(f"{DESK_FILE} is damaged: expected an object, got {type(state).__name__}")
    steps = state.get("steps")
    if not (isinstance(steps, list) and 1 <= len(steps) <= MAX_STEPS
            and all(isinstance(a, list) and a and all(isinstance(w, str) for w in a) for a in steps)):
        raise JobError(f"{DESK_FILE} is damaged: steps: expected one to {MAX_STEPS} lists of words")
    if state.get("kind") not in ("check", "tune"):
        raise JobError(f"{DESK_FILE} is damaged: kind: expected check or tune, got {state.get('kind')!r}")
    step = state.get("step", 0)
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= len(steps):
        raise JobError(f"{DESK_FILE} is damaged: step: expected 0 to {len(steps)}, got {step!r}")
    if state.get("status") not in (QUEUED, RUNNING, DONE, FAILED, CANCELLED, STOPPED):
        raise JobError(f"{DESK_FILE} is damaged: status: {state.get('status')!r} is not a status of a check")
    if not isinstance(state.get("title", ""), str):
        raise JobError(f"{DESK_FILE} is damaged: title: expected a string")
    return state


def write_state(folder, state):
    """Write ``desk.json`` whole (a new file renamed over the old one; a link in the way is not followed)."""
    path = Path(folder) / DESK_FILE
    tmp = Path(folder) / f".{DESK_FILE}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(state, indent=1))
    os.replace(tmp, path)


def command_line(argv):
    """An argv as the ``ssb ...`` line a designer would type."""
    return shlex.join(["ssb", *argv[1:]] if argv and argv[0] == "ssb" else argv)


def _ssb():
    return [sys.executable, "-m", "ssb.cli"]


def _gate_steps(scenario, folder, sets, games, chunk_size, adaptive_budget, jobs):
    run = ["ssb", "run", scenario, "--out", folder, "--jobs", str(jobs), "--quiet"]
    for s in sets:
        run += ["--set", s]
    if games:
        run += ["--games", str(games)]
    if chunk_size:
        run += ["--chunk-size", str(chunk_size)]
    regress = ["ssb", "regress", folder, "--baseline", str(baseline_path(scenario)), "--jobs", str(jobs),
               "--json", str(Path(folder) / "regress.json"), "--summary-md", str(Path(folder) / "regress.md")]
    if adaptive_budget:
        regress += ["--adaptive", "--budget", str(adaptive_budget)]
    return run, regress


def sample_step(instrument_dir):
    """``ssb play`` of the check's sample game: greedy in every seat, a fixed seed, the designer's
    instrument folder (its story goes to ``SAMPLE_FILE``)."""
    return ["ssb", "play", "--players", str(SAMPLE_PLAYERS), "--seed", str(SAMPLE_SEED),
            "--instrument-dir", str(instrument_dir)]


def check_steps(folder, sets, games, chunk_size=None, adaptive_budget=None, jobs=0, strong=True, sample=None):
    """The ``ssb`` argv (first word ``ssb``) of a check (``jobs`` worker processes; 0: all cores):
    greedy's gate (run, regress) and the run's balance report, with ``sample`` (the designer's
    instrument folder) one narrated sample game (:func:`sample_step`), then, with ``strong``, the same gate at
    strong play in ``FOLDER/strong`` (run, regress; at most as many deals as greedy's when ``games`` is
    given, every baseline deal otherwise; the strong gate's extra deals, with ``adaptive_budget``, a
    sixth of greedy's budget: a strong game costs about sixty greedy ones; on every baseline deal
    without it, in looks: :data:`STRONG_LOOKS`)."""
    folder = str(folder)
    run, regress = _gate_steps(GATE_SCENARIO, folder, sets, games, chunk_size, adaptive_budget, jobs)
    steps = [run, regress, ["ssb", "report", folder]]
    if sample:
        steps.append(sample_step(sample))
    if strong:
        strong_budget = max(1, adaptive_budget // 6) if adaptive_budget else None
        s_run, s_regress = _gate_steps(STRONG_SCENARIO, str(Path(folder) / STRONG_DIR), sets, games, chunk_size,
                                       strong_budget, jobs)
        if not games and not strong_budget:  # every baseline deal, in looks (fresh deals go without)
            s_run += ["--looks", STRONG_LOOKS, "--against", str(baseline_path(STRONG_SCENARIO))]
        steps += [s_run, s_regress]
    return steps


def tune_steps(folder, tune, sets=(), jobs=0):
    """The ``ssb tune`` argv of a balance search."""
    argv = ["ssb", "tune", tune, "--out", str(folder), "--jobs", str(jobs)]
    for s in sets:
        argv += ["--set", s]
    return [argv]


OWN_TUNE = "tune.toml"  # the tuning file "Which number?" writes into its search's folder


def own_tune_steps(folder, jobs=0):
    """``ssb tune FOLDER/tune.toml --out FOLDER``: a search of the designer's own problem."""
    return [["ssb", "tune", str(Path(folder) / OWN_TUNE), "--out", str(folder), "--jobs", str(jobs)]]


def _count(word, lo=0, hi=MAX_GAMES * 10):
    return word.isascii() and word.isdigit() and lo <= int(word) <= hi


def check_argv(argv, folder_rel, root):
    """Refuse (:class:`JobError`) a recorded step that is not one the desk writes for the folder
    ``folder_rel``: its command, its folder, its files and options are checked word by word, so that
    Resume runs nothing else (no other folder, no other baseline, no option the desk never gives)."""
    from ssb.desk import catalog

    def bad(why):
        return JobError(f"{DESK_FILE} is damaged: {command_line(argv)[:200]!r}: {why}")

    folder_rel = str(folder_rel)
    head = tuple(argv[:2])
    flags = {"--quiet", "--resume", "--adaptive"}
    gates = {GATE_SCENARIO: folder_rel, STRONG_SCENARIO: str(Path(folder_rel) / STRONG_DIR)}
    gate_of = {f: sc for sc, f in gates.items()}
    out = folder_rel
    if head == ("ssb", "run"):
        if len(argv) < 5 or argv[2] not in gates or argv[3:5] != ["--out", gates[argv[2]]]:
            raise bad(f"expected ssb run {GATE_SCENARIO} --out {folder_rel} or ssb run {STRONG_SCENARIO} --out "
                      f"{gates[STRONG_SCENARIO]}")
        out = argv[4]
        rest, allowed = argv[5:], {"--jobs", "--quiet", "--set", "--games", "--chunk-size", "--resume", "--looks",
                                   "--against"}
        run_baseline = str(baseline_path(argv[2]))
    elif head == ("ssb", "regress"):
        sc = gate_of.get(argv[2]) if len(argv) > 2 else None
        if sc is None or argv[3:5] != ["--baseline", str(baseline_path(sc))]:
            raise bad(f"expected ssb regress {folder_rel} --baseline {baseline_path()} or ssb regress "
                      f"{gates[STRONG_SCENARIO]} --baseline {baseline_path(STRONG_SCENARIO)}")
        out = argv[2]
        rest, allowed = argv[5:], {"--jobs", "--json", "--summary-md", "--adaptive", "--budget"}
    elif head == ("ssb", "report"):
        if argv[2:] != [folder_rel]:
            raise bad(f"expected ssb report {folder_rel}")
        rest, allowed = [], set()
    elif head == ("ssb", "play"):
        rest, allowed = argv[2:], {"--players", "--seed", "--instrument-dir"}
    elif head == ("ssb", "tune"):
        if len(argv) < 5 or argv[2] not in (*catalog.tunes(), str(Path(folder_rel) / OWN_TUNE)) or argv[3:5] != [
                "--out", folder_rel]:
            raise bad(f"expected ssb tune NAME --out {folder_rel} with a shipped balance search")
        rest, allowed = argv[5:], {"--jobs", "--resume"}
    else:
        raise bad("not a command the desk runs")
    i = 0
    while i < len(rest):
        opt = rest[i]
        if opt not in allowed:
            raise bad(f"{opt}: not an option the desk gives")
        if opt in flags:
            i += 1
            continue
        if i + 1 >= len(rest):
            raise bad(f"{opt}: no value")
        value = rest[i + 1]
        if opt in ("--jobs", "--games", "--chunk-size", "--budget", "--seed") and not _count(value):
            raise bad(f"{opt}: expected a whole number, got {value[:40]!r}")
        if opt == "--players" and not _count(value, 2, 4):
            raise bad(f"{opt}: expected 2, 3 or 4, got {value[:40]!r}")
        if opt == "--instrument-dir" and not _own_instruments(value, root):
            raise bad(f"{opt}: expected the desk's own folder {Path(DESIGN_INSTRUMENTS)}")
        if opt in ("--json", "--summary-md") and value != str(Path(out) / ("regress.json" if opt == "--json"
                                                                             else "regress.md")):
            raise bad(f"{opt}: expected a file of the folder itself")
        if opt == "--set":
            _check_set(value, root, bad)
        if opt == "--against" and value != run_baseline:
            raise bad(f"{opt}: expected the gate's own baseline {run_baseline}")
        if opt == "--looks" and not (len(value) <= 40 and all(_count(x) for x in value.split(","))):
            raise bad(f"{opt}: expected deal counts separated by commas, got {value[:40]!r}")
        i += 2


DESIGN_INSTRUMENTS = "designs/instruments"


def _own_instruments(name, root):
    """Whether ``name`` is the desk's own instrument folder (as the desk writes it: relative to the
    desk's folder, or that folder resolved)."""
    return isinstance(name, str) and name in (DESIGN_INSTRUMENTS, str(Path(root).resolve() / DESIGN_INSTRUMENTS))


def _check_set(value, root, bad):
    """A ``--set`` of a recorded check: the designer's instrument folder, or a board override."""
    key, _, text = value.partition("=")
    if key == "instrument_dirs":
        try:
            dirs = json.loads(text)
        except ValueError:
            raise bad("instrument_dirs: not a list of folders") from None
        if not (isinstance(dirs, list) and len(dirs) == 1 and _own_instruments(dirs[0], root)):
            raise bad(f"instrument_dirs: expected the desk's own folder {Path(root).resolve() / DESIGN_INSTRUMENTS}")
    elif not key.startswith("overrides.board.") or not key[len("overrides.board."):].replace(".", "").replace(
            "_", "").replace("[", "").replace("]", "").replace("-", "").isalnum():
        raise bad(f"--set {key[:60]}: not a change the desk makes")


def checked_state(folder, root):
    """``desk.json`` of ``folder`` checked word by word against what the desk writes (:func:`check_argv`)."""
    folder, root = Path(folder), Path(root)
    state = load_state(folder)
    where, home = folder.resolve(), root.resolve()
    rel = str(where.relative_to(home)) if where.is_relative_to(home) else None
    if rel is None:
        raise JobError(f"{folder} is outside the desk's folder")
    for argv in state["steps"]:
        check_argv(argv, rel, root)
    return state


# ------------------------------------------------------------------ the processes the desk owns
_CHILDREN = {}  # pid -> Popen: the drivers this desk started, reaped when they end


def _identity(pid):
    """``(create_time, cmdline)`` of a live process (psutil), or None."""
    try:
        p = psutil.Process(int(pid))
        return round(p.create_time(), 2), p.cmdline()
    except (psutil.Error, ValueError, TypeError, OverflowError):
        return None


def _reap(pid):
    proc = _CHILDREN.get(pid)
    if proc is not None and proc.poll() is not None:
        _CHILDREN.pop(pid, None)
        return
    with contextlib.suppress(ChildProcessError, OSError, ValueError, TypeError, OverflowError):
        os.waitpid(int(pid), os.WNOHANG)


def owned(state, folder):
    """The driver process of ``folder`` when it still runs and is the one the desk started: the
    process ``pid`` names was created when ``desk.json`` says, runs this module on this folder, and
    leads its own process group. None otherwise (ended, or a reused pid: another process)."""
    pid = state.get("pid") if isinstance(state, dict) else None
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 1 or pid == os.getpid():
        return None
    _reap(pid)
    try:
        p = psutil.Process(pid)
        if p.status() == psutil.STATUS_ZOMBIE:
            _reap(pid)
            return None
        created, cmdline = round(p.create_time(), 2), p.cmdline()
        pgid = os.getpgid(pid)
    except (psutil.Error, OSError):
        return None
    ours = pid in _CHILDREN  # started by this very desk: its command line may not be set yet (just forked)
    if state.get("created") != created or pgid != pid or not (
            ours or (DRIVER in cmdline and str(Path(folder)) in cmdline)):
        return None
    return p


def spawn(folder, env=None, cwd=None):
    """Start the driver of ``folder``'s ``desk.json`` in ``cwd`` (the desk's folder); returns its pid."""
    folder = Path(folder)
    state = load_state(folder)
    cwd = cwd or state["cwd"]
    log_fd = os.open(folder / LOG_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", DRIVER, str(folder)],
            cwd=cwd,
            stdout=log_fd,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
        )
    finally:
        os.close(log_fd)
    _CHILDREN[proc.pid] = proc
    ident = _identity(proc.pid)
    state["pid"] = proc.pid
    state["created"] = ident[0] if ident else None
    state["status"] = RUNNING
    write_state(folder, state)
    return proc.pid


def start(folder, kind, steps, title, cwd, env=None):
    """Write ``desk.json`` in the (new) ``folder`` and start the driver (its own session: it outlives the desk)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = {"kind": kind, "title": title, "steps": steps, "step": 0, "status": QUEUED, "started": now(),
             "cwd": str(cwd), "pid": None, "created": None, "finished": None, "returncodes": []}
    write_state(folder, state)
    return spawn(folder, env, cwd)


def alive(pid):
    """Whether the process ``pid`` runs (a zombie child of this process counts as ended, and is reaped)."""
    if not pid:
        return False
    _reap(int(pid))
    try:
        return psutil.Process(int(pid)).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def cancel(folder):
    """Stop a running check: its driver and every process under it, once the driver is verified as
    the one the desk started (:func:`owned`), then reaped. A check that has ended is left as it is
    (not marked cancelled). Raises :class:`JobError` for a folder without a readable ``desk.json``."""
    state = load_state(folder)
    if state.get("status") not in (QUEUED, RUNNING):
        return state
    proc = owned(state, folder)
    if proc is None:
        return state  # ended meanwhile, or the pid is another process now: nothing is signalled
    try:
        family = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        family = [proc]
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)  # the driver leads its own group: ssb and its workers
    for p in family:
        with contextlib.suppress(psutil.Error):
            p.terminate()
    _gone, left = psutil.wait_procs(family, timeout=10)
    for p in left:
        with contextlib.suppress(psutil.Error):
            p.kill()
    psutil.wait_procs(left, timeout=5)
    child = _CHILDREN.pop(proc.pid, None)
    if child is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=5)
    _reap(proc.pid)
    state = read_state(folder) or state
    if state.get("status") in (QUEUED, RUNNING):
        state["status"] = CANCELLED
        state["finished"] = now()
        write_state(folder, state)
    return state


def _root_of(folder):
    """The desk's folder of a check folder (the parent of its ``results``)."""
    folder = Path(folder).resolve()
    for parent in folder.parents:
        if parent.name == "results":
            return parent.parent
    raise JobError(f"{folder} is not under a results folder")


def resume(folder, env=None, root=None):
    """Take a cancelled, stopped or failed check up again where it was (``ssb run --resume``), from
    its ``desk.json`` checked word by word (:func:`checked_state`), in the desk's own folder."""
    folder = Path(folder)
    root = Path(root).resolve() if root is not None else _root_of(folder)
    state = checked_state(folder, root)
    if owned(state, folder) is not None:
        raise JobError("this check is running: there is nothing to resume")
    if state["status"] == DONE:
        raise JobError("this check is done: there is nothing to resume")
    steps = state["steps"]
    for argv in steps:
        if argv[:2] in (["ssb", "run"], ["ssb", "tune"]) and "--resume" not in argv:
            argv.append("--resume")
    state["steps"], state["status"], state["finished"] = steps, QUEUED, None
    state["step"] = min(int(state.get("step", 0)), len(steps) - 1)
    state["cwd"] = str(root)
    write_state(folder, state)
    return spawn(folder, env, root)


def status(folder):
    """What a check folder says now: ``desk.json`` with ``status`` corrected for a driver that is no
    longer the desk's (``stopped``), ``progress`` (games played / planned, from the chunks on disk)
    and ``answer``; a folder whose ``desk.json`` is damaged says ``damaged`` and why."""
    from scenarios.results import done_chunks

    folder = Path(folder)
    try:
        state = load_state(folder)
    except JobError as exc:
        return {"status": DAMAGED, "damaged": str(exc), "steps": [], "step": 0, "progress": 0.0,
                "games_fraction": 0.0, "answer": None}
    if state.get("status") in (RUNNING, QUEUED) and owned(state, folder) is None:
        state["status"] = STOPPED
    def played(run_folder):
        """The share of a run folder's planned games on disk (0 before its manifest is written)."""
        try:
            manifest = json.loads((run_folder / "manifest.json").read_text())
            plan = manifest["chunks"]["plan"]
            done = done_chunks(run_folder, len(plan))
            total = sum(b - a for _k, _c, a, b in plan) or 1
            return min(max(float(sum(b - a for k, _c, a, b in plan if k in done) / total), 0.0), 1.0)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return 0.0

    nsteps = len(state["steps"])
    step = int(state.get("step", 0))
    progress = played(folder)
    if state["kind"] == "check":
        # The runs are most of the work: a strong game costs about sixty greedy ones, so with the strong
        # gate greedy's run fills 10% of the bar and the strong run 65-70%; alone, greedy's run fills 80%.
        steps = state["steps"]
        runs = {i: folder / STRONG_DIR if a[2:3] == [STRONG_SCENARIO] else folder
                for i, a in enumerate(steps) if a[:2] == ["ssb", "run"]}
        if any(a[2:3] == [STRONG_SCENARIO] for a in steps):
            weights = [0.7 if steps[i][2:3] == [STRONG_SCENARIO] else 0.1 if i in runs else 0.05
                       for i in range(nsteps)]
        else:
            weights = [0.8 if i in runs else 0.2 / max(nsteps - 1, 1) for i in range(nsteps)]
        total = sum(weights) or 1.0
        weights = [w / total for w in weights]
        if step in runs and step < nsteps:
            progress = played(runs[step])
        overall = sum(weights[:step]) + (weights[step] * progress if step in runs and step < nsteps else 0.0)
    else:
        overall = step / nsteps
    if state.get("status") == DONE:
        overall = 1.0
    state["progress"] = round(min(max(overall, 0.0), 1.0), 3)
    state["games_fraction"] = progress
    if state["kind"] == "tune" or state.get("status") in (FAILED, STOPPED):
        # A search has no chunk plan to count: its own last lines say how far it is.
        try:
            lines = (folder / LOG_FILE).read_text(errors="replace").replace("\r", "\n").splitlines()
        except OSError:
            lines = []
        state["log_tail"] = [x for x in lines if x.strip()][-6:]
    state["answer"] = answer(folder)
    if state["kind"] == "check":
        state["sample"] = sample(folder)
    else:
        from ssb.desk.tuning import study_progress

        tp = tune_progress(folder) or study_progress(folder)
        state["tune_progress"] = tp
        if tp and state.get("status") != DONE:
            # A search's bar: the candidates tried of the most it may try (the race's budget used, when it says).
            try:
                if tp.get("seconds"):
                    share = float(tp.get("seconds_spent", 0)) / float(tp["seconds"])
                else:
                    share = float(tp.get("tried", 0)) / float(tp["planned"])
                state["progress"] = round(min(max(share, 0.0), 0.99), 3)
            except (KeyError, TypeError, ValueError, ZeroDivisionError):
                pass
    return state


def tune_progress(folder):
    """A balance search's ``progress.json`` (candidates tried, dropped, the best so far), or None."""
    path = Path(folder) / "progress.json"
    if path.is_symlink() or not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


MAX_SAMPLE = 400_000  # characters of a sample game's story shown (a 3-player game tells about 60,000)


def sample(folder):
    """The story of the check's sample game (``SAMPLE_FILE``), or None before it is played; a link
    is not read."""
    path = Path(folder) / SAMPLE_FILE
    if path.is_symlink() or not path.is_file():
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(MAX_SAMPLE)
    except OSError:
        return None


def write_change(root, folder, change):
    """``change.json`` of a new check: ``{"kind", "name", "file", "changes": [{"key", "name",
    "shipped", "value"}]}``, written through no link (:func:`ssb.desk.guard.write_file`)."""
    guard.write_file(root, Path(folder) / CHANGE_FILE, json.dumps(change, indent=1))


def read_change(folder):
    """``change.json`` of a check as written by :func:`write_change`; None when it has none, a dict
    with ``damaged`` (why) when it cannot be read as one."""
    path = Path(folder) / CHANGE_FILE
    if not (path.exists() or path.is_symlink()):
        return None
    try:
        if path.is_symlink():
            raise ValueError("it is a link")
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or not isinstance(doc.get("changes"), list):
            raise ValueError("expected an object with a list of changes")
        changes = [{k: str(c.get(k)) if c.get(k) is not None else None for k in ("key", "name", "shipped", "value")}
                   for c in doc["changes"] if isinstance(c, dict)]
        return {"kind": str(doc.get("kind", "")), "name": str(doc.get("name", "")), "file": str(doc.get("file", "")),
                "changes": changes}
    except (OSError, ValueError, TypeError, RecursionError) as exc:
        return {"damaged": f"{CHANGE_FILE} cannot be read: {exc}", "changes": []}


def _number(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"expected a number, got {type(x).__name__}")
    x = float(x)
    if x != x or abs(x) > 1e6:
        raise ValueError(f"{x} is not a figure")
    return x


def answer(folder):
    """The regression gate's verdict of a check (``regress.json``), or the tune's summary line; a
    ``regress.json`` that cannot be read as one says so (``damaged``). A check's answer is greedy's
    gate, with the strong gate's answer under ``strong`` once its ``regress.json`` is written (None
    before)."""
    folder = Path(folder)
    res = _gate_answer(folder)
    if res is not None and res.get("verdict") != "tuned":
        strong = folder / STRONG_DIR
        res["strong"] = _gate_answer(strong) if strong.is_dir() and not strong.is_symlink() else None
        res["strong_judge"] = gate_judge(STRONG_SCENARIO)
    return res


def _gate_answer(folder):
    path = folder / "regress.json"
    if path.exists() or path.is_symlink():
        try:
            if path.is_symlink():
                raise ValueError("it is a link")
            res = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(res, dict):
                raise ValueError(f"expected an object, got {type(res).__name__}")
            counts = res.get("counts", {})
            if not isinstance(counts, dict):
                raise ValueError("counts: expected an object")
            counts = {str(k): int(_number(v)) for k, v in counts.items()}
            verdict = res.get("verdict")
            if not isinstance(verdict, str):
                raise ValueError("verdict: expected a word")
            return {"verdict": verdict, "counts": counts, "figures": _win_rates(res), "changed": _changed(res),
                    "deals": _deals(res), "all": _changed(res, every=True)}
        except (OSError, ValueError, TypeError, RecursionError) as exc:
            return {"verdict": DAMAGED, "damaged": f"regress.json cannot be read: {exc}", "counts": {}, "figures": []}
    md = folder / "summary.md"
    if md.is_file() and not md.is_symlink():
        try:
            text = md.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        lines = [x for x in text.splitlines() if x.strip() and not x.startswith("#")]
        return {"verdict": "tuned", "counts": {}, "figures": [], "lines": lines[:6]}
    return None


def _deals(res):
    """The deals the check played per player count (its paired figures' deals), for the answer's words."""
    out = {}
    for row in res.get("figures", []) or []:
        if isinstance(row, dict) and row.get("kind") == "win_rate":
            try:
                players = str(row.get("cell_key", "")).split("|")[0].replace("players=", "")
                out[players] = int(_number(row.get("deals_now", 0)))
            except ValueError:
                continue
    return out


def _changed(res, every=False):
    """Every figure that did not hold (moved beyond its margin, or not shown within it), any kind, with
    its change and interval in its own unit: the words of the answer name these first (``every``:
    every figure, those that held too)."""
    out = []
    for row in res.get("figures", []) or []:
        if not isinstance(row, dict) or row.get("verdict") not in (("fail", "inconclusive", "pass") if every
                                                                   else ("fail", "inconclusive")):
            continue
        try:
            clean = {k: _number(row[k]) for k in ("baseline", "now", "change", "ci_low", "ci_high", "margin") if k in row}
        except ValueError:
            continue
        out.append({**clean, "label": str(row.get("label", row.get("figure", ""))), "verdict": str(row["verdict"]),
                    "kind": str(row.get("kind", "")), "cell_key": str(row.get("cell_key", ""))})
    return out


def _win_rates(res):
    """The seat win-rate figures of a gate result, for the designer's question about seat edges
    (a row whose figures are not numbers is left out)."""
    out = []
    rows = res.get("figures", res.get("rows", [])) or []
    if not isinstance(rows, list):
        raise ValueError("figures: expected a list")
    for row in rows:
        if not isinstance(row, dict):
            continue
        label = str(row.get("label", row.get("figure", "")))
        if "win rate" in label or str(row.get("figure", "")).startswith("win_rate"):
            try:
                clean = {k: _number(row[k]) for k in ("baseline", "now", "change", "ci_low", "ci_high") if k in row}
            except ValueError:
                continue
            out.append({**row, **clean, "label": label, "verdict": str(row.get("verdict", "")),
                        "cell_key": str(row.get("cell_key", ""))})
    return out


def main(folder):
    """The driver: run each step of ``desk.json`` in turn, in the folder it was started in (the
    desk's), recording how far it got."""
    folder = Path(folder)
    cwd = os.getcwd()
    state = load_state(folder)
    ident = _identity(os.getpid())
    state["status"] = RUNNING
    state["pid"] = os.getpid()
    state["created"] = ident[0] if ident else None
    write_state(folder, state)
    steps = state["steps"]
    for i in range(int(state.get("step", 0)), len(steps)):
        state["step"] = i
        write_state(folder, state)
        argv = _ssb() + steps[i][1:]
        print(f"$ {command_line(steps[i])}", flush=True)
        if steps[i][:2] == ["ssb", "play"]:  # the sample game's story: a file of the check's folder
            fd = os.open(folder / SAMPLE_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as story:
                rc = subprocess.call(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=story)
        else:
            rc = subprocess.call(argv, cwd=cwd, stdin=subprocess.DEVNULL)
        state = read_state(folder) or state
        state.setdefault("returncodes", []).append(rc)
        # ssb regress exits 1 for a figure that moved (its verdict, not a failure of the check); the
        # sample game is a picture beside the answer: its story says what went wrong, the check goes on.
        if rc != 0 and not (steps[i][:2] == ["ssb", "regress"] and rc == 1) and steps[i][:2] != ["ssb", "play"]:
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
