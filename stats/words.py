"""What a seat verdict is, in one place below both the runner's stopping rule
(:mod:`stats.sequences`) and the report's statistics (:mod:`stats.tests`): its three
words, the test level that goes with a confidence level, and the games an equivalence test needs.

The words are the lab's one vocabulary, in everything it prints: a seat verdict is **fair**,
**unfair** or **undecided**; a figure of the regression gate **held** (shown within its margin),
**moved** (shown beyond it) or is **undecided**. Records written before these words (a run's
``manifest.json`` saying ``balanced`` / ``imbalanced`` / ``inconclusive``) are read through
:func:`verdict_word`; the gate's stored codes (``pass`` / ``fail`` / ``inconclusive`` in
``regress.json`` and the baselines) stay as they are and are said through :func:`gate_word`.
"""

from __future__ import annotations

import math

import numpy as np
from statsmodels.stats.proportion import power_binom_tost

FAIR = "fair"
UNFAIR = "unfair"
UNDECIDED = "undecided"
VERDICTS = (FAIR, UNFAIR, UNDECIDED)

# The words older records wrote for the same verdicts, read as today's (verdict_word).
OLD_WORDS = {"balanced": FAIR, "imbalanced": UNFAIR, "inconclusive": UNDECIDED}

# The former names of the three words, kept so that code written against them still reads the new words.
BALANCED, IMBALANCED, INCONCLUSIVE = FAIR, UNFAIR, UNDECIDED

# A gate figure's word for its stored code (regress.json and the baselines keep the codes).
HELD = "held"
MOVED = "moved"
GATE_WORDS = {"pass": HELD, "fail": MOVED, "inconclusive": UNDECIDED}

# Power used for the "how many more games" estimate, and the largest count worth suggesting.
TARGET_POWER = 0.8
MAX_GAMES = 10_000_000


def verdict_word(word):
    """Today's word for a seat verdict read from a record (an older record's ``balanced`` -> ``fair``);
    any other value comes back unchanged."""
    return OLD_WORDS.get(word, word) if isinstance(word, str) else word


def gate_word(code):
    """The printed word of a gate figure's stored code: ``pass`` -> held, ``fail`` -> moved,
    ``inconclusive`` -> undecided; any other value (``left out``) comes back unchanged."""
    return GATE_WORDS.get(code, code) if isinstance(code, str) else code


def alpha_of(confidence):
    """The test level that goes with a confidence level (0.95 -> 0.05)."""
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence {confidence} is outside [0.5, 1)")
    return 1.0 - confidence


def games_for_equivalence(p_alt, center, margin, alpha, power=TARGET_POWER):
    """Games the TOST needs to show ``p_alt`` within ``center +- margin`` with the given power.

    ``inf`` when ``p_alt`` is on or beyond the margin (no number of games would show it).
    """
    if not abs(p_alt - center) < margin:
        return math.inf
    low, upp = max(center - margin, 0.0), min(center + margin, 1.0)
    grid = np.unique(np.geomspace(10, MAX_GAMES, 400).astype(np.int64))
    with np.errstate(all="ignore"):
        pw = np.clip(np.nan_to_num(power_binom_tost(low, upp, grid, p_alt=p_alt, alpha=alpha)), 0, 1)
    # The exact power saw-tooths with n; take the first n from which it stays above the target.
    ok = pw >= power
    if not ok[-1]:
        return math.inf
    bad = np.flatnonzero(~ok)
    return float(grid[bad[-1] + 1] if bad.size else grid[0])


def holm_adjusted(p, axis=-1):
    """Holm-adjusted p-values (the one Holm step-down of the code base) along ``axis`` (vectorised over the other axes); NaN counts as 1.

    Equal to ``statsmodels.stats.multitest.multipletests(p, method="holm")[1]`` on a 1-D array.
    """
    p = np.where(np.isnan(p), 1.0, np.asarray(p, dtype=float))
    p = np.moveaxis(p, axis, -1)
    m = p.shape[-1]
    if m == 0:
        return np.moveaxis(p, -1, axis)
    order = np.argsort(p, axis=-1, kind="stable")
    sorted_p = np.take_along_axis(p, order, axis=-1)
    factor = m - np.arange(m)
    adj_sorted = np.minimum(1.0, np.maximum.accumulate(sorted_p * factor, axis=-1))
    adj = np.empty_like(adj_sorted)
    np.put_along_axis(adj, order, adj_sorted, axis=-1)
    return np.moveaxis(adj, -1, axis)
