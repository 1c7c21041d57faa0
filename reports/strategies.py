"""Section 2, strategies: which scripted strategy wins, and by how much?

Per setting (player count x the game's setting, e.g. an instrument set), for lineups with more than
one strategy:

* win rate (Wilson) and mean score (t interval) per strategy, counted per seat played;
* head-to-head: in the games where both A and B sat at the table, the share in which A's best-placed
  seat finished ahead of B's best-placed seat (finishing order = ``rank``, ties already broken by
  turn order, R13);
* a Bradley-Terry rating (``choix``) fitted to the finishing orders broken into seat pairs of
  different strategies, with a percentile interval from resampling deals (a deal's seat rotations
  share their setup, so they are resampled together);
* the leader of each setting, and whether it *dominates* (beats every other strategy head-to-head,
  the lower end of each Wilson interval above 50 %).

A mirror lineup (one strategy in every seat) has nothing to compare; it is named and skipped. A game
that records no score has no mean score (blank), and one that records no finishing order (no
``rank`` column) no head-to-head and no rating: its strategies are compared by win rate only.
Every function takes the game's ``setting`` (a :class:`reports.frames.Setting`; None: the default
game's instrument set).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from stats import moments as M
from stats import tests as stats
from reports.frames import DEFAULT_SETTING, with_setting
from reports.io import tables_of
from stats.moments import Clustered

# L2 regularisation of the Bradley-Terry fit: negligible against real counts, but keeps a strategy
# that never lost (small runs) at a finite rating.
BT_ALPHA = 0.01


@dataclass
class StrategyComparison:
    """Tables of the strategy section; all empty (with ``notes``) for a mirror-only run."""

    rates: pd.DataFrame
    head_to_head: pd.DataFrame
    ratings: pd.DataFrame
    dominance: pd.DataFrame
    notes: list = field(default_factory=list)

    @property
    def empty(self):
        return self.rates.empty


RATE_TAIL = ["strategy", "seats_played", "games", "wins", "win_rate", "win_lo", "win_hi", "fair_share",
                "score_mean", "score_lo", "score_hi", "effective_n"]
H2H_TAIL = ["strategy", "opponent", "games", "ahead", "share", "share_lo", "share_hi"]
RATING_TAIL = ["strategy", "comparisons", "strength", "strength_lo", "strength_hi", "p_beat_average"]


class _Setting:
    """What the strategy tables of one setting read of its seat rows, chunk by chunk."""

    def __init__(self, pairs, rank=True, score=True):
        self.rank, self.score = rank, score
        self.names = set()
        self.rows = {}  # strategy -> [seat rows, games, Clustered won, Clustered score]
        self.h2h = {}  # (strategy, opponent) -> Clustered "finished ahead"
        self.pairs = pairs  # keep the per-deal pair counts (Bradley-Terry)
        self.deal_counts = []  # (deal ids, per-deal counts, names) per chunk

    def add(self, ch, deal):
        strat = ch.seats["strategy"]
        rank = ch.seats["rank"].astype(np.int64) if self.rank else None
        won = ch.seats["won"]
        score = ch.seats["score"] if self.score else np.zeros(strat.shape)
        names = sorted(set(np.unique(strat).tolist()))
        self.names |= set(names)
        rows_deal = np.broadcast_to(deal[:, None], strat.shape)
        best, present = {}, {}
        big = np.iinfo(np.int64).max
        for name in names:
            mask = strat == name
            r = self.rows.setdefault(name, [0, 0, Clustered(1), Clustered(1)])
            r[0] += int(mask.sum())
            r[1] += int(mask.any(axis=1).sum())
            r[2].add(won[mask].astype(float), rows_deal[mask])
            r[3].add(score[mask].astype(float), rows_deal[mask])
            present[name] = mask.any(axis=1)
            if self.rank:
                best[name] = np.where(mask, rank, big).min(axis=1)
        if not self.rank:  # no finishing order recorded: no head-to-head, no rating
            return
        for a, b in itertools.permutations(names, 2):
            both = present[a] & present[b]
            if both.any():
                self.h2h.setdefault((a, b), Clustered(1)).add((best[a][both] < best[b][both]).astype(float), deal[both])
        if self.pairs:
            # Every deal of the setting is a unit of the bootstrap, those without a pair of
            # different strategies too (a mirror lineup pooled with a mixed one).
            starts = M.runs(deal)
            if len(names) > 1:
                code = {n: i for i, n in enumerate(names)}
                counts = _pair_counts(np.vectorize(code.get, otypes=[np.int64])(strat), rank, len(names))
                self.deal_counts.append((deal[starts], np.add.reduceat(counts, starts, axis=0), names))
            else:
                self.deal_counts.append((deal[starts], None, names))

    def per_deal(self, names):
        """Per deal (in the order deals first come), the k x k pair counts over ``names``."""
        k = len(names)
        code = {n: i for i, n in enumerate(names)}
        ids, rows = [], []
        for dids, counts, local in self.deal_counts:
            pos = np.array([code[n] for n in local])
            kl = len(local)
            full = np.zeros((len(dids), k * k))
            for i in range(kl if counts is not None else 0):
                for j in range(kl):
                    full[:, pos[i] * k + pos[j]] += counts[:, i * kl + j]
            ids.append(dids)
            rows.append(full)
        if not ids:
            return np.zeros((0, k * k))
        ids, rows = np.concatenate(ids), np.concatenate(rows)
        starts = M.runs(ids)
        return np.add.reduceat(rows, starts, axis=0)


def _pair_counts(strat, rank, k):
    """Per game, the k x k counts of "row strategy finished ahead of column strategy" over seat pairs
    of different strategies (``strat``: strategy codes per seat, ``rank``: finishing places)."""
    g, nseat = strat.shape
    counts = np.zeros((g, k * k))
    rows = np.arange(g)
    for i, j in itertools.combinations(range(nseat), 2):
        si, sj = strat[:, i], strat[:, j]
        ok = (si >= 0) & (sj >= 0) & (si != sj)
        i_ahead = rank[:, i] < rank[:, j]
        winner = np.where(i_ahead, si, sj)
        loser = np.where(i_ahead, sj, si)
        np.add.at(counts, (rows[ok], winner[ok] * k + loser[ok]), 1.0)
    return counts


def _read(seats, setting=None):
    """``(keys, per setting accumulators, setting)`` of one pass over the seats table (or a run's chunks)."""
    setting = setting or DEFAULT_SETTING
    run = tables_of(seats)
    cells = with_setting(run.cells, setting)
    keys, group = M.groups_of(cells, setting.keys)
    cols = set(run.seat_columns)
    has_rank, has_score = "rank" in cols, "score" in cols
    # A setting whose every lineup is one strategy in every seat keeps no per-deal pair counts.
    single = {}
    for gi, lu in zip(group, cells["lineup"].astype(str), strict=True):
        single.setdefault(gi, set()).update(x.strip() for x in lu.split(","))
    acc = {gi: _Setting(len(single.get(gi, ())) != 1 and has_rank, has_rank, has_score) for gi in range(len(keys))}
    wanted = ["strategy", "won", "deal"] + (["rank"] if has_rank else []) + (["score"] if has_score else [])
    for ch in run.scan(seats=wanted):
        acc[group[ch.k]].add(ch, M.deal_key(ch.k, ch.seats["deal"][:, 0]))
    return keys, {gi: a for gi, a in acc.items() if a.names}, setting


def _mirrors(keys, acc, setting=None):
    return {keys[gi]: next(iter(a.names)) for gi, a in acc.items() if len(a.names) == 1}


def mirror_settings(seats, setting=None):
    """``(players, setting label) -> strategy`` for every setting with one strategy in every seat."""
    return _mirrors(*_read(seats, setting))


def _rates(keys, acc, setting, confidence):
    rows = []
    for gi in sorted(acc):
        a = acc[gi]
        if len(a.names) < 2:
            continue
        for name in sorted(a.names):
            n, games, won, score = a.rows[name]
            mean, lo, hi = M.mean_interval(score, confidence) if a.score else (np.nan, np.nan, np.nan)
            rate, w_lo, w_hi, n_eff = M.wilson_clustered(won, confidence)
            rows.append((*keys[gi], name, n, games, int(round(float(won.total[0]))), rate, w_lo, w_hi, mean, lo, hi, n_eff))
    columns = [*setting.keys, *RATE_TAIL]
    out = pd.DataFrame(rows, columns=[c for c in columns if c != "fair_share"])
    if out.empty:
        return pd.DataFrame(columns=columns)
    out["fair_share"] = 1.0 / out["players"]
    return out[columns]


def strategy_rates(seats, confidence=0.95, setting=None):
    """Win rate and mean score per setting and strategy (mirror settings left out).

    Columns: players, the setting label, strategy, seats_played, games, wins, win_rate, win_lo, win_hi,
    fair_share (1/N), score_mean, score_lo, score_hi, effective_n (seats played over the design
    effect of deals, :func:`stats.tests.design_effect`).
    """
    return _rates(*_read(seats, setting), confidence)


def _h2h(keys, acc, setting, confidence):
    rows = []
    for gi in sorted(acc):
        a = acc[gi]
        if len(a.names) < 2:
            continue
        for x, y in itertools.permutations(sorted(a.names), 2):
            won = a.h2h.get((x, y))
            if won is None or won.n == 0:
                continue
            share, lo, hi, _ = M.wilson_clustered(won, confidence)
            rows.append((*keys[gi], x, y, won.n, int(round(float(won.total[0]))), share, lo, hi))
    return pd.DataFrame(rows, columns=[*setting.keys, *H2H_TAIL])


def head_to_head(seats, confidence=0.95, setting=None):
    """Long head-to-head table: share of shared games where ``strategy`` finished ahead of ``opponent``.

    Columns: players, the setting label, strategy, opponent, games (both present), ahead, share,
    share_lo, share_hi (Wilson).
    """
    return _h2h(*_read(seats, setting), confidence)


def head_to_head_matrix(h2h, players, instruments, setting=None):
    """The head-to-head shares of one setting (``instruments``: its label) as a square frame (row ahead of column)."""
    part = h2h[(h2h["players"] == players) & (h2h[(setting or DEFAULT_SETTING).label] == instruments)]
    return part.pivot(index="strategy", columns="opponent", values="share")


def _fit_bt(comp):
    import choix

    try:
        theta = choix.ilsr_pairwise_dense(comp, alpha=BT_ALPHA)
    except (RuntimeError, ValueError, np.linalg.LinAlgError):
        return np.full(comp.shape[0], np.nan)
    return theta - theta.mean()


def _ratings(keys, acc, setting, confidence, resamples, seed):
    rng = np.random.default_rng(seed)
    alpha = stats.alpha_of(confidence)
    rows = []
    for gi in sorted(acc):
        a = acc[gi]
        if len(a.names) < 2 or not a.rank:
            continue
        names = sorted(a.names)
        k = len(names)
        counts = a.per_deal(names)
        comp = counts.sum(axis=0).reshape(k, k)
        theta = _fit_bt(comp)
        # Resample deals, not games: the games of one deal share their setup.
        n = counts.shape[0]
        boot = np.empty((resamples, k))
        batch = max(1, min(resamples, 4_000_000 // max(n, 1)))
        for start in range(0, resamples, batch):
            b = min(batch, resamples - start)
            weights = rng.multinomial(n, np.full(n, 1.0 / n), size=b).astype(float)
            for r, comp_b in enumerate(weights @ counts):
                boot[start + r] = _fit_bt(comp_b.reshape(k, k))
        lo = np.nanquantile(boot, alpha / 2, axis=0)
        hi = np.nanquantile(boot, 1 - alpha / 2, axis=0)
        involved = comp.sum(axis=0) + comp.sum(axis=1)
        for i, name in enumerate(names):
            rows.append((*keys[gi], name, int(involved[i]), theta[i], lo[i], hi[i]))
    columns = [*setting.keys, *RATING_TAIL]
    out = pd.DataFrame(rows, columns=columns[:-1])
    if out.empty:
        return pd.DataFrame(columns=columns)
    out["p_beat_average"] = 1.0 / (1.0 + np.exp(-out["strength"]))
    return out[columns]


def strategy_ratings(seats, confidence=0.95, resamples=200, seed=0, setting=None):
    """Bradley-Terry strength per setting and strategy, with a bootstrap interval over deals.

    The strength is on the log scale and centred on 0 within a setting: strategy A beats strategy B
    in a seat pair with probability ``1 / (1 + exp(strength_B - strength_A))``. Columns: players,
    instruments, strategy, comparisons (seat pairs it took part in), strength, strength_lo,
    strength_hi, p_beat_average.
    """
    return _ratings(*_read(seats, setting), confidence, resamples, seed)


def dominance(rates, h2h, ratings, setting=None):
    """Leader of each setting (highest strength, else win rate) and whether it dominates.

    A strategy dominates a setting when, against every other strategy there, it finished ahead in
    more than half the shared games with the whole Wilson interval above 50 %.
    """
    setting = setting or DEFAULT_SETTING
    label = setting.label
    cols = [*setting.keys, "strategies", "leader", "leader_win_rate", "dominates", "note"]
    if rates.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for (players, inst), part in rates.groupby(setting.keys, sort=True):
        r = ratings[(ratings["players"] == players) & (ratings[label] == inst)]
        if len(r) and r["strength"].notna().any():
            leader = str(r.loc[r["strength"].idxmax(), "strategy"])
        else:
            leader = str(part.loc[part["win_rate"].idxmax(), "strategy"])
        h = h2h[(h2h["players"] == players) & (h2h[label] == inst) & (h2h["strategy"] == leader)]
        others = sorted(set(part["strategy"]) - {leader})
        beaten = set(h.loc[h["share_lo"] > 0.5, "opponent"])
        dominates = bool(others) and set(others) <= beaten
        win = float(part.loc[part["strategy"] == leader, "win_rate"].iloc[0])
        if h2h.empty and ratings.empty and others:  # no finishing order recorded: the leader by win rate only
            note = f"{leader} wins most often (no finishing order recorded, so no head-to-head)"
        elif dominates:
            note = f"{leader} finishes ahead of every other strategy ({', '.join(others)}) in most shared games"
        else:
            open_ = [o for o in others if o not in beaten]
            note = f"{leader} leads, but does not clearly beat {', '.join(open_)}"
        rows.append((players, inst, ", ".join(sorted(part["strategy"])), leader, win, dominates, note))
    return pd.DataFrame(rows, columns=cols)


def compare_strategies(seats, confidence=0.95, resamples=200, seed=0, setting=None):
    """All strategy tables of a run (one pass over its seat rows); notes name the mirror settings
    that were skipped. ``seats``: the seats table or a run."""
    notes = []
    keys, acc, setting = _read(seats, setting)
    mirrors = _mirrors(keys, acc)
    if mirrors:
        names = sorted(set(mirrors.values()))
        total = len(acc)
        if len(mirrors) == total:
            notes.append(
                f"Mirror lineup: {', '.join(names)} in every seat of every game, so there is no strategy "
                "to compare; this section is skipped."
            )
        else:
            notes.append(
                f"{len(mirrors)} of {total} settings play a mirror lineup ({', '.join(names)} in every seat) "
                "and are left out of the comparison."
            )
    rates = _rates(keys, acc, setting, confidence)
    h2h = _h2h(keys, acc, setting, confidence)
    unbeaten = h2h[(h2h["games"] > 0) & (h2h["ahead"] == h2h["games"])]
    for row in unbeaten.itertuples(index=False):
        notes.append(
            f"{row.players} players, {getattr(row, setting.label)}: {row.strategy} finished ahead of {row.opponent} in "
            f"every one of {row.games:,} shared games; with few or no upsets the rating gap between them "
            "rests largely on the fit's regularisation: read it as 'very large', not as a measured number."
        )
    if "rank" not in tables_of(seats).seat_columns and not rates.empty:
        notes.append("The game records who won, not a finishing order: strategies are compared by win rate only "
                     "(no head-to-head, no rating).")
    ratings = _ratings(keys, acc, setting, confidence, resamples, seed)
    dom = dominance(rates, h2h, ratings, setting)
    return StrategyComparison(rates=rates, head_to_head=h2h, ratings=ratings, dominance=dom, notes=notes)
