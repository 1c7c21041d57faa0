"""What a game's setting module (``Game.setting``) gives the one scenario schema: a
:class:`SettingRow` per setting of its cells, the SHA-256 of the data files it read, and dotted keys
of nested tables flattened (overrides, a tuning file's [space]). A leaf
module: a setting module imports it, and it imports nothing of the lab."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


def flatten_overrides(table, prefix=""):
    """``{"Horns": {"section": {...}}}`` and ``{"Horns.section...": v}`` -> flat dotted keys."""
    out = {}
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and v:
            out.update(flatten_overrides(v, key))
        else:
            out[key] = v
    return out


def sha256_file(path):
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class SettingRow:
    """One setting of a game's cells, as its setting module (``Game.setting``) gives it: the values
    of the game's ``setting_columns`` (``columns``: ``(column, text)`` pairs), the words naming it in
    the cell key (``key``, e.g. ``board=forest|variant=base``) and in the key its deals are seeded
    from (``deal``: settings compared on the same deals share it), the cell's fields in the manifest
    before its lineup (``fields``) and after its deals (``after``), and what a cell offers as
    attributes (``attrs``, e.g. ``board`` and ``variant``)."""

    columns: tuple
    key: str
    deal: str
    fields: tuple = ()
    after: tuple = ()
    attrs: tuple = ()

    def __hash__(self):
        return hash((self.columns, self.key, self.deal))
