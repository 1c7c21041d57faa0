"""Reading a run's lead record back and turning it into game-feel tables (``reports.feel.measures``).

A run made with ``record = ["lead"]`` (``scenarios.record``) holds, in each row of its games
table, a column ``lead``: each seat's standing after each round, flattened. :func:`load_lead`
reads it with the game's keys; :func:`feel_tables` gives the per-game measures and the
per-setting table with intervals; :func:`setting_label` names a setting (player count x
instrument set, or board / variant, x judge).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from reports.feel import measures as feel
from scenarios.record import LEAD_COLUMN, PROJECTED_COLUMN, REPLAY_COLUMN
from scenarios.results import GAMES_DIR, MANIFEST, RunDirError, read_manifest



def setting_keys(manifest):
    """The keys a setting is told by: players, the setting columns the run's manifest declares (those
    of its game, ``Game.setting_columns``, for a manifest that declares none) and the lineup."""
    from simulator import games as registry

    cols = list(manifest.get("columns", {}).get("games") or [])
    if "players" in cols and "lineup" in cols and cols.index("players") < cols.index("lineup"):
        middle = cols[cols.index("players") + 1 : cols.index("lineup")]
    else:
        middle = list(registry.get(manifest.get("game") or None).setting_columns)
    return ("players", *middle, "lineup")


def has_lead(out_dir):
    """Whether the run in ``out_dir`` recorded the lead (its scenario said ``record = ["lead"]``)."""
    try:
        m = read_manifest(out_dir)
    except RunDirError:
        return False
    return "lead" in (m.get("settings", {}).get("record") or [])


STANDINGS = ("projected", "running")  # the feel measures' default standing first


def load_lead(out_dir, standing="projected"):
    """``(keys frame, standings, winners)`` of every game of a run with the lead record: one row per
    game (its setting keys, ``game``, ``deal``, ``winner``, and ``setup_replay_winner`` when the run
    replayed set-ups), its standing matrix (rounds x seats) and its winning seat. ``standing``:
    ``"projected"`` (each seat's projected final score, in points, where the game records it; its
    running standing otherwise) or ``"running"`` (the score so far). Raises RunDirError when the
    run has no record."""
    out_dir = Path(out_dir)
    if not has_lead(out_dir):
        raise RunDirError(out_dir / MANIFEST, "settings.record", 'the run has no lead record: run it with --set \'record=["lead"]\'')
    if standing not in STANDINGS:
        raise ValueError(f"standing must be one of {STANDINGS}, not {standing!r}")
    frames = []
    told_by = setting_keys(read_manifest(out_dir))
    for path in sorted((out_dir / GAMES_DIR).glob("chunk-*.parquet")):
        names = pq.read_schema(path).names
        keys = [c for c in told_by if c in names]
        extra = [c for c in (PROJECTED_COLUMN, REPLAY_COLUMN) if c in names]
        if LEAD_COLUMN not in names:
            raise RunDirError(path, LEAD_COLUMN, "the run recorded the lead but this chunk has no lead column: "
                              "the chunk is damaged; delete it and run again with --resume")
        cols = list(dict.fromkeys([*keys, "cell", "game", "deal", "winner", LEAD_COLUMN, *extra]))
        chunk = pq.read_table(path, columns=cols).to_pandas()
        _check_standings(path, chunk)
        frames.append(chunk)
    if not frames:
        raise RunDirError(out_dir, "games", "no games on disk")
    df = pd.concat(frames, ignore_index=True).sort_values(["cell", "game"], kind="stable").reset_index(drop=True)
    use_projected = standing == "projected" and PROJECTED_COLUMN in df.columns and df[PROJECTED_COLUMN].notna().all()
    column, scale = (PROJECTED_COLUMN, 0.1) if use_projected else (LEAD_COLUMN, 1)
    standings = [np.asarray(v, dtype=np.int64).reshape(-1, int(n)) * scale for v, n in zip(df[column], df["players"])]
    keys = df.drop(columns=[c for c in (LEAD_COLUMN, PROJECTED_COLUMN) if c in df.columns])
    keys.attrs["standing"] = "projected" if use_projected else "running"
    middle = [c for c in told_by[1:-1] if c in keys.columns]
    keys["setting"] = [setting_label(r, middle) for r in keys.to_dict("records")]
    return keys, standings, df["winner"].to_numpy()


def _check_standings(path, chunk):
    """Each game's recorded standings hold whole rounds of one value per seat (a damaged chunk's
    short or empty lists are named, not a reshape error)."""
    for column in (LEAD_COLUMN, PROJECTED_COLUMN):
        if column not in chunk.columns:
            continue
        for v, n, game in zip(chunk[column], chunk["players"], chunk["game"]):
            if v is None:
                if column == PROJECTED_COLUMN:
                    continue  # a game that records no projection: the running standing serves
                size = 0
            else:
                size = len(v)
            if size == 0 or size % int(n):
                raise RunDirError(path, column, f"game {int(game)}: {size} values, not whole rounds of {int(n)} seats: "
                                  "the chunk is damaged; delete it and run again with --resume")


def setting_label(row, keys=None):
    """``4p Violin/Piano/Horns greedy`` or ``4p forest/base greedy``: players, the setting (its
    columns ``keys``, default every column of ``row`` between ``players`` and ``lineup``, joined
    by ``/``) and the judge (the lineup, shortened to its one name for a mirror)."""
    lineup = str(row.get("lineup", ""))
    names = lineup.split(",")
    judge = names[0] if len(set(names)) == 1 else lineup
    if keys is None:
        cols = list(row)
        keys = cols[cols.index("players") + 1 : cols.index("lineup")] if "lineup" in cols else []
    what = "/".join(str(row[k]) for k in keys if k in row)
    return f"{int(row['players'])}p {what} {judge}"


def feel_tables(out_dir, standing="projected"):
    """``(per-game measures, per-setting measures)`` of a run with the lead record, on the
    ``standing`` of :func:`load_lead`."""
    keys, standings, winners = load_lead(out_dir, standing)
    per_game = feel.games_frame(standings, winners, keys)
    return per_game, feel.setting_measures(per_game, ["setting"])


def wide(table, measures=None):
    """The per-setting table one row per setting: ``measure`` as ``mean [low, high]`` text."""
    measures = measures or [m for m, _, _ in feel.MEASURES] + ["rounds_sd"]
    t = table[table["measure"].isin(measures)].copy()

    def cell(r):
        if np.isnan(r["low"]):
            return f"{r['mean']:.2f}"
        return f"{r['mean']:.2f} [{r['low']:.2f}, {r['high']:.2f}]"

    t["text"] = t.apply(cell, axis=1)
    out = t.pivot(index="setting", columns="measure", values="text")
    out.insert(0, "games", t.groupby("setting")["games"].max())
    front = ["games"]
    if "deals" in t.columns:
        out.insert(1, "deals", t.groupby("setting")["deals"].max())
        front.append("deals")
    return out[[*front, *[m for m in measures if m in out.columns]]]


def setup_table(keys, winners):
    """Per setting, what the set-up decides (``reports.feel.setup_split``) from the replayed deals
    of a run with ``record = ["setup"]``: ``None`` when the run replayed none."""
    if REPLAY_COLUMN not in keys.columns:
        return None
    rows = []
    for setting, grp in keys.assign(_w=winners).groupby("setting", sort=True):
        again = grp[grp[REPLAY_COLUMN] >= -1]
        if again.empty:
            continue
        r = feel.setup_split(again["_w"], again[REPLAY_COLUMN], int(grp["players"].iloc[0]), again["deal"])
        rows.append({"setting": setting, **r})
    return pd.DataFrame(rows) if rows else None
