"""Ring Laps: Ring Race on a setting of another shape (the toy extended). Its scenarios list no
boards and no variants but the race lengths to compare, ``laps = [1, 2, 3]``, each a setting of its
own (the setting column ``laps``), all of them played on the same deals. Its setting module is
:mod:`toy_ring.laps_setting`; everything else is Ring Race's. Registered from the tests alone."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from toy_ring.game import GAME as RING

DATA = Path(__file__).resolve().parent / "data"

GAME = replace(
    RING,
    name="ring-laps",
    title="Ring Laps",
    setting="toy_ring.laps_setting",  # the game's own scenario keys: laps = [...]
    setting_columns=("laps",),
    gate_scenario=str(DATA / "laps.toml"),
)
