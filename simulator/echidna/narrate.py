"""One Echidna Shuffle game told turn by turn, from the kernel's event log, and as a JSON document.

``narrate(record, strategies)`` returns the text ``ssb play --game echidna`` prints; the golden
playthroughs in ``tests/golden/echidna_*.txt`` are this text.
"""

from simulator.echidna import layout as L
from simulator.echidna.playout import seat_results, turns_played


def colour(seat):
    return L.COLOUR_NAMES[seat]


def _plural(n, word):
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _order_note(order, events, n):
    """What the set-up line says about who chose a pick-up space first (E1): nothing for the
    rulebook's order (the last seat first, as the choices below show), else the switch's order."""
    if order == "reverse":
        return ""
    if order == "turn":
        return ": pick-up spaces chosen in turn order, the first seat first"
    seats = [int(row[3]) for row in events if int(row[2]) == L.EV_PICKSPACE]
    drawn = ", ".join(f"seat {p + 1}" for p in seats) if len(seats) == n else "not logged"
    return f": pick-up spaces chosen in an order drawn for this game ({drawn})"


def event_dicts(events, board):
    """The log as a list of dicts (for JSON)."""
    names = {
        L.EV_ECHIDNA: ("echidna", ("echidna", "space")),
        L.EV_PICKSPACE: ("pick_space", ("seat", "space")),
        L.EV_STUMP: ("stump", ("placer", "colour", "space")),
        L.EV_TURN: ("turn", ("moves", "rolled", "tokens")),
        L.EV_MOVE: ("move", ("echidna", "from", "to", "paid")),
        L.EV_PICKUP: ("pickup", ("echidna", "space")),  # + the bug's colour: the seat's own (E4)
        L.EV_DELIVER: ("deliver", ("colour", "echidna", "space")),
        L.EV_GAIN: ("token_gain", ("colour", "tokens")),
        L.EV_LOST: ("moves_lost", ("moves",)),
        L.EV_WIN: ("win", ("winner",)),  # "seat" stays the seat whose turn it is (E6: any turn)
        L.EV_STALL: ("stall", ("round",)),
        L.EV_TOKENS: ("catch_up_tokens", ("seat", "tokens")),
    }
    spacey = {"space", "from", "to"}
    out = []
    for row in events:
        turn, seat, code = int(row[0]), int(row[1]), int(row[2])
        kind, fields = names[code]
        d = {"turn": turn, "seat": seat, "event": kind}
        for k, v in zip(fields, row[3:]):
            d[k] = board.ids[int(v)] if k in spacey else int(v)
        if code == L.EV_PICKUP:
            d["colour"] = seat
        out.append(d)
    return out


def game_document(record, strategies=()):
    """The game as a JSON-ready dict: settings, events, per-seat and per-game results."""
    setup = record.setup
    n = setup.nplayers
    sr = seat_results(record.state[None, :], n)
    st = record.state
    return {
        "game": "echidna",
        "board": setup.board.name,
        "players": n,
        "variants": setup.variants.label(),
        "pickup_order": setup.variants.pickup_order,
        "seed": record.seed,
        "strategies": list(strategies),
        "max_rounds": int(setup.variants.max_rounds or setup.rules.max_rounds),
        "winner": int(st[L.S_WINNER]),
        "rounds": int(st[L.S_ROUND]),
        "turns": int(turns_played(st)),
        "stalled": int(st[L.S_STALLED]),
        "tokens": {
            "supply_at_start": int(setup.rules.move_tokens),
            "supply_left": int(st[L.S_SUPPLY]),
            "out_of_the_game": int(st[L.S_OUT]),
            "held": [int(st[L.S_TOKENS + s]) for s in range(n)],
        },
        "seats": [{k: int(v[0, s]) for k, v in sr.items()} | {"seat": s, "colour": colour(s)} for s in range(n)],
        "events": event_dicts(record.events, setup.board),
    }


def narrate(record, strategies=()):
    """The game as text, turn by turn."""
    setup = record.setup
    b = setup.board
    n = setup.nplayers
    st = record.state
    out = []
    say = out.append
    recon = " (reconstructed)" if b.reconstructed else ""
    say(f"Echidna Shuffle on the {b.name} board{recon}, {n} players, seed {record.seed}")
    say(f"variants: {setup.variants.label()}" + ("" if setup.variants.roll_every_turn else " (number board)"))
    for s in range(n):
        who = strategies[s] if s < len(strategies) else "?"
        say(f"  seat {s + 1}: {colour(s)} {L.BUG_PLURALS[s]}, {who}")
    say("set-up" + _order_note(setup.variants.pickup_order, record.events, n))
    ech = []
    stumps = {}
    pos = {}
    riders = {}
    turn_seen = -1
    for row in record.events:
        turn, seat, code, a, bb, c, d = (int(x) for x in row)
        if code == L.EV_ECHIDNA:
            ech.append(f"E{a}:{b.ids[bb]}")
            pos[a] = bb
            continue
        if ech:
            say("  echidnas " + " ".join(ech))
            ech = []
        if code == L.EV_PICKSPACE:
            say(f"  {colour(a)} chooses pick-up space {b.ids[bb]}")
        elif code == L.EV_STUMP:
            stumps.setdefault((a, bb), []).append(b.ids[c])
            if len(stumps[(a, bb)]) == 3:
                say(f"  {colour(a)} places {colour(bb)}'s stumps on {', '.join(stumps[(a, bb)])}")
        elif code == L.EV_TOKENS:
            say(f"  {colour(a)} starts with {_plural(bb, 'catch-up token')}")
        elif code == L.EV_TURN:
            if turn != turn_seen:
                turn_seen = turn
                how = "rolls" if bb else "number board gives"
                held = f", holds {_plural(c, 'token')}" if c else ""
                say(f"turn {turn + 1}: {colour(seat)} {how} {a}{held}")
        elif code == L.EV_MOVE:
            rider = riders.get(a, -1)
            load = f" carrying {colour(rider)}'s bug" if rider >= 0 else ""
            paid = " (token)" if d else ""
            say(f"    E{a}{load} {b.ids[bb]} -> {b.ids[c]}{paid}")
            pos[a] = c
        elif code == L.EV_PICKUP:
            riders[a] = seat
            say(f"    {colour(seat)} puts a bug on E{a} at {b.ids[bb]}")
        elif code == L.EV_DELIVER:
            riders[bb] = -1
            when = "" if a == seat else f" on {colour(seat)}'s turn"
            say(f"    E{bb} delivers {colour(a)}'s bug home to the stump on {b.ids[c]}{when}")
        elif code == L.EV_GAIN:
            say(f"    {colour(a)} is in the home stretch and gains a token ({bb} held)")
        elif code == L.EV_LOST:
            say(f"    no echidna can move: {_plural(a, 'move')} lost")
        elif code == L.EV_WIN:
            say(f"{colour(a)} has all three bugs home and wins")
        elif code == L.EV_STALL:
            say(f"the stall cap of {a} rounds ends the game with no winner")
    sr = seat_results(st[None, :], n)
    say(f"result: {int(st[L.S_ROUND])} full rounds, {int(turns_played(st))} turns" + (", stalled" if st[L.S_STALLED] else ""))
    cols = ("won", "bugs_home", "moves_made", "moves_lost", "tokens_gained", "tokens_spent", "pickups", "deliveries_off_turn")
    say("  seat    " + " ".join(f"{c:>19s}" for c in cols))
    for s in range(n):
        say(f"  {colour(s):7s} " + " ".join(f"{int(sr[c][0, s]):>19d}" for c in cols))
    return "\n".join(out) + "\n"
