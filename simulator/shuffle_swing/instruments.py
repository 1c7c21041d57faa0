"""The instruments of Shuffle and Swing: the file syntax, loader and validator, and the library.

Component data lives in ``simulator/shuffle_swing/data``: ``board.toml`` (board and player facts) and one file per
instrument in ``simulator/shuffle_swing/data/instruments``. A designer can add an instrument by writing a new file;
:class:`InstrumentLibrary` picks up every ``*.toml`` in the extra directories it is given.

Instrument file syntax
----------------------
Top-level keys must come before the first ``[table]`` header (a TOML rule)::

    # free comments: say where the layout comes from
    lines = [["t1", "t2"], ["t2", "t3"]]   # inspector connection lines (undirected)
    neutral = ["t1", "s4"]                 # the two spaces that get neutral pieces with 3 players

    [instrument]
    name = "Horns"
    department = "gray"          # black | orange | gray
    expansion = false            # optional, default false
    reconstructed = true         # optional, default false
    penalty_per_space = 2        # optional, default from board.toml
    description = "..."          # optional
    replaces = true              # optional: in a folder given with --instrument-dir, replace the
                                 #   shipped instrument of the same name (a tuned copy of it)

    [track]                      # optional override of the board's brag track, any of the three lists
    need = [0, 1, 2, 4, 6, 8, 10, 12]
    vp = [0, 2, 4, 7, 10, 15, 17, 20]
    token = [false, false, true, false, true, false, true, false]

    [[space]]
    id = "t1"
    number = 1                   # 1..3: build cost and inspector value
    colour = "black"             # one of the two colours the department does not recruit
    sections = ["trumpet"]       # sections/regions the space belongs to

    [[section]]
    id = "trumpet"
    symbol = "target"            # optional, display only
    number = 5                   # optional; number_rank needs it
    adjacent = ["saxophone"]     # optional; must be listed on both sides
    spaces = ["t1", "t2"]        # optional; adds spaces to the section (same effect as space.sections)
    [[section.score]]
    rule = "rank"
    awards = [8, 6, 2]
    scope = "section"            # "section" (default) | "instrument" | ["sec_a", "sec_b"]

Scoring rules (at most ``MAX_TERMS`` per section; ``scope`` where allowed defaults to the section):

* ``rank``: ``awards`` (1..4 integers >= 0), ``scope``.
* ``rank_by_order``: ``awards`` for the first section of the instrument to complete, ``later`` for
  the others, ``scope``.
* ``per_piece``: ``points`` per piece in ``scope``.
* ``completer``: ``completer = [num, den]`` (default ``[1, 1]``) points per piece of the owner who
  completed the section, ``others = [num, den]`` (default ``[1, 2]``) for everybody else, ``scope``.
* ``number_rank``: ``offsets`` (1..4 integers), ``floor`` (default 0), ``scope``; the section needs
  a ``number``. The loader turns it into a plain ``rank`` with awards ``max(number + offset, floor)``.
* ``adjacent_presence``: ``points`` to each owner with a piece in every adjacent section.
* ``adjacent_per_piece``: ``points`` per piece an owner has in the adjacent sections.
* ``majority_takes_all``: ``scope``.
* ``longest_group``: ``points`` per space of the owner's longest connected group through the section.

Every problem raises :class:`simulator.errors.DataError` naming the file, the key path and the reason.
"""


from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from simulator.errors import DataError
from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.board import (
    MAX_OFFSET,
    MAX_POINTS,
    MAX_SECTION_NUMBER,
    POINTS_WHY,
    load_board,
    parse_track,
    points,
)
from simulator.validate import Checker, join_key, read_toml, typename

SCOPE_SECTION = "section"
SCOPE_INSTRUMENT = "instrument"



# =========================================================================== instruments

TOP_LEVEL_KEYS = ("instrument", "space", "section", "lines", "neutral", "track")
_INSTRUMENT_KEYS = (
    "name", "department", "expansion", "reconstructed", "penalty_per_space", "description", "replaces",
)
_SPACE_KEYS = ("id", "number", "colour", "sections")
_SECTION_KEYS = ("id", "symbol", "number", "adjacent", "spaces", "score")

# rule name -> (term code, required parameters, optional parameters)
RULES = {
    "rank": (L.T_RANK, ("awards",), ("scope",)),
    "rank_by_order": (L.T_RANK_ORDER, ("awards", "later"), ("scope",)),
    "per_piece": (L.T_PER_PIECE, ("points",), ("scope",)),
    "completer": (L.T_COMPLETER, (), ("completer", "others", "scope")),
    "number_rank": (L.T_RANK, ("offsets",), ("floor", "scope")),
    "adjacent_presence": (L.T_ADJ_PRESENCE, ("points",), ()),
    "adjacent_per_piece": (L.T_ADJ_PER_PIECE, ("points",), ()),
    "majority_takes_all": (L.T_MAJORITY_ALL, (), ("scope",)),
    "longest_group": (L.T_LONGEST_GROUP, ("points",), ()),
}


@dataclass(frozen=True)
class Term:
    """One scoring term of a section, already in kernel form."""

    rule: str  # rule name as written in the file (number_rank is kept here for display)
    code: int  # layout.T_* code the kernel runs
    scope: object  # "section", "instrument" or a tuple of section ids
    scope_mask: int  # bit mask of the spaces the term counts
    params: tuple  # p1..p4
    awards: tuple = ()
    later: tuple = ()
    text: str = ""  # short description


@dataclass(frozen=True)
class Instrument:
    """A validated instrument. Spaces and sections are referred to by index in data order."""

    name: str
    department: int
    expansion: bool
    reconstructed: bool
    path: str
    description: str
    space_ids: tuple
    numbers: tuple
    colours: tuple  # colour codes (layout.BLACK / ORANGE / GRAY)
    space_sections: tuple  # per space: tuple of section indices
    section_ids: tuple
    section_symbols: tuple
    section_numbers: tuple  # int or None
    section_spaces: tuple  # per section: tuple of space indices
    section_adjacent: tuple  # per section: tuple of section indices
    section_terms: tuple  # per section: tuple of Term
    lines: tuple  # (a, b) space indices, a line's index is its edge id
    neutral: tuple  # two space indices
    track_need: tuple
    track_vp: tuple
    track_token: tuple
    penalty_per_space: int
    total_cost: int
    replaces: bool = False  # a designer's copy that takes the place of the shipped instrument
    _space_index: dict = field(default=None, repr=False, compare=False, hash=False)
    _section_index: dict = field(default=None, repr=False, compare=False, hash=False)

    # ------------------------------------------------------------------ names and indices
    @property
    def department_name(self):
        return L.DEPT_NAMES[self.department]

    @property
    def nspaces(self):
        return len(self.space_ids)

    @property
    def nsections(self):
        return len(self.section_ids)

    @property
    def allowed_colours(self):
        return tuple(c for c in range(L.N_DEPT) if c != self.department)

    def space_name(self, i):
        """Space id of space index ``i`` (``"-"`` for -1 / off the board)."""
        return "-" if i is None or i < 0 else self.space_ids[i]

    def section_name(self, s):
        return "-" if s is None or s < 0 else self.section_ids[s]

    def space_index(self, space_id):
        try:
            return self._space_index[space_id]
        except KeyError:
            raise DataError(self.path, "space", f"no space '{space_id}' on {self.name}") from None

    def section_index(self, section_id):
        try:
            return self._section_index[section_id]
        except KeyError:
            raise DataError(self.path, "section", f"no section '{section_id}' on {self.name}") from None

    def spaces_in_mask(self, mask):
        """Space ids whose bit is set in a space bit mask."""
        return [sid for i, sid in enumerate(self.space_ids) if (int(mask) >> i) & 1]

    def sections_in_mask(self, mask):
        return [sid for i, sid in enumerate(self.section_ids) if (int(mask) >> i) & 1]

    def neighbours(self, i):
        out = []
        for a, b in self.lines:
            if a == i:
                out.append(b)
            elif b == i:
                out.append(a)
        return out

    @property
    def all_spaces_mask(self):
        return (1 << self.nspaces) - 1

    def section_mask(self, s):
        m = 0
        for i in self.section_spaces[s]:
            m |= 1 << i
        return m

    # ------------------------------------------------------------------ summaries
    def rule_summary(self):
        """One short line describing how the instrument's sections score."""
        groups = {}
        for s, terms in enumerate(self.section_terms):
            text = " + ".join(t.text for t in terms)
            label = self.section_ids[s]
            if self.section_numbers[s] is not None:
                label += f" (N={self.section_numbers[s]})"
            groups.setdefault(text, []).append(label)
        parts = [f"{', '.join(secs)}: {text}" for text, secs in groups.items()]
        return "; ".join(parts)

    def __str__(self):
        exp = ", expansion" if self.expansion else ""
        return (
            f"{self.name} ({self.department_name}{exp}): {self.nspaces} spaces, {self.nsections} sections, "
            f"cost {self.total_cost}"
        )


def _awards_text(awards):
    return "/".join(str(a) for a in awards)


def _scope_text(scope):
    if scope == SCOPE_SECTION:
        return ""
    if scope == SCOPE_INSTRUMENT:
        return " over the instrument"
    return " over " + "+".join(scope)


def _frac(num, den):
    if den == 1:
        return f"{num} per piece"
    return f"{num} per {den} pieces"


def _parse_scope(ck, value, key, sec_index, own_mask, sec_masks, all_mask):
    if isinstance(value, str):
        if value == SCOPE_SECTION:
            return SCOPE_SECTION, own_mask
        if value == SCOPE_INSTRUMENT:
            return SCOPE_INSTRUMENT, all_mask
        ck.fail(key, f"'{value}' is not 'section', 'instrument' or a list of section ids")
    ids = ck.str_list(value, key, min_len=1, what="sections")
    mask = 0
    for i, sid in enumerate(ids):
        if sid not in sec_index:
            ck.fail(f"{key}[{i}]", f"unknown section '{sid}'")
        mask |= sec_masks[sec_index[sid]]
    return ids, mask


def _parse_term(ck, raw, key, sec, sec_index, sec_masks, all_mask):
    """Parse one ``[[section.score]]`` table into a :class:`Term`."""
    if not isinstance(raw, dict):
        ck.fail(key, f"expected a table, got {typename(raw)}")
    if "rule" not in raw:
        ck.fail(join_key(key, "rule"), "missing required key")
    rule = ck.string(raw["rule"], join_key(key, "rule"))
    if rule not in RULES:
        reason = f"unknown rule '{rule}'"
        close = difflib.get_close_matches(rule, sorted(RULES), n=1)
        if close:
            reason += f" (did you mean '{close[0]}'?)"
        reason += f"; known rules: {', '.join(RULES)}"
        ck.fail(join_key(key, "rule"), reason)
    code, required, optional = RULES[rule]
    for name in required:
        if name not in raw:
            ck.fail(join_key(key, name), f"missing required key: the {rule} rule needs '{name}'")
    ck.table(raw, key, required=("rule",) + required, optional=optional, top_level_hint=TOP_LEVEL_KEYS)

    own_mask = sec["mask"]
    scope, scope_mask = SCOPE_SECTION, own_mask
    if "scope" in raw:
        scope, scope_mask = _parse_scope(ck, raw["scope"], join_key(key, "scope"), sec_index, own_mask, sec_masks, all_mask)
    params = (0, 0, 0, 0)
    awards = later = ()
    sc = _scope_text(scope)

    def award_list(name):
        return ck.int_list(
            raw[name], join_key(key, name), min_len=1, max_len=L.MAX_AWARDS, lo=0, hi=MAX_POINTS, why=POINTS_WHY
        )

    if rule == "rank":
        awards = award_list("awards")
        text = f"rank {_awards_text(awards)}{sc}"
    elif rule == "rank_by_order":
        awards = award_list("awards")
        later = award_list("later")
        text = f"rank {_awards_text(awards)} first, then {_awards_text(later)}{sc}"
    elif rule == "per_piece":
        pts = points(ck, raw["points"], join_key(key, "points"))
        params = (pts, 0, 0, 0)
        text = f"{pts} per piece{sc}"
    elif rule == "completer":
        fr = []
        for name, default in (("completer", (1, 1)), ("others", (1, 2))):
            if name in raw:
                num, den = ck.int_list(raw[name], join_key(key, name), exact=2, lo=0, hi=MAX_POINTS, why=POINTS_WHY)
                if den < 1:
                    ck.fail(join_key(key, f"{name}[1]"), "the denominator must be at least 1")
            else:
                num, den = default
            fr.append((num, den))
        params = (fr[0][0], fr[0][1], fr[1][0], fr[1][1])
        text = f"completer {_frac(*fr[0])}, others {_frac(*fr[1])}{sc}"
    elif rule == "number_rank":
        offsets = ck.int_list(
            raw["offsets"], join_key(key, "offsets"), min_len=1, max_len=L.MAX_AWARDS, lo=-MAX_OFFSET, hi=MAX_OFFSET
        )
        floor = points(ck, raw["floor"], join_key(key, "floor")) if "floor" in raw else 0
        if sec["number"] is None:
            ck.fail(f"section[{sec['id']}].number", "the number_rank rule needs the section's number")
        n = sec["number"]
        awards = tuple(max(n + off, floor) for off in offsets)
        for i, a in enumerate(awards):
            if a > MAX_POINTS:
                ck.fail(
                    f"{join_key(key, 'offsets')}[{i}]",
                    f"the award number {n} + offset {offsets[i]} = {a} is above the maximum {MAX_POINTS} ({POINTS_WHY})",
                )
        offs = "/".join("N" if o == 0 else f"N{o:+d}" for o in offsets)
        text = f"rank {offs}" + (f" (floor {floor})" if floor else "") + sc
    elif rule in ("adjacent_presence", "adjacent_per_piece"):
        pts = points(ck, raw["points"], join_key(key, "points"))
        if not sec["adjacent"]:
            ck.fail(f"section[{sec['id']}].adjacent", f"the {rule} rule needs at least one adjacent section")
        params = (pts, 0, 0, 0)
        if rule == "adjacent_presence":
            text = f"{pts} for presence in all adjacent"
        else:
            text = f"{pts} per piece in adjacent"
    elif rule == "majority_takes_all":
        text = f"majority takes all pieces{sc}"
    else:  # longest_group
        pts = points(ck, raw["points"], join_key(key, "points"))
        params = (pts, 0, 0, 0)
        text = f"{pts} per space of longest group"
    return Term(rule=rule, code=code, scope=scope, scope_mask=scope_mask, params=params,
                awards=awards, later=later, text=text)


def _find_misplaced(doc, name):
    """Key path of a top-level key that TOML placed inside a table because it came after a header."""
    if isinstance(doc.get("instrument"), dict) and name in doc["instrument"]:
        return f"instrument.{name}"
    if isinstance(doc.get("track"), dict) and name in doc["track"]:
        return f"track.{name}"
    for arr in ("space", "section"):
        tables = doc.get(arr)
        if not isinstance(tables, list):
            continue
        for i, t in enumerate(tables):
            if not isinstance(t, dict):
                continue
            label = f"{arr}[{i}]"
            if arr == "section" and isinstance(t.get("id"), str):
                label = f"section[{t['id']}]"
            if name in t:
                return f"{label}.{name}"
            score = t.get("score")
            if arr == "section" and isinstance(score, list):
                for j, term in enumerate(score):
                    if isinstance(term, dict) and name in term:
                        return f"{label}.score[{j}].{name}"
    return None


def load_instrument(path, board=None):
    """Load and validate one instrument file. ``board`` supplies the default track and penalty."""
    path = Path(path)
    return instrument_from_doc(read_toml(path), path, board)


def instrument_from_doc(doc, source, board=None):
    """Validate an already-parsed instrument document (the dict ``tomllib`` gives for a file).

    ``source`` names the document in errors and becomes :attr:`Instrument.path`; used to load a
    changed copy of an instrument (a scenario's what-if overrides) through the same checks as a file.
    """
    path = source
    if board is None:
        board = load_board()
    ck = Checker(path)
    for name in ("lines", "neutral"):
        if name not in doc:
            where = _find_misplaced(doc, name)
            if where:
                ck.fail(
                    where,
                    f"unknown key '{name}'; '{name}' is a top-level key and must be written before the "
                    "first [table] header of the file",
                )
    ck.table(doc, "", required=("instrument", "space", "section", "lines", "neutral"), optional=("track",))

    # ------------------------------------------------------------------ [instrument]
    meta = ck.table(doc["instrument"], "instrument", required=("name", "department"), optional=_INSTRUMENT_KEYS,
                    top_level_hint=TOP_LEVEL_KEYS)
    name = ck.name(meta["name"], "instrument.name")
    dept_name = ck.string(meta["department"], "instrument.department")
    if dept_name not in L.DEPT_NAMES:
        ck.fail("instrument.department", f"unknown department '{dept_name}'; expected one of {', '.join(L.DEPT_NAMES)}")
    dept = L.DEPT_NAMES.index(dept_name)
    expansion = ck.boolean(meta.get("expansion", False), "instrument.expansion")
    reconstructed = ck.boolean(meta.get("reconstructed", False), "instrument.reconstructed")
    description = ck.string(meta["description"], "instrument.description") if "description" in meta else ""
    replaces = ck.boolean(meta.get("replaces", False), "instrument.replaces")
    penalty = board.penalty_per_space
    if "penalty_per_space" in meta:
        penalty = points(ck, meta["penalty_per_space"], "instrument.penalty_per_space")

    need, vp, token = board.track_need, board.track_vp, board.track_token
    if "track" in doc:
        t = ck.table(doc["track"], "track", optional=("need", "vp", "token"), top_level_hint=TOP_LEVEL_KEYS)
        need, vp, token = parse_track(ck, t, "track", need, vp, token)

    allowed = tuple(c for c in L.COLOUR_NAMES if c != dept_name)

    # ------------------------------------------------------------------ sections (ids first)
    raw_secs = ck.table_array(doc["section"], "section", 1, L.MAX_SECTIONS, "sections")
    sec_ids = []
    sec_keys = []
    for s, raw in enumerate(raw_secs):
        k = f"section[{s}]"
        if "id" not in raw:
            ck.fail(join_key(k, "id"), "missing required key")
        sid = ck.string(raw["id"], join_key(k, "id"))
        if sid in sec_ids:
            ck.fail(join_key(k, "id"), f"duplicate section id '{sid}'")
        sec_ids.append(sid)
        k = f"section[{sid}]"
        sec_keys.append(k)
        ck.table(raw, k, required=("id", "score"), optional=_SECTION_KEYS, top_level_hint=TOP_LEVEL_KEYS)
    sec_index = {sid: s for s, sid in enumerate(sec_ids)}

    # ------------------------------------------------------------------ spaces
    raw_spaces = ck.table_array(doc["space"], "space", 1, L.MAX_SPACES, "spaces")
    space_ids, numbers, colours, memberships = [], [], [], []
    for i, raw in enumerate(raw_spaces):
        k = f"space[{i}]"
        ck.table(raw, k, required=("id", "number", "colour"), optional=_SPACE_KEYS, top_level_hint=TOP_LEVEL_KEYS)
        sid = ck.string(raw["id"], f"{k}.id")
        if sid in space_ids:
            ck.fail(f"{k}.id", f"duplicate space id '{sid}'")
        space_ids.append(sid)
        numbers.append(ck.integer(raw["number"], f"{k}.number", lo=1, hi=3))
        colour = ck.string(raw["colour"], f"{k}.colour")
        if colour not in L.COLOUR_NAMES:
            ck.fail(f"{k}.colour", f"unknown colour '{colour}'; expected one of {', '.join(allowed)}")
        if colour not in allowed:
            ck.fail(
                f"{k}.colour",
                f"a {dept_name} instrument is built with {allowed[0]} and {allowed[1]} cats, not {colour} "
                f"(space '{sid}')",
            )
        colours.append(L.COLOUR_NAMES.index(colour))
        mem = set()
        if "sections" in raw:
            secs = ck.str_list(raw["sections"], f"{k}.sections", what="sections")
            for j, s_name in enumerate(secs):
                if s_name not in sec_index:
                    ck.fail(f"{k}.sections[{j}]", f"space '{sid}' names a missing section '{s_name}'")
                mem.add(sec_index[s_name])
        memberships.append(mem)
    space_index = {sid: i for i, sid in enumerate(space_ids)}
    nspaces = len(space_ids)
    all_mask = (1 << nspaces) - 1

    # Sections may also list their spaces; membership is the union of both directions.
    for s, raw in enumerate(raw_secs):
        if "spaces" in raw:
            k = f"{sec_keys[s]}.spaces"
            names = ck.str_list(raw["spaces"], k, what="spaces")
            for j, sp in enumerate(names):
                if sp not in space_index:
                    ck.fail(f"{k}[{j}]", f"section '{sec_ids[s]}' names a missing space '{sp}'")
                memberships[space_index[sp]].add(s)
    for i, mem in enumerate(memberships):
        if not mem:
            ck.fail(f"space[{i}].sections", f"space '{space_ids[i]}' belongs to no section")
    section_spaces = [tuple(i for i in range(nspaces) if s in memberships[i]) for s in range(len(sec_ids))]
    for s, sp in enumerate(section_spaces):
        if not sp:
            ck.fail(sec_keys[s], f"section '{sec_ids[s]}' has no spaces")
    sec_masks = [sum(1 << i for i in sp) for sp in section_spaces]

    # ------------------------------------------------------------------ section details
    sec_symbols, sec_numbers, sec_adj_names = [], [], []
    for s, raw in enumerate(raw_secs):
        k = sec_keys[s]
        sec_symbols.append(ck.string(raw["symbol"], f"{k}.symbol") if "symbol" in raw else "")
        sec_numbers.append(ck.integer(raw["number"], f"{k}.number", lo=0, hi=MAX_SECTION_NUMBER) if "number" in raw else None)
        adj = ck.str_list(raw.get("adjacent", []), f"{k}.adjacent", max_len=L.MAX_SECTIONS, what="sections")
        for j, a in enumerate(adj):
            if a not in sec_index:
                ck.fail(f"{k}.adjacent[{j}]", f"unknown section '{a}'")
            if a == sec_ids[s]:
                ck.fail(f"{k}.adjacent[{j}]", "a section cannot be adjacent to itself")
        sec_adj_names.append(adj)
    for s, adj in enumerate(sec_adj_names):
        for j, a in enumerate(adj):
            if sec_ids[s] not in sec_adj_names[sec_index[a]]:
                ck.fail(
                    f"{sec_keys[s]}.adjacent[{j}]",
                    f"adjacency must be listed on both sides: section '{a}' does not list '{sec_ids[s]}'",
                )
    sec_adjacent = [tuple(sec_index[a] for a in adj) for adj in sec_adj_names]

    terms_all = []
    for s, raw in enumerate(raw_secs):
        k = sec_keys[s]
        score = raw["score"]
        if isinstance(score, dict):
            score = [score]
        if not isinstance(score, list) or not score:
            ck.fail(f"{k}.score", "expected one or more [[section.score]] tables")
        if len(score) > L.MAX_TERMS:
            ck.fail(f"{k}.score", f"at most {L.MAX_TERMS} scoring terms per section supported, got {len(score)}")
        info = {"id": sec_ids[s], "mask": sec_masks[s], "number": sec_numbers[s], "adjacent": sec_adjacent[s]}
        terms_all.append(
            tuple(
                _parse_term(ck, t, f"{k}.score[{j}]", info, sec_index, sec_masks, all_mask)
                for j, t in enumerate(score)
            )
        )

    # ------------------------------------------------------------------ inspector lines
    raw_lines = ck.array(doc["lines"], "lines", min_len=1 if nspaces > 1 else 0, max_len=L.MAX_EDGES, what="lines")
    lines, seen = [], {}
    degree = [0] * nspaces
    for e, ln in enumerate(raw_lines):
        k = f"lines[{e}]"
        pair = ck.str_list(ln, k, 2, 2, what="space ids", unique=False)
        for j, sp in enumerate(pair):
            if sp not in space_index:
                ck.fail(f"{k}[{j}]", f"line names a missing space '{sp}'")
        a, b = space_index[pair[0]], space_index[pair[1]]
        if a == b:
            ck.fail(k, f"a line cannot join space '{pair[0]}' to itself")
        key2 = (min(a, b), max(a, b))
        if key2 in seen:
            ck.fail(k, f"duplicate line {pair[0]}-{pair[1]} (same as lines[{seen[key2]}])")
        seen[key2] = e
        lines.append((a, b))
        for x in (a, b):
            degree[x] += 1
            if degree[x] > L.MAX_LINKS:
                ck.fail(k, f"space '{space_ids[x]}' has more than {L.MAX_LINKS} lines")
    # Connectivity.
    if nspaces > 1:
        adj = [[] for _ in range(nspaces)]
        for a, b in lines:
            adj[a].append(b)
            adj[b].append(a)
        reached = {0}
        stack = [0]
        while stack:
            x = stack.pop()
            for y in adj[x]:
                if y not in reached:
                    reached.add(y)
                    stack.append(y)
        if len(reached) != nspaces:
            missing = [space_ids[i] for i in range(nspaces) if i not in reached]
            ck.fail(
                "lines",
                f"the inspector graph is not connected: {', '.join(missing)} cannot be reached from '{space_ids[0]}'",
            )

    # ------------------------------------------------------------------ neutral spaces
    neutral_names = ck.str_list(doc["neutral"], "neutral", what="spaces", unique=False)
    if len(neutral_names) != 2:
        ck.fail("neutral", f"exactly 2 neutral spaces are needed, got {len(neutral_names)}")
    for j, sp in enumerate(neutral_names):
        if sp not in space_index:
            ck.fail(f"neutral[{j}]", f"unknown space '{sp}'")
    if neutral_names[0] == neutral_names[1]:
        ck.fail("neutral", f"the two neutral spaces must differ, got '{neutral_names[0]}' twice")
    neutral = tuple(space_index[sp] for sp in neutral_names)

    return Instrument(
        name=name,
        department=dept,
        expansion=expansion,
        reconstructed=reconstructed,
        path=str(path),
        description=description,
        space_ids=tuple(space_ids),
        numbers=tuple(numbers),
        colours=tuple(colours),
        space_sections=tuple(tuple(sorted(m)) for m in memberships),
        section_ids=tuple(sec_ids),
        section_symbols=tuple(sec_symbols),
        section_numbers=tuple(sec_numbers),
        section_spaces=tuple(section_spaces),
        section_adjacent=tuple(sec_adjacent),
        section_terms=tuple(terms_all),
        lines=tuple(lines),
        neutral=neutral,
        track_need=tuple(need),
        track_vp=tuple(vp),
        track_token=tuple(token),
        penalty_per_space=penalty,
        total_cost=sum(numbers),
        replaces=replaces,
        _space_index=space_index,
        _section_index=sec_index,
    )
