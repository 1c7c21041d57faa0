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

The second game (``game="echidna"``, one board per ladder) uses the same matrix, monotone check,
one-against-three and cost figures on its own kernel and profiles (``strategies/profiles/echidna``):
rungs ``random``, ``plain-setup``, ``greedy``, ``lookahead``, ``setup-search`` (the lookahead with a search
over the set-up choice, the third judge); parameters after
``@`` are the profile's weights or ``depth`` (``greedy@setup_radius=5``). The one-against-three
opponents are ``greedy`` and ``lookahead``; ``saboteur`` and ``lookahead-near`` are not rungs but *placed*: measured against
every rung in the matrix and put above the rungs it beats and below those that beat it. A stalled
game (no winner, E9) counts half to each side. The skill-depth figure is the first game's alone.
"""

import itertools
import platform
import time
from dataclasses import dataclass, replace

import numpy as np

from simulator.errors import DataError
from simulator.shuffle_swing.library import STARTER
from simulator.shuffle_swing.layout import PARAMS, S_WINNER
from simulator.seeds import stage_seeds
from strategies.tune import _setup, deal_interval

# The shipped ladder, weakest first. Rungs whose strategy the library does not hold are left out.
# The top rung, ``search_deep``, costs several times ``search``'s per game (the cost table says how
# much); ``--rungs`` without it gives a quicker ladder.
DEFAULT_RUNGS = (
    "greedy@temperature=2",
    "greedy@temperature=0.5",
    "greedy",
    "tuned",
    "search",
    "search_deep",
)
FALLBACK_SEARCH = ("lookahead@budget=1", "lookahead@budget=4")
MONOTONE_PLAYERS = (2, 4)
# The second game's ladder, weakest first, and strategies placed where they fall (not rungs).
ECHIDNA_RUNGS = ("random", "plain-setup", "greedy", "lookahead", "setup-search")
ECHIDNA_PLACED = ("saboteur", "lookahead-near")  # lookahead-near: not shown above lookahead on both boards
ECHIDNA_AGAINST = ("greedy", "lookahead")


@dataclass(frozen=True)
class LadderConfig:
    rungs: tuple | None = None
    players: tuple = (2, 3, 4)
    deals: int = 40
    depth_budgets: tuple = (1, 2, 4, 8)
    depth_rung: str | None = None
    depth_deals: int = 30
    instruments: tuple = STARTER
    instrument_dirs: tuple = ()
    strategy_dirs: tuple = ()
    seed: int = 2024
    against_deals: int | None = None  # default: deals
    game: str = "shuffle-swing"  # or "echidna"
    board: str = "forest"  # echidna: the board every game of the ladder is played on
    placed: tuple | None = None  # echidna: strategies placed on the ladder (default ECHIDNA_PLACED)
    cost_s: float = 0.5  # seconds each timed batch of the cost figure aims at

    @property
    def where(self):
        """What a worker needs to play a game of this ladder (picklable)."""
        return (self.game, tuple(self.instruments), tuple(self.instrument_dirs), self.board)


def parse_rung(spec, lib):
    """A rung's strategy: ``name[@param=value...]``."""
    name, *assigns = str(spec).split("@")
    s = lib.get(name)
    params = dict(s.params)
    for a in assigns:
        key, eq, value = a.partition("=")
        if not eq or key not in PARAMS:
            raise DataError("rung", spec, f"expected NAME@param=value with a parameter of {', '.join(PARAMS)}")
        _off, lo, hi, _d, integer = PARAMS[key]
        try:
            v = int(value) if integer else float(value)
        except ValueError:
            raise DataError("rung", spec, f"'{value}' is not a {'whole ' if integer else ''}number") from None
        if not lo <= v <= hi:
            raise DataError("rung", spec, f"{key} {v} is outside {lo}..{hi}")
        params[key] = v
    return replace(s, params=params)


def parse_echidna_rung(spec, lib):
    """A rung of the second game: ``name[@weight=value...][@depth=k]`` (weights of
    ``simulator.echidna.layout.WEIGHT_NAMES``)."""
    from simulator.echidna.layout import WEIGHT_NAMES
    from strategies.library import check_weight

    name, *assigns = str(spec).split("@")
    s = lib.get(name)
    weights, depth = dict(s.weights), s.depth
    for a in assigns:
        key, eq, value = a.partition("=")
        if not eq or (key != "depth" and key not in WEIGHT_NAMES):
            raise DataError("rung", spec, f"expected NAME@param=value with depth or a weight of {', '.join(WEIGHT_NAMES)}")
        try:
            v = int(value) if key == "depth" else float(value)
        except ValueError:
            raise DataError("rung", spec, f"'{value}' is not a {'whole ' if key == 'depth' else ''}number") from None
        if key == "depth":
            if not 0 <= v <= 20:
                raise DataError("rung", spec, f"depth {v} is outside 0..20")
            depth = v
        else:
            weights[key] = check_weight(v, "rung", spec)
    return replace(s, weights=weights, depth=depth)


def default_rungs(lib):
    names = {n.lower() for n in lib.names()}
    rungs = [r for r in DEFAULT_RUNGS if r.split("@")[0] in names]
    if "search" not in names:
        rungs += list(FALLBACK_SEARCH)
    return tuple(rungs)


def arrangements(nplayers):
    """Seat arrangements of A (True) and B (False) splitting the seats; each distinct one once."""
    splits = {2: (1,), 3: (2, 1), 4: (2,), 5: (3, 2), 6: (3,)}[nplayers]
    out = []
    for k in splits:
        out += sorted(set(itertools.permutations([True] * k + [False] * (nplayers - k))), reverse=True)
    return out


_ECHIDNA_SETUPS = {}


def _play(where, nplayers, strat, seeds):
    """Winner seat of each game (-1 when none: an Echidna Shuffle game stopped by the stall cap)."""
    game, instruments, instrument_dirs, board = where
    if game == "echidna":
        from simulator.echidna.board import EchidnaSetup
        from simulator.echidna.layout import S_WINNER as E_WINNER
        from simulator.echidna.playout import play_many as e_play

        key = (nplayers, board)
        if key not in _ECHIDNA_SETUPS:
            _ECHIDNA_SETUPS[key] = EchidnaSetup(nplayers, board)
        states, _ = e_play(_ECHIDNA_SETUPS[key], strat, seeds)
        return states[:, E_WINNER]
    from simulator.shuffle_swing.playout import play_many

    states, _ = play_many(_setup(nplayers, instruments, instrument_dirs), strat, seeds)
    return states[:, S_WINNER]


def _share_task(row_a, row_b, nplayers, arrs, seeds, where):
    """A's wins per deal summed over the arrangements ``arrs`` (a game without a winner: half)."""
    wins = np.zeros(len(seeds), dtype=np.float64)
    for arr in arrs:
        strat = np.array([row_a if a else row_b for a in arr], dtype=np.float64)
        w = _play(where, nplayers, strat, seeds)
        a_seats = np.array([i for i, a in enumerate(arr) if a])
        wins += np.isin(w, a_seats) + 0.5 * (w < 0)
    return wins


def _one_against_task(row, opp, nplayers, seeds, where):
    if where[0] != "echidna":
        from strategies.tune import seat_wins

        return seat_wins(row, opp, nplayers, seeds, where[1], where[2])
    wins = np.zeros(len(seeds), dtype=np.int64)
    for seat in range(nplayers):
        strat = np.repeat(np.asarray(opp, dtype=np.float64)[None, :], nplayers, axis=0)
        strat[seat] = row
        wins += _play(where, nplayers, strat, seeds) == seat
    return wins


def _parallel(fn, tasks, jobs):
    if jobs == 1 or len(tasks) <= 1:
        return [fn(*t) for t in tasks]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs)(delayed(fn)(*t) for t in tasks)


def _pieces(seeds, jobs):
    return [p for p in np.array_split(seeds, max(1, min(len(seeds), 2 * jobs))) if len(p)]


def share(row_a, row_b, nplayers, seeds, cfg, jobs):
    """Per-deal share of A's wins (0..1) over every arrangement (a flat list of tasks, joined in order)."""
    arrs = arrangements(nplayers)
    parts = _pieces(seeds, jobs)
    out = _parallel(_share_task, [(row_a, row_b, nplayers, arrs, p, cfg.where) for p in parts], jobs)
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


def _interval(x):
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


def _library(cfg):
    """The rung library, the rung parser and the default rungs of the ladder's game."""
    if cfg.game == "echidna":
        from strategies.echidna import EchidnaStrategyLibrary

        lib = EchidnaStrategyLibrary(extra_dirs=tuple(cfg.strategy_dirs))
        names = {n.lower() for n in lib.names()}
        return lib, parse_echidna_rung, tuple(r for r in ECHIDNA_RUNGS if r in names)
    from strategies.library import StrategyLibrary

    lib = StrategyLibrary(extra_dirs=tuple(cfg.strategy_dirs))
    return lib, parse_rung, default_rungs(lib)


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
    lib, parse, default = _library(cfg)
    specs = tuple(cfg.rungs) if cfg.rungs else default
    if len(specs) < 2:
        raise DataError("ladder", "rungs", "a ladder needs at least two rungs")
    rungs = [(spec, parse(spec, lib)) for spec in specs]
    echidna = cfg.game == "echidna"
    placed_specs = tuple(cfg.placed if cfg.placed is not None else (ECHIDNA_PLACED if echidna else ()))
    placed = [(spec, parse(spec, lib)) for spec in placed_specs]
    if not echidna:
        for n in cfg.players:
            _setup(n, cfg.instruments, cfg.instrument_dirs)
    greedy = lib.get("greedy").row()
    started = time.perf_counter()
    result = {
        "cpu": cpu_model(),
        "game": cfg.game,
        "rungs": list(specs),
        "players": list(cfg.players),
        "deals": cfg.deals,
        "seed": cfg.seed,
        "matrix": {},
    }
    if echidna:
        result["board"] = cfg.board
    else:
        result["instruments"] = list(cfg.instruments)
    # Matrix: every pair, every player count, both orders from one set of games.
    for n in cfg.players:
        seeds = stage_seeds(cfg.seed, "matrix", n, cfg.deals)
        cells = {}
        for i, j in itertools.combinations(range(len(rungs)), 2):
            x = share(rungs[j][1].row(), rungs[i][1].row(), n, seeds, cfg, jobs)  # upper rung's share
            cells[f"{j},{i}"] = _interval(x)
            cells[f"{i},{j}"] = _interval(1 - x)
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
                shares[spec][str(n)] = _interval(x)
                log(f"{n} players: {pspec} against {spec}: {x.mean():.1%}")
        result["placed"].append({"strategy": pspec, "shares": shares, "place": _place(pspec, shares, list(specs))})
    # One seat against three greedy (and three tuned, or for the second game three lookahead) at 4 players.
    against = {}
    names = {n.lower() for n in lib.names()}
    others = ECHIDNA_AGAINST[1:] if echidna else ("tuned",)
    opps = [("greedy", greedy)] + [(o, lib.get(o).row()) for o in others if o in names]
    seeds = stage_seeds(cfg.seed, "against", 4, cfg.against_deals or cfg.deals)
    for oname, orow in opps:
        for spec, s in rungs + placed:
            parts = _pieces(seeds, jobs)
            w = np.concatenate(_parallel(_one_against_task, [(s.row(), orow, 4, p, cfg.where) for p in parts], jobs))
            m, lo, hi = deal_interval(w, 4)
            lo, hi = max(lo, 0.0), min(hi, 1.0)
            against[f"{spec}|{oname}"] = {"rung": spec, "against": oname, "win_rate": round(m, 4), "lo": round(lo, 4), "hi": round(hi, 4), "deals": len(seeds)}
            log(f"{spec} as one seat against three {oname}: {m:.1%}")
    result["against"] = against
    # Skill depth.
    depth = []
    if cfg.depth_budgets and not echidna:
        dspec = cfg.depth_rung or ("search" if "search" in specs else None)
        dspec = dspec or next((sp for sp, s in reversed(rungs) if s.kind in ("search", "lookahead")), None)
        if dspec is None:
            raise DataError("ladder", "depth_rung", "no search rung to measure the skill depth of; name one")
        base = parse_rung(dspec, lib)
        dseeds = stage_seeds(cfg.seed, "depth", 4, cfg.depth_deals)
        for b in cfg.depth_budgets:
            hi_row = replace(base, params={**base.params, "budget": 2 * b}).row()
            lo_row = replace(base, params={**base.params, "budget": b}).row()
            x = share(hi_row, lo_row, 4, dseeds, cfg, jobs)
            depth.append({"budget": b, "doubled": 2 * b, **_interval(x)})
            log(f"skill depth {dspec}: budget {2 * b} against {b}: {x.mean():.1%}")
        result["depth_rung"] = dspec
    result["depth"] = depth
    result["cost"] = cost_ratios(rungs + placed, greedy, cfg, target_s=cfg.cost_s)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    return result


def format_ladder(r):
    lines = [f"CPU: {r['cpu']} (shared machine: absolute speeds are noisy, ratios are measured side by side)"]
    if r.get("game") == "echidna":
        lines.append(f"Echidna Shuffle on the {r['board']} board; a game stopped by the stall cap counts half to each side")
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
