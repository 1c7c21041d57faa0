"""The report's "game feel" section, for a run made with the lead record (both games).

:func:`feel_and_meta_section` is the section (the report's ``feel`` part, ``reports/sections/feel.py``,
adds it to every game's report; a run without the record gets nothing).
:func:`stand_out_lines` gives the sentences for the answer screen when a setting stands out
(the headline's writer calls it); :func:`gate_figures` the measures as descriptive figures.
"""

from __future__ import annotations

import math

import numpy as np

from reports.feel import measures as feel
from reports.feel.data import feel_tables, has_lead, load_lead, setup_table, wide

# The measures shown in the section's table (the lab's, then Ludii's), and the two charted per setting.
SHOWN = ("lead_changes", "ludii_lead_changes", "ludii_lead_change", "behind_share", "behind_depth", "ludii_drama",
         "last_behind", "decided_at", "ludii_decisiveness", "runaway", "uncertainty", "rounds", "rounds_sd")
# The running-score comparison: the measures the end-game scoring moves most.
COMPARED = ("lead_changes", "ludii_lead_changes", "behind_share", "ludii_drama", "decided_at", "ludii_decisiveness",
            "runaway")
CHARTED = ("lead_changes", "decided_at")
# The gate's descriptive figures: stable enough to follow (their interval over games is narrow).
GATE = ("lead_changes", "decided_at", "runaway")
SAMPLE_GAMES = 3


def _reference(table):
    """The setting compared against: the starter set when present, else the first setting."""
    labels = sorted(table["setting"].unique())
    starter = [s for s in labels if "Violin/Piano/Horns" in s]
    return starter[0] if starter else labels[0]


def stand_out_lines(results_dir, measures=("decided_at", "lead_changes", "runaway"), limit=3):
    """Sentences naming a setting that stands out against the reference setting (the starter set,
    or the run's first setting) on a measure, where the intervals do not overlap; one per measure
    at most, compared only among settings of the same player count and judge. Empty for a run
    without the lead record (or where no setting stands out). Example: "With 4p Violin/Vibes/Horns
    greedy, games are decided 1.4 rounds later than with 4p Violin/Piano/Horns greedy (...)"."""
    if not has_lead(results_dir):
        return []
    per_game, table = feel_tables(results_dir)
    return _stand_out(per_game, table, measures)[:limit]


def _group(label):
    """(players, judge) of a setting label: settings are compared within one such group."""
    parts = label.split(" ")
    return parts[0], parts[-1]


def _stand_out(per_game, table, measures):
    """At most one sentence per measure and group of settings: the setting furthest from the
    reference whose interval does not overlap the reference's (``reports.feel.stand_out``)."""
    rounds = per_game.groupby("setting")["rounds"].mean().to_dict()
    lines = []
    groups = {}
    for s in table["setting"].unique():
        groups.setdefault(_group(s), []).append(s)
    for members in groups.values():
        if len(members) < 2:
            continue
        part = table[table["setting"].isin(members)]
        ref = _reference(part)
        for m in measures:
            words = feel.stand_out(part, m, ref, unit_rounds=rounds)
            if words:
                lines.append(words)
    return lines


def gate_figures(results_dir, width=0.1):
    """``{setting: {measure: mean}}`` of the :data:`GATE` measures whose 95% interval is narrower
    than ``width`` (descriptive figures for the regression gate, not verdicts)."""
    if not has_lead(results_dir):
        return {}
    _, table = feel_tables(results_dir)
    out = {}
    for r in table[table["measure"].isin(GATE)].to_dict("records"):
        if not math.isnan(r["low"]) and r["high"] - r["low"] <= width * max(1.0, abs(r["mean"])):
            out.setdefault(r["setting"], {})[r["measure"]] = round(float(r["mean"]), 4)
    return out


# =========================================================================== charts


def lead_chart(keys, standings, winners, k=SAMPLE_GAMES):
    """Lead over time of the first ``k`` games of the first setting: each seat's margin (its
    standing less the best other seat's) after each round, the winner's line drawn thick."""
    from reports.charts import Chart, figure_grid, to_png

    first = keys["setting"].iloc[0]
    idx = [i for i in range(len(keys)) if keys["setting"].iloc[i] == first][:k]
    fig, axes = figure_grid(len(idx), width=4.2, height=3.0)
    for ax, i in zip(np.atleast_1d(axes).ravel(), idx):
        s = np.asarray(standings[i], dtype=float)
        for p in range(s.shape[1]):
            others = np.delete(s, p, axis=1).max(axis=1)
            ax.plot(np.arange(1, len(s) + 1), s[:, p] - others, lw=2.6 if p == winners[i] else 1.0,
                    label=f"seat {p + 1}" + (" (won)" if p == winners[i] else ""))
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set_xlabel("round")
        ax.set_ylabel("margin over the best other seat")
        ax.set_title(f"deal {int(keys['deal'].iloc[i])}", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(f"Lead over time, sample games: {first}", fontsize=10)
    return Chart("feel_lead_over_time", f"Lead over time of {len(idx)} sample games ({first})", to_png(fig))


def measure_chart(table, measures=CHARTED):
    """Per setting, the mean of each charted measure with its 95% interval (counting games)."""
    from reports.charts import Chart, figure_grid, to_png

    fig, axes = figure_grid(len(measures), width=5.0, height=0.35 * table["setting"].nunique() + 1.6)
    label = LABELS
    for ax, m in zip(np.atleast_1d(axes).ravel(), measures):
        t = table[table["measure"] == m].sort_values("setting")
        y = np.arange(len(t))
        ax.errorbar(t["mean"], y, xerr=[t["mean"] - t["low"], t["high"] - t["mean"]], fmt="o", ms=4, capsize=2)
        ax.set_yticks(y)
        ax.set_yticklabels(t["setting"], fontsize=7)
        ax.set_title(label[m], fontsize=9)
        ax.invert_yaxis()
    fig.suptitle("Lead changes and decisiveness per setting (95% intervals over deals)", fontsize=10)
    return Chart("feel_measures", "Lead changes and decisiveness per setting", to_png(fig))


# =========================================================================== the section


def feel_section(results_dir):
    """The game-feel section of a run with the lead record (``None`` without it)."""
    from reports.document import Section, Table

    if not has_lead(results_dir):
        return None
    from reports.feel import winchance

    from scenarios.results import read_manifest

    keys, standings, winners = load_lead(results_dir, "projected")
    per_game = feel.games_frame(standings, winners, keys)
    projected = keys.attrs.get("standing") == "projected"
    # The game's own standing features (Game.lead_features), named by the run's manifest.
    probs, calib = winchance.run_chances(keys, standings, winners, game=read_manifest(results_dir).get("game"))
    if calib:
        per_game["uncertainty"] = [winchance.uncertainty(p) if p is not None else np.nan for p in probs]
    table = feel.setting_measures(per_game, ["setting"])
    shown = wide(table, [m for m in SHOWN if m in set(table["measure"])])
    label = LABELS
    display = shown.rename(columns=label).reset_index()
    on = "projected standing" if projected else "standing"
    sec = Section(
        "feel",
        "Game feel",
        "Are games tense or runaway: how often does the lead change, and when is a game decided? "
        "How much of the outcome does the set-up decide?",
        charts=[lead_chart(keys, standings, winners), measure_chart(table)],
        tables=[Table("game_feel", f"Game-feel measures per setting on the {on}: the lab's measures and Ludii's "
                      "definitions beside them, named as Ludii's (mean [95% interval over deals])", table, display)],
    )
    setup = setup_table(keys, winners)
    if setup is not None:
        sec.tables.append(Table("feel_setup", "What the set-up decides: each replayed deal played again on the same "
                                "set-up with other draws of the bots (95% intervals over deals)", setup,
                                setup_display(setup)))
        setup_words = setup_findings(setup)
    else:
        setup_words = []
    if projected:
        run_pg, run_table = feel_tables(results_dir, "running")
        compare = running_comparison(table, run_table)
        sec.tables.append(Table("feel_running_score", "The same measures on the running score (the score so far; the "
                                "end-game scoring arrives only in the last round), beside the projected standing's",
                                compare, compare))
    sec.notes.append(
        "Measured from the per-round lead record (record = [\"lead\"]); definitions, Ludii's source file for each, "
        "and why the lab adapts them in docs/guide/game-feel.md. Intervals are Student t over deals (the games of "
        "one deal, e.g. a mixed lineup's seat rotations, averaged first). "
        + ("Shuffle and Swing's standing is the projected final score: the points so far plus what the end-game "
           "scoring (R12) and the open sections (R10) will likely give, as the search player's leaf evaluation "
           "sees it; the running score (the score so far) is kept for comparison. " if projected else
           "Shuffle and Swing's standing is the score so far (the last round includes the end-game scoring, R12). ")
        + "Echidna Shuffle's is bugs home, then the steps still to go (already a projection of the finish)."
    )
    cal_rows = []
    for n, (b, b0, rel, k) in sorted(calib.items()):
        sec.notes.append(
            f"{n} players: estimated win chances (a conditional logit on each seat's margin per stage of five rounds, "
            f"fitted on half the deals and stated for the other half, two-fold) have a Brier score of {b:.3f} against "
            f"{b0:.3f} for 1/{n} to every seat, over {k} games with a winner; the reliability table shows predicted "
            "against observed win rates. Uncertainty is the mean normalised entropy of those chances over a game."
        )
        cal_rows.append(rel.assign(players=n, brier=round(b, 4), brier_uniform=round(b0, 4)))
    if cal_rows:
        import pandas as pd

        cal = pd.concat(cal_rows, ignore_index=True)[["players", "bin", "predicted", "observed", "count", "brier", "brier_uniform"]]
        sec.tables.append(Table("feel_win_chance_calibration", "Calibration of the estimated win chances (held-out deals)",
                                cal, cal.round(3)))
    ranking = rank_settings(table)
    if ranking is not None:
        sec.tables.append(Table("feel_ranking", "Settings ranked by lead changes (most first) and by decisiveness "
                                "(decided latest first), with 95% intervals", ranking, ranking))
    for r in shown.reset_index().to_dict("records"):
        sec.findings.append(
            f"{r['setting']}: {r.get('lead_changes', '')} lead changes per game (Ludii's counting, ties as a change "
            f"of the leader set: {r.get('ludii_lead_changes', '')}), decided at {r.get('decided_at', '')} of the game "
            f"(Ludii's DecisivenessMoves: {r.get('ludii_decisiveness', '')}), runaway {r.get('runaway', '')}"
            + (f", uncertainty {r['uncertainty']}" if isinstance(r.get("uncertainty"), str) else "")
            + f" ({r['games']} games" + (f", {r['deals']} deals" if "deals" in r and r["deals"] != r["games"] else "")
            + ("; on the projected standing)." if projected else ").")
        )
    sec.findings += setup_words
    sec.findings += _stand_out(per_game, table, ("decided_at", "lead_changes", "runaway"))
    return sec


LABELS = ({k: v for k, v, _ in feel.MEASURES + feel.LUDII_MEASURES + feel.EXTRA_MEASURES}
          | {"rounds_sd": "rounds, standard deviation"}
          | {"lead_changes": "lead changes per game (lab: strict leader, ties skipped)",
             "behind_share": "drama, how often (lab: share of rounds the winner is behind)",
             "behind_depth": "drama, how far (lab: winner's deficit when behind, x final spread)",
             "decided_at": "decided at (lab: from when the winner is never overtaken, share of the game)"})


def setup_display(setup):
    """The set-up table as shown: percentages with their intervals."""
    import pandas as pd

    def pct(m, lo, hi):
        return f"{100 * m:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]" if not math.isnan(lo) else f"{100 * m:.1f}%"

    return pd.DataFrame({
        "setting": setup["setting"],
        "replayed deals": setup["deals"],
        "the set-up's favoured seat wins again": [pct(r["same_winner"], r["low"], r["high"]) for r in setup.to_dict("records")],
        "if the set-up decided nothing": [f"{100 * c:.1f}%" for c in setup["chance"]],
        "set-up's share of the outcome": [pct(r["setup_share"], r["setup_low"], r["setup_high"]) for r in setup.to_dict("records")],
        "bots' noise share (the scripted players' tie-break draws, not luck of the game)":
            [f"{100 * x:.1f}%" for x in setup["bot_noise_share"]],
    })


def setup_findings(setup):
    """One sentence per setting: how much the starting position decides."""
    out = []
    for r in setup.to_dict("records"):
        if math.isnan(r["low"]):
            continue
        decides = r["low"] > r["chance"]
        out.append(
            f"{r['setting']}: the seat that won a deal wins its replay on the same set-up {100 * r['same_winner']:.1f}% "
            f"[{100 * r['low']:.1f}, {100 * r['high']:.1f}] of the time ({r['deals']} deals; "
            f"{100 * r['chance']:.1f}% if the set-up decided nothing): "
            + (f"the starting position decides {100 * r['setup_share']:.0f}% of the outcome, the bots' own noise the rest."
               if decides else "no sign that the starting position decides the winner; the spread of outcomes is "
               "the bots' own tie-break noise.")
        )
    return out


def running_comparison(projected, running, measures=COMPARED):
    """Per setting and measure: the projected standing's figure beside the running score's."""
    import pandas as pd

    def txt(r):
        return f"{r['mean']:.2f}" if math.isnan(r["low"]) else f"{r['mean']:.2f} [{r['low']:.2f}, {r['high']:.2f}]"

    a = projected[projected["measure"].isin(measures)].set_index(["setting", "measure"])
    b = running[running["measure"].isin(measures)].set_index(["setting", "measure"])
    rows = []
    for (setting, m) in a.index:
        if (setting, m) not in b.index:
            continue
        rows.append({"setting": setting, "measure": LABELS.get(m, m), "projected standing": txt(a.loc[(setting, m)]),
                     "running score": txt(b.loc[(setting, m)])})
    return pd.DataFrame(rows)


def rank_settings(table, measures=("lead_changes", "decided_at")):
    """Settings ranked by each measure, highest first (more lead changes, later decisions: the
    tenser game first), with its interval: one frame, a column pair per measure; ``None`` for a run
    of one setting."""
    import pandas as pd

    if table["setting"].nunique() < 2:
        return None
    cols = {}
    for m in measures:
        t = table[table["measure"] == m].sort_values("mean", ascending=False).reset_index(drop=True)
        cols[f"by {m}"] = t["setting"]
        cols[m] = [f"{r['mean']:.2f} [{r['low']:.2f}, {r['high']:.2f}]" for r in t.to_dict("records")]
    out = pd.DataFrame(cols)
    out.insert(0, "rank", range(1, len(out) + 1))
    return out


META_GLOB = "metagame*.json"  # ``ssb strategies meta --json RESULTS_DIR/metagame-NAME.json``


def meta_tables(results_dir):
    """``(tables, findings)`` of the meta-game files saved beside a run (:data:`META_GLOB`): per
    file, the single-deviant table with alpha-rank's mass and the bootstrap share unbeaten by any
    single deviant, the table of how the answer moves with the pool, and the verdict as a finding."""
    import json
    from pathlib import Path

    import pandas as pd

    from reports.document import Table

    tables, findings = [], []
    for path in sorted(Path(results_dir).glob(META_GLOB)):
        try:
            r = json.loads(path.read_text(encoding="utf-8"))
            full = r["full"]
            names, n = full["names"], int(full["players"])
            frame = pd.DataFrame(full["deviant"], index=names, columns=names).mul(100).round(1)
            frame.insert(0, "alpha-rank mass %", [round(100 * full["alpharank"]["mass"][x], 1) for x in names])
            frame.insert(1, "unbeaten by any single deviant (bootstrap) %",
                         [round(100 * full["bootstrap"]["resisting_share"][x], 1) for x in names])
            pools = pd.DataFrame([{"pool": p["pool"], "alpha-rank first": f"{p['alpharank_first']} ({100 * p['mass']:.0f}%)",
                                   "unbeaten by a single deviant": ", ".join(p["resisting"]) or "none",
                                   "two-team equilibrium support": ", ".join(p["team_support"])} for p in full["pools"]])
        except (OSError, ValueError, KeyError, TypeError):
            findings.append(f"{path.name}: not a meta-game file of `ssb strategies meta --json`; left out.")
            continue
        frame = frame.reset_index().rename(columns={"index": f"strategy (row as the one deviant against {n - 1} of the "
                                                             "column: its win rate per seat, %)"})
        setting = r.get("setting", path.stem)
        stem = path.stem.replace("-", "_")
        b = full["bootstrap"]
        tables.append(Table(stem, f"Meta-game, {setting}, {n} players: every profile of two strategies, {r.get('deals', '?')} "
                            f"deals (alpha-rank, alpha {full['alpharank']['alpha']:g}; bootstrap {b['reps']} resamples)",
                            frame, frame))
        tables.append(Table(f"{stem}_pools", f"Meta-game, {setting}: how the answer moves with the pool (the same games)",
                            pools, pools))
        findings.append(f"Meta-game, {setting}, pool of {len(names)} ({', '.join(names)}): {full['verdict']} (the same "
                        f"first strategy in {100 * b['same_first']:.0f}% of the bootstrap resamples, the same unbeaten set "
                        f"in {100 * b['same_resisting']:.0f}%).")
        moved = [p for p in full["pools"] if p["alpharank_first"] != full["alpharank"]["first"]]
        if moved:
            findings.append(f"Meta-game, {setting}: the answer moves with the pool: "
                            + "; ".join(f"{p['pool']}, alpha-rank puts {p['alpharank_first']} first" for p in moved[:4]) + ".")
    return tables, findings


def feel_and_meta_section(results_dir):
    """The game-feel section of a run that recorded the lead, with the meta-game files beside it
    (:func:`meta_tables`); a section of the meta-game alone without the record; else ``None``."""
    from reports.document import Section

    sec = feel_section(results_dir)
    tables, findings = meta_tables(results_dir)
    if sec is None and tables:
        sec = Section("feel", "Game feel", "Does one strategy dominate, or is the meta-game mixed?")
    if sec is not None:
        sec.tables += tables
        sec.findings += findings
    return sec


def add_feel(report, results_dir):
    """Append the game-feel section to ``report`` (:func:`feel_and_meta_section`); returns the report."""
    sec = feel_and_meta_section(results_dir)
    if sec is not None:
        report.sections.append(sec)
    return report


def gate_lines(baseline_feel, results_dir):
    """The gate's descriptive game-feel lines (``ssb regress``): each stable measure of the run
    beside the baseline's (its ``feel`` block, written by ``ssb baseline`` from a run with the lead
    record). Descriptive figures, not verdicts: they never fail the gate. Empty when neither the
    baseline nor the run has them."""
    now = gate_figures(results_dir)
    old = baseline_feel or {}
    if not now and not old:
        return []
    label = {k: v for k, v, _ in feel.MEASURES}
    lines = ["Game feel (descriptive figures, not verdicts; docs/guide/game-feel.md):"]
    for setting in sorted(set(now) | set(old)):
        parts = []
        for m in GATE:
            a, b = old.get(setting, {}).get(m), now.get(setting, {}).get(m)
            if a is None and b is None:
                continue
            parts.append(f"{label[m]} {'-' if b is None else f'{b:.2f}'} (baseline {'-' if a is None else f'{a:.2f}'})")
        if parts:
            lines.append(f"  {setting}: " + "; ".join(parts))
    return lines
