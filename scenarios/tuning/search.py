"""The search of ``ssb tune`` (the tuning file: :mod:`scenarios.tuning.spec`).

The search (:class:`Tuner`) goes by number of keys: all one-key changes first, then two-key ones,
up to ``max_keys``, and stops at the first number of keys with a confirmed fix. For each it runs
``restarts`` independent optuna studies (TPE, stored in ``study.db``, SQLite) whose candidates
race through the rungs on the restart's common deals: a candidate stops at the first rung where a
target is shown failing, and is *met* only at the last rung. The met candidates, smallest first,
are then re-played on fresh deals (``confirm_games``) and under every strong judge: only a
candidate that meets the targets there is reported as a fix; the others are listed as such.

Every verdict comes from a *judge function* passed in by the caller (the CLI passes
``reports.tune_verdicts.judge``), so this module plays games but computes no statistics itself.
Seeds depend only on the tuning file, so the answer is the same whatever the number of workers,
and a run interrupted at any point continues with ``resume=True`` to the same answer.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import signal
import sys
import threading
import time
import warnings
from pathlib import Path

from scenarios.runner import dispatcher, resolve_jobs
from simulator.errors import DataError
from simulator.seeds import derive_seed
from scenarios.tuning.candidates import (
    FAILED,
    MET,
    GamePlayer,
    Race,
    candidate_id,
    candidate_scenario,
    candidate_size,
    overall_from_json,
    refused_verdicts,
    relabel,
    search_score,
    verdicts_json,
)
from scenarios.tuning.spec import TuneSpec, load_tuning

STUDY_FILE = "study.db"
RESULT_FILE = "tune.json"
IDENTITY_STUDY = "identity"


@contextlib.contextmanager
def held_interrupt():
    """Hold a Ctrl-C back while the study database is written, and raise it once the write is done.

    An interrupt that lands inside SQLite's commit can leave optuna's session half rolled back,
    and the next storage call then fails with a database error instead of the interrupt (exit 1
    and a traceback, where an interrupted tune must exit 130 and resume). Outside these short
    writes (while candidates play) Ctrl-C acts at once, as before. Off the main thread, or when
    SIGINT is ignored, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous in (signal.SIG_IGN, None):
        yield
        return
    held = []
    signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt


# =========================================================================== the search


class TuneDirError(DataError):
    """An output folder that holds another tuning study, or one to resume that does not match."""


def _suppress_optuna():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)


class Tuner:
    """Runs the search of a :class:`TuneSpec` into ``out_dir`` (see the module docstring)."""

    def __init__(self, spec, judge_fn, out_dir, *, jobs=1, backend="local", scheduler=None, resume=False,
                 force=False, progress=None, stop_after=None):
        self.spec = spec
        self.judge_fn = judge_fn
        self.out_dir = Path(out_dir)
        self.jobs = resolve_jobs(jobs)
        self.backend = backend
        self.scheduler = scheduler
        self.resume = resume
        self.force = force
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.stop_after = stop_after  # tests: stop (as if interrupted) after this many trials
        self.trials_done = 0
        self.cost = {"search": 0, "confirm": 0, "before": 0, "robustness": 0}
        if spec.game:
            self.cost["closest"] = 0

    # ------------------------------------------------------------------ storage

    def _storage(self):
        import optuna

        _suppress_optuna()
        db = self.out_dir / STUDY_FILE
        exists = db.exists()
        if exists and self.force:
            db.unlink()
            (self.out_dir / RESULT_FILE).unlink(missing_ok=True)
            exists = False
        if exists and not self.resume:
            raise TuneDirError(
                self.out_dir, "", "holds a tuning study; continue it with --resume or start over with --force"
            )
        if not exists and self.resume:
            raise TuneDirError(self.out_dir, "", "holds no tuning study to resume")
        if exists:
            self._check_study_file()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        storage = optuna.storages.RDBStorage(
            f"sqlite:///{db.resolve()}", engine_kwargs={"connect_args": {"timeout": 60}}
        )
        ident = self.spec.identity()
        with held_interrupt():
            meta = optuna.create_study(study_name=IDENTITY_STUDY, storage=storage, load_if_exists=True)
            old = meta.user_attrs.get("identity")
            if old is None:
                meta.set_user_attr("identity", ident)
        if old is not None and old != ident:
            changed = sorted(
                k for k in ("tuning_sha256", "scenario_sha256", "kernel_sha256") if old.get(k) != ident.get(k)
            ) + sorted(k for k in set(old["data"]) | set(ident["data"]) if old["data"].get(k) != ident["data"].get(k))
            raise TuneDirError(
                self.out_dir,
                "identity",
                f"the study on disk was made with other settings or data ({', '.join(changed)}): "
                "start over with --force or choose another --out",
            )
        self.storage, self.meta = storage, meta

    def _check_study_file(self):
        from scenarios.tune_store import check_study_file

        s = self.spec.settings
        names = [f"keys{k}-restart{r}" for k in range(1, s["max_keys"] + 1) for r in range(s["restarts"])]
        check_study_file(self.out_dir / STUDY_FILE, names, IDENTITY_STUDY)

    def _memo(self, key, compute, phase):
        """A result stored in the identity study (so a resumed run does not redo it); the games it
        cost count in ``phase`` whether played now or before an interruption."""
        got = self.meta.user_attrs.get(key)
        if got is None:
            before = self.player.played
            got = {"value": compute(), "played": None}
            got["played"] = self.player.played - before
            got["ledger"] = self.player.snapshot()
            with held_interrupt():
                self.meta.set_user_attr(key, got)
        self.cost[phase] += got["played"]
        return got["value"]

    # ------------------------------------------------------------------ playing and judging

    def _judge(self, seats, games, targets=None):
        targets = self.spec.targets if targets is None else targets
        return verdicts_json(self.judge_fn(seats, games, list(targets), self.spec.confidence))

    def _race(self, changes_list, seed):
        """Race candidates through the rungs on the deals of ``seed``; returns a Race per candidate."""
        races = [Race(dict(c)) for c in changes_list]
        rungs = self.spec.settings["rungs"]
        for r, games in enumerate(rungs):
            running = [x for x in races if x.state == "running"]
            scs = []
            for x in list(running):
                try:
                    scs.append(candidate_scenario(self.spec, x.changes, self.spec.search_judge, self.spec.players,
                                                  games, seed))
                except DataError as exc:
                    # A combination the game's loader refuses (each value alone was accepted when the
                    # file was read, e.g. token schedules that together exceed the supply).
                    x.state, x.rung, x.games = "refused", r, 0
                    x.verdicts = refused_verdicts(self.spec.targets, exc.reason)
                    running.remove(x)
            if not running:
                break
            for x, (seats, g) in zip(running, self.player.tables(scs), strict=True):
                x.verdicts = self._judge(seats, g)
                x.rung, x.games = r, games
                st = overall_from_json(x.verdicts)
                # Racing: a target shown failing ends the race; only the last rung can declare it met.
                if st == FAILED:
                    x.state = "unmet"
                elif r == len(rungs) - 1:
                    x.state = MET if st == MET else "unmet"
        return races

    def _verdicts_at(self, changes, judge, games, seed, targets=None, players=None):
        players = self.spec.players if players is None else players
        sc = candidate_scenario(self.spec, changes, judge, players, games, seed)
        ((seats, g),) = self.player.tables([sc])
        return self._judge(seats, g, targets)

    # ------------------------------------------------------------------ one study

    def _sampler(self, seed):
        import optuna

        if self.spec.settings["sampler"] == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        return optuna.samplers.TPESampler(
            seed=seed, multivariate=True, group=True, constant_liar=True, n_startup_trials=8
        )

    def _suggest(self, trial, k):
        params = self.spec.params
        if k < len(params):
            combos = ["+".join(str(i) for i in c) for c in itertools.combinations(range(len(params)), k)]
            chosen = [params[int(i)] for i in trial.suggest_categorical("keys", combos).split("+")]
        else:
            chosen = list(params)
        changes = {}
        for p in chosen:
            name = f"value:{p.key}"
            if p.kind == "int":
                lo, hi = int(p.lo), int(p.hi)
                if lo <= p.base <= hi:
                    j = trial.suggest_int(name, lo, hi - 1)
                    changes[p.key] = j + 1 if j >= p.base else j
                else:
                    changes[p.key] = trial.suggest_int(name, lo, hi)
            elif p.kind == "float":
                changes[p.key] = trial.suggest_float(name, p.lo, p.hi)
            else:
                opts = p.options()
                changes[p.key] = opts[trial.suggest_categorical(name, list(range(len(opts))))]
        return changes

    def _space_size(self, k):
        total = 0
        for combo in itertools.combinations(self.spec.params, k):
            n = 1
            for p in combo:
                o = p.options()
                n *= math.inf if o is None else len(o)
            total += n
        return total

    def _written(self):
        """Count a write of the search; ``SSB_TUNE_KILL_AT=N`` (tests) kills this process with
        SIGKILL right after its N-th write, a real ``kill -9`` at an exact point."""
        self.writes = getattr(self, "writes", 0) + 1
        if os.environ.get("SSB_TUNE_KILL_AT") == str(self.writes):
            os.kill(os.getpid(), signal.SIGKILL)

    def _settle(self, study, name):
        """Tidy a study that an interrupted process left (Ctrl-C, kill -9, a power cut).

        A trial of a batch whose outcome was stored (see :meth:`_study`) is told that outcome. Any
        other trial left running is void and marked failed, and so is a trial enqueued but never
        asked (:meth:`_one`): the sampler ignores failed trials, so the resumed study asks exactly
        what the uninterrupted one would."""
        from optuna.trial import Trial, TrialState

        pending = self.meta.user_attrs.get(f"batch:{name}") or {"trials": [], "attrs": [], "scores": []}
        outcome = {n: (a, sc) for n, a, sc in zip(pending["trials"], pending["attrs"], pending["scores"], strict=True)}
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            if t.number in outcome:
                attrs, score = outcome[t.number]
                trial = Trial(study, t._trial_id)
                for a, v in attrs.items():
                    trial.set_user_attr(a, v)
                study.tell(t.number, score)
            else:
                study.tell(t.number, state=TrialState.FAIL)
        for _ in study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
            study.tell(study.ask(), state=TrialState.FAIL)

    def _restore_ledger(self):
        """A resumed run books games from the ledger of the study's last record."""
        from optuna.trial import TrialState

        snaps = [v["ledger"] for k, v in self.meta.user_attrs.items() if isinstance(v, dict) and "ledger" in v]
        for summary in self.storage.get_all_studies():
            if summary.study_name == IDENTITY_STUDY:
                continue
            for t in self.storage.get_all_trials(summary._study_id, deepcopy=False, states=(TrialState.COMPLETE,)):
                if "ledger" in t.user_attrs:
                    snaps.append(t.user_attrs["ledger"])
        if snaps:
            self.player.restore(max(snaps, key=lambda s: s["seq"]))

    def _study(self, k, restart, bar, best):
        import optuna
        from optuna.trial import TrialState

        name = f"keys{k}-restart{restart}"
        with held_interrupt():
            study = optuna.create_study(study_name=name, storage=self.storage, load_if_exists=True, direction="minimize")
            self._settle(study, name)
        seed = derive_seed(self.spec.seed, "search", restart)
        memo = {}
        done = 0
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            memo.setdefault(t.user_attrs["candidate"], {a: v for a, v in t.user_attrs.items() if a != "ledger"})
            self.cost["search"] += t.user_attrs.get("played", 0)
            done += 1
        bar.update(done)
        size = self._space_size(k)
        trials, batch = self.spec.settings["trials"], self.spec.settings["batch"]
        while done < trials and len(memo) < size:
            asks = []
            for i in range(min(batch, trials - done)):
                study.sampler = self._sampler(derive_seed(self.spec.seed, "sampler", k, restart, done, i) % 2**32)
                with held_interrupt():  # the trial and its parameters are written to the study
                    trial = study.ask()
                    asks.append((trial, self._suggest(trial, k)))
            fresh = {}
            for _, ch in asks:
                cid = candidate_id(ch)
                if cid not in memo and cid not in fresh:
                    fresh[cid] = ch
            played = self.player.played
            races = dict(zip(fresh, self._race(list(fresh.values()), seed), strict=True))
            played = self.player.played - played
            self.cost["search"] += played
            told, first = [], {}
            for trial, ch in asks:
                cid = candidate_id(ch)
                keys, change = candidate_size(self.spec, ch)
                if cid in races:
                    x = races[cid]
                    attrs = {"candidate": cid, "state": x.state, "rung": x.rung, "games": x.games,
                             "verdicts": x.verdicts, "keys": keys, "change": change, "repeat": False,
                             "played": played}
                    played = 0  # the batch's games are booked on its first new candidate
                    del races[cid]
                    first.setdefault(cid, attrs)
                else:
                    attrs = {**(memo[cid] if cid in memo else first[cid]), "repeat": True, "played": 0}
                told.append((trial, attrs, search_score(attrs["state"], attrs["verdicts"], change, k)))
            # The batch's outcome is stored whole, in one write, before its trials are told: a
            # process killed while telling them (kill -9, a power cut) is resumed by telling the rest
            # the same outcome, so the study reads as if it had never stopped.
            with held_interrupt():
                self.meta.set_user_attr(f"batch:{name}", {
                    "trials": [t.number for t, _, _ in told], "attrs": [a for _, a, _ in told],
                    "scores": [sc for _, _, sc in told], "ledger": self.player.snapshot()})
            self._written()
            for trial, attrs, score in told:
                cid, keys, change = attrs["candidate"], attrs["keys"], attrs["change"]
                with held_interrupt():
                    for a, v in attrs.items():
                        trial.set_user_attr(a, v)
                    study.tell(trial, score)
                self._written()
                memo.setdefault(cid, attrs)
                done += 1
                self.trials_done += 1
                if attrs["state"] == MET and (best[0] is None or (keys, change) < best[0]):
                    best[0] = (keys, change)
                bar.update(1)
                bar.set_postfix_str(self._best_text(best[0], k, restart))
            if self.stop_after is not None and self.trials_done >= self.stop_after:
                raise KeyboardInterrupt
        bar.total = max(bar.n, bar.total - (trials - done))
        bar.refresh()
        self._refine(study, k, memo, seed, bar, best, restart)
        n_trials = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
        return [{**attrs, "restart": restart} for attrs in memo.values()], n_trials

    def _encode(self, changes, k):
        """The trial parameters that make :meth:`_suggest` return ``changes``."""
        params = self.spec.params
        idx = [i for i, p in enumerate(params) if p.key in changes]
        out = {} if k == len(params) else {"keys": "+".join(str(i) for i in idx)}
        for i in idx:
            p, v = params[i], changes[params[i].key]
            name = f"value:{p.key}"
            if p.kind == "int":
                out[name] = v - 1 if (p.lo <= p.base <= p.hi and v > p.base) else v
            elif p.kind == "float":
                out[name] = v
            else:
                out[name] = p.options().index(v)
        return out

    def _one(self, study, k, changes, memo, seed, bar, best, restart):
        """Play one given candidate as an enqueued trial of the study (or recall it)."""
        cid = candidate_id(changes)
        if cid in memo:
            return memo[cid]
        with held_interrupt():
            study.enqueue_trial(self._encode(changes, k))
            trial = study.ask()
            got = self._suggest(trial, k)
        assert candidate_id(got) == cid, (got, changes)
        played = self.player.played
        (x,) = self._race([changes], seed)
        played = self.player.played - played
        self.cost["search"] += played
        keys, change = candidate_size(self.spec, changes)
        attrs = {"candidate": cid, "state": x.state, "rung": x.rung, "games": x.games, "verdicts": x.verdicts,
                 "keys": keys, "change": change, "repeat": False, "played": played, "refine": True}
        with held_interrupt():
            for a, v in {**attrs, "ledger": self.player.snapshot()}.items():
                trial.set_user_attr(a, v)
            study.tell(trial, search_score(x.state, x.verdicts, change, k))
        self._written()
        memo[cid] = attrs
        self.trials_done += 1
        if x.state == MET and (best[0] is None or (keys, change) < best[0]):
            best[0] = (keys, change)
        bar.total += 1
        bar.update(1)
        bar.set_postfix_str(self._best_text(best[0], k, restart))
        return attrs

    def _refine(self, study, k, memo, seed, bar, best, restart):
        """Bisect each integer key of the restart's smallest met candidate back toward its current
        value, on the same deals: the sampler finds a change that works, this finds the least of it
        (assuming the verdict is monotone along the key between the two)."""
        met = [a for a in memo.values() if a["state"] == MET and a["keys"] == k]
        if not met:
            return
        top = min(met, key=lambda a: (a["change"], a["candidate"]))
        changes = dict(json.loads(top["candidate"]))
        for p in self.spec.params:
            if p.key not in changes or p.kind != "int":
                continue
            lo, hi = p.base, changes[p.key]  # lo: unchanged (not met), hi: met
            while abs(hi - lo) > 1:
                mid = lo + (hi - lo) // 2
                trial_changes = {**changes, p.key: mid}
                if self._one(study, k, trial_changes, memo, seed, bar, best, restart)["state"] == MET:
                    hi, changes = mid, trial_changes
                else:
                    lo = mid
            if self.stop_after is not None and self.trials_done >= self.stop_after:
                raise KeyboardInterrupt

    @staticmethod
    def _best_text(best, k, restart):
        b = "none met yet" if best is None else f"best met: {best[0]} key(s), change {best[1]:.3f}"
        return f"{k} key(s), restart {restart + 1}: {b}"

    # ------------------------------------------------------------------ confirmation

    def _confirm(self, k, cand, memo_key=None, phase="confirm", stop=True):
        """Fresh deals under the search judge, then every strong judge (``stop``: only while it
        passes); the record of each."""
        spec = self.spec
        changes = dict(json.loads(cand["candidate"]))

        def compute():
            rec = {"candidate": cand["candidate"], "stages": []}
            v = self._verdicts_at(changes, spec.search_judge, spec.settings["confirm_games"], derive_seed(spec.seed, "confirm"))
            ok = overall_from_json(v) == MET
            rec["stages"].append({"judge": spec.search_judge.label, "role": "search", "games": spec.settings["confirm_games"],
                                  "verdicts": v, "state": overall_from_json(v), "passed": ok})
            for j, judge in enumerate(spec.strong_judges):
                if not ok and stop:
                    break
                v = self._verdicts_at(changes, judge, spec.strong_games, derive_seed(spec.seed, "strong", j))
                st = overall_from_json(v)
                ok = ok and (st == MET if spec.strong_rule == "meet" else st != FAILED)
                rec["stages"].append({"judge": judge.label, "role": "strong", "games": spec.strong_games,
                                      "verdicts": v, "state": st, "passed": ok})
            rec["confirmed"] = ok
            return rec

        return self._memo(memo_key or f"confirm:{k}:{cand['candidate']}", compute, phase)

    def _closest(self, tried):
        """The candidate nearest the targets over every number of keys (smallest summed distance of
        its unmet verdicts, then the smallest change), with its record on fresh deals (as
        :meth:`_confirm` plays a winner); None when nothing was played."""
        played = [c for c in tried if c["state"] != "refused" and c["verdicts"]]
        if not played:
            return None

        def dist(c):
            return sum(min(float(v["distance"]), 1e3) for v in c["verdicts"] if v["state"] != MET)

        c = min(played, key=lambda c: (dist(c), c["keys"], c["change"], c["candidate"]))
        rec = self._confirm(0, c, memo_key=f"closest:{c['candidate']}", phase="closest", stop=False)
        by_key = {p.key: p for p in self.spec.params}
        return {
            "changes": [{"key": k, "before": by_key[k].base, "after": v, "change": by_key[k].change(v)}
                        for k, v in json.loads(c["candidate"])],
            "keys": c["keys"], "change": c["change"],
            "search": {"state": c["state"], "games": c["games"], "verdicts": c["verdicts"]},
            "confirmation": rec,
        }

    def _before(self):
        spec = self.spec

        def compute():
            out = [{"judge": spec.search_judge.label, "role": "search", "games": spec.settings["confirm_games"],
                    "verdicts": self._verdicts_at({}, spec.search_judge, spec.settings["confirm_games"],
                                                  derive_seed(spec.seed, "confirm"))}]
            for j, judge in enumerate(spec.strong_judges):
                out.append({"judge": judge.label, "role": "strong", "games": spec.strong_games,
                            "verdicts": self._verdicts_at({}, judge, spec.strong_games,
                                                          derive_seed(spec.seed, "strong", j))})
            for o in out:
                o["state"] = overall_from_json(o["verdicts"])
            return out

        return self._memo("before", compute, "before")

    def _robustness(self, changes):
        """The targets at every player count of the scenario (search judge, fresh deals), before and after."""
        spec = self.spec
        counts = sorted(set(spec.scenario.players) | set(spec.players))

        def compute():
            rows = []
            for n in counts:
                targets = [{**t, "players": (n,)} for t in spec.targets]
                seed = derive_seed(spec.seed, "confirm")
                games = spec.settings["confirm_games"]
                if spec.game:  # another game: every board of the scenario too, each on its own
                    targets = [{**t, "players": (n,), "label": relabel(t, n)} for t in spec.targets]
                    for b in spec.scenario.boards:
                        rows.append(self._robust_row(changes, targets, n, games, seed, b))
                    continue
                before = self._verdicts_at({}, spec.search_judge, games, seed, targets, (n,))
                after = self._verdicts_at(changes, spec.search_judge, games, seed, targets, (n,))
                rows.append({"players": n, "judge": spec.search_judge.label, "games": games,
                             "before": before, "after": after})
            return rows

        return self._memo(f"robustness:{candidate_id(changes)}", compute, "robustness")

    def _robust_row(self, changes, targets, n, games, seed, board):
        """One robustness row of another game: before and after at ``n`` players on ``board`` (a
        change the loader refuses there, e.g. a schedule over the supply at 6 players, says so)."""
        spec = self.spec
        row = {"players": n, "board": board, "judge": spec.search_judge.label, "games": games}
        for name, ch in (("before", {}), ("after", changes)):
            try:
                sc = candidate_scenario(spec, ch, spec.search_judge, (n,), games, seed, boards=(board,))
            except DataError as exc:
                row[name] = refused_verdicts(targets, exc.reason)
                continue
            ((seats, g),) = self.player.tables([sc])
            row[name] = self._judge(seats, g, targets)
        return row

    # ------------------------------------------------------------------ the whole run

    def run(self):
        """Search, confirm and write ``tune.json`` (the answer) to the output folder; returns it.

        The folder is locked while it runs (scenarios.writelock: one writer per folder); a database
        error of the study (a full disk, a damaged file) is a StudyFileError naming ``study.db``."""
        from scenarios.tune_store import is_storage_error, storage_error
        from scenarios.writelock import folder_lock

        if self.resume and not (self.out_dir / STUDY_FILE).exists():
            raise TuneDirError(self.out_dir, "", "holds no tuning study to resume")
        if self.resume:
            self._check_study_file()  # before the lock file is made: a refused resume writes nothing
        with folder_lock(self.out_dir):
            try:
                return self._run()
            except Exception as exc:
                if is_storage_error(exc):
                    raise storage_error(self.out_dir / STUDY_FILE, exc) from None
                raise

    def _run(self):
        from tqdm import tqdm

        spec = self.spec
        t0 = time.perf_counter()
        self._storage()
        s = spec.settings
        total = sum(min(s["trials"], self._space_size(k)) * s["restarts"] for k in range(1, s["max_keys"] + 1))
        bar = tqdm(total=total, desc=f"tune {spec.name}", unit=" candidates", dynamic_ncols=True,
                   disable=not self.progress, file=sys.stderr, smoothing=0.1)
        with dispatcher(self.backend, self.jobs, self.scheduler) as dispatch:
            self.player = GamePlayer(dispatch, self.jobs)
            if self.resume:
                self._restore_ledger()
            try:
                before = self._before()
                stages = []
                fix, runners, unconfirmed = None, [], []
                best = [None]
                everything = []  # every candidate of every number of keys (for another game's evidence)
                for k in range(1, s["max_keys"] + 1):
                    tried, n_trials = [], 0
                    for r in range(s["restarts"]):
                        got, n = self._study(k, r, bar, best)
                        tried.extend(got)
                        everything.extend(got)
                        n_trials += n
                    met = {}
                    for c in tried:
                        if c["state"] == MET and c["keys"] == k:
                            prev = met.get(c["candidate"])
                            met[c["candidate"]] = {**c, "restarts": (prev["restarts"] if prev else []) + [c["restart"]]}
                    ranked = sorted(met.values(), key=lambda c: (c["change"], c["candidate"]))
                    confirmed = []
                    for c in ranked[: s["confirm_max"]]:
                        rec = self._confirm(k, c)
                        (confirmed if rec["confirmed"] else unconfirmed).append({**c, "confirmation": rec})
                    stages.append({"keys": k, "candidates": len({c["candidate"] for c in tried}),
                                   "trials": n_trials, "refined": sum(1 for c in tried if c.get("refine")),
                                   "met_in_search": len(ranked),
                                   "confirmed": len(confirmed),
                                   "failed_confirmation": sum(1 for c in ranked[: s["confirm_max"]]
                                                              if not any(x["candidate"] == c["candidate"] for x in confirmed))})
                    if confirmed:
                        # The smallest confirmed change is the fix; the next ones are the runners-up.
                        fix, runners = confirmed[0], confirmed[1:] + ranked[s["confirm_max"] :][:3]
                        break
                if fix is None:
                    # No confirmed fix: the closest candidates of the search are the runners-up.
                    near = sorted((c for c in tried), key=lambda c: search_score(c["state"], c["verdicts"], c["change"], s["max_keys"]))
                    runners = near[:3]
                robust = self._robustness(dict(json.loads(fix["candidate"]))) if fix else None
                # Another game, no fix: the closest candidate of the whole search, re-played on fresh
                # deals and under every strong judge, is the evidence that none was found.
                closest = self._closest(everything) if fix is None and spec.game else None
                if closest is not None:  # and at every player count and board of the scenario
                    closest["robustness"] = self._robustness({c["key"]: c["after"] for c in closest["changes"]})
            finally:
                bar.close()
        result = self._result(before, stages, fix, runners, unconfirmed, robust, time.perf_counter() - t0)
        if closest is not None:
            result["closest"] = closest
        from scenarios.results import write_atomic

        write_atomic(self.out_dir / RESULT_FILE, (json.dumps(result, indent=2) + "\n").encode())
        return result

    def _result(self, before, stages, fix, runners, unconfirmed, robust, wall):
        spec = self.spec

        def describe(c):
            if c is None:
                return None
            changes = dict(json.loads(c["candidate"]))
            by_key = {p.key: p for p in spec.params}
            return {
                "changes": [{"key": k, "before": by_key[k].base, "after": v, "change": by_key[k].change(v)}
                            for k, v in changes.items()],
                "keys": c["keys"],
                "change": c["change"],
                "search": {"state": c["state"], "games": c["games"], "verdicts": c["verdicts"],
                           "restarts": c.get("restarts", [c.get("restart")])},
                "confirmation": c.get("confirmation"),
            }

        # Games are booked on the stored trials and records, so a resumed run counts those played
        # before the interruption too (not the games of a batch cut short).
        cost = dict(self.cost)
        cost["total"] = sum(self.cost.values())
        cost["trials"] = sum(st["trials"] for st in stages)
        cost["candidates"] = sum(st["candidates"] for st in stages)
        cost["wall_seconds_this_process"] = round(wall, 1)
        return {
            "format": "ssb-tune",
            "version": 1,
            "name": spec.name,
            "description": spec.description,
            "tuning_file": spec.path,
            "scenario": spec.scenario.path,
            "seed": spec.seed,
            "confidence": spec.confidence,
            "judges": {"search": spec.search_judge.label, "strong": [j.label for j in spec.strong_judges],
                       "strong_rule": spec.strong_rule},
            "targets": [t["label"] for t in spec.targets],
            "space": [p.as_dict() for p in spec.params],
            "settings": spec.settings,
            "before": before,
            "fix": describe(fix),
            "runners_up": [describe(c) for c in runners],
            "unconfirmed": [describe(c) for c in unconfirmed],
            "stages": stages,
            "robustness": robust,
            "cost": cost,
            "jobs": self.jobs,
            "backend": self.backend,
            **({"game": spec.game, "variant": spec.variant, "boards": list(spec.boards)} if spec.game else {}),
        }


def tune(spec, judge_fn, out_dir=None, **kwargs):
    """Run the search of ``spec`` (a :class:`TuneSpec` or a path) into ``out_dir`` (default
    ``results/tune/<name>``); returns the answer (the contents of ``tune.json``)."""
    if not isinstance(spec, TuneSpec):
        spec = load_tuning(spec)
    out_dir = Path(out_dir) if out_dir is not None else Path("results") / "tune" / spec.name
    return Tuner(spec, judge_fn, out_dir, **kwargs).run()
