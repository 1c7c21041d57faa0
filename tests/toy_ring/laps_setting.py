"""Ring Laps's own scenario key, after the shared ones (``scenarios.scenario``)::

    laps = [1, 2, 3]    # required: the race lengths compared, one setting each (column ``laps``)

Every race length of a (players, lineup) plays the same deals, so they are compared deal by deal.
The names below are what every setting module offers (``simulator/boards_setting.py`` is the model).
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.setting_api import SettingRow, sha256_file

KEYS = ("laps",)
REQUIRED = ("laps",)
EFFECTIVE = ("game", "name", "description", "seed", "games", "players", "laps", "strategy_dirs", "lineup", "record",
             "sequential")
SETTINGS = ("game", "games", "seed", "players", "laps", "strategy_dirs", "set", "record")


@dataclass
class LapsSetting:
    game: object
    laps: tuple

    def rows(self):
        return [SettingRow(columns=(("laps", str(n)),), key=f"laps={n}", deal="laps=*", fields=(("laps", n),),
                           attrs=(("laps", n),)) for n in self.laps]

    def effective(self, doc):
        return {"laps": list(self.laps)}

    def settings(self):
        return {"laps": list(self.laps)}

    def packed(self, cell):
        from toy_ring.game import Variants

        return self.game.setup(cell.players, "ring", Variants(laps=cell.laps))

    def data_files(self, cells, strategies):
        ring = self.packed(cells[0]).board.path
        out = {"board": {"path": ring, "sha256": sha256_file(ring)}, "instruments": {}, "strategies": {}}
        for n in sorted({s for c in cells for s in c.lineup}):
            p = strategies.get(n).path
            out["strategies"][n] = {"path": p, "sha256": sha256_file(p)}
        return out


def prepare(doc):
    """Nothing to do before ``--set``."""


def apply_set(doc, key, value, path):
    if key != "laps":
        return False
    doc["laps"] = value
    return True


def parse(ck, doc, game, common, path):
    laps = doc["laps"]
    if isinstance(laps, int) and not isinstance(laps, bool):
        laps = [laps]
    laps = ck.int_list(laps, "laps", min_len=1, lo=1, hi=10)
    if len(set(laps)) != len(laps):
        ck.fail("laps", "a race length is listed twice")
    return LapsSetting(game, tuple(laps))
