"""Echidna Shuffle invariants: ``check_invariants`` catches each kind of corruption, and a soak of
random and greedy games at every player count, on both boards and with every variant, breaks none."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from echidna_support import make_state, ring_setup, rows
from simulator.echidna.kernel import invariants as KI
from simulator.echidna import layout as L
from simulator.echidna.board import EchidnaSetup, Variants
from simulator.seeds import game_seed
from simulator.echidna.playout import play_many, soak


def _sound():
    setup = ring_setup(4, Variants(home_stretch=True))
    st = make_state(setup, echidnas={0: (3, 0), 1: (4, 1)}, picks=[10, 15, 20, 25], tokens={2: 1})
    assert KI.check_invariants(setup.geo, st) == 0
    return setup, st


CORRUPTIONS = {
    1: lambda st: st.__setitem__(L.S_EPOS + 2, st[L.S_EPOS + 3]),  # two echidnas on one space
    2: lambda st: st.__setitem__(L.S_OCC, st[L.S_OCC] ^ (1 << 30)),
    3: lambda st: st.__setitem__(L.S_EBUG + 5, 4),  # a bug of no player (4 players: 0..3)
    4: lambda st: st.__setitem__(L.S_EBUG + 5, 2),  # a rider the counts do not know
    5: lambda st: st.__setitem__(L.S_HAND + 1, st[L.S_HAND + 1] + 1),
    6: lambda st: st.__setitem__(L.S_STUMPS + 2, st[L.S_STUMPS + 2] | (1 << 39)),
    7: lambda st: st.__setitem__(L.S_SUPPLY, st[L.S_SUPPLY] - 1),
    8: lambda st: (st.__setitem__(L.S_TOKENS + 2, 5), st.__setitem__(L.S_SUPPLY, st[L.S_SUPPLY] - 4)),
    10: lambda st: st.__setitem__(L.S_PICK + 1, st[L.S_PICK + 0]),
    11: lambda st: st.__setitem__(L.S_WINNER, 1),
    12: lambda st: (st.__setitem__(L.S_HAND + 3, -1), st.__setitem__(L.S_HOME + 3, 1)),
}


@pytest.mark.parametrize("code", sorted(CORRUPTIONS))
def test_check_invariants_catches(code):
    setup, st = _sound()
    CORRUPTIONS[code](st)
    assert KI.check_invariants(setup.geo, st) == code, L.VIOLATIONS[code]


def test_riding_limit_violation_with_five_players():
    setup = ring_setup(5)
    st = make_state(setup, echidnas={0: (3, 0), 1: (4, 0), 2: (5, 0)}, picks=[10, 15, 20, 25, 30])
    assert KI.check_invariants(setup.geo, st) == 9


VARIANTS = [
    Variants(),
    Variants(catch_up=True),
    Variants(home_stretch=True),
    Variants(catch_up=True, home_stretch=True, extra_bugs=True),
    Variants(roll_every_turn=True, extra_bugs=True),
    Variants(catch_up=True, token_schedule=(0, 2, 2, 3, 3, 4)),
]


@pytest.mark.parametrize("board", ["forest", "snow"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_soak_no_violation(board, players):
    for k, v in enumerate(VARIANTS):
        setup = EchidnaSetup(players, board, v)
        for lineup in (["random"] * players, ["greedy"] + ["saboteur", "random"] * 3):
            rep = soak(setup, rows(lineup[:players]), 40, seed=100 * players + k)
            assert rep.violations == [], (board, players, v, rep.violations[:3])
            assert rep.turns > 0


def test_soak_lookahead_and_no_moves_ever_lost_on_legal_boards():
    for board in ("forest", "snow"):
        setup = EchidnaSetup(4, board, Variants(catch_up=True, home_stretch=True))
        seeds = [game_seed(9, i) for i in range(20)]
        st, bad = play_many(setup, rows(["lookahead", "greedy", "random", "saboteur"]), seeds, check=True)
        assert len(bad) == 0
        # With more spaces than echidnas on a strongly connected board some echidna can always move.
        lost = st[:, L.S_STAT + np.arange(4) * L.N_STAT + L.ST_MOVES_LOST]
        assert lost.sum() == 0


def test_same_seed_same_game_and_batches_split_freely():
    setup = EchidnaSetup(4, "snow", Variants(catch_up=True))
    seeds = [game_seed(2, i) for i in range(30)]
    strat = rows(["greedy", "random", "lookahead", "saboteur"])
    a, _ = play_many(setup, strat, seeds)
    b1, _ = play_many(setup, strat, seeds[:11])
    b2, _ = play_many(setup, strat, seeds[11:])
    assert (a == np.vstack([b1, b2])).all()


_PROBE = """
import json
from simulator.echidna.board import EchidnaSetup, Variants
from simulator.echidna.playout import play_many
from simulator.seeds import game_seed
from simulator.echidna.strategies import EchidnaStrategyLibrary
setup = EchidnaSetup(4, "snow", Variants(catch_up=True, home_stretch=True))
strat = EchidnaStrategyLibrary().matrix(["greedy", "random", "lookahead", "saboteur"])
st, bad = play_many(setup, strat, [game_seed(5, i) for i in range(2)], check=True)
print(json.dumps(st.tolist()))
"""


def test_interpreted_kernel_plays_the_same_games():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    interp = np.array(json.loads(out.stdout.strip().splitlines()[-1]))
    setup = EchidnaSetup(4, "snow", Variants(catch_up=True, home_stretch=True))
    strat = rows(["greedy", "random", "lookahead", "saboteur"])
    jit, _ = play_many(setup, strat, [game_seed(5, i) for i in range(2)], check=True)
    assert (interp == jit).all()
