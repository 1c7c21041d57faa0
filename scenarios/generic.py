"""The names a scenario of a game of boards and variants had before every game shared one schema
(:mod:`scenarios.scenario`) and one cell type (:mod:`scenarios.cells`); kept importable."""

from __future__ import annotations

from scenarios.cells import Cell as GameCell
from scenarios.cells import CellSpec as GameCellSpec
from scenarios.load import scenario_from_doc as game_scenario_from_doc
from scenarios.scenario import Scenario as GameScenario
from scenarios.worker import chunk_tables

__all__ = ["GameCell", "GameCellSpec", "GameScenario", "game_scenario_from_doc", "chunk_tables"]
