"""Shuffle and Swing's score-source charts: where the points come from per seat, and what wins
games (the winners' points by source), each source named by the instrument that holds its department."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from reports.charts import OKABE_ITO, Chart, figure_grid, to_png
from reports.frames import DEPTS
from reports.sections.shuffle_swing.sources import SOURCES

# Score sources as charted: the three penalties are summed into one (they are small and negative).
CHART_SOURCES = [
    ("inspector", ["inspector"], OKABE_ITO["blue"], None),
    ("objective black", ["objective_black"], OKABE_ITO["bluish_green"], None),
    ("objective orange", ["objective_orange"], OKABE_ITO["bluish_green"], "//"),
    ("objective gray", ["objective_gray"], OKABE_ITO["bluish_green"], ".."),
    ("brag black", ["brag_black"], OKABE_ITO["orange"], None),
    ("brag orange", ["brag_orange"], OKABE_ITO["orange"], "//"),
    ("brag gray", ["brag_gray"], OKABE_ITO["orange"], ".."),
    ("penalties", [f"penalty_{d}" for d in DEPTS], OKABE_ITO["vermillion"], None),
]


def source_labels(frame):
    """Chart sources named by instrument: ``Violin objectives`` when one instrument holds the
    department in ``frame`` (a table with an ``instruments`` column, black/orange/gray), else
    ``black instrument objectives``."""
    names = {}
    if "instruments" in frame and len(frame):
        sets = frame["instruments"].astype(str).str.split("/")
        for k, d in enumerate(DEPTS):
            found = {x[k] for x in sets if len(x) == 3}
            names[d] = found.pop() if len(found) == 1 else f"{d} instrument"
    out = []
    for label, cols, colour, hatch in CHART_SOURCES:
        kind, _, dept = label.partition(" ")
        if dept in DEPTS:
            who = names.get(dept, f"{dept} instrument")
            label = f"{who} objectives" if kind == "objective" else f"{who} end award"
        elif label == "penalties":
            label = "unbuilt penalties"
        out.append((label, cols, colour, hatch))
    return out


def source_bars(by_seat):
    """Stacked mean points per seat by source, one panel per player count (sets pooled by seat rows)."""
    weighted = by_seat.copy()
    for src in SOURCES:
        weighted[src] = weighted[src] * weighted["n"]
    pooled = weighted.groupby(["players", "seat"], as_index=False)[[*SOURCES, "n"]].sum()
    for src in SOURCES:
        pooled[src] = pooled[src] / pooled["n"]
    counts = sorted(pooled["players"].unique())
    fig, axes = figure_grid(len(counts))
    for ax, n in zip(axes, counts, strict=True):
        p = pooled[pooled["players"] == n]
        x = p["seat"].to_numpy()
        pos = np.zeros(len(p))
        for label, cols, colour, hatch in source_labels(by_seat):
            v = p[cols].sum(axis=1).to_numpy()
            if label == "unbuilt penalties":
                ax.bar(x, v, color=colour, label=label, width=0.6)
                continue
            ax.bar(x, v, bottom=pos, color=colour, hatch=hatch, edgecolor="white", label=label, width=0.6)
            pos += v
        ax.axhline(0, color=OKABE_ITO["black"], lw=0.8)
        ax.set_xticks(x, [str(int(v) + 1) for v in x])
        ax.set_xlabel("seat (1 plays first)")
        ax.set_ylabel("mean points")
        ax.set_title(f"{n} players", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="outside right upper", frameon=False)
    title = "Where do the points come from? Mean points per seat by score source"
    fig.suptitle(title)
    return Chart("score_sources", title, to_png(fig))


def winner_share_bars(winners):
    """The winners' points split by source: one horizontal 100 % bar per player count (sets pooled)."""
    w = winners.copy()
    shares = [f"share_{s}" for s in SOURCES]
    for c in shares:
        w[c] = w[c] * w["winner_score"] * w["winners"]
    w["total"] = w["winner_score"] * w["winners"]
    pooled = w.groupby("players")[[*shares, "total"]].sum()
    for c in shares:
        pooled[c] = pooled[c] / pooled["total"]
    fig = Figure(figsize=(9, 1.6 + 0.6 * len(pooled)), layout="constrained")
    ax = fig.subplots()
    y = np.arange(len(pooled))
    left = np.zeros(len(pooled))
    for label, cols, colour, hatch in source_labels(winners):
        v = 100 * pooled[[f"share_{c}" for c in cols]].sum(axis=1).to_numpy()
        if label == "unbuilt penalties":
            ax.barh(y, v, color=colour, label=label, height=0.6)
            continue
        ax.barh(y, v, left=left, color=colour, hatch=hatch, edgecolor="white", label=label, height=0.6)
        left += v
    ax.set_yticks(y, [f"{n} players" for n in pooled.index])
    ax.set_xlabel("% of the winners' points")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    title = "What wins games? Share of the winner's points from each source"
    fig.suptitle(title)
    return Chart("winner_sources", title, to_png(fig))
