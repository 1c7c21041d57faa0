"""The learned leaf fitted on the setting it judges, on demand, cached by the setting's data.

The leaf fitted once on the starter set (``data/leaf/tuned.toml``) weighs each instrument's brag
awards, penalties and objectives by what they were worth there; on another instrument the same
coefficients misjudge the state (on the Organ swap at 2 players ``search_leaf`` with the starter's
leaf lost to ``search``). A search profile with ``leaf_fit = "setting"`` therefore reads the leaf
fitted on the very setting of the game it plays: its row carries ``P_LEAF_MODEL = LEAF_ON_SETTING``
and, before a game, ``playout.strategy_matrix`` puts in the row the coefficients ``setting_leaf``
fits for that game's packed data and player count.

The recipe is the shipped file's (``python -m simulator.shuffle_swing.leaf_model fit --games 1500
--seed 3001``): ``FIT_GAMES`` self-play games of the row's own rollout policy (its greedy weights:
every seat plays its basic choice, the search never runs), seeded from ``FIT_SEED + players``
(``simulator.seeds.game_seed``), every seat's features before every turn regressed on its final
score, both less the table's mean (``numpy.linalg.lstsq``), the coefficients rounded to 6
significant digits as the file writes them. So on the starter set the fit *is* the shipped file's
block (a test holds it), and anywhere else it is the same command run on that setting.

The cache key is the SHA-256 of the packed setting (``GameSetup.geo``: the board's and the three
instruments' numbers as the kernel reads them, scenario overrides included), the player count, the
policy row (the leaf's coefficients left out) and the recipe: a changed instrument number refits,
the same data reuses. A fit of 1,500 games costs about 1.5 s of CPU at 2 players (1.8 s at 4); the
cache holds the fits of one process (``MAX_CACHED``). ``setting_leaf`` returns with the
coefficients a record for a run's manifest: the key, the coefficients' SHA-256, seed, games, R^2.
"""

import hashlib
from collections import OrderedDict

import numpy as np

from simulator.seeds import game_seed
from simulator.shuffle_swing.kernel.leaf import leaf_samples
from simulator.shuffle_swing.layout import LEAF_COUNTS, N_LEAF_FEAT, N_OWNERS, P_LEAF_COEF, P_LEAF_MODEL

LEAF_ON_SETTING = 2.0  # P_LEAF_MODEL of a row whose leaf is fitted on the setting of its game
FIT_GAMES = 1500  # self-play games of one fit (the shipped file's recipe)
FIT_SEED = 3001  # the fit's games are seeded from FIT_SEED + the player count (the same)
FIT_METHOD = "numpy.linalg.lstsq, seat final score on the seat's features before every turn, both less the table's mean"
MAX_TURNS = 2000  # turns recorded per game (a game of the round cap plays fewer)
MAX_CACHED = 64

_CACHE: OrderedDict = OrderedDict()


def policy_row(row):
    """The row without its leaf (flag and coefficients): what the fit's self-play depends on."""
    r = np.array(row, dtype=np.float64)
    r[P_LEAF_MODEL] = 0.0
    r[P_LEAF_COEF : P_LEAF_COEF + len(LEAF_COUNTS) * N_LEAF_FEAT] = 0.0
    return r


def setting_key(geo, nplayers, row, games=FIT_GAMES, seed=FIT_SEED):
    """SHA-256 of everything a setting's fit depends on."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(geo).astype(np.int64).tobytes())
    h.update(np.ascontiguousarray(policy_row(row)).tobytes())
    h.update(f"{int(nplayers)}:{int(games)}:{int(seed)}".encode())
    return h.hexdigest()


def samples(geo, nplayers, row, seeds):
    """``(X, y)``: every seat's features before every turn and its final score, one self-play game
    per seed, every seat on ``row``'s basic choice."""
    strat = np.zeros((N_OWNERS, len(row)), dtype=np.float64)
    strat[:nplayers] = policy_row(row)
    feats = np.zeros((MAX_TURNS, N_OWNERS * N_LEAF_FEAT))
    finals = np.zeros(N_OWNERS, dtype=np.int64)
    xs, ys = [], []
    for seed in seeds:
        t = leaf_samples(geo, nplayers, strat, np.uint64(seed), feats, finals)
        f = feats[:t].reshape(t, N_OWNERS, N_LEAF_FEAT)[:, :nplayers, :]
        xs.append(f.reshape(-1, N_LEAF_FEAT))
        ys.append(np.tile(finals[:nplayers].astype(np.float64), t))
    return np.concatenate(xs), np.concatenate(ys)


def relative(x, y, nplayers):
    """Each seat's features and final score less the mean of its table's (the rows of one state
    come in blocks of ``nplayers``): the search reads margins, not levels."""
    xs = x.reshape(-1, nplayers, x.shape[1])
    ys = y.reshape(-1, nplayers)
    return (xs - xs.mean(axis=1, keepdims=True)).reshape(x.shape), (ys - ys.mean(axis=1, keepdims=True)).ravel()


def fit(x, y):
    """Least-squares coefficients of ``y ~ x`` (``numpy.linalg.lstsq``) and the share of ``y``'s
    variance they explain. Columns that are 0 throughout (up to rounding) get coefficient 0."""
    used = np.abs(x).max(axis=0) > 1e-9
    coef = np.zeros(x.shape[1])
    coef[used], *_ = np.linalg.lstsq(x[:, used], y, rcond=None)
    resid = y - x @ coef
    r2 = 1.0 - resid.var() / y.var() if y.var() > 0 else 0.0
    return coef, float(r2)


def rounded(coef):
    """Coefficients as the leaf file writes them (6 significant digits)."""
    return tuple(float(f"{v:.6g}") for v in coef)


def coef_sha256(coef):
    return hashlib.sha256(",".join(f"{v:.6g}" for v in coef).encode()).hexdigest()


def fit_setting(geo, nplayers, row, games=FIT_GAMES, seed=FIT_SEED):
    """The leaf fitted on one setting (no cache): ``(coefficients, record)``."""
    seeds = [game_seed(seed + nplayers, g) for g in range(games)]
    x, y = samples(geo, nplayers, row, seeds)
    coef, r2 = fit(*relative(x, y, nplayers))
    coef = rounded(coef)
    record = {"players": int(nplayers), "games": int(games), "seed": int(seed), "seat_states": int(len(y)),
              "r2": round(r2, 4), "coef_sha256": coef_sha256(coef), "fit": FIT_METHOD}
    return coef, record


def setting_leaf(geo, nplayers, row, games=FIT_GAMES, seed=FIT_SEED):
    """The leaf of ``row`` fitted on the setting ``geo`` at ``nplayers``, from the cache when this
    process fitted it before: ``(coefficients, record)``; the record adds the cache key and whether
    this call fitted it."""
    key = setting_key(geo, nplayers, row, games, seed)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit[0], {**hit[1], "fitted_now": False}
    coef, record = fit_setting(geo, nplayers, row, games, seed)
    record = {"key": key, **record}
    _CACHE[key] = (coef, record)
    while len(_CACHE) > MAX_CACHED:
        _CACHE.popitem(last=False)
    return coef, {**record, "fitted_now": True}


def apply_setting_leaves(full, geo, nplayers):
    """Put into every row of ``full`` (the seats' strategy rows) whose leaf is fitted on the setting
    the coefficients for ``geo`` at ``nplayers`` (its block of that player count); in place. Returns
    the records of the fits, one per such row."""
    block = P_LEAF_COEF + (min(max(nplayers, 2), 4) - 2) * N_LEAF_FEAT
    records = []
    for i in range(nplayers):
        if full[i, P_LEAF_MODEL] == LEAF_ON_SETTING:
            coef, record = setting_leaf(geo, nplayers, full[i])
            full[i, block : block + N_LEAF_FEAT] = coef
            records.append(record)
    return records


def clear_cache():
    _CACHE.clear()
