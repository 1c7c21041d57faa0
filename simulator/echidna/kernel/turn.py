"""A turn of Echidna Shuffle (E2-E6, E8): the moves, the pick-up chances, every strategy's step
choice and the whole turn (``play_turn``).

A turn::

    moves = roll, or 9 - last roll (number board), or roll (variant 4)
    pick-up chance (E4)
    repeat moves times: one echidna one step (E3), deliveries on entering (E5), pick-up chance
    while tokens are held and the strategy wants: spend one, one more step (E7, E8)
"""

import numpy as np

from simulator.kernel_common import lowest_bit, popcount, probe_add, probe_clock, rng_below
from simulator.echidna.kernel.core import (
    BIG,
    EPR_CHOICE,
    EPR_GAINS,
    EPR_MOVE,
    EPR_PREP,
    EPR_RANDOM,
    EPR_TAKE,
    EPR_TOKEN,
    EPR_TURN,
    can_take,
    emit,
    kernel,
    kernel_inline,
    rider_dist,
    stat_add,
)
from simulator.echidna.layout import (
    EV_DELIVER,
    EV_GAIN,
    EV_LOST,
    EV_MOVE,
    EV_PICKUP,
    EV_STALL,
    EV_TURN,
    EV_WIN,
    BUGS,
    G_DIST,
    G_EXTRA_BUGS,
    G_FACES,
    G_HOME_STRETCH,
    G_HS_CAP,
    G_MAX_ROUNDS,
    G_NFACES,
    G_NUMBER_BOARD,
    G_OUT0,
    G_OUT1,
    G_PAIR,
    G_PREDMASK,
    KIND_LOOKAHEAD,
    KIND_RANDOM,
    MAX_SPACES,
    N_ECHIDNAS,
    NONE,
    P_DEPTH,
    P_KIND,
    S_CUR,
    S_DECISIONS,
    S_EBUG,
    S_EPOS,
    S_HAND,
    S_HOME,
    S_MOVES_LEFT,
    S_NEXT,
    S_NPLAYERS,
    S_OCC,
    S_OUT,
    S_PICK,
    S_RIDING,
    S_ROUND,
    S_SPACE,
    S_STALLED,
    S_STUMPS,
    S_SUPPLY,
    S_TOKENS,
    S_TURN,
    S_WINNER,
    ST_DELIVERIES,
    ST_DELIVERIES_OFF,
    ST_MOVES_LOST,
    ST_MOVES_MADE,
    ST_PICKUPS,
    ST_TOKENS_GAINED,
    ST_TOKENS_SPENT,
    ST_TURNS,
    STATE_SIZE,
    W_BLOCK,
    W_OPP,
    W_OPP_DELIVER,
    W_OPP_PICK,
    W_OWN,
    W_OWN_DELIVER,
    W_PICK,
    W_TAKE,
    W_TOKEN,
)


@kernel_inline
def take_bug(geo, st, strat, rng, p, log):
    """Seat ``p``'s pick-up chance (E4): an empty echidna on its pick-up space and a bug to place."""
    pk = st[S_PICK + p]
    e = st[S_SPACE + pk]
    if e < 0 or st[S_EBUG + e] != NONE or not can_take(geo, st, p):
        return
    row = strat[p]
    st[S_DECISIONS] += 1
    if row[P_KIND] == KIND_RANDOM:
        if rng_below(rng, 2) == 0:
            return
    elif row[W_TAKE] <= 0:
        return
    st[S_EBUG + e] = p
    st[S_HAND + p] -= 1
    st[S_RIDING + p] += 1
    stat_add(st, p, ST_PICKUPS, 1)
    emit(log, st, EV_PICKUP, e, pk, 0, 0)


@kernel_inline
def apply_move(geo, st, p, e, t, paid, log):
    """Seat ``p`` moves echidna ``e`` one step onto the empty space ``t``; a home-stretch gain (E8),
    a delivery on entering (E5) and a win (E6) follow at once."""
    s = st[S_EPOS + e]
    c = st[S_EBUG + e]
    if c >= 0 and c != p and geo[G_HOME_STRETCH] != 0:
        # E8: the rider's owner is in the home stretch when exactly one stump of theirs is left.
        if popcount(st[S_STUMPS + c]) == 1 and st[S_TOKENS + c] < geo[G_HS_CAP] and st[S_SUPPLY] > 0:
            st[S_TOKENS + c] += 1
            st[S_SUPPLY] -= 1
            stat_add(st, c, ST_TOKENS_GAINED, 1)
            emit(log, st, EV_GAIN, c, st[S_TOKENS + c], 0, 0)
    st[S_SPACE + s] = NONE
    st[S_SPACE + t] = e
    st[S_EPOS + e] = t
    st[S_OCC] ^= (np.int64(1) << s) | (np.int64(1) << t)
    stat_add(st, p, ST_MOVES_MADE, 1)
    emit(log, st, EV_MOVE, e, s, t, paid)
    if c >= 0 and (st[S_STUMPS + c] >> t) & 1:
        st[S_STUMPS + c] &= ~(np.int64(1) << t)
        st[S_EBUG + e] = NONE
        st[S_RIDING + c] -= 1
        st[S_HOME + c] += 1
        if geo[G_EXTRA_BUGS] != 0:
            st[S_HAND + c] += 1  # variant 3: the bug may be picked up again
        stat_add(st, c, ST_DELIVERIES, 1)
        if c != p:
            stat_add(st, c, ST_DELIVERIES_OFF, 1)
        emit(log, st, EV_DELIVER, c, e, t, 0)
        if st[S_HOME + c] >= BUGS:
            st[S_WINNER] = c
            emit(log, st, EV_WIN, c, 0, 0, 0)


@kernel_inline
def pick_minima(geo, st, p):
    """Nearest and second-nearest empty echidna to ``p``'s pick-up space: (d1, echidna of d1, d2)."""
    pk = st[S_PICK + p]
    d1 = 1 << 20
    d2 = 1 << 20
    e1 = -1
    for e in range(N_ECHIDNAS):
        if st[S_EBUG + e] != NONE:
            continue
        x = st[S_EPOS + e]
        d = 0 if x == pk else geo[G_DIST + x * MAX_SPACES + pk]
        if d < d1:
            d2 = d1
            d1 = d
            e1 = e
        elif d < d2:
            d2 = d
    return d1, e1, d2


@kernel
def riders_sum(geo, st, c, stumps, skip):
    """Sum of the distances of colour ``c``'s riders (but echidna ``skip``) to the mask ``stumps``."""
    tot = 0
    for f in range(N_ECHIDNAS):
        if f != skip and st[S_EBUG + f] == c:
            tot += rider_dist(geo, stumps, st[S_EPOS + f])
    return tot


@kernel_inline
def choice_masks(geo, st, p):
    """What every candidate step of seat ``p`` reads, worked out once per choice: the spaces of
    opponents' riders and of own riders (blocking), and the pick-up spaces of opponents who have a
    bug to place."""
    opp = np.int64(0)
    own = np.int64(0)
    for f in range(N_ECHIDNAS):
        c = st[S_EBUG + f]
        if c >= 0:
            if c == p:
                own |= np.int64(1) << st[S_EPOS + f]
            else:
                opp |= np.int64(1) << st[S_EPOS + f]
    picks = np.int64(0)
    for q in range(st[S_NPLAYERS]):
        if q != p and can_take(geo, st, q):
            picks |= np.int64(1) << st[S_PICK + q]
    return opp, own, picks


@kernel_inline
def legal_steps(geo, st):
    """The legal steps as a bit mask: bit ``2e + a`` is set when echidna ``e`` may follow its
    arrow ``a`` (0: the first, 1: the second) onto an empty space (E3). Counting from the lowest
    bit lists the steps echidna by echidna, first arrow first: the order every choice reads them in."""
    free = ~st[S_OCC]
    m = np.int64(0)
    for e in range(N_ECHIDNAS):
        s = st[S_EPOS + e]
        m |= ((free >> geo[G_OUT0 + s]) & 1) << (2 * e)
        t = geo[G_OUT1 + s]
        if t >= 0:
            m |= ((free >> t) & 1) << (2 * e + 1)
    return m


@kernel_inline
def move_gain(geo, st, row, p, e, s, t, d1, e1, d2, mine, opp, own, picks):
    """Change of seat ``p``'s weighted evaluation if echidna ``e`` steps from ``s`` to ``t``.

    Own riders' steps to their stumps (``own_distance``), deliveries, opponents' riders' steps,
    the nearest empty echidna to the own pick-up space (``pickup_chance``; ``mine`` says whether ``p``
    has a bug to place), empty echidnas left on opponents' pick-up spaces (``picks``), blocking: riders
    standing just behind an echidna (``opp``, ``own``: the riders' spaces)."""
    gain = 0.0
    c = st[S_EBUG + e]
    if c >= 0:
        stumps = st[S_STUMPS + c]
        ds = rider_dist(geo, stumps, s)
        if (stumps >> t) & 1:
            rest = stumps & ~(np.int64(1) << t)
            others = riders_sum(geo, st, c, rest, e) - riders_sum(geo, st, c, stumps, e)
            if c == p:
                gain += row[W_OWN] * (ds - others) + row[W_OWN_DELIVER]
            else:
                gain -= row[W_OPP] * (ds - others) + row[W_OPP_DELIVER]
        else:
            dt = rider_dist(geo, stumps, t)
            if c == p:
                gain -= row[W_OWN] * (dt - ds)
            else:
                gain += row[W_OPP] * (dt - ds)
    else:
        if mine:
            pk = st[S_PICK + p]
            dt = 0 if t == pk else geo[G_DIST + t * MAX_SPACES + pk]
            other = d2 if e1 == e else d1
            new = other if other < dt else dt
            gain -= row[W_PICK] * (new - d1)
        gain -= row[W_OPP_PICK] * (((picks >> t) & 1) - ((picks >> s) & 1))
    w = row[W_BLOCK]
    if w != 0:
        gone = ~(np.int64(1) << s)
        at_t = geo[G_PREDMASK + t] & gone
        at_s = geo[G_PREDMASK + s]
        b = popcount(at_t & opp) - popcount(at_t & own) - popcount(at_s & opp) + popcount(at_s & own)
        gain += w * b
    return gain


@kernel_inline
def greedy_choice(geo, st, row, p, rng):
    """The step with the best ``move_gain``: (echidna, target, gain); echidna -1 if none can move.
    Ties are broken uniformly at random (a fixed order would let every player burn moves on the
    same idle echidna while riders wait behind an empty one: measured stalls on the snow board)."""
    t0 = probe_clock()
    d1, e1, d2 = pick_minima(geo, st, p)
    mine = can_take(geo, st, p)
    opp, own, picks = choice_masks(geo, st, p)
    probe_add(EPR_PREP, t0)
    t0 = probe_clock()
    best = -BIG
    be = -1
    bt = -1
    ties = 0
    m = legal_steps(geo, st)
    while m != 0:
        b = lowest_bit(m)
        m &= m - 1
        e = b >> 1
        s = st[S_EPOS + e]
        t = geo[G_OUT0 + s] if b & 1 == 0 else geo[G_OUT1 + s]
        g = move_gain(geo, st, row, p, e, s, t, d1, e1, d2, mine, opp, own, picks)
        if g > best + 1e-9:
            best = g
            be = e
            bt = t
            ties = 1
        elif g >= best - 1e-9:
            ties += 1
            if rng_below(rng, ties) == 0:
                be = e
                bt = t
    probe_add(EPR_GAINS, t0)
    return be, bt, best


@kernel_inline
def random_choice(geo, st, rng):
    """A uniformly random legal step: (echidna, target); -1 if none. One draw below the number of
    legal steps picks the j-th set bit of ``legal_steps``."""
    m = legal_steps(geo, st)
    if m == 0:
        return -1, -1
    j = rng_below(rng, popcount(m))
    for _ in range(j):
        m &= m - 1
    b = lowest_bit(m)
    e = b >> 1
    s = st[S_EPOS + e]
    return e, (geo[G_OUT0 + s] if b & 1 == 0 else geo[G_OUT1 + s])


@kernel
def evaluate(geo, st, row, p):
    """Seat ``p``'s weighted evaluation of a whole state (the lookahead's leaf value)."""
    w = st[S_WINNER]
    if w >= 0:
        return BIG if w == p else -BIG
    v = row[W_OWN_DELIVER] * st[S_HOME + p] + row[W_TOKEN] * st[S_TOKENS + p]
    n = st[S_NPLAYERS]
    for q in range(n):
        if q != p:
            v -= row[W_OPP_DELIVER] * st[S_HOME + q]
    for e in range(N_ECHIDNAS):
        c = st[S_EBUG + e]
        if c >= 0:
            d = rider_dist(geo, st[S_STUMPS + c], st[S_EPOS + e])
            if c == p:
                v -= row[W_OWN] * d
            else:
                v += row[W_OPP] * d
    if can_take(geo, st, p):
        d1, e1, d2 = pick_minima(geo, st, p)
        v -= row[W_PICK] * d1
    for q in range(n):
        if q != p and can_take(geo, st, q):
            f = st[S_SPACE + st[S_PICK + q]]
            if f >= 0 and st[S_EBUG + f] == NONE:
                v -= row[W_OPP_PICK]
    if row[W_BLOCK] != 0:
        occ = st[S_OCC]
        for e in range(N_ECHIDNAS):
            c = st[S_EBUG + e]
            if c >= 0:
                s = st[S_EPOS + e]
                for a in range(2):
                    t = geo[G_OUT0 + s] if a == 0 else geo[G_OUT1 + s]
                    if t >= 0 and (occ >> t) & 1:
                        v += row[W_BLOCK] if c != p else -row[W_BLOCK]
    return v


@kernel
def lookahead_choice(geo, st, strat, rng, p, steps, nolog, tmp):
    """Plan ahead within the turn: each legal step is tried on a copy of the state, the copy plays
    the next ``steps - 1`` steps greedily (pick-ups included), and the step whose end state
    ``evaluate`` ranks highest is taken. (echidna, target, value); -1 if none can move."""
    row = strat[p]
    occ = st[S_OCC]
    best = -BIG * 10
    be = -1
    bt = -1
    for e in range(N_ECHIDNAS):
        s = st[S_EPOS + e]
        for a in range(2):
            t = geo[G_OUT0 + s] if a == 0 else geo[G_OUT1 + s]
            if t < 0 or (occ >> t) & 1:
                continue
            for i in range(STATE_SIZE):
                tmp[i] = st[i]
            apply_move(geo, tmp, p, e, t, 0, nolog)
            if tmp[S_WINNER] < 0:
                take_bug(geo, tmp, strat, rng, p, nolog)
            for k in range(steps - 1):
                if tmp[S_WINNER] >= 0:
                    break
                f, u, g = greedy_choice(geo, tmp, row, p, rng)
                if f < 0:
                    break
                apply_move(geo, tmp, p, f, u, 0, nolog)
                if tmp[S_WINNER] < 0:
                    take_bug(geo, tmp, strat, rng, p, nolog)
            v = evaluate(geo, tmp, row, p)
            if v > best:
                best = v
                be = e
                bt = t
    return be, bt, best


@kernel_inline
def choose_step(geo, st, strat, rng, p, left, nolog, tmp):
    """The strategy's next regular step: (echidna, target); -1 when no echidna can move."""
    row = strat[p]
    kind = row[P_KIND]
    st[S_DECISIONS] += 1
    if kind == KIND_RANDOM:
        t0 = probe_clock()
        e, t = random_choice(geo, st, rng)
        probe_add(EPR_RANDOM, t0)
        return e, t
    if kind == KIND_LOOKAHEAD:
        depth = np.int64(row[P_DEPTH])
        steps = left if depth <= 0 or depth > left else depth
        e, t, v = lookahead_choice(geo, st, strat, rng, p, steps, nolog, tmp)
        return e, t
    e, t, g = greedy_choice(geo, st, row, p, rng)
    return e, t


@kernel_inline
def choose_token_step(geo, st, strat, rng, p):
    """A paid step (E7, E8), or -1 to keep the tokens: random spends half the time, the others when
    the best step gains more than ``token_value``."""
    row = strat[p]
    st[S_DECISIONS] += 1
    if row[P_KIND] == KIND_RANDOM:
        if rng_below(rng, 2) == 0:
            return -1, -1
        return random_choice(geo, st, rng)
    e, t, g = greedy_choice(geo, st, row, p, rng)
    if e < 0 or g <= row[W_TOKEN]:
        return -1, -1
    return e, t


@kernel_inline
def moves_for_turn(geo, st, rng, p):
    """E2: (moves, rolled). The number board alternates a roll with 9 minus it, per seat."""
    if geo[G_NUMBER_BOARD] != 0 and st[S_NEXT + p] > 0:
        m = st[S_NEXT + p]
        st[S_NEXT + p] = 0
        return m, 0
    r = geo[G_FACES + rng_below(rng, geo[G_NFACES])]
    if geo[G_NUMBER_BOARD] != 0:
        st[S_NEXT + p] = geo[G_PAIR + r]
    return r, 1


@kernel_inline
def play_turn(geo, st, strat, rng, log, nolog, tmp):
    """One player's whole turn; then the next seat, the round count and the stall cap (E9)."""
    t_turn = probe_clock()
    p = st[S_CUR]
    n = st[S_NPLAYERS]
    stat_add(st, p, ST_TURNS, 1)
    m, rolled = moves_for_turn(geo, st, rng, p)
    emit(log, st, EV_TURN, m, rolled, st[S_TOKENS + p], 0)
    t0 = probe_clock()
    take_bug(geo, st, strat, rng, p, log)
    probe_add(EPR_TAKE, t0)
    st[S_MOVES_LEFT] = m
    while st[S_MOVES_LEFT] > 0:
        t0 = probe_clock()
        e, t = choose_step(geo, st, strat, rng, p, st[S_MOVES_LEFT], nolog, tmp)
        probe_add(EPR_CHOICE, t0)
        if e < 0:
            # E3: no echidna can move, the rest is lost.
            stat_add(st, p, ST_MOVES_LOST, st[S_MOVES_LEFT])
            emit(log, st, EV_LOST, st[S_MOVES_LEFT], 0, 0, 0)
            st[S_MOVES_LEFT] = 0
            break
        t0 = probe_clock()
        apply_move(geo, st, p, e, t, 0, log)
        probe_add(EPR_MOVE, t0)
        st[S_MOVES_LEFT] -= 1
        if st[S_WINNER] >= 0:
            probe_add(EPR_TURN, t_turn)
            return
        t0 = probe_clock()
        take_bug(geo, st, strat, rng, p, log)
        probe_add(EPR_TAKE, t0)
    while st[S_TOKENS + p] > 0:
        t0 = probe_clock()
        e, t = choose_token_step(geo, st, strat, rng, p)
        probe_add(EPR_TOKEN, t0)
        if e < 0:
            break
        st[S_TOKENS + p] -= 1
        stat_add(st, p, ST_TOKENS_SPENT, 1)
        if geo[G_HOME_STRETCH] != 0:
            st[S_SUPPLY] += 1  # E7 with variant 2: spent tokens go back to the supply
        else:
            st[S_OUT] += 1
        apply_move(geo, st, p, e, t, 1, log)
        if st[S_WINNER] >= 0:
            probe_add(EPR_TURN, t_turn)
            return
        take_bug(geo, st, strat, rng, p, log)
    st[S_TURN] += 1
    st[S_CUR] = (p + 1) % n
    if st[S_CUR] == 0:
        st[S_ROUND] += 1
        if st[S_ROUND] >= geo[G_MAX_ROUNDS]:
            st[S_STALLED] = 1
            emit(log, st, EV_STALL, st[S_ROUND], 0, 0, 0)
    probe_add(EPR_TURN, t_turn)
