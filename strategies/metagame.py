"""Playing the meta-game of a strategy pool, and the skill-vs-bot-noise figure per setting.

:func:`play_profiles` plays the pool's empirical game on the real player count: for every pair of
strategies A, B and every count ``k`` of A's seats (1 .. n-1: one A against n-1 B up to n-1 A
against one B), every distinct seat arrangement of each deal on that deal's seed, the same deals
for every pair. Together with the mirrors (every seat one strategy, each seat 1/n by symmetry)
these are every profile of two strategies at the table: what a single deviant, a Moran process of
the table (alpha-rank) and the two-team reduction need (``reports.metagame``).

:func:`play_pool` is the two-team reduction alone (the ladder's ``share``: the seats split between
the two, 2-2 at 4 players), kept for comparison.

:func:`skill_figures` is the skill-vs-bot-noise figure of one setting: the stronger of two rungs as one
seat against the weaker in every other seat (every rotation, par 1/n), and 2-against-2 (par 1/2),
each as a share with its interval over deals and rescaled to ``(share - par) / (1 - par)`` (0:
the better player wins no more than a coin flip would; 1: it always wins).
"""

from __future__ import annotations

import itertools

import numpy as np

from simulator import games as registry
from strategies.ladder import LadderConfig, deal_share_interval, game_ladder, one_against_task, parallel, pieces, share
from simulator.seeds import stage_seeds as deal_seeds

# The ladder's rungs around greedy plus the personas (README, "Strategies"); the specialist's focus
# is the orange department (where Organ stands, the set the expansion question asks about).
DEFAULT_POOL = registry.get(registry.DEFAULT_GAME).ladder.meta_pool  # the first game's (Game.ladder.meta_pool)
STARTER = registry.get(registry.DEFAULT_GAME).starter  # its default setting (Game.starter)


def _config(game, players, deals, instruments, instrument_dirs, strategy_dirs, seed, board=None):
    return LadderConfig(rungs=None, players=(players,), deals=deals, instruments=tuple(instruments),
                        instrument_dirs=tuple(instrument_dirs), strategy_dirs=tuple(strategy_dirs), seed=seed,
                        game=game, board=board)


def play_pool(pool=DEFAULT_POOL, players=4, deals=60, instruments=STARTER, instrument_dirs=(), strategy_dirs=(),
              seed=2024, jobs=1, game=registry.DEFAULT_GAME, board=None, log=None):
    """``{(i, j): per-deal share of pool[i]'s wins against pool[j]}`` for every pair ``i < j``."""
    log = log or (lambda m: None)
    cfg = _config(game, players, deals, instruments, instrument_dirs, strategy_dirs, seed, board)
    _, ladder, lib, _ = game_ladder(cfg)
    rows = [ladder.parse_rung(spec, lib).row() for spec in pool]
    seeds = deal_seeds(seed, "meta", players, deals)
    out = {}
    for i, j in itertools.combinations(range(len(pool)), 2):
        out[(i, j)] = share(rows[i], rows[j], players, seeds, cfg, jobs)
        log(f"{players} players: {pool[i]} against {pool[j]}: {out[(i, j)].mean():.1%}")
    return out


def _winners(where, nplayers, strat, seeds):
    """Winner seat of each game (-1 when none): the game's ``LadderSpec.winners`` on the ladder's settings."""
    name, settings = where
    return registry.get(name).ladder.winners(nplayers, strat, seeds, dict(settings))


def profile_arrangements(nplayers, k):
    """Every distinct seat arrangement of ``k`` seats of A (True) among ``nplayers``."""
    return sorted(set(itertools.permutations([True] * k + [False] * (nplayers - k))), reverse=True)


def _profile_task(row_a, row_b, nplayers, seeds, where):
    """Per count ``k`` of A's seats (rows 0 .. n-2 for k = 1 .. n-1) and deal: A's wins per game over
    every arrangement of k seats (0..1; a game without a winner gives A its share of the seats)."""
    out = np.zeros((nplayers - 1, len(seeds)), dtype=np.float64)
    for k in range(1, nplayers):
        arrs = profile_arrangements(nplayers, k)
        for arr in arrs:
            strat = np.array([row_a if a else row_b for a in arr], dtype=np.float64)
            w = _winners(where, nplayers, strat, seeds)
            a_seats = np.array([i for i, a in enumerate(arr) if a])
            out[k - 1] += np.isin(w, a_seats) + (k / nplayers) * (w < 0)
        out[k - 1] /= len(arrs)
    return out


def profile_games(nplayers, pairs, deals):
    """How many games :func:`play_profiles` plays: every arrangement of every count, per pair and deal."""
    return pairs * deals * sum(len(profile_arrangements(nplayers, k)) for k in range(1, nplayers))


def play_profiles(pool=DEFAULT_POOL, players=4, deals=60, instruments=STARTER, instrument_dirs=(), strategy_dirs=(),
                  seed=2024, jobs=1, game=registry.DEFAULT_GAME, board=None, log=None):
    """``{(i, j): array (players - 1, deals)}`` for every pair ``i < j``: row ``k - 1`` is pool[i]'s
    wins per game with ``k`` seats against pool[j] in the others, per deal (the same deals, on the
    same seeds, for every pair and every count)."""
    log = log or (lambda m: None)
    cfg = _config(game, players, deals, instruments, instrument_dirs, strategy_dirs, seed, board)
    _, ladder, lib, _ = game_ladder(cfg)
    rows = [ladder.parse_rung(spec, lib).row() for spec in pool]
    seeds = deal_seeds(seed, "meta", players, deals)
    parts = pieces(seeds, jobs)
    out = {}
    for i, j in itertools.combinations(range(len(pool)), 2):
        got = parallel(_profile_task, [(rows[i], rows[j], players, p, cfg.where) for p in parts], jobs)
        out[(i, j)] = np.concatenate(got, axis=1)
        per_seat = ", ".join(f"{k}x {100 * out[(i, j)][k - 1].mean() / k:.1f}%" for k in range(1, players))
        log(f"{players} players: {pool[i]} against {pool[j]}, {pool[i]}'s wins per seat with k seats: {per_seat}")
    return out


def skill_figures(strong="tuned", weak="greedy", players=4, deals=100, instruments=STARTER, instrument_dirs=(),
                  strategy_dirs=(), seed=2024, jobs=1, game=registry.DEFAULT_GAME, board=None):
    """The skill-vs-bot-noise figure of one setting (see the module doc): a dict with ``one_seat`` and
    ``two_against_two`` (share, lo, hi, deals, par, skill)."""
    cfg = _config(game, players, deals, instruments, instrument_dirs, strategy_dirs, seed, board)
    _, ladder, lib, _ = game_ladder(cfg)
    s, w = ladder.parse_rung(strong, lib).row(), ladder.parse_rung(weak, lib).row()
    seeds = deal_seeds(seed, "skill", players, deals)
    parts = pieces(seeds, jobs)
    wins = np.concatenate(parallel(one_against_task, [(s, w, players, p, cfg.where) for p in parts], jobs))
    one = deal_share_interval(wins / players)
    par = 1.0 / players
    out = {"strong": strong, "weak": weak, "players": players,
           "one_seat": {**one, "par": round(par, 4), "skill": round((one["share"] - par) / (1 - par), 4)}}
    if players % 2 == 0 or players == 2:
        two = deal_share_interval(share(s, w, players, seeds, cfg, jobs))
        out["two_against_two" if players == 4 else "head_to_head"] = {**two, "par": 0.5, "skill": round((two["share"] - 0.5) / 0.5, 4)}
    return out
