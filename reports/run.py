"""A run and what it answers, for Python: :func:`load_run` reads a results folder as
:func:`reports.io.load_run` does and adds the report's answers and verdicts.

::

    from reports.run import load_run

    run = load_run("results/ci")
    run.answers      # the answer sentences the report prints first, one per player count
    run.verdicts     # its verdict table: one row per player count and judge
    run.report()     # the whole report (reports.document.Report), not written to disk

A separate module from :mod:`reports.io` because the report is built from the parts that read
runs through that module.
"""

from __future__ import annotations

from reports.build import build_report
from reports.io import RunData
from reports.io import load_run as _load_data


class Run(RunData):
    """A :class:`reports.io.RunData` with the report's answers and verdicts (see the module doc)."""

    @classmethod
    def of(cls, data):
        """The same run (no table read again) as a :class:`Run`."""
        run = cls.__new__(cls)
        run.__dict__.update(data.__dict__)
        run._reports = {}
        return run

    def report(self, margin=0.03, confidence=0.95):
        """The balance report of this run (:func:`reports.build.build_report`, not written to
        disk), built once per ``margin`` and ``confidence``."""
        key = (float(margin), float(confidence))
        if key not in self._reports:
            self._reports[key] = build_report(self, margin=margin, confidence=confidence)
        return self._reports[key]

    @property
    def answers(self):
        """The answer sentences the report prints first, one per player count (and setting), at the
        default 3-point margin and 95% confidence (:meth:`report` for others)."""
        return list(self.report().answers)

    @property
    def verdicts(self):
        """The verdict table of the report's headline: one row per player count and judge (and
        setting), with its verdict, rates and intervals (a DataFrame)."""
        return self.report().headline


def load_run(results_dir, allow_partial=False):
    """A results folder as a :class:`Run` (errors as :func:`reports.io.load_run`: a missing,
    damaged or unfinished run names the file and key)."""
    return Run.of(_load_data(results_dir, allow_partial=allow_partial))
