"""The balance regression gate (``ssb baseline``, ``ssb regress``): ``baseline`` freezes a run's
figures, ``regress`` tests a run against them (adaptive looks included), ``format`` writes the
verdicts as Markdown, terminal lines and JSON."""
