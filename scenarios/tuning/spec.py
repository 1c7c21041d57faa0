"""Balance search: the smallest change of the designer's data that meets a target (``ssb tune``).

A *tuning file* (TOML, beside the scenario it tunes) names a scenario, the judges (lineups of
named strategies), the targets (verdicts the report computes) and a search space of data keys::

    name = "first-player-2p"          # required: names the output folder results/tune/<name>
    description = "..."               # optional
    scenario = "starter"              # required: scenario file (relative to this file) or shipped name
    seed = 1                          # required: seeds the search, its deals and the fresh deals
    confidence = 0.95                 # optional: of every verdict and interval

    [judges]
    search = { mirror = "greedy" }    # required: the lineup the search plays (a scenario [lineup])
    strong = { mirror = "lookahead" } # optional: a lineup (or a list of them) that must confirm the fix
    strong_games = 600                # optional: games per cell under each strong judge (default 1000)
    strong_rule = "meet"              # optional: "meet" (default) or "not_fail" (no target shown failing)

    [search]                          # all optional
    max_keys = 2                      # at most this many keys changed at once (default 2)
    trials = 24                       # candidates asked per number of keys and restart (default 24)
    restarts = 3                      # independent restarts: own sampler seed, own deals (default 3)
    rungs = [500, 2000]               # games per cell of each racing rung (default [500, 2000])
    batch = 2                         # candidates played together (default 2; fixed, so the
                                      #   answer does not depend on --jobs)
    sampler = "tpe"                   # "tpe" (default) or "random"
    confirm_games = 4000              # fresh games per cell that must confirm a winner (default 4000)
    confirm_max = 4                   # winners confirmed per number of keys, smallest first (default 4)

    [[target]]                        # one or more; all must be met
    kind = "seats_balanced"           # every seat within margin of 1/N (the report's seat verdict)
    players = [2]                     # optional: default the scenario's player counts
    margin = 0.03                     # optional, a fraction (default 0.03)
    # kind = "objective_vs_department"; instrument = "Organ"; margin = 5.0   (points per game)
    # kind = "built_rate"; instrument = "Horns"; at_least = 0.5; at_most = 0.9
    # kind = "rounds"; range = [20, 30]

    [space]                           # data keys as in scenario overrides, each a range or values
    "Horns.section.trumpet.score.0.awards.0" = { range = [4, 12] }
    "Horns.instrument.penalty_per_space" = { values = [1, 2, 3] }
    "Organ.section.r5.number" = { range = [3, 9] }
    "Horns.track.vp.3" = { range = [5, 9] }

A scenario of another game (``game = "echidna"``, :mod:`scenarios.generic`) is tuned through the
switches of one of its variants instead (the game declares them with ``Game.tunable``)::

    variant = "rulebook"              # optional: the variant tuned (default the scenario's reference)
    boards = ["forest"]               # optional: the boards searched on (default the scenario's)
    [[target]]
    kind = "stalled"                  # at most this share of games stalled (added at 0.02 if absent)
    at_most = 0.01
    [space]
    "token_schedule.0" = { range = [0, 19] }     # one entry of a list switch
    catch_up = { values = [false] }               # a whole switch

Targets are ``seats_balanced``, ``rounds`` and ``stalled``. A candidate plays the tuned variant
alone, its table changed (:func:`apply_switches`); the answer is the changed scenario file.

**The race** (``[search] method = "race"``, :mod:`scenarios.tuning.race`) judges every candidate by the
sequential zone test of ``ssb run`` (:mod:`stats.zone`, the scenario's ``[sequential]`` margin,
indifference and confidence: the verdicts ``make run`` prints) under mirror judges, within one budget
of declared CPU seconds::

    [judges]
    race = ["greedy", "search_leaf"]  # required: the mirror judges every candidate is judged by

    [search]
    method = "race"                   # "study" (default): the optuna search above
    seconds = 1500                    # required: declared CPU seconds of the whole tune (cost x games)
    cost = { greedy = 0.3, search_leaf = 20.0 }  # optional: CPU milliseconds per game of each judge
                                      #   (default the scenario's [sequential] cost; 1 ms if absent)
    max_keys = 2                      # optional: at most this many keys changed at once (default 2)
    round = { greedy = 2000, search_leaf = 250 }  # optional: deals per open cell in the first
                                      #   round (default about 5 declared CPU seconds, 100 to 2000);
                                      #   each round doubles it as the candidates are halved
    keep = 0.5                        # optional: the share of candidates a round keeps racing
    games = 20000                     # optional: deals per cell at most (default the scenario's games)

    [[target]]
    kind = "seats_fair"               # every seat decided fair by the zone test
    players = [3, 4]
    judges = ["greedy", "search_leaf"]  # optional: default every race judge
    [[target]]
    kind = "seats_not_unfair"         # the constraint: no seat decided unfair
    players = [2]
    judges = ["search_leaf"]

    [space]                           # instrument keys, or board keys: the R13 reading, seat levers
    "board.rulings.tie_break" = { values = ["earliest", "shared"] }
    "board.seats.start_points.3" = { values = [[1, 0, 0], [2, 1, 0]] }

A race target is ``seats_fair`` or ``seats_not_unfair``; a cell is one (player count, judge). The
race writes ``DIR/progress.json`` after every round, so a page can show honest progress::

    {"round": 3, "candidates": 20, "tried": 20, "racing": 5, "dropped": 9, "met": 0,
     "best": {"changes": {"board.rulings.tie_break": "earliest"}, "keys": 1, "change": 1.0,
              "cells": {"3p search_leaf": "undecided", ...}},
     "seconds_spent": 412.5, "seconds": 1500, "state": "racing"}   # then "met" or "budget"

and continues exactly with ``--resume`` (the same rounds, deals and answer).

A candidate is a set of (key, value) changes; it is applied through the scenario's ``[overrides]``,
so the instrument loader validates it exactly as it validates a what-if scenario. Integer data
takes integer ranges. *Smallest* means fewest keys changed, then the least total change, each
key's change measured as ``|new - old| / (hi - lo)`` of its range (or of its listed values; a
change of a non-numeric value counts 1).

The search itself is :mod:`scenarios.tuning.search`, its candidates and their games
:mod:`scenarios.tuning.candidates`, the search space :mod:`scenarios.tuning.space`, the answer's
changed files :mod:`scenarios.tuning.answer`.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from simulator.provenance import code_version
from scenarios.spec import SCENARIO_DIR, find_scenario, find_shipped_file, parse_set
from simulator.setting_api import flatten_overrides
from scenarios.load import scenario_from_doc
from simulator import games as registry
from simulator.errors import DataError
from simulator.seeds import MAX_SEED
from simulator.validate import Checker, read_toml
from scenarios.tuning.space import is_number, space_param, switch_game, switch_param

TOP_KEYS = ("name", "description", "scenario", "seed", "confidence", "judges", "search", "target", "space")
# Only for a scenario of another game (scenarios.generic): the variant tuned, the boards searched on.
GAME_KEYS = ("variant", "boards")
REQUIRED_KEYS = ("name", "scenario", "seed", "judges", "target", "space")
JUDGE_KEYS = ("search", "strong", "strong_games", "strong_rule", "race")
METHODS = ("study", "race")
# The race's [search] keys (method = "race") and its targets: kind -> (required, optional).
RACE_KEYS = ("method", "seconds", "cost", "max_keys", "round", "keep", "games")
RACE_TARGET_FIELDS = {
    "seats_fair": ((), ("players", "judges", "label")),
    "seats_not_unfair": ((), ("players", "judges", "label")),
}
RACE_ROUND_SECONDS = 5.0  # declared CPU seconds of a cell's first round, when its judge's round is not given
STRONG_RULES = ("meet", "not_fail")
SEARCH_DEFAULTS = {
    "max_keys": 2,
    "trials": 24,
    "restarts": 3,
    "rungs": [500, 2000],
    "batch": 2,
    "sampler": "tpe",
    "confirm_games": 4000,
    "confirm_max": 4,
}
SAMPLERS = ("tpe", "random")
TARGET_FIELDS = {
    # kind: (required, optional)
    "seats_balanced": ((), ("players", "margin", "label")),
    "objective_vs_department": (("instrument", "margin"), ("players", "label")),
    "built_rate": (("instrument",), ("players", "at_least", "at_most", "label")),
    "rounds": (("range",), ("players", "label")),
    "stalled": ((), ("players", "at_most", "label")),
}
# What a game other than the first can be judged on (it has no instruments).
GAME_TARGETS = ("seats_balanced", "rounds", "stalled")
# The stall target added to another game's search when the file names none: its seat section
# leaves stalled games out, so a candidate that stalls often would otherwise look balanced.
DEFAULT_STALLED = 0.02
MAX_GAMES = 10_000_000


# =========================================================================== the tuning file


@dataclass
class Judge:
    """A skill level: a lineup table (as in a scenario's [lineup]) and its label."""

    label: str
    lineup: dict
    role: str  # "search" | "strong"


@dataclass
class TuneSpec:
    """A validated tuning file."""

    path: str
    doc: dict
    text: str
    sha256: str
    name: str
    description: str
    seed: int
    confidence: float
    scenario: object  # scenarios.scenario.Scenario (as written)
    params: tuple
    targets: tuple  # dicts: kind, label, players, + kind's fields
    search_judge: Judge
    strong_judges: tuple
    strong_games: int
    strong_rule: str
    settings: dict
    method: str = "study"
    # The race (method = "race"): its mirror judges (Judge, in the file's order) and the zone test's
    # settings (the scenario's [sequential]: test, margin, indifference, confidence).
    race_judges: tuple = ()
    zone: dict = None
    set_args: tuple = ()
    # A scenario of another game (scenarios.generic): its name, the variant tuned (its table as
    # written) and the boards searched on; None / () for Shuffle and Swing.
    game: str | None = None
    variant: str | None = None
    boards: tuple = ()

    @property
    def variant_table(self):
        """The tuned variant's table as the scenario writes it (another game only)."""
        return self.scenario.doc["variants"][self.variant] if self.game else None

    @property
    def players(self):
        """Player counts the targets are judged at."""
        return tuple(sorted({n for t in self.targets for n in t["players"]}))

    def identity(self):
        """What a stored study must match to be resumed."""
        data = self.scenario.data_files()
        return {
            "tuning_sha256": self.sha256,
            "scenario_sha256": self.scenario.sha256,
            "data": {
                "board": data["board"]["sha256"],
                **{k: v["sha256"] for k, v in data["instruments"].items()},
                **{k: v["sha256"] for k, v in data["strategies"].items()},
            },
            "kernel_sha256": code_version(self.scenario.game)["kernel_sha256"],
        }


def _find_scenario(raw, base_dir):
    p = Path(raw)
    if not p.is_absolute() and (base_dir / p).is_file():
        return base_dir / p
    return find_scenario(raw)


def _target(ck, raw, i, scenario, path, game=None):
    key = f"target[{i}]"
    ck.table(raw, key, required=("kind",), optional=("kind", *{f for v in TARGET_FIELDS.values() for f in v[0] + v[1]}))
    kind = ck.string(raw["kind"], f"{key}.kind", choices=tuple(TARGET_FIELDS))
    if game is not None and kind not in GAME_TARGETS:
        ck.fail(f"{key}.kind", f"'{kind}' judges an instrument; {game.title} has none (targets: {', '.join(GAME_TARGETS)})")
    counts = tuple(registry.get(scenario.game).player_counts)  # the scenario's game's
    required, optional = TARGET_FIELDS[kind]
    ck.table(raw, key, required=("kind", *required), optional=optional)
    t = {"kind": kind}
    raw_players = raw.get("players", list(scenario.players))
    if isinstance(raw_players, int) and not isinstance(raw_players, bool):
        raw_players = [raw_players]
    players = ck.int_list(raw_players, f"{key}.players", min_len=1)
    for j, n in enumerate(players):
        if n not in counts:
            listed = f"{', '.join(map(str, counts[:-1]))} or {counts[-1]}"
            ck.fail(f"{key}.players[{j}]", f"{n} players is not supported ({listed})")
    t["players"] = tuple(sorted(set(players)))
    pl = "/".join(str(n) for n in t["players"])
    if kind == "seats_balanced":
        m = raw.get("margin", 0.03)
        if not is_number(m) or not 0 < m < 0.5:
            ck.fail(f"{key}.margin", f"a fraction between 0 and 0.5 (0.03 = 3 percentage points), got {m!r}")
        t["margin"] = float(m)
        label = f"every seat within {100 * m:g} pp of 1/N at {pl} players"
    elif kind in ("objective_vs_department", "built_rate"):
        try:
            inst = scenario.instruments.get(ck.string(raw["instrument"], f"{key}.instrument"))
        except DataError as exc:
            ck.fail(f"{key}.instrument", exc.reason)
        t["instrument"], t["department"] = inst.name, inst.department_name
        sets = [s for s in scenario.sets if inst.name in s]
        if not sets:
            ck.fail(f"{key}.instrument", f"the scenario plays no instrument set with {inst.name}")
        if kind == "objective_vs_department":
            m = raw["margin"]
            if not is_number(m) or m <= 0:
                ck.fail(f"{key}.margin", f"points per game, above 0, got {m!r}")
            t["margin"] = float(m)
            d = inst.department
            ctx = {s[:d] + s[d + 1 :] for s in sets}
            if not any(s[d] != inst.name and s[:d] + s[d + 1 :] in ctx for s in scenario.sets):
                ck.fail(
                    f"{key}.instrument",
                    f"the scenario plays no other {inst.department_name} instrument beside {inst.name} with the "
                    f"same instruments in the other departments: nothing to compare with "
                    f'(use instruments.swaps = ["{inst.department_name}"])',
                )
            label = f"{inst.name} objective points within {m:g} of the other {inst.department_name} instruments at {pl} players"
        else:
            lo = raw.get("at_least", 0.0)
            hi = raw.get("at_most", 1.0)
            if "at_least" not in raw and "at_most" not in raw:
                ck.fail(key, "give at_least and/or at_most (fractions of games)")
            for name, v in (("at_least", lo), ("at_most", hi)):
                if not is_number(v) or not 0 <= v <= 1:
                    ck.fail(f"{key}.{name}", f"a fraction of games between 0 and 1, got {v!r}")
            if lo >= hi:
                ck.fail(key, f"at_least {lo} must be below at_most {hi}")
            t["at_least"], t["at_most"] = float(lo), float(hi)
            band = " and ".join(
                x for x in (f"at least {100 * lo:g}%" if "at_least" in raw else "", f"at most {100 * hi:g}%" if "at_most" in raw else "") if x
            )
            label = f"{inst.name} built in {band} of games at {pl} players"
    elif kind == "stalled":
        m = raw.get("at_most", DEFAULT_STALLED)
        if not is_number(m) or not 0 < m < 1:
            ck.fail(f"{key}.at_most", f"a fraction of games between 0 and 1 (0.02 = 2%), got {m!r}")
        t["at_most"] = float(m)
        label = f"at most {100 * m:g}% of games stalled at {pl} players"
    else:
        r = ck.array(raw["range"], f"{key}.range", min_len=2, max_len=2, what="bounds")
        for j, v in enumerate(r):
            if not is_number(v) or v < 0:
                ck.fail(f"{key}.range[{j}]", f"expected a number of rounds, got {v!r}")
        if not r[0] < r[1]:
            ck.fail(f"{key}.range", f"the lower bound {r[0]} must be below the upper bound {r[1]}")
        t["range"] = (float(r[0]), float(r[1]))
        label = f"{r[0]:g} to {r[1]:g} rounds per game at {pl} players"
    t["label"] = ck.string(raw["label"], f"{key}.label") if "label" in raw else label
    return t


def _judge(ck, raw, key, role, scenario, path):
    """A lineup table validated as the scenario's [lineup] would be, errors naming the tuning file."""
    if isinstance(raw, str):
        raw = {"mirror": raw}
    ck.table(raw, key, optional=("mirror", "seats", "round_robin"))
    try:
        sc = scenario_from_doc({**scenario.doc, "lineup": raw}, scenario.path)
    except DataError as exc:
        reason = exc.reason
        sub = exc.key.removeprefix("lineup").lstrip(".")
        ck.fail(f"{key}.{sub}" if sub else key, reason)
    names = sorted({s for c in sc.cells for s in c.lineup})  # every cell's lineup, whatever the game
    return Judge(label=",".join(names), lineup=raw, role=role)


TUNES_DIR = SCENARIO_DIR / "tunes"


def shipped_tunings():
    """Names of the tuning files that come with the package (``scenarios/tunes``)."""
    return sorted(p.stem for p in TUNES_DIR.glob("*.toml") if "target" in read_toml(p))


def find_tuning(name_or_path):
    """A tuning file by path, or by the name of a shipped one (``organ-points``)."""
    found = find_shipped_file(name_or_path, TUNES_DIR, shipped_tunings, "tuning")
    if found is None:
        raise DataError(Path(name_or_path), "", f"tuning file not found (shipped: {', '.join(shipped_tunings())})")
    return found


def load_tuning(path, sets=()):
    """Read, change (``sets``: ``KEY=VALUE``), validate a tuning file; DataError names file and key."""
    path = find_tuning(path)
    doc = read_toml(path)
    if isinstance(doc, dict) and "scenario" not in doc and ("lineup" in doc or "game" in doc or "cells" in doc):
        # A scenario file (what ``ssb run`` reads) given where a tuning file is expected.
        raise DataError(path, "", "is a scenario file (play it with ssb run), not a tuning file: a tuning file "
                                  "names its scenario (scenario = \"...\") with [judges], [search], [[target]] and [space]")
    for item in sets:
        key, value = parse_set(item, str(path))
        parts = key.split(".")
        if parts[0] not in TOP_KEYS + GAME_KEYS:
            raise DataError(path, key, f"unknown tuning key (known: {', '.join(TOP_KEYS + GAME_KEYS)})")
        if parts[0] in ("target", "space") and len(parts) > 1:
            raise DataError(path, key, f"set '{parts[0]}' as a whole (its entries are not addressable here)")
        cur = doc
        for p in parts[:-1]:
            nxt = cur.get(p)
            if not isinstance(nxt, dict):
                nxt = cur[p] = {}
            cur = nxt
        cur[parts[-1]] = value
    return _validate(doc, path, tuple(sets))


def _validate(doc, path, set_args):
    ck = Checker(path)
    ck.table(doc, "", required=REQUIRED_KEYS, optional=TOP_KEYS + GAME_KEYS)
    name = ck.string(doc["name"], "name").strip()
    if "/" in name or name in (".", ".."):
        ck.fail("name", "names a folder under results/tune: no slashes")
    description = doc.get("description", "")
    if not isinstance(description, str):
        ck.fail("description", "expected a string")
    seed = ck.integer(doc["seed"], "seed", lo=0, hi=MAX_SEED)
    confidence = doc.get("confidence", 0.95)
    if not is_number(confidence) or not 0.5 <= confidence < 1:
        ck.fail("confidence", f"a level between 0.5 and 1 (0.95), got {confidence!r}")
    base_dir = Path(path).resolve().parent
    sc_raw = ck.string(doc["scenario"], "scenario")
    try:
        sc_path = _find_scenario(sc_raw, base_dir)
        from scenarios.load import load_scenario

        scenario = load_scenario(sc_path)
    except DataError as exc:
        ck.fail("scenario", f"{sc_raw}: {exc}")

    game = switch_game(scenario)  # None: a scenario whose data the [space] keys change
    variant, boards = None, ()
    if game is None:
        for k in GAME_KEYS:
            if k in doc:
                ck.fail(k, f"only a scenario of another game has {k}; this one changes the data through [space] keys")
    else:
        if game.tunable is None:
            ck.fail("scenario", f"{game.title} declares no tunable switches (Game.tunable in simulator/games.py)")
        variant = ck.string(doc.get("variant", scenario.reference), "variant")
        if variant not in scenario.variants:
            ck.fail("variant", f"'{variant}' is not a variant of the scenario ({', '.join(scenario.variants)})")
        raw_boards = doc.get("boards", list(scenario.boards))
        if isinstance(raw_boards, str):
            raw_boards = [raw_boards]
        boards = tuple(ck.str_list(raw_boards, "boards", min_len=1, what="boards"))
        for i, b in enumerate(boards):
            if b not in scenario.boards:
                ck.fail(f"boards[{i}]", f"'{b}' is not a board of the scenario ({', '.join(scenario.boards)})")
        if len(set(boards)) != len(boards):
            ck.fail("boards", "a board is listed twice")

    raw_search = doc.get("search", {})
    method = raw_search.get("method", "study") if isinstance(raw_search, dict) else "study"
    ck.string(method, "search.method", choices=METHODS)
    if method == "race":
        if game is not None:
            ck.fail("search.method", f"the race changes a scenario's data through [space] keys; {game.title}'s "
                                     "scenarios are tuned by the study (method = \"study\")")
        return _validate_race(ck, doc, path, set_args, name, description, seed, scenario)

    # Targets first: they say which player counts the judges must cover.
    raw_targets = doc["target"]
    if isinstance(raw_targets, dict):
        raw_targets = [raw_targets]
    ck.table_array(raw_targets, "target", 1, 32, "targets")
    targets = tuple(_target(ck, t, i, scenario, path, game) for i, t in enumerate(raw_targets))
    if game is not None and not any(t["kind"] == "stalled" for t in targets):
        counts = tuple(sorted({n for t in targets for n in t["players"]}))
        pl = "/".join(map(str, counts))
        targets += ({"kind": "stalled", "players": counts, "at_most": DEFAULT_STALLED,
                     "label": f"at most {100 * DEFAULT_STALLED:g}% of games stalled at {pl} players (added: the "
                              "seat verdict leaves stalled games out)"},)
    players = sorted({n for t in targets for n in t["players"]} | set(scenario.players))
    judged = scenario_from_doc({**scenario.doc, "players": players}, scenario.path)

    j = ck.table(doc["judges"], "judges", required=("search",), optional=JUDGE_KEYS)
    if "race" in j:
        ck.fail("judges.race", 'the race\'s judges: give [search] method = "race" (the study judges by judges.search)')
    search_judge = _judge(ck, j["search"], "judges.search", "search", judged, path)
    raw_strong = j.get("strong", [])
    if isinstance(raw_strong, (dict, str)):
        raw_strong = [raw_strong]
    ck.array(raw_strong, "judges.strong", what="lineups")
    strong = tuple(
        _judge(ck, s, f"judges.strong[{i}]" if len(raw_strong) > 1 else "judges.strong", "strong", judged, path)
        for i, s in enumerate(raw_strong)
    )
    strong_games = ck.integer(j.get("strong_games", 1000), "judges.strong_games", lo=1, hi=MAX_GAMES)
    strong_rule = ck.string(j.get("strong_rule", "meet"), "judges.strong_rule", choices=STRONG_RULES)

    s = dict(ck.table(doc.get("search", {}), "search", optional=(*SEARCH_DEFAULTS, "method")))
    s.pop("method", None)  # "study", the default (the study's document, and so its hash, stays as it was)
    settings = {**SEARCH_DEFAULTS, **s}
    for k in ("max_keys", "trials", "restarts", "batch", "confirm_max"):
        ck.integer(settings[k], f"search.{k}", lo=1, hi=100_000)
    ck.integer(settings["confirm_games"], "search.confirm_games", lo=1, hi=MAX_GAMES)
    rungs = ck.int_list(settings["rungs"], "search.rungs", min_len=1, max_len=8, lo=1, hi=MAX_GAMES)
    if list(rungs) != sorted(set(rungs)):
        ck.fail("search.rungs", f"games per cell must grow from rung to rung, got {list(rungs)}")
    settings["rungs"] = list(rungs)
    ck.string(settings["sampler"], "search.sampler", choices=SAMPLERS)

    entries = _space_entries(ck, doc["space"])
    if game is None:
        params = tuple(space_param(ck, k, v, scenario, path) for k, v in entries.items())
    else:
        searched = sorted({n for t in targets for n in t["players"]})
        params = tuple(switch_param(ck, k, v, scenario, variant, searched, path) for k, v in entries.items())
        for a in entries:
            for b in entries:
                if b.startswith(a + "."):
                    ck.fail(f'space."{b}"', f"changes part of {a}, which is searched as a whole: search one or the other")
    if settings["max_keys"] > len(params):
        settings["max_keys"] = len(params)

    eff = {
        "name": name,
        "description": description,
        "scenario": str(sc_path),
        "seed": seed,
        "confidence": float(confidence),
        "judges": {
            "search": search_judge.lineup,
            "strong": [x.lineup for x in strong],
            "strong_games": strong_games,
            "strong_rule": strong_rule,
        },
        "search": settings,
        "targets": {str(i): {k: (list(v) if isinstance(v, tuple) else v) for k, v in t.items()} for i, t in enumerate(targets)},
        "space": {p.key: p.as_dict() for p in params},
    }
    if game is not None:  # (the first game's document, and so its hash, stays as it was)
        eff.update({"game": game.name, "variant": variant, "boards": list(boards)})
    text = json.dumps(eff, sort_keys=True, indent=1) + "\n" + scenario.text
    sha = hashlib.sha256(text.encode()).hexdigest()
    return TuneSpec(
        path=str(path),
        doc=eff,
        text=text,
        sha256=sha,
        name=name,
        description=description,
        seed=seed,
        confidence=float(confidence),
        scenario=scenario,
        params=params,
        targets=targets,
        search_judge=search_judge,
        strong_judges=strong,
        strong_games=strong_games,
        strong_rule=strong_rule,
        settings=settings,
        set_args=set_args,
        game=None if game is None else game.name,
        variant=variant,
        boards=boards,
    )


# =========================================================================== the race's file


def _race_target(ck, raw, i, scenario, judges):
    key = f"target[{i}]"
    fields = {f for v in RACE_TARGET_FIELDS.values() for f in v[0] + v[1]}
    ck.table(raw, key, required=("kind",), optional=("kind", *fields))
    if raw["kind"] in TARGET_FIELDS and raw["kind"] not in RACE_TARGET_FIELDS:
        ck.fail(f"{key}.kind", f"'{raw['kind']}' is a target of the study; the race decides "
                               f"{' and '.join(RACE_TARGET_FIELDS)}")
    kind = ck.string(raw["kind"], f"{key}.kind", choices=tuple(RACE_TARGET_FIELDS))
    raw_players = raw.get("players", list(scenario.players))
    if isinstance(raw_players, int) and not isinstance(raw_players, bool):
        raw_players = [raw_players]
    players = ck.int_list(raw_players, f"{key}.players", min_len=1)
    supported = tuple(registry.get(scenario.game).player_counts)
    for j, n in enumerate(players):
        if n not in supported:
            listed = f"{', '.join(map(str, supported[:-1]))} or {supported[-1]}"
            ck.fail(f"{key}.players[{j}]", f"{n} players is not supported ({listed})")
    raw_judges = raw.get("judges", list(judges))
    if isinstance(raw_judges, str):
        raw_judges = [raw_judges]
    names = ck.str_list(raw_judges, f"{key}.judges", min_len=1, what="judges")
    for j, n in enumerate(names):
        if n not in judges:
            ck.fail(f"{key}.judges[{j}]", f"'{n}' is not a race judge (judges.race: {', '.join(judges)})")
    t = {"kind": kind, "players": tuple(sorted(set(players))), "judges": tuple(dict.fromkeys(names))}
    pl = "/".join(map(str, t["players"]))
    word = "every seat fair" if kind == "seats_fair" else "no seat unfair"
    label = f"{word} at {pl} players for {', '.join(t['judges'])}"
    t["label"] = ck.string(raw["label"], f"{key}.label") if "label" in raw else label
    return t


def race_doc(scenario):
    """The scenario's document as the race plays it: one mirror judge per candidate scenario, its
    rounds the race's own (no [sequential] table), nothing recorded beyond the tables."""
    return {k: v for k, v in scenario.doc.items() if k not in ("sequential", "record")}


def race_cells(targets):
    """The race's cells, ``(players, judge)`` in a fixed order, each with what it must show:
    ``"fair"`` (a seats_fair target names it) or ``"not_unfair"``."""
    need = {}
    for t in targets:
        for n in t["players"]:
            for j in t["judges"]:
                if t["kind"] == "seats_fair":
                    need[(n, j)] = "fair"
                else:
                    need.setdefault((n, j), "not_unfair")
    return need


def _validate_race(ck, doc, path, set_args, name, description, seed, scenario):
    """The rest of a tuning file whose [search] method is "race" (module docstring, "The race")."""
    from scenarios.sequential import DEFAULT_COST_MS

    if "confidence" in doc:
        ck.fail("confidence", "the race judges at the scenario's [sequential] confidence (the verdicts ssb run prints)")
    plan = scenario.sequential
    zone = {"test": "zone", "margin": 0.03, "indifference": 0.01, "confidence": 0.95}
    if plan is not None:
        if plan.test != "zone":
            ck.fail("scenario", f"the race judges by the zone test; the scenario's [sequential] test is '{plan.test}'")
        zone.update(margin=plan.margin, indifference=plan.indifference, confidence=plan.confidence)

    j = ck.table(doc["judges"], "judges", required=("race",), optional=("race",))
    raw_race = j["race"]
    if isinstance(raw_race, str):
        raw_race = [raw_race]
    names = ck.str_list(raw_race, "judges.race", min_len=1, what="judges")
    if len(set(names)) != len(names):
        ck.fail("judges.race", "a judge is listed twice")

    judged = scenario_from_doc(race_doc(scenario), scenario.path)
    race_judges = []
    for i, n in enumerate(names):
        try:
            race_judges.append(_judge(ck, {"mirror": n}, f"judges.race[{i}]", "race", judged, path))
        except DataError as exc:  # (named by the list entry, not the lineup table it stands for)
            ck.fail(f"judges.race[{i}]", exc.reason)
    race_judges = tuple(race_judges)

    raw_targets = doc["target"]
    if isinstance(raw_targets, dict):
        raw_targets = [raw_targets]
    ck.table_array(raw_targets, "target", 1, 32, "targets")
    targets = tuple(_race_target(ck, t, i, scenario, names) for i, t in enumerate(raw_targets))
    if not any(t["kind"] == "seats_fair" for t in targets):
        ck.fail("target", "the race needs a seats_fair target (seats_not_unfair only constrains it)")

    s = ck.table(doc["search"], "search", required=("method", "seconds"), optional=RACE_KEYS)
    seconds = s["seconds"]
    if not is_number(seconds) or not 0 < seconds <= 10_000_000:
        ck.fail("search.seconds", f"declared CPU seconds of the whole tune, above 0, got {seconds!r}")
    default_cost = dict(plan.cost or {}) if plan is not None else {}
    cost = ck.table(s.get("cost", {k: v for k, v in default_cost.items() if k in names}), "search.cost",
                    optional=tuple(names))
    for k, v in cost.items():
        if not is_number(v) or not 0 < v <= 1_000_000:
            ck.fail(f"search.cost.{k}", f"CPU milliseconds per game, above 0, got {v!r}")
    cost = {n: float(cost.get(n, DEFAULT_COST_MS)) for n in names}
    raw_round = ck.table(s.get("round", {}), "search.round", optional=tuple(names))
    rounds = {}
    for n in names:
        if n in raw_round:
            rounds[n] = ck.integer(raw_round[n], f"search.round.{n}", lo=1, hi=MAX_GAMES)
        else:
            rounds[n] = int(min(2000, max(100, RACE_ROUND_SECONDS * 1000.0 / cost[n])))
    keep = s.get("keep", 0.5)
    if not is_number(keep) or not 0 < keep < 1:
        ck.fail("search.keep", f"the share of candidates a round keeps racing, between 0 and 1, got {keep!r}")
    games = ck.integer(s.get("games", scenario.games), "search.games", lo=1, hi=MAX_GAMES)
    settings = {"method": "race", "seconds": float(seconds), "cost": cost, "round": rounds, "keep": float(keep),
                "games": games, "max_keys": ck.integer(s.get("max_keys", 2), "search.max_keys", lo=1, hi=100)}

    entries = _space_entries(ck, doc["space"])
    params = tuple(space_param(ck, k, v, scenario, path) for k, v in entries.items())
    for p in params:
        if p.kind == "float":
            ck.fail(f'space."{p.key}"', "the race plays every candidate: give an integer range or values = [...]")
    settings["max_keys"] = min(settings["max_keys"], len(params))

    eff = {
        "name": name,
        "description": description,
        "scenario": str(Path(scenario.path)),
        "seed": seed,
        "judges": {"race": list(names)},
        "search": settings,
        "zone": zone,
        "targets": {str(i): {k: (list(v) if isinstance(v, tuple) else v) for k, v in t.items()} for i, t in enumerate(targets)},
        "space": {p.key: p.as_dict() for p in params},
    }
    text = json.dumps(eff, sort_keys=True, indent=1) + "\n" + scenario.text
    return TuneSpec(
        path=str(path), doc=eff, text=text, sha256=hashlib.sha256(text.encode()).hexdigest(), name=name,
        description=description, seed=seed, confidence=zone["confidence"], scenario=scenario, params=params,
        targets=targets, search_judge=race_judges[0], strong_judges=race_judges[1:], strong_games=0,
        strong_rule="meet", settings=settings, set_args=set_args, method="race", race_judges=race_judges, zone=zone,
    )


def _space_entries(ck, raw_space):
    """``[space]`` as ``{key: {range|values|step: ...}}``, in file order (``flatten_overrides`` also
    splits the range/values tables: they are put back together here)."""
    if not isinstance(raw_space, dict):
        ck.fail("space", "expected a table of data keys, each { range = [lo, hi] } or { values = [...] }")
    entries = OrderedDict()
    for k, v in flatten_overrides(raw_space).items():
        head, _, leaf = k.rpartition(".")
        if leaf in ("range", "values", "step") and head:
            entries.setdefault(head, {})[leaf] = v
        else:
            ck.fail(f'space."{k}"', "expected { range = [lo, hi] } or { values = [...] }")
    if not entries:
        ck.fail("space", "no keys to search")
    return entries
