"""The cold start: what a first plain game compiles, and that the smaller entry point plays the
same game draw for draw (a change for compile time alone changes no decision)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simulator.shuffle_swing.kernel.engine import play_game, play_game_plain
from simulator.shuffle_swing.layout import LOG_WIDTH
from simulator.shuffle_swing.playout import GameSetup, strategy_matrix, game_entry, plain_lineup, play_one
from simulator.shuffle_swing.strategies import StrategyLibrary

LIB = StrategyLibrary()
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("players,names", [
    (4, ["greedy"] * 4), (2, ["greedy", "random"]), (3, ["random"] * 3), (4, ["tuned", "decisive", "majority", "greedy"]),
])
def test_the_plain_entry_plays_the_same_game(players, names):
    setup = GameSetup(nplayers=players)
    strat = strategy_matrix(setup, LIB.matrix(names))
    assert plain_lineup(strat)
    for seed in (1, 5, 11):
        logs = []
        states = []
        for entry in (play_game, play_game_plain):
            log = np.zeros((200_000, LOG_WIDTH), dtype=np.int32)
            st, code, turn = entry(setup.geo, players, strat, np.uint64(seed), log, True)
            assert code == 0
            states.append(st.copy())
            logs.append(log[: int(log[0, 0]) + 1].copy())
        assert np.array_equal(states[0], states[1])  # the generator's state included
        assert np.array_equal(logs[0], logs[1])


def test_a_table_with_a_searching_seat_takes_the_full_entry():
    setup = GameSetup(nplayers=2)
    plain = LIB.matrix(["greedy", "random"])
    deep = LIB.matrix(["greedy", "lookahead"])
    assert game_entry(plain) == "play_game_plain" and game_entry(deep) == "play_game"
    assert play_one(setup, deep, 3).violation == 0


@pytest.mark.slow
def test_each_kernel_function_has_one_compiled_version(tmp_path):
    """Constants and int32 seats no longer make versions of their own (324 compiles of 150
    functions for one cold game before): every kernel function a game used holds one signature.
    In a fresh process with an empty cache (other tests call kernel functions with other argument
    types, and a cached entry point loads its callees without compiling them): a cold compile,
    about 40 s of CPU."""
    code = """
import json
from simulator import kernel_common
from simulator.shuffle_swing.kernel import choice, core, engine, invariants, objectives, policy, routes, rules, search, turn
from simulator.shuffle_swing.playout import GameSetup, play_one
from simulator.shuffle_swing.strategies import StrategyLibrary
lib = StrategyLibrary()
play_one(GameSetup(nplayers=4), lib.matrix(["greedy"] * 4), 2)
play_one(GameSetup(nplayers=2), lib.matrix(["greedy", "lookahead"]), 2)
many, used = {}, 0
for mod in (kernel_common, choice, core, engine, invariants, objectives, policy, routes, rules, search, turn):
    for name in dir(mod):
        fn = getattr(mod, name)
        if getattr(fn, "py_func", None) is not None and fn.py_func.__module__ == mod.__name__:
            used += bool(fn.signatures)
            if len(fn.signatures) > 1:
                many[mod.__name__ + "." + name] = len(fn.signatures)
print(json.dumps([many, used]))
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=1800, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    many, used = json.loads(proc.stdout.strip().splitlines()[-1])
    assert used > 100
    assert many == {}
