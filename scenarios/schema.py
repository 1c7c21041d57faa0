"""Columns of the result tables a run writes and the reports read.

A run directory holds ``seats/`` (one row per game and seat) and ``games/`` (one row per game) as
Parquet chunk files, plus ``manifest.json``. ``reports`` relies on these names only; it never imports
the kernel. Bump ``FORMAT_VERSION`` whenever a column changes meaning.
"""

from simulator.shuffle_swing.layout import DEPT_NAMES, SRC_NAMES, STAT_NAMES

FORMAT_VERSION = 1

# Identify the cell (one instrument set x player count x lineup) and the game within it.
CELL_COLUMNS = (
    "cell",  # int: index of the cell in the scenario's expansion order
    "cell_key",  # str: "players=4|black=Violin|orange=Piano|gray=Horns|lineup=greedy,random,..."
    "players",  # int 2..4
    "inst_black",  # str instrument names
    "inst_orange",
    "inst_gray",
    "lineup",  # str: the lineup before rotation, comma-separated strategy names
    "deal",  # int: index of the deal (setup seed) within the cell
    "rotation",  # int: cyclic shift of the lineup over the seats for this game (paired design)
    "game",  # int: game index within the cell (deal * rotations + rotation)
    "seed",  # uint64 as int64: the game's seed (identical for every rotation of a deal)
)

SEAT_COLUMNS = CELL_COLUMNS + (
    "seat",  # int 0..players-1, turn order
    "strategy",  # str: strategy name at this seat
    "score",  # int: final score = sum of the source columns
    *SRC_NAMES,  # inspector, objective_<dept>, brag_<dept>, penalty_<dept>
    *(f"pieces_{d}" for d in DEPT_NAMES),
    # Brag-track space of the seat's disc per department (-1 = no disc). Not "brag_<dept>": that
    # name is the score source above (points from brag awards).
    *(f"brag_space_{d}" for d in DEPT_NAMES),
    *STAT_NAMES,
    "won",  # 0/1
    "rank",  # 1 = best; ties ordered by the turn-order tie-break (R13)
)

GAME_COLUMNS = CELL_COLUMNS + (
    "winner",  # winning seat
    "winner_strategy",
    "tiebreak",  # 1 if the winner was decided by the tie-break (R13)
    "tied",  # seats sharing the top score
    "rounds",
    "turns",
    "stalled",  # 1 if the safety cap ended the game (R11)
    "decisions",
    *(f"built_{d}" for d in DEPT_NAMES),
    "pri_or_neutral_pieces",
    "pri_penalty_absorbed",  # unbuilt penalty points on Pri's disc (2 players, R12/R14): paid by no player
)

# Columns holding text; every other column is an integer.
STRING_COLUMNS = frozenset(
    {"cell_key", "inst_black", "inst_orange", "inst_gray", "lineup", "strategy", "winner_strategy"}
)

assert len(set(SEAT_COLUMNS)) == len(SEAT_COLUMNS), "duplicate seat column names"
assert len(set(GAME_COLUMNS)) == len(GAME_COLUMNS), "duplicate game column names"
