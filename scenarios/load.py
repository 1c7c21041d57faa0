"""The one front door of every scenario: read the TOML file, look the game up in the registry and hand
the document to the scenario schema the game declares (``Game.scenario_keys``).

Two schemas exist, one per way a game is set up (both share :mod:`scenarios.spec`: name, seed,
games, players, ``[lineup]``, ``--set``):

* ``"instruments"`` (:mod:`scenarios.scenario`): three instruments per cell, ``[instruments]`` sets,
  swaps or all, ``[overrides]`` of the data files (Shuffle and Swing);
* ``"boards"`` (:mod:`scenarios.generic`): ``boards`` and named ``[variants]`` of the game's switches,
  read by the game's own ``setup`` and ``variants_from_dict`` (Echidna Shuffle, and any new game).

Either gives a scenario with the same interface for the runner: ``game``, ``cells``, ``seed``,
``text``/``sha256``, ``settings()``, ``columns()``, ``data_files()`` and ``cell_specs(run_id)``.
"""

from __future__ import annotations

from scenarios.generic import game_scenario_from_doc
from scenarios.scenario import instrument_scenario_from_doc
from scenarios.spec import find_scenario, parse_set
from simulator import games as registry
from simulator.errors import DataError
from simulator.validate import read_toml

SCHEMAS = {
    "instruments": instrument_scenario_from_doc,
    "boards": game_scenario_from_doc,
}


def scenario_game(doc, path="scenario"):
    """The registered game a scenario document names (``game = "..."``; none: the default game)."""
    name = doc.get("game") if isinstance(doc, dict) else None
    return registry.get(name, str(path), "game")


def scenario_from_doc(doc, path, sets=(), games=None, seed=None):
    """Validate an already-parsed scenario document of any game; ``path`` names it in errors and
    anchors its folders; ``sets`` are ``KEY=VALUE`` changes, ``games`` and ``seed`` override."""
    game = scenario_game(doc, path)
    sets = tuple(sets)
    for item in sets:
        key, value = parse_set(item, str(path))
        if key == "game":
            # The game picks the schema the other keys are read by: a scenario's game is its file's.
            asked = scenario_game({"game": value}, f"--set {item}") if isinstance(value, str) else None
            if asked is None or asked.name != game.name:
                raise DataError(
                    path, "--set game",
                    f"this is a scenario of {game.title}; --set cannot make it one of another game (its keys "
                    "are another game's): run a scenario file of " + (f"{asked.title}" if asked else "that game") + " instead")
    sets = tuple(s for s in sets if parse_set(s, str(path))[0] != "game")
    return SCHEMAS[game.scenario_keys](doc, path, sets=sets, games=games, seed=seed)


def load_scenario(path, sets=(), games=None, seed=None):
    """Read, change (``sets``: ``KEY=VALUE`` strings; ``games``, ``seed``), validate and expand a
    scenario file (a path, or the name of a shipped one)."""
    path = find_scenario(path)
    doc = read_toml(path)
    return scenario_from_doc(doc, path, sets=sets, games=games, seed=seed)
