"""One cell and one cell spec for every game.

A *cell* is one player count x one setting of the game x one lineup, played for ``deals`` deals in
each distinct seat rotation of the lineup (:class:`scenarios.spec.LineupCell`). Its setting is the
:class:`simulator.game_api.SettingRow` the game's setting module gave (``Game.setting``): the values
of the game's setting columns (Shuffle and Swing's ``inst_black``/``inst_orange``/``inst_gray``,
Echidna Shuffle's ``board``/``variant``), the words of its key and of its deal key, and its fields
in the manifest. So the key of a cell reads::

    players=4|black=Violin|orange=Piano|gray=Horns|lineup=greedy,random,random,random
    players=4|board=forest|variant=base|lineup=greedy,greedy,greedy,greedy

and its deals are seeded from the deal key (settings compared on the same deals share it). A
cell's setting attributes read as its own (``cell.instruments``, ``cell.board``, ``cell.variant``).

A *cell spec* is what a worker needs to play a cell, with no file access: the game's name (and the
module declaring it, for a worker that does not know the game), the setting's packed setup, the
strategy rows of the lineup and what the run records.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scenarios.spec import LineupCell


@dataclass(frozen=True)
class Cell(LineupCell):
    """One player count x one setting x one lineup (before rotation)."""

    index: int
    players: int
    setting: object  # simulator.game_api.SettingRow
    lineup: tuple
    deals: int

    def __getattr__(self, name):
        # The setting's attributes (``instruments``, ``board``, ``variant``, ``paired``) as the cell's.
        if name.startswith("_") or name == "setting":
            raise AttributeError(name)
        for key, value in self.setting.attrs:
            if key == name:
                return value
        raise AttributeError(f"a cell of this game has no '{name}'")

    @property
    def key(self):
        """The stable text naming the cell."""
        return f"players={self.players}|{self.setting.key}|lineup={','.join(self.lineup)}"

    @property
    def deal_key(self):
        """The text whose hash seeds the cell's deals (settings compared on the same deals share it)."""
        return f"players={self.players}|{self.setting.deal}|lineup={','.join(self.lineup)}"

    @property
    def columns(self):
        """``{setting column: value}`` of the cell."""
        return dict(self.setting.columns)

    def as_dict(self):
        """The cell as the manifest records it."""
        return {
            "cell": self.index,
            "cell_key": self.key,
            "players": self.players,
            **dict(self.setting.fields),
            "lineup": list(self.lineup),
            "deals": self.deals,
            **dict(self.setting.after),
            "rotations": self.rotations,
            "games": self.games,
        }


@dataclass(frozen=True)
class CellSpec:
    """What a worker needs to play a cell of any game, with no file access."""

    run_id: str  # scenario text + data + code; with the cell index it keys the worker's caches
    game: str
    cell: Cell
    setup: object  # the setting's packed setup of the cell (``setting.packed(cell)``)
    strategy_rows: np.ndarray  # one row per lineup position (before rotation)
    module: str | None = None  # the module declaring the game, for a worker that does not know it
    record: tuple = ()  # what the run records beyond its tables (``scenarios.record``)

    def chunk_tables(self, task):
        from scenarios.worker import chunk_tables

        return chunk_tables(task)

    def compiles(self):
        """How many times this process compiled the game's batch kernel instead of loading it."""
        from scenarios.worker import kernel_compiles

        return kernel_compiles(self.game, self.module)
