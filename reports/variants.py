"""Variant section: the same deals played under several rule variants, compared with a reference.

For every setting (player count x the game's other setting columns, e.g. its board, x lineup) and
every variant, on the deals all its variants share (``scenarios.generic`` seeds the deals without
the variant):

* each seat's win rate with an interval clustered by deal;
* the change of each seat's win rate against the reference variant, paired deal by deal (the mean
  of the per-deal differences, a t interval over deals), and a verdict against the margin:
  **unchanged** (two one-sided tests show |change| < margin), **changed** (the change is shown
  beyond the margin, Holm over every seat test of the section), **undecided** otherwise;
* the change in game length (rounds), paired likewise;
* unfairness: the largest distance of a seat's win rate from the seats' mean (1/N when every game
  has a winner; stalled games lower all seats alike), with a bootstrap interval over deals; the variant with the smallest is named the fairest of its setting, and the note says
  whether its lead over the runner-up is shown (the bootstrap interval of the difference excludes 0).

The independent unit is the deal throughout; stalled games (no winner) count as a win for nobody.
The lineup is part of the setting, so a comparison is always within one judge (a mirror of one
strategy, or one mixed lineup): judges are never pooled. Seats are numbered from 0 in the tables
(``seat``, as in the result files) and from 1 in the text (``what``), seat 1 playing first.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stats import tests as stats

UNCHANGED = "unchanged"
CHANGED = "changed"
UNDECIDED = "undecided"
SETTING = ["players", "board", "lineup"]
VARIANT = "variant"


def variant_groups(setting=None):
    """The columns a variant is compared within: ``players``, the setting's columns but the variant
    (``setting``: a :class:`reports.frames.Setting`; None: a board), and the lineup."""
    if setting is None:
        return list(SETTING)
    return ["players", *(c for c in setting.columns if c != VARIANT), "lineup"]


def _per_deal(part, nplayers):
    """deal -> per-seat mean win (over the deal's rotations) and mean rounds."""
    w = part["winner"].to_numpy()
    onehot = (w[:, None] == np.arange(nplayers)[None, :]).astype(float)
    df = pd.DataFrame(onehot, columns=[f"s{k}" for k in range(nplayers)])
    df["rounds"] = part["rounds"].to_numpy(dtype=float)
    df["deal"] = part["deal"].to_numpy()
    return df.groupby("deal").mean()


def _unfairness(mat, rng, resamples):
    """Largest |seat win rate - the seats' mean win rate| of a deals x seats matrix, and its bootstrap
    draws. The seats' mean is 1/N when every game has a winner; a stalled game (a win for nobody)
    lowers every seat alike, so measuring from the mean keeps stalls from reading as unfairness."""
    rates = mat.mean(axis=0)
    point = float(np.max(np.abs(rates - rates.mean())))
    n = len(mat)
    idx = rng.integers(0, n, size=(resamples, n))
    boot = mat[idx].mean(axis=1)
    draws = np.max(np.abs(boot - boot.mean(axis=1, keepdims=True)), axis=1)
    return point, draws


def compare_variants(games, reference, margin=0.03, confidence=0.95, seed=0, resamples=1000, setting=None):
    """``(seats, changes, settings)`` DataFrames of the variant section (see the module doc).

    ``games`` needs players, the setting's columns (default: board and variant), lineup, deal,
    winner, rounds; the tables name each group by the same columns."""
    rng = np.random.default_rng(seed)
    seat_rows, change_rows, setting_rows = [], [], []
    alpha = stats.alpha_of(confidence)
    groups = variant_groups(setting)
    for key, part in games.groupby(groups, sort=True):
        players, lineup = key[0], key[-1]
        where = dict(zip(groups, key, strict=True))
        n = int(players)
        share = 1.0 / n
        per = {v: _per_deal(p, n) for v, p in part.groupby("variant", sort=False)}
        variants = list(per)
        common = sorted(set.intersection(*(set(d.index) for d in per.values())))
        mats = {v: per[v].loc[common] for v in variants}
        unfair = {}
        for v in variants:
            m = mats[v][[f"s{k}" for k in range(n)]].to_numpy()
            pt, draws = _unfairness(m, rng, resamples) if len(m) else (float("nan"), np.array([np.nan]))
            unfair[v] = (pt, draws)
            for k in range(n):
                rate, lo, hi, _ = stats.t_interval(m[:, k], confidence)
                seat_rows.append((*key, v, k, len(common), rate, lo, hi, rate - share))
            r, rlo, rhi, _ = stats.t_interval(mats[v]["rounds"].to_numpy(), confidence)
            setting_rows.append(
                {
                    **where,
                    "variant": v,
                    "deals": len(common),
                    "rounds": r,
                    "rounds_lo": rlo,
                    "rounds_hi": rhi,
                    "unfairness": pt,
                    "unfairness_lo": float(np.quantile(draws, alpha / 2)),
                    "unfairness_hi": float(np.quantile(draws, 1 - alpha / 2)),
                }
            )
        if reference in mats:
            ref = mats[reference]
            for v in variants:
                if v == reference:
                    continue
                for k in [*range(n), "rounds"]:
                    col = f"s{k}" if k != "rounds" else "rounds"
                    d = mats[v][col].to_numpy() - ref[col].to_numpy()
                    mean, lo, hi, se = stats.t_interval(d, confidence)
                    m = margin if k != "rounds" else float("nan")
                    change_rows.append(
                        {
                            **where,
                            "variant": v,
                            "reference": reference,
                            "what": f"seat {k + 1} win rate" if k != "rounds" else "rounds per game",  # seats from 1
                            "seat": k if k != "rounds" else -1,
                            "deals": len(d),
                            "change": mean,
                            "change_lo": lo,
                            "change_hi": hi,
                            "tost_p": stats.t_tost_p(mean, se, len(d), m) if k != "rounds" else float("nan"),
                            "outside_p": stats.t_outside_p(mean, se, len(d), m) if k != "rounds" else float("nan"),
                        }
                    )
        # The fairest variant of the setting, and whether its lead is shown.
        order = sorted(variants, key=lambda v: unfair[v][0])
        best = order[0]
        lead_shown = False
        if len(order) > 1:
            diff = unfair[order[1]][1] - unfair[best][1]
            lead_shown = bool(np.quantile(diff, alpha) > 0)
        for row in setting_rows:
            if tuple(row[c] for c in groups) == key:
                row["fairest"] = row["variant"] == best
                row["fairest_shown"] = lead_shown and row["variant"] == best
    seats = pd.DataFrame(
        seat_rows,
        columns=[*groups, "variant", "seat", "deals", "win_rate", "win_lo", "win_hi", "deviation"],
    )
    changes = pd.DataFrame(change_rows)
    if len(changes):
        mask = changes["seat"] >= 0
        pvals = changes.loc[mask, "outside_p"].fillna(1.0).to_numpy()
        rejected, _ = stats.holm(pvals, alpha)
        verdict = np.full(len(changes), "", dtype=object)
        idx = np.nonzero(mask.to_numpy())[0]
        for j, i in enumerate(idx):
            if rejected[j]:
                verdict[i] = CHANGED
            elif changes["tost_p"].iloc[i] < alpha:
                verdict[i] = UNCHANGED
            else:
                verdict[i] = UNDECIDED
        for i in np.nonzero(~mask.to_numpy())[0]:
            lo, hi = changes["change_lo"].iloc[i], changes["change_hi"].iloc[i]
            verdict[i] = "shorter" if hi < 0 else "longer" if lo > 0 else "no shown change"
        changes["verdict"] = verdict
    return seats, changes, pd.DataFrame(setting_rows)
