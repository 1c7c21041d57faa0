"""The parts a balance report is made of (:mod:`reports.context` says what a part is).

Every game's report: ``seats`` (seat verdicts, section 1), ``strategies``, ``variants`` (the
variants of a setting compared on the same deals, for a game whose setting has a ``variant``
column), ``shape`` (rounds, stalls, each seat's counters) and ``feel`` (game feel, from a run's
lead record). A game names its own in ``ReportSpec.sections``, each in its folder here
(``reports/sections/<game>/``): Shuffle and Swing's are ``about``, ``scoring``, ``instruments``,
``score_shape`` (its game shape, in place of the generic one), ``rules`` and ``tiebreak``.
"""
