"""The setting of a game set up by boards and variants (Echidna Shuffle's, and the default of any new
game, ``Game.setting``): its own scenario keys after the shared ones (``scenarios.scenario``)::

    boards = ["forest", "snow"]       # the game's boards (names, or paths to board files)
    reference = "base"                # optional: the variant the others are compared with

    [variants]                        # optional: named variants, each a table of the game's switches
    base = {}
    catch_up = { catch_up = true }
    schedule_b = { catch_up = true, token_schedule = [0, 1, 1, 2, 2, 3] }

A setting is one board x one variant (the setting columns ``board`` and ``variant``), read by the
game's own ``setup`` and ``variants_from_dict``. The deals are seeded *without* the variant, so every
variant of a (players, board, lineup) plays the very same deals: the report compares the variants
pairwise, deal by deal.

A game of another setting shape names its own module in its entry (``Game.setting``) offering the
same names as this one: ``KEYS``, ``REQUIRED``, ``EFFECTIVE``, ``SETTINGS``, ``prepare``,
``apply_set`` and ``parse`` (which returns an object with ``rows()``, ``effective(doc)``,
``settings()``, ``data_files(cells, strategies)`` and ``packed(cell)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.errors import DataError
from simulator.setting_api import SettingRow, set_path, sha256_file  # noqa: F401 (set_path: ssb tune's changes)

KEYS = ("boards", "variants", "reference")
REQUIRED = ()
# The order of the keys in the effective document (its text names the run) and in the manifest.
EFFECTIVE = ("game", "name", "description", "seed", "games", "players", "boards", "variants", "reference",
             "strategy_dirs", "lineup", "record", "sequential")
SETTINGS = ("game", "games", "seed", "players", "boards", "variants", "reference", "strategy_dirs", "set", "record")


def setting_row(board, variant):
    """The setting of a cell on ``board`` with ``variant`` (its deals shared by every variant)."""
    return SettingRow(
        columns=(("board", board), ("variant", variant)),
        key=f"board={board}|variant={variant}",
        deal=f"board={board}",
        fields=(("board", board), ("variant", variant)),
        attrs=(("board", board), ("variant", variant)),
    )


@dataclass
class BoardsSetting:
    """The boards and variants of one scenario, validated (:func:`parse`)."""

    game: object = field(repr=False)
    boards: tuple
    variants: dict  # name -> the game's variants object
    reference: str
    raw_variants: dict
    board_objects: dict = field(repr=False, default_factory=dict)
    _setups: dict = field(repr=False, default_factory=dict)

    def rows(self):
        return [setting_row(b, v) for b in self.boards for v in self.variants]

    def effective(self, doc):
        return {"boards": list(self.boards), "variants": {k: self.raw_variants[k] for k in self.variants},
                "reference": self.reference}

    def settings(self):
        return {"boards": list(self.boards), "variants": sorted(self.variants), "reference": self.reference}

    def packed(self, cell):
        """The game's packed setup of a cell (one per player count, board and variant)."""
        k = (cell.players, cell.board, cell.variant)
        if k not in self._setups:
            self._setups[k] = self.game.setup(cell.players, self.board_objects[cell.board], self.variants[cell.variant])
        return self._setups[k]

    def data_files(self, cells, strategies):
        """Paths and SHA-256 of the boards, the game's rule numbers and the strategy files, in the
        shape the runner's manifest keeps (a changed file refuses ``--resume``)."""
        files = {f"board {name}": b.path for name, b in self.board_objects.items()}
        rules = getattr(self.packed(cells[0]), "rules", None)
        if rules is not None:
            files["rules"] = rules.path
        first = next(iter(self.board_objects.values())).path
        out = {
            "board": {"path": first, "sha256": sha256_file(first)},
            "instruments": {k: {"path": p, "sha256": sha256_file(p)} for k, p in files.items()},
            "strategies": {},
        }
        for n in sorted({s for c in cells for s in c.lineup}):
            p = strategies.get(n).path
            out["strategies"][n] = {"path": p, "sha256": sha256_file(p)}
        return out


def prepare(doc):
    """Nothing to do before ``--set`` for this shape."""


def apply_set(doc, key, value, path):
    """``--set KEY=VALUE`` of one of the setting's keys (``variants.NAME.SWITCH`` included); returns
    whether it is one."""
    parts = key.split(".")
    top = parts[0]
    if top not in KEYS:
        return False
    if top == "variants" and len(parts) > 1:
        table = doc.setdefault("variants", {})
        for p in parts[1:-1]:
            table = table.setdefault(p, {})
        table[parts[-1]] = value
    elif len(parts) > 1:
        raise DataError(path, key, f"'{top}' has no sub-keys")
    else:
        doc[top] = value
    return True


def parse(ck, doc, game, common, path):
    """The boards and variants of a scenario document -> a :class:`BoardsSetting`; every setting is
    packed once at every player count, so one the game cannot play is refused here."""
    players = common.players
    boards = doc.get("boards", [game.boards[0]] if game.boards else [])
    if isinstance(boards, str):
        boards = [boards]
    boards = ck.str_list(boards, "boards", min_len=1, what="boards")
    board_objects = {}
    for i, b in enumerate(boards):
        ref = b if b in game.boards else str((common.base_dir / b).resolve())
        try:
            setup = game.setup(players[0], ref, None)
        except DataError as exc:
            raise DataError(path, f"boards[{i}]", f"{exc.file}: {exc.key}: {exc.reason}" if exc.key else exc.reason) from None
        board_objects[b] = setup.board
    raw_var = doc.get("variants", {"base": {}})
    ck.table(raw_var, "variants", optional=tuple(raw_var) if isinstance(raw_var, dict) else ())
    if not raw_var:
        ck.fail("variants", "no variants; leave the table out for the base game alone")
    variants = {}
    for vname, table in raw_var.items():
        if not isinstance(table, dict):
            ck.fail(f"variants.{vname}", "expected a table of the game's switches (e.g. { catch_up = true })")
        variants[vname] = game.variants_from_dict(table, path, f"variants.{vname}")
    reference = doc.get("reference", next(iter(variants)))
    if reference not in variants:
        ck.fail("reference", f"'{reference}' is not one of the variants ({', '.join(variants)})")
    # Every setting must pack (e.g. a token schedule too short for 6 players).
    for n in players:
        for vname, v in variants.items():
            try:
                game.setup(n, board_objects[boards[0]], v)
            except DataError as exc:
                raise DataError(path, f"variants.{vname}", f"with {n} players: {exc.reason}") from None
    return BoardsSetting(game, tuple(boards), variants, reference, raw_var, board_objects)
