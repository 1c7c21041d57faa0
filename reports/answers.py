"""The answer first: one sentence per player count, in the designer's words, before any table.

Each sentence says which way a setting leans, by how much, for which players (which judge), how sure
(the interval, and whether the verdict is decided) and, with two judges a step apart on the skill
ladder, whether the verdict has converged::

    2 players: fair among strong players (first player 49.4% [47.2, 51.5], search); at greedy's level
    the first player wins 55.0% [53.9, 56.1] (greedy). Converged? No: the first player's edge shrinks
    with skill (+5.0 pp under greedy, -0.6 pp under search).

Everything here reads the cells of :func:`reports.seats.seat_advantage` (one row per player count,
setting and judge), never a game. How one cell is read (decided or not, its games, the interval,
whether it sits on the margin, what deciding would cost) is :func:`cell_reading`, the one place that
knows the verdict columns; a sequential run's columns extend it there.

Judges are ordered by the game's skill ladder (:func:`judge_ranks`: ``Game.ladder``, README "The skill
ladder", ``ssb strategies ladder``): a judge stronger by a whole rung is a *step* above. A setting's verdict has *converged*
when the two strongest judges of the run that are a step apart reach the same decided verdict (both
balanced, or both imbalanced with the same seat on top); otherwise it still moves with skill, and the
sentence says which seat's edge grows or shrinks from the weaker judge to the stronger.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from reports import stats
from reports.seats import NOT_JUDGED, lineup_names
from simulator import games as registry
from simulator.game_api import Game

# Who a judge stands for, in the designer's words.
JUDGE_WORDS = {
    "random": "random players",
    "plain-setup": "players who set up at random",
    "greedy": "greedy's level",
    "tuned": "tuned players",
    "decisive": "decisive players",
    "lookahead": "players who look ahead",
    "search": "strong players",
    "search_strong": "strong players",
    "search_deep": "the strongest players",
    "search_lean": "the strongest players",
}

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


def judge_words(judge):
    """Who a judge stands for: ``strong players``; an unknown judge by its name."""
    return JUDGE_WORDS.get(judge, f"{judge} players")


def among(judge):
    """``among strong players`` / ``at greedy's level``."""
    w = judge_words(judge)
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
    on_margin: bool  # no affordable number of games would decide it
    more_games: float  # games that would likely decide it (NaN when decided or unknown)
    seat_rates: tuple = ()  # every seat's win rate (seat 0 first)
    seat_los: tuple = ()  # and its interval
    seat_his: tuple = ()
    margin: float = 0.03
    rank: int | None = None  # the judge's rung on the game's ladder (None: not on it)

    @property
    def fair(self):
        return 1.0 / self.players

    def _seat_text(self, seat):
        lo = self.seat_los[seat] if seat < len(self.seat_los) else math.nan
        hi = self.seat_his[seat] if seat < len(self.seat_his) else math.nan
        return f"{pc(self.seat_rates[seat])} [{100 * lo:.1f}, {100 * hi:.1f}]"

    def lean(self):
        """Which way the cell leans: ``'the first player wins 55.0% [53.9, 56.1]'`` at two players;
        with more, the seat winning most and the seat winning least, each with its interval."""
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
        if self.verdict == stats.BALANCED:
            return "fair"
        if self.verdict == stats.IMBALANCED:
            return f"{who} {pp(dev)}"
        if self.verdict == NOT_JUDGED:
            return "not judged"
        if self.on_margin:
            return f"{who} {pp(dev)}, on the margin"
        return f"{who} {pp(dev)}, undecided"


def cell_reading(row, rates, setting="instruments", margin=0.03, ranks=None):
    """A :class:`CellReading` of one row of ``SeatAdvantage.cells`` (``rates``: its seat rows;
    ``ranks``: the judges' rungs, :func:`judge_ranks`).

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
    on_margin = math.isinf(more)
    seq = _sequential(row)
    if seq:
        # A sequential run (its record: docs/guide/sequential.md): its interval is the confidence
        # sequence of the seat furthest from fair at the last look, and it says itself whether the
        # cell sits on the margin and what deciding would cost.
        on_margin = bool(seq.get("seq_on_margin", on_margin))
        m = seq.get("seq_more_games")
        more = float(m) if m is not None else (math.inf if on_margin else math.nan)
        if "seq_lo" in seq and "seq_hi" in seq and dev.notna().any() and int(part.loc[dev.idxmax(), "seat"]) == seat:
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
        decided=verdict in (stats.BALANCED, stats.IMBALANCED),
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
    )


SEQUENTIAL_COLUMNS = ("seq_decided", "seq_decided_at", "seq_stop", "seq_lo", "seq_hi", "seq_on_margin", "seq_more_games", "seq_edge")


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
    ranks = judge_ranks(seat_advantage.game)
    return [cell_reading(row, seat_advantage.rates, setting, seat_advantage.margin, ranks) for _, row in cells.iterrows()]


# --------------------------------------------------------------------------- one setting


def _strongest_first(rs):
    return sorted(rs, key=lambda r: -1 if r.rank is None else r.rank, reverse=True)


def convergence(rs):
    """``(converged, text)`` of one setting's readings (module doc); ``converged`` None: cannot tell."""
    ranked = [r for r in _strongest_first(rs) if r.rank is not None and r.verdict != NOT_JUDGED]
    if len(ranked) < 2:
        return None, ""
    top = ranked[0]
    below = next((r for r in ranked[1:] if r.rank < top.rank), None)
    if below is None:
        return None, ""
    same_seat = top.seat == below.seat and (top.deviation > 0) == (below.deviation > 0)
    if top.decided and below.decided and top.verdict == below.verdict and (top.verdict == stats.BALANCED or same_seat):
        word = "fair" if top.verdict == stats.BALANCED else f"{seat_words(top.seat, top.players)} ahead"
        return True, f"Converged: {below.judge} and {top.judge}, a step apart on the skill ladder, both say {word}."
    # Still moving: the seat that the strongest judge shows furthest from fair, weaker -> stronger.
    seat = top.seat
    d_top = top.deviation
    d_below = _deviation_of(below, seat)
    who = seat_words(seat, top.players)
    if math.isnan(d_below) or math.isnan(d_top):
        move = "it still moves with skill"
    elif d_top * d_below < 0 and min(abs(d_top), abs(d_below)) >= 0.01:  # a sign change of a point or more
        move = f"{who} turns from {'ahead' if d_below > 0 else 'behind'} to {'ahead' if d_top > 0 else 'behind'} with skill"
    elif abs(d_top) < abs(d_below):
        move = f"{possessive(who)} {'edge' if d_below > 0 else 'shortfall'} shrinks with skill"
    else:
        move = f"{possessive(who)} {'edge' if d_top > 0 else 'shortfall'} grows with skill"
    detail = f" ({pp(d_below)} under {below.judge}, {pp(d_top)} under {top.judge})" if not math.isnan(d_below) else ""
    if not top.decided:
        tail = f"; {top.judge} has not decided yet" + (" and sits on the margin" if top.on_margin else "")
    else:
        tail = ""
    return False, f"Not converged: {move}{detail}{tail}."


def _deviation_of(reading, seat):
    """The deviation from 1/N of ``seat`` in the cell of ``reading``."""
    if seat >= len(reading.seat_rates):
        return math.nan
    return reading.seat_rates[seat] - reading.fair


def _clause(r):
    """One judge's part of the sentence: the verdict word, for whom, which way and how sure."""
    where = among(r.judge) if r.judge else f"with {r.level}"
    games = f"{r.level}, {r.games:,} games"
    if r.verdict == NOT_JUDGED:
        return f"not judged {where}: the seats cannot be told apart ({games})"
    if r.verdict == stats.BALANCED:
        return f"fair {where} ({r.spread()}; {games})"
    if r.verdict == stats.IMBALANCED:
        return f"unfair {where}: {r.lean()} (fair is {pc(r.fair)}; {games})"
    if r.on_margin:
        cost = (f"deciding would take about {int(r.more_games):,} more games" if math.isfinite(r.more_games)
                else "no affordable number of games would decide it")
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


def _many_settings_sentence(players, rs, settings, many="instrument sets", noun="sets"):
    parts = []
    for judge in dict.fromkeys(r.judge or r.level for r in _strongest_first(rs)):
        mine = [r for r in rs if (r.judge or r.level) == judge]
        name = judge if mine[0].judge else f"the mixed lineup {judge} (model)"
        counts = pd.Series([r.verdict for r in mine]).value_counts()
        order = [stats.IMBALANCED, stats.BALANCED, stats.INCONCLUSIVE, NOT_JUDGED]
        tally = ", ".join(f"{int(counts[v])} {v}" for v in order if v in counts)
        worst = max(mine, key=lambda r: (r.verdict == stats.IMBALANCED, abs(r.deviation) if r.deviation == r.deviation else -1))
        word = "leans most" if worst.verdict != stats.IMBALANCED else "is the most unfair"
        parts.append(
            f"judged by {name}, {len(mine)} {noun}: {tally}; {worst.setting} {word}: {worst.lean()}"
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


# --------------------------------------------------------------------------- instruments


def instrument_answers(verdicts):
    """One sentence per player count and judge of an instrument run: the instruments out of line, each
    with its measure and the baseline (the median of the other instruments of its department), then how
    many read in line. ``verdicts`` is a :class:`reports.instrument_verdicts.InstrumentVerdicts`."""
    from reports.instrument_verdicts import IN_LINE, OUT, UNCLEAR, effect_phrase, judge_label

    if verdicts is None or verdicts.empty:
        return []
    v, eff = verdicts.verdicts, verdicts.effects
    out = []
    for (players, lineup), part in v.groupby(["players", "lineup"], sort=True):
        bad = part[part["verdict"] == OUT]
        clauses = []
        for row in bad.head(4).itertuples(index=False):
            e = eff[(eff["instrument"] == row.instrument) & (eff["players"] == players) & (eff["lineup"] == lineup)
                    & (eff["measure"] == row.worst_measure) & (eff["who"].astype(str) == str(row.worst_who))]
            if e.empty:
                continue
            base = f"the other {row.department} instruments"
            pair = int(e.iloc[0]["npeers"]) == 1
            than = str(e.iloc[0]["peers"]) if pair else f"the median of {base}"
            clauses.append(f"{row.instrument} {effect_phrase(e.iloc[0], than)}")
        if len(bad) > 4:
            clauses.append(f"{len(bad) - 4} more out of line (section 4)")
        inline, unclear = int((part["verdict"] == IN_LINE).sum()), int((part["verdict"] == UNCLEAR).sum())
        rest = f"{inline} in line on every measure" + (f", {unclear} not decided yet" if unclear else "")
        head = f"Instruments, {players} players ({judge_label(lineup)})"
        if clauses:
            out.append(f"{head}: " + "; ".join(clauses) + f"; of the others, {rest}.")
        else:
            out.append(f"{head}: none is shown out of line with the median of its department ({rest}).")
    return out


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
