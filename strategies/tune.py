"""Tuning a strategy's weight row: CMA-ES on common-random-number deals against a population.

The pipeline behind ``ssb strategies tune``. One *candidate* is a weight row (the ``[weights]`` of a
profile, and with ``late`` its ``[weights_late]`` too); it is scored as one seat against a population
of opponents, each opponent filling every other seat of the game:

* named opponents (``greedy``, ``majority``, any profile of the library), and
* ``champion``: the optimiser's current estimate (the distribution mean of the previous generation;
  the start profile in the first), so that a candidate must also beat the player the run has become.

Every candidate of a generation plays the same deals (common random numbers: the seeds depend on the
run seed, the run, the generation and the player count only), each deal once per seat rotation, so
the candidates' differences are not buried under the deals' luck. The score of a candidate is its
**par ratio**: wins per deal over the rotations of the deal (1.0 is par, ``n`` would be every game),
averaged over the opponents and player counts.

Several independent runs (``runs``, each with its own CMA seed and deals) each end with their
distribution mean (less exposed to the noise than the best single evaluation). The candidates are
then **re-scored** on fresh deals against the fixed population (``champion`` replaced by the start
profile) and the best is chosen; that choice is itself measured again on a third, untouched set of
deals (``verify``) as one seat against ``greedy`` in every other seat, with an interval that counts
deals, next to the start profile on the same deals (paired). The profile is *accepted* when its
paired advantage over the start profile on those deals has a 95% interval above zero.

The result is a strategy profile whose ``[provenance]`` table holds every setting, so that
``tune_from_provenance`` (``ssb strategies tune --replay FILE``) plays exactly the same games and
writes the same file. Nothing depends on the number of workers: the games of one generation are
split into tasks whose results are put back in task order.

Weights are searched in a scaled space: ``w = start + scale * x`` with ``scale = max(|start|, 0.25)``,
``x`` starting at 0, bounded so that no weight goes below zero. ``points`` is left out by default: the
greedy evaluation compares sums of weighted terms, so multiplying every weight by the same factor
changes no choice, and fixing one weight removes that redundant direction.
"""

import json
import math
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import numpy as np

from simulator import games as registry
from simulator.errors import DataError
from simulator.seeds import label_seed, stage_seeds
from simulator.validate import read_toml


def tuned_game(name=None, file="--game", key="game"):
    """The registered game ``name`` (``None``: the default) if its strategies are weight rows
    (``Game.weight_tune``); another game is refused with the reason (a ``DataError``)."""
    game = registry.get(name, file, key)
    if game.weight_tune is None:
        tunable = ", ".join(g.title for g in map(registry.get, registry.names()) if g.weight_tune is not None)
        raise DataError(file, key, f"{game.title}'s strategies are not rows of weights (its entry declares no "
                        f"weight_tune): ssb strategies tune serves {tunable or 'no game'}")
    return game


TUNED_GAME = tuned_game()  # the default game: the tune's settings default to its own
_SPEC = TUNED_GAME.weight_tune
PLAYER_COUNTS = TUNED_GAME.player_counts  # the player counts of the game whose weights are tuned
STARTER = TUNED_GAME.starter  # the setting its games are played on by default
WEIGHT_NAMES = _SPEC.weight_names

TUNE_FORMAT = 1
CHAMPION = "champion"
# Weights a tune leaves alone unless asked: ``points`` fixes the scale (see the module docstring),
# ``focus`` only matters for a strategy that has a focus.
FIXED_BY_DEFAULT = ("points", "focus")
MIN_SCALE = 0.25
DECIMALS = 4


@dataclass(frozen=True)
class TuneSettings:
    """Everything that decides a tune's result (written to the profile's provenance)."""

    name: str = "tuned"
    description: str = ""
    start: str = "greedy"
    players: tuple = (4,)
    opponents: tuple = (*_SPEC.opponents, CHAMPION)
    weights: tuple = ()  # empty: every weight but FIXED_BY_DEFAULT
    late: bool = False
    deals: int = 64
    generations: int = 30
    popsize: int = 0  # 0: cma's default, 4 + 3 ln(dimension)
    sigma0: float = 0.3
    runs: int = 3
    rescore_deals: int = 1000
    verify_deals: int = 2000
    seed: int = 1
    instruments: tuple = STARTER
    instrument_dirs: tuple = ()
    strategy_dirs: tuple = ()

    def tuned_weights(self):
        return tuple(self.weights) if self.weights else tuple(w for w in WEIGHT_NAMES if w not in FIXED_BY_DEFAULT)

    def dimension(self):
        return len(self.tuned_weights()) * (2 if self.late else 1)

    def to_table(self):
        d = asdict(self)
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}

    @classmethod
    def from_table(cls, table, file="provenance"):
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(table) - set(known))
        if unknown:
            raise DataError(file, f"provenance.settings.{unknown[0]}", "unknown setting")
        kw = {k: (tuple(v) if isinstance(v, list) else v) for k, v in table.items()}
        return cls(**kw).checked(file)

    def checked(self, file="tune"):
        """Validate the settings; a mistake raises ``DataError`` naming the setting."""
        def bad(key, why):
            raise DataError(file, key, why)

        def positive(key, lo=1):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                bad(key, f"expected an integer of at least {lo}, got {v!r}")

        if not self.name or not isinstance(self.name, str):
            bad("name", "give the tuned strategy a name")
        if not self.players or any(p not in PLAYER_COUNTS for p in self.players) or len(set(self.players)) != len(self.players):
            bad("players", f"expected distinct player counts of {', '.join(map(str, PLAYER_COUNTS))}, got {list(self.players)}")
        if not self.opponents:
            bad("opponents", "give at least one opponent")
        for key in ("deals", "generations", "runs", "rescore_deals", "verify_deals"):
            positive(key)
        positive("popsize", 0)
        if self.popsize == 1:
            bad("popsize", "a population needs at least 2 candidates (0: cma's default)")
        if not isinstance(self.sigma0, (int, float)) or not 0 < self.sigma0 <= 5:
            bad("sigma0", f"expected a step size in (0, 5], got {self.sigma0!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            bad("seed", f"expected a non-negative integer, got {self.seed!r}")
        for w in self.tuned_weights():
            if w not in WEIGHT_NAMES:
                bad("weights", f"unknown weight '{w}'; known: {', '.join(WEIGHT_NAMES)}")
        if len(set(self.tuned_weights())) != len(self.tuned_weights()):
            bad("weights", "a weight is named twice")
        return self


# =========================================================================== seeds


# =========================================================================== playing


def _setup(nplayers, instruments, instrument_dirs):
    return _SPEC.setup(nplayers, instruments, instrument_dirs)


def seat_wins(row, opponent, nplayers, seeds, instruments=STARTER, instrument_dirs=()):
    """Wins per deal (0..n) of ``row`` in one seat against ``opponent`` in every other, over every
    seat rotation of each deal (the same deal seed in each rotation)."""
    setup = _setup(nplayers, instruments, instrument_dirs)
    wins = np.zeros(len(seeds), dtype=np.int64)
    for seat in range(nplayers):
        strat = np.repeat(np.asarray(opponent, dtype=np.float64)[None, :], nplayers, axis=0)
        strat[seat] = row
        wins += _SPEC.winners(setup, strat, seeds) == seat
    return wins


def _task(rows, opponent, nplayers, seeds, instruments, instrument_dirs):
    return [seat_wins(r, opponent, nplayers, seeds, instruments, instrument_dirs) for r in rows]


def play_tasks(tasks, jobs):
    """Run ``_task`` argument tuples, in parallel with joblib when ``jobs`` > 1; results in task order."""
    if jobs == 1 or len(tasks) == 1:
        return [_task(*t) for t in tasks]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs)(delayed(_task)(*t) for t in tasks)


# =========================================================================== intervals


def deal_interval(wins_per_deal, nplayers, confidence=0.95, bounds=(0.0, 1.0)):
    """Win rate and its interval, with the deal (all its seat rotations) as the independent unit.

    The interval is Student's t over the deals, kept within ``bounds`` (a rate within 0..1, a
    difference of two rates within -1..1): with a handful of deals the t interval alone can reach
    far outside what a rate can be."""
    from stats import tests as ST

    x = np.asarray(wins_per_deal, dtype=np.float64) / nplayers
    m, lo, hi, _ = ST.t_interval(x, confidence)
    if len(x) < 2:
        return m, float("nan"), float("nan")
    return m, max(bounds[0], float(lo)), min(bounds[1], float(hi))


# =========================================================================== the tune


class Tuner:
    """One tune: resolves the strategies, runs CMA-ES, re-scores, verifies, builds the profile."""

    def __init__(self, settings, jobs=1, log=None):
        self.s = settings.checked()
        self.jobs = jobs
        self.log = log or (lambda msg: None)
        self.lib = TUNED_GAME.strategies(tuple(self.s.strategy_dirs))
        self.start = self.lib.get(self.s.start)
        if self.start.kind != "greedy":
            raise DataError("tune", "start", f"'{self.start.name}' is a {self.start.kind} strategy; tune a greedy-kind profile")
        self.opp_rows = {}
        for o in self.s.opponents:
            if o != CHAMPION:
                self.opp_rows[o] = self.lib.get(o).row()
        for n in self.s.players:  # fail early on a bad instrument set
            _setup(n, self.s.instruments, self.s.instrument_dirs)
        self.names = self.s.tuned_weights()
        early = self.start.weights
        late = self.start.late_weights if self.start.late_weights is not None else early
        self.base = np.array([early.get(w, 0.0) for w in self.names] + ([late.get(w, 0.0) for w in self.names] if self.s.late else []))
        self.scale = np.maximum(np.abs(self.base), MIN_SCALE)
        self.games = 0

    # ----------------------------------------------------------------- candidates

    def strategy(self, x):
        """The strategy a point of the search space stands for (weights rounded to DECIMALS)."""
        w = np.maximum(self.base + self.scale * np.asarray(x, dtype=np.float64), 0.0)
        w = np.round(w, DECIMALS) + 0.0  # + 0.0: no negative zero
        k = len(self.names)
        early = dict(self.start.weights)
        early.update({n: float(v) for n, v in zip(self.names, w[:k])})
        if self.s.late:
            late = dict(self.start.late_weights or self.start.weights)
            late.update({n: float(v) for n, v in zip(self.names, w[k:])})
        else:
            late = None if self.start.late_weights is None else dict(self.start.late_weights)
        return replace(self.start, name=self.s.name, description=self.s.description, weights=early, late_weights=late, path="")

    def score(self, rows, label, deals, champion_row):
        """Par ratio of each row (mean over opponents and player counts of wins per deal), plus the
        per-deal wins of every (player count, opponent) cell."""
        cells = []
        for n in self.s.players:
            seeds = stage_seeds(self.s.seed, label, n, deals)
            for o in self.s.opponents:
                opp = champion_row if o == CHAMPION else self.opp_rows[o]
                cells.append((n, o, opp, seeds))
        tasks = [
            ([r], opp, n, seeds, self.s.instruments, self.s.instrument_dirs) for r in rows for (n, o, opp, seeds) in cells
        ]
        out = play_tasks(tasks, self.jobs)
        self.games += sum(len(t[3]) * t[2] for t in tasks)
        per = np.array([o[0] for o in out]).reshape(len(rows), len(cells), deals)
        return per.mean(axis=2).mean(axis=1), per, [(n, o) for (n, o, _opp, _seeds) in cells]

    # ----------------------------------------------------------------- CMA-ES

    def run(self, r):
        """One independent CMA-ES run; returns its final distribution mean and its history."""
        import cma

        dim = len(self.base)
        opts = {
            "seed": label_seed(self.s.seed, "cma", r) % (2**31 - 2) + 1,
            "bounds": [list(-self.base / self.scale), None],
            "verbose": -9,
            "verb_log": 0,
            "verb_disp": 0,
            "maxiter": self.s.generations,
        }
        if self.s.popsize:
            opts["popsize"] = self.s.popsize
        es = cma.CMAEvolutionStrategy(np.zeros(dim), self.s.sigma0, opts)
        history = []
        for g in range(self.s.generations):
            xs = es.ask()
            champion = self.strategy(es.mean).row()
            rows = [self.strategy(x).row() for x in xs]
            fit, _per, _cells = self.score(rows, f"run{r}-gen{g}", self.s.deals, champion)
            es.tell(xs, [-float(f) for f in fit])
            history.append({"generation": g, "best": float(fit.max()), "median": float(np.median(fit)), "sigma": float(es.sigma)})
            self.log(f"run {r} generation {g}: par ratio best {fit.max():.3f} median {np.median(fit):.3f} sigma {es.sigma:.3f}")
        return np.array(es.mean, dtype=np.float64), history

    # ----------------------------------------------------------------- the whole pipeline

    def tune(self):
        finals, histories = [], []
        for r in range(self.s.runs):
            x, h = self.run(r)
            finals.append(x)
            histories.append(h)
        cands = [self.strategy(x) for x in finals]
        start_row = self.start.row()
        rows = [c.row() for c in cands] + [start_row]
        fit, per, cells = self.score(rows, "rescore", self.s.rescore_deals, start_row)
        best = int(np.argmax(fit[:-1]))
        chosen = cands[best]
        self.log(f"re-scored on fresh deals: {', '.join(f'{f:.3f}' for f in fit[:-1])} (start {fit[-1]:.3f}); run {best} chosen")
        verify = self.verify(chosen.row(), start_row)
        return self.profile(chosen, fit, best, verify, histories)

    def verify(self, row, start_row):
        """Win rate as one seat against greedy in every other seat on untouched deals, per player count,
        paired with the start profile on the same deals."""
        greedy = self.lib.get("greedy").row()
        out = {}
        for n in self.s.players:
            seeds = stage_seeds(self.s.seed, "verify", n, self.s.verify_deals)
            w, w0 = self._verify_games(row, start_row, greedy, n, seeds)
            self.games += 2 * n * len(seeds)
            m, lo, hi = deal_interval(w, n)
            d, dlo, dhi = deal_interval(w - w0, n, bounds=(-1.0, 1.0))
            out[str(n)] = {
                "against": "greedy",
                "deals": len(seeds),
                "games": n * len(seeds),
                "par": round(1.0 / n, 6),
                "win_rate": round(m, 6),
                "interval_95": [round(lo, 6), round(hi, 6)],
                "start_win_rate": round(float(w0.mean()) / n, 6),
                "advantage_over_start": round(d, 6),
                "advantage_interval_95": [round(dlo, 6), round(dhi, 6)],
            }
            self.log(f"verify at {n} players against greedy: {m:.1%} [{lo:.1%}, {hi:.1%}] (par {1 / n:.0%}), start {w0.mean() / n:.1%}")
        return out

    def _verify_games(self, row, start_row, greedy, n, seeds):
        # The deals are cut into pieces so that every worker has some; each game depends on its own
        # seed only, so the pieces joined in order are the same whatever their number.
        parts = np.array_split(seeds, max(1, self.jobs * 2))
        tasks = [([row, start_row], greedy, n, p, self.s.instruments, self.s.instrument_dirs) for p in parts if len(p)]
        out = play_tasks(tasks, self.jobs)
        return np.concatenate([o[0] for o in out]), np.concatenate([o[1] for o in out])

    def profile(self, chosen, fit, best, verify, histories):
        import cma

        from simulator.provenance import code_version

        accepted = all(v["advantage_interval_95"][0] > 0 for v in verify.values())
        code = code_version()
        prov = {
            "format": TUNE_FORMAT,
            "command": command_line(self.s),
            "settings": self.s.to_table(),
            "optimiser": {
                "library": "cma",
                "version": cma.__version__,
                "method": "CMA-ES, one run per seed, distribution mean as each run's result",
                "dimension": len(self.base),
                "popsize": self.s.popsize or int(4 + 3 * math.log(len(self.base))),
                "space": "w = start + max(|start|, 0.25) * x, x0 = 0, w >= 0",
            },
            "opponent_weights": {o: _weights_of(self.lib.get(o)) for o in self.s.opponents if o != CHAMPION},
            "start_weights": _weights_of(self.start),
            "games": int(self.games),
            "rescore": {
                "deals": self.s.rescore_deals,
                "par_ratio_by_run": [round(float(f), 6) for f in fit[:-1]],
                "par_ratio_start": round(float(fit[-1]), 6),
                "chosen_run": best,
            },
            "verify": verify,
            "accepted": accepted,
            "history": [
                {"run": r, "best": [round(g["best"], 4) for g in h], "median": [round(g["median"], 4) for g in h], "sigma": [round(g["sigma"], 4) for g in h]}
                for r, h in enumerate(histories)
            ],
            "kernel_sha256": code["kernel_sha256"],
            "code_version": code["version"],
        }
        return chosen, prov


def _weights_of(s):
    d = {"weights": {w: s.weights.get(w, 0.0) for w in WEIGHT_NAMES}}
    if s.late_weights is not None:
        d["weights_late"] = {w: s.late_weights.get(w, 0.0) for w in WEIGHT_NAMES}
    return d


def command_line(s):
    """The ``ssb strategies tune`` command that reproduces settings ``s``."""
    d = TuneSettings()
    parts = ["ssb strategies tune"]
    flag = {
        "start": "--start", "name": "--name", "deals": "--deals", "generations": "--generations",
        "popsize": "--popsize", "sigma0": "--sigma0", "runs": "--runs", "rescore_deals": "--rescore-deals",
        "verify_deals": "--verify-deals", "seed": "--seed",
    }
    for key, opt in flag.items():
        v = getattr(s, key)
        if v != getattr(d, key):
            parts.append(f"{opt} {v}")
    if s.players != d.players:
        parts.append("--players " + ",".join(map(str, s.players)))
    if s.opponents != d.opponents:
        parts.append("--opponents " + ",".join(s.opponents))
    if s.weights:
        parts.append("--weights " + ",".join(s.weights))
    if s.late:
        parts.append("--late")
    if tuple(s.instruments) != tuple(STARTER):
        parts.append("--instruments " + ",".join(s.instruments))
    parts += [f"--instrument-dir {p}" for p in s.instrument_dirs]
    parts += [f"--strategy-dir {p}" for p in s.strategy_dirs]
    if s.description:
        parts.append(f"--description {json.dumps(s.description)}")
    return " ".join(parts)


def tune(settings, jobs=1, log=None):
    """Run a tune; returns (strategy, provenance table)."""
    return Tuner(settings, jobs=jobs, log=log).tune()


# =========================================================================== profile files


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return {True: "inf", False: "-inf"}[v > 0] if v == v else "nan"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _toml_table(path, table, lines):
    scalars = {k: v for k, v in table.items() if not isinstance(v, dict) and not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))}
    subs = {k: v for k, v in table.items() if isinstance(v, dict)}
    arrays = {k: v for k, v in table.items() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)}
    if path:
        lines.append(f"\n[{path}]")
    for k, v in scalars.items():
        lines.append(f"{_key(k)} = {_toml_value(v)}")
    for k, v in subs.items():
        _toml_table(f"{path}.{_key(k)}" if path else _key(k), v, lines)
    for k, items in arrays.items():
        for item in items:
            lines.append(f"\n[[{path}.{_key(k)}]]" if path else f"\n[[{_key(k)}]]")
            for kk, vv in item.items():
                lines.append(f"{_key(kk)} = {_toml_value(vv)}")


def _key(k):
    k = str(k)
    return k if k.replace("_", "").replace("-", "").isalnum() and not k.isdigit() else json.dumps(k)


def profile_text(strategy, provenance):
    """The profile file: ``[strategy]``, ``[weights]`` (and ``[weights_late]``), ``[provenance]``."""
    v = provenance["verify"]
    figures = "; ".join(
        f"{n} players {r['win_rate']:.1%} [{r['interval_95'][0]:.1%}, {r['interval_95'][1]:.1%}] (par {r['par']:.0%})"
        for n, r in v.items()
    )
    lines = [
        "# Written by `ssb strategies tune`; the [provenance] table reproduces it:",
        f"#   {provenance['command']}",
        f"# One seat against greedy in every other, on {next(iter(v.values()))['deals']} fresh deals per player count: {figures}.",
        "[strategy]",
        f"name = {_toml_value(strategy.name)}",
        f"kind = {_toml_value(strategy.kind)}",
        f"description = {_toml_value(strategy.description or _default_description(provenance))}",
    ]
    if strategy.focus >= 0:
        lines.append(f"focus = {strategy.focus}")
    for k, val in sorted(strategy.params.items()):
        lines.append(f"{k} = {_toml_value(val)}")
    lines.append("\n[weights]")
    lines += [f"{w} = {_toml_value(float(strategy.weights.get(w, 0.0)))}" for w in WEIGHT_NAMES]
    if strategy.late_weights is not None:
        lines.append("\n[weights_late]")
        lines += [f"{w} = {_toml_value(float(strategy.late_weights.get(w, 0.0)))}" for w in WEIGHT_NAMES]
    _toml_table("provenance", provenance, lines)
    return "\n".join(lines) + "\n"


def _default_description(prov):
    v = prov["verify"]
    figs = ", ".join(f"{r['win_rate']:.0%} at {n}p (par {r['par']:.0%})" for n, r in v.items())
    counts = ",".join(v)
    return f"Greedy with weights tuned by CMA-ES for {counts} players; as one seat against greedy it wins {figs}."


def write_profile(path, strategy, provenance):
    text = profile_text(strategy, provenance)
    Path(path).write_text(text, encoding="utf-8")
    return text


def read_provenance(path):
    """The settings a profile's ``[provenance]`` table records."""
    raw = read_toml(Path(path))
    prov = raw.get("provenance")
    if not isinstance(prov, dict) or "settings" not in prov:
        raise DataError(path, "provenance", "no tune provenance in this profile (it was not written by `ssb strategies tune`)")
    if prov.get("format") != TUNE_FORMAT:
        raise DataError(path, "provenance.format", f"expected format {TUNE_FORMAT}, got {prov.get('format')!r}")
    return TuneSettings.from_table(prov["settings"], path), prov


def _without_code(text):
    return "\n".join(l for l in text.splitlines() if not l.startswith(("kernel_sha256 = ", "code_version = ")))


def compare(old, new):
    """(same result, same code): the profile texts compared without and with the code lines.

    A tune's result is its games; the kernel hash is recorded to say which code played them, so a
    kernel changed for speed alone (the same decisions) still reproduces the same profile."""
    same = _without_code(old) == _without_code(new)
    return same, old == new


def replay(path, jobs=1, log=None):
    """Tune again from a profile's provenance; returns (same result, same code, old text, new text)."""
    settings, _prov = read_provenance(path)
    strategy, prov = tune(settings, jobs=jobs, log=log)
    new = profile_text(strategy, prov)
    old = Path(path).read_text(encoding="utf-8")
    same, same_code = compare(old, new)
    return same, same_code, old, new
