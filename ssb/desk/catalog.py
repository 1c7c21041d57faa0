"""What the desk shows and edits: the games, their data files (shipped and the designer's own), the
strategies, the balance-search files and the run folders on disk.

The designer's own files live under the desk's folder (``designs/instruments/``,
``designs/boards/<game>/``); a shipped file is read, never written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import tomlkit

from simulator import games as registry

DESIGNS = "designs"
INSTRUMENT_OPTION = "instrument_dirs"  # a game whose scenarios take instrument folders has instrument files


def _package_dir(module):
    import importlib

    return Path(importlib.import_module(module).__file__).resolve().parent


def shipped_data_dirs():
    """The folders of shipped data files (never written by the desk)."""
    return [_package_dir("simulator"), _package_dir("scenarios"), _package_dir("strategies")]


def game_data_dir(name):
    """The ``data/`` folder beside the module that declares a registered game."""
    module = registry.module_of(name)
    return _package_dir(module.rsplit(".", 1)[0]) / "data" if module else None


def instrument_game():
    """The registered game made of instrument files (its scenarios take ``instrument_dirs``), or None."""
    for name in registry.names():
        if INSTRUMENT_OPTION in registry.get(name).cli_options:
            return registry.get(name).name
    return None


def instrument_dir():
    return game_data_dir(instrument_game()) / "instruments"


def board_files():
    """``{(game, name): path}`` of every shipped board file: the instrument game's ``board.toml``,
    and each board another game lists."""
    out = {}
    for name in registry.names():
        g = registry.get(name)
        data = game_data_dir(g.name)
        if data is None:
            continue
        if INSTRUMENT_OPTION in g.cli_options and (data / "board.toml").exists():
            out[(g.name, "board")] = data / "board.toml"
        for b in g.boards:
            if (data / f"{b}.toml").exists():
                out[(g.name, b)] = data / f"{b}.toml"
    return out


def _validator(game, kind):
    """The check of a data file of ``kind`` that the game's command module offers (``validate_<kind>``), or None."""
    from ssb import games as game_cli

    return game_cli.hook(game, f"validate_{kind}")


@dataclass
class Editable:
    """A data file the desk edits: its kind (``instrument`` or ``board``), game, name, the shipped
    source, and the designer's own file (which the form reads when it exists)."""

    kind: str
    game: str
    name: str
    shipped: Path
    own: Path

    @property
    def source(self):
        return self.own if self.own.exists() else self.shipped

    def source_text(self):
        """The text the form starts from; a shipped instrument gains ``replaces = true`` so that the
        designer's copy replaces it in a run."""
        text = self.source.read_text(encoding="utf-8")
        if self.kind == "instrument" and self.source == self.shipped:
            doc = tomlkit.parse(text)
            doc["instrument"]["replaces"] = True
            text = tomlkit.dumps(doc)
        elif self.kind == "board" and not self.checkable and self.source == self.shipped:
            # A board of one's own needs a name of its own (the loader refuses a shipped board's name).
            doc = tomlkit.parse(text)
            if isinstance(doc.get("board"), dict) and "name" in doc["board"]:
                doc["board"]["name"] = f"my-{doc['board']['name']}"
                text = tomlkit.dumps(doc)
        return text

    @property
    def checkable(self):
        """Whether the gate's check plays it: an instrument, or the instrument game's board (through
        the scenario's overrides)."""
        return self.kind == "instrument" or self.game == instrument_game()

    def validate(self, doc):
        """Check a document with the game's own loader (raises :class:`simulator.errors.DataError`)."""
        own = _validator(self.game, self.kind)  # the game's own check (ssb.games: validate_instrument, validate_board)
        if own is not None:
            own(doc, self.own)
        else:
            # Another game's board: set up a game on it, as ``ssb check --board FILE`` does.
            import tempfile

            import tomlkit as _tk

            g = registry.get(self.game)
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / self.shipped.name
                path.write_text(_tk.dumps(doc), encoding="utf-8")
                g.setup(min(g.player_counts), str(path), None)


def instruments(root):
    """Every shipped instrument as an :class:`Editable`, by name, then the designer's new ones."""
    from simulator.validate import read_toml

    out = {}
    for path in sorted(instrument_dir().glob("*.toml")):
        name = str(read_toml(path).get("instrument", {}).get("name", path.stem))
        out[name] = Editable("instrument", instrument_game(), name, path,
                             Path(root) / DESIGNS / "instruments" / path.name)
    return out


def boards(root):
    """Every shipped board file as an :class:`Editable`, keyed ``game/name``."""
    return {
        f"{game}/{name}": Editable("board", game, name, path, Path(root) / DESIGNS / "boards" / game / path.name)
        for (game, name), path in board_files().items()
    }


def strategies():
    """``[(game, name, what)]``: each game's named strategies."""
    rows = []
    for game in registry.names():
        g = registry.get(game)
        try:
            lib = g.strategies(())
        except Exception:  # a game whose library cannot load is listed without strategies
            continue
        for name in getattr(lib, "names", lambda: list(lib))():
            rows.append((g.name, str(name)))
    return rows


def tunes():
    """The shipped balance-search files, by name."""
    return sorted(p.stem for p in (_package_dir("scenarios") / "tunes").glob("*.toml"))


def runs(root, depth=4):
    """Every run folder under ``root/results`` (a folder with a ``manifest.json``), newest first:
    ``[(folder, manifest)]``."""
    base = Path(root) / "results"
    found = []
    if not base.is_dir():
        return found
    for level in range(1, depth + 1):
        for m in base.glob("/".join(["*"] * level) + "/manifest.json"):
            try:
                manifest = json.loads(m.read_text())
            except (OSError, ValueError):
                manifest = {}
            found.append((m.parent, manifest if isinstance(manifest, dict) else {}))
    found.sort(key=lambda fm: fm[0].stat().st_mtime, reverse=True)
    return found
