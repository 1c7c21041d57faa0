"""What every game's scenario shares: the limits, the scenario name, the shipped scenario files,
``--set KEY=VALUE``, and the ``[lineup]`` vocabulary (mirror, seats, round_robin, max_games) with
the cells it expands to (:class:`LineupCell`: rotations and game counts of the paired design).

The keys every game shares are checked once, here (:func:`parse_common`, :func:`set_shared_key`);
a game's own keys (Shuffle and Swing's instruments and overrides, Echidna Shuffle's boards and
variants) are read by its setting module (``Game.setting``) through the one scenario schema,
:mod:`scenarios.scenario`; the front door is :mod:`scenarios.load`.
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from simulator.errors import DataError
from simulator.validate import MAX_NESTING, check_nesting

SCENARIO_DIR = Path(__file__).resolve().parent
MAX_GAMES = 1_000_000_000
# A cell is a row of the manifest (rewritten as the run goes), a group of every table and a line of
# the report: past this many a scenario is slow to validate and its report unreadable, so it is
# refused with the count (split it into several scenarios instead).
MAX_CELLS = 10_000
# The description is kept in the manifest, which a sequential run rewrites every round.
MAX_DESCRIPTION = 10_000
LINEUP_KEYS = ("mirror", "seats", "round_robin", "max_games")
ROUND_ROBIN_KEYS = ("pool", "mix", "mirrors")
MIXES = ("all", "pairs")
# A scenario's name is the folder of its results (results/<name>): one plain path component.
SCENARIO_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")


def check_scenario_name(ck, value, key="name"):
    """The scenario name as one folder name: letters, digits, '.', '_' and '-', starting with a letter
    or digit, at most 80 characters; so ``results/<name>`` never leaves ``results/``."""
    name = ck.string(value, key).strip()
    if not SCENARIO_NAME.fullmatch(name) or ".." in name:
        ck.fail(
            key,
            f"{name!r} cannot name a results folder: use letters, digits, '.', '_' and '-' (starting with a "
            "letter or digit, no '..', at most 80 characters); choose where results go with --out",
        )
    return name


def check_cell_count(ck, count, key, what="cells"):
    """Refuse a scenario of more than :data:`MAX_CELLS` cells, with the count and the reason."""
    if count > MAX_CELLS:
        ck.fail(key, f"would make {count:,} {what}; a scenario holds at most {MAX_CELLS:,} cells (each is a row of "
                "the manifest, a group of every table and a line of the report): split it into several scenarios")


def check_description(ck, value, key="description"):
    """The scenario's description: a string of at most :data:`MAX_DESCRIPTION` characters."""
    if not isinstance(value, str):
        ck.fail(key, "expected a string")
    if len(value) > MAX_DESCRIPTION:
        ck.fail(key, f"{len(value):,} characters; at most {MAX_DESCRIPTION:,} (the manifest keeps the description "
                "and a sequential run rewrites it every round): put a long text in a file beside the scenario")
    return value


def lineup_period(lineup):
    """Smallest shift k > 0 that maps the lineup onto itself; shifts 0..k-1 are the distinct rotations."""
    n = len(lineup)
    for k in range(1, n + 1):
        if all(lineup[(s - k) % n] == lineup[s] for s in range(n)):
            return k
    return n


class LineupCell:
    """What every game's cell (:class:`scenarios.cells.Cell`) derives from its ``lineup`` and
    ``deals``: its seat rotations and its game count."""

    @property
    def rotations(self):
        """Distinct cyclic rotations of the lineup over the seats: a mirror lineup has one (its
        rotations would replay the same game), (A, B, A, B) two, (A, B, B, B) four."""
        return lineup_period(self.lineup)

    @property
    def games(self):
        return self.deals * self.rotations



# =========================================================================== finding


def shipped_scenarios():
    """Names of the scenario files that come with the package."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


def find_shipped_file(name_or_path, folder, shipped_names, what):
    """A TOML file by path, or by the name of one shipped in ``folder`` (``starter`` ->
    ``folder/starter.toml``); ``shipped_names()`` lists those for the error, ``what`` names the kind
    of file (shared by scenarios and tuning files)."""
    p = Path(name_or_path)
    if p.is_file():
        return p
    shipped = Path(folder) / (p.name if p.suffix == ".toml" else f"{p.name}.toml")
    bare = "/" not in str(name_or_path) and p.parent == Path(".")
    if p.is_dir():
        # A bare name is the shipped file's even when a folder of that name (say, the results of
        # ``ssb run echidna-seats --out echidna-seats``) is in the working directory; a path is not.
        if bare and shipped.is_file():
            return shipped
        raise DataError(p, "", f"is a directory, expected a {what} TOML file")
    if bare and shipped.is_file():
        return shipped
    return None


def find_scenario(name_or_path):
    """A scenario file by path, or by the name of a shipped one (``starter`` -> scenarios/starter.toml)."""
    found = find_shipped_file(name_or_path, SCENARIO_DIR, shipped_scenarios, "scenario")
    if found is None:
        raise DataError(Path(name_or_path), "",
                        f"scenario file not found (shipped scenarios: {', '.join(shipped_scenarios())})")
    return found



# =========================================================================== --set


def parse_value(text):
    """A ``--set`` value: TOML if it parses as one (``4``, ``[2, 3]``, ``true``, ``"x"``), else the text."""
    if not isinstance(text, str):
        return text
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise DataError("--set", text[:40] + ("..." if len(text) > 40 else ""),
                        f"the value is nested too deeply to read; at most {MAX_NESTING} levels") from None
    check_nesting(value, "--set", text[:40] + ("..." if len(text) > 40 else ""))
    return value


def parse_set(item, path="--set"):
    """``"KEY=VALUE"`` -> (key, parsed value)."""
    key, sep, value = str(item).partition("=")
    key = key.strip()
    if not sep or not key:
        raise DataError(path, str(item), "expected KEY=VALUE (for example games=500 or wheel=fixed)")
    try:
        return key, parse_value(value.strip())
    except DataError as exc:
        raise DataError(path, f"--set {key}", exc.reason) from None



def set_lineup_key(doc, key, value, path):
    """``--set lineup[.KEY[.SUB]]=VALUE`` applied to a scenario document in place (every game)."""
    parts = key.split(".")
    if len(parts) == 1:
        doc["lineup"] = value
        return
    if parts[1] not in LINEUP_KEYS:
        raise DataError(path, key, f"unknown key '{parts[1]}' (known: {', '.join(LINEUP_KEYS)})")
    set_table_key(doc, parts, key, value, path)


def set_table_key(doc, parts, key, value, path):
    """``--set TOP.KEY[.SUB]=VALUE`` into the table ``doc[TOP]`` (made when absent): only
    ``round_robin`` has sub-keys, and those are :data:`ROUND_ROBIN_KEYS`."""
    table = doc.get(parts[0])
    if not isinstance(table, dict):
        table = doc[parts[0]] = {}
    if len(parts) > 2 and parts[1] != "round_robin":
        raise DataError(path, key, f"'{parts[0]}.{parts[1]}' has no sub-keys")
    for p in parts[1:-1]:
        sub = table.get(p)
        if not isinstance(sub, dict):
            sub = table[p] = {}
        table = sub
    if len(parts) == 3 and parts[2] not in ROUND_ROBIN_KEYS:
        raise DataError(path, key, f"unknown key '{parts[2]}' (known: {', '.join(ROUND_ROBIN_KEYS)})")
    table[parts[-1]] = value


# =========================================================================== lineups


def strategy_name(lib, name, path, key):
    """Canonical spelling of a strategy name (``Greedy`` -> ``greedy``, ``spec:Orange`` -> ``spec:orange``)."""
    if not isinstance(name, str) or not name.strip():
        raise DataError(path, key, f"expected a strategy name, got {name!r}")
    try:
        s = lib.get(name.strip())
    except DataError as exc:
        raise DataError(path, key, f"'{name}': {exc.reason}") from None
    _, _, focus = name.strip().partition(":")
    return s.name + (f":{focus.strip().lower()}" if focus else "")


def lineup_list(ck, raw, key):
    """One lineup (a list of names) or several (a list of lists) -> list of (key, names)."""
    if not isinstance(raw, list) or not raw:
        ck.fail(key, "expected a list of strategy names (one lineup) or a list of such lists")
    if all(isinstance(x, str) for x in raw):
        return [(key, raw)]
    out = []
    for i, x in enumerate(raw):
        if not isinstance(x, list) or not x:
            ck.fail(f"{key}[{i}]", f"expected a list of strategy names, got {x!r}")
        out.append((f"{key}[{i}]", x))
    return out


def check_length(ck, key, names, n, hint=""):
    if len(names) != n:
        ck.fail(key, f"a lineup for {n} players needs {n} strategies, one per seat, got {len(names)}{hint}")


def round_robin(pool, n, mix="all", mirrors=False):
    """Lineups of ``n`` seats drawn from ``pool`` (see the module docstring)."""
    out = [(s,) * n for s in pool] if mirrors else []
    for combo in itertools.combinations_with_replacement(pool, n):
        kinds = len(set(combo))
        if kinds == 1:
            continue
        if mix == "pairs" and kinds != 2:
            continue
        out.append(tuple(combo))
    if mix == "pairs":
        # Group by pair: A,A,A,B / A,A,B,B / A,B,B,B, then the next pair.
        order = {s: i for i, s in enumerate(pool)}
        head = out[: len(pool) if mirrors else 0]
        rest = out[len(head) :]
        rest.sort(key=lambda c: (sorted({order[s] for s in c}), -c.count(c[0])))
        out = head + rest
    return out


def parse_max_games(ck, raw, lib, path):
    """``lineup.max_games``: strategy name -> most games per cell of a lineup holding it."""
    t = raw.get("max_games", {}) if isinstance(raw, dict) else {}
    if not isinstance(t, dict):
        ck.fail("lineup.max_games", "expected a table of strategy = games, e.g. { lookahead = 1500 }")
    return {
        strategy_name(lib, name, path, f"lineup.max_games.{name}"): ck.integer(v, f"lineup.max_games.{name}", lo=1, hi=MAX_GAMES)
        for name, v in t.items()
    }


def parse_lineups(ck, raw, players, lib, path, counts):
    """``[lineup]``: player count -> the lineups (tuples of strategy names) of its cells; ``counts``
    are the player counts the game supports (the keys ``lineup.seats`` may use)."""
    t = ck.table(raw, "lineup", optional=LINEUP_KEYS)
    if not t:
        ck.fail("lineup", "no lineup, so the scenario has no cells (give mirror, seats or round_robin)")
    out = {n: [] for n in players}

    if "mirror" in t:
        m = t["mirror"]
        if isinstance(m, str):
            names = [(("lineup.mirror"), m)]
        else:
            ck.array(m, "lineup.mirror", min_len=1, what="strategies")
            names = [(f"lineup.mirror[{i}]", x) for i, x in enumerate(m)]
        for key, x in names:
            s = strategy_name(lib, x, path, key)
            for n in players:
                out[n].append((s,) * n)

    if "seats" in t:
        v = t["seats"]
        if isinstance(v, dict):
            for k, lv in v.items():
                key = f"lineup.seats.{k}"
                if k not in {str(n) for n in counts}:
                    ck.fail(key, f"keys of lineup.seats are player counts ({', '.join(map(str, counts))})")
                n = int(k)
                for lkey, names in lineup_list(ck, lv, key):
                    canon = tuple(strategy_name(lib, x, path, f"{lkey}[{j}]") for j, x in enumerate(names))
                    check_length(ck, lkey, canon, n)
                    if n in out:
                        out[n].append(canon)
        else:
            for lkey, names in lineup_list(ck, v, "lineup.seats"):
                canon = tuple(strategy_name(lib, x, path, f"{lkey}[{j}]") for j, x in enumerate(names))
                for n in players:
                    hint = ""
                    if len(players) > 1:
                        hint = (
                            "; for several player counts give one lineup per count: "
                            "seats = { 2 = [...], 3 = [...], 4 = [...] }"
                        )
                    check_length(ck, lkey, canon, n, hint)
                    out[n].append(canon)

    if "round_robin" in t:
        key = "lineup.round_robin"
        rr = ck.table(t["round_robin"], key, required=("pool",), optional=ROUND_ROBIN_KEYS)
        raw_pool = ck.array(rr["pool"], f"{key}.pool", min_len=2, what="strategies")
        pool = []
        for i, x in enumerate(raw_pool):
            s = strategy_name(lib, x, path, f"{key}.pool[{i}]")
            if s in pool:
                ck.fail(f"{key}.pool[{i}]", f"'{s}' is listed twice")
            pool.append(s)
        mix = ck.string(rr.get("mix", "all"), f"{key}.mix", choices=MIXES)
        mirrors = ck.boolean(rr.get("mirrors", False), f"{key}.mirrors")
        for n in players:  # count before listing: a large pool makes millions of lineups
            bound = math.comb(len(pool) + n - 1, n) if mix == "all" else math.comb(len(pool), 2) * (n - 1)
            check_cell_count(ck, bound, f"{key}.pool", f"lineups of {n} players")
        for n in players:
            out[n].extend(round_robin(pool, n, mix, mirrors))

    for n in players:
        seen = list(dict.fromkeys(out[n]))
        out[n] = seen
        if not seen:
            ck.fail("lineup", f"no lineup for {n} players (lineup.seats has none for that count)")
    return out


# =========================================================================== the keys every game shares

# The top-level keys of every game's scenario, checked once here (:func:`parse_common`); a game's
# own keys (its setting) come after them in its scenario schema.
SHARED_KEYS = ("game", "name", "description", "seed", "games", "players", "strategy_dirs", "lineup", "record",
               "sequential")
SHARED_REQUIRED = ("name", "seed", "games", "players", "lineup")
# The keys of ``[sequential]`` (scenarios.sequential).
SEQUENTIAL_KEYS = ("test", "indifference", "seconds", "cost", "budget", "round", "strong", "margin", "confidence",
                   "verdicts", "zone", "proof", "interval")


@dataclass
class Common:
    """The shared keys of a scenario, validated (:func:`parse_common`)."""

    name: str
    description: str
    seed: int
    games: int
    players: tuple
    strategy_dirs: tuple  # resolved folders
    strategy_dirs_raw: list  # as the file (or --set) gives them, for the effective document
    strategies: object  # the game's strategy library (``Game.strategies``)
    lineups: dict  # player count -> lineups
    caps: dict  # lineup.max_games
    record: tuple
    base_dir: Path

    def cell_games(self, lineup):
        """The games a cell of ``lineup`` plays (``games``, capped by ``lineup.max_games``)."""
        return min([self.games] + [self.caps[x] for x in set(lineup) if x in self.caps])


def set_shared_key(doc, key, value, path):
    """``--set KEY=VALUE`` of a shared key into a scenario document in place; returns whether ``key``
    is one (a game's own keys are its schema's)."""
    parts = key.split(".")
    top = parts[0]
    if top not in SHARED_KEYS or top == "game":
        return False
    if top == "sequential":  # scenarios.sequential: rounds until each seat verdict is decided
        set_sequential_key(doc, parts, value, path)
        return True
    if top == "lineup":
        set_lineup_key(doc, key, value, path)
        return True
    if len(parts) > 1:
        raise DataError(path, key, f"'{top}' has no sub-keys")
    if top == "strategy_dirs":
        # Folders given on the command line are relative to where the command runs, not to the
        # scenario file (which may be a shipped one inside the package).
        items = [value] if isinstance(value, str) else value
        if isinstance(items, list) and all(isinstance(d, str) and d.strip() for d in items):
            value = [str((Path.cwd() / d).resolve()) for d in items]
    doc[top] = value
    return True


def folders(ck, doc, key, base_dir):
    """A list of folders (``instrument_dirs``, ``strategy_dirs``) relative to the scenario file:
    ``(as given, resolved)``; a folder that does not exist is refused."""
    raw = doc.get(key, [])
    if isinstance(raw, str):
        raw = [raw]
    names = ck.str_list(raw, key, what="folders")
    resolved = []
    for i, d in enumerate(names):
        p = (base_dir / d).resolve()
        if not p.is_dir():
            ck.fail(f"{key}[{i}]", f"folder not found: {p}")
        resolved.append(str(p))
    return list(raw), tuple(resolved)


def parse_common(ck, doc, game, path):
    """The keys every game's scenario shares, checked against ``game``'s registry entry: name (one
    folder name, :func:`check_scenario_name`), description, seed, games, players (the game's player
    counts), strategy_dirs, ``[lineup]`` and record (what the game records, ``Game.records``).
    ``[sequential]`` is checked against the cells (:func:`scenarios.sequential.parse_sequential`)."""
    from scenarios.record import check_record
    from simulator.seeds import MAX_SEED

    name = check_scenario_name(ck, doc["name"])
    description = check_description(ck, doc.get("description", ""))
    seed = ck.integer(doc["seed"], "seed", lo=0, hi=MAX_SEED)
    games = ck.integer(doc["games"], "games", lo=1, hi=MAX_GAMES)
    counts = ", ".join(map(str, game.player_counts))
    raw_players = doc["players"]
    if isinstance(raw_players, int) and not isinstance(raw_players, bool):
        raw_players = [raw_players]
    if raw_players == []:
        ck.fail("players", f"no player counts, so the scenario has no cells (give some of {counts})")
    players = ck.int_list(raw_players, "players", min_len=1)
    for i, n in enumerate(players):
        if n not in game.player_counts:
            ck.fail(f"players[{i}]", f"{n} players is not supported by {game.title} ({counts})")
    if len(set(players)) != len(players):
        ck.fail("players", "a player count is listed twice")
    base_dir = Path(path).resolve().parent
    sdirs_raw, sdirs = folders(ck, doc, "strategy_dirs", base_dir)
    lib = game.strategies(sdirs)
    lineups = parse_lineups(ck, doc["lineup"], players, lib, path, game.player_counts)
    caps = parse_max_games(ck, doc["lineup"], lib, path)  # fewer games for a lineup holding a slow strategy
    known = game.records if game.records is not None else (("lead",) if game.play_batch_lead else ())
    if doc.get("record") and not known:
        ck.fail("record", f"{game.title} has no lead record")
    record = check_record(ck, doc.get("record"), known=known)
    return Common(name, description, seed, games, tuple(players), sdirs, sdirs_raw, lib, lineups, caps, record,
                  base_dir)


def set_sequential_key(doc, parts, value, path):
    """``--set sequential=true``, ``--set sequential.budget.search=4000``, ``--set sequential.round=500``."""
    key = ".".join(parts)
    if len(parts) == 1:
        doc["sequential"] = value
        return
    if parts[1] not in SEQUENTIAL_KEYS:
        raise DataError(path, key, f"unknown key '{parts[1]}' (known: {', '.join(SEQUENTIAL_KEYS)})")
    table = doc.get("sequential")
    if not isinstance(table, dict):
        table = doc["sequential"] = {}
    if len(parts) == 2:
        table[parts[1]] = value
        return
    if len(parts) > 3 or parts[1] not in ("budget", "round", "cost"):
        raise DataError(path, key, f"'sequential.{parts[1]}' has no sub-keys")
    sub = table.get(parts[1])
    if not isinstance(sub, dict):
        sub = table[parts[1]] = {}
    sub[parts[2]] = value
