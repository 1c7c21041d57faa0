"""Turning raw section tables into readable ones: percentages with intervals, rounded means, p-values.

A *spec* lists the columns of the readable table as ``(header, formatter)`` pairs; each formatter
takes one row (a ``pandas`` row as a mapping) and returns text. The raw tables go to CSV untouched.
"""

from __future__ import annotations

import math

import pandas as pd

from reports.frames import games_text, num_ci, pct, pct_ci


def _v(row, name):
    v = row[name]
    return v if not (isinstance(v, float) and math.isnan(v)) else math.nan


def text(name):
    """The column as text."""
    return lambda r: "" if pd.isna(r[name]) else str(r[name])


def integer(name):
    """An integer count with thousands separators."""
    return lambda r: "" if pd.isna(r[name]) else f"{int(r[name]):,}"


def seat(name):
    """A seat in the designer's numbering: turn order from 1 (seat 1 is the first player)."""
    # A negative seat (-1) marks "none" (a cell not judged), shown empty.
    return lambda r: "" if pd.isna(r[name]) or int(r[name]) < 0 else str(int(r[name]) + 1)


def rate(name, lo=None, hi=None, digits=1):
    """A rate in percent, with its interval when ``lo``/``hi`` name columns."""
    if lo is None:
        return lambda r: pct(_v(r, name), digits)
    return lambda r: pct_ci(_v(r, name), _v(r, lo), _v(r, hi), digits)


def points(name, lo=None, hi=None, digits=1):
    """A number (mean points, rounds ...), with its interval when given."""
    if lo is None:
        return lambda r: "" if pd.isna(r[name]) else f"{r[name]:.{digits}f}"
    return lambda r: num_ci(_v(r, name), _v(r, lo), _v(r, hi), digits)


def pp(name, lo=None, hi=None, digits=1):
    """A difference of rates in percentage points, signed, with its interval when given."""

    def fmt(r):
        x = _v(r, name)
        if pd.isna(x):
            return ""
        s = f"{100 * x:+.{digits}f}"
        if lo is not None and not pd.isna(_v(r, lo)):
            s += f" [{100 * _v(r, lo):+.{digits}f}, {100 * _v(r, hi):+.{digits}f}]"
        return s

    return fmt


def pvalue(name):
    """A p-value: three significant digits, ``<1e-6`` below that."""

    def fmt(r):
        p = _v(r, name)
        if pd.isna(p):
            return ""
        return "<1e-6" if p < 1e-6 else f"{p:.3g}"

    return fmt


def games(name):
    """A game count that may be infinite (``no feasible number``) or missing (blank)."""
    return lambda r: games_text(r[name])


def present(df, spec):
    """The readable table of ``df`` described by ``spec`` (all cells are strings)."""
    rows = [[fmt(r) for _, fmt in spec] for _, r in df.iterrows()]
    return pd.DataFrame(rows, columns=[h for h, _ in spec], dtype=object)
