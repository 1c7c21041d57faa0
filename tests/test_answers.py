"""The answer first (reports.answers) and the why of a seat edge (reports.sections.shuffle_swing.why): the sentences a designer
reads before any table, on hand-made result tables with a known truth."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from report_tables import synthetic_run  # noqa: E402

from stats import tests as stats  # noqa: E402
from reports.answers import convergence, readings, seat_answers, seat_words  # noqa: E402
from reports.headline import headline_frame  # noqa: E402
from reports.seats import seat_advantage  # noqa: E402
from reports.sections.shuffle_swing.why import tiebreak_shares, why_lines  # noqa: E402


def two_judges(greedy_probs, search_probs, players=2, games=8000, seed=1, weak="greedy"):
    seats, games_t = synthetic_run(
        [
            {"players": players, "games": games, "lineup": (weak,) * players, "seat_probs": greedy_probs},
            {"players": players, "games": games, "lineup": ("search",) * players, "seat_probs": search_probs},
        ],
        seed=seed,
    )
    return seats, games_t, seat_advantage(games_t)


def test_three_players_lean_names_the_seat_winning_most_and_least():
    seats, games = synthetic_run([{"players": 3, "games": 9000, "seat_probs": [0.29, 0.33, 0.38]}], seed=6)
    (text,) = seat_answers(seat_advantage(games))
    assert text.startswith("3 players: unfair at greedy's level: the last player (seat 3) wins most, 3")
    assert "first player least, 2" in text and "(fair is 33.3%; greedy x3, 9,000 games)" in text


def test_seat_words_say_first_and_last_player():
    assert seat_words(0, 2) == "the first player" and seat_words(1, 2) == "the second player"
    assert seat_words(2, 3) == "the last player (seat 3)" and seat_words(1, 4) == "the second player"


def test_two_players_fair_among_strong_players_first_player_ahead_at_greedys_level():
    """The worked example: fair under search, the first player at 55% under greedy; the sentence
    leads with the strongest judge, gives its interval, then greedy's lean, then the convergence."""
    _, _, adv = two_judges([0.55, 0.45], [0.497, 0.503])
    cells = adv.cells.set_index("level")["verdict"]
    assert cells["greedy x2"] == stats.UNFAIR and cells["search x2"] == stats.FAIR
    (text,) = seat_answers(adv)
    assert text.startswith("2 players: fair among strong players (")
    assert "search x2, 8,000 games)" in text
    assert "unfair at greedy's level: the first player wins 5" in text and "(fair is 50.0%; greedy x2, 8,000 games)" in text
    assert text.index("fair among strong") < text.index("greedy's level")
    # The difference between the two judges (-4.5 pp) is not shown beyond the 3-point margin at 8,000
    # games a cell: the sentence says it cannot tell yet, and never "shrinks".
    assert "Converged? Cannot tell yet: the first player wins 5" in text and "shrinks" not in text
    assert "under greedy and" in text and "under search, a difference of -" in text
    assert "games in each of the two cells would tell" in text
    # The across-judges column says the lean, never a bare "open" or a bare agreement word.
    head = headline_frame(adv)
    across = set(head["across judges"])
    assert len(across) == 1
    (word,) = across
    assert word.startswith("skill-sensitive: fair (search); first player +")


def test_converged_when_two_judges_a_step_apart_agree():
    _, _, adv = two_judges([0.5, 0.5], [0.5, 0.5], weak="tuned", games=24000)
    rs = readings(adv)
    assert all(r.verdict == stats.FAIR for r in rs)
    ok, text = convergence(rs)
    assert ok is True and text.startswith(
        "Converged: tuned and search, a step apart on the skill ladder, are shown within 3 points of each other at "
        "every seat (furthest: the first player wins 50.")
    assert "Converged: tuned and search" in seat_answers(adv)[0]


def test_judges_at_par_cannot_show_convergence():
    """search_strong is at par with search on the ladder: no step, so no convergence claim."""
    seats, games = synthetic_run(
        [{"players": 2, "games": 4000, "lineup": (s, s)} for s in ("search", "search_strong")], seed=2
    )
    ok, text = convergence(readings(seat_advantage(games)))
    assert ok is None and text == ""


def test_an_undecided_cell_says_it_is_not_decided_and_never_a_bare_open():
    _, _, adv = two_judges([0.62, 0.38], [0.52, 0.48], games=2000, seed=4)
    verdicts = adv.cells.set_index("level")["verdict"]
    assert verdicts["search x2"] == stats.UNDECIDED and verdicts["greedy x2"] == stats.UNFAIR
    (text,) = seat_answers(adv)
    assert "not decided among strong players: the first player wins 5" in text
    assert "Converged? Cannot tell yet" in text and "would tell" in text
    (across,) = set(headline_frame(adv)["across judges"])
    assert across.startswith("open: ") and "undecided (search)" in across and "first player +" in across


def test_many_sets_name_the_judge_not_a_count_of_agreement_words():
    cells = [
        {"players": 4, "games": 800, "instruments": ("Violin", p, "Horns")} for p in ("Piano", "Harp", "Organ", "Vibes")
    ]
    _, games = synthetic_run(cells, seed=3)
    adv = seat_advantage(games)
    head = headline_frame(adv)
    assert list(head["across judges"]) == ["one judge (greedy x4) for all 4 sets"]
    (text,) = seat_answers(adv)
    assert text.startswith("4 players (4 instrument sets): judged by greedy, 4 sets: ")


def tied_run(players=3, games=3000, ties=300, seed=5):
    """Winners uniform on points; in ``ties`` games the last two seats tie on the top score and R13
    gives the win to the later one."""
    seats, g = synthetic_run([{"players": players, "games": games}], seed=seed)
    rng = np.random.default_rng(seed)
    tied = rng.choice(games, size=ties, replace=False)
    last, before = players - 1, players - 2
    for i in tied:
        rows = seats.index[seats["game"] == i]
        top = int(seats.loc[rows, "score"].max()) + 5
        seats.loc[rows[last], "score"] = top
        seats.loc[rows[before], "score"] = top
    g.loc[tied, "winner"] = last
    g.loc[tied, "tied"] = 2
    g.loc[tied, "tiebreak"] = 1
    return seats, g, tied


def test_tiebreak_share_splits_the_last_seats_edge():
    seats, games, tied = tied_run()
    sh = tiebreak_shares(seats, games).set_index("seat")
    n, t = len(games), len(tied)
    assert sh["shared_rate"].sum() == pytest.approx(1.0)
    assert sh["win_rate"].sum() == pytest.approx(1.0)
    # The last seat won every tie by the tie-break: shared, it keeps half of them.
    assert sh.loc[2, "tiebreak_rate"] == pytest.approx(t / n)
    assert sh.loc[2, "win_rate"] - sh.loc[2, "shared_rate"] == pytest.approx(t / (2 * n))
    assert sh.loc[1, "shared_rate"] - sh.loc[1, "win_rate"] == pytest.approx(t / (2 * n))
    assert sh.loc[0, "shared_rate"] == pytest.approx(sh.loc[0, "win_rate"])
    assert sh.loc[2, "tiebreak_part"] + sh.loc[2, "points_part"] == pytest.approx(sh.loc[2, "edge"])
    assert sh.loc[2, "ties_decided"] == pytest.approx(t / n)
    assert sh.loc[2, "shared_lo"] < sh.loc[2, "shared_rate"] < sh.loc[2, "shared_hi"]


def test_why_line_for_an_imbalanced_cell_names_the_tiebreak_part():
    seats, games, _ = tied_run(games=6000, ties=900)
    adv = seat_advantage(games)
    assert adv.cells["verdict"].iloc[0] == stats.UNFAIR
    (line,) = why_lines(tiebreak_shares(seats, games), adv.cells)
    assert line.startswith("3 players, greedy x3: the last player (seat 3) wins ")
    assert "from ties the R13 tie-break gives to the later seat" in line
    assert "with tied wins shared it would win" in line
    # No line for a cell that is not imbalanced.
    seats2, games2 = synthetic_run([{"players": 3, "games": 3000}], seed=9)
    adv2 = seat_advantage(games2)
    assert (adv2.cells["verdict"] != stats.UNFAIR).all()
    assert why_lines(tiebreak_shares(seats2, games2), adv2.cells) == []


def test_the_report_puts_the_answers_before_any_table(tmp_path):
    from report_tables import write_run

    from reports.make import make_report

    seats, games, _ = tied_run(games=6000, ties=900)
    run = tmp_path / "run"
    write_run(run, seats, games)
    report, written = make_report(run)
    md = Path(written["markdown"]).read_text()
    html = Path(written["html"]).read_text()
    first_table_md = md.index("\n| ")
    assert md.index("## The answer") < first_table_md and md.index("3 players: ") < first_table_md
    assert html.index('id="answers"') < html.index("<table")
    assert "R13 tie-break" in md[:first_table_md]
    assert report.answers and report.answers[0].startswith("3 players: ")
    assert (tmp_path / "run" / "report" / "seat_tiebreak.csv").is_file()
    assert pd.read_csv(tmp_path / "run" / "report" / "seat_tiebreak.csv")["shared_rate"].sum() == pytest.approx(1.0)


def test_a_sequential_cell_on_the_margin_says_so_with_its_interval_and_cost():
    """The sequential record's columns (seq_*) are read when present: an undecided cell on the margin
    says 'on the margin', its confidence-sequence interval and what deciding would cost."""
    _, _, adv = two_judges([0.55, 0.45], [0.53, 0.47], games=3000, seed=7)
    cells = adv.cells.copy()
    search = cells["level"] == "search x2"
    assert (cells.loc[search, "verdict"] == stats.UNDECIDED).all()
    for k in ("seq_on_margin", "seq_lo", "seq_hi", "seq_more_games"):
        cells[k] = np.nan
    cells["seq_on_margin"] = cells["seq_on_margin"].astype(object)
    cells.loc[search, "seq_on_margin"] = True
    cells.loc[search, "seq_lo"] = 0.505
    cells.loc[search, "seq_hi"] = 0.556
    cells.loc[search, "seq_more_games"] = 41000
    from dataclasses import replace

    (text,) = seat_answers(replace(adv, cells=cells))
    assert "on the margin among strong players: the first player wins 5" in text
    assert "[50.5, 55.6]" in text and "right at the 3-point margin, so neither fair nor unfair can be shown" in text
    assert "deciding would take about 41,000 more games" in text
    (across,) = set(headline_frame(replace(adv, cells=cells))["across judges"])
    assert "on the margin (search)" in across


def test_variant_answers_say_what_each_variant_does_to_the_leaning_seat():
    from reports.answers import variant_answers

    seats, games = synthetic_run([{"players": 4, "games": 6000, "seat_probs": [0.2, 0.2, 0.22, 0.38]}], seed=8)
    adv = seat_advantage(games)
    cells = adv.cells.assign(setting="forest/base")
    from dataclasses import replace

    view = replace(adv, cells=cells, rates=adv.rates.assign(setting="forest/base"))  # a board/variant label
    lineup = cells["lineup"].iloc[0]
    base = dict(players=4, board="forest", lineup=lineup, reference="base", seat=3, deals=6000)
    changes = pd.DataFrame([
        dict(base, variant="catch_up", change=-0.004, change_lo=-0.021, change_hi=0.013, verdict="unchanged"),
        dict(base, variant="drawn", change=-0.12, change_lo=-0.15, change_hi=-0.09, verdict="changed"),
        dict(base, variant="both", change=-0.02, change_lo=-0.06, change_hi=0.02, verdict="undecided"),
    ])
    words = {"catch_up": "the catch-up tokens", "drawn": "drawing the set-up order",
             "both": "drawing the set-up order and the catch-up tokens"}
    (text,) = variant_answers(view, changes, "base", words)
    assert text.startswith("4 players, forest: unfair at greedy's level: the last player (seat 4) wins most, 3")
    assert "the catch-up tokens do not change it (last player (seat 4) -0.4 pp [-2.1, +1.3])" in text
    assert "drawing the set-up order changes it (last player (seat 4) -12.0 pp [-15.0, -9.0])" in text
    assert "whether drawing the set-up order and the catch-up tokens change it is not decided yet" in text


def test_echidna_variant_words_come_from_the_scenario_switches():
    from reports.sections.variants import variant_words
    from simulator import games as registry

    text = (Path(__file__).parents[1] / "scenarios" / "echidna-setup-order.toml").read_text()
    words = variant_words({"scenario": {"text": text}}, registry.get("echidna").report.switch_words)
    assert words == {
        "turn": "the set-up in turn order",
        "random": "drawing the set-up order",
        "turn_tokens": "the set-up in turn order and the catch-up tokens",
    }
    assert variant_words({"scenario": {"text": "not = [toml"}}) == {}


def test_convergence_says_moves_with_skill_only_when_the_two_sample_test_shows_it():
    """A sign flip of 6 points at 3,000 games a cell is not shown beyond the margin (cannot tell); at
    20,000 games a cell it is, with its direction and interval. No sentence says "turns"."""
    from reports.answers import possessive

    _, _, adv = two_judges([0.47, 0.53], [0.53, 0.47], games=3000, seed=10, weak="greedy")
    ok, text = convergence(readings(adv))
    assert ok is None and text.startswith("Converged? Cannot tell yet: the first player wins 4")
    assert "turns" not in text and "grows" not in text
    _, _, adv = two_judges([0.47, 0.53], [0.53, 0.47], games=20000, seed=10, weak="greedy")
    ok, text = convergence(readings(adv))
    assert ok is False and text.startswith("Moves with skill: the first player wins 4")
    assert "under greedy and 5" in text and "shown beyond 3 points" in text
    assert possessive("the last player (seat 4)") == "the last player's (seat 4)"
    assert possessive("the first player") == "the first player's"


def test_each_seat_keeps_its_own_interval_when_the_record_names_another_seat():
    """A sequential record's interval is of the seat it names (the zone test names the seat it found
    off); the sentence says the seat furthest from fair, so it must not borrow the record's interval."""
    from reports.answers import cell_reading

    rates = pd.DataFrame({
        "players": [3, 3, 3], "instruments": ["s"] * 3, "lineup": ["search,search,search"] * 3,
        "seat": [0, 1, 2], "seat_rate": [0.283, 0.332, 0.386], "wins": [283, 332, 386],
        "seat_lo": [0.253, 0.30, 0.353], "seat_hi": [0.314, 0.36, 0.418],
    })
    row = pd.Series({"players": 3, "instruments": "s", "lineup": "search,search,search", "level": "strong",
                     "verdict": stats.UNFAIR, "games": 1001, "seq_decided": True, "seq_stop": "decided",
                     "seq_seat": 0, "seq_lo": 0.253, "seq_hi": 0.314, "seq_on_margin": False})
    r = cell_reading(row, rates)
    assert r.seat == 2 and (r.lo, r.hi) == (0.353, 0.418)  # seat 3's own interval, not seat 1's
    assert r.seat_los == (0.253, 0.30, 0.353)
    row["seq_seat"] = 2
    row["seq_lo"], row["seq_hi"] = 0.35, 0.42
    r = cell_reading(row, rates)
    assert (r.lo, r.hi) == (0.35, 0.42)  # the record's interval when it names the same seat
