"""Variant verdicts decided sequentially: each variant plays in rounds until its verdict is decided.

A scenario of a game whose setting has variants (a ``variant`` column, the scenario's ``[variants]``
and its ``reference``) compares each variant with the reference variant on the same deals
(``reports.variants``). With ``sequential.verdicts = ["variants"]`` the run decides those verdicts
as it goes, with the statistics and the schedule of the instrument verdicts
(:mod:`scenarios.sequential_sets`: confidence sequences on paired per-deal differences, an
indifference zone, one budget)::

    [sequential]
    verdicts = ["variants"]
    margin = 0.03          # a seat's change of win rate that counts (as ``ssb report --margin``)
    zone = 0.2             # the indifference zone, a share of the margin

The **unit** of a verdict is one variant at one player count, on one value of the setting's other
columns (a board) and judged by one mirror lineup, compared with the reference variant of the same
group on the same deals. Its measures are the variant report's seat changes: for deal ``s`` and
seat ``k``, ``d_k(s) = win_k(variant, s) - win_k(reference, s)``, each with the run's margin. A
variant is **out of line** (changes who wins) when some seat's change is shown beyond
``margin - zone``, **in line** when every seat's change is shown within ``margin + zone``. The
change in game length is kept in the per-deal measures but decides nothing: the variant report
gives it no margin (shorter / longer / no shown change).

What is compared with what comes from the cells' setting columns and the scenario's reference, not
from the game: any game whose setting has a ``variant`` column runs the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

VARIANT = "variant"
SEAT_WIN = "seat_win"


@dataclass
class VariantUnit:
    """One variant's verdict: ``cell`` against ``reference`` (cell indices) in one group."""

    cell: int
    reference: int
    players: int
    judge: str
    variant: str
    where: tuple  # the setting's other columns, ((column, value), ...): e.g. (("board", "forest"),)

    @property
    def group(self):
        return (self.players, self.judge, self.where)


def has_variants(cells):
    """True when every cell's setting has a variant column."""
    return bool(cells) and all(VARIANT in getattr(c, "columns", {}) for c in cells)


def where_of(cell):
    return tuple((k, v) for k, v in cell.columns.items() if k != VARIANT)


def variant_units(cells, judge_of, reference):
    """``(units, references, missing)``: a unit per cell of a variant other than ``reference``, the
    reference cell of each group (``(players, judge, where)``), and the groups without one."""
    groups = {}
    for c in cells:
        groups.setdefault((c.players, judge_of(c), where_of(c)), []).append(c)
    out, refs, missing = [], {}, []
    for key, members in groups.items():
        ref = [c for c in members if c.columns[VARIANT] == reference]
        if not ref:
            missing.append(key)
            continue
        refs[key] = ref[0].index
        out += [VariantUnit(c.index, ref[0].index, key[0], key[1], c.columns[VARIANT], key[2])
                for c in members if c.columns[VARIANT] != reference]
    return out, refs, missing


class VariantSets:
    """The comparison of a run decided by its variant verdicts (:class:`scenarios.sequential_sets.
    SetPolicy`'s ``compare``): each variant against the reference, on each seat's win."""

    kind = "variants"

    def __init__(self, reference):
        self.reference = reference

    def units(self, cells, judge_of):
        found, refs, _ = variant_units(cells, judge_of, self.reference)
        return found, refs, []

    @staticmethod
    def columns(players):
        """Per-deal measure columns of one cell: each seat's win, then game length."""
        return [*(f"{SEAT_WIN}:{s}" for s in range(players)), "rounds"]

    def unit_columns(self, unit, players):
        """``(positions, measure keys, who)`` of the unit's measures: each seat's win (seats from 0)."""
        return list(range(players)), [SEAT_WIN] * players, [str(s) for s in range(players)]

    @staticmethod
    def fields():
        return [], ["deal", "game", "winner", "rounds"]

    @staticmethod
    def chunk_measures(seats, games, players):
        """Per-deal measures of one chunk, in deal order (a deal's seat rotations averaged)."""
        deal = np.asarray(games["deal"], dtype=np.int64)
        idx = deal - int(deal.min())
        nd = int(idx.max()) + 1
        count = np.bincount(idx, minlength=nd).astype(float)
        winner = np.asarray(games["winner"], dtype=np.int64)
        per_game = np.stack([*((winner == s).astype(float) for s in range(players)),
                             np.asarray(games["rounds"], dtype=float)], axis=1)
        sums = np.zeros((nd, per_game.shape[1]))
        np.add.at(sums, idx, per_game)
        return sums / count[:, None]

    def describe(self, unit):
        return {"variant": unit.variant, "reference_variant": self.reference, **dict(unit.where)}
