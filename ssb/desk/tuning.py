""""Which number should I change?" from the designer's own problem: a target picked from a report (a
seat's edge at a player count for a judge, an instrument's objective points) and the keys to vary,
pre-filled from the file being edited, written as a tuning file for ``ssb tune`` in a folder of the
desk's own (``results/desk/tune-<file>-<time>/``: ``tune.toml`` and the ``scenario.toml`` it plays,
the designer's files as its base), with an estimate of the duration from the judges' declared costs
before it starts.

A target from greedy play is searched with greedy mirrors (every candidate checked at the end by a
few strong games); a target from strong play is judged at strong play: ``ssb tune``'s race mode
(``[search] method = "race"``, a budget of declared CPU seconds, candidates judged by greedy and the
strong judge, most dropped after few deals)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import tomlkit

TUNE_FILE = "tune.toml"
SCENARIO_FILE = "scenario.toml"
TARGET_MARGIN = 0.03  # a seat is fair within 3 pp of 1/players (the report's margin)
POINTS_MARGIN = 15  # objective points per game from its department's other instruments
MAX_KEYS = 12  # keys a search of the desk varies at most (the search grows with every key)
MAX_TRIALS = 64
MAX_SECONDS = 36_000  # a race's declared CPU seconds at most (ten hours)
SEARCH_RUNGS = [300, 1200]
CONFIRM_GAMES = 2000
CONFIRM_MAX = 2
STRONG_GAMES = 40
OVERHEAD_S = 1.5  # seconds of a candidate's own work besides its games (its scenario, the race's bookkeeping)
START_S = 20  # seconds before the first candidate: loading the kernel, the verdicts before the change
RACE_DEALS = 100_000  # a race's deals per cell at most (the starter run's cap)
# CPU seconds a race measured per declared second (ssb tune on a desk race at 3 players, greedy and the
# strong judge, --jobs 1: 36 CPU s for 26 declared s).
MEASURED_PER_DECLARED = 1.4


@dataclass
class Target:
    """A target the page offers: ``value`` its form value, ``words`` what it says, ``strong`` whether
    it is judged at strong play, ``players``, the instrument of a points target."""

    value: str
    words: str
    players: int
    strong: bool = False
    instrument: str = ""
    why: str = ""  # what in a report proposed it
    also: tuple = ()  # more player counts that must be fair (a strong target of several counts)
    guard: tuple = ()  # player counts that must not be made unfair for the strong judge

    @property
    def counts(self):
        return sorted({self.players, *self.also, *self.guard})


def targets(instrument=None, player_counts=(2, 3, 4)):
    """Every target the page offers for a file: each seat fair at each player count, for greedy and
    strong players, and (an instrument's file) its objective points near its department's."""
    out = []
    for p in player_counts:
        out.append(Target(f"seats|{p}|greedy", f"every seat fair at {p} players, greedy players (each seat's win "
                                               f"rate within 3 pp of 1/{p})", p))
        out.append(Target(f"seats|{p}|strong", f"every seat fair at {p} players, strong players (judged at strong "
                                               f"play: greedy and {strong_judge()})", p, strong=True))
    if len(player_counts) >= 3:
        a, b, rest = player_counts[-2], player_counts[-1], tuple(player_counts[:-2])
        out.append(Target(f"seats|{a}+{b}|strong", f"every seat fair at {a} and {b} players for greedy and strong "
                                                    f"players, {' and '.join(map(str, rest))} players not made unfair "
                                                    "for strong players (the question of the shipped seat search)",
                          a, strong=True, also=(b,), guard=rest))
    if instrument:
        for p in player_counts:
            out.append(Target(f"points|{instrument}|{p}", f"{instrument}'s objective points within {POINTS_MARGIN} a "
                                                          f"game of its department's other instruments at {p} players",
                              p, instrument=instrument))
    return out


def from_report(answer, instrument=None):
    """Targets a check's answer proposes, most pressing first: a seat win rate that moved (or is
    undecided) at a player count for a judge; the instrument's objective points that moved."""
    if not answer or answer.get("damaged") or answer.get("lines"):
        return []
    found = []
    for judge, ans in (("strong", answer.get("strong")), ("greedy", answer)):
        if not ans or ans.get("damaged"):
            continue
        for f in ans.get("changed", []):
            players = str(f.get("cell_key", "")).split("|")[0].replace("players=", "")
            if not players.isdigit():
                continue
            label = str(f.get("label", ""))
            word = "moved" if f.get("verdict") == "fail" else "undecided"
            if "win rate" in label:
                found.append((f"seats|{players}|{judge}", f"{label} at {players} players {word} for {judge} players"))
            elif "objective points" in label and instrument and instrument in label:
                found.append((f"points|{instrument}|{players}", f"{label} at {players} players {word}"))
    seen, out = set(), []
    for value, why in found:
        if value not in seen:
            seen.add(value)
            out.append((value, why))
    return out


def parse_target(value, offered):
    """The :class:`Target` a form's value names among ``offered`` (None when it names none)."""
    return next((t for t in offered if t.value == value), None)


def _dots(alt):
    """A form label as a tuning key's path: ``section[trumpet].score[0].awards`` -> ``section.trumpet.score.0.awards``."""
    return re.sub(r"\[([^\]]+)\]", r".\1", alt)


@dataclass
class Key:
    """A number the search may vary: its tuning key, the form's label, its value now, the shipped
    value, and a default range around it."""

    key: str
    label: str
    value: object
    shipped: object
    lo: int = 0
    hi: int = 0
    values: list | None = None  # a lever a shipped search offers with its values (a word, a list per seat)

    @property
    def changed(self):
        return self.shipped is not None and self.shipped != self.value


def _default_range(v):
    step = max(2, abs(v) // 2)
    return max(0, v - step) if v >= 0 else v - step, v + step


def keys_of(ed, fields, shipped):
    """Every whole number of the file being edited as a :class:`Key` (a list of whole numbers: each
    entry), in file order: ``Horns.section.trumpet.score.0.awards.0`` for an instrument,
    ``board.rulings.tie_break`` for the board."""
    prefix = ed.name if ed.kind == "instrument" else "board"
    out = []
    for f in fields:
        old = shipped.get(f.name)
        items = [(f.value, old.value if old else None, "")] if not isinstance(f.value, list) else [
            (v, (old.value[i] if old and isinstance(old.value, list) and i < len(old.value) else None), f".{i}")
            for i, v in enumerate(f.value)]
        for v, was, tail in items:
            if isinstance(v, bool) or not isinstance(v, int):
                continue
            if isinstance(was, bool) or not isinstance(was, int):
                was = None
            lo, hi = _default_range(v)
            out.append(Key(f"{prefix}.{_dots(f.alt)}{tail}", f"{f.alt}{'[' + tail[1:] + ']' if tail else ''}", v,
                           was, lo, hi))
    taken = {k.key for k in out}
    return out + [k for k in shipped_levers(prefix, fields) if k.key not in taken]


# The board's levers the desk always offers (beside those the shipped searches vary), each with a few
# values a search may try: R13's reading at every count and per count, starting points and a ladder
# token for the first seats at 3 and 4 players.
BOARD_LEVERS = {
    "board.rulings.tie_break": ["latest", "shared", "earliest"],
    "board.seats.tie_break.3": ["latest", "shared", "earliest"],
    "board.seats.tie_break.4": ["latest", "shared", "earliest"],
    "board.seats.start_points.3": [[1, 0, 0], [1, 1, 0], [2, 1, 0]],
    "board.seats.start_points.4": [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [2, 1, 1, 0]],
    "board.seats.start_tokens.4": [[{"ladder": 1}, {}, {}, {}], [{"ladder": 1}, {"ladder": 1}, {}, {}]],
}


def shipped_levers(prefix, fields=()):
    """The keys the shipped searches vary with a list of values (``board.rulings.tie_break``, the seat
    levers ``board.seats.start_points.3``) that start with ``prefix``, as :class:`Key` with those
    values; ``fields``: the file's values, for the value now."""
    from ssb.desk.catalog import package_dir, tunes

    now = {f"{prefix}.{_dots(f.alt)}": f.value for f in fields}
    out = {}
    for key, values in BOARD_LEVERS.items():  # the board's levers, whatever the shipped searches vary
        if key.startswith(prefix + "."):
            out[key] = Key(key, key[len(prefix) + 1:], now.get(key), None, values=list(values))
    for name in tunes():
        try:
            doc = tomllib.loads((package_dir("scenarios") / "tunes" / f"{name}.toml").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key, spec in (doc.get("space") or {}).items():
            if key.startswith(prefix + ".") and isinstance(spec, dict) and isinstance(spec.get("values"), list):
                got = out.setdefault(key, Key(key, key[len(prefix) + 1:], now.get(key), None, values=[]))
                got.values += [v for v in spec["values"] if v not in got.values]
    for k in out.values():
        if k.value is not None and k.value not in k.values:
            k.values.insert(0, k.value)
    return list(out.values())


def scenario_doc(name, players, instrument_dirs=(), board=None, strong=False):
    """The scenario a desk's search plays: the gate's setting (the starter set, greedy mirrors) at the
    target's player count, with the designer's files (``instrument_dirs``, relative to the folder;
    ``board``: the designer's board values as overrides)."""
    doc = {"name": f"{name}-base", "description": "The gate's setting with the designer's files, as the desk's "
                                                    "search starts from it",
           "seed": 1, "games": 1000, "players": [int(p) for p in players] if isinstance(players, (list, tuple))
           else [int(players)], "wheel": "shuffled"}
    if instrument_dirs:
        doc["instrument_dirs"] = list(instrument_dirs)
    doc["instruments"] = {"sets": [["Violin", "Piano", "Horns"]]}
    zone = _starter().get("sequential")
    if strong and isinstance(zone, dict):  # the race judges by the zone test of the lab's starter run
        doc["sequential"] = dict(zone)
    if strong:
        doc["games"] = RACE_DEALS  # deals per cell at most: the race's budget ends it, not this cap
    doc["lineup"] = {"mirror": "greedy"}
    if board:
        doc["overrides"] = {f"board.{k}": v for k, v in board.items()}
    return doc


def tuning_doc(name, target, space, trials, max_keys, seconds=None):
    """The tuning file: ``space`` is ``{key: (lo, hi)}``; a strong target races at strong play within
    ``seconds`` declared CPU seconds."""
    doc = {"name": name, "description": f"The desk's search: {target.words}", "scenario": SCENARIO_FILE, "seed": 1}
    if target.strong:
        judges = ["greedy", strong_judge()]
        doc["judges"] = {"race": judges}
        costs = declared_costs()
        doc["search"] = {"method": "race", "seconds": int(seconds), "max_keys": int(max_keys),
                         "cost": {j: costs[j] for j in judges if j in costs}}
        doc["target"] = [{"kind": "seats_fair", "players": [target.players, *target.also], "judges": judges}]
        if target.guard:
            doc["target"].append({"kind": "seats_not_unfair", "players": list(target.guard), "judges": judges[-1:]})
    else:
        doc["judges"] = {"search": {"mirror": "greedy"}, "strong": {"mirror": "search"}, "strong_games": STRONG_GAMES,
                         "strong_rule": "not_fail"}
        doc["search"] = {"max_keys": int(max_keys), "trials": int(trials), "restarts": 1, "rungs": list(SEARCH_RUNGS),
                         "batch": 2, "confirm_games": CONFIRM_GAMES, "confirm_max": CONFIRM_MAX}
        if target.instrument:
            doc["target"] = [{"kind": "objective_vs_department", "instrument": target.instrument,
                              "margin": POINTS_MARGIN, "players": [target.players]}]
        else:
            doc["target"] = [{"kind": "seats_balanced", "players": [target.players], "margin": TARGET_MARGIN}]
    doc["space"] = {k: ({"values": list(v)} if isinstance(v, list) else {"range": [int(v[0]), int(v[1])]})
                    for k, v in space.items()}
    return doc


def dumps(doc, comment=""):
    text = tomlkit.dumps(doc)
    return (f"# {comment}\n" if comment else "") + text


def _starter():
    from ssb.desk.catalog import package_dir

    try:
        return tomllib.loads((package_dir("scenarios") / "starter.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def declared_costs():
    """CPU milliseconds per game of each judge, as the starter scenario declares them (measured)."""
    try:
        return {str(k): float(v) for k, v in _starter()["sequential"]["cost"].items()}
    except (KeyError, ValueError, TypeError, AttributeError):
        return {}


def strong_judge():
    """The strong judge of a race at strong play: the starter scenario's strongest mirror (its last)."""
    mirror = _starter().get("lineup", {}).get("mirror", [])
    return str(mirror[-1]) if isinstance(mirror, list) and mirror else str(mirror or "search")


def estimate(doc, workers):
    """``(low_seconds, high_seconds, words)``: the search's duration on ``workers`` processes, from the
    judges' declared costs (greedy 0.3 ms a game ...) and the search's own settings or budget."""
    costs = declared_costs()
    workers = max(1, int(workers))
    s = doc["search"]
    keys = len(doc["space"])
    if s.get("method") == "race":
        seconds = float(s["seconds"])
        low = START_S + seconds * MEASURED_PER_DECLARED / workers / 4
        high = START_S + seconds * MEASURED_PER_DECLARED / workers
        strong = strong_judge()
        words = (f"at most {seconds:,.0f} declared CPU seconds (greedy {costs.get('greedy', 0.3)} ms and "
                 f"{strong} {costs.get(strong, 20.0)} ms a game; about {MEASURED_PER_DECLARED} CPU s measured a declared "
                 f"second), shared by {workers} worker"
                 f"{'s' * (workers != 1)}; a race that decides early stops sooner")
        return low, high, words
    per_k = range(1, int(s["max_keys"]) + 1)
    candidates = planned(doc)
    rungs = s["rungs"]
    g = costs.get("greedy", 0.3) / 1000
    strong = costs.get("search", 17.0) / 1000
    confirm = int(s["confirm_games"]) * int(s["confirm_max"]) * g + int(doc["judges"].get("strong_games", 0)) * strong * 3
    low = START_S + candidates * (rungs[0] * g + OVERHEAD_S) / workers + confirm / workers
    high = START_S + candidates * (sum(rungs) * g + OVERHEAD_S) / workers + confirm * len(per_k) / workers
    words = (f"{candidates} candidates at most ({keys} key{'s' * (keys != 1)}, up to {s['max_keys']} changed at once), "
             f"each raced on {rungs[0]:,} then {rungs[-1]:,} games (greedy {costs.get('greedy', 0.3)} ms a game) "
             f"plus about {OVERHEAD_S} s of its own, a winner confirmed on {int(s['confirm_games']):,} fresh games "
             f"and {doc['judges'].get('strong_games', 0)} strong games ({costs.get('search', 17.0)} ms a game), "
             f"about {START_S} s to start, on {workers} worker{'s' * (workers != 1)}")
    return low, high, words


def _space_size(space, k):
    import math

    sizes = sorted((len(v["values"]) if "values" in v else int(v["range"][1]) - int(v["range"][0]) + 1
                    for v in space.values()), reverse=True)
    return math.prod(sizes[:k]) * math.comb(len(sizes), k) if len(sizes) >= k else 0


def duration_range(low, high):
    """``about 2 min`` / ``about 2 to 5 min`` / ``under a minute to about 3 min``."""
    a, b = duration(low), duration(high)
    if a == b:
        return b
    if a.startswith("about") and b.startswith("about") and a.split()[-1] == b.split()[-1]:
        return f"{a.rsplit(' ', 1)[0]} to {b.split()[1]} {b.split()[-1]}"
    return f"{a} to {b.removeprefix('about ')}" if a != "under a minute" else f"under a minute to {b.removeprefix('about ')}"


def duration(seconds):
    """``about 4 min`` / ``about 1.5 h`` / ``under a minute``."""
    if seconds < 60:
        return "under a minute"
    if seconds < 5400:
        return f"about {seconds / 60:.0f} min"
    return f"about {seconds / 3600:.1f} h"


def study_progress(folder, rungs=None):
    """How far a search of today's kind is, read from its ``study.db`` (read only): candidates tried,
    dropped before the last rung, met, the best met so far. None before the study is written."""
    import json
    import sqlite3

    path = Path(folder) / "study.db"
    if path.is_symlink() or not path.is_file():
        return None
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            rows = con.execute("SELECT trial_id, key, value_json FROM trial_user_attributes "
                               "WHERE key IN ('candidate', 'state', 'rung', 'keys', 'change')").fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    trials = {}
    for tid, key, value in rows:
        try:
            trials.setdefault(tid, {})[key] = json.loads(value)
        except ValueError:
            continue
    last = len(rungs or SEARCH_RUNGS) - 1
    cands = {}
    for t in trials.values():
        if "candidate" in t:
            cands[str(t["candidate"])] = t
    dropped = sum(1 for t in cands.values() if t.get("state") in ("unmet", "refused") and int(t.get("rung", last) or 0) < last)
    met = [t for t in cands.values() if t.get("state") == "met"]
    best = min(met, key=lambda t: (t.get("keys", 0), t.get("change", 0.0), str(t.get("candidate"))), default=None)
    best_words = None
    if best:
        try:
            best_words = ", ".join(f"{k} = {v}" for k, v in json.loads(best["candidate"]))
        except (ValueError, TypeError):
            best_words = str(best["candidate"])
    out = {"tried": len(cands), "dropped": dropped, "met": len(met), "best": best_words or "none met the target yet"}
    try:
        doc = tomllib.loads((Path(folder) / TUNE_FILE).read_text(encoding="utf-8"))
        out["planned"] = planned(doc)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return out


def planned(doc):
    """The most candidates a search of today's kind tries (each number of keys, each restart)."""
    s = doc["search"]
    return sum(min(int(s["trials"]), _space_size(doc["space"], k)) for k in range(1, int(s["max_keys"]) + 1)) * int(
        s.get("restarts", 1))
