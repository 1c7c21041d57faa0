"""Vocabulary and small helpers shared by the report sections.

A *setting* is one player count and one instrument set (black/orange/gray); the sections compare
seats, strategies and score sources within a setting. Lineups of the same setting are pooled: the
runner plays every rotation of a lineup, so each seat sees each strategy equally often.
"""

from __future__ import annotations

import pandas as pd

DEPTS = ("black", "orange", "gray")
INST_COLUMNS = tuple(f"inst_{d}" for d in DEPTS)
SOURCES = (
    "inspector",
    *(f"objective_{d}" for d in DEPTS),
    *(f"brag_{d}" for d in DEPTS),
    *(f"penalty_{d}" for d in DEPTS),
)
# One setting: a player count and an instrument set ("Violin/Piano/Horns", black/orange/gray).
SETTING = ["players", "instruments"]
GAME_ID = ["cell", "game"]


def instrument_label(df):
    """``black/orange/gray`` instrument names of each row, e.g. ``Violin/Piano/Horns``."""
    if len(df) == 0:
        return pd.Series([], dtype=object, index=df.index)
    return df["inst_black"].astype(str) + "/" + df["inst_orange"].astype(str) + "/" + df["inst_gray"].astype(str)


def with_setting(df):
    """A copy of a seats or games table with the ``instruments`` label column added."""
    out = df.copy()
    out["instruments"] = instrument_label(out).astype(object)
    out["players"] = out["players"].astype("int64")
    return out


def deal_ids(df):
    """An integer per (cell, deal): the games of one deal share their setup and are not independent."""
    return df.groupby(["cell", "deal"], sort=False).ngroup().to_numpy()


def mirror_lineups(games):
    """True when some game has one strategy in every seat (its lineup names a single strategy)."""
    lineups = games["lineup"].astype(str)
    return bool(lineups.map(lambda s: len({x.strip() for x in s.split(",")}) == 1).any())


def varies_instruments(games):
    """True when the run holds more than one instrument set."""
    return games[list(INST_COLUMNS)].drop_duplicates().shape[0] > 1


def varied_departments(games):
    """Departments whose instrument changes between games of the run."""
    return [d for d in DEPTS if games[f"inst_{d}"].nunique() > 1]


def pct(x, digits=1):
    """A rate as a percentage string (``0.251 -> '25.1'``); blank for NaN."""
    if x is None or pd.isna(x):
        return ""
    return f"{100 * x:.{digits}f}"


def pct_ci(x, lo, hi, digits=1):
    """``'25.1 [23.9, 26.4]'``: a rate and its interval in percent."""
    if pd.isna(x):
        return ""
    if pd.isna(lo) or pd.isna(hi):
        return pct(x, digits)
    return f"{pct(x, digits)} [{pct(lo, digits)}, {pct(hi, digits)}]"


def num_ci(x, lo, hi, digits=1):
    """``'12.3 [11.8, 12.9]'``: a mean and its interval."""
    if pd.isna(x):
        return ""
    if pd.isna(lo) or pd.isna(hi):
        return f"{x:.{digits}f}"
    return f"{x:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def games_text(n):
    """A game count for prose: ``12,000``; ``'more than 10,000,000'`` for infinity."""
    if n is None or pd.isna(n):
        return ""
    if n == float("inf"):
        return "no feasible number"
    return f"{round(n):,}"
