"""What a run records beyond its result tables: a scenario's ``record`` key (both games).

``record = ["lead"]`` (or ``--set 'record=["lead"]'``) adds the per-round lead record
(``simulator.lead_record``): each game's row of the games table gets a column ``lead``, the list of
each seat's standing after each round, rounds times seats, row by row. The readers of the result
tables select their columns by name, so the extra column changes nothing for them;
``reports.feel_data.load_lead`` reads it back. Without the key nothing is recorded and the scenario's
text (and so its hash and its seeds) is what it always was.
"""

RECORDS = ("lead",)
LEAD_COLUMN = "lead"


def check_record(ck, raw, key="record"):
    """The validated ``record`` list (a tuple of :data:`RECORDS` names; empty when absent)."""
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    names = ck.str_list(raw, key, what="records")
    for i, name in enumerate(names):
        if name not in RECORDS:
            ck.fail(f"{key}[{i}]", f"unknown record '{name}' (known: {', '.join(RECORDS)})")
    return tuple(names)


def lead_lists(rec, nrec):
    """The ``lead`` column from the record's arrays: per game, its first ``nrec`` rows flattened."""
    import numpy as np

    return [np.ascontiguousarray(rec[g, : int(nrec[g])]).reshape(-1).astype(np.int32) for g in range(len(nrec))]
