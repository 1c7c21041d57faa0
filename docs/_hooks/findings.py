"""The figures a page quotes from a run, written from files the run wrote: ``make findings``.

Each run the pages quote has a folder ``docs/runs/NAME/``: ``run.toml`` says how to play it (the
scenario, the options of ``ssb run`` and ``ssb report``, the report's screenshot), and beside it lie
the small files the run itself wrote and the pages need (never the big tables):

* ``run.txt`` and ``report.txt``: what ``ssb run`` and ``ssb report`` printed;
* ``manifest.json``: the run's manifest (``manifest.json`` of the run folder), its cell list left out;
* ``facts.json``: the run's figures the pages name by key (games, cells decided, seed, the date, the
  machine, wall and CPU time of the run and of the report, each judge's measured cost, the seat
  verdict of every player count and judge, the screenshot's checksum);
* the report's CSV tables that ``run.toml`` lists under ``tables``.

A page carries the generated text between two markers, in a block of its own::

    <!-- run: starter/report.txt paras=1-4 -->
    ```text
    ...
    ```
    <!-- /run -->

or inline, a figure named by its key in a JSON source (``fmt`` a Python format, numbers with
thousands separators by default)::

    <!-- run: starter/facts.json games -->52,037<!-- /run --> games

``python -m docs._hooks.findings`` rewrites every marked block from the committed sources (fast);
``--rerun`` first plays each run again with the current code, in a fresh folder (so no machine path
shows), and writes its sources and its screenshot; ``--check`` rewrites nothing and fails (exit 1)
naming each block that differs from its source. ``make findings`` and ``make findings RERUN=1`` call
it; ``tests/test_docs_findings.py`` runs the check.
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import hashlib
import io
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RUNS = DOCS / "runs"
FIX = "make findings"

MARK = re.compile(
    r"<!-- run: (?P<src>[\w.-]+/[\w.-]+)(?P<sel>[^>]*?) -->(?P<body>.*?)<!-- /run -->", re.S
)
ARG = re.compile(r"(\w+)=(\"[^\"]*\"|\S+)|(\"[^\"]*\"|\S+)")


def pages():
    """Every page that may quote a run: the README and the docs pages."""
    return [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)]


class SourceError(Exception):
    """A marker names a source, a key or a part that is not there."""


# --------------------------------------------------------------------------- reading sources
def _args(sel):
    key, opts = None, {}
    for m in ARG.finditer(sel.strip()):
        if m.group(1):
            opts[m.group(1)] = m.group(2).strip('"')
        elif key is None:
            key = m.group(3).strip('"')
        else:
            raise SourceError(f"two keys in one marker: {key!r} and {m.group(3)!r}")
    return key, opts


def _span(spec, n):
    """``"2-4"`` or ``"3"`` or ``"2-"`` as a 0-based slice over ``n`` items, 1-based inclusive."""
    a, dash, b = spec.partition("-")
    lo = int(a) if a else 1
    hi = (int(b) if b else n) if dash else lo
    if not 1 <= lo <= hi <= n:
        raise SourceError(f"part {spec} of {n}")
    return slice(lo - 1, hi)


def paragraphs(text):
    return [p.strip("\n") for p in re.split(r"\n[ \t]*\n", text.strip("\n")) if p.strip()]


def lookup(data, key):
    """``a.b.c`` in nested dicts (a key may itself hold dots when quoted in the data)."""
    cur = data
    parts = key.split(".")
    i = 0
    while i < len(parts):
        for j in range(len(parts), i, -1):  # the longest key that exists: "3 players" or "search_leaf"
            k = ".".join(parts[i:j])
            if isinstance(cur, dict) and k in cur:
                cur = cur[k]
                i = j
                break
        else:
            raise SourceError(f"no key {'.'.join(parts[: i + 1])!r}")
    return cur


def fmt(value, spec=None):
    if spec:
        return format(value, spec)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.1f}"
    return str(value)


def render(src, sel, runs=None):
    """The text a marker stands for, from its source file."""
    name, _, fname = src.partition("/")
    path = (runs or RUNS) / name / fname
    if not path.is_file():
        raise SourceError(f"docs/runs/{src} does not exist (make findings RERUN=1 plays the run)")
    key, opts = _args(sel)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        if key is None:
            raise SourceError(f"{src}: a JSON source needs a key")
        value = lookup(json.loads(text), key)
        if isinstance(value, (dict, list)):
            raise SourceError(f"{src} {key}: not a single figure")
        return fmt(value, opts.get("fmt"))
    if path.suffix == ".csv":
        rows = list(csv.reader(io.StringIO(text)))
        head, body = rows[0], rows[1:]
        cols = opts["cols"].split(",") if "cols" in opts else head
        idx = [head.index(c) for c in cols]
        names = opts["names"].split(",") if "names" in opts else cols
        out = ["| " + " | ".join(names) + " |", "|" + "---|" * len(cols)]
        out += ["| " + " | ".join(r[i].replace("|", "\\|") for i in idx) + " |" for r in body]
        return "\n" + "\n".join(out) + "\n"
    # text: a block of paragraphs (or lines) as printed
    if "paras" in opts:
        paras = paragraphs(text)
        text = "\n\n".join(paras[_span(opts["paras"], len(paras))])
    if "lines" in opts:
        lines = text.rstrip("\n").splitlines()
        text = "\n".join(lines[_span(opts["lines"], len(lines))])
    if "starts" in opts or "has" in opts:  # the one item that starts so, or whose first line holds
        # the text (its indented continuation lines joined), inline
        items, cur = [], None
        want = opts.get("starts")
        for ln in text.splitlines():
            if ln.startswith(want) if want else (opts["has"] in ln and not ln[:1].isspace()):
                cur = [ln]
                items.append(cur)
            elif cur is not None and ln.startswith((" ", "\t")) and ln.strip():
                cur.append(ln)
            else:
                cur = None
        if len(items) != 1:
            how = f"start with {want!r}" if want else f"hold {opts['has']!r}"
            raise SourceError(f"{src}: {len(items)} items {how}")
        if opts.get("as") != "block":
            return " ".join(ln.strip() for ln in items[0])
        text = "\n".join(items[0])
    if "wrap" in opts:  # lines longer than that, wrapped as the page's width allows (continued indented)
        import textwrap

        width = int(opts["wrap"])
        text = "\n".join(
            textwrap.fill(ln, width, subsequent_indent=" " * (len(ln) - len(ln.lstrip()) + 2), break_on_hyphens=False)
            if len(ln) > width else ln for ln in text.splitlines())
    return "\n```text\n" + text.strip("\n") + "\n```\n"


FENCE_OPEN = re.compile(r"^ *(```+|~~~+)", re.M)


def live_marks(text):
    """The markers of a page, leaving out those shown as examples (in a code block or inline code)."""
    pos = 0
    while True:
        m = MARK.search(text, pos)
        if m is None:
            return
        f = FENCE_OPEN.search(text, pos, m.start())
        if f:  # a code block before the marker: skip it whole
            close = re.compile(r"^ *" + re.escape(f.group(1)) + r"[ \t]*$", re.M).search(text, f.end())
            pos = close.end() if close else len(text)
            continue
        if text.count("`", text.rfind("\n", 0, m.start()) + 1, m.start()) % 2:
            pos = m.start() + 1  # in inline code
            continue
        yield m
        pos = m.end()


def rewrite(text, runs=None):
    """``(new text, [(line, marker, problem)])``: every marked block of a page from its source."""
    problems, out, last = [], [], 0
    for m in live_marks(text):
        out.append(text[last:m.start("body")])
        try:
            out.append(render(m.group("src"), m.group("sel"), runs))
        except (SourceError, OSError, ValueError, KeyError) as exc:
            problems.append((text.count("\n", 0, m.start()) + 1, m.group("src") + m.group("sel"), str(exc)))
            out.append(m.group("body"))
        last = m.end("body")
    out.append(text[last:])
    return "".join(out), problems


def check(page_list=None, runs=None):
    """What differs: ``["PAGE:LINE: run: SRC KEY: ..."]``, empty when every block is its source's."""
    out = []
    for page in page_list or pages():
        text = page.read_text(encoding="utf-8")
        new, problems = rewrite(text, runs)
        rel = _rel(page)
        out += [f"{rel}:{line}: run: {what.strip()}: {why}" for line, what, why in problems]
        for m in live_marks(text):
            before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
            if not m.group("body").startswith("\n") and not before.strip(" >*-|"):
                out.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: run: {m.group('src')}{m.group('sel')}: "
                           "an inline figure opens its line, where Markdown reads the comment as an HTML block: "
                           "put a word before it")
        if new != text:
            for m_old, m_new in zip(live_marks(text), live_marks(new)):
                if m_old.group("body") != m_new.group("body"):
                    line = text.count("\n", 0, m_old.start()) + 1
                    old = " ".join(m_old.group("body").split())[:70]
                    want = " ".join(m_new.group("body").split())[:70]
                    out.append(f"{rel}:{line}: run: {m_old.group('src')}{m_old.group('sel')}: the page says "
                               f"{old!r}, the source {want!r}")
    out += check_screenshots(runs)
    return out


def check_screenshots(runs=None):
    """Each run's screenshot is the one its last play took (its checksum in facts.json)."""
    out = []
    for spec_path in sorted((runs or RUNS).glob("*/run.toml")):
        spec = tomllib.loads(spec_path.read_text())
        shot = spec.get("screenshot")
        facts_path = spec_path.parent / "facts.json"
        if not shot or not facts_path.is_file():
            continue
        want = json.loads(facts_path.read_text()).get("screenshot", {}).get("sha256")
        png = DOCS / shot
        if not png.is_file() or _sha(png) != want:
            out.append(f"docs/{shot}: not the screenshot of the run in docs/runs/{spec_path.parent.name} "
                       f"(make findings RERUN=1 takes it again with the run)")
    return out


def _rel(page):
    return page.relative_to(ROOT) if page.is_relative_to(ROOT) else page


def _sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_pages(page_list=None, runs=None):
    """Rewrite every page's marked blocks; ``(pages changed, problems)``."""
    changed, problems = [], []
    for page in page_list or pages():
        text = page.read_text(encoding="utf-8")
        new, probs = rewrite(text, runs)
        problems += [f"{_rel(page)}:{line}: run: {what.strip()}: {why}" for line, what, why in probs]
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed, problems


# --------------------------------------------------------------------------- playing a run again
def _ssb():
    return [sys.executable, "-m", "ssb.cli"]


def _timed(cmd, cwd, env):
    """Run a command; ``(stdout, wall s, CPU s of it and its children)``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd[2:])}: exit status {proc.returncode}\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc.stdout, wall, cpu


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def seat_cells(glance_text):
    """``{"2": {"greedy": "unfair: 1st +3.9 pp [+2.1, +5.8]", ...}, ...}`` (by player count) from the printed
    at-a-glance matrix (columns aligned under the judges' names)."""
    lines = glance_text.splitlines()
    head_i = next((i for i, ln in enumerate(lines) if re.match(r"^\s{4,}\S", ln)), None)
    if head_i is None:
        return {}
    head = lines[head_i]
    starts = [m.start() for m in re.finditer(r"\S+", head)]
    judges = head.split()
    out = {}
    for ln in lines[head_i + 1:]:  # the matrix: the rows right under the judges' names
        m = re.match(r"^(\d+) players?\b", ln)
        if not m or len(ln) <= starts[0]:
            break
        row = {}
        for j, (judge, a) in enumerate(zip(judges, starts)):
            b = starts[j + 1] if j + 1 < len(starts) else None
            row[judge] = ln[a:b].strip()
        out[m.group(1)] = row
    return out


def _manifest_facts(manifest):
    seq = manifest.get("sequential") or {}
    facts = {"scenario": manifest.get("scenario", {}).get("name"), "seed": manifest.get("run_seed")}
    for key in ("games", "games_played", "n_games"):
        if isinstance(manifest.get(key), int):
            facts["games"] = manifest[key]
            break
    if isinstance(seq, dict):
        measured = seq.get("measured")
        if isinstance(measured, dict):
            facts["measured"] = measured
        for key in ("spent", "declared_spent", "seconds_spent"):
            if key in seq:
                facts["declared_spent"] = round(float(seq[key]))
        budget = (seq.get("settings") or {}).get("seconds")
        if isinstance(budget, (int, float)):
            facts["declared_budget"] = round(float(budget))
    return facts


def rerun(name, runs=None, jobs=None, keep=None):
    """Play ``docs/runs/NAME`` again with the current code and write its sources (in a temporary
    folder, removed after, unless ``keep`` names one)."""
    folder = (runs or RUNS) / name
    spec = tomllib.loads((folder / "run.toml").read_text())
    if spec.get("screenshot"):
        for tool in (os.environ.get("CHROMIUM", "/usr/bin/chromium"), os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")):
            if not Path(tool).is_file():
                raise SystemExit(f"error: docs/runs/{name}/run.toml: screenshot: {tool} is not installed "
                                 "(headless Chromium and chromedriver take the report's picture)")
    work = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="ssb-findings-"))
    try:
        return _rerun(name, folder, spec, work, jobs)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def _with_jobs(args, jobs):
    """``args`` with ``--jobs JOBS`` in place of its own when ``jobs`` is given."""
    if not jobs:
        return args
    kept = [a for i, a in enumerate(args) if a != "--jobs" and (i == 0 or args[i - 1] != "--jobs")]
    return [*kept, "--jobs", str(jobs)]


def _play_env():
    """The environment a run is played in: this tree first on the path, no docs URL."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("SSB_DOCS_URL", None)
    return env


def _rerun(name, folder, spec, work, jobs):
    if spec.get("tune"):
        return _rerun_tune(name, folder, spec, work, jobs)
    work.mkdir(parents=True, exist_ok=True)
    env = _play_env()
    out = f"results/{spec.get('out', name)}"
    run_args = _with_jobs([str(a) for a in spec.get("run", [])], jobs)
    # --resume: a kept folder (--keep) whose run was interrupted, or already played, goes on from its chunks
    run_cmd = ["ssb", "run", spec["scenario"], "--out", out, *run_args, "--resume"]
    report_cmd = ["ssb", "report", out, *[str(a) for a in spec.get("report", [])]]
    print(f"{name}: {' '.join(run_cmd)}  (in {work})", flush=True)
    run_out, run_wall, run_cpu = _timed(_ssb() + run_cmd[1:], work, env)
    print(f"{name}: {' '.join(report_cmd)}", flush=True)
    rep_out, rep_wall, rep_cpu = _timed(_ssb() + report_cmd[1:], work, env)
    when = _dt.datetime.now(_dt.UTC).date().isoformat()

    manifest = json.loads((work / out / "manifest.json").read_text())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.txt").write_text(run_out, encoding="utf-8")
    (folder / "report.txt").write_text(rep_out, encoding="utf-8")
    (folder / "manifest.json").write_text(json.dumps(small_manifest(manifest, work), indent=1, sort_keys=True) + "\n",
                                          encoding="utf-8")
    for table in spec.get("tables", []):
        shutil.copyfile(work / out / "report" / table, folder / Path(table).name)

    facts = _manifest_facts(manifest)
    # The run's own timings (manifest.json, every session of it when resumed): wall and the workers' CPU.
    sessions = [r for r in (manifest.get("timings") or {}).get("runs", []) if isinstance(r, dict)]
    played_wall = sum(float(r.get("wall_seconds") or 0) for r in sessions) or run_wall
    played_cpu = max(sum(float(r.get("cpu_seconds") or 0) for r in sessions), run_cpu)  # the workers' or all
    compile_s = sum(float(r.get("compile_seconds") or 0) for r in sessions)
    facts.update({
        "date": when,
        "machine": f"{cpu_model()}, {os.cpu_count()} cores",
        "load": round(os.getloadavg()[0], 1),
        "jobs": jobs or _jobs_of(run_args),
        "command": {"run": " ".join(run_cmd[:-1]), "report": " ".join(report_cmd)},
        "time": {
            "run_wall_s": round(played_wall - compile_s), "run_cpu_s": round(played_cpu),
            "compile_s": round(compile_s),
            "report_wall_s": round(rep_wall), "report_cpu_s": round(rep_cpu),
            "wall_s": round(played_wall - compile_s + rep_wall), "cpu_s": round(played_cpu + rep_cpu),
            "wall": _minutes(played_wall - compile_s + rep_wall), "run_wall": _minutes(played_wall - compile_s),
        },
        "seat": seat_cells(rep_out),
    })
    judges = next(iter(facts["seat"].values()), {})
    if judges:  # the ladder's order, weakest first: the pages may name the top rungs by rank
        names = list(judges)
        facts["judges"] = {"top": names[-1], "strong": names[-2] if len(names) > 1 else names[-1]}
        for row in facts["seat"].values():
            row["top"], row["strong"] = row.get(names[-1], ""), row.get(facts["judges"]["strong"], "")
    facts.update(_printed_facts(run_out, rep_out))
    measured = facts.get("measured") or {}
    for judge, m in measured.items():
        if isinstance(m, dict) and m.get("games"):
            m["ms"] = round(1000 * float(m.get("cpu_seconds") or 0) / m["games"], 1)
    if measured:
        order = [j for j in (next(iter(facts["seat"].values()), {}) or measured) if j in measured and j not in ("top", "strong")]
        facts["measured_line"] = ", ".join(
            f"{j} {measured[j]['games']:,} games in {float(measured[j].get('cpu_seconds') or 0):,.1f} s "
            f"({measured[j].get('ms')} ms a game)" for j in reversed(order or list(measured)))
        top = facts.get("judges", {}).get("top")
        if top in measured:
            facts["top"] = {"name": top, **measured[top]}
    cells = _cells(manifest, facts["seat"])
    if cells:
        with open(folder / "cells.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["players", "judge", "games", "verdict"])
            w.writerows(cells)
    facts["summary"] = _summary(facts)
    facts.update(derived_facts(folder))
    shot = spec.get("screenshot")
    if shot:
        screenshot(work / out / "report" / "report.html", DOCS / shot)
        facts["screenshot"] = {"file": f"docs/{shot}", "sha256": _sha(DOCS / shot)}
    (folder / "facts.json").write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return facts


def _rerun_tune(name, folder, spec, work, jobs):
    """A balance search's run (``tune = NAME`` in run.toml): ``ssb tune NAME`` played again in a fresh
    folder; its summary (``summary.md``, kept as ``summary.txt``) and progress (``progress.json``) kept, and ``facts.json``: the
    answer, its cost in games and declared CPU seconds, the wall and CPU time of the whole search."""
    work.mkdir(parents=True, exist_ok=True)
    env = _play_env()
    out = f"results/tune/{spec.get('out', name)}"
    args = _with_jobs([str(a) for a in spec.get("run", [])], jobs)
    cmd = ["ssb", "tune", spec["tune"], "--out", out, *args]
    resume = ["--resume"] if (work / out / "race.json").is_file() else []
    print(f"{name}: {' '.join(cmd)}  (in {work})", flush=True)
    text, wall, cpu = _timed(_ssb() + cmd[1:] + resume, work, env)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.txt").write_text(text, encoding="utf-8")
    # the summary kept as text (a .md under docs/ would be read as a page of the manual)
    shutil.copyfile(work / out / "summary.md", folder / "summary.txt")
    shutil.copyfile(work / out / "progress.json", folder / "progress.json")
    facts = tune_facts(json.loads((work / out / "tune.json").read_text(encoding="utf-8")))
    facts.update({
        "date": _dt.datetime.now(_dt.UTC).date().isoformat(),
        "machine": f"{cpu_model()}, {os.cpu_count()} cores",
        "load": round(os.getloadavg()[0], 1),
        "jobs": jobs or _jobs_of(args),
        "command": " ".join(cmd),
        "time": {"wall_s": round(wall), "cpu_s": round(cpu), "wall": _minutes(wall)},
    })
    (folder / "facts.json").write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return facts


def tune_facts(result):
    """The figures a page names from a search's ``tune.json``: its answer (the changes, one line, and
    each cell's verdict, rates and deals), its stop, candidates by state, games, declared seconds."""
    fix = result.get("fix") or {}
    cands = result.get("candidates") or []
    states = {}
    for c in cands:
        word = str(c.get("state", "")).split(":")[0]
        states[word] = states.get(word, 0) + 1

    def said(v):
        return json.dumps(v) if not isinstance(v, str) else f'"{v}"'

    cost = result.get("cost") or {}
    return {
        "stop": result.get("stop"),
        "found": "; ".join(f"{c['key']} {said(c['before'])} -> {said(c['after'])}" for c in fix.get("changes", [])),
        "fix": {label.replace(" ", "-"): {"verdict": cell.get("verdict"), "deals": cell.get("deals"),
                        "rates": " / ".join(f"{100 * r:.1f}" for r in cell.get("rates", []))}
                for label, cell in (fix.get("cells") or {}).items()},
        "candidates": len(cands) + len(result.get("untried") or []),
        "states": states,
        "games": cost.get("games"),
        "seconds_spent": cost.get("seconds_spent"),
        "seconds": cost.get("seconds"),
        "search_cpu_s": round(float(cost.get("cpu_seconds") or 0)),
    }


def small_manifest(manifest, work=None):
    """A run's manifest as the docs keep it: without its chunk list, its rounds and the scenario's
    text, every path of this machine written relative to the checkout or the run's folder."""
    prefixes = [str(ROOT) + os.sep] + ([str(Path(work)) + os.sep] if work else [])

    def scrub(v):
        if isinstance(v, dict):
            return {k: scrub(x) for k, x in v.items()}
        if isinstance(v, list):
            return [scrub(x) for x in v]
        if isinstance(v, str):
            for pre in prefixes:
                v = v.replace(pre, "")
        return v

    small = {k: v for k, v in manifest.items() if k not in ("chunks", "columns")}
    if isinstance(small.get("scenario"), dict):
        small["scenario"] = {k: v for k, v in small["scenario"].items() if k != "text"}
    if isinstance(small.get("sequential"), dict):
        small["sequential"] = {k: v for k, v in small["sequential"].items() if k not in ("rounds", "history")}
    return scrub(small)


def _cells(manifest, seat):
    """``[(players, judge, games, the glance's verdict)]`` of a sequential run's cells."""
    rows = []
    seq = manifest.get("sequential")
    for c in (seq.get("cells") if isinstance(seq, dict) else None) or []:
        if not isinstance(c, dict) or "judge" not in c:
            continue
        shown = seat.get(str(c.get("players")), {}).get(str(c["judge"]), "")
        rows.append((c.get("players"), c["judge"], f"{int(c.get('games') or 0):,}", shown))
    if len({r[:2] for r in rows}) < len(rows):  # several sets per judge (an instrument run): no table
        return []
    return rows


def _summary(f):
    """One sentence of the run's figures, as the pages quote them beside its printed answer."""
    t = f.get("time", {})
    parts = [f"seed {f.get('seed')}"]
    if "decided" in f and "cells" in f:
        parts.append(f"{f['decided']} of {f['cells']} cells decided")
    elif "verdicts_decided" in f:
        parts.append(f"{f['verdicts_decided']} of {f['verdicts']} {f['verdicts_kind']} verdicts decided")
    if "games" in f:
        parts.append(f"{f['games']:,} games")
    if "declared_spent" in f and "declared_budget" in f:
        parts.append(f"{f['declared_spent']:,} of {f['declared_budget']:,} declared CPU s")
    head = ", ".join(parts[1:])
    return (f"{parts[0]}: {head}; {t.get('cpu_s')} s of CPU for run and report, {t.get('wall')} of wall time "
            f"with `--jobs {f.get('jobs')}`, kernel cached, {f.get('machine')} shared at a load of {f.get('load')}, "
            f"{f.get('date')}")


# --------------------------------------------------------------------------- words from the run's outcome
# The sentences a page says about a run's outcome (which instrument is out of line, where the judges
# disagree, on which settings the strong judge is shown stronger than search) are written here from
# the files the run wrote, so that a page quoting them cannot say what the run did not.

SHORT = {"objective_points": "points", "winner_points": "winner's points", "seat_win": "seat {who} wins",
         "unbuilt": "unbuilt", "rounds": "length", "strategy_win": "{who}'s wins"}
LONG = {"objective_points": "objective points per game", "winner_points": "winner's points from the instrument",
        "seat_win": "seat {who}'s win rate", "unbuilt": "games ending with it unbuilt", "rounds": "game length",
        "strategy_win": "{who}'s share of wins"}
RATES = {"seat_win", "unbuilt", "strategy_win"}
OUT, IN_LINE = "out of line", "in line"
UNDECIDED = "undecided"


def _word(verdict):
    """An instrument verdict in the one vocabulary: the report's "unclear" or "open" (not decided yet)
    is said *undecided*."""
    return verdict if verdict in (OUT, IN_LINE) else UNDECIDED


def _read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def _who(measure, who):
    if measure == "seat_win" and who not in ("", None):
        try:
            return str(int(float(who)) + 1)  # the record's seats are 0-based, the pages' 1-based
        except ValueError:
            return str(who)
    return who or ""


def _label(table, measure, who):
    return table.get(measure, measure).format(who=_who(measure, who))


def _fig(measure, effect, lo, hi):
    k, unit = (100.0, " pp") if measure in RATES else (1.0, "")
    return f"{k * effect:+.1f}{unit} [{k * lo:+.1f}, {k * hi:+.1f}]"


def _and(items):
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def _players(counts):
    counts = sorted(counts)
    return f"{_and([str(c) for c in counts])} player{'s' if counts[-1] != 1 else ''}"


def _judge(lineup):
    """``"greedy"`` of a mirror lineup written ``"greedy,greedy"`` or ``"greedy x2"``."""
    return str(lineup).split(" x")[0].split(",")[0].strip()


def _cell_words(r):
    """``"out of line: points +34.5 [+34.2, +34.8]"``: a judge's verdict on an instrument, the measure its
    sentence names, and the measure the verdict rests on when another."""
    text = f"{_word(r['verdict'])}: {_label(SHORT, r['measure'], r['who'])} " \
           f"{_fig(r['measure'], _num(r['effect']), _num(r['lo']), _num(r['hi']))}"
    own = (r.get("own_measure"), r.get("own_who") or "")
    if r["verdict"] != IN_LINE and own[0] and own != (r["measure"], r["who"] or ""):
        text += f"; {_label(SHORT, *own)} {_fig(own[0], _num(r['own_effect']), _num(r['own_lo']), _num(r['own_hi']))}"
    return text


def instrument_facts(folder):
    """An instrument run's answer in words and one table (``sets.csv``: an instrument per row, a player
    count and judge per column), from the report's own tables (``instrument_answer.csv``, the verdict
    and the measure its sentence names per instrument, player count and judge; ``instrument_judges.csv``,
    the strong judge's effect minus the weak one's and its test)."""
    folder = Path(folder)
    if not (folder / "instrument_answer.csv").is_file():
        return {}
    rows = _read_csv(folder / "instrument_answer.csv")
    diffs = _read_csv(folder / "instrument_judges.csv") if (folder / "instrument_judges.csv").is_file() else []
    judges = list(dict.fromkeys(_judge(r["lineup"]) for r in rows))
    counts = sorted({int(r["players"]) for r in rows})
    insts = list(dict.fromkeys((r["instrument"], r["department"]) for r in rows))
    by = {(r["instrument"], int(r["players"]), _judge(r["lineup"])): r for r in rows}

    cols = [(p, j) for p in counts for j in judges if any((i, p, j) in by for i, _ in insts)]
    with open(folder / "sets.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["instrument", *[f"{p}p {j}" for p, j in cols]])
        for inst, dept in insts:
            w.writerow([f"{inst} ({dept})", *[_cell_words(by[(inst, p, j)]) if (inst, p, j) in by else ""
                                              for p, j in cols]])

    facts = {"judges": _and(judges), "weak": judges[0], "strong": judges[-1], "players": _players(counts)}
    verdicts = [r["verdict"] for r in rows]
    facts["verdicts"] = (f"{len(verdicts)} verdicts ({len(insts)} instruments x {len(counts)} player counts x "
                         f"{len(judges)} judges): {verdicts.count(OUT)} out of line, {verdicts.count(IN_LINE)} in line, "
                         f"{len(verdicts) - verdicts.count(OUT) - verdicts.count(IN_LINE)} {UNDECIDED}")

    # Out of line everywhere: at every player count for every judge.
    every = [(i, d) for i, d in insts if all(by.get((i, p, j), {}).get("verdict") == OUT for p, j in cols)]
    sents = []
    for inst, dept in every:
        mine = [by[(inst, p, j)] for p, j in cols]
        ref = mine[0]["reference"]
        parts = {}
        for r in mine:  # the measure each verdict's sentence names, by player count
            parts.setdefault((r["measure"], r["who"] or ""), []).append(r)
        said = []
        for (m, who), rs in parts.items():
            k, unit = (100.0, " pp") if m in RATES else (1.0, "")
            eff = sorted(k * _num(r["effect"]) for r in rs)
            if eff[0] > 0 or eff[-1] < 0:
                lo, hi = sorted((abs(eff[0]), abs(eff[-1])))
                span = f"{lo:.1f}{unit}" if f"{lo:.1f}" == f"{hi:.1f}" else f"{lo:.1f} to {hi:.1f}{unit}"
                span += " more" if eff[0] > 0 else " fewer"
            else:
                span = f"{eff[0]:+.1f} to {eff[-1]:+.1f}{unit}"
            where = _players({int(r["players"]) for r in rs})
            said.append(f"{span} {_label(LONG, m, who)}{' than ' + ref if not said else ''} at {where}")
        sents.append(f"{inst} ({dept}): {', '.join(said)}")
    facts["everywhere"] = (f"out of line at {_players(counts)} for {_and(judges)} alike: " + "; ".join(sents)
                           if every else f"out of line at {_players(counts)} for {_and(judges)} alike: none")
    facts["everywhere_names"] = _and([i for i, _ in every]) or "none"

    # Does the strong judge read the effect of those instruments otherwise? The report's test of the
    # difference, on the measure the answer names.
    tests = {}
    for d in diffs:
        tests[(d["instrument"], int(d["players"]), d["measure"], d.get("who") or "")] = d
    leads = []
    for inst, _ in every:
        parts = {}
        for p in counts:
            r = by.get((inst, p, judges[-1]))
            d = r and tests.get((inst, p, r["measure"], r["who"] or ""))
            if not d:
                continue
            if d["test"] == "shown":
                word = "larger" if abs(_num(d["strong_effect"])) > abs(_num(d["weak_effect"])) else "smaller"
                key = f"shown {word}"
            elif d["test"] == "agree":
                key = "shown the same within the margin"
            else:
                key = "not shown to differ"
            parts.setdefault(key, []).append((p, _fig(d["measure"], _num(d["diff"]), _num(d["lo"]), _num(d["hi"]))))
        if parts:
            said = "; ".join(f"{k} at {_players([p for p, _ in v])} ({', '.join(f for _, f in v)})"
                             for k, v in parts.items())
            leads.append(f"{inst}'s lead under {judges[-1]} against {judges[0]}: {said}")
    facts["strong_lead"] = ". ".join(leads) if leads else "no instrument is out of line everywhere to compare"

    # Where the judges disagree: decided verdicts that differ between the weakest and strongest judge.
    groups = {}
    for inst, dept in insts:
        for p in counts:
            a, b = by.get((inst, p, judges[0])), by.get((inst, p, judges[-1]))
            if not a or not b or a["verdict"] == b["verdict"]:
                continue
            groups.setdefault((a["verdict"], b["verdict"]), []).append((p, inst, a, b))
    said = []
    for (va, vb), items in sorted(groups.items(), key=lambda kv: (set(kv[0]) != {OUT, IN_LINE}, kv[0])):
        per = {}
        for p, inst, a, b in items:
            d = tests.get((inst, p, a["measure"], a["who"] or ""))
            shown = {"shown": "the difference shown", "agree": "the difference within the margin"}.get(
                d["test"] if d else "", "the difference not shown")
            per.setdefault(p, []).append(f"{inst} ({_label(SHORT, a['measure'], a['who'])} "
                                         f"{_fig(a['measure'], _num(a['effect']), _num(a['lo']), _num(a['hi']))} "
                                         f"against {_fig(b['measure'], _num(b['effect']), _num(b['lo']), _num(b['hi']))}; "
                                         f"{shown})")
        where = "; ".join(f"at {p} players {_and(v)}" for p, v in sorted(per.items()))
        said.append(f"{_word(va)} for {judges[0]} and {_word(vb)} for {judges[-1]}: {where}")
    facts["disagree"] = ". ".join(s[0].upper() + s[1:] for s in said) if said else \
        f"the judges' verdicts agree on every instrument and player count"
    n_decided_differ = sum(len(v) for k, v in groups.items() if set(k) == {OUT, IN_LINE})
    facts["disagree_count"] = n_decided_differ
    facts["differ_count"] = sum(len(v) for v in groups.values())

    # The reference the odd one: the report's own sentences say so.
    odd = {}
    rep = (folder / "report.txt").read_text(encoding="utf-8") if (folder / "report.txt").is_file() else ""
    for m in re.finditer(r"^\s+\S.*? at (\d) players .*?so does every other (\w+) instrument for ([^:]+): "
                         r"(\w+), the reference, is the odd one", rep, re.M):
        odd.setdefault(m.group(4), {}).setdefault(int(m.group(1)), set()).update(
            _judge(x) for x in re.split(r", | and ", m.group(3)))
    facts["reference_odd"] = "; ".join(
        f"{ref} at {_and([f'{p} players ({_and(sorted(js, key=judges.index))})' for p, js in sorted(ps.items())])}"
        for ref, ps in odd.items()) or "no reference is the odd one of its department"
    return {"instruments": facts}


def proof_facts(folder):
    """The strong judge's proof per setting (``proof.csv``) and in words, from the run's manifest."""
    folder = Path(folder)
    path = folder / "manifest.json"
    if not path.is_file():
        return {}
    seq = json.loads(path.read_text(encoding="utf-8")).get("sequential") or {}
    rec = seq.get("proof") if isinstance(seq, dict) else None
    settings = [s for s in (rec or {}).get("settings") or [] if isinstance(s, dict)]
    if not settings:
        return {}
    strong, ref = rec.get("strong"), rec.get("reference")
    with open(folder / "proof.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["setting", "players", f"{strong} against {ref}", "share of the wins [interval]", "fair", "deals"])
        for s in settings:
            w.writerow([s.get("setting", ""), s["players"], s["verdict"],
                        f"{100 * s['share']:.1f}% [{100 * s['lo']:.1f}, {100 * s['hi']:.1f}]",
                        f"{100 * s['fair']:.1f}%", f"{s['deals']:,}"])
    shown = [s for s in settings if s["verdict"] == "stronger"]
    rest = [s for s in settings if s["verdict"] != "stronger"]
    facts = {
        "strong": strong, "reference": ref, "settings": len(settings), "shown": len(shown),
        "spent": round(float(rec.get("seconds_spent") or 0), 1), "budget": round(float(rec.get("seconds") or 0)),
        "cpu_s": round(float(rec.get("cpu_seconds") or 0)),
        "line": (f"{strong} is shown stronger than {ref} on "
                 + (f"every one of the {len(settings)} settings" if not rest else f"{len(shown)} of {len(settings)} settings")),
    }
    if rest:
        facts["line"] += "; not on " + "; ".join(
            f"{s.get('setting', '')} at {s['players']} players ({s['verdict']}: {100 * s['share']:.1f}% of the wins "
            f"[{100 * s['lo']:.1f}, {100 * s['hi']:.1f}] against a fair {100 * s['fair']:.1f}%, {s['deals']:,} deals)"
            for s in rest) + f", where every verdict of {strong} rests on an unproven judge"
    return {"proof": facts}


def cost_facts(folder):
    """Each judge's CPU per game as the run's workers measured it (``sequential.measured``, over all its
    cells), and as a multiple of greedy's: ``{"cost": {"search_leaf": {"ms": 22.4, "x_greedy": 44.8}}}``."""
    path = Path(folder) / "manifest.json"
    if not path.is_file():
        return {}
    seq = json.loads(path.read_text(encoding="utf-8")).get("sequential") or {}
    measured = seq.get("measured") if isinstance(seq, dict) else None
    if not isinstance(measured, dict):
        return {}
    ms = {j: 1000 * float(m.get("cpu_seconds") or 0) / m["games"] for j, m in measured.items()
          if isinstance(m, dict) and m.get("games")}
    base = ms.get("greedy")
    out = {j: {"ms": round(v, 1), **({"x_greedy": round(v / base, 1)} if base else {})} for j, v in ms.items()}
    return {"cost": out} if out else {}


def derived_facts(folder):
    """The facts written from a run's kept files rather than from its playing (also ``--derive``)."""
    return {**instrument_facts(folder), **proof_facts(folder), **cost_facts(folder)}


def _jobs_of(args):
    for i, a in enumerate(args[:-1]):
        if a in ("--jobs", "-j"):
            return int(args[i + 1])
    return os.cpu_count()


def _minutes(seconds):
    s = round(seconds)
    return f"{s // 60} min {s % 60} s" if s >= 60 else f"{s} s"


def _number(text):
    return int(text.replace(",", ""))


def _printed_facts(run_out, rep_out):
    """Figures the run's own summary line states (games, cells decided), read where it prints them."""
    facts = {}
    m = re.search(r"([\d,]+) games in (\d+) cells", run_out)
    if m:
        facts.setdefault("games", _number(m.group(1)))
        facts["cells"] = _number(m.group(2))
    m = re.search(r"(\d+) of (\d+) cells decided", run_out)
    if m:
        facts["decided"] = _number(m.group(1))
    m = re.search(r"(\d+) of (\d+) (instrument|variant) verdicts decided", run_out)
    if m:
        facts["verdicts_decided"], facts["verdicts"] = _number(m.group(1)), _number(m.group(2))
        facts["verdicts_kind"] = m.group(3)
    # The run's own budget line (a proof's line, "15.978 of 55 declared CPU seconds", is not it).
    m = re.search(r"(?<![\d.,])([\d,]+) of ([\d,]+) declared CPU s(?!econds)", run_out + rep_out)
    if m:
        facts["declared_spent"] = _number(m.group(1))
        facts["declared_budget"] = _number(m.group(2))
    return facts


def screenshot(html, png, width=1366, height=900):
    """The first screen of a report, as a reader's browser shows it (headless Chromium)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}",
                 "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
                 "--hide-scrollbars"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=opts)
    try:
        driver.get(Path(html).resolve().as_uri())
        inner = driver.execute_script("return window.innerHeight")
        if inner and inner != height:  # the page's own area, not the window's, is width x height
            driver.set_window_size(width, 2 * height - inner)
        time.sleep(1)
        driver.save_screenshot(str(png))
    finally:
        driver.quit()


# --------------------------------------------------------------------------- the command
def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m docs._hooks.findings", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rerun", action="store_true", help="play every run (or those named) again first: slow")
    ap.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 when a page differs from its source")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes of each run (default: run.toml's)")
    ap.add_argument("--keep", default=None, help="play in this folder and keep it (default: a temporary one)")
    ap.add_argument("--derive", action="store_true",
                    help="write each run's facts from its kept files again (its words and tables), playing nothing")
    ap.add_argument("runs", nargs="*", help="runs to play again (default: every folder of docs/runs)")
    a = ap.parse_args(argv)
    if a.derive:
        for name in a.runs or sorted(p.parent.name for p in RUNS.glob("*/facts.json")):
            path = RUNS / name / "facts.json"
            if not path.is_file():
                print(f"error: docs/runs/{name}/facts.json: no such run (make findings RERUN=1 plays it)", file=sys.stderr)
                return 2
            facts = json.loads(path.read_text(encoding="utf-8"))
            facts.update(derived_facts(RUNS / name))
            path.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if a.check:
        bad = check()
        for line in bad:
            print(line, file=sys.stderr)
        if bad:
            print(f"{len(bad)} generated figure(s) differ from their runs: `{FIX}` writes them again", file=sys.stderr)
            return 1
        print("every generated figure is its run's")
        return 0
    if a.rerun:
        names = a.runs or sorted(p.parent.name for p in RUNS.glob("*/run.toml"))
        for name in names:
            if not (RUNS / name / "run.toml").is_file():
                print(f"error: docs/runs/{name}/run.toml: no such run", file=sys.stderr)
                return 2
        for name in names:
            rerun(name, jobs=a.jobs, keep=(Path(a.keep) / name) if a.keep else None)
    changed, problems = write_pages()
    for p in problems:
        print(p, file=sys.stderr)
    for p in changed:
        print(f"wrote {_rel(p)}")
    return 2 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
