"""Game feel: what the per-round lead record says about a setting (pure functions, no kernel).

The measures follow Browne's evaluation of games by self-play (C. Browne, *Automatic generation and
evaluation of recombination games*, 2008, ch. 5) as Ludii's evaluation module names them
(``ludii.games/metrics``: Drama, LeadChange, Decisiveness, Uncertainty, Duration, SkillTrace);
``docs/guide/game-feel.md`` defines each one for the lab and says where it departs from them.

The input of one game is its *standing* matrix ``s`` (rounds x seats, the record's rows, see
``simulator.lead_record``): each seat's standing after each round, higher is better, and the
seat that won (``-1``: nobody won, e.g. an Echidna Shuffle game at its stall cap, E9). Every
function here takes plain arrays, returns numbers or small frames, and can be checked by hand.

Per game (:func:`game_measures`):

* ``leaders(s)``: the seat strictly ahead after each round, ``-1`` where seats tie at the top;
* ``lead_changes``: how often the strict leader changes (a tie at the top is no change; the first
  strict leader is no change either); ``lead_changes_per_round`` divides by the rounds less one;
* ``behind_share``: the share of rounds the eventual winner was strictly behind the leader (drama,
  how often); ``behind_depth``: the mean deficit in those rounds over the game's final spread
  (drama, how far; 0 when never behind); ``last_behind``: the last round it was behind, as a share
  of the game (drama, when; 0 when never behind);
* ``decided_at``: the round from which on the winner was never overtaken (it leads strictly, or
  shares the top at the end when a tie-break made it the winner, R13), as a share of the game: 1/R
  for a game decided in round one, 1 for one decided in the last round;
* ``mid_leader_won``: whether the leader at the midpoint won (a share when seats tie at the top);
  ``runaway`` is its chance-corrected form ``(x - 1/n) / (1 - 1/n)``, which for one leader and one
  winner among ``n`` seats is exactly the phi correlation of "led at the midpoint" with "won"
  over the seats (0 for a coin flip, 1 when the midpoint leader always wins);
* ``rounds``: the game's duration.

Ludii's own definitions (:func:`ludii_measures`: lead changes counting ties as a change of the
leader set, drama averaged over all states, the decisiveness threshold) are computed beside the
lab's, and named as Ludii's wherever shown.

Per setting (:func:`setting_measures`): the mean of each per-game measure with a 95% Student t
interval over deals (a deal's games averaged first, so a mixed lineup's seat rotations of one deal
count once); the duration's spread (standard deviation). :func:`setup_split` says how much of the
outcome the set-up decides, from deals played twice with other draws of the bots. :func:`skill_share` turns a ladder's head-to-head result
into the skill-vs-bot-noise figure; :func:`stand_out` words a setting that stands out.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

# The per-game measures, in the order tables show them; (column, label, unit).
MEASURES = (
    ("lead_changes", "lead changes per game", "changes"),
    ("lead_changes_per_round", "lead changes per round", "per round"),
    ("behind_share", "winner behind (share of rounds)", "share"),
    ("behind_depth", "winner's deficit when behind (x final spread)", "spread"),
    ("last_behind", "winner last behind (share of the game)", "share"),
    ("decided_at", "decided at (share of the game)", "share"),
    ("mid_leader_won", "midpoint leader won", "share"),
    ("runaway", "runaway (phi, midpoint leader vs winner)", "phi"),
    ("rounds", "rounds", "rounds"),
)
# Ludii's own definitions (``Ludeme/Ludii``, ``Evaluation/src/metrics/``), computed on the same
# record with rounds as Ludii's moves (:func:`ludii_measures`); named as Ludii's wherever shown.
LUDII_MEASURES = (
    ("ludii_lead_change", "Ludii LeadChange (share of rounds the leader set changes)", "per round"),
    ("ludii_lead_changes", "Ludii lead changes per game (leader set, ties counted)", "changes"),
    ("ludii_drama", "Ludii Drama, average (winner's gap to the top over all states, x final spread)", "spread"),
    ("ludii_decisiveness", "Ludii DecisivenessMoves (share of the game before the winner passes the threshold)", "share"),
)
# Measures a caller may add to the per-game frame (``reports.feel.winchance``: from estimated win chances).
EXTRA_MEASURES = (("uncertainty", "uncertainty (entropy of the estimated win chances)", "share"),)


# =========================================================================== one game


def leaders(s):
    """The seat strictly ahead after each round (``-1`` where the top is shared)."""
    s = np.asarray(s)
    if s.ndim != 2 or s.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    top = s.max(axis=1)
    at_top = s == top[:, None]
    return np.where(at_top.sum(axis=1) == 1, s.argmax(axis=1), -1)


def lead_changes(s):
    """How often the strict leader changes over the game (ties at the top are skipped)."""
    last, n = -1, 0
    for lead in leaders(s):
        if lead < 0:
            continue
        if last >= 0 and lead != last:
            n += 1
        last = lead
    return n


def _in_front(s, winner):
    """Per round: the winner leads strictly; in the last round sharing the top counts (a tie-break
    decided the game, R13)."""
    s = np.asarray(s)
    others = np.delete(s, winner, axis=1)
    best_other = others.max(axis=1) if others.shape[1] else np.full(len(s), -np.inf)
    front = s[:, winner] > best_other
    if len(front):
        front[-1] = s[-1, winner] >= best_other[-1]
    return front, best_other


def _leader_set(row):
    """The seats sharing the top of one state (Ludii's ``currentLeaders``)."""
    top = row.max()
    return frozenset(np.nonzero(row == top)[0].tolist())


def ludii_measures(s, winner):
    """Ludii's definitions on one game's record (:data:`LUDII_MEASURES`), rounds taking the place of
    Ludii's moves. Ludii evaluates the state *before* each move, so its states here are the start
    (every seat level) and the record's rows but the last (the end state is never evaluated):

    * ``ludii_lead_change`` (``LeadChange.java``): over those states, how often the *set* of seats at
      the top differs from the previous state's (a tie at the top is a leader set of its own, so a
      tie and its breaking both count; the first state counts, as Ludii's empty starting set makes
      it), over the number of rounds;
    * ``ludii_lead_changes``: the same count of leader-set changes as a number per game, from the
      start to the end state included, the start's level set not counted as a change;
    * ``ludii_drama`` (``Drama.java``, the average over states): per state the gap of the winner to
      the top standing (0 where it leads), averaged over *all* states, over the game's final spread
      (Ludii's evaluations lie in [-1, 1]; the spread puts the lab's points on a like scale);
    * ``ludii_decisiveness`` (``DecisivenessThreshold.java``, ``DecisivenessMoves.java``): the
      threshold is the highest standing any non-winner reaches in those states; the measure is the
      first state at which the winner is above it, as a share of the rounds (1 when it never is).
      Ludii's Java divides two integers there (so it gives 0 or 1); the share is what it intends.
    """
    s = np.asarray(s, dtype=np.float64)
    out = {k: math.nan for k, _, _ in LUDII_MEASURES}
    if s.ndim != 2 or s.shape[0] == 0:
        return out
    rounds, n = s.shape
    states = np.vstack([np.zeros((1, n)), s[:-1]])  # before each round: the start, then each round's end
    sets = [_leader_set(r) for r in states]
    changes = sum(1 for i, x in enumerate(sets) if i == 0 or x != sets[i - 1])  # the first counts (from {})
    out["ludii_lead_change"] = changes / rounds
    every = [_leader_set(r) for r in np.vstack([np.zeros((1, n)), s])]
    out["ludii_lead_changes"] = float(sum(1 for a, b in zip(every, every[1:]) if a != b))
    if winner is None or winner < 0 or winner >= n:
        return out
    spread = float(s[-1].max() - s[-1].min()) or 1.0
    out["ludii_drama"] = float((states.max(axis=1) - states[:, winner]).mean() / spread)
    others = np.delete(states, winner, axis=1)
    threshold = others.max() if others.size else -np.inf
    above = np.nonzero(states[:, winner] > threshold)[0]
    out["ludii_decisiveness"] = float(above[0]) / rounds if len(above) else 1.0
    return out


def game_measures(s, winner):
    """The per-game measures of :data:`MEASURES` (the lab's) and :data:`LUDII_MEASURES` (Ludii's);
    NaN where they do not apply: no winner, or no rounds."""
    s = np.asarray(s, dtype=np.float64)
    rounds = int(s.shape[0]) if s.ndim == 2 else 0
    n = int(s.shape[1]) if s.ndim == 2 else 0
    out = {k: math.nan for k, _, _ in MEASURES}
    out["rounds"] = float(rounds)
    if rounds == 0 or n == 0:
        return out
    out.update(ludii_measures(s, winner))
    out["lead_changes"] = float(lead_changes(s))
    out["lead_changes_per_round"] = out["lead_changes"] / (rounds - 1) if rounds > 1 else 0.0
    if winner is None or winner < 0 or winner >= n:
        return out
    front, best_other = _in_front(s, winner)
    behind = s[:, winner] < best_other
    out["behind_share"] = float(behind.mean())
    spread = float(s[-1].max() - s[-1].min()) or 1.0
    out["behind_depth"] = float(((best_other - s[:, winner])[behind] / spread).mean()) if behind.any() else 0.0
    out["last_behind"] = float((np.nonzero(behind)[0][-1] + 1) / rounds) if behind.any() else 0.0
    # The final run of rounds in front: from its first round on, never overtaken.
    not_front = np.nonzero(~front)[0]
    first = int(not_front[-1]) + 1 if len(not_front) else 0
    out["decided_at"] = (first + 1) / rounds if first < rounds else 1.0
    mid = (rounds - 1) // 2
    top = s[mid].max()
    tops = np.nonzero(s[mid] == top)[0]
    x = (1.0 / len(tops)) if winner in tops else 0.0
    out["mid_leader_won"] = x
    out["runaway"] = (x - 1.0 / n) / (1.0 - 1.0 / n) if n > 1 else math.nan
    return out


# =========================================================================== many games


def games_frame(records, winners, keys=None):
    """One row per game with its measures: ``records`` a list of standing matrices, ``winners``
    the winning seats, ``keys`` an optional frame of the games' keys (same order), joined in."""
    rows = [game_measures(s, w) for s, w in zip(records, winners)]
    df = pd.DataFrame(rows, columns=[k for k, _, _ in MEASURES + LUDII_MEASURES])
    if keys is not None:
        df = pd.concat([keys.reset_index(drop=True), df], axis=1)
    return df


def mean_interval(values, z=None):
    """``(mean, low, high, count)``: a 95% Student t interval over the values (NaN skipped)."""
    from stats import tests as ST

    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    k = len(v)
    if k == 0:
        return math.nan, math.nan, math.nan, 0
    m = float(v.mean())
    if k == 1:
        return m, math.nan, math.nan, 1
    if z is None:
        m, lo, hi, _ = ST.t_interval(v, 0.95)
        return m, float(lo), float(hi), k
    half = z * float(v.std(ddof=1)) / math.sqrt(k)
    return m, m - half, m + half, k


def deal_means(grp, col):
    """One value per deal: the mean of ``col`` over the deal's games (a mixed lineup plays each deal
    once per seat rotation; those games share the set-up, so the deal is the independent unit). A
    frame without a ``deal`` column counts each game as its own deal."""
    v = grp[col].astype(np.float64)
    if "deal" not in grp.columns:
        return v.to_numpy()
    return v.groupby(grp["deal"].to_numpy()).mean().dropna().to_numpy()


def setting_measures(per_game, by):
    """Per setting (the columns ``by``), each measure's mean with its 95% interval over *deals* (the
    games of one deal averaged first: :func:`deal_means`), and the duration's spread: a long frame
    (setting columns, ``measure``, ``mean``, ``low``, ``high``, ``games``, ``deals``) plus one
    ``rounds_sd`` row per setting."""
    rows = []
    cols = MEASURES + tuple(x for x in LUDII_MEASURES + EXTRA_MEASURES if x[0] in per_game.columns)
    for key, grp in per_game.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        base = dict(zip(by, key))
        for col, _, _ in cols:
            m, lo, hi, k = mean_interval(deal_means(grp, col))
            games = int(grp[col].notna().sum())
            rows.append({**base, "measure": col, "mean": m, "low": lo, "high": hi, "games": games, "deals": k})
        sd = float(grp["rounds"].std(ddof=1)) if len(grp) > 1 else math.nan
        rows.append({**base, "measure": "rounds_sd", "mean": sd, "low": math.nan, "high": math.nan, "games": len(grp),
                     "deals": int(grp["deal"].nunique()) if "deal" in grp.columns else len(grp)})
    return pd.DataFrame(rows)


def paired_gap(per_game, a, b, measure, setting="setting"):
    """``(mean, low, high, deals)``: how much higher ``measure`` is in setting ``b`` than in ``a`` on
    the deals both played (a scenario of several sets plays every set on the same deals), the
    per-deal differences with a 95% Student t interval: the deal is the unit, and pairing removes
    the deals' own spread."""
    per = {}
    for label in (a, b):
        grp = per_game[per_game[setting] == label]
        per[label] = grp[measure].astype(float).groupby(grp["deal"].to_numpy()).mean()
    both = pd.concat([per[a].rename("a"), per[b].rename("b")], axis=1, join="inner").dropna()
    return mean_interval((both["b"] - both["a"]).to_numpy())


# =========================================================================== the set-up's share


def setup_split(winners, replay_winners, seats, deals=None):
    """What the set-up decides, from deals played twice on the same set-up with other draws of the
    bots (``record = ["setup"]``): ``winners`` and ``replay_winners`` the two games' winning seats
    (one entry per replayed game), ``seats`` the player count, ``deals`` the deal of each entry (a
    mixed lineup replays several games per deal; they are averaged per deal first).

    * ``same_winner``: how often the replay's winner (the seat the set-up favoured in one play) wins
      the other play too, with a 95% interval over deals; ``chance`` is what it would be if the
      set-up decided nothing (the sum of the squared win shares of the seats);
    * ``setup_share``: the share of the spread of outcomes (the variance of "seat s won") that lies
      between set-ups: ``(same_winner - chance) / (1 - chance)``, the intraclass correlation of the
      two plays; 0 when the set-up decides nothing beyond seat order, 1 when it decides the winner;
      its interval maps the agreement's; ``bot_noise_share`` is the rest, ``1 - setup_share`` (the share
      taken as 0 when its estimate is below 0, as 1 above 1): the
      spread the bots' own tie-break draws make (players' noise, not luck of the game).
    """
    w = np.asarray(winners, dtype=np.int64)
    r = np.asarray(replay_winners, dtype=np.int64)
    ok = (w >= 0) & (r >= 0)
    w, r = w[ok], r[ok]
    out = {"replays": int(len(w)), "same_winner": math.nan, "low": math.nan, "high": math.nan, "chance": math.nan,
           "setup_share": math.nan, "setup_low": math.nan, "setup_high": math.nan, "bot_noise_share": math.nan,
           "deals": 0}
    if len(w) < 2:
        return out
    agree = (w == r).astype(np.float64)
    if deals is not None:
        d = np.asarray(deals)[ok]
        agree = pd.Series(agree).groupby(d).mean().to_numpy()
    m, lo, hi, k = mean_interval(agree)
    both = np.concatenate([w, r])
    p = np.bincount(both, minlength=seats) / len(both)
    chance = float((p ** 2).sum())

    def share(x):
        return (x - chance) / (1.0 - chance) if chance < 1 else math.nan

    out.update(same_winner=m, low=lo, high=hi, chance=chance, setup_share=share(m), setup_low=share(lo),
               setup_high=share(hi), bot_noise_share=1.0 - min(max(share(m), 0.0), 1.0), deals=k)
    return out


# =========================================================================== skill vs bot noise


def skill_share(wins, games, par):
    """The skill figure of a head-to-head: the stronger side's share of the wins, and that share
    rescaled so that par (a coin flip among equals) is 0 and always winning is 1:
    ``(share - par) / (1 - par)``. Returns ``(share, skill)``."""
    if games <= 0:
        return math.nan, math.nan
    share = wins / games
    return share, (share - par) / (1.0 - par)


# =========================================================================== the words


def stand_out(table, measure="decided_at", reference=None, setting="setting", unit_rounds=None):
    """A sentence naming the setting whose ``measure`` differs most from the reference setting's,
    when their intervals do not overlap; ``None`` when no setting stands out.

    ``table`` is :func:`setting_measures`' frame with a ``setting`` column (a label per setting);
    ``reference`` the label compared against (default: the first setting). ``unit_rounds``, a
    mapping of setting -> mean rounds, words a share of the game as rounds ("decided 3 rounds
    earlier")."""
    t = table[table["measure"] == measure].set_index(setting)
    if len(t) < 2:
        return None
    ref = reference if reference in t.index else t.index[0]
    r = t.loc[ref]
    best, gap = None, 0.0
    for label, row in t.iterrows():
        if label == ref or any(math.isnan(x) for x in (row["low"], row["high"], r["low"], r["high"])):
            continue
        if row["low"] > r["high"] or row["high"] < r["low"]:
            d = row["mean"] - r["mean"]
            if abs(d) > abs(gap):
                best, gap = label, d
    if best is None:
        return None
    label = dict((k, v) for k, v, _ in MEASURES + EXTRA_MEASURES).get(measure, measure)
    if measure == "decided_at" and unit_rounds and best in unit_rounds:
        rounds = abs(gap) * unit_rounds[best]
        way = "earlier" if gap < 0 else "later"
        return f"With {best}, games are decided {rounds:.1f} rounds {way} than with {ref} ({label}: {t.loc[best, 'mean']:.2f} against {r['mean']:.2f})."
    if measure.startswith("lead_changes"):
        way = "more" if gap > 0 else "fewer"
        return f"With {best}, games have {way} {label} than with {ref}: {t.loc[best, 'mean']:.2f} [{t.loc[best, 'low']:.2f}, {t.loc[best, 'high']:.2f}] against {r['mean']:.2f}."
    way = "higher" if gap > 0 else "lower"
    return f"With {best}, {label} is {way} than with {ref}: {t.loc[best, 'mean']:.2f} [{t.loc[best, 'low']:.2f}, {t.loc[best, 'high']:.2f}] against {r['mean']:.2f}."
