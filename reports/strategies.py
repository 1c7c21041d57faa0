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

from reports import stats
from reports.frames import DEFAULT_SETTING, GAME_ID, deal_ids, with_setting

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


def _prepared(seats, setting):
    s = with_setting(seats, setting)
    s["gid"] = s.groupby(GAME_ID, sort=False).ngroup()
    s["did"] = deal_ids(s)
    s["strategy"] = s["strategy"].astype(str)
    return s


def mirror_settings(seats, setting=None):
    """``(players, setting label) -> strategy`` for every setting with one strategy in every seat."""
    setting = setting or DEFAULT_SETTING
    s = with_setting(seats, setting)
    per = s.groupby(setting.keys)["strategy"].agg(lambda x: sorted(set(map(str, x))))
    return {key: names[0] for key, names in per.items() if len(names) == 1}


def _compared(s, setting):
    mirrors = mirror_settings(s, setting)
    if not mirrors:
        return s
    keys = list(zip(s["players"], s[setting.label], strict=True))
    return s[[k not in mirrors for k in keys]]


def strategy_rates(seats, confidence=0.95, setting=None):
    """Win rate and mean score per setting and strategy (mirror settings left out).

    Columns: players, the setting label, strategy, seats_played, games, wins, win_rate, win_lo, win_hi,
    fair_share (1/N), score_mean, score_lo, score_hi, effective_n (seats played over the design
    effect of deals, :func:`reports.stats.design_effect`).
    """
    setting = setting or DEFAULT_SETTING
    s = _compared(_prepared(seats, setting), setting)
    cols = [
        *setting.keys,
        "strategy",
        "seats_played",
        "games",
        "wins",
        "win_rate",
        "win_lo",
        "win_hi",
        "fair_share",
        "score_mean",
        "score_lo",
        "score_hi",
        "effective_n",
    ]
    if s.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for (players, inst, name), part in s.groupby([*setting.keys, "strategy"], sort=True):
        n = len(part)
        deal = part["did"].to_numpy()
        if "score" in part.columns:
            mean, lo, hi = stats.mean_interval(part["score"].to_numpy(), confidence, cluster=deal)
        else:  # a game without scores
            mean = lo = hi = np.nan
        rate, w_lo, w_hi, n_eff = stats.wilson_clustered(part["won"].to_numpy(), deal, confidence)
        rows.append(
            (
                players,
                inst,
                name,
                n,
                part["gid"].nunique(),
                int(part["won"].sum()),
                rate,
                w_lo,
                w_hi,
                mean,
                lo,
                hi,
                n_eff,
            )
        )
    out = pd.DataFrame(
        rows,
        columns=[
            *setting.keys,
            "strategy",
            "seats_played",
            "games",
            "wins",
            "win_rate",
            "win_lo",
            "win_hi",
            "score_mean",
            "score_lo",
            "score_hi",
            "effective_n",
        ],
    )
    out["fair_share"] = 1.0 / out["players"]
    return out[cols]


def _best_ranks(s, setting):
    """Best (lowest) finishing rank of each strategy in each game: index setting + gid + did."""
    return s.groupby([*setting.keys, "gid", "did", "strategy"], sort=True)["rank"].min().unstack("strategy")


def head_to_head(seats, confidence=0.95, setting=None):
    """Long head-to-head table: share of shared games where ``strategy`` finished ahead of ``opponent``.

    Columns: players, the setting label, strategy, opponent, games (both present), ahead, share,
    share_lo, share_hi (Wilson).
    """
    setting = setting or DEFAULT_SETTING
    s = _compared(_prepared(seats, setting), setting)
    cols = [*setting.keys, "strategy", "opponent", "games", "ahead", "share", "share_lo", "share_hi"]
    if s.empty or "rank" not in s.columns:  # no finishing order recorded: no head-to-head
        return pd.DataFrame(columns=cols)
    best = _best_ranks(s, setting)
    rows = []
    for (players, inst), part in best.groupby(level=[0, 1], sort=True):
        present = [c for c in part.columns if part[c].notna().any()]
        for a, b in itertools.permutations(present, 2):
            both = part[a].notna() & part[b].notna()
            n = int(both.sum())
            if n == 0:
                continue
            won = (part.loc[both, a] < part.loc[both, b]).to_numpy().astype(float)
            deal = part.index[both.to_numpy()].get_level_values("did").to_numpy()
            share, lo, hi, _ = stats.wilson_clustered(won, deal, confidence)
            rows.append((players, inst, a, b, n, int(won.sum()), share, lo, hi))
    out = pd.DataFrame(rows, columns=cols)
    return out[cols]


def head_to_head_matrix(h2h, players, instruments, setting=None):
    """The head-to-head shares of one setting (``instruments``: its label) as a square frame (row ahead of column)."""
    part = h2h[(h2h["players"] == players) & (h2h[(setting or DEFAULT_SETTING).label] == instruments)]
    return part.pivot(index="strategy", columns="opponent", values="share")


def pair_counts(part, names):
    """Per game, the k x k counts of "row strategy finished ahead of column strategy" over seat pairs.

    ``part`` holds the seat rows of one setting (with ``gid``); returns ``(games x k*k array, gids)``.
    """
    k = len(names)
    code = {n: i for i, n in enumerate(names)}
    gids = np.sort(part["gid"].unique())
    pos = np.searchsorted(gids, part["gid"].to_numpy())
    nseat = int(part["seat"].max()) + 1
    rank = np.full((gids.size, nseat), np.iinfo(np.int64).max, dtype=np.int64)
    strat = np.full((gids.size, nseat), -1, dtype=np.int64)
    rank[pos, part["seat"].to_numpy()] = part["rank"].to_numpy()
    strat[pos, part["seat"].to_numpy()] = part["strategy"].map(code).to_numpy()
    counts = np.zeros((gids.size, k * k))
    rows = np.arange(gids.size)
    for i, j in itertools.combinations(range(nseat), 2):
        si, sj = strat[:, i], strat[:, j]
        ok = (si >= 0) & (sj >= 0) & (si != sj)
        i_ahead = rank[:, i] < rank[:, j]
        winner = np.where(i_ahead, si, sj)
        loser = np.where(i_ahead, sj, si)
        np.add.at(counts, (rows[ok], winner[ok] * k + loser[ok]), 1.0)
    return counts, gids


def _fit_bt(comp):
    import choix

    try:
        theta = choix.ilsr_pairwise_dense(comp, alpha=BT_ALPHA)
    except (RuntimeError, ValueError, np.linalg.LinAlgError):
        return np.full(comp.shape[0], np.nan)
    return theta - theta.mean()


def strategy_ratings(seats, confidence=0.95, resamples=200, seed=0, setting=None):
    """Bradley-Terry strength per setting and strategy, with a bootstrap interval over deals.

    The strength is on the log scale and centred on 0 within a setting: strategy A beats strategy B
    in a seat pair with probability ``1 / (1 + exp(strength_B - strength_A))``. Columns: players,
    the setting label, strategy, comparisons (seat pairs it took part in), strength, strength_lo,
    strength_hi, p_beat_average.
    """
    setting = setting or DEFAULT_SETTING
    s = _compared(_prepared(seats, setting), setting)
    cols = [*setting.keys, "strategy", "comparisons", "strength", "strength_lo", "strength_hi", "p_beat_average"]
    if s.empty or "rank" not in s.columns:  # no finishing order recorded: no rating
        return pd.DataFrame(columns=cols)
    rng = np.random.default_rng(seed)
    alpha = stats.alpha_of(confidence)
    rows = []
    for (players, inst), part in s.groupby(setting.keys, sort=True):
        names = sorted(part["strategy"].unique())
        k = len(names)
        counts, gids = pair_counts(part, names)
        comp = counts.sum(axis=0).reshape(k, k)
        theta = _fit_bt(comp)
        # Resample deals, not games: the games of one deal share their setup.
        deal_of = part.drop_duplicates("gid").set_index("gid")["did"].reindex(gids).to_numpy()
        _, deal_idx = np.unique(deal_of, return_inverse=True)
        counts = np.stack([np.bincount(deal_idx, weights=counts[:, j]) for j in range(k * k)], axis=1)
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
            rows.append((players, inst, name, int(involved[i]), theta[i], lo[i], hi[i]))
    out = pd.DataFrame(rows, columns=[*setting.keys, "strategy", "comparisons", "strength", "strength_lo", "strength_hi"])
    out["p_beat_average"] = 1.0 / (1.0 + np.exp(-out["strength"]))
    return out[cols]


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
    """All strategy tables of a run; notes name the mirror settings that were skipped."""
    setting = setting or DEFAULT_SETTING
    notes = []
    mirrors = mirror_settings(seats, setting)
    if mirrors:
        names = sorted(set(mirrors.values()))
        total = with_setting(seats, setting)[setting.keys].drop_duplicates().shape[0]
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
    rates = strategy_rates(seats, confidence, setting)
    h2h = head_to_head(seats, confidence, setting)
    unbeaten = h2h[(h2h["games"] > 0) & (h2h["ahead"] == h2h["games"])]
    for row in unbeaten.itertuples(index=False):
        notes.append(
            f"{row.players} players, {getattr(row, setting.label)}: {row.strategy} finished ahead of {row.opponent} in "
            f"every one of {row.games:,} shared games; with few or no upsets the rating gap between them "
            "rests largely on the fit's regularisation: read it as 'very large', not as a measured number."
        )
    if "rank" not in seats.columns and not rates.empty:
        notes.append("The game records who won, not a finishing order: strategies are compared by win rate only "
                     "(no head-to-head, no rating).")
    ratings = strategy_ratings(seats, confidence, resamples, seed, setting)
    dom = dominance(rates, h2h, ratings, setting)
    return StrategyComparison(rates=rates, head_to_head=h2h, ratings=ratings, dominance=dom, notes=notes)
