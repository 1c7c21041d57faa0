"""The answer of ``ssb tune``: the data files a fix changes, their diff and the answer folder."""

from __future__ import annotations

import difflib
import os
from collections import OrderedDict
from pathlib import Path

from scenarios.spec import SCENARIO_DIR
from simulator import games as registry
from scenarios.tuning.space import apply_switches


# =========================================================================== the changed data files


def _toml_path_set(doc, parts, value):
    """Set a value in a tomlkit document with the override path rules (lists by index or id)."""
    cur = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(cur, list):
            if part.lstrip("-").isdigit():
                idx = int(part)
            else:
                idx = next(j for j, e in enumerate(cur) if isinstance(e, dict) and e.get("id") == part)
            if last:
                cur[idx] = value
                return
            cur = cur[idx]
        else:
            if last:
                cur[part] = value
                return
            cur = cur[part]


def changed_files(spec, changes):
    """``{instrument name: (path, old text, new text)}`` of the data files the changes touch.

    Comments and layout are kept (tomlkit); the new text carries the scenario's own overrides and
    the changes. ``new`` is what a designer copies over the shipped file; the folder version adds
    ``replaces = true`` (see :func:`write_changed_files`).
    """
    import tomlkit

    if spec.game:
        return _changed_scenario(spec, changes)
    over = {**spec.scenario.overrides, **dict(changes)}
    by_inst = OrderedDict()
    for key, value in over.items():
        name, _, rest = key.partition(".")
        inst = spec.scenario.instruments.original(name)
        by_inst.setdefault(inst.name, (inst, []))[1].append((rest.split("."), value))
    out = OrderedDict()
    for name, (inst, items) in by_inst.items():
        old = Path(inst.path).read_text(encoding="utf-8")
        doc = tomlkit.parse(old)
        for parts, value in items:
            if parts[0] == "track" and "track" not in doc:
                t = tomlkit.table()
                t["need"], t["vp"], t["token"] = list(inst.track_need), list(inst.track_vp), list(inst.track_token)
                doc["track"] = t
            _toml_path_set(doc, parts, value)
        out[name] = (inst.path, old, tomlkit.dumps(doc))
    return out


def _changed_scenario(spec, changes):
    """Another game: ``{"scenario": (path, old text, new text)}``, the scenario file with the tuned
    variant's table changed (comments and layout kept), which ``ssb run`` plays as it is."""
    import tomlkit

    path = spec.scenario.path
    old = Path(path).read_text(encoding="utf-8")
    doc = tomlkit.parse(old)
    new_table = apply_switches(registry.get(spec.game), spec.variant_table, changes, spec.path)
    # An inline table spaced as the shipped scenarios write theirs: { key = value, ... }.
    body = ", ".join(f"{k} = {tomlkit.item(v).as_string()}" for k, v in new_table.items())
    inline = tomlkit.parse(f"v = {{ {body} }}" if body else "v = {}")["v"]
    if "variants" not in doc:
        doc["variants"] = tomlkit.table()
    doc["variants"][spec.variant] = inline
    return OrderedDict([("scenario", (path, old, tomlkit.dumps(doc)))])


def answer_folder(spec):
    """Where the changed files of an answer go inside the output folder."""
    return "scenario" if spec.game else "instruments"


def data_diff(files):
    """A unified diff of the changed data files (paths relative to the package data folder)."""
    chunks = []
    for _name, (path, old, new) in files.items():
        root = Path(SCENARIO_DIR).parent
        rel = os.path.relpath(path, root) if Path(path).resolve().is_relative_to(root) else Path(path).name
        chunks.append("".join(difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{rel}", f"b/{rel}", n=2)))
    return "".join(chunks)


def write_changed_files(files, folder):
    """Write the changed files to ``folder``, each marked ``replaces = true`` so that
    ``--instrument-dir folder`` plays them in place of the shipped ones; returns the paths."""
    import tomlkit

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.toml"):
        old.unlink()
    paths = []
    for _name, (path, _old, new) in files.items():
        doc = tomlkit.parse(new)
        if "instrument" not in doc:  # another game's scenario file: written as it is
            p = folder / Path(path).name
            p.write_text(new, encoding="utf-8")
            paths.append(p)
            continue
        doc["instrument"]["replaces"] = True
        p = folder / Path(path).name
        p.write_text(tomlkit.dumps(doc), encoding="utf-8")
        paths.append(p)
    return paths
