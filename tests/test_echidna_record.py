"""The record of an Echidna Shuffle game (``ssb play --game echidna --json`` and the results
tables): the winning turn counted, the win event's seat and winner (E6), a changed stall cap (E9)
in the variant label, the picked-up bug's colour (E4) and the token supply (E7, E8).

These change only what is written about a game, never what the kernel decides: the decision
fingerprint (tests/test_echidna_fingerprint.py) is unchanged.
"""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from simulator.echidna import layout as L
from simulator.echidna.board import EchidnaSetup, Variants
from simulator.echidna.playout import game_results, play_many, turns_played
from ssb.cli import cli
from simulator.echidna.strategies import EchidnaStrategyLibrary


def play_json(*args):
    result = CliRunner().invoke(cli, ["play", "--game", "echidna", "--json", *map(str, args)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # (the compile notice goes to stderr)


def test_turns_count_the_winning_turn():
    doc = play_json("--players", 3, "--board", "forest", "--seed", 3)
    assert doc["winner"] >= 0 and not doc["stalled"]
    played = {e["turn"] for e in doc["events"] if e["event"] == "turn"}
    assert doc["turns"] == len(played) == max(played) + 1
    assert any(e["event"] == "win" and e["turn"] == max(played) for e in doc["events"])


def test_a_stalled_game_counts_every_turn_it_played():
    doc = play_json("--players", 2, "--seed", 1, "--variant", "max_rounds=3")
    assert doc["stalled"] and doc["winner"] == -1
    assert doc["turns"] == len({e["turn"] for e in doc["events"] if e["event"] == "turn"}) == 3 * 2


def test_the_win_event_keeps_the_seat_whose_turn_it_is_and_names_the_winner():
    """E6: a player can win on another's turn (a delivery by any echidna); the event says both."""
    found_other = False
    for seed in (1014, 1, 2, 3, 4, 5, 6, 7):
        doc = play_json("--players", 2, "--seed", seed, "--strategies", "random")
        (win,) = [e for e in doc["events"] if e["event"] == "win"]
        turn_seat = {e["turn"]: e["seat"] for e in doc["events"] if e["event"] == "turn"}
        assert win["seat"] == turn_seat[win["turn"]]
        assert win["winner"] == doc["winner"]
        found_other |= win["winner"] != win["seat"]
    assert found_other, "no game among these seeds was won on the other player's turn"


def test_a_changed_stall_cap_is_in_the_label_and_the_json():
    doc = play_json("--players", 4, "--seed", 2, "--variant", "max_rounds=5")
    assert "max_rounds=5" in doc["variants"] and doc["max_rounds"] == 5
    assert play_json("--players", 4, "--seed", 2)["max_rounds"] == 200
    assert Variants(max_rounds=5).label() == "max_rounds=5" and Variants().label() == "base"
    assert Variants(max_rounds=5).label() != Variants().label()


def test_pickups_carry_the_bug_colour_and_the_document_the_token_supply():
    doc = play_json("--players", 4, "--seed", 5, "--variant", "catch_up", "--variant", "home_stretch")
    pickups = [e for e in doc["events"] if e["event"] == "pickup"]
    assert pickups and all(e["colour"] == e["seat"] for e in pickups)  # E4: one's own bug
    t = doc["tokens"]
    assert t["supply_at_start"] == 25
    assert t["supply_left"] + t["out_of_the_game"] + sum(t["held"]) == t["supply_at_start"]
    assert len(t["held"]) == 4


def test_the_results_table_counts_turns_like_the_document():
    setup = EchidnaSetup(3, "forest", Variants())
    strat = EchidnaStrategyLibrary().matrix(["greedy"] * 3)
    states, _ = play_many(setup, strat, np.arange(100, 130, dtype=np.uint64))
    turns = game_results(states, 3)["turns"]
    won = states[:, L.S_WINNER] >= 0
    assert won.any()
    assert np.array_equal(turns, states[:, L.S_TURN] + won)
    assert np.array_equal(turns, turns_played(states))


@pytest.mark.parametrize("players", [2, 6])
def test_the_document_keeps_the_kernel_state(players):
    """The record's fixes are read from the final state; the state itself is not changed."""
    doc = play_json("--players", players, "--seed", 9)
    assert doc["rounds"] >= 1 and doc["turns"] >= doc["rounds"] * players
