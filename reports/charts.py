"""Charts of the report sections: matplotlib figures rendered to PNG bytes (Agg, no pyplot state).

Every chart's title is the question it answers. Colours come from the Okabe-Ito palette, which
stays distinguishable under the common colour-vision deficiencies; heatmaps use ``cividis``.
When a run holds many instrument sets, per-seat and per-strategy charts pool them per player count
(the tables keep every setting).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from stats import tests as stats
from reports.frames import DEPTS
from stats.moments import Histogram

# Okabe & Ito (2008), "Color Universal Design".
OKABE_ITO = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "black": "#000000",
}
PALETTE = [
    OKABE_ITO[k] for k in ("blue", "orange", "bluish_green", "vermillion", "reddish_purple", "sky_blue", "yellow")
]
PALETTE.append(OKABE_ITO["black"])
HEATMAP = "cividis"


@dataclass
class Chart:
    """One picture: file name stem, the question it answers (its title) and its PNG bytes."""

    name: str
    title: str
    png: bytes


def to_png(fig, dpi=100):
    """Render a figure to PNG bytes (no software tag, so reruns give the same file)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def figure_grid(npanels, width=4.2, height=3.4, ncols=None):
    ncols = ncols or min(npanels, 3)
    nrows = int(np.ceil(npanels / ncols))
    # At least 7 inches wide so the title (the question) fits above a single panel.
    fig = Figure(figsize=(max(width * ncols, 7.0), height * nrows + 0.6), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[npanels:]:
        ax.set_visible(False)
    return fig, axes[:npanels]


def _errbar(lo, hi, mid):
    return np.vstack([np.clip(mid - lo, 0, None), np.clip(hi - mid, 0, None)])


def seat_win_rates(rates, margin, confidence, settings_word="instrument sets", label="instruments"):
    """Each seat's win rate with intervals, one panel per player count, one bar group per judge level.

    Mirror cells show the seats' win rates, mixed lineups the model's win rate among equal players;
    instrument sets (``settings_word``: what a setting is, in another game e.g. "settings (board /
    variant)", whose label column is ``label``) of a player count are averaged for the picture only
    (the verdicts never pool).
    """
    r = rates[rates["seat_rate"].notna()].copy()
    if r.empty:
        r = rates.copy()
        r["seat_rate"], r["seat_lo"], r["seat_hi"] = r["win_rate"], r["win_lo"], r["win_hi"]
    pooled = r.groupby(["players", "level", "seat"], as_index=False, sort=False)[["seat_rate", "seat_lo", "seat_hi", "games"]].mean()
    counts = sorted(pooled["players"].unique())
    fig, axes = figure_grid(len(counts))
    # Settings behind one judge's bars (a lineup label may be part of a setting's name: count per judge).
    nsets = rates.groupby(["players", "level"])[label].nunique().groupby(level="players").max()
    # Vermillion is kept for the seats found outside the margin.
    palette = [OKABE_ITO[k] for k in ("blue", "orange", "bluish_green", "reddish_purple", "sky_blue", "yellow")]
    marked = False

    def judge_name(lv):
        # "greedy x4" -> "greedy in every seat": one legend entry and colour per judge over the panels.
        head, sep, tail = str(lv).rpartition(" x")
        return f"{head} in every seat" if sep and tail.isdigit() else str(lv)

    colour_of = {}
    for ax, n in zip(axes, counts, strict=True):
        p = pooled[pooled["players"] == n]
        share = 1.0 / n
        ax.axhspan(
            100 * (share - margin),
            100 * (share + margin),
            color=OKABE_ITO["sky_blue"],
            alpha=0.25,
            label=f"fair share ± {100 * margin:.1f} percentage points (the margin)",
        )
        ax.axhline(100 * share, color=OKABE_ITO["black"], lw=1, ls="--")
        one_set = int(nsets.get(n, 1)) == 1
        levels = list(dict.fromkeys(p["level"]))
        width = 0.8 / max(len(levels), 1)
        for k, lv in enumerate(levels):
            q = p[p["level"] == lv]
            x = q["seat"].to_numpy() - 0.4 + width * (k + 0.5)
            edges, hatches = None, None
            if one_set and "outside_p_holm" in rates:
                # One setting in the panel: mark the seats this judge's seat test finds outside the
                # margin (the cell's own Holm family; mixed lineups' model verdicts are per cell only).
                cell = rates[(rates["players"] == n) & (rates["level"] == lv)]
                flagged = set(cell.loc[cell["outside_p_holm"] < 1 - confidence, "seat"])
                edges = [OKABE_ITO["vermillion"] if s in flagged else "none" for s in q["seat"]]
                hatches = ["//" if s in flagged else None for s in q["seat"]]
                marked = marked or bool(flagged)
            name = judge_name(lv)
            colour = colour_of.setdefault(name, palette[len(colour_of) % len(palette)])
            bars = ax.bar(x, 100 * q["seat_rate"], color=colour, width=width * 0.9, label=name)
            if edges is not None:
                for bar, e, h in zip(bars, edges, hatches, strict=True):
                    if h:
                        bar.set_edgecolor(e)
                        bar.set_linewidth(2)
                        bar.set_hatch(h)
            ax.errorbar(
                x,
                100 * q["seat_rate"],
                yerr=100 * _errbar(q["seat_lo"], q["seat_hi"], q["seat_rate"]),
                fmt="none",
                ecolor=OKABE_ITO["black"],
                capsize=3,
            )
        ax.set_xticks(range(n), [str(x + 1) for x in range(n)])
        ax.set_xlabel("seat (1 plays first)")
        ax.set_ylabel("win rate (%)")
        sets = int(nsets.get(n, 1))
        pooled_note = f", mean of {sets} {settings_word}" if sets > 1 else ""
        ax.set_title(f"{n} players{pooled_note}", fontsize=10)
    # The legend sits below the panels, off the bars.
    seen = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(lab, h)
    if marked:
        seen["seat outside the margin (unfair)"] = Patch(
            facecolor="white", edgecolor=OKABE_ITO["vermillion"], hatch="//", linewidth=2
        )
    fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncols=min(len(seen), 4), fontsize=8,
               frameon=False)
    # A zone run's seat intervals are its verdicts' own (reports.sequential_verdicts): said so.
    kind = (f"each seat's interval its verdict's own, each end a {100 * confidence:.0f}% bound or more"
            if rates.attrs.get("verdict_intervals") else f"{100 * confidence:.0f}% intervals")
    title = f"Does the turn order decide who wins? Win rate per seat and judge ({kind})"
    fig.suptitle(title)
    return Chart("seat_win_rates", title, to_png(fig))


def strategy_win_rates(rates, confidence):
    """Win rate per strategy (pooled over instrument sets) with intervals, one panel per player count."""
    pooled = rates.groupby(["players", "strategy"], as_index=False)[["wins", "seats_played", "effective_n"]].sum()
    pooled["rate"] = pooled["wins"] / pooled["seats_played"]
    eff = pooled["effective_n"]
    pooled["lo"], pooled["hi"] = stats.wilson(pooled["rate"] * eff, eff, confidence)
    counts = sorted(pooled["players"].unique())
    names = sorted(pooled["strategy"].unique())
    colour = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}
    fig, axes = figure_grid(len(counts))
    for ax, n in zip(axes, counts, strict=True):
        p = pooled[pooled["players"] == n].reset_index(drop=True)
        x = np.arange(len(p))
        ax.axhline(100 / n, color=OKABE_ITO["black"], lw=1, ls="--", label="fair share 1/N")
        ax.bar(x, 100 * p["rate"], color=[colour[s] for s in p["strategy"]], width=0.6)
        ax.errorbar(
            x,
            100 * p["rate"],
            yerr=100 * _errbar(p["lo"], p["hi"], p["rate"]),
            fmt="none",
            ecolor=OKABE_ITO["black"],
            capsize=4,
        )
        ax.set_xticks(x, p["strategy"], rotation=20)
        ax.set_ylabel("win rate per seat played (%)")
        ax.set_title(f"{n} players", fontsize=10)
        ax.legend(fontsize=8)
    title = f"Which strategy wins most? Win rate per strategy ({100 * confidence:.0f}% Wilson intervals)"
    fig.suptitle(title)
    return Chart("strategy_win_rates", title, to_png(fig))


def head_to_head(h2h):
    """Head-to-head shares as a heatmap per player count (instrument sets pooled)."""
    pooled = h2h.groupby(["players", "strategy", "opponent"], as_index=False)[["ahead", "games"]].sum()
    pooled["share"] = pooled["ahead"] / pooled["games"]
    counts = sorted(pooled["players"].unique())
    fig, axes = figure_grid(len(counts), width=4.6, height=4.0)
    for ax, n in zip(axes, counts, strict=True):
        m = pooled[pooled["players"] == n].pivot(index="strategy", columns="opponent", values="share")
        names = sorted(set(m.index) | set(m.columns))
        m = m.reindex(index=names, columns=names)
        im = ax.imshow(100 * m.to_numpy(dtype=float), cmap=HEATMAP, vmin=0, vmax=100)
        ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel("opponent")
        ax.set_ylabel("strategy")
        for i in range(len(names)):
            for j in range(len(names)):
                v = m.iat[i, j]
                if not pd.isna(v):
                    ax.text(
                        j,
                        i,
                        f"{100 * v:.0f}",
                        ha="center",
                        va="center",
                        color="white" if v < 0.6 else "black",
                        fontsize=9,
                    )
        ax.set_title(f"{n} players", fontsize=10)
        fig.colorbar(im, ax=ax, shrink=0.8, label="% of shared games ahead")
    title = "Who beats whom? Share of shared games where the row strategy finished ahead"
    fig.suptitle(title)
    return Chart("head_to_head", title, to_png(fig))


def ratings(table, confidence, limit=6, label="instruments"):
    """Bradley-Terry strengths with intervals, one panel per setting (at most ``limit`` panels; the
    setting named by its ``label`` column)."""
    settings = table[["players", label]].drop_duplicates().head(limit)
    fig, axes = figure_grid(len(settings))
    for ax, (_, key) in zip(axes, settings.iterrows(), strict=True):
        p = table[(table["players"] == key["players"]) & (table[label] == key[label])]
        p = p.sort_values("strength").reset_index(drop=True)
        y = np.arange(len(p))
        ax.axvline(0, color=OKABE_ITO["black"], lw=1, ls="--")
        ax.errorbar(
            p["strength"],
            y,
            xerr=_errbar(p["strength_lo"], p["strength_hi"], p["strength"]),
            fmt="o",
            color=OKABE_ITO["blue"],
            ecolor=OKABE_ITO["black"],
            capsize=4,
        )
        ax.set_yticks(y, p["strategy"])
        ax.set_xlabel("Bradley-Terry strength (log odds vs average)")
        ax.set_title(f"{key['players']} players, {key[label]}", fontsize=9)
    title = f"How strong is each strategy? Rating with {100 * confidence:.0f}% bootstrap intervals"
    fig.suptitle(title)
    return Chart("strategy_ratings", title, to_png(fig))


def unbuilt_rates(inst_stats, confidence):
    """How often each instrument stays unbuilt, per player count, with intervals."""
    fig, axes = figure_grid(len(DEPTS))
    counts = sorted(inst_stats["players"].unique())
    colour = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(counts)}
    width = 0.8 / max(len(counts), 1)
    top = 100 * float(inst_stats["unbuilt_hi"].max()) if len(inst_stats) else 100.0
    for ax, dept in zip(axes, DEPTS, strict=True):
        ax.set_ylim(0, min(100.0, 1.08 * top) or 1.0)
        p = inst_stats[inst_stats["department"] == dept]
        names = sorted(p["instrument"].unique())
        x = np.arange(len(names))
        for k, n in enumerate(counts):
            q = p[p["players"] == n].set_index("instrument").reindex(names)
            ax.bar(x + k * width, 100 * q["unbuilt_rate"], width=width, color=colour[n], label=f"{n} players")
            ax.errorbar(
                x + k * width,
                100 * q["unbuilt_rate"],
                yerr=100 * _errbar(q["unbuilt_lo"], q["unbuilt_hi"], q["unbuilt_rate"]),
                fmt="none",
                ecolor=OKABE_ITO["black"],
                capsize=3,
            )
        ax.set_xticks(x + width * (len(counts) - 1) / 2, names, rotation=20)
        ax.set_ylabel("% of games unbuilt")
        ax.set_title(f"{dept} department", fontsize=10)
    axes[0].legend(fontsize=8)
    title = f"Which instruments are left unbuilt? Share of games ({100 * confidence:.0f}% Wilson intervals)"
    fig.suptitle(title)
    return Chart("instrument_unbuilt", title, to_png(fig))


def instrument_heatmap(inst_stats, value, label, question, name, fmt="{:.1f}", scale=1.0):
    """Heatmap of instrument x player count of one column, a panel per department."""
    fig, axes = figure_grid(len(DEPTS), width=3.6, height=3.2)
    counts = sorted(inst_stats["players"].unique())
    lo = scale * inst_stats[value].min()
    hi = scale * inst_stats[value].max()
    im = None
    for ax, dept in zip(axes, DEPTS, strict=True):
        p = inst_stats[inst_stats["department"] == dept]
        m = p.pivot(index="instrument", columns="players", values=value).reindex(columns=counts) * scale
        im = ax.imshow(m.to_numpy(dtype=float), cmap=HEATMAP, vmin=lo, vmax=hi, aspect="auto")
        ax.set_xticks(range(len(counts)), [str(c) for c in counts])
        ax.set_yticks(range(len(m.index)), m.index)
        ax.set_xlabel("players")
        mid = (lo + hi) / 2
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                v = m.iat[i, j]
                if not pd.isna(v):
                    ax.text(
                        j, i, fmt.format(v), ha="center", va="center", fontsize=8, color="white" if v < mid else "black"
                    )
        ax.set_title(f"{dept} department", fontsize=10)
    if im is not None:
        fig.colorbar(im, ax=list(axes), shrink=0.8, label=label)
    fig.suptitle(question)
    return Chart(name, question, to_png(fig))


def _weights(per_game):
    """Games per row: a per-game table's rows count one each, a table of counts its ``count``."""
    if "count" in per_game:
        return per_game["count"].to_numpy(dtype=float)
    return np.ones(len(per_game))


def rounds_histogram(per_game):
    """Distribution of rounds per game, one outline per player count."""
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    ax = fig.subplots()
    counts = sorted(per_game["players"].unique())
    lo, hi = per_game["rounds"].min(), per_game["rounds"].max()
    bins = np.arange(lo, hi + 2) - 0.5
    for k, n in enumerate(counts):
        part = per_game[per_game["players"] == n]
        r, w = part["rounds"], _weights(part)
        ax.hist(r, bins=bins, weights=w / max(w.sum(), 1), histtype="step", lw=2, color=PALETTE[k % len(PALETTE)],
                label=f"{n} players")
    ax.set_xlabel("rounds (whole rounds; every game shown)")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=8)
    title = "How long do games last? Rounds per game"
    fig.suptitle(title)
    return Chart("rounds", title, to_png(fig))


def margin_histogram(per_game):
    """Distribution of the winner's margin over the runner-up, per player count.

    Margins are whole points, so the bins are whole points; the rare long tail beyond the 99th
    percentile is left out (and said so) rather than folded into a false spike in the last bin.
    """
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    ax = fig.subplots()
    counts = sorted(per_game["players"].unique())
    known = per_game[per_game["winner_margin"].notna()]
    m, mw = known["winner_margin"].to_numpy(dtype=float), _weights(known)
    hist = Histogram()
    for v, c in zip(m, mw, strict=True):
        hist.counts[v] = hist.counts.get(v, 0) + int(c)
    top = int(np.ceil(hist.quantile(0.99))) if len(m) else 1
    bins = np.arange(0, max(top, 1) + 2) - 0.5
    beyond = float(mw[m > top].sum() / mw.sum()) if len(m) else 0.0
    for k, n in enumerate(counts):
        part = known[known["players"] == n]
        v, w = part["winner_margin"], _weights(part)
        ax.hist(v, bins=bins, weights=w / max(w.sum(), 1), histtype="step", lw=2, color=PALETTE[k % len(PALETTE)],
                label=f"{n} players")
    note = f" ({100 * beyond:.1f}% of games beyond {top} points not shown)" if beyond > 0 else ""
    ax.set_xlabel(f"winner's points minus runner-up's{note}")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=8, loc="upper right", frameon=False)
    title = "How close are the finishes? Winner's margin over the runner-up"
    fig.suptitle(title)
    return Chart("winner_margin", title, to_png(fig))


# --------------------------------------------------------------------------- instruments out of line

VERDICT_COLOURS = {
    "out of line": OKABE_ITO["vermillion"],
    "unclear": "#8c8c8c",
    "in line": OKABE_ITO["blue"],
}


def instrument_effects(effects, measures, confidence):
    """Each instrument's effect against its department's reference, one panel per measure.

    ``effects`` is the effect table of :mod:`reports.instrument_verdicts`; per instrument and player
    count the seat (or strategy) moved most stands for its measure. Points are coloured by verdict;
    the shaded band is the margin, the bars the simultaneous intervals.
    """
    e = effects.copy()
    e["_abs"] = e["effect"].abs()
    if "lineup" not in e:
        e["lineup"] = ""
    e = e.sort_values("_abs", ascending=False).drop_duplicates(
        ["department", "instrument", "players", "lineup", "measure"]
    )
    keys = [m for m in measures if m in set(e["measure"])]
    several = e["players"].nunique() > 1
    e["label"] = e["instrument"] + ((" · " + e["players"].astype(str) + "p") if several else "")
    if e["lineup"].nunique() > 1:  # one row per judge: lineups are never pooled
        from reports.instrument_verdicts import judge_label

        e["label"] += " · " + e["lineup"].map(judge_label)
    order = e[["department", "instrument", "players", "label"]].drop_duplicates()
    order["_d"] = order["department"].map({d: i for i, d in enumerate(DEPTS)})
    labels = order.sort_values(["_d", "instrument", "players"], ascending=False)["label"].tolist()
    ypos = {lab: i for i, lab in enumerate(labels)}
    dept_of = dict(zip(order["label"], order["department"], strict=True))
    ncols = min(len(keys), 3)
    fig, axes = figure_grid(len(keys), width=3.9, height=0.75 + 0.28 * len(labels), ncols=ncols)
    for ax, key in zip(axes, keys, strict=True):
        label, unit, _, is_rate = measures[key]
        p = e[e["measure"] == key]
        scale = 100.0 if is_rate else 1.0
        m = scale * float(p["margin"].iloc[0])
        ax.axvspan(-m, m, color=OKABE_ITO["sky_blue"], alpha=0.25, lw=0)
        ax.axvline(0, color=OKABE_ITO["black"], lw=0.8)
        for verdict, colour in VERDICT_COLOURS.items():
            q = p[p["verdict"] == verdict]
            if q.empty:
                continue
            y = q["label"].map(ypos).to_numpy()
            x = scale * q["effect"].to_numpy()
            err = scale * _errbar(q["lo"].to_numpy(), q["hi"].to_numpy(), q["effect"].to_numpy())
            ax.errorbar(x, y, xerr=err, fmt="o", color=colour, ecolor=colour, capsize=3, ms=5)
            if key in ("seat_win", "strategy_win"):
                for xi, yi, who in zip(x, y, q["who"], strict=True):
                    tag = f"seat {int(who) + 1}" if key == "seat_win" else str(who)
                    ax.annotate(tag, (xi, yi), xytext=(0, 5), textcoords="offset points", fontsize=7,
                                ha="center", color=colour)
        ax.set_yticks(range(len(labels)), labels, fontsize=8)
        ax.set_ylim(-0.7, len(labels) - 0.3)
        for lab_a, lab_b in zip(labels, labels[1:], strict=False):
            if dept_of[lab_a] != dept_of[lab_b]:  # a thin line between departments
                ax.axhline(ypos[lab_a] + 0.5, color="#999999", lw=0.6)
        ax.set_xlabel(f"{unit}, instrument minus the reference", fontsize=8)
        ax.set_title(label + (" (the seat moved most)" if key == "seat_win" else ""), fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
    handles = [
        Line2D([], [], marker="o", ls="", color=c, label=v) for v, c in VERDICT_COLOURS.items()
    ]
    handles.append(Patch(color=OKABE_ITO["sky_blue"], alpha=0.25, label="margin"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)
    title = (
        "Which instruments are out of line? Each against its department's reference, same deals "
        f"({100 * confidence:.0f}% intervals, simultaneous per verdict)"
    )
    fig.suptitle(title, fontsize=11)
    return Chart("instrument_effects", title, to_png(fig))


SHORT_MEASURES = {"objective_points": "points", "winner_points": "winner's points", "unbuilt": "unbuilt",
                  "rounds": "length", "strategy_win": "wins"}


def _short_measure(measure, who):
    if measure == "seat_win":
        return f"seat {int(who) + 1} wins"
    return SHORT_MEASURES.get(measure, measure)


def expansion_effects(answers, measures, confidence):
    """Per instrument and player count, its difference from the department's reference with its
    interval, one point per judge: the measure each instrument's sentence names, in margins (effect /
    margin), so every instrument shares one axis and the band [-1, 1] is the margin; one panel per
    player count. ``answers`` is :func:`reports.sections.shuffle_swing.instrument_judges.answer_table`."""
    a = answers.copy()
    a["x"], a["xlo"], a["xhi"] = a["effect"] / a["margin"], a["lo"] / a["margin"], a["hi"] / a["margin"]
    a["_d"] = a["department"].map({d: i for i, d in enumerate(DEPTS)})
    counts = sorted(a["players"].unique())
    names = a.sort_values(["_d", "instrument"], ascending=False)[["department", "instrument"]].drop_duplicates()
    ypos = {n: i for i, n in enumerate(names["instrument"])}
    # One colour per judge's strategy (a mirror "greedy x3" is greedy at every player count).
    a["judge"] = a["lineup"].astype(str).str.split(",").str[0].str.strip()
    judges = list(dict.fromkeys(a["judge"]))
    colour = {j: PALETTE[i % len(PALETTE)] for i, j in enumerate(judges)}
    marker = dict(zip(judges, "osD^v", strict=False))
    step = 0.6 / max(len(judges), 1)
    fig, axes = figure_grid(len(counts), width=3.6, height=0.9 + 0.34 * len(ypos), ncols=len(counts))
    for ax, n in zip(axes, counts, strict=True):
        p = a[a["players"] == n]
        ax.axvspan(-1, 1, color=OKABE_ITO["sky_blue"], alpha=0.25, lw=0)
        ax.axvline(0, color=OKABE_ITO["black"], lw=0.8)
        for i, j in enumerate(judges):
            q = p[p["judge"] == j]
            if q.empty:
                continue
            y = q["instrument"].map(ypos).to_numpy() + (i - (len(judges) - 1) / 2) * step
            x = q["x"].to_numpy()
            ax.errorbar(x, y, xerr=_errbar(q["xlo"].to_numpy(), q["xhi"].to_numpy(), x), fmt=marker.get(j, "o"),
                        color=colour[j], ecolor=colour[j], capsize=2, ms=4, label=j)
        labels = []
        for inst in ypos:
            m = p[p["instrument"] == inst]
            labels.append(f"{inst} · {_short_measure(m['measure'].iloc[0], m['who'].iloc[0])}" if len(m) else inst)
        ax.set_yticks(range(len(ypos)), labels, fontsize=8)
        ax.set_ylim(-0.7, len(ypos) - 0.3)
        for k, (d_a, d_b) in enumerate(zip(names["department"], names["department"].iloc[1:], strict=False)):
            if d_a != d_b:
                ax.axhline(k + 0.5, color="#999999", lw=0.6)
        ax.set_xlabel("difference from the reference, in margins", fontsize=8)
        ax.set_title(f"{n} players", fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
    handles = [Line2D([], [], marker=marker.get(j, "o"), ls="", color=colour[j], label=j) for j in judges]
    handles.append(Patch(color=OKABE_ITO["sky_blue"], alpha=0.25, label="margin"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)
    title = ("Which instrument is out of line, at each player count and for each judge? Its difference from "
             f"its department's reference on the measure named, in margins ({100 * confidence:.0f}% intervals "
             "per verdict)")
    fig.suptitle(title, fontsize=10)
    return Chart("expansion_effects", title, to_png(fig))


def instrument_points(inst_stats, confidence):
    """Objective points each instrument hands out per game, horizontal bars per department."""
    s = inst_stats.copy()
    counts = sorted(s["players"].unique())
    fig, axes = figure_grid(len(DEPTS), width=3.6, height=0.9 + 0.32 * max(s.groupby("department")["instrument"].nunique().max(), 1) * len(counts))
    colour = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(counts)}
    h = 0.8 / max(len(counts), 1)
    for ax, dept in zip(axes, DEPTS, strict=True):
        p = s[s["department"] == dept]
        names = sorted(p["instrument"].unique(), reverse=True)
        y = np.arange(len(names))
        for k, n in enumerate(counts):
            q = p[p["players"] == n].set_index("instrument").reindex(names)
            ax.barh(y + k * h, q["objective_points"], height=h, color=colour[n], label=f"{n} players")
            ax.errorbar(q["objective_points"], y + k * h,
                        xerr=_errbar(q["objective_lo"], q["objective_hi"], q["objective_points"]),
                        fmt="none", ecolor=OKABE_ITO["black"], capsize=2)
        ax.set_yticks(y + h * (len(counts) - 1) / 2, names)
        ax.set_xlabel("objective points per game (all seats)", fontsize=8)
        ax.set_title(f"{dept} department", fontsize=10)
    if len(counts) > 1:
        handles, labs = axes[0].get_legend_handles_labels()
        fig.legend(handles, labs, loc="outside lower center", ncols=len(counts), fontsize=8, frameon=False)
    title = f"How many objective points does each instrument hand out? Mean per game ({100 * confidence:.0f}% intervals)"
    fig.suptitle(title, fontsize=11)
    return Chart("instrument_objectives", title, to_png(fig))


def rule_bite_rates(rules, threshold, confidence):
    """How often each rule bites, one horizontal bar per rule and player count, with intervals."""
    judge = rules["judge"] if "judge" in rules else pd.Series("", index=rules.index)
    series = list(dict.fromkeys(zip(rules["players"], judge, strict=True)))
    series.sort(key=lambda x: x[0])
    counts = series  # one bar series per player count (and judge, when there are several)
    labels = list(dict.fromkeys(rules["label"]))[::-1]
    y = np.arange(len(labels))
    h = 0.8 / max(len(counts), 1)
    fig = Figure(figsize=(9, 1.4 + 0.34 * len(labels) * max(1, len(counts)) ** 0.5), layout="constrained")
    ax = fig.subplots()
    ax.axvspan(0, 100 * threshold, color=OKABE_ITO["vermillion"], alpha=0.12, lw=0)
    ax.axvspan(100 * (1 - threshold), 100, color=OKABE_ITO["bluish_green"], alpha=0.12, lw=0)
    for k, (n, jd) in enumerate(counts):
        p = rules[(rules["players"] == n) & (judge == jd)].set_index("label").reindex(labels)
        yy = y + (k - (len(counts) - 1) / 2) * h
        ax.barh(yy, 100 * p["rate"], height=h, color=PALETTE[k % len(PALETTE)],
                label=f"{n} players" + (f", {jd}" if jd else ""))
        ax.errorbar(100 * p["rate"], yy, xerr=100 * _errbar(p["lo"], p["hi"], p["rate"]), fmt="none",
                    ecolor=OKABE_ITO["black"], capsize=2, lw=0.8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"% of the rule's chances where it bites (shaded: below {100 * threshold:.0f}% rarely, "
                  f"above {100 - 100 * threshold:.0f}% nearly always)", fontsize=8)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=min(len(counts), 4), fontsize=8,
               frameon=False)
    title = f"Which rules matter? How often each rule bites ({100 * confidence:.0f}% intervals)"
    fig.suptitle(title, fontsize=11)
    return Chart("rule_bite_rates", title, to_png(fig))
