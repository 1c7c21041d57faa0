"""What a game's setting module (``Game.setting``) gives the one scenario schema: a
:class:`SettingRow` per setting of its cells, the SHA-256 of the data files it read, and dotted keys
of nested tables flattened (overrides, a tuning file's [space]). A leaf
module: a setting module imports it, and it imports nothing of the lab but its errors."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from simulator.errors import DataError


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


def set_path(doc, parts, value, path, key, inst):
    """Set ``doc[parts...] = value``; a list of tables is indexed by position or by entry id. A
    mistake raises ``DataError(path, key, ...)`` naming ``inst.name`` (what the document is: an
    instrument, a variant) and the keys or ids there are. A game's setting module offers it (or its
    own, with its fixed keys) as ``set_path``: ``ssb tune`` changes a setting's data through it."""
    cur = doc
    walked = inst.name
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(cur, dict):
            if last:
                cur[part] = value
                return
            if part not in cur:
                known = ", ".join(cur) or "none"
                raise DataError(path, key, f"{walked} has no key '{part}' (keys: {known})")
            nxt = cur[part]
        elif isinstance(cur, list):
            idx = None
            if part.lstrip("-").isdigit():
                idx = int(part)
                if not 0 <= idx < len(cur):
                    raise DataError(path, key, f"{walked} has {len(cur)} entries; index {idx} is out of range")
            else:
                ids = [e.get("id") for e in cur if isinstance(e, dict)]
                for j, e in enumerate(cur):
                    if isinstance(e, dict) and e.get("id") == part:
                        idx = j
                        break
                if idx is None:
                    known = ", ".join(str(x) for x in ids if x is not None) or "none"
                    raise DataError(path, key, f"{walked} has no entry with id '{part}' (ids: {known})")
            if last:
                cur[idx] = value
                return
            nxt = cur[idx]
        else:
            raise DataError(path, key, f"{walked} is a value, not a table or list; cannot go into '{part}'")
        cur = nxt
        walked = f"{walked}.{part}"


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
