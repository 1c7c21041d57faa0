"""The variants of a setting compared on the same deals (:mod:`reports.variants`), for every game
whose setting has a ``variant`` column (a scenario's named ``[variants]``) and whose run plays more
than one; the answer then says what each variant does to the leaning seat."""

from __future__ import annotations

import tomllib

import pandas as pd

from reports import present as P
from reports.document import Table
from reports.seats import level_label
from reports.variants import VARIANT, compare_variants, variant_groups

KEY = "variants"
ORDER = 30


def applies(ctx):
    return VARIANT in ctx.setting.columns and ctx.cells[VARIANT].nunique() > 1


def reference_of(run):
    """The variant the others are compared with: the scenario's ``reference``, else the first."""
    return run.manifest.get("settings", {}).get("reference") or str(run.cells[VARIANT].iloc[0])


def variant_words(manifest, switch_words=()):
    """variant -> what it changes, in words (``'drawing the set-up order and the catch-up tokens'``),
    from the scenario text the manifest keeps and the game's words for its switches
    (``ReportSpec.switch_words``); a switch without words by its key and value."""
    known = {(k, v): w for k, v, w in switch_words}
    try:
        doc = tomllib.loads(manifest.get("scenario", {}).get("text", ""))
    except tomllib.TOMLDecodeError:
        return {}
    out = {}
    for name, switches in (doc.get("variants") or {}).items():
        words = []
        for key, value in (switches or {}).items():
            w = known.get((key, value)) if not isinstance(value, (list, dict)) else None  # a schedule: by value
            words.append(w if w else f"{key.replace('_', ' ')} {value}")
        if words:
            out[name] = " and ".join(words)
    return out


def _where(values):
    return ", ".join(str(v) for v in values)


def build(ctx):
    o = ctx.options
    reference = reference_of(ctx.run)
    groups = variant_groups(ctx.setting)
    seats, changes, settings = compare_variants(ctx.games, reference, o.margin, o.confidence, o.seed, setting=ctx.setting)
    for t in (seats, changes, settings):
        if len(t):
            t["judge"] = t["lineup"].map(level_label)
    c = int(100 * o.confidence)
    sec = ctx.new_section(KEY, "Variants", "What does each variant change, on the same deals?")
    base_cols = [("players", P.integer("players")), *((g, P.text(g)) for g in groups[1:-1]),
                 ("judge (lineup)", P.text("judge"))]
    set_spec = [
        *base_cols,
        ("variant", P.text("variant")),
        ("deals", P.integer("deals")),
        (f"rounds [{c}% CI]", P.points("rounds", "rounds_lo", "rounds_hi")),
        (f"unfairness: seat furthest from the seats' mean, pp [{c}% CI]", P.pp("unfairness", "unfairness_lo", "unfairness_hi")),
        ("fairest", P.text("fairest")),
        ("fairest shown fairer than the next", P.text("fairest_shown")),
    ]
    seat_spec = [
        *base_cols,
        ("variant", P.text("variant")),
        ("seat", P.seat("seat")),
        (f"win % [{c}% CI]", P.rate("win_rate", "win_lo", "win_hi")),
        ("deviation from 1/N, pp", P.pp("deviation")),
    ]
    sec.tables.append(Table("variant_settings", "Game length and unfairness per variant", settings, P.present(settings, set_spec)))
    sec.tables.append(Table("variant_seat_win_rates", "Win rate per seat and variant", seats, P.present(seats, seat_spec)))
    if len(changes):
        ch_spec = [
            *base_cols,
            ("variant", P.text("variant")),
            ("vs", P.text("reference")),
            ("what", P.text("what")),
            (f"change [{c}% CI]", P.text("change_text")),
            ("verdict", P.text("verdict")),
            ("equivalence p (TOST)", P.pvalue("tost_p")),
            ("outside-margin p (before Holm)", P.pvalue("outside_p")),
        ]
        changes = changes.copy()
        changes["change_text"] = [
            (
                f"{100 * r.change:+.1f} pp [{100 * r.change_lo:+.1f}, {100 * r.change_hi:+.1f}]"
                if r.seat >= 0
                else f"{r.change:+.2f} [{r.change_lo:+.2f}, {r.change_hi:+.2f}]"
            )
            for r in changes.itertuples(index=False)
        ]
        sec.tables.append(Table("variant_changes", f"Change against '{reference}', paired by deal", changes, P.present(changes, ch_spec)))
    _sequential(ctx, sec, groups)
    where = " and ".join(groups[1:-1]) or "setting"
    sec.notes.append(
        "Each line compares variants within one judge (the lineup named in the judge column, e.g. 'greedy x4': "
        "greedy players in every seat); judges are never pooled, and a judge's deals are its own. Seats are "
        "numbered from 1, seat 1 playing first."
    )
    sec.notes.append(
        f"Every variant of a player count, {where} and lineup plays the same deals. A seat's change is the mean over "
        f"deals of (win under the variant - win under '{reference}'), with a t interval over deals. Unchanged: two "
        f"one-sided tests show the change within ±{100 * o.margin:.1f} pp; changed: shown beyond it, Holm-corrected over "
        "every seat change of the section (the error controlled is a false 'changed' anywhere in the section); "
        "undecided otherwise. Unfairness is the largest distance of a seat's win rate from the seats' mean (1/N "
        "when every game has a winner; a stalled game, a win for nobody, lowers every seat alike), with a bootstrap "
        "interval over deals; the fairest variant's lead counts as shown when the one-sided bootstrap interval of "
        "its difference to the runner-up excludes 0 at the report's level."
    )
    for key, part in settings.groupby(groups, sort=True):
        best = part[part["fairest"]].iloc[0]
        rest = part[part["variant"] != best["variant"]].sort_values("unfairness")
        runner = str(rest["variant"].iloc[0]) if len(rest) else ""
        if not runner:
            shown = "the only variant"
        elif best["fairest_shown"]:
            shown = f"shown fairer than the next fairest, {runner}"
        else:
            shown = f"not shown fairer than the next fairest, {runner}"
        others = ", ".join(f"{r.variant} {100 * r.unfairness:.1f}" for r in part.itertuples(index=False) if r.variant != best["variant"])
        sec.findings.append(
            f"{key[0]} players, {_where(key[1:-1])}, judge {level_label(key[-1])}: fairest **{best['variant']}** (the seat "
            f"furthest from the seats' mean is {100 * best['unfairness']:.1f} pp [{100 * best['unfairness_lo']:.1f}, "
            f"{100 * best['unfairness_hi']:.1f}] from it; others: {others} pp; {shown})."
        )
    if len(changes):
        rc = changes[changes["seat"] < 0]
        for r in rc.to_dict("records"):
            sec.findings.append(
                f"{r['players']} players, {_where(r[g] for g in groups[1:-1])}, judge {r['judge']}, {r['variant']}: rounds "
                f"{r['change']:+.2f} [{r['change_lo']:+.2f}, {r['change_hi']:+.2f}] ({r['verdict']})."
            )
    ctx.changes = changes


def answers(ctx):
    """The answer sentences of a run with variants (``reports.answers.variant_answers``)."""
    from reports.answers import variant_answers

    words = variant_words(ctx.run.manifest, ctx.game.report.switch_words)
    return variant_answers(ctx.adv, ctx.changes, reference_of(ctx.run), words, setting=ctx.setting.label,
                           values=ctx.setting.values(ctx.games))


STOP_WORDS = {"seconds": "the run's budget of CPU seconds ran out", "budget": "its judge's cap of games ran out",
              "cap": "the variant's cap of deals ran out"}


def sequential_records(manifest):
    """The variant verdicts of a run decided by them (``sequential.verdicts = ["variants"]``), else None."""
    seq = (manifest or {}).get("sequential")
    if not isinstance(seq, dict) or "variants" not in (seq.get("settings") or {}).get("verdicts", []):
        return None
    return list(seq.get("sets") or [])


def judge_records_again(games, recs, settings, manifest_path):
    """The records of a run decided by its variants, each judged again from the games table with the
    run's test (the statistics core's paired verdict, with the run's interval, on the per-deal seat wins of the variant less the
    reference's, at the deals the record says): the record's figures replaced by the tables', and a
    record whose verdict word the tables do not give refused (:class:`reports.io.ReportInputError`
    naming ``sequential.sets[i].verdict``)."""
    import numpy as np

    from reports.io import ReportInputError
    from scenarios import sequential_sets as SQS
    from scenarios.sequential_variants import VariantSets
    from stats import paired

    margin = float(settings.get("margin", 0.03))
    zone = float(settings.get("zone", SQS.DEFAULT_ZONE))
    confidence = float(settings.get("confidence", 0.95))
    interval = settings.get("interval", paired.ASYMPTOTIC)  # a record written before the key: the asymptotic one
    by_cell = {c: part.sort_values(["deal", "game"]) for c, part in games.groupby("cell")} if "cell" in games else {}
    out = []
    for i, rec in enumerate(recs):
        players, n = int(rec["players"]), int(rec["deals"])
        per = []
        for c in (rec["cell"], rec["reference"]):
            part = by_cell.get(c)
            rows = (VariantSets.chunk_measures({}, {k: part[k].to_numpy() for k in ("deal", "winner", "rounds")}, players)
                    if part is not None and len(part) else np.zeros((0, players + 1)))
            per.append(rows[:n, :players])
        if min(len(per[0]), len(per[1])) < n:
            raise ReportInputError(manifest_path, f"sequential.sets[{i}].deals",
                                   f"says {n:,} deals, the tables hold {min(len(per[0]), len(per[1])):,} of cells "
                                   f"{rec['cell']} and {rec['reference']}; the manifest is damaged")
        acc = SQS.Running(players)
        d = per[0] - per[1]
        acc.add(d)
        mean, sd = acc.mean_sd()
        if interval == paired.BOUNDED:  # the run's finite-sample sequence on the seats' wins, each in [-1, 1]
            res = paired.bounded_verdict(d, np.full(players, SQS.RANGES["seat_win"]), [margin] * players, zone,
                                         confidence, mean=mean, sd=sd)
        else:
            res = SQS.verdict(mean, sd, acc.n, [margin] * players, zone, confidence)
        if res["verdict"] != rec["verdict"]:
            raise ReportInputError(
                manifest_path, f"sequential.sets[{i}].verdict",
                f"says '{rec['verdict']}', the tables say '{res['verdict']}' for {rec.get('variant')} against "
                f"{rec.get('reference_variant')} at {n:,} deals: the record was edited; start the run over with --force")
        w = res["worst"]
        new = dict(rec)
        if n:
            new.update(who=str(w), effect=float(mean[w]), lo=float(res["lo"][w]), hi=float(res["hi"][w]),
                       margin=margin)
        out.append(new)
    return out


def _sequential(ctx, sec, groups):
    """The verdicts that stopped a run decided by its variants (scenarios.sequential_variants), each
    judged again from the tables (:func:`judge_records_again`)."""
    recs = sequential_records(ctx.run.manifest)
    if not recs:
        return
    settings = ctx.run.manifest["sequential"]["settings"]
    from pathlib import Path

    from scenarios.results import MANIFEST

    recs = judge_records_again(ctx.games, recs, settings, Path(ctx.run.source) / MANIFEST)
    zone = float(settings.get("zone", 0.2))
    t = pd.DataFrame(recs)
    t["judge"] = [f"{r['judge']} x{r['players']}" for r in recs]
    t["seat"] = [int(r["who"]) if r.get("who", "") != "" else -1 for r in recs]
    for c in ("effect", "lo", "hi", "margin"):
        if c not in t:
            t[c] = float("nan")
    where_cols = [g for g in groups[1:-1] if g in t]
    spec = [("players", P.integer("players")), *((g, P.text(g)) for g in where_cols), ("judge (lineup)", P.text("judge")),
            ("variant", P.text("variant")), ("vs", P.text("reference_variant")), ("verdict", P.text("verdict")),
            ("deals", P.integer("deals")), ("seat it rests on", P.seat("seat")),
            ("change of its win rate, pp [confidence sequence]", P.pp("effect", "lo", "hi")), ("stop", P.text("stop"))]
    sec.tables.append(Table("variant_sequential", "Variant verdicts decided sequentially", t, P.present(t, spec)))
    sec.notes.append(
        "This run was decided by its variant verdicts: each variant played rounds of deals beside the reference on "
        "the same deals until its verdict was decided. Out of line: some seat's change of win rate is shown beyond "
        f"the margin less the zone ({100 * (1 - zone):.0f}% of the margin); in line: every seat's change is shown "
        f"within the margin plus the zone ({100 * (1 + zone):.0f}%); each wrong at most 1 - confidence of the time. "
        "The intervals are confidence sequences (valid at every look), simultaneous over the seats; the Holm "
        "verdicts of the table above are the fixed-count ones on the games played."
    )
    for r in t.to_dict("records"):
        where = _where(r[g] for g in where_cols)
        head = f"{r['players']} players, {where}, judge {r['judge']}, {r['variant']} against {r['reference_variant']}"
        if r["verdict"] == "open":
            more = r.get("more_deals")
            more = f"; about {int(more):,} more deals would decide it" if more is not None and not pd.isna(more) else ""
            sec.findings.append(f"{head}: open after {int(r['deals']):,} deals ({STOP_WORDS.get(r['stop'], r['stop'])}{more}).")
            continue
        if pd.isna(r["effect"]):
            continue
        sec.findings.append(
            f"{head}: **{r['verdict']}** after {int(r['deals']):,} deals (seat {r['seat'] + 1}'s win "
            f"{100 * r['effect']:+.1f} pp [{100 * r['lo']:+.1f}, {100 * r['hi']:+.1f}], margin "
            f"{100 * r['margin']:.1f} pp)."
        )
