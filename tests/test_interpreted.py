"""The kernel run interpreted (``NUMBA_DISABLE_JIT=1``) plays the very same games as compiled.

The benchmark's JIT speed-up compares the two, and the compiled-only helpers (stack scratch arrays,
popcount) have plain-Python stand-ins; this keeps both honest.
"""

import json
import os
import subprocess
import sys

import numpy as np

from simulator.shuffle_swing.playout import GameSetup, play_many
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary

PROBE = """
import json
from simulator.shuffle_swing.playout import GameSetup, play_many
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary
out = {}
for n, names in ((4, ["greedy", "inspector", "random", "builder"]), (2, ["greedy", "greedy"]), (3, ["random"] * 3)):
    states, _ = play_many(GameSetup(nplayers=n), StrategyLibrary().matrix(names), [game_seed(5, 0)])
    out[str(n)] = states[0].tolist()
print(json.dumps(out))
"""


def _compiled(n, names):
    states, _ = play_many(GameSetup(nplayers=n), StrategyLibrary().matrix(names), [game_seed(5, 0)])
    return states[0]


def test_interpreted_kernel_plays_identical_games():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    interpreted = json.loads(done.stdout.strip().splitlines()[-1])
    expected = {
        "4": _compiled(4, ["greedy", "inspector", "random", "builder"]),
        "2": _compiled(2, ["greedy", "greedy"]),
        "3": _compiled(3, ["random"] * 3),
    }
    for n, st in expected.items():
        assert np.array_equal(np.array(interpreted[n], dtype=st.dtype), st), f"{n} players differ"
