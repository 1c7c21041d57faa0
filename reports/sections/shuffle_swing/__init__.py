"""Shuffle and Swing's own report parts (named in its ``ReportSpec.sections``) and the modules only
they read: the bots and caveats up front (``about``, ``bots``), the scoring sources (``scoring``,
``sources``), the game shape with scores and passes (``score_shape``), the rules that bite
(``rules``, ``rule_relevance``), the tie-break's part of each seat edge (``tiebreak``, ``why``) and
the instruments out of line (``instruments``). Only modules here (and the game's command module
``ssb/games/shuffle_swing.py``) may read the game's own package ``simulator.shuffle_swing``."""
