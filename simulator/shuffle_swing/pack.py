"""Packing the loaded board and instruments into the kernel's ``geo`` int64 array, and back."""

from __future__ import annotations

import numpy as np

from simulator.errors import DataError
from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.instruments import Instrument
from simulator.shuffle_swing.library import LIBRARY_SOURCE


# =========================================================================== packing


def pack_geo(board, instruments, nplayers):
    """Fill the kernel's ``geo`` int64 array (layout in ``simulator.shuffle_swing.layout``).

    ``instruments`` holds three :class:`Instrument` in department order black, orange, gray.
    """
    if isinstance(nplayers, bool) or not isinstance(nplayers, (int, np.integer)) or not 2 <= nplayers <= L.MAX_PLAYERS:
        raise DataError(LIBRARY_SOURCE, "nplayers", f"player count must be 2..{L.MAX_PLAYERS}, got {nplayers!r}")
    instruments = tuple(instruments)
    if len(instruments) != L.N_DEPT:
        raise DataError(LIBRARY_SOURCE, "instruments", f"need {L.N_DEPT} instruments, got {len(instruments)}")
    for d, inst in enumerate(instruments):
        if not isinstance(inst, Instrument):
            raise DataError(LIBRARY_SOURCE, f"instruments[{d}]", f"expected an Instrument, got {type(inst).__name__}")
        if inst.department != d:
            raise DataError(
                inst.path,
                f"instruments[{d}]",
                f"slot {d} takes a {L.DEPT_NAMES[d]} instrument; {inst.name} is {inst.department_name}",
            )

    geo = np.zeros(L.GEO_SIZE, dtype=np.int64)
    geo[L.G_NPLAYERS] = int(nplayers)
    geo[L.G_BUILD_PIECES] = board.build_pieces
    geo[L.G_UPG_PIECES] = board.upgrade_pieces
    for c in range(L.N_DEPT):
        geo[L.G_START_CATS + c] = board.start_cats[c]
    geo[L.G_MAX_ROUNDS] = board.max_rounds
    for k in range(L.N_SLICES):
        geo[L.G_SLICE_ACTIONS + k] = board.slices[k]
    geo[L.G_SHUFFLE_WHEELS] = 1 if board.shuffle_wheels else 0
    geo[L.G_PENALTY_LAST] = board.penalty_last
    geo[L.G_PRI_PIECE_CREDIT] = board.pri_piece_credit
    seats = board.seat_setup(int(nplayers))
    # R13's reading: [rulings]'s, unless [seats] tie_break reads it otherwise at this player count
    geo[L.G_TIE_BREAK] = board.tie_break if seats.tie_break < 0 else seats.tie_break
    _pack_seats(geo, seats)

    for d, inst in enumerate(instruments):
        _pack_instrument(geo, L.G_INST + d * L.INST_SIZE, inst)
    return geo


def _pack_seats(geo, seats):
    """The seat levers of one player count (a :class:`simulator.shuffle_swing.board.SeatSetup`);
    the rulebook's set-up leaves every field 0."""
    for p in range(seats.nplayers):
        geo[L.G_SEAT_POINTS + p] = seats.start_points[p]
        geo[L.G_SEAT_EXPERTS + p] = seats.expert_dice[p]
        for c in range(L.N_DEPT):
            geo[L.G_SEAT_CATS + p * 3 + c] = seats.extra_cats[p][c]
            geo[L.G_SEAT_TOKENS + p * 3 + c] = seats.start_tokens[p][c]
    rulebook = tuple(range(seats.nplayers - 1, -1, -1))
    if seats.brag_stack != rulebook:
        geo[L.G_BRAG_STACK_SET] = 1
        for p in range(seats.nplayers):
            geo[L.G_BRAG_STACK + p] = seats.brag_stack[p]


def pack_derived(geo, base):
    """Fill the fields of the instrument block at ``base`` that follow from its other fields, so that
    the kernel reads them instead of working them out on every call. Call it once the block is
    otherwise complete.

    * From the link table, for the inspector route search (R8): for each space the bit mask of its
      lines (``I_INCIDENT``), for each line the XOR of its two spaces (``I_EDGE_XOR``). A space lists
      its lines in increasing line order, so visiting the set bits of a mask from the lowest visits
      the lines in the link table's order.
    * From the space numbers and colours, for the placements a seat can pay for (R6): for each cat
      colour ``c`` and number ``k`` the spaces of colour ``c`` numbered at most ``k``
      (``I_AFFORD + c * (MAX_NUMBER + 1) + k``).
    * From the scoring terms, for the greedy placement worth: each section's rough objective worth
      per space (``I_SEC_WORTH``, float64 bits), see ``section_worth``."""
    geo[base + L.I_INCIDENT : base + L.I_INCIDENT + L.MAX_SPACES] = 0
    geo[base + L.I_EDGE_XOR : base + L.I_EDGE_XOR + L.MAX_EDGES] = 0
    geo[base + L.I_AFFORD : base + L.I_AFFORD + 3 * (L.MAX_NUMBER + 1)] = 0
    geo[base + L.I_SEC_WORTH : base + L.I_SEC_WORTH + L.MAX_SECTIONS] = 0
    for x in range(int(geo[base + L.I_NSPACES])):
        for k in range(int(geo[base + L.I_NLINKS + x])):
            e = int(geo[base + L.I_LINKEDGE + x * L.MAX_LINKS + k])
            y = int(geo[base + L.I_LINK + x * L.MAX_LINKS + k])
            geo[base + L.I_INCIDENT + x] |= 1 << e
            geo[base + L.I_EDGE_XOR + e] = x ^ y
        colour = int(geo[base + L.I_COLOUR + x])
        for k in range(int(geo[base + L.I_COST + x]), L.MAX_NUMBER + 1):
            geo[base + L.I_AFFORD + colour * (L.MAX_NUMBER + 1) + k] |= 1 << x
    for s in range(int(geo[base + L.I_NSECTIONS])):
        worth = np.array(section_worth(geo, base, s), dtype=np.float64)
        geo[base + L.I_SEC_WORTH + s] = worth.view(np.int64)


def section_worth(geo, base, s):
    """A rough worth per space of section ``s``'s objective, for the greedy placement worth: the
    first rank award, half the per-piece points of a full section, one point per space for the
    completer and majority-takes-all terms, and the adjacency and longest-group points weighted
    1, 2 and 3."""
    size = bin(int(geo[base + L.I_SEC_SPACES + s])).count("1")
    h = 0.0
    for j in range(L.MAX_TERMS):
        t = s * L.MAX_TERMS + j
        code = int(geo[base + L.I_TERM_CODE + t])
        p1 = int(geo[base + L.I_TERM_P + t * 4])
        if code in (L.T_RANK, L.T_RANK_ORDER):
            h += int(geo[base + L.I_TERM_AWARDS + t * L.MAX_AWARDS])
        elif code == L.T_PER_PIECE:
            h += p1 * size * 0.5
        elif code in (L.T_COMPLETER, L.T_MAJORITY_ALL):
            h += size
        elif code == L.T_ADJ_PRESENCE:
            h += p1
        elif code == L.T_ADJ_PER_PIECE:
            h += 2.0 * p1
        elif code == L.T_LONGEST_GROUP:
            h += 3.0 * p1
    return h / max(size, 1)


def _pack_instrument(geo, base, inst):
    n = inst.nspaces
    geo[base + L.I_NSPACES] = n
    geo[base + L.I_PENALTY] = inst.penalty_per_space
    geo[base + L.I_NSECTIONS] = inst.nsections
    geo[base + L.I_NEDGES] = len(inst.lines)
    geo[base + L.I_NEUTRAL] = inst.neutral[0]
    geo[base + L.I_NEUTRAL + 1] = inst.neutral[1]
    geo[base + L.I_TOTAL_COST] = inst.total_cost
    geo[base + L.I_LINK : base + L.I_LINK + L.MAX_SPACES * L.MAX_LINKS] = -1
    geo[base + L.I_LINKEDGE : base + L.I_LINKEDGE + L.MAX_SPACES * L.MAX_LINKS] = -1
    for i in range(n):
        geo[base + L.I_COST + i] = inst.numbers[i]
        geo[base + L.I_COLOUR + i] = inst.colours[i]
        m = 0
        for s in inst.space_sections[i]:
            m |= 1 << s
        geo[base + L.I_SECMASK + i] = m
    for e, (a, b) in enumerate(inst.lines):
        for x, y in ((a, b), (b, a)):
            k = int(geo[base + L.I_NLINKS + x])
            geo[base + L.I_LINK + x * L.MAX_LINKS + k] = y
            geo[base + L.I_LINKEDGE + x * L.MAX_LINKS + k] = e
            geo[base + L.I_NLINKS + x] = k + 1
    for s in range(inst.nsections):
        geo[base + L.I_SEC_SPACES + s] = inst.section_mask(s)
        am = 0
        for a in inst.section_adjacent[s]:
            am |= 1 << a
        geo[base + L.I_SEC_ADJ + s] = am
        num = inst.section_numbers[s]
        geo[base + L.I_SEC_NUMBER + s] = 0 if num is None else num
        for j, term in enumerate(inst.section_terms[s]):
            t = s * L.MAX_TERMS + j
            geo[base + L.I_TERM_CODE + t] = term.code
            geo[base + L.I_TERM_SCOPE + t] = term.scope_mask
            for p in range(4):
                geo[base + L.I_TERM_P + t * 4 + p] = term.params[p]
            geo[base + L.I_TERM_NAWARDS + t] = len(term.awards)
            for k, v in enumerate(term.awards):
                geo[base + L.I_TERM_AWARDS + t * L.MAX_AWARDS + k] = v
            for k, v in enumerate(term.later):
                geo[base + L.I_TERM_AWARDS2 + t * L.MAX_AWARDS + k] = v
    for k in range(L.N_TRACK):
        geo[base + L.I_TRACK_NEED + k] = inst.track_need[k]
        geo[base + L.I_TRACK_VP + k] = inst.track_vp[k]
        geo[base + L.I_TRACK_TOKEN + k] = 1 if inst.track_token[k] else 0
    geo[base + L.I_ALL_SPACES] = inst.all_spaces_mask
    pack_derived(geo, base)


def _bits(mask):
    mask = int(mask)
    return [i for i in range(64) if (mask >> i) & 1]


def unpack_geo(geo):
    """Read a packed ``geo`` array back into plain Python structures (for reports, tests, debugging).

    Returns ``{"board": {...}, "instruments": [{...}, {...}, {...}]}``; indices, not ids (use
    :meth:`Instrument.space_name` / :meth:`Instrument.section_name` to print them).
    """
    g = [int(x) for x in np.asarray(geo)]
    board = {
        "nplayers": g[L.G_NPLAYERS],
        "build_pieces": g[L.G_BUILD_PIECES],
        "upgrade_pieces": g[L.G_UPG_PIECES],
        "start_cats": g[L.G_START_CATS : L.G_START_CATS + L.N_DEPT],
        "max_rounds": g[L.G_MAX_ROUNDS],
        "slices": g[L.G_SLICE_ACTIONS : L.G_SLICE_ACTIONS + L.N_SLICES],
        "shuffle_wheels": bool(g[L.G_SHUFFLE_WHEELS]),
        "start_points": g[L.G_SEAT_POINTS : L.G_SEAT_POINTS + L.MAX_PLAYERS],
        "extra_cats": g[L.G_SEAT_CATS : L.G_SEAT_CATS + L.MAX_PLAYERS * 3],
        "start_tokens": g[L.G_SEAT_TOKENS : L.G_SEAT_TOKENS + L.MAX_PLAYERS * 3],
        "expert_dice": g[L.G_SEAT_EXPERTS : L.G_SEAT_EXPERTS + L.MAX_PLAYERS],
        "brag_stack": g[L.G_BRAG_STACK : L.G_BRAG_STACK + L.MAX_PLAYERS] if g[L.G_BRAG_STACK_SET] else None,
    }
    insts = []
    for d in range(L.N_DEPT):
        b = L.G_INST + d * L.INST_SIZE
        n = g[b + L.I_NSPACES]
        ns = g[b + L.I_NSECTIONS]
        links = []
        for i in range(n):
            k = g[b + L.I_NLINKS + i]
            links.append(
                [
                    (g[b + L.I_LINK + i * L.MAX_LINKS + j], g[b + L.I_LINKEDGE + i * L.MAX_LINKS + j])
                    for j in range(k)
                ]
            )
        sections = []
        for s in range(ns):
            terms = []
            for j in range(L.MAX_TERMS):
                t = s * L.MAX_TERMS + j
                code = g[b + L.I_TERM_CODE + t]
                if code == L.T_NONE:
                    continue
                na = g[b + L.I_TERM_NAWARDS + t]
                terms.append(
                    {
                        "code": code,
                        "rule": L.TERM_NAMES[code],
                        "scope": _bits(g[b + L.I_TERM_SCOPE + t]),
                        "params": g[b + L.I_TERM_P + t * 4 : b + L.I_TERM_P + t * 4 + 4],
                        "awards": g[b + L.I_TERM_AWARDS + t * L.MAX_AWARDS : b + L.I_TERM_AWARDS + t * L.MAX_AWARDS + na],
                        "later": g[b + L.I_TERM_AWARDS2 + t * L.MAX_AWARDS : b + L.I_TERM_AWARDS2 + (t + 1) * L.MAX_AWARDS],
                    }
                )
            sections.append(
                {
                    "spaces": _bits(g[b + L.I_SEC_SPACES + s]),
                    "adjacent": _bits(g[b + L.I_SEC_ADJ + s]),
                    "number": g[b + L.I_SEC_NUMBER + s],
                    "terms": terms,
                }
            )
        insts.append(
            {
                "nspaces": n,
                "penalty": g[b + L.I_PENALTY],
                "nedges": g[b + L.I_NEDGES],
                "neutral": g[b + L.I_NEUTRAL : b + L.I_NEUTRAL + 2],
                "total_cost": g[b + L.I_TOTAL_COST],
                "cost": g[b + L.I_COST : b + L.I_COST + n],
                "colour": g[b + L.I_COLOUR : b + L.I_COLOUR + n],
                "secmask": g[b + L.I_SECMASK : b + L.I_SECMASK + n],
                "links": links,
                "sections": sections,
                "track_need": g[b + L.I_TRACK_NEED : b + L.I_TRACK_NEED + L.N_TRACK],
                "track_vp": g[b + L.I_TRACK_VP : b + L.I_TRACK_VP + L.N_TRACK],
                "track_token": g[b + L.I_TRACK_TOKEN : b + L.I_TRACK_TOKEN + L.N_TRACK],
                "all_spaces": g[b + L.I_ALL_SPACES],
            }
        )
    return {"board": board, "instruments": insts}
