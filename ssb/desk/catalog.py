"""What the desk shows and edits: the games, their data files (shipped and the designer's own), the
strategies, the balance-search files and the run folders on disk.

The designer's own files live under the desk's folder (``designs/instruments/``,
``designs/boards/<game>/``); a shipped file is read, never written.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

import tomlkit

from simulator import games as registry
from ssb.desk import guard

DESIGNS = "designs"
MAX_OWN_FILE = 1_000_000  # bytes: a data file of the designer's is a few kilobytes
INSTRUMENT_OPTION = "instrument_dirs"  # a game whose scenarios take instrument folders has instrument files


def package_dir(module):
    import importlib

    return Path(importlib.import_module(module).__file__).resolve().parent


def shipped_data_dirs():
    """The folders of shipped data files (never written by the desk)."""
    return [package_dir("simulator"), package_dir("scenarios"), package_dir("strategies")]


def game_data_dir(name):
    """The ``data/`` folder beside the module that declares a registered game."""
    module = registry.module_of(name)
    return package_dir(module.rsplit(".", 1)[0]) / "data" if module else None


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
    root: Path | None = None

    @property
    def source(self):
        """The designer's own file when it is there and readable as one, else the shipped file."""
        return self.own if self.own_problem() is None and self.own.is_file() else self.shipped

    def own_problem(self):
        """Why the designer's own file cannot be edited in the form (None when it is missing or fine):
        a link on its way (the desk reads and writes no file through a link), a folder, not UTF-8
        text, too large, or not TOML. The edit page then offers to repair or reset it."""
        root = self.root or self.own.parents[2 if self.kind == "instrument" else 3]
        link = guard.link_in(root, self.own)
        if link is not None:
            return (f"{link.relative_to(root)} is a link; the desk reads and writes no file through a link "
                    "(remove the link, or make it a plain file or folder)")
        if not self.own.exists():
            return None
        shown = self.own.relative_to(root)
        if self.own.is_dir():
            return f"{shown} is a folder, not a file"
        if not self.own.is_file():
            return f"{shown} is not a plain file"
        try:
            if self.own.stat().st_size > MAX_OWN_FILE:
                return f"{shown} is larger than {MAX_OWN_FILE:,} bytes: not a data file of the desk's"
            text = self.own.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            return f"{shown} is not UTF-8 text (a binary file?)"
        except OSError as exc:
            return f"{shown} cannot be read: {exc.strerror or exc}"
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            return f"{shown} is not TOML: {exc}"
        except RecursionError:
            return f"{shown} is nested too deeply to be a data file"
        if self.kind == "instrument" and not isinstance(doc.get("instrument"), dict):
            return f"{shown}: instrument: missing the [instrument] table"
        return None

    def own_text(self):
        """The designer's own file as text, for the repair view ("" when it cannot be read as text)."""
        try:
            if guard.link_in(self.root or self.own.parent, self.own) is None and self.own.is_file():
                return self.own.read_text(encoding="utf-8", errors="replace")[:MAX_OWN_FILE]
        except OSError:
            pass
        return ""

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

    def shipped_fields(self):
        """The shipped file's values as :class:`ssb.desk.forms.Field` by field name, as the form
        starts from them (an instrument's ``replaces = true`` included)."""
        from ssb.desk import forms

        text = self.shipped.read_text(encoding="utf-8")
        if self.kind == "instrument":
            doc = tomlkit.parse(text)
            doc["instrument"]["replaces"] = True
            text = tomlkit.dumps(doc)
        return {f.name: f for f in forms.fields_of(tomllib.loads(text))}

    def changes(self):
        """The values of the designer's own file that differ from the shipped file, in file order:
        ``[{"key", "name", "shipped", "value"}]`` (``key`` as the form labels it, the values as TOML;
        ``shipped`` None for a key the shipped file lacks). ``[]`` without an own file, or when the
        own file cannot be read (:meth:`own_problem`); a board of another game's own name is no change."""
        from ssb.desk import forms

        if self.own_problem() is not None or not self.own.is_file():
            return []
        shipped = self.shipped_fields()
        own = forms.fields_of(tomllib.loads(self.own.read_text(encoding="utf-8")))
        out = []
        for f in own:
            old = shipped.get(f.name)
            if old is not None and old.value == f.value:
                continue
            if f.name == "board.name" and not self.checkable:
                continue
            out.append({"key": f.alt, "name": f.name, "shipped": old.shown() if old else None, "value": f.shown()})
        names = {f.name for f in own}
        out += [{"key": f.alt, "name": f.name, "shipped": f.shown(), "value": None}
                for f in shipped.values() if f.name not in names]
        return out

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
                             Path(root) / DESIGNS / "instruments" / path.name, Path(root))
    return out


def boards(root):
    """Every shipped board file as an :class:`Editable`, keyed ``game/name``."""
    return {
        f"{game}/{name}": Editable("board", game, name, path, Path(root) / DESIGNS / "boards" / game / path.name,
                                   Path(root))
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
    """The shipped balance-search files, by name (the scenarios beside them, which name no target, left out)."""
    out = []
    for p in (package_dir("scenarios") / "tunes").glob("*.toml"):
        try:
            if "target" in tomllib.loads(p.read_text(encoding="utf-8")):
                out.append(p.stem)
        except (OSError, ValueError):
            continue
    return sorted(out)


def run_info(manifest):
    """What the desk lists of a run folder's manifest: ``{name, status, games, damaged}``; a manifest
    that is not what ``ssb run`` writes is listed as damaged (``damaged``: why), never fatal."""
    if not isinstance(manifest, dict):
        return {"name": "", "status": "damaged", "games": "",
                "damaged": f"manifest.json: expected an object, got {type(manifest).__name__}"}
    scenario, totals, status = manifest.get("scenario", {}), manifest.get("totals", {}), manifest.get("status", "")
    problems = []
    if not isinstance(scenario, dict):
        problems.append(f"scenario: expected a table, got {type(scenario).__name__}")
        scenario = {}
    if not isinstance(totals, dict):
        problems.append(f"totals: expected a table, got {type(totals).__name__}")
        totals = {}
    name, games = scenario.get("name", ""), totals.get("games", "")
    if not isinstance(name, str):
        problems.append("scenario.name: expected a name")
        name = ""
    if not isinstance(status, str):
        problems.append("status: expected a word")
        status = ""
    if isinstance(games, bool) or not isinstance(games, (int, str)):
        problems.append("totals.games: expected a number")
        games = ""
    if problems:
        return {"name": name[:80], "status": "damaged", "games": str(games)[:20],
                "damaged": "manifest.json: " + "; ".join(problems)}
    return {"name": name[:80], "status": status[:40], "games": str(games)[:20], "damaged": ""}


def read_manifest(folder):
    """``run_info`` of ``folder/manifest.json`` (a link, unreadable or not JSON: damaged)."""
    path = Path(folder) / "manifest.json"
    try:
        if path.is_symlink():
            raise ValueError("it is a link")
        return run_info(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, RecursionError) as exc:
        return {"name": "", "status": "damaged", "games": "", "damaged": f"manifest.json cannot be read: {exc}"}


def runs(root, depth=4):
    """Every run folder under ``root/results`` (a folder with a ``manifest.json``, not reached
    through a link), newest first: ``[(folder, info)]`` (:func:`run_info`)."""
    base = Path(root) / "results"
    found = []
    if not base.is_dir() or base.is_symlink():
        return found
    for level in range(1, depth + 1):
        for m in base.glob("/".join(["*"] * level) + "/manifest.json"):
            if guard.link_in(base, m.parent) is not None:
                continue
            try:
                when = m.parent.stat().st_mtime
            except OSError:
                continue
            found.append((when, m.parent, read_manifest(m.parent)))
    found.sort(key=lambda wfi: wfi[0], reverse=True)
    return [(folder, info) for _w, folder, info in found]
