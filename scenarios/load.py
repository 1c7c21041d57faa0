"""The one front door of every scenario: read the TOML file, look the game up in the registry and hand
the document to the one scenario schema (:mod:`scenarios.scenario`), which checks the keys every game
shares and has the game's setting module (``Game.setting``) read the game's own.

The scenario it gives offers the runner the same interface for every game: ``game``, ``cells``,
``seed``, ``text``/``sha256``, ``settings()``, ``columns()``, ``data_files()`` and ``cell_specs(run_id)``.
"""

from __future__ import annotations

from scenarios.scenario import scenario_of
from scenarios.spec import find_scenario, parse_set
from simulator import games as registry
from simulator.errors import DataError
from simulator.validate import read_toml

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
    return scenario_of(game, doc, path, sets=sets, games=games, seed=seed)


def load_scenario(path, sets=(), games=None, seed=None):
    """Read, change (``sets``: ``KEY=VALUE`` strings; ``games``, ``seed``), validate and expand a
    scenario file (a path, or the name of a shipped one)."""
    path = find_scenario(path)
    doc = read_toml(path)
    return scenario_from_doc(doc, path, sets=sets, games=games, seed=seed)
