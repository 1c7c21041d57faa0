"""Progress a log can read: one line every so often when stderr is not a terminal.

A progress bar redraws one line with carriage returns, which a log file (``ssb run ... 2> run.log``,
CI, ``nohup``) shows as one unreadable line at the end. :class:`LogProgress` stands in for the bar
there (``ssb run`` without ``-q`` when stderr is not a terminal): it has the bar's ``update`` and
``close`` and writes a plain line at most every :data:`EVERY` seconds, and one at the end::

    starter: 12,000 of at most 48,000 games (25%), 41 games/s, at most about 15 min left, 3 of 12 cells decided

*of at most*: a sequential run stops a cell once decided, so its total is the budget's ceiling and
the time left an upper bound. The cells are counted when the caller tells them (:meth:`cells`).

A sequential run with a budget of declared CPU seconds is ended by that budget, not by a count of
games (its games' ceiling is what the budget would buy at the cheapest judge, far more than the
run plays when its judges differ in cost). Once the run tells the line its budget
(:meth:`budget`), the line counts the declared seconds and takes the time left from them::

    starter: 18,240 games, 275 of 1,100 declared CPU s (25%), at most about 6 min left, 9 of 12 cells decided
"""

from __future__ import annotations

import sys
import time

EVERY = 10.0  # seconds between two lines: a log is never silent for longer while games finish


def _duration(seconds):
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class LogProgress:
    """A plain-line stand-in for the tqdm bar (same ``update``/``close``); see the module doc.
    ``clock`` and ``write`` are for tests (default: ``time.monotonic`` and stderr)."""

    def __init__(self, total, initial=0, desc="", *, every=EVERY, clock=time.monotonic, write=None):
        self.total = int(total or 0)
        self.n = int(initial or 0)
        self.start_n = self.n
        self.desc = desc
        self.every = every
        self.clock = clock
        self.write = write or (lambda line: print(line, file=sys.stderr, flush=True))
        self.t0 = self.last = clock()
        self.decided = self.cell_count = None
        self.spent_s = self.budget_s = None
        self.closed = False

    def cells(self, decided, total):
        """Tell the line how many cells are decided (a sequential run)."""
        self.decided, self.cell_count = int(decided), int(total)

    def budget(self, spent, total, restart=False):
        """Tell the line the declared CPU seconds spent and the run's budget of them (a sequential run).
        The rate counts from the first call, or from a call with ``restart`` (after a resumed run's
        recorded rounds were replayed, which took no playing time)."""
        if self.budget_s is None or restart:
            self.start_s, self.t_s = float(spent), self.clock()
        self.spent_s, self.budget_s = float(spent), float(total)

    def line(self):
        """The progress line as it stands."""
        elapsed = self.clock() - self.t0
        if self.budget_s:
            return self._budget_line(elapsed)
        done = self.n - self.start_n
        rate = done / elapsed if elapsed > 0 else 0.0
        parts = [f"{self.desc}: {self.n:,} of at most {self.total:,} games"
                 + (f" ({100 * self.n / self.total:.0f}%)" if self.total else "")]
        parts.append(f"{rate:,.0f} games/s")
        left = self.total - self.n
        if rate > 0 and left > 0:
            # A sequential run stops its cells once decided: the games' ceiling gives a bound, not a forecast.
            parts.append(f"{'at most ' if self.cell_count else ''}about {_duration(left / rate)} left")
        if self.cell_count:
            parts.append(f"{self.decided} of {self.cell_count} cells decided")
        return ", ".join(parts)

    def _budget_line(self, elapsed):
        spent, total = self.spent_s, self.budget_s
        parts = [f"{self.desc}: {self.n:,} games", f"{spent:,.0f} of {total:,.0f} declared CPU s ({100 * spent / total:.0f}%)"]
        since = self.clock() - self.t_s
        rate = (spent - self.start_s) / since if since > 0 else 0.0  # declared seconds per second
        if rate > 0 and total > spent:
            parts.append(f"at most about {_duration((total - spent) / rate)} left")
        if self.cell_count:
            parts.append(f"{self.decided} of {self.cell_count} cells decided")
        return ", ".join(parts)

    def update(self, n=1):
        self.n += int(n)
        now = self.clock()
        if now - self.last >= self.every:
            self.last = now
            self.write(self.line())

    def close(self):
        if not self.closed:
            self.closed = True
            self.write(self.line() + f" ({_duration(self.clock() - self.t0)} elapsed)")
