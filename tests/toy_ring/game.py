"""Ring Race's registry entry, and the loaders and playout the entry names."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulator.errors import DataError
from simulator.game_api import Game, GateFigure, GateKind, GateSpec, LadderSpec
from simulator.playout_common import GameRecord, SoakReport
from simulator.profiles import ProfileLibrary, read_profile_head, weight_table
from simulator.seeds import game_seed
from simulator.validate import Checker, read_toml

from toy_ring import kernel as K

DATA = Path(__file__).resolve().parent / "data"
WEIGHTS = ("boldness",)


# ---------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Ring:
    name: str
    path: str
    spaces: int
    faces: tuple
    laps: int
    max_rounds: int


@dataclass(frozen=True)
class Variants:
    laps: int | None = None
    bump: bool = True


@dataclass(frozen=True)
class Setup:
    nplayers: int
    board: Ring
    laps: int
    bump: bool


def load_ring(ref="ring"):
    path = DATA / f"{ref}.toml" if ref == "ring" else Path(ref)
    ck = Checker(path)
    doc = read_toml(path)
    ck.table(doc, "", required=("ring",))
    t = ck.table(doc["ring"], "ring", required=("name", "spaces", "faces"), optional=("laps", "max_rounds"))
    return Ring(
        name=ck.name(t["name"], "ring.name"),
        path=str(path),
        spaces=ck.integer(t["spaces"], "ring.spaces", lo=3, hi=100),
        faces=ck.int_list(t["faces"], "ring.faces", min_len=1, max_len=12, lo=1, hi=12),
        laps=ck.integer(t.get("laps", 1), "ring.laps", lo=1, hi=10),
        max_rounds=ck.integer(t.get("max_rounds", 40), "ring.max_rounds", lo=1, hi=1000),
    )


def variants_from_dict(table, file="variants", key="variants"):
    ck = Checker(file)
    ck.table(table or {}, key, optional=("laps", "bump"))
    t = table or {}
    laps = ck.integer(t["laps"], f"{key}.laps", lo=1, hi=10) if "laps" in t else None
    return Variants(laps, ck.boolean(t.get("bump", True), f"{key}.bump"))


def setup(players, board="ring", variants=None):
    ring = board if isinstance(board, Ring) else load_ring(board)
    v = variants or Variants()
    return Setup(players, ring, v.laps or ring.laps, v.bump)


# ---------------------------------------------------------------------------- strategies


@dataclass(frozen=True)
class Strategy:
    name: str
    kind: str
    description: str
    weights: dict = field(default_factory=dict)
    path: str = ""

    def row(self):
        return np.array([K.KIND_NAMES.index(self.kind), self.weights.get("boldness", 0.0)], dtype=np.float64)


def load_strategy(path, base_weights=None):
    raw, ck, head, name, kind, description = read_profile_head(Path(path), K.KIND_NAMES, tables=("weights",))
    weights = weight_table(raw.get("weights", {}), "weights", dict(base_weights or {}), ck, path, WEIGHTS)
    return Strategy(name, kind, description, weights, str(path))


class Library(ProfileLibrary):
    profile_dir = DATA / "strategies"
    load = staticmethod(load_strategy)

    def get(self, name, source="strategy name"):
        s = self._by_name.get(str(name).strip().lower())
        if s is None:
            raise DataError(source, name, f"unknown Ring Race strategy; known: {', '.join(sorted(self._by_name))}")
        return s


# ---------------------------------------------------------------------------- playout


def play_one(setup, strat, seed):
    log = []
    pos, bumped, winner, rounds, stalled, turns, violation = K.play_game(setup, np.asarray(strat), seed, log)
    state = np.array([*pos, winner, rounds, stalled, turns], dtype=np.int64)
    return GameRecord(setup, int(seed), state, np.array(log, dtype=np.int64).reshape(-1, 5), violation, turns if violation else -1)


def soak(setup, strat, games, seed):
    found, turns = [], 0
    for i in range(games):
        s = game_seed(seed, i)
        *_, t, violation = K.play_game(setup, np.asarray(strat), s)
        turns += t
        if violation:
            found.append((s, t, violation, K.VIOLATIONS[violation]))
    return SoakReport(games, turns, found)


def narrate(record, strategies=()):
    lines = [f"Ring Race, {record.setup.nplayers} players, seed {record.seed}"]
    for rnd, seat, roll, step, pos in record.events:
        lines.append(f"round {rnd}: seat {seat + 1} rolls {roll}, moves {step} to {pos}")
    winner = int(record.state[record.setup.nplayers])
    lines.append("no winner (round cap)" if winner < 0 else f"seat {winner + 1} wins")
    return "\n".join(lines) + "\n"


def document(record, strategies=()):
    n = record.setup.nplayers
    return {"game": "ring-race", "players": n, "seed": record.seed, "strategies": list(strategies),
            "winner": int(record.state[n]), "events": record.events.tolist()}


def ladder_winners(nplayers, strat, seeds, settings):
    s = setup(nplayers, settings.get("board") or "ring")
    return np.array([K.play_game(s, np.asarray(strat), x)[2] for x in seeds], dtype=np.int64)


GAME = Game(
    name="ring-race",
    title="Ring Race",
    player_counts=(2, 3, 4),
    boards=("ring",),
    setup=setup,
    variants_from_dict=variants_from_dict,
    seat_columns=("distance", "bumped", "won"),
    game_columns=("winner", "rounds", "stalled", "turns"),
    score_sources=(),
    strategies=Library,
    play_batch=K.play_batch,
    play_one=play_one,
    narrate=narrate,
    document=document,
    soak=soak,
    kernel_sources=K.kernel_sources,
    kernel_entry="toy_ring.kernel:play_batch",
    gate_scenario=str(DATA / "ci.toml"),
    gate=GateSpec(
        figures=(GateFigure("bumps", "bumps", "tokens sent home per game (all seats)", "bumped"),),
        kinds=(GateKind("bumps", "bumps per game", 0.5),),
        stalls=True,
    ),
    ladder=LadderSpec(
        default_rungs=lambda lib: ("random", "greedy"),
        parse_rung=lambda spec, lib: lib.get(spec, "rung"),
        winners=ladder_winners,
        players=(2, 4),
    ),
)
