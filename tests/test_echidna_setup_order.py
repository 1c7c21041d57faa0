"""The set-up order (E1) and the home-stretch cap (E8) as variant switches.

``pickup_order``: ``reverse`` (the rulebook's, E1: the last seat chooses its pick-up space first;
the default, whose decisions and random numbers are those of ``tests/test_echidna_fingerprint.py``),
``turn`` (the first seat first) or ``random`` (an order drawn from the game's generator after the
echidnas are placed, so every order meets the same deal). ``home_stretch_cap`` overrides
``game.toml``'s cap on what a home-stretch gain can bring a player to (E8).
"""

import importlib.util
import itertools
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from echidna_support import big_log, events, make_state, nolog, ring_setup, rng, rows, work
from simulator import games as registry
from simulator.echidna.kernel import engine as KE
from simulator.echidna.kernel import invariants as KI
from simulator.echidna.kernel import set_up as KS
from simulator.echidna.kernel import turn as KT
from simulator.echidna import layout as L
from simulator.echidna.board import EchidnaSetup, Variants, load_board, load_rules, pack_geo, variants_from_dict
from simulator.echidna.narrate import game_document, narrate
from simulator.seeds import game_seed
from simulator.echidna.playout import play_many, play_one
from simulator.errors import DataError
from ssb.cli import cli

GOLDEN_STEP = 0x9E3779B97F4A7C15  # splitmix64 adds this to its state per draw (simulator/kernel_common.py)


def _setup_log(setup, names, seed):
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    log = big_log()
    _, _, order, score = work()
    r = rng(seed)
    KS.setup_game(setup.geo, st, rows(names), r, log, order, score)
    return st, log, int(r[0])


def _choosers(log):
    return events(log, L.EV_PICKSPACE)[:, 3].tolist()


# --------------------------------------------------------------------------- who chooses first


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_each_order_names_who_chooses_first(players):
    for order, want in (("reverse", list(range(players - 1, -1, -1))), ("turn", list(range(players)))):
        setup = EchidnaSetup(players, "forest", Variants(pickup_order=order))
        for seed in (1, 2, 3):
            st, log, _ = _setup_log(setup, ["greedy"] * players, seed)
            assert _choosers(log) == want, (order, seed)
            assert KI.check_invariants(setup.geo, st) == 0
    setup = EchidnaSetup(players, "forest", Variants(pickup_order="random"))
    seen = set()
    for seed in range(40):
        st, log, _ = _setup_log(setup, ["greedy"] * players, seed)
        got = _choosers(log)
        assert sorted(got) == list(range(players))  # every seat chooses once
        assert KI.check_invariants(setup.geo, st) == 0
        seen.add(tuple(got))
    assert len(seen) > 1  # the order differs across seeds


def test_random_order_is_deterministic_per_seed_and_uniform():
    setup = EchidnaSetup(3, "snow", Variants(pickup_order="random"))
    counts = Counter()
    for seed in range(600):
        _, log, _ = _setup_log(setup, ["greedy"] * 3, seed)
        counts[tuple(_choosers(log))] += 1
        if seed < 20:
            _, again, _ = _setup_log(setup, ["greedy"] * 3, seed)
            assert _choosers(again) == _choosers(log)
    # All 6 orders, each near 100 of 600 (a fixed seed list: deterministic, so no flakiness).
    assert set(counts) == set(itertools.permutations(range(3)))
    assert all(60 <= c <= 140 for c in counts.values()), counts


def test_every_order_meets_the_same_deal_and_only_random_draws_more():
    # Greedy set-up choices draw nothing, so the generator after the set-up shows every draw: the
    # rulebook's order and ``turn`` draw exactly as before, ``random`` n - 1 more (its shuffle).
    for players in (2, 4, 6):
        states = {}
        for order in ("reverse", "turn", "random"):
            setup = EchidnaSetup(players, "forest", Variants(pickup_order=order))
            states[order] = _setup_log(setup, ["greedy"] * players, 9)
        deal = {o: s[0][L.S_EPOS : L.S_EPOS + L.N_ECHIDNAS].tolist() for o, s in states.items()}
        assert deal["reverse"] == deal["turn"] == deal["random"]
        assert states["turn"][2] == states["reverse"][2]
        assert (states["random"][2] - states["reverse"][2]) % 2**64 == (players - 1) * GOLDEN_STEP % 2**64


def test_the_first_chooser_gets_the_space_the_last_seat_got_before():
    # Greedy takes the free space of most echidna traffic: whoever chooses first gets it.
    for seed in (3, 4, 5):
        st_rev, _, _ = _setup_log(EchidnaSetup(4, "forest"), ["greedy"] * 4, seed)
        st_turn, _, _ = _setup_log(EchidnaSetup(4, "forest", Variants(pickup_order="turn")), ["greedy"] * 4, seed)
        assert st_turn[L.S_PICK + 0] == st_rev[L.S_PICK + 3]


def test_the_default_order_is_the_rulebooks_and_plays_the_same_games():
    assert Variants().pickup_order == "reverse" and Variants().label() == "base"
    a = EchidnaSetup(4, "forest")
    b = EchidnaSetup(4, "forest", variants_from_dict({"pickup_order": "reverse"}))
    assert (a.geo == b.geo).all()
    seeds = [game_seed(5, i) for i in range(30)]
    sa, _ = play_many(a, rows(["greedy"] * 4), seeds)
    sb, _ = play_many(b, rows(["greedy"] * 4), seeds)
    assert (sa == sb).all()


@pytest.mark.parametrize("order", ["turn", "random"])
def test_soak_every_order(order):
    for players, board in ((2, "snow"), (5, "forest"), (6, "snow")):
        setup = EchidnaSetup(players, board, Variants(pickup_order=order, catch_up=True, home_stretch=True))
        seeds = [game_seed(11, i) for i in range(40)]
        _, bad = play_many(setup, rows(["random"] * players), seeds, check=True)
        assert len(bad) == 0
        _, bad = play_many(setup, rows(["greedy"] * players), seeds[:10], check=True)
        assert len(bad) == 0


# --------------------------------------------------------------------------- the home-stretch cap (E8)


def test_home_stretch_cap_switch_is_enforced():
    for cap, held, want in ((2, 1, [2, 2]), (0, 0, [0, 0]), (6, 4, [5, 6])):
        setup = ring_setup(2, Variants(home_stretch=True, home_stretch_cap=cap))
        assert setup.geo[L.G_HS_CAP] == cap
        st = make_state(setup, echidnas={0: (0, 1)}, picks=[30, 31], stumps={1: [20]}, home={1: 2}, tokens={1: held})
        got = []
        for t in (1, 2):
            KT.apply_move(setup.geo, st, 0, 0, t, 0, nolog())
            got.append(int(st[L.S_TOKENS + 1]))
        assert got == want, cap
        assert KI.check_invariants(setup.geo, st) == 0
    assert ring_setup(2).geo[L.G_HS_CAP] == load_rules().home_stretch_cap == 4  # game.toml's


def test_invariant_8_reads_the_switched_cap():
    # Three tokens held without catch-up tokens: over a cap of 2, within the default 4.
    low = ring_setup(2, Variants(home_stretch=True, home_stretch_cap=2))
    st = make_state(low, picks=[30, 31], tokens={1: 3})
    assert KI.check_invariants(low.geo, st) == 8
    default = ring_setup(2, Variants(home_stretch=True))
    assert KI.check_invariants(default.geo, make_state(default, picks=[30, 31], tokens={1: 3})) == 0


def test_cap_over_the_supply_of_another_game_file_is_refused():
    rules = replace(load_rules(), move_tokens=3, catch_up=(0, 0, 0, 0, 0, 0))
    with pytest.raises(DataError, match="above the 3 tokens of the supply"):
        pack_geo(load_board("forest"), rules, 4, Variants(home_stretch_cap=4))


# --------------------------------------------------------------------------- validation and words


@pytest.mark.parametrize(
    "table,key,fragment",
    [
        ({"pickup_order": "revers"}, "variants.pickup_order", "did you mean 'reverse'"),
        ({"pickup_order": "sideways"}, "variants.pickup_order", "known: reverse, turn, random"),
        ({"pickup_order": 1}, "variants.pickup_order", "expected a string"),
        ({"home_stretch_cap": -1}, "variants.home_stretch_cap", "below the minimum 0"),
        ({"home_stretch_cap": 26}, "variants.home_stretch_cap", "above the maximum 25"),
        ({"home_stretch_cap": True}, "variants.home_stretch_cap", "expected an integer"),
        ({"pickup": "turn"}, "variants.pickup", "did you mean 'pickup_order'"),
    ],
)
def test_bad_switch_values_name_the_key(table, key, fragment):
    with pytest.raises(DataError) as exc:
        variants_from_dict(table, "s.toml", "variants")
    assert exc.value.file == "s.toml" and exc.value.key == key and fragment in exc.value.reason, exc.value.reason


def test_scenario_with_a_bad_order_exits_2(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        'game = "echidna"\nname = "bad"\nseed = 1\ngames = 10\nplayers = [2]\nboards = ["forest"]\n'
        '[variants]\nbase = {}\nturn = { pickup_order = "trun" }\n[lineup]\nmirror = "greedy"\n'
    )
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(tmp_path / "out")])
    assert r.exit_code == 2
    assert f"error: {path}: variants.turn.pickup_order: 'trun' is not a pick-up order" in r.output
    assert "did you mean 'turn'" in r.output and "Traceback" not in r.output


def test_labels_and_narration_say_the_order():
    assert Variants(pickup_order="turn").label() == "pickup_order=turn"
    assert Variants(catch_up=True, pickup_order="random", home_stretch_cap=2).label() == (
        "catch_up+pickup_order=random+home_stretch_cap=2"
    )
    setup = EchidnaSetup(4, "forest", Variants(pickup_order="random"))
    rec = play_one(setup, rows(["greedy"] * 4), 7)
    text = narrate(rec, ["greedy"] * 4)
    chooser = [int(r[3]) for r in rec.events if int(r[2]) == L.EV_PICKSPACE]
    drawn = ", ".join(f"seat {p + 1}" for p in chooser)
    assert f"set-up: pick-up spaces chosen in an order drawn for this game ({drawn})" in text
    assert game_document(rec)["pickup_order"] == "random"
    rec = play_one(EchidnaSetup(3, "snow", Variants(pickup_order="turn")), rows(["greedy"] * 3), 2)
    assert "set-up: pick-up spaces chosen in turn order, the first seat first" in narrate(rec)


def test_cli_play_reaches_the_switches():
    r = CliRunner().invoke(
        cli, ["play", "--game", "echidna", "--players", "3", "--seed", "4", "--variant", "pickup_order=turn",
              "--variant", "home_stretch", "--variant", "home_stretch_cap=2"]
    )
    assert r.exit_code == 0, r.output
    assert "variants: home_stretch+pickup_order=turn+home_stretch_cap=2" in r.stdout
    lines = [ln for ln in r.stdout.splitlines() if "chooses pick-up space" in ln]
    assert [ln.split()[0] for ln in lines] == ["red", "orange", "blue"]
    r = CliRunner().invoke(cli, ["play", "--game", "echidna", "--variant", "pickup_order=random2"])
    assert r.exit_code == 2 and "did you mean 'random'" in r.stderr


def test_the_tuner_may_name_both_switches():
    full = registry.get("echidna").tunable({"catch_up": True})
    assert full["pickup_order"] == "reverse" and full["home_stretch_cap"] == 4
    assert registry.get("echidna").tunable({"pickup_order": "turn", "home_stretch_cap": 1})["pickup_order"] == "turn"


# --------------------------------------------------------------------------- a digest of the new switches

# The recorded grid of tests/test_echidna_fingerprint.py covers the rulebook's order only; this one
# plays the new switches (every player count, both boards, four lineups), so a later change that
# alters what they do shows. Record a new digest only for a change meant to alter these games.
_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "echidna_fingerprint.py"
_spec = importlib.util.spec_from_file_location("echidna_fingerprint", _PATH)
fp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fp)

SWITCHES = (
    ("turn", Variants(pickup_order="turn")),
    ("random", Variants(pickup_order="random")),
    ("random_tokens", Variants(pickup_order="random", catch_up=True, home_stretch=True)),
    ("turn_cap1", Variants(pickup_order="turn", catch_up=True, home_stretch=True, home_stretch_cap=1)),
    ("cap8", Variants(home_stretch=True, home_stretch_cap=8)),
)
SWITCH_LINEUPS = ("random", "greedy", "plain-setup", "mixed")
SWITCH_DIGEST = "963f1506a35d5a2b2ec137b3298951919ae86739682d89bb0c6f50e359fb827a"


def switch_digest(games=6, log_games=1, seed=20261202):
    import hashlib

    from simulator.echidna.strategies import EchidnaStrategyLibrary

    lib = EchidnaStrategyLibrary()
    rules = load_rules()
    total = hashlib.sha256()
    log = np.zeros((200_000, L.LOG_WIDTH), dtype=np.int64)
    k = played = 0
    for board in ("forest", "snow"):
        b = load_board(board)
        for n in L.PLAYER_COUNTS:
            for vname, variants in SWITCHES:
                setup = EchidnaSetup(n, b, variants, rules)
                for line in SWITCH_LINEUPS:
                    strat = fp.lineup(lib, line, n)
                    h = hashlib.sha256(f"{board}/{n}p/{vname}/{line}".encode())
                    seeds = np.array([game_seed(seed + k, i) for i in range(games)], dtype=np.uint64)
                    states, bad = play_many(setup, strat, seeds)
                    assert len(bad) == 0
                    h.update(fp.canonical(states).tobytes())
                    for i in range(log_games):
                        st = np.zeros(L.STATE_SIZE, dtype=np.int64)
                        log[0, 0] = 0
                        KE.play_game(setup.geo, strat, seeds[i], st, log, False)
                        h.update(fp.canonical(st).tobytes())
                        h.update(np.ascontiguousarray(log[1 : int(log[0, 0]) + 1]).tobytes())
                    total.update(h.digest())
                    k += 1
                    played += games
    return total.hexdigest(), played


def test_the_new_switches_play_the_recorded_games():
    digest, played = switch_digest()
    assert played == 1200
    assert digest == SWITCH_DIGEST


def test_shipped_scenario_and_search_name_the_switches():
    from scenarios.load import load_scenario
    from scenarios.tuning import load_tuning

    sc = load_scenario("echidna-setup-order")
    assert sc.reference == "reverse"
    assert {k: v.pickup_order for k, v in sc.variants.items()} == {
        "reverse": "reverse", "turn": "turn", "random": "random", "turn_tokens": "turn"}
    # The orders of one (players, board, judge) share their deals.
    cells = [c for c in sc.cells if c.players == 4 and c.board == "forest" and c.lineup == ("greedy",) * 4]
    assert len(cells) == 4 and len({c.deal_key for c in cells}) == 1
    spec = load_tuning("echidna-setup")
    by_key = {p.key: p for p in spec.params}
    assert by_key["pickup_order"].base == "reverse" and by_key["pickup_order"].options() == ["turn", "random"]
    assert by_key["home_stretch_cap"].base == 4 and by_key["home_stretch_cap"].options()[:2] == [0, 1]


def test_a_search_refuses_an_unknown_order(tmp_path):
    from scenarios.tuning import load_tuning

    src = Path(__file__).resolve().parent.parent / "scenarios" / "tunes"
    (tmp_path / "echidna-4p.toml").write_text((src / "echidna-4p.toml").read_text())
    text = (src / "echidna-setup.toml").read_text().replace('values = ["turn", "random"]', 'values = ["turn", "shuffled"]')
    (tmp_path / "t.toml").write_text(text)
    with pytest.raises(DataError) as exc:
        load_tuning(tmp_path / "t.toml")
    assert exc.value.key == "space.pickup_order" and '"shuffled" is refused' in exc.value.reason, exc.value.reason
