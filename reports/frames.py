"""Vocabulary and small helpers shared by the report sections.

A *setting* is one player count and one value of the game's declared setting columns
(``Game.setting_columns``: Shuffle and Swing's instrument set, black/orange/gray; another game's
board and variant); the sections compare seats, strategies and score sources within a setting.
:class:`Setting` is a game's setting in the report's words: its columns, the label column the
sections group by (the columns' values joined by ``/``: ``Violin/Piano/Horns``, ``forest/base``)
and how a table header and a sentence name it. Lineups of the same setting are pooled: the runner
plays every rotation of a lineup, so each seat sees each strategy equally often.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

# The first game's departments (its instrument sections and the default setting read them).
DEPTS = ("black", "orange", "gray")
INST_COLUMNS = tuple(f"inst_{d}" for d in DEPTS)
GAME_ID = ["cell", "game"]


@dataclass(frozen=True)
class Setting:
    """A game's setting in the report's words (``simulator.game_api.ReportSpec``).

    ``columns``: the game's setting columns (after ``players`` in its result tables); ``label``: the
    column :meth:`add` writes (their values joined by ``/``), which every section groups by with
    ``players``; ``title``: its table header; ``words`` / ``many``: one setting and several in prose;
    ``noun``: several, short; ``header``: what one setting of the run is, for the report's header."""

    columns: tuple = INST_COLUMNS
    label: str = "instruments"
    title: str = "instruments"
    words: str = "instrument set"
    many: str = "instrument sets"
    noun: str = "sets"
    header: str = "player count x instrument set"

    def __post_init__(self):
        if not self.label.isidentifier() or self.label in (*self.columns, "players", "lineup"):
            raise ValueError(f"setting label {self.label!r}: an identifier other than the table's columns")

    @property
    def keys(self):
        """The columns one setting is told by in a section table: ``players`` and the label."""
        return ["players", self.label]

    @property
    def cell(self):
        """A seat cell: the setting and the lineup (the judge)."""
        return [*self.keys, "lineup"]

    def label_of(self, df):
        """The label of each row: the setting columns' values joined by ``/``."""
        if len(df) == 0:
            return pd.Series([], dtype=object, index=df.index)
        out = df[self.columns[0]].astype(str)
        for c in self.columns[1:]:
            out = out + "/" + df[c].astype(str)
        return out

    def values(self, df):
        """label -> ``{column: value}`` of every setting of a table."""
        rows = df[list(self.columns)].drop_duplicates()
        return {lab: dict(zip(self.columns, vals, strict=True))
                for lab, vals in zip(self.label_of(rows), rows.itertuples(index=False, name=None), strict=True)}


# The default game's setting (Shuffle and Swing's instrument set): what a table without a declared
# game is read as, as a result folder written before the game was recorded.
DEFAULT_SETTING = Setting()
# One setting of the default game: a player count and an instrument set ("Violin/Piano/Horns").
SETTING = DEFAULT_SETTING.keys


def setting_of(game, columns=None):
    """The :class:`Setting` of a registered game (``simulator.game_api.Game``), on ``columns`` when a
    run's manifest declares other setting columns than the game does today."""
    spec = game.report
    cols = tuple(columns) if columns else tuple(game.setting_columns)
    title = spec.setting_title or "/".join(cols)
    words = spec.setting_words or title
    return Setting(
        columns=cols,
        label=spec.setting_label,
        title=title,
        words=words,
        many=spec.settings_words or f"settings ({' / '.join(cols)})",
        noun=spec.setting_noun,
        header="player count x " + (spec.setting_words or " x ".join(cols)),
    )


def setting_of_table(df):
    """The :class:`Setting` of a result table read without its manifest: its setting columns are the
    ones between ``players`` and ``lineup`` (the one result schema, ``scenarios.schema``), named in
    the words of the registered game that declares them (the default game's when none does)."""
    from simulator import games as registry

    cols = list(df.columns)
    if "players" not in cols or "lineup" not in cols or cols.index("lineup") <= cols.index("players") + 1:
        return DEFAULT_SETTING
    found = tuple(cols[cols.index("players") + 1 : cols.index("lineup")])
    if found == DEFAULT_SETTING.columns:
        return DEFAULT_SETTING
    for name in registry.names():
        game = registry.get(name)
        if tuple(game.setting_columns) == found:
            return setting_of(game, found)
    return Setting(columns=found, label="setting", title="/".join(found), words="/".join(found),
                   many=f"settings ({' / '.join(found)})", noun="settings", header="player count x " + " x ".join(found))


def instrument_label(df):
    """``black/orange/gray`` instrument names of each row, e.g. ``Violin/Piano/Horns``."""
    return DEFAULT_SETTING.label_of(df)


def with_setting(df, setting=None):
    """A copy of a seats or games table with the setting's label column added (``setting`` None: the
    default game's, the ``instruments`` label)."""
    setting = setting or DEFAULT_SETTING
    out = df.copy()
    out[setting.label] = setting.label_of(out).astype(object)
    out["players"] = out["players"].astype("int64")
    return out


def decided_games(games):
    """The games that have a winner (``winner`` >= 0): a game that stopped without one (a stall cap,
    where the game declares one) counts for no seat, so the seat verdicts leave it out."""
    return games[games["winner"] >= 0] if (games["winner"] < 0).any() else games


def deal_ids(df):
    """An integer per (cell, deal): the games of one deal share their setup and are not independent."""
    return df.groupby(["cell", "deal"], sort=False).ngroup().to_numpy()


def mirror_lineups(games):
    """True when some game has one strategy in every seat (its lineup names a single strategy)."""
    lineups = games["lineup"].astype(str)
    return bool(lineups.map(lambda s: len({x.strip() for x in s.split(",")}) == 1).any())


def varies_instruments(games, setting=None):
    """True when the run holds more than one setting (by default: instrument set)."""
    return games[list((setting or DEFAULT_SETTING).columns)].drop_duplicates().shape[0] > 1


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
