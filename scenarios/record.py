"""What a run records beyond its result tables: a scenario's ``record`` key (both games).

``record = ["lead"]`` (or ``--set 'record=["lead"]'``) adds the per-round lead record
(``simulator.lead_record``): each game's row of the games table gets a column ``lead``, the list of
each seat's standing after each round, rounds times seats, row by row. The readers of the result
tables select their columns by name, so the extra column changes nothing for them;
``reports.feel_data.load_lead`` reads it back. Without the key nothing is recorded and the scenario's
text (and so its hash and its seeds) is what it always was.

Shuffle and Swing records more (``simulator.shuffle_swing.lead_record``):

* with ``lead``, a second column ``lead_projected``: each seat's projected final score after each
  round, in tenths of a point (the search player's leaf evaluation; the game-feel measures use it by
  default);
* ``setup``: every :data:`SETUP_EVERY`-th deal is played a second time, the same set-up with other
  draws of the bots, and the column ``setup_replay_winner`` holds the replay's winning seat (``-2``
  where the deal was not replayed): what the set-up decides against what the bots' noise decides;
* ``state-ties``: the bots break their ties by a hash of the state instead of drawing: every game
  is a function of its set-up alone (no bot noise). It changes the games, so it is a setting of
  the run (in its text and hash), never the default.
"""

from simulator.lead_record import NOT_REPLAYED, SETUP_EVERY, lead_lists, replay_noise  # noqa: F401

RECORDS = ("lead", "setup", "state-ties")
SNS_ONLY = ("setup", "state-ties")  # what only Shuffle and Swing's record offers
LEAD_COLUMN = "lead"
PROJECTED_COLUMN = "lead_projected"
REPLAY_COLUMN = "setup_replay_winner"


def check_record(ck, raw, key="record", known=RECORDS):
    """The validated ``record`` list (a tuple of ``known`` names; empty when absent)."""
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    names = ck.str_list(raw, key, what="records")
    for i, name in enumerate(names):
        if name not in known:
            ck.fail(f"{key}[{i}]", f"unknown record '{name}' (known: {', '.join(known)})")
    return tuple(names)


