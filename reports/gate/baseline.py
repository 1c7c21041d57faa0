"""Balance baselines: the figures of a run that a later run is tested against.

A baseline is a JSON file written from a finished run directory, of one game (``game``, a name of
:mod:`simulator.games`; a file without it is of the default game, Shuffle and Swing). Per cell
(player count x instrument set x lineup; for another game player count x board x variant x lineup)
it keeps, for every *figure*:

==================  ==========================================================  ==============
kind                figure                                                      unit
==================  ==========================================================  ==============
every game
``win_rate``        each seat's win rate; each strategy's win rate per seat it   rate (0..1)
                    occupies (lineups of two or more strategies)
``rounds``          rounds per game                                             rounds
``stall_rate``      the share of games the stall cap ended (a game that can      rate (0..1)
                    stall, ``GateSpec.stalls``)
Shuffle and Swing
``objective_points`` each department's objective points per game, summed over   points/game
                    the seats (``objective_<dept>``)
``build_rate``      the share of games in which the department's instrument     rate (0..1)
                    was completed (``built_<dept>``)
``score_spread``    standard deviation of the seats' final scores within a      points
                    game (how close the game was), averaged over games
==================  ==========================================================  ==============

A game declares its own figures and their kinds (unit, default margin) in its registry entry
(``Game.gate``, a :class:`simulator.game_api.GateSpec`): Echidna Shuffle's are tokens spent, moves
lost, deliveries on others' turns and pick-ups per game. Figure ids count seats from 0
(``win_rate.seat0``, as the result tables do); the labels a reader sees count them from 1.

The statistical unit is the *deal*: the games of one deal share their setup (every seat rotation
of the paired design), so they are not independent; independent deals are. Each figure is stored
as the moments of its per-deal value ``y`` (the mean of the per-game value over the deal's games)::

    n = deals, sum = sum(y), sumsq = sum(y**2)      mean = sum / n
                                                    var(mean) = (sumsq - sum**2 / n) / (n - 1) / n

which is all a two-sample test needs, and which adds up when more deals are played (the adaptive
mode of the regression merges rounds this way). Rates also keep their plain ``count`` / ``trials``.

Each cell also keeps ``deal_seeds`` (the setup seed of every deal) and each figure its per-deal
``values`` in that order, so that a later run of the same deals (the same scenario and run seed)
is compared deal by deal: a paired difference, whose variance is far smaller than that of two
independent samples. :func:`read_baseline` checks a file against this schema (types, ``n >= 1``,
a non-negative variance, one value per deal seed) before anything uses it.

The file also records where the figures came from: the scenario (name, hash, the hash of its
*design*, i.e. without run seed and game count), the settings and overrides, the SHA-256 of every
data file the run read, and the code version, so a regression can say what changed since.

This module reads result tables only; it never imports the kernel.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from scenarios.schema import FORMAT_VERSION
from simulator import games as registry
from simulator.errors import DataError
from simulator.game_api import GATE_HOWS, Game, GateKind

BASELINE_FORMAT = "ssb-balance-baseline"
BASELINE_VERSION = 2

# The kinds of figure every game has (see the module doc); a game adds its own (Game.gate.kinds).
GENERIC_KINDS = (
    GateKind("win_rate", "rate", 0.03, rate=True),  # 3 percentage points
    GateKind("rounds", "rounds per game", 0.5),
    GateKind("stall_rate", "rate", 0.01, rate=True),  # 1 percentage point: stalls are rare
)


def game_of(name=None):
    """The registered game of a manifest's or a baseline's ``game`` (``None``: the default game)."""
    return name if isinstance(name, Game) else registry.get(name)


def kinds_of(game=None):
    """``{kind: GateKind}`` of one game: the generic kinds, then the game's own."""
    out = {k.name: k for k in GENERIC_KINDS}
    for k in game_of(game).gate.kinds:
        if k.name in out and out[k.name] != k:
            raise ValueError(f"gate kind '{k.name}' of {game_of(game).title} is a generic kind with other settings")
        out[k.name] = k
    return out


def all_kinds():
    """``{kind: GateKind}`` over every registered game (a kind name means the same in every game)."""
    out = {}
    for name in registry.names():
        for k, v in kinds_of(name).items():
            if k in out and out[k] != v:
                raise ValueError(f"gate kind '{k}' is declared twice with other settings")
            out[k] = v
    return out


_ALL = all_kinds()
KINDS = tuple(_ALL)
RATE_KINDS = frozenset(k for k, v in _ALL.items() if v.rate)
UNITS = {k: v.unit for k, v in _ALL.items()}
# Scenario keys that do not change what a cell plays, only how much and with which deals.
SAMPLING_KEYS = ("name", "description", "seed", "games")
PROJECT_ROOT = Path(__file__).resolve().parents[2]
FIGURE_COLUMNS = ("cell_key", "figure", "kind", "label", "n", "sum", "sumsq", "count", "trials")


class BaselineError(DataError):
    """A baseline file that is missing, unreadable or of another format."""


# =========================================================================== figures of a run


def _cell_frame(seats, games, game=None):
    """Per-game values of every figure of one cell's tables, indexed by game (one row per game)."""
    game = game_of(game)
    players = int(games["players"].iloc[0])
    lineup = [s.strip() for s in str(games["lineup"].iloc[0]).split(",")]
    by_game = seats.groupby("game", sort=True)
    g = games.set_index("game").sort_index()
    out = pd.DataFrame(index=g.index)
    out["deal"] = g["deal"].to_numpy()
    figures = []  # (figure id, kind, label)

    won = seats.pivot(index="game", columns="seat", values="won").reindex(g.index).fillna(0)
    for seat in range(players):
        col = f"win_rate.seat{seat}"
        out[col] = won[seat].to_numpy(dtype=float) if seat in won.columns else 0.0
        figures.append((col, "win_rate", f"win rate, seat {seat + 1}"))  # seats counted from 1 for readers

    names = sorted(set(lineup))
    if len(names) > 1:
        # Seats a strategy holds in each game are fixed by the lineup (rotations move them around),
        # so its per-seat win rate is its wins in the game over the seats it holds.
        wins = seats.groupby(["game", "strategy"])["won"].sum().unstack(fill_value=0).reindex(g.index).fillna(0)
        for name in names:
            col = f"win_rate.{name}"
            held = lineup.count(name)
            out[col] = (wins[name].to_numpy(dtype=float) if name in wins.columns else 0.0) / held
            figures.append((col, "win_rate", f"win rate, {name} (per seat it holds)"))

    first = _Row(g.iloc[0].items())
    for f in game.gate.figures:
        out[f.name] = _game_figure(f, g, by_game)
        figures.append((f.name, f.kind, f.label.format_map(first)))

    out["rounds"] = g["rounds"].to_numpy(dtype=float)
    figures.append(("rounds", "rounds", "rounds per game"))
    if game.gate.stalls:
        out["stall_rate"] = (g["stalled"].to_numpy() > 0).astype(float)
        figures.append(("stall_rate", "stall_rate", "stalled games (the stall cap ended them)"))
    return out, figures


class _Row(dict):
    """A label's values: a name the tables lack reads ``?``."""

    def __missing__(self, key):
        return "?"


def _game_figure(f, g, by_game):
    """Per-game values of a game's own figure (a :class:`simulator.game_api.GateFigure`)."""
    if f.how == "seat_sum":
        return by_game[f.column].sum().reindex(g.index).to_numpy(dtype=float)
    if f.how == "seat_spread":
        return by_game[f.column].std(ddof=0).reindex(g.index).to_numpy(dtype=float)
    if f.how == "game":
        return g[f.column].to_numpy(dtype=float)
    if f.how == "game_share":
        return (g[f.column].to_numpy() > 0).astype(float)
    raise ValueError(f"gate figure '{f.name}': unknown how '{f.how}' (one of {', '.join(GATE_HOWS)})")


def figure_rows(game=None, players=4, lineup=("greedy",) * 4, first=None):
    """``(figure, kind, label)`` of a cell of ``game`` (what a baseline of it holds), without playing.

    ``first``: the values the labels name (e.g. ``{"inst_black": "Violin"}``); missing ones read ``?``.
    """
    game = game_of(game)
    rows = [(f"win_rate.seat{s}", "win_rate", f"win rate, seat {s + 1}") for s in range(players)]
    if len(set(lineup)) > 1:
        rows += [(f"win_rate.{n}", "win_rate", f"win rate, {n} (per seat it holds)") for n in sorted(set(lineup))]
    rows += [(f.name, f.kind, f.label.format_map(_Row(first or {}))) for f in game.gate.figures]
    rows.append(("rounds", "rounds", "rounds per game"))
    if game.gate.stalls:
        rows.append(("stall_rate", "stall_rate", "stalled games (the stall cap ended them)"))
    return rows


def deal_values(seats, games, game=None):
    """Per cell: ``(seeds, per_deal, figures, per_game)``, every figure's per-deal value keyed by deal seed.

    ``seeds`` is the setup seed of each deal (the same for every seat rotation of the deal: what the
    runner derives from the run seed, the cell and the deal index), ``per_deal`` a DataFrame with
    one row per deal (in the order of ``seeds``) and one column per figure, ``figures`` the list of
    ``(figure, kind, label)``. Two runs that played the same deals can be compared deal by deal.
    ``game``: the game of the tables (a name of :mod:`simulator.games`; ``None``: the default game).
    """
    out = {}
    for key, g in games.groupby("cell_key", sort=False):
        s = seats[seats["cell_key"] == key]
        per_game, figures = _cell_frame(s, g, game)
        per_deal = per_game.groupby("deal").mean()
        seeds = g.groupby("deal")["seed"].first().reindex(per_deal.index).to_numpy(dtype=np.int64)
        out[key] = (seeds, per_deal, figures, per_game)
    return out


def figure_table(seats, games, values=None, game=None):
    """One row per (cell, figure): ``cell_key, figure, kind, label, n, sum, sumsq, count, trials``.

    ``n``, ``sum``, ``sumsq`` are the moments of the per-deal values (see the module docstring);
    ``count`` / ``trials`` the plain successes and trials of a rate (win rates: wins over games
    times seats held), NaN for other kinds. ``values``: the :func:`deal_values` of the same
    tables, when already computed; ``game``: the tables' game (``None``: the default game).
    """
    values = deal_values(seats, games, game) if values is None else values
    rates = {k for k, v in kinds_of(game).items() if v.rate}
    rows = []
    for key, g in games.groupby("cell_key", sort=False):
        _, per_deal, figures, per_game = values[key]
        for col, kind, label in figures:
            y = per_deal[col].to_numpy(dtype=float)
            count = trials = math.nan
            if kind == "win_rate":
                held = 1 if ".seat" in col else None
                if held is None:
                    name = col.split(".", 1)[1]
                    held = [x.strip() for x in str(g["lineup"].iloc[0]).split(",")].count(name)
                count = float(np.rint(per_game[col].to_numpy() * held).sum())
                trials = float(len(per_game) * held)
            elif kind in rates:  # a share of games (build rate, stalled games, ...)
                count = float(per_game[col].sum())
                trials = float(len(per_game))
            rows.append((key, col, kind, label, len(y), float(y.sum()), float(np.square(y).sum()), count, trials))
    return pd.DataFrame(rows, columns=list(FIGURE_COLUMNS))


def merge_figures(*tables):
    """Add up the moments of several figure tables of the same cells (rounds of independent deals)."""
    tables = [t for t in tables if t is not None and len(t)]
    if not tables:
        return pd.DataFrame(columns=list(FIGURE_COLUMNS))
    both = pd.concat(tables, ignore_index=True)
    order = both.drop_duplicates(["cell_key", "figure"])[["cell_key", "figure", "kind", "label"]]
    sums = both.groupby(["cell_key", "figure"], sort=False)[["n", "sum", "sumsq", "count", "trials"]].sum(min_count=1)
    return order.merge(sums.reset_index(), on=["cell_key", "figure"], how="left")[list(FIGURE_COLUMNS)]


# =========================================================================== identity of a run


def design_of(manifest):
    """The scenario's design: its effective document without run seed and game count.

    Two runs with the same design play the same cells with the same settings and overrides, on
    other deals and possibly more of them.
    """
    text = manifest.get("scenario", {}).get("text", "")
    try:
        doc = tomllib.loads(text) if text else {}
    except tomllib.TOMLDecodeError:
        doc = {}
    return {k: v for k, v in doc.items() if k not in SAMPLING_KEYS}


def design_sha256(manifest):
    """SHA-256 of :func:`design_of` (canonical JSON)."""
    blob = json.dumps(design_of(manifest), sort_keys=True, default=str).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def _data_entries(manifest):
    """``[(key, entry)]`` of a run's data files: ``board``, ``instrument Horns``, ``strategy greedy``,
    or for another game its own files as its manifest names them (``board snow``, ``rules``)."""
    data = manifest.get("data_files", {}) or {}
    out = []
    for group, label in game_of(manifest.get("game")).gate.data_groups:  # the game's (GateSpec.data_groups)
        files = data.get(group) or {}
        if "path" in files or "sha256" in files:  # a group of one file
            out.append((group, files))
            continue
        for name, entry in files.items():
            out.append((f"{label}{name}", entry))
    return out


def data_hashes(manifest):
    """``{"board": sha, "instrument Horns": sha, "strategy greedy": sha, ...}`` of a run's data files."""
    return {k: e.get("sha256", e.get("coef_sha256")) for k, e in _data_entries(manifest)}


def judge_keys(game, keys):
    """The keys of ``keys`` (of :func:`data_hashes`) that name the judge's data rather than the game's
    (``GateSpec.judge_groups``: a learned leaf a search plays)."""
    prefixes = tuple(label for group, label in game.gate.data_groups if group in game.gate.judge_groups and label)
    return [k for k in keys if prefixes and k.startswith(prefixes)]


def project_path(path):
    """A path relative to the project folder when it lies inside it (so a committed file names no machine)."""
    if path is None:
        return None
    p = Path(path)
    try:
        return p.resolve().relative_to(PROJECT_ROOT).as_posix()
    except (ValueError, OSError):
        return str(path)


def data_paths(manifest):
    """Same keys as :func:`data_hashes`, the files' paths (for messages)."""
    return {k: project_path(e.get("path")) for k, e in _data_entries(manifest)}


def run_identity(manifest):
    """What a baseline (or a regression report) records about the run it read."""
    sc = manifest.get("scenario", {})
    settings = manifest.get("settings", {})
    game = game_of(manifest.get("game"))
    if game.gate.run_settings:  # the settings the game names its runs by (GateSpec.run_settings)
        kept = {k: settings.get(k) for k in game.gate.run_settings}
    else:  # the scenario's design (variants with their switches, boards, ...) and its --set changes
        sets = [x for x in settings.get("set", []) if str(x).split("=", 1)[0].strip() not in SAMPLING_KEYS]
        kept = {**design_of(manifest), "set": sets}
    return {
        "game": game.name,
        "scenario": {
            "name": sc.get("name"),
            "file": project_path(sc.get("file")),
            "sha256": sc.get("sha256"),
            "design_sha256": design_sha256(manifest),
        },
        "run_seed": manifest.get("run_seed"),
        "settings": kept,
        "data_files": data_hashes(manifest),
        "data_paths": data_paths(manifest),
        "code": {k: manifest.get("code", {}).get(k) for k in ("package", "version", "kernel_sha256")},
        "result_format": manifest.get("format_version"),
    }


# =========================================================================== the baseline file


def _cells_of(manifest, games):
    played = games.groupby("cell_key", sort=False).agg(games=("game", "size"), deals=("deal", "nunique"))
    cells = []
    for c in manifest.get("cells", []):
        key = c["cell_key"]
        if key not in played.index:
            continue
        cells.append(
            {
                "cell": c.get("cell"),
                "cell_key": key,
                "players": c.get("players"),
                **{k: c[k] for k in ("instruments", "board", "variant") if k in c},
                "lineup": c.get("lineup"),
                "games": int(played.loc[key, "games"]),
                "deals": int(played.loc[key, "deals"]),
            }
        )
    return cells


def build_baseline(seats, games, manifest, source=None):
    """The baseline document (a dict ready for JSON) of a run's tables and manifest."""
    game = manifest.get("game")
    values = deal_values(seats, games, game)
    table = figure_table(seats, games, values, game)
    cells = _cells_of(manifest, games)
    by_cell = {key: part for key, part in table.groupby("cell_key", sort=False)}
    for c in cells:
        part = by_cell.get(c["cell_key"])
        seeds, per_deal, _, _ = values[c["cell_key"]]
        c["deal_seeds"] = [int(x) for x in seeds]
        figs = {}
        for r in part.itertuples(index=False):
            entry = {"kind": r.kind, "label": r.label, "n": int(r.n), "sum": r.sum, "sumsq": r.sumsq}
            entry["mean"] = r.sum / r.n if r.n else None
            if not math.isnan(r.count):
                entry["count"] = int(r.count)
                entry["trials"] = int(r.trials)
            entry["values"] = [_compact(v) for v in per_deal[r.figure].to_numpy(dtype=float)]
            figs[r.figure] = entry
        c["figures"] = figs
    return {
        "format": BASELINE_FORMAT,
        "version": BASELINE_VERSION,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "source": project_path(source) if source is not None else None,
        "unit": "deal",
        **run_identity(manifest),
        "cells": cells,
    }


def _compact(v):
    """A per-deal value for the file: an integer when it is one, else rounded to 9 significant digits."""
    if float(v).is_integer():
        return int(v)
    return float(f"{v:.9g}")


def write_baseline(doc, path):
    """Write a baseline document as JSON (parent folders are created)."""
    from scenarios.results import write_atomic

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BaselineError(path.parent, "", f"cannot create the folder: {exc.strerror or exc}") from None
    # Whole or not at all (a read-only or full folder names the file and leaves the old one as it was).
    write_atomic(path, (json.dumps(doc, indent=1) + "\n").encode("utf-8"))


def read_baseline(path):
    """A baseline document read back and checked (:class:`BaselineError` naming the file otherwise)."""
    path = Path(path)
    if not path.is_file():
        raise BaselineError(path, "", "baseline file not found (write one with `ssb baseline RESULTS_DIR -o FILE`)")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BaselineError(path, "", f"unreadable baseline: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != BASELINE_FORMAT:
        raise BaselineError(path, "format", f"not a balance baseline (expected format '{BASELINE_FORMAT}')")
    if doc.get("version") != BASELINE_VERSION:
        raise BaselineError(
            path, "version", f"baseline version {doc.get('version')}, this code reads version {BASELINE_VERSION}"
        )
    if doc.get("result_format") not in (None, FORMAT_VERSION):
        raise BaselineError(
            path,
            "result_format",
            f"made from result format {doc.get('result_format')}, this code writes format {FORMAT_VERSION}: "
            "make the baseline again",
        )
    try:
        kinds = kinds_of(registry.get(doc.get("game"), path, "game"))  # no game recorded: the registry's default
    except DataError as exc:
        raise BaselineError(path, "game", exc.reason) from None
    cells = doc.get("cells")
    if not isinstance(cells, list) or not cells:
        raise BaselineError(path, "cells", "the baseline holds no cells")
    for i, c in enumerate(cells):
        _check_cell(path, i, c, kinds)
    return doc


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x):
    return (isinstance(x, int | float) and not isinstance(x, bool)) and math.isfinite(x)


def _check_cell(path, i, c, kinds=None):
    """A cell of a baseline checked against the file's schema (:class:`BaselineError` otherwise)."""
    where = f"cells.{i}"
    if not isinstance(c, dict) or not isinstance(c.get("cell_key"), str) or not isinstance(c.get("figures"), dict):
        raise BaselineError(path, where, "expected a cell with 'cell_key' (text) and 'figures' (a table)")
    seeds = c.get("deal_seeds")
    if seeds is not None:
        if not isinstance(seeds, list) or not seeds or not all(_is_int(x) for x in seeds):
            raise BaselineError(path, f"{where}.deal_seeds", "expected a non-empty list of integer deal seeds")
        if len(set(seeds)) != len(seeds):
            raise BaselineError(path, f"{where}.deal_seeds", "a deal seed is listed twice")
    if not c["figures"]:
        raise BaselineError(path, f"{where}.figures", "the cell holds no figures")
    kinds = kinds_of() if kinds is None else kinds
    rates = {k for k, v in kinds.items() if v.rate}
    for fid, f in c["figures"].items():
        key = f"{where}.figures.{fid}"
        if not isinstance(f, dict):
            raise BaselineError(path, key, "expected a table with 'kind', 'n', 'sum' and 'sumsq'")
        for k in ("kind", "n", "sum", "sumsq"):
            if k not in f:
                raise BaselineError(path, f"{key}.{k}", "missing (a figure needs 'kind', 'n', 'sum' and 'sumsq')")
        if f["kind"] not in kinds:
            raise BaselineError(
                path, f"{key}.kind", f"{f['kind']!r} is not a kind of figure of this game ({', '.join(kinds)})"
            )
        n = f["n"]
        if not _is_int(n):
            raise BaselineError(path, f"{key}.n", f"{n!r} is not a whole number of deals")
        if n < 1:
            raise BaselineError(path, f"{key}.n", f"{n} deals: a figure needs at least 1")
        for k in ("sum", "sumsq"):
            if not _is_number(f[k]):
                raise BaselineError(path, f"{key}.{k}", f"{f[k]!r} is not a finite number")
        if f["sumsq"] < 0:
            raise BaselineError(path, f"{key}.sumsq", f"{f['sumsq']} is negative: a sum of squares cannot be")
        spread = f["sumsq"] - f["sum"] ** 2 / n
        if spread < -1e-9 * max(1.0, abs(f["sumsq"])):
            raise BaselineError(
                path,
                f"{key}.sumsq",
                f"{f['sumsq']} is below sum**2 / n = {f['sum'] ** 2 / n:.6g}: the variance would be negative",
            )
        if f["kind"] in rates and not (-1e-9 <= f["sum"] / n <= 1 + 1e-9):
            raise BaselineError(path, f"{key}.sum", f"mean {f['sum'] / n:.6g} of a rate outside 0 .. 1")
        if "count" in f or "trials" in f:
            cnt, trials = f.get("count"), f.get("trials")
            if not (_is_int(cnt) and _is_int(trials)) or trials < 1 or not 0 <= cnt <= trials:
                raise BaselineError(
                    path, f"{key}.count", f"count {cnt!r} of trials {trials!r}: expected 0 <= count <= trials, trials >= 1"
                )
        if "values" in f:
            v = f["values"]
            if seeds is None:
                raise BaselineError(path, f"{key}.values", "per-deal values without the cell's deal_seeds")
            if not isinstance(v, list) or len(v) != len(seeds) or not all(_is_number(x) for x in v):
                raise BaselineError(
                    path, f"{key}.values", f"expected {len(seeds)} finite numbers, one per deal seed of the cell"
                )
            if len(v) != n:
                raise BaselineError(path, f"{key}.n", f"{n} deals, but {len(v)} per-deal values")


def baseline_values(doc):
    """Per cell key: ``(seeds, {figure: values})`` of the per-deal values a baseline holds (may be empty)."""
    out = {}
    for c in doc["cells"]:
        seeds = c.get("deal_seeds")
        vals = {fid: f["values"] for fid, f in c["figures"].items() if "values" in f}
        if seeds is not None and vals:
            out[c["cell_key"]] = (np.asarray(seeds, dtype=np.int64), {k: np.asarray(v, dtype=float) for k, v in vals.items()})
    return out


def baseline_figures(doc):
    """The figure table (as :func:`figure_table`) held by a baseline document."""
    rows = []
    for c in doc["cells"]:
        for fid, f in c["figures"].items():
            rows.append(
                (
                    c["cell_key"],
                    fid,
                    f["kind"],
                    f.get("label", fid),
                    int(f["n"]),
                    float(f["sum"]),
                    float(f["sumsq"]),
                    float(f.get("count", math.nan)),
                    float(f.get("trials", math.nan)),
                )
            )
    return pd.DataFrame(rows, columns=list(FIGURE_COLUMNS))
