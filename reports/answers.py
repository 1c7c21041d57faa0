"""The answer first: one sentence per player count, in the designer's words, before any table.

Each sentence says which way a setting leans, by how much, for which players (which judge), how sure
(the interval, and whether the verdict is decided) and, with two judges a step apart on the skill
ladder, whether the verdict has converged::

    2 players: fair among strong players (first player 49.4% [47.2, 51.5], search); at greedy's level
    the first player wins 55.0% [53.9, 56.1] (greedy). Moves with skill: the first player wins 55.0%
    under greedy and 49.4% under search, a difference of -5.6 pp [-9.3, -3.1], shown beyond 3 points.

Everything here reads the cells of :func:`reports.seats.seat_advantage` (one row per player count,
setting and judge), never a game. How one cell is read (decided or not, its games, the interval,
whether it sits on the margin, what deciding would cost) is :func:`cell_reading`, the one place that
knows the verdict columns; a sequential run's columns extend it there.

Judges are ordered by the game's skill ladder (:func:`judge_ranks`: ``Game.ladder``, README "The skill
ladder", ``ssb strategies ladder``): a judge stronger by a whole rung is a *step* above. Between the two
strongest judges of the run that are a step apart, :func:`convergence_test` compares each seat's win
rate (two cells on other deals: a two-sample test, anytime-valid, simultaneous over the seats): the
verdict has *converged* when every seat's difference is shown within the margin, *moves with skill*
when some seat's is shown beyond it (its direction and interval said), and otherwise the sentence says
it *cannot tell yet* and what it would take. No sentence says an edge shrinks, grows or turns.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pandas as pd

from stats import tests as stats
from reports.seats import NOT_JUDGED, lineup_names, on_the_margin
from simulator import games as registry
from simulator.game_api import Game

def judges_words(game=None):
    """``{judge: words}``: who each judge stands for, in the designer's words, as ``game`` declares
    it (``LadderSpec.words``); ``None``: every registered game's words."""
    if game is not None:
        g = game if isinstance(game, Game) else registry.get(game)
        return dict(g.ladder.words) if g.ladder is not None else {}
    out = {}
    for name in registry.names():
        out = {**judges_words(name), **out}
    return out

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def seat_words(seat, players):
    """``0 -> 'the first player'``; the last seat of three or more is 'the last player (seat N)'."""
    seat, players = int(seat), int(players)
    if players > 2 and seat == players - 1:
        return f"the last player (seat {seat + 1})"
    return f"the {ORDINALS[seat]} player" if 0 <= seat < len(ORDINALS) else f"seat {seat + 1}"


def possessive(who):
    """``'the last player (seat 4)' -> "the last player's (seat 4)"``; ``'the first player' -> "the first player's"``."""
    head, sep, tail = who.partition(" (")
    return f"{head}'s{sep}{tail}"


def judge_of(lineup):
    """The strategy of a mirror lineup (``greedy`` for ``greedy,greedy,greedy``), else None."""
    names = lineup_names(lineup)
    return names[0].split(":")[0] if len(set(names)) == 1 else None


def judge_words(judge, words=""):
    """Who a judge stands for: ``words`` (its game's, :func:`judges_words`), else the words some
    registered game gives it (``strong players``), else ``<name> players``."""
    return words or judges_words().get(judge) or f"{judge} players"


def among(judge, words=""):
    """``among strong players`` / ``at greedy's level``."""
    w = judge_words(judge, words)
    return w if w.startswith("at ") else (f"at {w}" if w.endswith("level") else f"among {w}")


def judge_ranks(game=None):
    """``{judge: rung}`` on the skill ladder of ``game`` (a registered game or its name; ``None``:
    the default game), from its declaration (``Game.ladder``: ``LadderSpec.judge_ranks``); empty for
    a game without a ladder. A judge missing from it is described but takes no part in the
    convergence call (its rung is not known)."""
    g = game if isinstance(game, Game) else registry.get(game)
    if g.ladder is None:
        return {}
    return g.ladder.judge_ranks(None if g.ladder.judges else g.strategies(()))


def pp(x):
    return f"{100 * x:+.1f} pp"


def pc(x):
    return f"{100 * x:.1f}%"


# --------------------------------------------------------------------------- one cell


@dataclass
class CellReading:
    """What one seat cell says: the judge, the seat furthest from a fair share and how sure."""

    players: int
    setting: str
    judge: str | None
    level: str
    verdict: str
    decided: bool
    games: int
    seat: int  # the seat furthest from 1/N
    rate: float
    lo: float
    hi: float
    deviation: float  # rate - 1/N
    on_margin: bool  # undecided with a narrow interval across the margin's edge
    more_games: float  # games that would likely decide it (NaN when decided or unknown)
    seat_rates: tuple = ()  # every seat's win rate (seat 0 first)
    seat_los: tuple = ()  # and its interval
    seat_his: tuple = ()
    margin: float = 0.03
    rank: int | None = None  # the judge's rung on the game's ladder (None: not on it)
    words: str = ""  # who the judge stands for, as its game says it (empty: judge_words decides)
    seat_wins: tuple = ()  # every seat's wins (seat 0 first), for the tests between judges
    named: tuple = ()  # an unfair cell of a zone run: every seat shown off, ((seat, +1 above / -1 below), ...)
    leaning: tuple = ()  # and the seats whose evidence leans off without showing it
    proof: str = ""  # the strong judge's proof on this setting (scenarios.sequential_proof), said beside its verdict

    @property
    def fair(self):
        return 1.0 / self.players

    @property
    def unproven(self):
        """The run's proof did not show this judge stronger than the reference on this setting."""
        return bool(self.proof) and not self.proof.startswith("the strong judge is shown")

    def _seat_text(self, seat):
        lo = self.seat_los[seat] if seat < len(self.seat_los) else math.nan
        hi = self.seat_his[seat] if seat < len(self.seat_his) else math.nan
        return f"{pc(self.seat_rates[seat])} [{100 * lo:.1f}, {100 * hi:.1f}]"

    def _said(self, seat, way):
        return f"{seat_words(seat, self.players)} wins {self._seat_text(seat)}, {'above' if way > 0 else 'below'} its share"

    def lean(self):
        """Which way the cell leans: ``'the first player wins 55.0% [53.9, 56.1]'`` at two players;
        with more, the seat winning most and the seat winning least, each with its interval. An
        unfair cell of a zone run says every seat it shows off (and those leaning off, not shown),
        each with the interval of its verdict."""
        if self.named and self.verdict == stats.UNFAIR and self.seat_rates:
            text = "; ".join(self._said(k, way) for k, way in self.named)
            if self.leaning:
                text += "; leaning off too, not shown: " + "; ".join(self._said(k, way) for k, way in self.leaning)
            return text
        if len(self.seat_rates) < 2:
            return f"{seat_words(self.seat, self.players)} wins {pc(self.rate)} [{100 * self.lo:.1f}, {100 * self.hi:.1f}]"
        if self.players == 2:
            return f"the first player wins {self._seat_text(0)}"
        rates = list(self.seat_rates)
        best = max(range(len(rates)), key=lambda k: (rates[k], -k))
        worst = min(range(len(rates)), key=lambda k: (rates[k], k))
        return (
            f"{seat_words(best, self.players)} wins most, {self._seat_text(best)}, "
            f"{seat_words(worst, self.players).removeprefix('the ')} least, {self._seat_text(worst)}"
        )

    def spread(self):
        """``'every seat 32.1-34.2%'`` (``'first player 49.4% [47.2, 51.5]'`` at two players)."""
        if self.players == 2 and len(self.seat_rates) == 2:
            return f"first player {self._seat_text(0)}"
        if not self.seat_rates:
            return ""
        return f"every seat {100 * min(self.seat_rates):.1f}-{pc(max(self.seat_rates))}"

    def short(self, seat=None):
        """The across-judges word for this judge: ``first player +5.0 pp`` / ``fair`` / ``..., undecided``,
        said of ``seat`` (default the seat furthest from fair) so every judge of a setting speaks of one seat."""
        seat = self.seat if seat is None or seat >= len(self.seat_rates) else seat
        dev = self.seat_rates[seat] - self.fair if self.seat_rates else self.deviation
        who = seat_words(seat, self.players).removeprefix("the ")
        if self.verdict == stats.FAIR:
            return "fair"
        if self.verdict == stats.UNFAIR:
            return f"{who} {pp(dev)}"
        if self.verdict == NOT_JUDGED:
            return "not judged"
        if self.on_margin:
            return f"{who} {pp(dev)}, on the margin"
        return f"{who} {pp(dev)}, undecided"


def cell_reading(row, rates, setting="instruments", margin=0.03, ranks=None, words=None):
    """A :class:`CellReading` of one row of ``SeatAdvantage.cells`` (``rates``: its seat rows;
    ``ranks``: the judges' rungs, :func:`judge_ranks`; ``words``: who they stand for, :func:`judges_words`).

    The one function that reads the verdict columns (fixed-n: ``verdict``, ``more_games``; a
    sequential run adds its own columns, read here too when present)."""
    part = rates[
        (rates["players"] == row["players"])
        & (rates[setting] == row[setting])
        & (rates["lineup"] == row["lineup"])
    ]
    players = int(row["players"])
    share = 1.0 / players
    dev = (part["seat_rate"] - share).abs()
    if players == 2 and part["seat_rate"].notna().all() and len(part) == 2:
        s = part.sort_values("seat").iloc[0]  # two players: always said of the first player
        seat, rate, lo, hi = 0, float(s["seat_rate"]), float(s["seat_lo"]), float(s["seat_hi"])
    elif dev.notna().any():
        s = part.loc[dev.idxmax()]
        seat, rate, lo, hi = int(s["seat"]), float(s["seat_rate"]), float(s["seat_lo"]), float(s["seat_hi"])
    else:
        seat, rate, lo, hi = 0, math.nan, math.nan, math.nan
    verdict = str(row["verdict"])
    more = float(row.get("more_games", math.nan)) if "more_games" in row else math.nan
    on_margin = math.isinf(more) and on_the_margin(rate, lo, hi, share, margin)
    seq = _sequential(row)
    named, leaning = (), ()
    if seq:
        # A sequential run (its record: docs/guide/sequential.md): its interval is the confidence
        # sequence of the seat furthest from fair at the last look, and it says itself whether the
        # cell sits on the margin and what deciding would cost.
        on_margin = bool(seq.get("seq_on_margin", on_margin))
        m = seq.get("seq_more_games")
        more = float(m) if m is not None else (math.inf if on_margin else math.nan)
        # The record's interval is of the seat it names (the zone test names the seat it found off,
        # which need not be the one furthest from fair): used only when that is the seat said here.
        named, leaning = _pairs(seq.get("seq_named")), _pairs(seq.get("seq_leaning"))
        if verdict == stats.UNFAIR and named:
            # An unfair cell is said of a seat it shows off: the first player at two players when
            # named, else the first named (most evidence).
            firsts = [k for k, _ in named if k == 0] if players == 2 else []
            pick = firsts[0] if firsts else named[0][0]
            row_of = part[part["seat"] == pick]
            if not row_of.empty:
                seat, rate = pick, float(row_of.iloc[0]["seat_rate"])
                lo, hi = float(row_of.iloc[0]["seat_lo"]), float(row_of.iloc[0]["seat_hi"])
        if "seq_lo" in seq and "seq_hi" in seq and int(seq.get("seq_seat", seat)) == seat:
            lo, hi = float(seq["seq_lo"]), float(seq["seq_hi"])
    ordered = part.sort_values("seat")
    los, his = list(ordered["seat_lo"].astype(float)), list(ordered["seat_hi"].astype(float))
    if 0 <= seat < len(los):
        los[seat], his[seat] = lo, hi
    judge = judge_of(row["lineup"])
    return CellReading(
        players=players,
        setting=str(row[setting]),
        judge=judge,
        level=str(row["level"]),
        verdict=verdict,
        decided=verdict in (stats.FAIR, stats.UNFAIR),
        games=int(row["games"]),
        seat=seat,
        rate=rate,
        lo=lo,
        hi=hi,
        deviation=rate - share,
        on_margin=on_margin,
        more_games=more,
        seat_rates=tuple(float(x) for x in ordered["seat_rate"]),
        seat_los=tuple(los),
        seat_his=tuple(his),
        margin=margin,
        rank=(ranks or {}).get(judge),
        words=(words or {}).get(judge, ""),
        seat_wins=tuple(int(x) for x in ordered["wins"]) if "wins" in ordered else (),
        named=named,
        leaning=leaning,
        proof=str(row["proof"]) if "proof" in row and isinstance(row["proof"], str) else "",
    )


SEQUENTIAL_COLUMNS = ("seq_decided", "seq_decided_at", "seq_stop", "seq_seat", "seq_lo", "seq_hi", "seq_on_margin",
                      "seq_more_games", "seq_edge", "seq_named", "seq_leaning")


def _pairs(text):
    """``((seat, direction), ...)`` of a record's ``seq_named`` / ``seq_leaning`` (JSON; empty when absent)."""
    if not isinstance(text, str) or not text:
        return ()
    return tuple((int(k), int(way)) for k, way in json.loads(text))


def _sequential(row):
    """The sequential record's columns of a cell row that hold a value (empty for a fixed-n run)."""
    out = {}
    for k in SEQUENTIAL_COLUMNS:
        if k in row:
            v = row[k]
            if v is not None and not (isinstance(v, float) and math.isnan(v)):
                out[k] = v
    return out


def readings(seat_advantage, setting="instruments", cells=None):
    """Every cell's :class:`CellReading` (``cells`` may carry a setting column of another game), its
    judge ranked on the ladder of the run's game (``SeatAdvantage.game``)."""
    cells = seat_advantage.cells if cells is None else cells
    ranks, words = judge_ranks(seat_advantage.game), judges_words(seat_advantage.game or None)
    return [cell_reading(row, seat_advantage.rates, setting, seat_advantage.margin, ranks, words)
            for _, row in cells.iterrows()]


# --------------------------------------------------------------------------- one setting


def _strongest_first(rs):
    return sorted(rs, key=lambda r: -1 if r.rank is None else r.rank, reverse=True)


CONVERGED, MOVES, CANNOT_TELL = "converged", "moves with skill", "cannot tell yet"


def difference_intervals(top, below, confidence=0.95, games=None):
    """Every judged seat's difference in win rate, ``top`` minus ``below`` (their cells play other
    deals, so the two are independent), each with an anytime-valid interval: the difference of the
    two cells' confidence sequences, each at level alpha / (2 S) (S seats: every one, two players too
    once either cell has a game no seat won, which breaks "seat 2 = 1 - seat 1"; without one, seat 2's
    difference and interval are seat 1's mirrored, so S = 1 there), so that all of them hold at once,
    at every look. ``games``: read both cells
    at that count (at least their own) with their current rates (what more games would show if the
    rates held). ``[(seat, diff, lo, hi)]``."""
    from stats import sequences as SS

    players = top.players
    whole = all(sum(r.seat_wins) == r.games for r in (top, below))
    seats = 1 if players == 2 and whole else players
    level = 1.0 - (1.0 - confidence) / (2 * seats)
    out = []
    for s in range(min(seats, len(top.seat_wins), len(below.seat_wins))):
        ends = []
        for r in (top, below):
            n = r.games if games is None else max(games, r.games)
            w = r.seat_wins[s] * n / max(r.games, 1)
            ends.append(SS.confidence_sequence(float(w), int(round(n)), SS.prior_strength(players, r.margin, confidence),
                                               level))
        (lo_t, hi_t), (lo_b, hi_b) = ends
        diff = top.seat_wins[s] / max(top.games, 1) - below.seat_wins[s] / max(below.games, 1)
        out.append((s, diff, lo_t - hi_b, hi_t - lo_b))
    return out


def convergence_test(top, below, tolerance=None, confidence=0.95):
    """Whether the verdict moves from ``below`` to ``top`` (two :class:`CellReading` of one setting):
    ``(word, seat, diff, lo, hi, more)``. *converged*: every seat's difference is shown within
    ``tolerance`` (default the margin); *moves with skill*: some seat's is shown beyond it (that seat,
    the largest such); *cannot tell yet*: neither, with ``more`` the games each of the two cells would
    need (both at one count) at the current rates (:func:`games_to_tell`; None only when the estimate
    sits on the tolerance itself, where no count tells). Anytime-valid (:func:`difference_intervals`),
    so it holds at whatever count a sequential run stopped."""
    tol = top.margin if tolerance is None else tolerance
    rows = difference_intervals(top, below, confidence)
    if not rows:
        return CANNOT_TELL, 0, math.nan, math.nan, math.nan, None
    beyond = [r for r in rows if r[2] > tol or r[3] < -tol]
    if beyond:
        s, diff, lo, hi = max(beyond, key=lambda r: abs(r[1]))
        return MOVES, s, diff, lo, hi, None
    s, diff, lo, hi = max(rows, key=lambda r: abs(r[1]))
    if all(-tol <= r[2] and r[3] <= tol for r in rows):
        return CONVERGED, s, diff, lo, hi, None
    return CANNOT_TELL, s, diff, lo, hi, games_to_tell(top, below, tol, confidence)


MAX_TELL = 10**10  # the largest count per cell a convergence call looks at


def games_to_tell(top, below, tolerance, confidence=0.95, limit=MAX_TELL):
    """The games each of the two cells would need (both at one count, rounded up to 100) for
    :func:`convergence_test` to tell at the current rates: doubled from the larger count until it
    tells, then halved back by bisection to within 1%. None when no count up to ``limit`` tells (an
    estimate on the tolerance itself)."""

    def tells(n):
        grown = difference_intervals(top, below, confidence, n)
        beyond = any(r[2] > tolerance or r[3] < -tolerance for r in grown)
        return beyond or all(-tolerance <= r[2] and r[3] <= tolerance for r in grown)

    lo = max(top.games, below.games, 1)
    hi = 2 * lo
    while not tells(hi):
        lo, hi = hi, 2 * hi
        if hi > limit:
            return None
    while hi - lo > max(100, hi // 100):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if tells(mid) else (mid, hi)
    return int(math.ceil(hi / 100.0) * 100)


def convergence(rs, tolerance=None):
    """``(converged, text)`` of one setting's readings (module doc); ``converged`` None: cannot tell.

    Between the two strongest judges of the run a step apart on the ladder, by
    :func:`convergence_test`: the words *converged* and *moves with skill* are said only when that
    test shows them; a point estimate alone says *cannot tell yet*."""
    ranked = [r for r in _strongest_first(rs) if r.rank is not None and r.verdict != NOT_JUDGED]
    if len(ranked) < 2:
        return None, ""
    top = ranked[0]
    below = next((r for r in ranked[1:] if r.rank < top.rank), None)
    if below is None or not top.seat_wins or not below.seat_wins:
        return None, ""
    word, seat, diff, lo, hi, more = convergence_test(top, below, tolerance)
    tol = top.margin if tolerance is None else tolerance
    who = seat_words(seat, top.players)
    both = (f"{who} wins {pc(_rate_of(below, seat))} under {below.judge} and {pc(_rate_of(top, seat))} under "
            f"{top.judge}, a difference of {pp(diff)} [{100 * lo:+.1f}, {100 * hi:+.1f}]")
    if word == CONVERGED:
        return True, (f"Converged: {below.judge} and {top.judge}, a step apart on the skill ladder, are shown within "
                      f"{100 * tol:g} points of each other at every seat (furthest: {both}).")
    if word == MOVES:
        return False, f"Moves with skill: {both}, shown beyond {100 * tol:g} points."
    need = (f"about {more:,} games in each of the two cells would tell" if more is not None
            else f"no number of games would tell: the difference sits on the {100 * tol:g}-point line")
    return None, (f"Converged? Cannot tell yet: {both}, neither shown within {100 * tol:g} points nor beyond; "
                  f"{need}.")


def _rate_of(reading, seat):
    return reading.seat_wins[seat] / max(reading.games, 1)


def _deviation_of(reading, seat):
    """The deviation from 1/N of ``seat`` in the cell of ``reading``."""
    if seat >= len(reading.seat_rates):
        return math.nan
    return reading.seat_rates[seat] - reading.fair


def _clause(r):
    """One judge's part of the sentence: the verdict word, for whom, which way and how sure, and the
    proof of its judge on this setting when the run played one."""
    text = _verdict_clause(r)
    return f"{text} [{r.proof}]" if r.proof else text


def _verdict_clause(r):
    where = among(r.judge, r.words) if r.judge else f"with {r.level}"
    games = f"{r.level}, {r.games:,} games"
    if r.verdict == NOT_JUDGED:
        return f"not judged {where}: the seats cannot be told apart ({games})"
    if r.verdict == stats.FAIR:
        return f"fair {where} ({r.spread()}; {games})"
    if r.verdict == stats.UNFAIR:
        return f"unfair {where}: {r.lean()} (fair is {pc(r.fair)}; {games})"
    if r.on_margin:
        cost = (f"deciding would take about {int(r.more_games):,} more games" if math.isfinite(r.more_games)
                else "no number of games would decide it at this estimate")
        return (f"on the margin {where}: {r.lean()} ({games}): right at the {100 * r.margin:.0f}-point margin, "
                f"so neither fair nor unfair can be shown; {cost}")
    return f"not decided {where}: {r.lean()} ({games})"


def setting_sentence(players, rs, label=None):
    """The answer sentence of one player count (and setting ``label`` when a run has several)."""
    rs = _strongest_first(rs)
    head = f"{players} players" + (f", {label}" if label else "")
    parts = [_clause(r) for r in rs]
    body = "; ".join(parts)
    conv = convergence(rs)[1]
    return f"{head}: {body}." + (f" {conv}" if conv else "")


def across_text(rs, agreement_word):
    """The across-judges column: the agreement word and each judge's lean, never a bare ``open``."""
    rs = _strongest_first(rs)
    if len(rs) == 1:
        return f"one judge: {rs[0].short()} ({rs[0].judge or rs[0].level})"
    judged = [r for r in rs if r.verdict != NOT_JUDGED]
    focus = judged[0].seat if judged else None  # the seat the strongest judge points to
    groups = {}
    for r in rs:
        groups.setdefault(r.short(focus), []).append(r.judge or r.level)
    lean = "; ".join(f"{k} ({', '.join(v)})" for k, v in groups.items())
    return f"{agreement_word}: {lean}"


# --------------------------------------------------------------------------- the run


def seat_answers(seat_advantage, setting="instruments", label_of=None, many="instrument sets", noun="sets"):
    """One answer sentence per player count (per player count and setting when a count has several).

    With many settings in one player count (an expansion run), the sentence counts the verdicts per
    judge and names the setting that leans most (the settings counted as ``many``, per judge as ``noun``)."""
    rs = readings(seat_advantage, setting)
    out = []
    players = sorted({r.players for r in rs})
    for n in players:
        mine = [r for r in rs if r.players == n]
        settings = list(dict.fromkeys(r.setting for r in mine))
        if len(settings) == 1:
            out.append(setting_sentence(n, mine))
        elif label_of is not None:
            for s in settings:
                out.append(setting_sentence(n, [r for r in mine if r.setting == s], label_of(s)))
        else:
            out.append(_many_settings_sentence(n, mine, settings, many, noun))
    return out


def _proof_tally(mine):
    """``' (the judge unproven on 2 of 10 sets: ...)'`` when the run proved the judge of ``mine``."""
    proved = [r for r in mine if r.proof]
    unproven = [r for r in proved if r.unproven]
    if not proved:
        return ""
    if not unproven:
        return " (its judge shown stronger than the reference rung on every one of them)"
    return (f" (resting on an unproven judge on {len(unproven)} of {len(proved)}: "
            f"{', '.join(r.setting for r in unproven)})")


def _many_settings_sentence(players, rs, settings, many="instrument sets", noun="sets"):
    parts = []
    for judge in dict.fromkeys(r.judge or r.level for r in _strongest_first(rs)):
        mine = [r for r in rs if (r.judge or r.level) == judge]
        name = judge if mine[0].judge else f"the mixed lineup {judge} (model)"
        counts = pd.Series([r.verdict for r in mine]).value_counts()
        order = [stats.UNFAIR, stats.FAIR, stats.UNDECIDED, NOT_JUDGED]
        tally = ", ".join(f"{int(counts[v])} {v}" for v in order if v in counts)
        worst = max(mine, key=lambda r: (r.verdict == stats.UNFAIR, abs(r.deviation) if r.deviation == r.deviation else -1))
        word = "leans most" if worst.verdict != stats.UNFAIR else "is the most unfair"
        parts.append(
            f"judged by {name}, {len(mine)} {noun}: {tally}; {worst.setting} {word}: {worst.lean()}"
            + _proof_tally(mine)
        )
    return f"{players} players ({len(settings)} {many}): " + "; ".join(parts) + "."


__all__ = [
    "CellReading",
    "judge_ranks",
    "across_text",
    "cell_reading",
    "convergence",
    "readings",
    "seat_answers",
    "seat_words",
    "setting_sentence",
]


def answer_text(answers, why, text, partial=False):
    """The terminal text: the answer sentences first (after the PARTIAL mark of an unfinished run),
    the why lines, then the headline table ``text``."""
    mark = "PARTIAL RUN (unfinished, only the games on disk)" if partial else ""
    block = "\n".join(([mark] if mark else []) + list(answers) + ([""] + list(why) if why else []))
    return (block + "\n\n" + text) if block else text


# --------------------------------------------------------------------------- variants (another game)


def plural_words(words):
    """Whether a variant's words take a plural verb: two switches (``'... and ...'``), or a plural noun
    after ``the`` (``'the catch-up tokens'``; not ``'the home stretch'``, ``'drawing the set-up order'``)."""
    w = words.split()
    last = w[-1] if w else ""
    return " and " in words or (len(w) > 1 and w[0] == "the" and last.endswith("s") and not last.endswith("ss"))


def _changes_it(words, row, who):
    """``'the catch-up tokens do not change it (seat 4 -0.4 pp [-2.1, +1.3])'``."""
    figure = f"{who} {100 * row['change']:+.1f} pp [{100 * row['change_lo']:+.1f}, {100 * row['change_hi']:+.1f}]"
    plural = plural_words(words)
    verb, neg = ("change", "do not change") if plural else ("changes", "does not change")
    if row["verdict"] == "unchanged":
        return f"{words} {neg} it ({figure})"
    if row["verdict"] == "changed":
        return f"{words} {verb} it ({figure})"
    return f"whether {words} {'change' if plural else 'changes'} it is not decided yet ({figure})"


def variant_answers(seat_advantage, changes, reference, variant_words, setting="setting", values=None, variant="variant"):
    """One sentence per player count and group of a run with variants on the same deals (a group: the
    setting but its ``variant`` column, e.g. a board): the seat lean of the reference variant per judge
    (as :func:`setting_sentence`), then what each variant does to the seat the strongest judge shows
    furthest from fair, in the words of ``variant_words`` (variant -> ``'the catch-up tokens'``).
    ``changes`` is the variant section's change table; ``values`` maps each setting label to its
    columns' values (``reports.frames.Setting.values``; default: a label ``board/variant``)."""
    rs = readings(seat_advantage, setting)
    if values is None:
        values = {r.setting: {"board": r.setting.rsplit("/", 1)[0], variant: r.setting.rsplit("/", 1)[-1]} for r in rs}

    def group(label):
        return tuple((c, v) for c, v in values[label].items() if c != variant)

    out = []
    for players in sorted({r.players for r in rs}):
        mine = [r for r in rs if r.players == players]
        for key in dict.fromkeys(group(r.setting) for r in mine):
            ref = [r for r in mine if group(r.setting) == key and str(values[r.setting][variant]) == reference]
            if not ref:
                continue
            text = setting_sentence(players, ref, "/".join(str(v) for _, v in key))
            top = _strongest_first(ref)[0]
            judge_lineup = seat_advantage.cells.loc[
                (seat_advantage.cells["players"] == players) & (seat_advantage.cells[setting] == top.setting)
                & (seat_advantage.cells["level"] == top.level), "lineup"
            ]
            clauses = []
            if changes is not None and len(changes) and len(judge_lineup):
                mask = (changes["players"] == players) & (changes["lineup"] == judge_lineup.iloc[0]) & (changes["seat"] == top.seat)
                for c, v in key:
                    mask &= changes[c].astype(str) == str(v)
                for _, row in changes[mask].iterrows():
                    words = variant_words.get(row[variant], f"variant '{row[variant]}'")
                    clauses.append(_changes_it(words, row, seat_words(top.seat, players).removeprefix("the ")))
            if clauses:
                text += f" Against the reference variant '{reference}', judged by {top.level}: " + "; ".join(clauses) + "."
            out.append(text)
    return out
