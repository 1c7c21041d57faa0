"""A game's event log as text a person can follow, and as named records for machines.

``play_one`` returns the log as int32 rows ``turn, seat, code, a, b, c, d, e`` (``simulator.shuffle_swing.layout``
lists the codes). This module reads them back:

* :func:`event_dicts` turns every row into a dict with named fields (the ``--json`` output);
* :func:`narrate` writes a turn-by-turn account followed by the final scoring table;
* :func:`game_document` gathers setup, events and results into one JSON-ready dict.

The narration keeps a light shadow of the board (pieces, inspectors, brag discs, running scores) so
that each line can say what changed, e.g. that a brag was wasted on the top space or that an
instrument has just been finished. It never touches the kernel's state.

Nothing here imports click: the CLI is one consumer among others (tests, notebooks).
"""

from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.kernel.invariants import VIOLATIONS
from simulator.shuffle_swing.playout import game_results, seat_results

# --------------------------------------------------------------------------- event vocabulary
# code -> (name, field names of columns a..e). The select and build events pack two values into
# their last column (``from_supply * 16 + face`` and ``cost * 16 + ladders``); event_dicts unpacks them.
EVENT_FIELDS = {
    L.EV_MOVE: ("move", ("seat", "from_spot", "to_spot", "room")),
    L.EV_PICKUP: ("pickup", ("seat", "room", "die")),
    L.EV_BRAG: ("brag", ("owner", "dept", "space", "token", "origin")),
    L.EV_SELECT: ("select", ("seat", "die", "dept", "slice", "_packed")),
    L.EV_RECRUIT: ("recruit", ("owner", "colour")),
    L.EV_PRI_PIECE: ("pri_piece", ("dept", "space", "outer")),
    L.EV_ACTION_BRAG: ("action_brag", ("seat", "dept")),
    L.EV_BUILD: ("build", ("seat", "dept", "space", "outer", "_packed")),
    L.EV_SCORE: ("score", ("owner", "points", "source", "dept", "where")),
    L.EV_REFRESH: ("refresh", ("seat", "pips", "mode", "cats")),
    L.EV_INSPECT_STEP: ("inspect_step", ("seat", "dept", "space", "jumped")),
    L.EV_TICK: ("tick", ("die", "dept", "slice", "face")),
    L.EV_TO_ROOM: ("to_room", ("die", "room")),
    L.EV_BUMP: ("bump", ("die", "room", "owner")),
    L.EV_PASS: ("pass", ("seat",)),
    L.EV_SECTION: ("section", ("dept", "section", "completer")),
    L.EV_PRI_MOVE: ("pri_move", ("to_spot", "from_spot")),
    L.EV_PRI_CLIMB: ("pri_climb", ("dept",)),
    L.EV_EXHAUST: ("exhaust", ("seat", "colour", "quilt")),
    L.EV_FORFEIT: ("forfeit", ("seat", "pips")),
    L.EV_GAME_END: ("game_end", ("rounds", "stalled")),
    L.EV_FINAL: ("final", ("winner", "score", "tied")),
    L.EV_TRIGGER: ("trigger", ("built",)),
    L.EV_BOOST: ("boost", ("seat", "token", "count")),
}

ORIGIN_NAMES = {L.BRAG_PICKUP: "pickup", L.BRAG_BUMP: "bump", L.BRAG_ACTION: "action", L.BRAG_PRI: "pri"}
REFRESH_MODES = {1: "row", 2: "column", 3: "row and column"}


def owner_name(owner, nplayers):
    """``Seat 1``..``Seat 4``; owner 4 is Pri with two players and the neutral with three."""
    if owner == L.AUTOMA:
        return "Pri" if nplayers == 2 else "neutral"
    if owner < 0:
        return "nobody"
    return f"Seat {owner + 1}"


def spot_name(spot, insts):
    """``orange spot 3 (Piano)``: department, position 1..3 clockwise, instrument."""
    if spot < 0:
        return "off the board"
    d = spot // 3
    return f"{L.DEPT_NAMES[d]} spot {spot % 3 + 1} ({insts[d].name})"


def room_name(room):
    """Break room ``r`` sits between department ``r`` and the next one clockwise."""
    return f"break room {room + 1} ({L.DEPT_NAMES[room]}/{L.DEPT_NAMES[(room + 1) % L.N_DEPT]})"


def source_label(src, insts):
    """A score source in the designer's words: ``Piano objectives``, ``Violin end award``."""
    if src == L.SRC_INSPECTOR:
        return "inspector"
    d = (src - L.SRC_OBJECTIVE) % L.N_DEPT
    name = insts[d].name if insts is not None else L.DEPT_NAMES[d]
    if src < L.SRC_BRAG:
        return f"{name} objectives"
    if src < L.SRC_PENALTY:
        return f"{name} end award"
    return f"{name} unbuilt penalty"


def pieces_reach(inst, pieces):
    """Highest brag-track space whose piece requirement ``pieces`` meets (R12)."""
    k = 0
    for i, need in enumerate(inst.track_need):
        if pieces >= need:
            k = i
    return k


def quilt_name(q):
    return f"r{L.QUILT_ROW[q]}c{L.QUILT_COL[q]}"


def _a(word):
    return ("an " if word[0] in "aeiou" else "a ") + word


def _plural(n, word, many=None):
    return f"{n} {word if n == 1 else (many or word + 's')}"


# --------------------------------------------------------------------------- named records


def event_dicts(events, insts=None):
    """Every log row as a dict: ``turn``, ``turn_seat`` (the seat whose turn it is), ``event`` and the
    named fields of that event. With ``insts`` (three instruments in department order) space and
    section indices also get their ids."""
    out = []
    for row in events:
        turn, cur, code = int(row[0]), int(row[1]), int(row[2])
        args = [int(x) for x in row[3:8]]
        name, fields = EVENT_FIELDS.get(code, (f"code_{code}", ("a", "b", "c", "d", "e")))
        ev = {"turn": turn, "turn_seat": cur, "event": name}
        for f, v in zip(fields, args, strict=False):  # unused trailing columns are 0
            if f != "_packed":
                ev[f] = v
        if code == L.EV_SELECT:
            ev["from_supply"] = args[4] >> 4
            ev["face"] = args[4] & 15
            ev["face_name"] = L.FACE_NAMES[ev["face"]]
        elif code == L.EV_BUILD:
            ev["cost"] = args[4] >> 4
            ev["ladders"] = args[4] & 15
        elif code == L.EV_SCORE:
            ev["source_name"] = L.SRC_NAMES[args[2]]
            if L.SRC_OBJECTIVE <= args[2] < L.SRC_BRAG:
                ev["where"] = args[4] % L.SCORE_TERM_SHIFT  # the section
                ev["term"] = args[4] // L.SCORE_TERM_SHIFT
        elif code == L.EV_BRAG:
            ev["origin_name"] = ORIGIN_NAMES.get(args[4], str(args[4]))
        if insts is not None and "dept" in ev and 0 <= ev["dept"] < L.N_DEPT:
            inst = insts[ev["dept"]]
            ev["instrument"] = inst.name
            if code in (L.EV_PRI_PIECE, L.EV_BUILD, L.EV_INSPECT_STEP):
                ev["space_id"] = inst.space_name(ev["space"])
            elif code == L.EV_SECTION:
                ev["section_id"] = inst.section_name(ev["section"])
            elif code == L.EV_SCORE:
                if args[2] == L.SRC_INSPECTOR:
                    ev["space_id"] = inst.space_name(args[4])
                elif L.SRC_OBJECTIVE <= args[2] < L.SRC_BRAG:
                    ev["section_id"] = inst.section_name(ev["where"])
                    terms = inst.section_terms[ev["where"]]
                    if ev["term"] < len(terms):
                        ev["term_text"] = terms[ev["term"]].text
                ev["source_label"] = source_label(args[2], insts)
        out.append(ev)
    return out


def seat_rows(st, nplayers, strategies=()):
    """One dict per seat: index (0-based, as in the events), name, strategy, score, every score source,
    pieces and brag space per instrument, rank, win flag and the per-seat counters (the columns of
    ``playout.seat_results``)."""
    cols = seat_results(st[None, :], nplayers)
    rows = []
    for p in range(nplayers):
        row = {"seat": p, "name": owner_name(p, nplayers)}
        if strategies:
            row["strategy"] = strategies[p]
        row.update({k: int(v[0, p]) for k, v in cols.items()})
        rows.append(row)
    return rows


def game_row(st, nplayers):
    """Per-game results (``playout.game_results`` columns) plus the winner's name."""
    game = {k: int(v[0]) for k, v in game_results(st[None, :]).items()}
    game["winner_name"] = owner_name(game["winner"], nplayers) if game["winner"] >= 0 else None
    return game


def game_document(record, strategies=()):
    """Setup, seed, named events and the final results of one game, ready for ``json.dumps``."""
    setup = record.setup
    npl = setup.nplayers
    st = record.state
    doc = {
        "setup": {
            "players": npl,
            "instruments": {L.DEPT_NAMES[d]: inst.name for d, inst in enumerate(setup.insts)},
            "strategies": list(strategies),
            "wheels": {
                L.DEPT_NAMES[d]: [L.ACTION_NAMES[a] for a in _slice_actions(st, d)] for d in range(L.N_DEPT)
            },
            "max_rounds": int(setup.geo[L.G_MAX_ROUNDS]),
        },
        "seed": int(record.seed),
        "violation": None,
        "events": event_dicts(record.events, setup.insts),
        "seats": seat_rows(st, npl, strategies),
        "game": game_row(st, npl),
    }
    if record.violation:
        doc["violation"] = {
            "code": int(record.violation),
            "turn": int(record.violation_turn),
            "message": VIOLATIONS.get(int(record.violation), "unknown"),
        }
    return doc


def _slice_actions(st, d):
    # Wheels are shuffled at setup and never change afterwards, so the final state tells them.
    return [int(st[L.S_SLICE_ACTION + d * L.N_SLICES + s]) for s in range(L.N_SLICES)]


# --------------------------------------------------------------------------- narration


class _Narrator:
    """Walks the log once, keeping just enough of the board to explain each event."""

    def __init__(self, record, strategies):
        self.record = record
        self.setup = record.setup
        self.insts = record.setup.insts
        self.npl = record.setup.nplayers
        self.strategies = list(strategies) if strategies else []
        st = record.state
        self.slices = [_slice_actions(st, d) for d in range(L.N_DEPT)]
        self.inner = [[-1] * inst.nspaces for inst in self.insts]
        self.outer = [[-1] * inst.nspaces for inst in self.insts]
        self.inspector = [-1] * L.N_DEPT
        self.brag = {}
        self.score = [0] * L.N_OWNERS
        self.built = [False] * L.N_DEPT
        self.lines = []
        self.turn = -1
        self.round = -1
        self.over = False
        self.exhausts = []
        self.slice_used = None
        discs = list(range(self.npl)) + ([L.AUTOMA] if self.npl == 2 else [])
        for d in range(L.N_DEPT):
            for o in discs:
                self.brag[d, o] = 0
            if self.npl == 3:
                for sp in self.insts[d].neutral:
                    self.inner[d][sp] = L.AUTOMA
            self.built[d] = all(o >= 0 for o in self.inner[d])

    # ------------------------------------------------------------------ naming
    def who(self, owner):
        return owner_name(owner, self.npl)

    def die(self, die):
        return f"{self.who(die // L.DICE_PER_OWNER)}'s die {die % L.DICE_PER_OWNER + 1}"

    def space_detail(self, d, sp):
        inst = self.insts[d]
        return f"{inst.name} {inst.space_name(sp)} ({inst.numbers[sp]} {L.COLOUR_NAMES[inst.colours[sp]]})"

    def slice(self, d, s):
        return f"slice {s + 1} ({L.ACTION_NAMES[self.slices[d][s]]})"

    def say(self, text, indent=2):
        self.lines.append(" " * indent + text)

    # ------------------------------------------------------------------ document parts
    def header(self):
        s = self.setup
        self.lines.append(f"Shuffle and Swing: {self.npl} players, game seed {self.record.seed}")
        seats = []
        for p in range(self.npl):
            strat = f" ({self.strategies[p]})" if p < len(self.strategies) else ""
            seats.append(f"{self.who(p)}{strat}")
        self.lines.append("Seats in turn order: " + ", ".join(seats))
        self.lines.append("Instruments and wheels (slices 1-4 clockwise):")
        for d, inst in enumerate(self.insts):
            wheel = ", ".join(L.ACTION_NAMES[a] for a in self.slices[d])
            self.lines.append(f"  {L.DEPT_NAMES[d]:<6} {inst.name}: {wheel}")
            self.lines.append(f"         scoring: {inst.rule_summary()}")
        if self.npl == 3:
            parts = [
                f"{inst.name} {', '.join(inst.space_name(sp) for sp in inst.neutral)}" for inst in self.insts
            ]
            self.lines.append("Neutral pieces: " + "; ".join(parts))
        if self.npl == 2:
            start = next((int(r[4]) for r in self.record.events if r[2] == L.EV_PRI_MOVE), None)
            where = f" on {spot_name(start, self.insts)}" if start is not None and start >= 0 else ""
            self.lines.append(f"Pri starts{where}, one die on a construct slice of each wheel, showing 2*.")
        self.lines.append(f"Round cap: {int(s.geo[L.G_MAX_ROUNDS])}")

    def turn_header(self, turn, seat):
        rnd = turn // self.npl
        if rnd != self.round:
            self.round = rnd
            self.lines.append("")
            self.lines.append(f"== Round {rnd + 1} ==")
        self.turn = turn
        strat = f" ({self.strategies[seat]})" if seat < len(self.strategies) else ""
        self.lines.append(f"Turn {turn + 1}: {self.who(seat)}{strat}")

    # ------------------------------------------------------------------ the walk
    def run(self):
        self.header()
        for row in self.record.events:
            turn, cur, code = int(row[0]), int(row[1]), int(row[2])
            a, b, c, d, e = (int(x) for x in row[3:8])
            if code != L.EV_EXHAUST and self.exhausts and code != L.EV_BUILD:
                self.flush_exhausts()
            between = code in (L.EV_PRI_MOVE, L.EV_GAME_END, L.EV_FINAL)
            if not self.over and not between and turn != self.turn:
                self.turn_header(turn, cur)
            handler = getattr(self, f"ev_{EVENT_FIELDS.get(code, ('unknown',))[0]}", None)
            if handler is None:
                self.say(f"event {code}: {a} {b} {c} {d} {e}")
            else:
                handler(cur, a, b, c, d, e)
        self.flush_exhausts()
        if self.record.violation:
            code = self.record.violation
            self.lines.append("")
            self.lines.append(
                f"INVARIANT VIOLATED after turn {self.record.violation_turn}: "
                f"{VIOLATIONS.get(code, 'unknown')} (code {code}). The game stopped here."
            )
        self.lines.append("")
        self.lines.extend(final_table(self.record, self.strategies))
        return self.lines

    # ------------------------------------------------------------------ handlers, one per event
    def ev_move(self, cur, p, frm, to, room, _e):
        if frm < 0:
            text = f"{self.who(p)} enters the board on {spot_name(to, self.insts)}"
        else:
            text = f"{self.who(p)} moves from {spot_name(frm, self.insts)} to {spot_name(to, self.insts)}"
        if room >= 0:
            text += f", passing {room_name(room)}"
        self.say(text + ".")

    def ev_pickup(self, cur, p, room, die, _d, _e):
        self.say(f"{self.who(p)} picks up {self.die(die)} from {room_name(room)}: an expert now, back on 2*.")

    def ev_brag(self, cur, owner, d, pos, token, origin):
        inst = self.insts[d].name
        why = {L.BRAG_PICKUP: " (pickup)", L.BRAG_BUMP: " (bumped die)"}.get(origin, "")
        before = self.brag.get((d, owner), -1)
        if pos == before or pos < 0:
            self.say(f"{self.who(owner)} brags{why} on the {inst} track but is already on its top space.")
            return
        self.brag[d, owner] = pos
        if origin == L.BRAG_PRI:
            self.say(f"Pri climbs the {inst} track: space {pos}.")
            return
        gain = f", gains {_a(L.TOKEN_NAMES[token])} token" if token >= 0 else ""
        self.say(f"{self.who(owner)} brags{why} on the {inst} track: space {pos}{gain}.")

    def ev_select(self, cur, p, die, d, s, packed):
        face = L.FACE_NAMES[packed & 15]
        self.slice_used = (d, s)
        if packed >> 4:
            self.say(f"{self.who(p)} puts {self.die(die)} from the supply on {self.insts[d].name} "
                     f"{self.slice(d, s)}, showing {face}.")
        else:
            self.say(f"{self.who(p)} selects {self.die(die)} on {self.insts[d].name} {self.slice(d, s)}, "
                     f"showing {face}.")

    def ev_recruit(self, cur, owner, colour, _c, _d, _e):
        self.say(f"{self.who(owner)} recruits {_a(L.COLOUR_NAMES[colour])} cat.")

    def ev_pri_piece(self, cur, d, sp, outer, _d, _e):
        kind = "an upgrade piece on" if outer else "a build piece on"
        self.say(f"Pri's die pays out: {self.who(cur)} places {kind} {self.space_detail(d, sp)} for Pri.")
        self.place(d, sp, L.AUTOMA, outer)

    def ev_action_brag(self, cur, p, d, _c, _d, _e):
        action = "action"
        if self.slice_used and self.slice_used[0] == d:
            action = f"{L.ACTION_NAMES[self.slices[d][self.slice_used[1]]]} action"
        self.say(f"{self.who(p)} brags instead of taking the {action}.")

    def ev_exhaust(self, cur, p, colour, q, _d, _e):
        self.exhausts.append((p, colour, q))

    def flush_exhausts(self):
        # Cats exhausted outside a build (not expected): report them plainly.
        for p, colour, q in self.exhausts:
            where = f"quilt {quilt_name(q)}" if q >= 0 else "the supply (lost)"
            self.say(f"{self.who(p)} exhausts {_a(L.COLOUR_NAMES[colour])} cat to {where}.")
        self.exhausts = []

    def ev_build(self, cur, p, d, sp, outer, packed):
        cost, ladders = packed >> 4, packed & 15
        cats, self.exhausts = self.exhausts, []
        if outer:
            under = self.inner[d][sp]
            onto = "" if under == p else f" on top of {self.who(under)}'s piece"
            text = f"{self.who(p)} upgrades {self.space_detail(d, sp)}{onto}"
        else:
            text = f"{self.who(p)} builds on {self.space_detail(d, sp)}"
        if ladders:
            text += f" using {_plural(ladders, 'ladder')}"
        if cost == 0:
            text += ": free"
        else:
            by_colour = {}
            for _, colour, _q in cats:
                by_colour[colour] = by_colour.get(colour, 0) + 1
            paid = " + ".join(f"{n} {L.COLOUR_NAMES[c]}" for c, n in sorted(by_colour.items()))
            text += f": pays {paid} {'cat' if len(cats) == 1 else 'cats'}"
            rest = [quilt_name(q) for _, _, q in cats if q >= 0]
            lost = sum(1 for _, _, q in cats if q < 0)
            parts = []
            if rest:
                parts.append("to quilt " + ", ".join(rest))
            if lost:
                parts.append(f"{lost} lost, quilt full")
            if parts:
                text += " (" + "; ".join(parts) + ")"
        self.say(text + ".")
        self.place(d, sp, p, outer)

    def place(self, d, sp, owner, outer):
        (self.outer if outer else self.inner)[d][sp] = owner
        if not outer and not self.built[d] and all(o >= 0 for o in self.inner[d]):
            self.built[d] = True
            self.say(f"{self.insts[d].name} is now fully built.")

    def ev_score(self, cur, owner, pts, src, d, where):
        self.score[owner] += pts
        inst = self.insts[d]
        if src == L.SRC_INSPECTOR:
            reason = f"the {inst.name} inspector on {inst.space_name(where)}"
        elif src < L.SRC_BRAG:
            sec, term = where % L.SCORE_TERM_SHIFT, where // L.SCORE_TERM_SHIFT
            terms = inst.section_terms[sec]
            rule = f" ({terms[term].text})" if term < len(terms) and terms[term].text else ""
            reason = f"{inst.name} section {inst.section_name(sec)}{rule}"
        elif src < L.SRC_PENALTY:
            disc = self.brag.get((d, owner), 0)
            reach = pieces_reach(inst, self.pieces(d, owner))
            reason = f"the {inst.name} end award, space {where} = min(disc space {disc}, pieces reach {reach})"
        else:
            reason = f"the {inst.name} unbuilt penalty, last place on its track"
        verb = f"scores {_plural(pts, 'point')}" if pts >= 0 else f"loses {_plural(-pts, 'point')}"
        # Inspector points hang under the step or build that caused them; the rest stand alone.
        indent = 4 if src == L.SRC_INSPECTOR and not self.over else 2
        self.say(f"{self.who(owner)} {verb} from {reason}, total {self.score[owner]}.", indent)

    def pieces(self, d, owner):
        return sum(1 for o in self.inner[d] if o == owner) + sum(1 for o in self.outer[d] if o == owner)

    def ev_refresh(self, cur, p, pips, mode, n, _e):
        milk = " with a milk token" if mode == 3 else ""
        line = REFRESH_MODES.get(mode, f"mode {mode}")
        self.say(f"{self.who(p)} refreshes {line} {pips}{milk}: {_plural(n, 'cat')} back.")

    def ev_inspect_step(self, cur, p, d, sp, jumped, _e):
        inst = self.insts[d]
        where = f"{inst.space_name(sp)} ({inst.numbers[sp]})"
        if jumped:
            text = f"The {inst.name} inspector jumps over {where} for a cheese token"
        elif self.inspector[d] < 0:
            text = f"The {inst.name} inspector is placed on {where}"
        else:
            text = f"The {inst.name} inspector moves to {where}"
        self.inspector[d] = sp
        if not jumped and self.inner[d][sp] < 0:
            text += ", an empty space"
        self.say(text + ".")

    def ev_tick(self, cur, die, d, s, face, _e):
        change = "back on 2*" if face == L.EXPERT_START else f"ticks up to {L.FACE_NAMES[face]}"
        self.say(f"{self.die(die)} moves on to {self.slice(d, s)}, {change}.")

    def ev_to_room(self, cur, die, room, _c, _d, _e):
        self.say(f"{self.die(die)} was used on its top face and goes to {room_name(room)}.")

    def ev_bump(self, cur, die, room, owner, _d, _e):
        self.say(f"{self.die(die)} is bumped out of {room_name(room)} and returns to {self.who(owner)} on 2*.")

    def ev_pass(self, cur, p, _b, _c, _d, _e):
        self.say(f"{self.who(p)} has no die to select and passes.")

    def ev_section(self, cur, d, s, completer, _d, _e):
        inst = self.insts[d]
        self.say(f"{inst.name} section {inst.section_name(s)} is complete ({self.who(completer)} placed the last "
                 "piece); it scores at the end of the turn.")

    def ev_pri_move(self, cur, to, frm, _c, _d, _e):
        self.say(f"Pri moves clockwise to {spot_name(to, self.insts)}.", 0)

    def ev_pri_climb(self, cur, d, _b, _c, _d, _e):
        self.say(f"Pri's die was used on 4*: Pri climbs the {self.insts[d].name} track twice.")

    def ev_forfeit(self, cur, p, n, _c, _d, _e):
        self.say(f"{self.who(p)} forfeits {_plural(n, 'pip')}.")

    def ev_trigger(self, cur, n, _b, _c, _d, _e):
        names = ", ".join(i.name for d, i in enumerate(self.insts) if self.built[d])
        self.say(f"Game end triggered: {n} instruments built ({names}); the round is played out.")

    def ev_game_end(self, cur, rounds, stalled, _c, _d, _e):
        self.over = True
        self.lines.append("")
        if stalled:
            self.lines.append(f"Game over after {rounds} rounds: the round cap was reached before two "
                              "instruments were built (stalled).")
        else:
            self.lines.append(f"Game over after {rounds} rounds.")
        self.lines.append("End-game scoring:")
        for d, inst in enumerate(self.insts):
            if self.built[d]:
                continue
            empty = sum(1 for o in self.inner[d] if o < 0)
            discs = {o: pos for (dd, o), pos in self.brag.items() if dd == d}
            low = min(discs.values())
            last = [self.who(o) for o in sorted(discs) if discs[o] == low]
            self.say(
                f"{inst.name} is unbuilt with {_plural(empty, 'empty space')}: the penalty of "
                f"{inst.penalty_per_space * empty} falls on last place on its track ({', '.join(last)})"
                + (", shared evenly, rounded down." if len(last) > 1 else ".")
            )

    def ev_final(self, cur, winner, best, tied, _d, _e):
        pass  # the final table names the winner

    def ev_boost(self, cur, p, token, n, _d, _e):
        # Ladders show on the build line and milk on the refresh line; report anything else.
        if token not in (L.LADDER, L.MILK):
            self.say(f"{self.who(p)} spends {_plural(n, L.TOKEN_NAMES[token] + ' token')}.")


def final_table(record, strategies=()):
    """The closing summary: per-seat totals, score sources, pieces and brag spaces, then the winner."""
    setup = record.setup
    npl = setup.nplayers
    st = record.state
    seats = seat_rows(st, npl, strategies)
    game = game_row(st, npl)
    automa = npl in (2, 3)  # Pri (2p) or the neutral (3p): pieces and disc, never points
    cols = [s["name"] for s in seats] + ([owner_name(L.AUTOMA, npl)] if automa else [])
    dash = ["-"] if automa else []

    def per_seat(key):
        return [s[key] for s in seats]

    rows = []
    if strategies:
        rows.append(("strategy", per_seat("strategy") + dash))
    rows.append(("total", per_seat("score") + dash))
    # Starting points ([seats] start_points, a seat lever) are part of the total, beside its sources.
    start = [int(setup.geo[L.G_SEAT_POINTS + p]) for p in range(npl)]
    if any(start):
        rows.append(("starting points", start + dash))
    for name in L.SRC_NAMES:
        rows.append((source_label(L.SRC_NAMES.index(name), setup.insts), per_seat(name) + dash))
    # The end award of a built instrument is the VP of min(disc space, space the pieces reach) (R12).
    for d, inst in enumerate(setup.insts):
        dn = L.DEPT_NAMES[d]
        extra = [int(st[L.S_PIECES + d * L.N_OWNERS + L.AUTOMA])] if automa else []
        rows.append((f"{inst.name} pieces", per_seat(f"pieces_{dn}") + extra))
        pos = int(st[L.S_BRAG_POS + d * L.N_OWNERS + L.AUTOMA])
        extra = [pos if pos >= 0 else "-"] if automa else []
        rows.append((f"{inst.name} disc space", per_seat(f"brag_space_{dn}") + extra))
        reach = [pieces_reach(inst, s[f"pieces_{dn}"]) for s in seats]
        rows.append((f"{inst.name} pieces reach space", reach + dash))
        if game[f"built_{dn}"]:
            award = [min(s[f"brag_space_{dn}"], r) for s, r in zip(seats, reach, strict=True)]
            rows.append((f"{inst.name} award space (min)", award + dash))
    rows.append(("rank", per_seat("rank") + dash))

    label_w = max(len(r[0]) for r in rows)
    col_w = max(8, *(len(c) for c in cols), *(len(str(v)) for _, vals in rows for v in vals))
    out = ["Final scoring table"]
    out.append(" " * label_w + "".join(f"  {c:>{col_w}}" for c in cols))
    for label, vals in rows:
        out.append(f"{label:<{label_w}}" + "".join(f"  {str(v):>{col_w}}" for v in vals))
    built = ", ".join(
        f"{inst.name} {'built' if game[f'built_{L.DEPT_NAMES[d]}'] else 'unbuilt'}"
        for d, inst in enumerate(setup.insts)
    )
    out.append(f"Instruments: {built}")
    if record.violation:
        out.append("Winner: none, the game stopped on an invariant violation")
    elif game["winner"] < 0:
        out.append("Winner: none, the game did not finish")
    else:
        w = game["winner"]
        if game["tiebreak"]:
            others = _plural(game["tied"] - 1, "other seat")
            how = f"tied on points with {others}; the tie-break (later in turn order) decided"
        else:
            how = "outright, no tie-break"
        out.append(f"Winner: {game['winner_name']} with {seats[w]['score']} points ({how})")
    out.append(
        f"Rounds: {game['rounds']}, turns: {game['turns']}, stalled: {'yes' if game['stalled'] else 'no'}"
    )
    return out


def narrate_lines(record, strategies=()):
    """The account of one logged game as a list of lines (see :func:`narrate`)."""
    return _Narrator(record, strategies).run()


def narrate(record, strategies=()):
    """A readable turn-by-turn account of ``record`` (from ``playout.play_one``) ending in the final
    scoring table. ``strategies`` names each seat's strategy for the headers."""
    return "\n".join(narrate_lines(record, strategies)) + "\n"
