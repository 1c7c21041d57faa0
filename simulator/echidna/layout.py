"""Integer layout of the Echidna Shuffle kernel's three plain arrays.

* ``geo``   (int64)  one board and one set of rule switches, packed by ``simulator.echidna.board``.
* ``st``    (int64)  the whole game state, one flat array (a copy is one memcpy).
* ``strat`` (float64, one row per seat) a strategy profile: kind code, flags, weights.

Every offset is a module-level integer constant (numba folds them). Nothing here imports numba.
A space set is a bit mask in one int64 (a board has at most ``MAX_SPACES`` = 56 spaces).
Seats are numbered in turn order; a seat's colour is its own index.
"""

MAX_SPACES = 56
MAX_PLAYERS = 6
MIN_PLAYERS = 2
PLAYER_COUNTS = (2, 3, 4, 5, 6)
N_ECHIDNAS = 12
BUGS = 3  # bugs and stumps per player
MAX_FACES = 8
MAX_PRED = 4  # most arrows into one space the packer accepts
NONE = -1
N_CAND = 2 * N_ECHIDNAS  # most legal steps at once (two arrows per echidna)

COLOUR_NAMES = ("red", "orange", "blue", "yellow", "green", "purple")
BUG_NAMES = ("ladybug", "butterfly", "ant", "bee", "grasshopper", "beetle")
BUG_PLURALS = ("ladybugs", "butterflies", "ants", "bees", "grasshoppers", "beetles")

# --------------------------------------------------------------------------- geo (int64)
G_NSPACES = 0
G_NPLAYERS = 1
G_NUMBER_BOARD = 2  # 1: the number board (E2); 0: roll every turn (variant 4)
G_CATCH_UP = 3  # variant 1 (E7)
G_HOME_STRETCH = 4  # variant 2 (E8)
G_EXTRA_BUGS = 5  # variant 3 (E6)
G_MAX_ROUNDS = 6  # E9
G_RIDING_LIMIT = 7  # bugs of one player riding at once (2 with 5-6 players, else 3)
G_HS_CAP = 8  # E8
G_SUPPLY = 9  # move tokens in the box
G_NFACES = 10
G_FACES = 11  # MAX_FACES die faces
G_PAIR = G_FACES + MAX_FACES  # number board: G_PAIR + r = the bottom number joined to top number r (0..7)
G_SCHED = G_PAIR + MAX_FACES  # catch-up tokens by seat (MAX_PLAYERS)
G_OUT0 = G_SCHED + MAX_PLAYERS  # first outgoing arrow of each space (MAX_SPACES), always present
G_OUT1 = G_OUT0 + MAX_SPACES  # second outgoing arrow or NONE
G_NPRED = G_OUT1 + MAX_SPACES  # arrows into each space
G_PRED = G_NPRED + MAX_SPACES  # MAX_PRED spaces with an arrow into each space
G_PREDMASK = G_PRED + MAX_SPACES * MAX_PRED  # the same as a mask per space
# Distance along arrows from space a to space b (at least one step: DIST[a][a] is the shortest way
# round back to a), worked out once when the board is packed. Entering is what delivers (E5), so a
# rider standing on its stump is a full loop away from it.
G_DIST = G_PREDMASK + MAX_SPACES
# Who chooses a pick-up space first (E1 and its variant switch ``pickup_order``): one of
# PICKUP_ORDERS, by its index. Reverse turn order (the last seat first) is the rulebook's.
G_PICKUP_ORDER = G_DIST + MAX_SPACES * MAX_SPACES
GEO_SIZE = G_PICKUP_ORDER + 1

PICKUP_ORDERS = ("reverse", "turn", "random")
PICK_REVERSE, PICK_TURN, PICK_RANDOM = range(len(PICKUP_ORDERS))

# --------------------------------------------------------------------------- state (int64)
S_TURN = 0  # turns played
S_ROUND = 1
S_CUR = 2  # seat to play
S_WINNER = 3  # NONE until someone wins
S_STALLED = 4  # 1 when the stall cap (E9) ended the game
S_RNG = 5  # splitmix64 state (bits of a uint64)
S_SUPPLY = 6  # move tokens left in the box
S_OUT = 7  # tokens spent and out of the game (E7 without variant 2)
S_NPLAYERS = 8
S_OCC = 9  # mask of spaces holding an echidna
S_DECISIONS = 10  # choices made by strategies
S_MOVES_LEFT = 11  # regular moves left in the current turn
S_EPOS = 12  # space of each echidna (N_ECHIDNAS)
S_EBUG = S_EPOS + N_ECHIDNAS  # colour of the bug an echidna carries, NONE if empty
S_SPACE = S_EBUG + N_ECHIDNAS  # echidna on each space, NONE if empty (MAX_SPACES)
S_PICK = S_SPACE + MAX_SPACES  # pick-up space per seat (MAX_PLAYERS)
S_STUMPS = S_PICK + MAX_PLAYERS  # mask of the spaces holding a seat's stumps
S_HOME = S_STUMPS + MAX_PLAYERS  # stumps removed (bugs delivered)
S_RIDING = S_HOME + MAX_PLAYERS  # the seat's bugs on echidnas
S_HAND = S_RIDING + MAX_PLAYERS  # the seat's bugs neither riding nor home
S_TOKENS = S_HAND + MAX_PLAYERS  # move tokens held
S_NEXT = S_TOKENS + MAX_PLAYERS  # number for the seat's next turn (0: roll), E2
S_STAT = S_NEXT + MAX_PLAYERS  # N_STAT counters per seat

STAT_NAMES = (
    "moves_made",  # echidna steps made on the seat's turns (tokens included)
    "moves_lost",  # moves forfeited because no echidna could move (E3)
    "tokens_gained",  # catch-up tokens at the start plus home-stretch gains (E7, E8)
    "tokens_spent",
    "pickups",
    "deliveries",  # the seat's bugs delivered, on any turn
    "deliveries_off_turn",  # ... of them, on another player's turn (E5)
    "turns",
)
(
    ST_MOVES_MADE,
    ST_MOVES_LOST,
    ST_TOKENS_GAINED,
    ST_TOKENS_SPENT,
    ST_PICKUPS,
    ST_DELIVERIES,
    ST_DELIVERIES_OFF,
    ST_TURNS,
) = range(len(STAT_NAMES))
N_STAT = len(STAT_NAMES)
STATE_SIZE = S_STAT + MAX_PLAYERS * N_STAT

# Result columns (per seat, per game) the lab's tables hold for this game.
SEAT_COLUMNS = (
    "won",
    "bugs_home",
    "moves_made",
    "moves_lost",
    "tokens_gained",
    "tokens_spent",
    "tokens_left",
    "pickups",
    "deliveries",
    "deliveries_off_turn",
    "turns",
    "rank",
)
GAME_COLUMNS = ("winner", "rounds", "turns", "stalled", "decisions", "moves_lost")



# --------------------------------------------------------------------------- strategy rows (float64)
KIND_NAMES = ("random", "greedy", "lookahead")
KIND_RANDOM, KIND_GREEDY, KIND_LOOKAHEAD = range(3)
P_KIND = 0
P_DEPTH = 1  # lookahead: moves of the turn planned ahead (0: the whole turn)
P_WEIGHTS = 2
WEIGHT_NAMES = (
    "own_distance",  # per step an own rider still has to go to its nearest stump
    "own_delivery",  # per own bug delivered
    "opponent_distance",  # per step an opponent's rider still has to go
    "opponent_delivery",  # per opponent bug delivered
    "pickup_chance",  # per step the nearest empty echidna is from the own pick-up space
    "opponent_pickup",  # an empty echidna left on an opponent's pick-up space
    "blocking",  # an echidna standing just ahead of an opponent's rider
    "token_value",  # what a held token is worth: spend one only for a move that gains more
    "take_bug",  # pick up when this is positive (E4)
    "setup_traffic",  # pick-up space: echidnas within reach of it
    "setup_radius",  # steps within which an echidna counts as traffic
    "stump_far",  # stumps for the neighbour: steps from the neighbour's pick-up space
    "stump_traffic",  # stumps for the neighbour: echidna traffic at the stump
    "setup_random",  # 1: set-up choices at random
    "setup_rollouts",  # set-up search: greedy games played per candidate (0: no search, the greedy set-up)
    "setup_candidates",  # set-up search: pick-up spaces (by traffic) and stump sets tried
    "setup_halving",  # set-up search: 1 = sequential halving, ``setup_rollouts`` a candidate in its first round
    "setup_leaf",  # set-up search: 1 = rollouts end after ``setup_horizon`` rounds, scored by the set-up value
    "setup_horizon",  # set-up search with ``setup_leaf``: rounds played before the value (0: right after the set-up)
)
(
    W_OWN,
    W_OWN_DELIVER,
    W_OPP,
    W_OPP_DELIVER,
    W_PICK,
    W_OPP_PICK,
    W_BLOCK,
    W_TOKEN,
    W_TAKE,
    W_SETUP_TRAFFIC,
    W_SETUP_RADIUS,
    W_STUMP_FAR,
    W_STUMP_TRAFFIC,
    W_SETUP_RANDOM,
    W_SETUP_ROLLOUTS,
    W_SETUP_CANDIDATES,
    W_SETUP_HALVING,
    W_SETUP_LEAF,
    W_SETUP_HORIZON,
) = (P_WEIGHTS + i for i in range(len(WEIGHT_NAMES)))
# The set-up value (``simulator/echidna/data/setup_value.toml``, read by a row whose ``setup_leaf`` is
# set; zeros otherwise): per player count 2..MAX_PLAYERS, ``LEAF_SIZE`` coefficients (the seat
# features of ``kernel/value.py``, then one per seat position after the seat to move).
LEAF_FEATURES = (
    "home",  # bugs delivered
    "riding",  # bugs on an echidna
    "second_wait",  # steps from the second-nearest empty echidna to the pick-up space (with bugs in hand)
    "rider_steps",  # steps the riders still have to go to their nearest stumps
    "hand_x_stump_steps",  # bugs in hand x steps from the pick-up space to the nearest stump
    "pickup_wait",  # steps from the nearest empty echidna to the pick-up space (with bugs in hand)
    "pickup_traffic",  # echidna traffic within 8 steps of the pick-up space (with bugs in hand)
    "tokens",  # catch-up tokens held
    "stump_steps",  # steps from the pick-up space to every stump left, summed
    "pickup_arrows_in",  # arrows into the pick-up space (with bugs in hand)
    "pickup_traffic_wide",  # echidna traffic within 16 steps of the pick-up space (with bugs in hand)
    "stump_traffic",  # echidna traffic within 4 steps of each stump left, summed
)
LEAF_F = len(LEAF_FEATURES)
LEAF_SIZE = LEAF_F + MAX_PLAYERS - 1
P_LEAF = P_WEIGHTS + len(WEIGHT_NAMES)
STRAT_SIZE = P_LEAF + (MAX_PLAYERS - 1) * LEAF_SIZE

# --------------------------------------------------------------------------- event log (int64 rows)
# Row 0: log[0, 0] counts the events written from row 1 on. Columns: turn, seat, code, a, b, c, d.
LOG_WIDTH = 7
EV_ECHIDNA = 1  # a=echidna, b=space (set-up)
EV_PICKSPACE = 2  # a=seat, b=space (set-up, E1)
EV_STUMP = 3  # a=placer, b=colour, c=space (set-up, E1)
EV_TURN = 4  # a=moves, b=1 rolled / 0 number board, c=tokens held
EV_MOVE = 5  # a=echidna, b=from, c=to, d=1 if paid with a token
EV_PICKUP = 6  # a=echidna, b=space
EV_DELIVER = 7  # a=colour, b=echidna, c=space
EV_GAIN = 8  # a=colour gaining a home-stretch token, b=tokens now
EV_LOST = 9  # a=moves lost (E3)
EV_WIN = 10  # a=winner
EV_STALL = 11
EV_TOKENS = 12  # a=seat, b=catch-up tokens at the start (E7)

# Invariant violation codes (check_invariants).
VIOLATIONS = {
    1: "echidnas not on distinct spaces of the board",
    2: "space table or occupancy mask disagrees with the echidnas",
    3: "an echidna carries a bug of no player",
    4: "riding count disagrees with the echidnas' riders",
    5: "bugs not conserved",
    6: "stumps not conserved",
    7: "move tokens not conserved",
    8: "a home-stretch gain went over the cap",
    9: "more bugs riding than the riding limit",
    10: "pick-up spaces not distinct",
    11: "winner without all stumps removed",
    12: "negative count",
}
