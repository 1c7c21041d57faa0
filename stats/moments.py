"""Aggregating the result tables chunk by chunk: the moments every interval of the report needs.

The report's intervals count deals, not games (the games of one deal share its setup), through
the design effect of :func:`stats.tests.design_effect`: the cluster-robust variance of a mean
over the naive one. Both come from a few running sums, so a section reads a run one chunk at a
time and keeps, per group, only

* ``n``, ``sum``, ``sum of squares`` of the units' values (games or seat rows), and
* over the clusters (deals): their number, the largest, and the sums of squares and products of
  the clusters' totals and sizes (``sum A^2``, ``sum A B``, ``sum B^2``).

A deal's games are contiguous in a run's reading order (a cell's chunks come in game order, see
``RunData.scan``), so a cluster is closed as soon as the next one starts (:class:`Clustered`); a
cluster that recurs further on (a deal seed shared by the instrument sets of one player count and
lineup) needs its totals kept until the end (``contiguous=False``).

Values are shifted by an integer near their mean before they are summed, so sums of integers stay
exact and the centred sums of squares lose no digits; the figures equal those of the whole-table
functions of :mod:`stats.tests` to the last digit or two of a float. :class:`Histogram` keeps the
counts of each whole value (exact quantiles); :class:`DealRows` keeps one row per deal where a
verdict resamples or pairs the deals.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps

from stats import tests as stats

CELL_SHIFT = 32  # cluster id of (cell k, deal d): k << 32 | d


def deal_key(k, deal):
    """Cluster ids of the deals ``deal`` of cell ``k`` (distinct over the run's cells)."""
    return (np.int64(k) << CELL_SHIFT) | np.asarray(deal, dtype=np.int64)


def runs(ids):
    """Start of each run of equal ids."""
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(([0], np.flatnonzero(ids[1:] != ids[:-1]) + 1))


class Clustered:
    """Running moments of ``width`` value columns ``a`` (and unit weights ``b``, default 1) over units
    grouped in clusters; :meth:`add` a chunk at a time, then read the statistics.

    ``contiguous``: a cluster's units come in one run of the stream (closed when the next starts);
    else every cluster's totals are kept until the end."""

    def __init__(self, width=1, contiguous=True):
        self.width = width
        self.contiguous = contiguous
        self.shift = None
        self.n = 0
        self.b = 0.0
        self.s = np.zeros(width)
        self.ss = np.zeros(width)
        self.d = 0
        self.max_size = 0
        self.max_b = 0.0
        self.aa = np.zeros(width)  # sum over clusters of A^2 (A: shifted cluster total)
        self.an = np.zeros(width)  # sum of A * size
        self.nn = 0.0  # sum of size^2
        self.ab = np.zeros(width)  # sum of A * B (B: cluster total of the weights)
        self.bb = 0.0
        self.bn = 0.0  # sum of B * size
        self._open = None  # (id, size, A, B)
        self._kept = []

    def add(self, a, cluster, b=None):
        """Units' values ``a`` ((m,) or (m, width)) in clusters ``cluster`` ((m,)), weights ``b``."""
        a = np.asarray(a, dtype=float)
        if a.ndim == 1:
            a = a[:, None]
        m = a.shape[0]
        if m == 0:
            return
        cluster = np.asarray(cluster)
        if self.shift is None:
            mean = a.mean(axis=0)
            self.shift = np.where(np.isfinite(mean), np.round(mean), 0.0)
        x = a - self.shift
        bw = np.ones(m) if b is None else np.asarray(b, dtype=float)
        self.n += m
        self.b += float(bw.sum())
        self.s += x.sum(axis=0)
        self.ss += (x * x).sum(axis=0)
        if self.contiguous:
            starts = runs(cluster)
            ids = cluster[starts]
            size = np.diff(np.append(starts, m))
            tot = np.add.reduceat(x, starts, axis=0)
            btot = np.add.reduceat(bw, starts)
            if self._open is not None:
                oid, osize, otot, ob = self._open
                if ids[0] == oid:
                    size[0] += osize
                    tot[0] += otot
                    btot[0] += ob
                else:
                    self._close(np.array([osize]), otot[None, :], np.array([ob]))
            self._close(size[:-1], tot[:-1], btot[:-1])
            self._open = (ids[-1], int(size[-1]), tot[-1].copy(), float(btot[-1]))
        else:
            uid, inv = np.unique(cluster, return_inverse=True)
            tot = np.zeros((uid.size, self.width))
            for j in range(self.width):
                tot[:, j] = np.bincount(inv, weights=x[:, j], minlength=uid.size)
            self._kept.append((uid, np.bincount(inv, minlength=uid.size), tot, np.bincount(inv, weights=bw,
                                                                                            minlength=uid.size)))

    def _close(self, size, tot, btot):
        if len(size) == 0:
            return
        size = np.asarray(size, dtype=float)
        self.d += len(size)
        self.max_size = max(self.max_size, int(size.max()))
        self.max_b = max(self.max_b, float(np.max(btot)))
        self.aa += (tot * tot).sum(axis=0)
        self.an += (tot * size[:, None]).sum(axis=0)
        self.nn += float((size * size).sum())
        self.ab += (tot * btot[:, None]).sum(axis=0)
        self.bb += float((btot * btot).sum())
        self.bn += float((btot * size).sum())

    def finish(self):
        """Close the open cluster (or merge the kept ones); the moments are final after this."""
        if self._open is not None:
            _, osize, otot, ob = self._open
            self._close(np.array([osize]), otot[None, :], np.array([ob]))
            self._open = None
        if self._kept:
            uid = np.concatenate([k[0] for k in self._kept])
            ids, inv = np.unique(uid, return_inverse=True)
            size = np.bincount(inv, weights=np.concatenate([k[1] for k in self._kept]), minlength=ids.size)
            btot = np.bincount(inv, weights=np.concatenate([k[3] for k in self._kept]), minlength=ids.size)
            allt = np.concatenate([k[2] for k in self._kept])
            tot = np.stack([np.bincount(inv, weights=allt[:, j], minlength=ids.size) for j in range(self.width)], axis=1)
            self._kept = []
            self._close(size, tot, btot)
        return self

    # ------------------------------------------------------------------ statistics

    @property
    def total(self):
        """Sum of the values, per column."""
        return self.s + self.n * (self.shift if self.shift is not None else 0.0)

    @property
    def mean(self):
        return self.total / self.n if self.n else np.full(self.width, math.nan)

    def _centred(self):
        """``(sum over clusters of (A - size * mean)^2, sum of (a - mean)^2)`` per column."""
        n = self.n
        delta = self.s / n
        between = self.aa - 2 * delta * self.an + delta * delta * self.nn
        within = self.ss - self.s * delta
        return np.maximum(between, 0.0), np.maximum(within, 0.0)

    def design_effect(self):
        """:func:`stats.tests.design_effect` of the values over the clusters (pooled over columns)."""
        self.finish()
        n, d = self.n, self.d
        if n < 2 or d < 2 or self.max_size == 1:
            return 1.0
        between, within = self._centred()
        v_cluster = d / (d - 1) * between / n**2
        v_naive = within / (n - 1) / n
        if v_naive.sum() <= 0:
            return 1.0
        return float(np.clip(v_cluster.sum() / v_naive.sum(), 1.0, self.max_size))

    def var(self):
        """The values' variance (ddof 1), per column."""
        self.finish()
        return self._centred()[1] / (self.n - 1) if self.n > 1 else np.full(self.width, math.nan)


def mean_interval(acc, confidence=0.95, clustered=True, col=0):
    """:func:`stats.tests.mean_interval` of one column of a :class:`Clustered` (NaNs left out by the
    caller): ``(mean, lo, hi)``, the t interval widened by the design effect, on the clusters' df."""
    acc.finish()
    n = acc.n
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(acc.mean[col])
    if n < 2:
        return mean, math.nan, math.nan
    sem = math.sqrt(float(acc.var()[col]) / n)
    df = n - 1
    if clustered:
        sem *= math.sqrt(_one_column(acc, col).design_effect())
        df = max(acc.d - 1, 1)
    if sem == 0:
        return mean, mean, mean
    lo, hi = sps.t.interval(confidence, df, loc=mean, scale=sem)
    return mean, float(lo), float(hi)


def _one_column(acc, col):
    if acc.width == 1:
        return acc
    one = Clustered(1)
    one.shift = acc.shift[col : col + 1]
    one.n, one.s, one.ss, one.d, one.max_size = acc.n, acc.s[col : col + 1], acc.ss[col : col + 1], acc.d, acc.max_size
    one.aa, one.an, one.nn = acc.aa[col : col + 1], acc.an[col : col + 1], acc.nn
    return one


def wilson_clustered(acc, confidence=0.95, col=0):
    """:func:`stats.tests.wilson_clustered` of 0/1 values: ``(rate, lo, hi, effective n)``."""
    acc.finish()
    if acc.n == 0:
        return math.nan, math.nan, math.nan, 0.0
    rate = float(acc.mean[col])
    n_eff = acc.n / _one_column(acc, col).design_effect()
    lo, hi = stats.wilson(rate * n_eff, n_eff, confidence)
    return rate, float(lo), float(hi), float(n_eff)


def ratio_rate(acc, confidence=0.95):
    """``reports.sections.shuffle_swing.rule_relevance.ratio_rate`` of events ``a`` over opportunities ``b``: ``(rate, lo, hi)``."""
    acc.finish()
    total = acc.b
    if total <= 0:
        return math.nan, math.nan, math.nan
    x = float(acc.total[0])
    rate = x / total
    c = acc.d
    deff = 1.0
    if c > 1 and 0 < rate < 1:
        # sum over clusters of (xc - rate nc)^2 with xc = A + shift * size (A: shifted totals).
        sh = float(acc.shift[0])
        aa, an, ab = float(acc.aa[0]), float(acc.an[0]), float(acc.ab[0])
        xx = aa + 2 * sh * an + sh * sh * acc.nn
        xb = ab + sh * acc.bn
        ss = xx - 2 * rate * xb + rate * rate * acc.bb
        v_cluster = c / (c - 1) * max(ss, 0.0) / total**2
        v_binom = rate * (1 - rate) / total
        deff = max(1.0, float(v_cluster / v_binom))
    n_eff = total / deff
    lo, hi = stats.wilson(min(rate, 1.0) * n_eff, n_eff, confidence)
    return rate, float(lo), float(hi)


class Histogram:
    """Counts of whole values (rounds, margins): exact quantiles and medians at any size."""

    def __init__(self):
        self.counts = {}

    def add(self, values):
        v, c = np.unique(np.asarray(values), return_counts=True)
        for x, k in zip(v.tolist(), c.tolist(), strict=True):
            self.counts[x] = self.counts.get(x, 0) + k

    def merge(self, other):
        for x, k in other.counts.items():
            self.counts[x] = self.counts.get(x, 0) + k
        return self

    @property
    def n(self):
        return sum(self.counts.values())

    def arrays(self):
        keys = sorted(self.counts)
        return np.asarray(keys, dtype=float), np.asarray([self.counts[k] for k in keys], dtype=np.int64)

    def _order(self, i):
        values, counts = self.arrays()
        return float(values[np.searchsorted(np.cumsum(counts), i, side="right")])

    def quantile(self, q):
        """``np.quantile`` (linear) of the values counted, to the last digit."""
        n = self.n
        if n == 0:
            return math.nan
        virtual = np.asarray(q, dtype=float) * (n - 1)
        prev = np.floor(virtual)
        gamma = virtual - prev
        i = int(prev)
        a, b = self._order(i), self._order(min(i + 1, n - 1))
        return float(np.quantile(np.array([a, b]), gamma))

    def median(self):
        n = self.n
        if n == 0:
            return math.nan
        if n % 2:
            return self._order(n // 2)
        return float(np.mean([self._order(n // 2 - 1), self._order(n // 2)]))


class DealRows:
    """One row of ``width`` sums per cluster, in the order the clusters first come (a verdict that
    resamples or pairs deals reads them): contiguous clusters, merged across chunk boundaries."""

    def __init__(self, width):
        self.width = width
        self._ids, self._rows, self._sizes = [], [], []

    def add(self, values, cluster):
        values = np.asarray(values, dtype=float)
        if values.ndim == 1:
            values = values[:, None]
        if len(values) == 0:
            return
        cluster = np.asarray(cluster)
        starts = runs(cluster)
        ids = cluster[starts]
        tot = np.add.reduceat(values, starts, axis=0)
        size = np.diff(np.append(starts, len(values)))
        if self._ids and self._ids[-1][-1] == ids[0]:
            self._rows[-1][-1] += tot[0]
            self._sizes[-1][-1] += size[0]
            ids, tot, size = ids[1:], tot[1:], size[1:]
        if len(ids):
            self._ids.append(ids)
            self._rows.append(tot)
            self._sizes.append(size)

    def result(self):
        """``(ids, sums (D, width), sizes (D,))``."""
        if not self._ids:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.width)), np.zeros(0, dtype=np.int64)
        return np.concatenate(self._ids), np.concatenate(self._rows), np.concatenate(self._sizes)


class ClusterOuter:
    """The sum over clusters of the outer product of each cluster's column totals (contiguous
    clusters, as :class:`Clustered`), and the number of clusters."""

    def __init__(self, width):
        self.width = width
        self.outer = np.zeros((width, width))
        self.d = 0
        self._open = None

    def add(self, values, cluster):
        values = np.asarray(values, dtype=float)
        if len(values) == 0:
            return
        cluster = np.asarray(cluster)
        starts = runs(cluster)
        ids = cluster[starts]
        tot = np.add.reduceat(values, starts, axis=0)
        if self._open is not None:
            if ids[0] == self._open[0]:
                tot[0] += self._open[1]
            else:
                self._close(self._open[1][None, :])
        self._close(tot[:-1])
        self._open = (ids[-1], tot[-1].copy())

    def _close(self, tot):
        if len(tot):
            self.outer += tot.T @ tot
            self.d += len(tot)

    def finish(self):
        if self._open is not None:
            self._close(self._open[1][None, :])
            self._open = None
        return self


def groups_of(cells, columns):
    """``(keys, group)``: the sorted distinct values of ``columns`` over the cells table and, for each
    cell (row ``k``), the position of its key in ``keys`` (a groupby on those columns, sorted)."""
    rows = list(zip(*(cells[c].tolist() for c in columns), strict=True)) if len(columns) else [()] * len(cells)
    keys = sorted(set(rows))
    at = {key: i for i, key in enumerate(keys)}
    return keys, [at[r] for r in rows]
