"""Integer layout shared by the loader, the kernel and the result tables.

The kernel works on three plain arrays:

* ``geo``   (int64)  the component data of one game: board facts and the three instruments in play.
* ``st``    (int32)  the whole mutable game state, one flat array, so a copy is one memcpy.
* ``strat`` (float64, one row per seat) the policy profile of each seat: a kind code, flags, weights.

Every offset below is a module-level integer constant, which numba folds at compile time.
Nothing here imports numba; the module is safe to import from anywhere.

Board geometry (clockwise)::

        black spots 0 1 2   |room 0|   orange spots 3 4 5   |room 1|   gray spots 6 7 8   |room 2|  -> black
                  (1, 4, 7 are the middle "4" spots, open only with four players)

Quilt (player board): row r holds columns 1..r, so column c holds rows c..4::

        row 1:  q0
        row 2:  q1 q2
        row 3:  q3 q4 q5
        row 4:  q6 q7 q8 q9
"""

# --------------------------------------------------------------------------- fixed sizes
N_DEPT = 3
BLACK = 0
ORANGE = 1
GRAY = 2
COLOUR_NAMES = ("black", "orange", "gray")
DEPT_NAMES = COLOUR_NAMES

# Boost token types: the token a track hands out is indexed by the track's department.
LADDER = 0
MILK = 1
CHEESE = 2
TOKEN_NAMES = ("ladder", "milk", "cheese")

MAX_PLAYERS = 4
AUTOMA = 4  # owner index of Pri (2 players, R14) or of the neutral (3 players, R15)
N_OWNERS = 5
NOBODY = -1

MAX_SPACES = 32
MAX_LINKS = 8
MAX_EDGES = 63  # lines per instrument: the inspector search keeps used lines in one int64 mask
MAX_SECTIONS = 12
MAX_TERMS = 3
MAX_AWARDS = 4
N_TRACK = 8
N_QUILT = 10
N_SPOTS = 9
N_ROOMS = 3
N_SLICES = 4
DICE_PER_OWNER = 3
N_DICE = N_OWNERS * DICE_PER_OWNER
BUILD_PIECES = 25
UPGRADE_PIECES = 6

# Actions on wheel slices.
CONSTRUCT = 0
REFRESH = 1
INSPECT = 2
ACTION_NAMES = ("construct", "refresh", "inspect")

# Die faces: novice 1, 2, 3 then expert 2*, 3*, 4*.
FACE_NAMES = ("1", "2", "3", "2*", "3*", "4*")
FACE_PIPS = (1, 2, 3, 2, 3, 4)
NOVICE_START = 0
EXPERT_START = 3
NOVICE_TOP = 2
EXPERT_TOP = 5

# Where a die is.
W_SUPPLY = 0
W_WHEEL = 1
W_ROOM = 2
W_ABSENT = 3  # dice of owners not in this game

# Quilt: row and column (1-based) of each quilt space.
QUILT_ROW = (1, 2, 2, 3, 3, 3, 4, 4, 4, 4)
QUILT_COL = (1, 1, 2, 1, 2, 3, 1, 2, 3, 4)

# --------------------------------------------------------------------------- scoring vocabulary
# Term codes an instrument section can carry (see simulator/shuffle_swing/instruments.py for the file syntax).
T_NONE = 0
T_RANK = 1  # rank owners by pieces in scope, award list by rank
T_RANK_ORDER = 2  # as T_RANK, but the award list depends on completion order (first list, then second)
T_PER_PIECE = 3  # every owner scores p1 points per piece in scope
T_COMPLETER = 4  # completer p1/p2 per piece, every other owner p3/p4 per piece (rounded down)
T_ADJ_PRESENCE = 5  # p1 points to each owner with a piece in every adjacent section
T_ADJ_PER_PIECE = 6  # p1 points per piece an owner has in the adjacent sections
T_MAJORITY_ALL = 7  # top owner scores every piece in scope, the others their own pieces
T_LONGEST_GROUP = 8  # p1 points per space of the owner's longest connected group touching the section
TERM_NAMES = (
    "none",
    "rank",
    "rank_by_order",
    "per_piece",
    "completer",
    "adjacent_presence",
    "adjacent_per_piece",
    "majority_takes_all",
    "longest_group",
)

# --------------------------------------------------------------------------- geo (int64) layout
# Board part.
G_NPLAYERS = 0  # informational; the kernel reads the player count from the state
G_BUILD_PIECES = 1  # build (inner) pieces per player
G_UPG_PIECES = 2  # upgrade (outer) pieces per player
G_START_CATS = 3  # [3] ready cats of each colour at setup
G_MAX_ROUNDS = 6  # safety cap (R11)
G_SLICE_ACTIONS = 7  # [N_SLICES] the four slices of every wheel, before shuffling
G_SHUFFLE_WHEELS = 11  # 1: shuffle each wheel at setup (seeded); 0: keep the data order
# Ruling switches ([rulings] in board.toml); 0 is the ruling the engine follows by default.
G_PENALTY_LAST = 12  # 0: Pri's disc takes part in last place (R12/R14); 1: Pri ignored, the last player pays
G_PRI_PIECE_CREDIT = 13  # 0: a Pri piece is Pri's (R10/R14); 1: its placer completes and scores the inspector
# R13 tie-break: 0 the latest tied seat wins (as decided); 1 tied wins shared (one tied seat drawn per
# tie, so each tied seat wins 1/k of its ties on average); 2 the earliest tied seat wins.
G_TIE_BREAK = 14
TIE_LATEST = 0
TIE_SHARED = 1
TIE_EARLIEST = 2
G_INST = 16  # first instrument block

# Instrument block, relative offsets.
I_NSPACES = 0
I_PENALTY = 1  # points lost per unbuilt space (R12)
I_NSECTIONS = 2
I_NEDGES = 3
I_NEUTRAL = 4  # [2] spaces that get neutral pieces with three players (R15)
I_TOTAL_COST = 6
I_COST = 8  # [MAX_SPACES] number on the space: build cost and inspector value
I_COLOUR = I_COST + MAX_SPACES  # [MAX_SPACES] cat colour paid
I_SECMASK = I_COLOUR + MAX_SPACES  # [MAX_SPACES] bit s set if the space belongs to section s
I_NLINKS = I_SECMASK + MAX_SPACES  # [MAX_SPACES]
I_LINK = I_NLINKS + MAX_SPACES  # [MAX_SPACES * MAX_LINKS] neighbour space
I_LINKEDGE = I_LINK + MAX_SPACES * MAX_LINKS  # [MAX_SPACES * MAX_LINKS] id of the line used
I_SEC_SPACES = I_LINKEDGE + MAX_SPACES * MAX_LINKS  # [MAX_SECTIONS] bit mask of the section's spaces
I_SEC_ADJ = I_SEC_SPACES + MAX_SECTIONS  # [MAX_SECTIONS] bit mask of adjacent sections
I_SEC_NUMBER = I_SEC_ADJ + MAX_SECTIONS  # [MAX_SECTIONS] printed number (display only)
I_TERM_CODE = I_SEC_NUMBER + MAX_SECTIONS  # [MAX_SECTIONS * MAX_TERMS]
I_TERM_SCOPE = I_TERM_CODE + MAX_SECTIONS * MAX_TERMS  # [..] bit mask of spaces the term counts
I_TERM_P = I_TERM_SCOPE + MAX_SECTIONS * MAX_TERMS  # [.. * 4] integer parameters p1..p4
I_TERM_NAWARDS = I_TERM_P + MAX_SECTIONS * MAX_TERMS * 4  # [..]
I_TERM_AWARDS = I_TERM_NAWARDS + MAX_SECTIONS * MAX_TERMS  # [.. * MAX_AWARDS] first list
I_TERM_AWARDS2 = I_TERM_AWARDS + MAX_SECTIONS * MAX_TERMS * MAX_AWARDS  # second list (rank_by_order)
I_TRACK_NEED = I_TERM_AWARDS2 + MAX_SECTIONS * MAX_TERMS * MAX_AWARDS  # [N_TRACK] pieces needed
I_TRACK_VP = I_TRACK_NEED + N_TRACK  # [N_TRACK] end-game points
I_TRACK_TOKEN = I_TRACK_VP + N_TRACK  # [N_TRACK] 1 if entering gives a token
I_ALL_SPACES = I_TRACK_TOKEN + N_TRACK  # bit mask of every space
# Derived fields (instruments.pack_derived). From the line table, for the inspector route search
# (R8):
I_INCIDENT = I_ALL_SPACES + 1  # [MAX_SPACES] bit mask of the lines at each space
I_EDGE_XOR = I_INCIDENT + MAX_SPACES  # [MAX_EDGES] a ^ b of a line's two spaces (the other end)
# From the space numbers and colours, for the placements a seat can pay for (R6):
MAX_NUMBER = 3  # space numbers are 1..MAX_NUMBER
I_AFFORD = I_EDGE_XOR + MAX_EDGES  # [3 * (MAX_NUMBER + 1)] spaces of colour c numbered <= k, at c * (MAX_NUMBER + 1) + k
# From the scoring terms, for the greedy placement worth: a rough worth per space of each section's
# objective, as float64 bits (read with kernel_common.float_bits).
I_SEC_WORTH = I_AFFORD + 3 * (MAX_NUMBER + 1)  # [MAX_SECTIONS]
INST_SIZE = I_SEC_WORTH + MAX_SECTIONS + 1
# Seat levers ([seats] in board.toml, packed for the game's player count), after the instruments.
# Every field is 0 for the rulebook's set-up, so a geo of zeros plays today's rules.
G_SEATS = G_INST + N_DEPT * INST_SIZE
G_SEAT_POINTS = G_SEATS  # [MAX_PLAYERS] points each seat starts with
G_SEAT_CATS = G_SEAT_POINTS + MAX_PLAYERS  # [MAX_PLAYERS * 3] ready cats by colour beyond G_START_CATS
G_SEAT_TOKENS = G_SEAT_CATS + MAX_PLAYERS * 3  # [MAX_PLAYERS * 3] boost tokens by type at set-up
G_SEAT_EXPERTS = G_SEAT_TOKENS + MAX_PLAYERS * 3  # [MAX_PLAYERS] dice starting on 2* instead of "1"
# Brag-disc stacks at set-up: 0 = reverse turn order (the rulebook); 1 = each seat's place in every
# starting stack is G_BRAG_STACK + seat (0 = bottom, which wins ties; R9, R10).
G_BRAG_STACK_SET = G_SEAT_EXPERTS + MAX_PLAYERS
G_BRAG_STACK = G_BRAG_STACK_SET + 1  # [MAX_PLAYERS]
SEATS_SIZE = G_BRAG_STACK + MAX_PLAYERS - G_SEATS
GEO_SIZE = G_SEATS + SEATS_SIZE

# --------------------------------------------------------------------------- state (int32) layout
S_NPLAYERS = 0
S_TURN = 1  # turns played so far
S_ROUND = 2  # current round, from 0
S_CUR = 3  # seat to play
S_ENDING = 4  # 1 once two instruments are built (R11)
S_OVER = 5  # 1 when the game has been scored
S_STALLED = 6  # 1 if the round cap ended the game
S_STAMP = 7  # arrival counter for brag-track stacks
S_MAX_ROUNDS = 8
S_WINNER = 9
S_TIEBREAK = 10  # 1 if the winner was decided by the turn-order tie-break (R13)
S_TIED = 11  # number of seats tied on the top score
S_PASSED = 12  # 1 if the current turn was a pass
S_WHEEL_SHUFFLED = 13

S_PAWN = 16  # [N_OWNERS] spot or -1
S_SLICE_ACTION = S_PAWN + N_OWNERS  # [N_DEPT * N_SLICES]
S_SLICE_DIE = S_SLICE_ACTION + N_DEPT * N_SLICES  # [N_DEPT * N_SLICES] die id or -1
S_DIE_WHERE = S_SLICE_DIE + N_DEPT * N_SLICES  # [N_DICE]
S_DIE_POS = S_DIE_WHERE + N_DICE  # [N_DICE] wheel slot (dept * 4 + slice) or room
S_DIE_FACE = S_DIE_POS + N_DICE  # [N_DICE]
S_ROOM_DIE = S_DIE_FACE + N_DICE  # [N_ROOMS] die id or -1
S_READY = S_ROOM_DIE + N_ROOMS  # [N_OWNERS * 3] ready cats by colour
S_QUILT = S_READY + N_OWNERS * 3  # [N_OWNERS * N_QUILT] colour of the exhausted cat or -1
S_TOKENS = S_QUILT + N_OWNERS * N_QUILT  # [N_OWNERS * 3]
S_BUILD_LEFT = S_TOKENS + N_OWNERS * 3  # [N_OWNERS]
S_UPG_LEFT = S_BUILD_LEFT + N_OWNERS  # [N_OWNERS]
S_INNER = S_UPG_LEFT + N_OWNERS  # [N_DEPT * MAX_SPACES] owner or -1
S_OUTER = S_INNER + N_DEPT * MAX_SPACES  # [N_DEPT * MAX_SPACES] owner or -1
S_INSPECTOR = S_OUTER + N_DEPT * MAX_SPACES  # [N_DEPT] space or -1 (off the board)
S_BRAG_POS = S_INSPECTOR + N_DEPT  # [N_DEPT * N_OWNERS] track space, -1 = no disc
S_BRAG_STAMP = S_BRAG_POS + N_DEPT * N_OWNERS  # [N_DEPT * N_OWNERS] arrival order (lower = beneath)
S_PIECES = S_BRAG_STAMP + N_DEPT * N_OWNERS  # [N_DEPT * N_OWNERS] pieces (inner + outer)
S_EMPTY = S_PIECES + N_DEPT * N_OWNERS  # [N_DEPT] spaces without an inner piece
S_BUILT = S_EMPTY + N_DEPT  # [N_DEPT] 1 once every space holds an inner piece
S_BUILT_TURN = S_BUILT + N_DEPT  # [N_DEPT] turn on which it was completed, -1
S_SEC_STATE = S_BUILT_TURN + N_DEPT  # [N_DEPT * MAX_SECTIONS] 0 open, 1 completed this turn, 2 scored
S_SEC_COMPLETER = S_SEC_STATE + N_DEPT * MAX_SECTIONS  # [N_DEPT * MAX_SECTIONS] owner
S_ORDER_DONE = S_SEC_COMPLETER + N_DEPT * MAX_SECTIONS  # [N_DEPT] rank_by_order sections scored
S_SCORE = S_ORDER_DONE + N_DEPT  # [N_OWNERS] total score
N_SRC = 10
SRC_INSPECTOR = 0
SRC_OBJECTIVE = 1  # + department
SRC_BRAG = 4  # + department
SRC_PENALTY = 7  # + department
SRC_NAMES = (
    "inspector",
    "objective_black",
    "objective_orange",
    "objective_gray",
    "brag_black",
    "brag_orange",
    "brag_gray",
    "penalty_black",
    "penalty_orange",
    "penalty_gray",
)
S_SRC = S_SCORE + N_OWNERS  # [N_OWNERS * N_SRC]

# Per-seat counters.
N_STAT = 19
ST_CATS_RECRUITED = 0
ST_CATS_LOST = 1
ST_TOKENS_GAINED = 2
ST_TOKENS_SPENT = 3
ST_PICKUPS = 4  # dice picked up from break rooms
ST_BUMPED = 5  # own dice bumped out of a break room by someone
ST_BUMPS_MADE = 6  # dice this seat bumped
ST_PASSES = 7
ST_BRAGS = 8  # brag steps taken (all origins)
ST_BUILDS = 9
ST_UPGRADES = 10
ST_CATS_REFRESHED = 11
ST_TURNS = 12
ST_ACTION_BRAGS = 13  # actions replaced by a brag
ST_CHEESE_JUMPS = 14  # spaces the seat's inspector moves jumped with a cheese (R8)
ST_UPGRADES_ON_OTHERS = 15  # upgrades placed on another owner's inner piece (R6, with a ladder)
ST_AWARD_BY_DISC = 16  # end awards (R12) limited by the disc: disc space below what the pieces allow
ST_AWARD_BY_PIECES = 17  # end awards limited by the pieces: the pieces allow less than the disc space
ST_PENALTY_TAKEN = 18  # points of unbuilt penalty assigned to this owner (R12); for Pri: absorbed
STAT_NAMES = (
    "cats_recruited",
    "cats_lost",
    "tokens_gained",
    "tokens_spent",
    "pickups",
    "bumped",
    "bumps_made",
    "passes",
    "brags",
    "builds",
    "upgrades",
    "cats_refreshed",
    "turns",
    "action_brags",
    "cheese_jumps",
    "upgrades_on_others",
    "award_by_disc",
    "award_by_pieces",
    "penalty_taken",
)
S_STAT = S_SRC + N_OWNERS * N_SRC  # [N_OWNERS * N_STAT]
S_DECISIONS = S_STAT + N_OWNERS * N_STAT  # decisions taken in the game (for the benchmark)
# Greedy turn choices of the game and how many of them the 1e-6 noise term decided
# (benchmarks/bench_ties.py): a tie is another candidate within 1e-6 of the chosen one's worth; a
# genuine tie is one with a candidate that differs in more than the pawn spot within the department
# (spots of one department are interchangeable, R1).
S_CHOICES = S_DECISIONS + 1
S_TIES = S_DECISIONS + 2  # genuine ties
S_TIES_SPOT = S_DECISIONS + 3  # ties of any kind, spot-only ones included
STATE_SIZE = S_DECISIONS + 4

# --------------------------------------------------------------------------- strategy (float64) layout
# A strategy is one row of floats: a policy kind, its parameters, and the weights of the greedy
# evaluation, once for the early game and once for the late game.
#
#   [0 .. P_WEIGHTS)                     kind and parameters (PARAMS below)
#   [P_WEIGHTS .. P_WEIGHTS_LATE)        weights, early game (the only row unless P_PHASE is 1)
#   [P_WEIGHTS_LATE .. P_WEIGHTS_EARLY)  weights, late game
#   [P_WEIGHTS_EARLY .. P_LEAF_COEF)     a copy of the early row (read only when P_PHASE is 1)
#   [P_LEAF_COEF .. P_HORIZON_4)         the search leaf's fitted coefficients, one block of
#                                        N_LEAF_FEAT per player count 2, 3, 4 (read when P_LEAF_MODEL is 1)
#   P_HORIZON_4                          search: a rollout's turns at 4 players (PARAMS ``horizon_4``)
P_KIND = 0
KIND_RANDOM = 0
KIND_GREEDY = 1
KIND_LOOKAHEAD = 2
KIND_SEARCH = 3
KIND_NAMES = ("random", "greedy", "lookahead", "search")
P_FOCUS = 1  # department the player favours, -1 none
P_BUDGET = 2  # rollouts: per candidate move (lookahead), per decision (search)
P_HORIZON = 3  # search: turns a rollout plays before the leaf evaluation (0: to the end of the game)
P_TEMPERATURE = 4  # softmax temperature over the evaluation's worths (0: the best worth; inf: uniform)
P_MAX_JUMPS = 5  # cheese jumps the inspector route search considers in one inspect (R4, R8)
P_PRI_SETUP = 6  # 0: Pri's start spot and Construct slices drawn at random; 1: chosen by the policy (R14)
P_PHASE = 7  # 1: weights interpolated from the early to the late row by game progress
P_CANDIDATES = 8  # search: distinct actions the budget is spread over (sequential halving)
P_WIN_BONUS = 9  # search: worth of a win, in points on top of the margin, in a rollout's outcome
P_LEAF_RESOURCES = 10  # search: leaf worth of ready cats and tokens, times the seat's cat and token weights
P_LEAF_POTENTIAL = 11  # search: share of the brag award between min(disc, cube) and max(disc, cube) the leaf counts
P_PRIOR = 12  # search: weight of an action's greedy worth added to its mean rollout outcome
P_FIRST_ROLLOUTS = 13  # search: least rollouts per action in every halving round (0: as the budget splits, at least 1)
P_SETTLE = 14  # search: end the halving after a round whose leader is this many points ahead on the mean (0: never)
P_LEAF_MODEL = 15  # search: 1 = the leaf is the fitted linear model at P_LEAF_COEF (a profile's leaf_model); 0 = the hand leaf
P_WEIGHTS = 16
WEIGHT_NAMES = (
    "points",  # an immediate victory point
    "opponent_points",  # an immediate point to an opponent (subtracted)
    "piece",  # a piece placed, before its effect on brag awards and majorities
    "brag_award",  # a point of end-game brag award secured (min(disc, cube) rises)
    "majority",  # a point of objective award the placement moves towards
    "brag_step",  # a brag step beyond what pieces can back
    "cat",  # a ready cat of a colour an instrument needs
    "cat_lost",  # a cat that has no quilt space and is lost
    "refresh_cat",  # a cat brought back from the quilt
    "token",  # a boost token held
    "token_spent",  # cost of spending a token
    "expert",  # turning a novice die into an expert die
    "die_to_opponent",  # giving an opponent a recruit by using their die
    "focus",  # bonus for actions on the focused instrument
    "penalty_risk",  # weight on avoiding last place of an unbuilt instrument
    "inspector_action",  # bonus per point scored through the inspect action
    "finish",  # a point towards finishing instruments (game-end pressure)
    # Appended later (0 in `greedy`, so its play is unchanged; a feature whose weight is 0 is not
    # even computed):
    "block",  # the move leaves no open spot in its department: the others are shut out of it (R1)
    "next_pickup",  # share of a pickup's worth (expert + two brags) per own die left in a break room
    #                 next to the pawn's department, which the next move can pass (R2)
    "landing",  # share of this seat's own worth of the action and pips the used die lands on (R5)
    "serve_next",  # the used die's owner recruits again when it is next used: +1 own, -1 an opponent's
)
N_WEIGHTS = len(WEIGHT_NAMES)
P_WEIGHTS_LATE = P_WEIGHTS + N_WEIGHTS
# With P_PHASE 1 the kernel reads the weights at P_WEIGHTS as always, but rewrites them at the start
# of the game and of every turn (``policy.phase_weights``) from a kept copy of the early row and the
# late row: early + progress * (late - early), progress being the share of the build spaces filled
# on the two instruments nearest completion (1 when the game end is triggered, R11). A row built by
# hand with P_PHASE 1 must therefore fill P_WEIGHTS_EARLY as well (``Strategy.row`` does).
P_WEIGHTS_EARLY = P_WEIGHTS_LATE + N_WEIGHTS
# The search's learned leaf (kernel/leaf.py): a seat's expected final score as a linear sum of these
# features of a state (the hand leaf's terms, each also scaled by the share of the game left).
LEAF_FEATURES = (
    "score",  # points so far
    "brag_award",  # end-game brag awards of min(disc, cube level), times the chance the instrument is built (R12)
    "brag_reach",  # the award between min and max(disc, cube level), times the same chance
    "penalty",  # minus the expected penalty for last place on an unbuilt instrument's track (R12)
    "objectives",  # what the open sections would pay now, times the chance they are completed (R10)
    "cats",  # ready cats
    "tokens",  # boost tokens held
    "brag_award_left",  # each of the six above times the share of the game left (1 - progress)
    "brag_reach_left",
    "penalty_left",
    "objectives_left",
    "cats_left",
    "tokens_left",
    "order_left",  # seats to play before this one (0 for the seat to play), over seats - 1, times the share left
    "left",  # the share of the game left
    "one",  # a constant
)
N_LEAF_FEAT = len(LEAF_FEATURES)
LEAF_COUNTS = (2, 3, 4)  # player counts with a block of coefficients each
P_LEAF_COEF = P_WEIGHTS_EARLY + N_WEIGHTS
# search: turns a rollout plays at 4 players; at 3 players halfway between it and P_HORIZON (rounded
# down); at 2 players P_HORIZON. 0: P_HORIZON at every count. (After the leaf's blocks: a parameter
# added last moves no offset.)
P_HORIZON_4 = P_LEAF_COEF + len(LEAF_COUNTS) * N_LEAF_FEAT
STRAT_SIZE = P_HORIZON_4 + 1

# The parameters a profile may set in its [strategy] table: name -> (offset, lowest, highest,
# default, integer). ``strategies.library`` validates against this table, so a new parameter is one
# line here plus the kernel code that reads it.
PARAMS = {
    "budget": (P_BUDGET, 1, 100000, 0, True),
    "horizon": (P_HORIZON, 0, 1000, 0, True),
    "temperature": (P_TEMPERATURE, 0.0, float("inf"), 0.0, False),
    "max_jumps": (P_MAX_JUMPS, 0, 16, 2, True),
    "pri_setup": (P_PRI_SETUP, 0, 1, 0, True),
    "candidates": (P_CANDIDATES, 1, 256, 8, True),
    "win_bonus": (P_WIN_BONUS, 0.0, 1000.0, 10.0, False),
    "leaf_resources": (P_LEAF_RESOURCES, 0.0, 10.0, 0.0, False),
    "leaf_potential": (P_LEAF_POTENTIAL, 0.0, 1.0, 0.0, False),
    "prior": (P_PRIOR, 0.0, 100.0, 1.0, False),
    "first_rollouts": (P_FIRST_ROLLOUTS, 0, 1000, 0, True),
    "settle": (P_SETTLE, 0.0, 1000.0, 0.0, False),
    "horizon_4": (P_HORIZON_4, 0, 1000, 0, True),
}

# --------------------------------------------------------------------------- event log (int32 rows)
LOG_WIDTH = 8  # turn, seat, code, a, b, c, d, e
EV_MOVE = 1  # seat, from spot, to spot, room passed or -1
EV_PICKUP = 2  # seat, room, die
EV_BRAG = 3  # seat, dept, new space, token type gained or -1, origin
EV_SELECT = 4  # seat, die, dept, slice, from_supply * 16 + face
EV_RECRUIT = 5  # owner, colour
EV_PRI_PIECE = 6  # dept, space, inner (0) or outer (1)
EV_ACTION_BRAG = 7  # seat, dept
EV_BUILD = 8  # seat, dept, space, outer (1) or inner (0), cost * 16 + ladders used
EV_SCORE = 9  # owner, points, source, dept, space (inspector), section + SCORE_TERM_SHIFT * term (objective)
SCORE_TERM_SHIFT = 16  # an objective score event's section index carries the term's index above it
EV_REFRESH = 10  # seat, pips, row (1) / column (2) / both (3), cats refreshed
EV_INSPECT_STEP = 11  # seat, dept, space, jumped (1) or scored (0)
EV_TICK = 12  # die, dept, new slice, new face
EV_TO_ROOM = 13  # die, room
EV_BUMP = 14  # bumped die, room, its owner
EV_PASS = 15  # seat
EV_SECTION = 16  # dept, section, completer
EV_PRI_MOVE = 17  # to spot, from spot
EV_PRI_CLIMB = 18  # dept
EV_EXHAUST = 19  # seat, colour, quilt space or -1 (lost)
EV_FORFEIT = 20  # seat, pips forfeited
EV_GAME_END = 21  # rounds played, stalled flag
EV_FINAL = 22  # winner, best score, seats tied (end-game points are EV_SCORE rows)
EV_TRIGGER = 23  # instruments built when the end is triggered
EV_BOOST = 24  # seat, token type, count

# Brag origins for EV_BRAG.
BRAG_PICKUP = 0
BRAG_BUMP = 1
BRAG_ACTION = 2
BRAG_PRI = 3
