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

RECORDS = ("lead", "setup", "state-ties")
SNS_ONLY = ("setup", "state-ties")  # what only Shuffle and Swing's record offers
LEAD_COLUMN = "lead"
PROJECTED_COLUMN = "lead_projected"
REPLAY_COLUMN = "setup_replay_winner"
SETUP_EVERY = 10  # one deal in ten replayed: about +10% of the run's games
NOT_REPLAYED = -2


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


def lead_lists(rec, nrec):
    """The ``lead`` column from the record's arrays: per game, its first ``nrec`` rows flattened."""
    import numpy as np

    return [np.ascontiguousarray(rec[g, : int(nrec[g])]).reshape(-1).astype(np.int32) for g in range(len(nrec))]


def replay_noise(seeds):
    """The bots' seeds of the set-up replays: one non-zero 64-bit value per deal seed, apart from
    every stream the deal's own game draws (a splitmix64 step of the seed with a fixed offset)."""
    import numpy as np

    z = np.asarray(seeds, dtype=np.uint64) + np.uint64(0x5E7F0A11C0FFEE01)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.where(z == 0, np.uint64(1), z)
