"""Shuffle and Swing: why a seat leads. A tie for the highest total goes to the tied player latest
in turn order (R13); the seat section gets each seat's wins on points and by the tie-break, and the
answer the tie-break's part of each unfair seat edge (:mod:`reports.sections.shuffle_swing.why`)."""

from __future__ import annotations

from reports import present as P
from reports.document import Table
from reports.seat_section import setting_cols
from reports.sections.shuffle_swing.why import tiebreak_shares, why_lines

KEY = "tiebreak"
ORDER = 80
NUMBERED = False

NOTE = (
    "Why a seat leads: a tie for the highest total goes to the tied player latest in turn order (R13), so "
    "every game the tie-break decides is a win for a later seat. 'With tied wins shared' reads the same "
    "games giving 1/k of a tie to each of the k tied seats; the edge (win rate - 1/N) splits into the "
    "tie-break's part (as decided - shared) and the part won on points (shared - 1/N). It is exact for "
    "players who never look at who wins a tie (greedy, tuned); the ruling switch "
    "board.rulings.tie_break = \"shared\" or \"earliest\" plays the other readings on the same deals."
)


def build(ctx):
    confidence = ctx.options.confidence
    seat_sec = ctx.section("seats")
    sequential = ctx.run.manifest.get("sequential")
    shares = tiebreak_shares(ctx.tables, ctx.tables, confidence, sequential=sequential)
    c = int(100 * confidence)
    # A sequential run stopped when its verdicts were decided: the interval is a confidence sequence.
    kind = "confidence sequence" if sequential else "CI"
    if not shares.empty:
        spec = [
            *setting_cols(ctx.setting),
            ("judge (lineup)", P.text("level")),
            ("seat", P.seat("seat")),
            ("games", P.integer("games")),
            ("win % (R13 as decided)", P.rate("win_rate")),
            ("won on points %", P.rate("points_rate")),
            ("won by the tie-break %", P.rate("tiebreak_rate")),
            (f"win % with tied wins shared [{c}% {kind}]", P.rate("shared_rate", "shared_lo", "shared_hi")),
            ("edge vs 1/N, pp", P.pp("edge")),
            ("of it: tie-break, pp", P.pp("tiebreak_part")),
            ("of it: on points, pp", P.pp("points_part")),
        ]
        seat_sec.tables.append(
            Table("seat_tiebreak", "Each seat's wins on points and by the R13 tie-break, and with tied wins shared",
                  shares, P.present(shares, spec))
        )
        seat_sec.notes.append(NOTE)
    why = why_lines(shares, ctx.adv.cells)
    seat_sec.findings += why
    ctx.why += why
    ctx.why_title = "Why: the tie-break's part of each seat edge (R13)"
    ctx.why_intro = "Why (the R13 tie-break's part of each seat edge):"
