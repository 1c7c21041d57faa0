"""The skill ladder: a win-rate matrix over strategies ordered from weakest to strongest.

Used by ``ssb strategies ladder`` and ``benchmarks/bench_ladder.py``.

* **Rungs** are strategy names, optionally with parameters: ``greedy@temperature=1`` is greedy with a
  softmax temperature of 1, ``search@budget=64`` the search player with 64 rollouts per decision.
* **Matrix**: cell (A, B) at ``n`` players is A's share of the wins when A and B split the seats (1-1
  at 2 players, Pri joining; 2-1 and 1-2 at 3; 2-2 at 4). Every distinct seat arrangement of each deal
  is played on that deal's seed (paired: the same deals for every cell of a player count), so par is
  50% and seat advantages cancel. The interval (95%, Student t, clipped to 0..1) takes the deal, with all its
  arrangements, as the independent unit.
* **Monotone check**: each rung beats the rung below it, the interval of its share above 50%, at every
  player count of the check (2 and 4).
* **Against three**: each rung as one seat against ``greedy`` (and against ``tuned``) in every other
  seat at 4 players, every rotation; par 25%. These are the figures the tuned and search players are
  held to.
* **Skill depth** (after Ludii's SkillTrace): the search rung with budget ``2b`` against itself with
  budget ``b``, 2-2 at 4 players, over doubling budgets; a share that stays above 50% says the game
  still rewards more thinking at that depth.
* **Cost**: seconds per game of a mirror of the rung (every seat) divided by greedy's seconds per game,
  both timed in this process on the same deals, alternating, fastest of five, so the ratio survives a busy machine
  better than games per second would.

Every game plays the same matrix, monotone check, one-against-three and cost figures through its
registry entry (``Game.ladder``, a :class:`simulator.game_api.LadderSpec`): its profiles, default
rungs, rung parameters (``NAME@param=value``), the player counts, the strategies *placed* rather than
ranked (measured against every rung and put above the rungs they beat and below those that beat
them), the opponents of the one-against-three figure, and whether the skill-depth figure applies.
A game without a winner (a stall cap) counts half to each side.
"""

import itertools
import platform
import time
from dataclasses import dataclass, replace

import numpy as np

from simulator import games as registry
from simulator.errors import DataError
from simulator.seeds import stage_seeds
from strategies.tune import deal_interval

MONOTONE_PLAYERS = (2, 4)


@dataclass(frozen=True)
class LadderConfig:
    rungs: tuple | None = None
    players: tuple = (2, 3, 4)
    deals: int = 40
    depth_budgets: tuple = (1, 2, 4, 8)
    depth_rung: str | None = None
    depth_deals: int = 30
    instruments: tuple = registry.get().starter  # the default game's starter setting (Game.starter)
    instrument_dirs: tuple = ()
    strategy_dirs: tuple = ()
    seed: int = 2024
    against_deals: int | None = None  # default: deals
    game: str = registry.DEFAULT_GAME  # a registered game (``simulator.games``)
    board: str | None = None  # a game of boards: the board every game of the ladder is played on (default its first)
    placed: tuple | None = None  # strategies placed on the ladder, not rungs (default the game's LadderSpec.placed)
    cost_s: float = 0.5  # seconds each timed batch of the cost figure aims at

    @property
    def where(self):
        """What a worker needs to play a game of this ladder (picklable): the game's name and the
        settings its ``LadderSpec.winners`` reads."""
        return (self.game, (("instruments", tuple(self.instruments)), ("instrument_dirs", tuple(self.instrument_dirs)),
                            ("board", self.board)))


def arrangements(nplayers):
    """Seat arrangements of A (True) and B (False) splitting the seats; each distinct one once."""
    splits = {2: (1,), 3: (2, 1), 4: (2,), 5: (3, 2), 6: (3,)}[nplayers]
    out = []
    for k in splits:
        out += sorted(set(itertools.permutations([True] * k + [False] * (nplayers - k))), reverse=True)
    return out


def _play(where, nplayers, strat, seeds):
    """Winner seat of each game (-1 when none, e.g. a game stopped by a stall cap)."""
    name, settings = where
    return registry.get(name).ladder.winners(nplayers, strat, seeds, dict(settings))


def _share_task(row_a, row_b, nplayers, arrs, seeds, where):
    """A's wins per deal summed over the arrangements ``arrs`` (a game without a winner: half)."""
    wins = np.zeros(len(seeds), dtype=np.float64)
    for arr in arrs:
        strat = np.array([row_a if a else row_b for a in arr], dtype=np.float64)
        w = _play(where, nplayers, strat, seeds)
        a_seats = np.array([i for i, a in enumerate(arr) if a])
        wins += np.isin(w, a_seats) + 0.5 * (w < 0)
    return wins


def one_against_task(row, opp, nplayers, seeds, where):
    """Wins per deal (0..n) of ``row`` in one seat against ``opp`` in every other, every rotation."""
    wins = np.zeros(len(seeds), dtype=np.int64)
    for seat in range(nplayers):
        strat = np.repeat(np.asarray(opp, dtype=np.float64)[None, :], nplayers, axis=0)
        strat[seat] = row
        wins += _play(where, nplayers, strat, seeds) == seat
    return wins


def parallel(fn, tasks, jobs):
    if jobs == 1 or len(tasks) <= 1:
        return [fn(*t) for t in tasks]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs)(delayed(fn)(*t) for t in tasks)


def pieces(seeds, jobs):
    return [p for p in np.array_split(seeds, max(1, min(len(seeds), 2 * jobs))) if len(p)]


def share(row_a, row_b, nplayers, seeds, cfg, jobs):
    """Per-deal share of A's wins (0..1) over every arrangement (a flat list of tasks, joined in order)."""
    arrs = arrangements(nplayers)
    parts = pieces(seeds, jobs)
    out = parallel(_share_task, [(row_a, row_b, nplayers, arrs, p, cfg.where) for p in parts], jobs)
    return np.concatenate(out) / len(arrs)


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def deal_share_interval(x):
    m, lo, hi = deal_interval(np.asarray(x) * 1.0, 1)
    return {"share": round(m, 4), "lo": round(max(lo, 0.0), 4), "hi": round(min(hi, 1.0), 4), "deals": len(x)}


def cost_ratios(rungs, greedy_row, cfg, reps=5, target_s=0.5):
    """Seconds per game of each rung's 4-player mirror over greedy's on the same deals, timed here.

    The rung plays ``k`` deals (about ``target_s`` seconds), greedy the same ``k`` deals repeated until
    it too has run about ``target_s``; the two alternate ``reps`` times and the ratio is taken between
    the fastest repetitions (the least disturbed by other processes on a shared machine)."""
    seeds = stage_seeds(cfg.seed, "cost", 4, 4000)
    g_strat = np.repeat(greedy_row[None, :], 4, axis=0)

    def timed(strat, sub, times=1):
        t = time.perf_counter()
        for _ in range(times):
            _play(cfg.where, 4, strat, sub)
        return (time.perf_counter() - t) / (times * len(sub))

    g_per = timed(g_strat, seeds[:200])
    out = {}
    for label, s in rungs:
        strat = np.repeat(s.row()[None, :], 4, axis=0)
        per = max(timed(strat, seeds[:2]), 1e-6)
        k = int(min(len(seeds), max(6, target_s / per)))
        sub = seeds[:k]
        m = max(1, int(round(target_s / (g_per * k))))
        rung_t, greedy_t = [], []
        for _ in range(reps):
            rung_t.append(timed(strat, sub))
            greedy_t.append(timed(g_strat, sub, m))
        out[label] = {
            "ratio": round(float(min(rung_t) / min(greedy_t)), 3),
            "games": k,
            "greedy_games_per_s": round(1 / float(min(greedy_t)), 1),
        }
    return out


def game_ladder(cfg):
    """The game, its ladder spec, its strategy library and the default rungs (those the library holds)."""
    game = registry.get(cfg.game, "--game", "game")
    spec = game.ladder
    if spec is None:
        raise DataError("--game", game.name, f"{game.title} declares no skill ladder (Game.ladder)")
    lib = game.strategies(tuple(cfg.strategy_dirs))
    return game, spec, lib, spec.default_rungs(lib)


def _place(name, shares, specs):
    """Where a placed strategy falls: above the rungs it beats, below those that beat it (intervals
    at every player count of the matrix)."""
    beats = [sp for sp in specs if all(c["lo"] > 0.5 for c in shares[sp].values())]
    loses = [sp for sp in specs if all(c["hi"] < 0.5 for c in shares[sp].values())]
    above = max((specs.index(sp) for sp in beats), default=-1)
    below = min((specs.index(sp) for sp in loses), default=len(specs))
    if above >= below:
        return f"{name}: off the ladder's order (beats {', '.join(beats)}; loses to {', '.join(loses)})"
    parts = ([f"above {specs[above]}"] if above >= 0 else []) + ([f"below {specs[below]}"] if below < len(specs) else [])
    level = specs[above + 1 : below]
    if level:
        parts.append(f"not shown apart from {', '.join(level)}")
    return f"{name}: " + ", ".join(parts)


def run_ladder(cfg, jobs=1, log=None):
    log = log or (lambda m: None)
    game, ladder, lib, default = game_ladder(cfg)
    if cfg.board is None and game.boards:
        cfg = replace(cfg, board=game.boards[0])
    parse = ladder.parse_rung
    specs = tuple(cfg.rungs) if cfg.rungs else default
    if len(specs) < 2:
        raise DataError("ladder", "rungs", "a ladder needs at least two rungs")
    rungs = [(spec, parse(spec, lib)) for spec in specs]
    placed_specs = tuple(cfg.placed if cfg.placed is not None else ladder.placed)
    placed = [(spec, parse(spec, lib)) for spec in placed_specs]
    for n in cfg.players:  # a setting the game cannot set up fails here, before any game is played
        _play(cfg.where, n, np.repeat(lib.get("greedy").row()[None, :], n, axis=0), np.zeros(0, dtype=np.uint64))
    greedy = lib.get("greedy").row()
    started = time.perf_counter()
    result = {
        "cpu": cpu_model(),
        "game": game.name,
        "rungs": list(specs),
        "players": list(cfg.players),
        "deals": cfg.deals,
        "seed": cfg.seed,
        "matrix": {},
    }
    if game.boards:
        result["board"] = cfg.board
    else:
        result["instruments"] = list(cfg.instruments)
    if ladder.note:
        result["note"] = f"{game.title} on the {cfg.board} board; {ladder.note}" if game.boards else ladder.note
    # Matrix: every pair, every player count, both orders from one set of games.
    for n in cfg.players:
        seeds = stage_seeds(cfg.seed, "matrix", n, cfg.deals)
        cells = {}
        for i, j in itertools.combinations(range(len(rungs)), 2):
            x = share(rungs[j][1].row(), rungs[i][1].row(), n, seeds, cfg, jobs)  # upper rung's share
            cells[f"{j},{i}"] = deal_share_interval(x)
            cells[f"{i},{j}"] = deal_share_interval(1 - x)
            log(f"{n} players: {rungs[j][0]} against {rungs[i][0]}: {x.mean():.1%}")
        result["matrix"][str(n)] = cells
    # Monotone ladder.
    checks = []
    for n in (p for p in MONOTONE_PLAYERS if p in cfg.players):
        for i in range(len(rungs) - 1):
            c = result["matrix"][str(n)][f"{i + 1},{i}"]
            checks.append({"players": n, "upper": specs[i + 1], "lower": specs[i], **c, "ok": c["lo"] > 0.5})
    result["monotone"] = {"checks": checks, "ok": bool(checks) and all(c["ok"] for c in checks)}
    # Placed strategies: against every rung on the matrix's deals.
    result["placed"] = []
    for pspec, ps in placed:
        shares = {}
        for spec, s in rungs:
            shares[spec] = {}
            for n in cfg.players:
                x = share(ps.row(), s.row(), n, stage_seeds(cfg.seed, "matrix", n, cfg.deals), cfg, jobs)
                shares[spec][str(n)] = deal_share_interval(x)
                log(f"{n} players: {pspec} against {spec}: {x.mean():.1%}")
        result["placed"].append({"strategy": pspec, "shares": shares, "place": _place(pspec, shares, list(specs))})
    # One seat against three greedy (and three tuned, or for the second game three lookahead) at 4 players.
    against = {}
    names = {n.lower() for n in lib.names()}
    opps = [("greedy", greedy)] + [(o, lib.get(o).row()) for o in ladder.against if o in names]
    seeds = stage_seeds(cfg.seed, "against", 4, cfg.against_deals or cfg.deals)
    for oname, orow in opps:
        for spec, s in rungs + placed:
            parts = pieces(seeds, jobs)
            w = np.concatenate(parallel(one_against_task, [(s.row(), orow, 4, p, cfg.where) for p in parts], jobs))
            m, lo, hi = deal_interval(w, 4)
            lo, hi = max(lo, 0.0), min(hi, 1.0)
            against[f"{spec}|{oname}"] = {"rung": spec, "against": oname, "win_rate": round(m, 4), "lo": round(lo, 4), "hi": round(hi, 4), "deals": len(seeds)}
            log(f"{spec} as one seat against three {oname}: {m:.1%}")
    result["against"] = against
    # Skill depth.
    depth = []
    if cfg.depth_budgets and ladder.depth:
        dspec = cfg.depth_rung or ("search" if "search" in specs else None)
        dspec = dspec or next((sp for sp, s in reversed(rungs) if s.kind in ("search", "lookahead")), None)
        if dspec is None:
            raise DataError("ladder", "depth_rung", "no search rung to measure the skill depth of; name one")
        base = parse(dspec, lib)
        dseeds = stage_seeds(cfg.seed, "depth", 4, cfg.depth_deals)
        for b in cfg.depth_budgets:
            hi_row = replace(base, params={**base.params, "budget": 2 * b}).row()
            lo_row = replace(base, params={**base.params, "budget": b}).row()
            x = share(hi_row, lo_row, 4, dseeds, cfg, jobs)
            depth.append({"budget": b, "doubled": 2 * b, **deal_share_interval(x)})
            log(f"skill depth {dspec}: budget {2 * b} against {b}: {x.mean():.1%}")
        result["depth_rung"] = dspec
    result["depth"] = depth
    result["cost"] = cost_ratios(rungs + placed, greedy, cfg, target_s=cfg.cost_s)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    return result


def format_ladder(r):
    lines = [f"CPU: {r['cpu']} (shared machine: absolute speeds are noisy, ratios are measured side by side)"]
    if r.get("note"):
        lines.append(r["note"])
    specs = r["rungs"]
    width = max(len(s) for s in specs + [p["strategy"] for p in r.get("placed", [])])
    for n in r["players"]:
        lines.append(f"\nwin share of the row against the column at {n} players (par 50%, {r['deals']} deals, every seat arrangement):")
        lines.append(" " * (width + 2) + "".join(f"{i:>8d}" for i in range(len(specs))))
        for i, s in enumerate(specs):
            cells = [("       -" if i == j else f"{r['matrix'][str(n)][f'{i},{j}']['share'] * 100:8.1f}") for j in range(len(specs))]
            lines.append(f"{i} {s:<{width}} " + "".join(cells))
    lines.append("\nmonotone ladder (each rung against the one below, 95% interval counting deals):")
    for c in r["monotone"]["checks"]:
        lines.append(
            f"  {c['players']}p  {c['upper']:<{width}} > {c['lower']:<{width}}  {c['share']:6.1%} [{c['lo']:.1%}, {c['hi']:.1%}]  {'ok' if c['ok'] else 'NOT SHOWN'}"
        )
    lines.append(f"  ladder monotone: {'yes' if r['monotone']['ok'] else 'no'}")
    for pl in r.get("placed", []):
        lines.append(f"\nplaced, not a rung: {pl['strategy']}'s share against each rung (par 50%):")
        for spec, by_n in pl["shares"].items():
            cells = "  ".join(f"{n}p {c['share']:6.1%} [{c['lo']:.1%}, {c['hi']:.1%}]" for n, c in by_n.items())
            lines.append(f"  vs {spec:<{width}} {cells}")
        lines.append(f"  place: {pl['place']}")
    if r["against"]:
        lines.append("\none seat against three of a kind at 4 players (par 25%, every rotation):")
        for a in r["against"].values():
            lines.append(f"  {a['rung']:<{width}} vs 3x {a['against']:<7} {a['win_rate']:6.1%} [{a['lo']:.1%}, {a['hi']:.1%}]  ({a['deals']} deals)")
    if r["depth"]:
        lines.append(f"\nskill depth of {r['depth_rung']} (doubled budget against single, 2-2 at 4 players):")
        for d in r["depth"]:
            lines.append(f"  {d['doubled']:>5d} vs {d['budget']:<5d} {d['share']:6.1%} [{d['lo']:.1%}, {d['hi']:.1%}]  ({d['deals']} deals)")
    lines.append("\ncost per game relative to greedy (4-player mirrors on the same deals, same process, fastest of 5):")
    for spec, c in r["cost"].items():
        lines.append(f"  {spec:<{width}} {c['ratio']:8.2f}x   ({c['games']} games timed; greedy {c['greedy_games_per_s']:.0f} games/s here)")
    lines.append(f"\nwall time {r['wall_s']:.0f} s")
    return "\n".join(lines)
