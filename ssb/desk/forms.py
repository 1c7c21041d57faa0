"""The desk's editing forms: a field per number, word or list of a data file, checked by the game's
own loader, saved as the designer's own TOML file.

A form is built from the document the loader reads (the file's TOML tables), one field per value,
named by the key path the loader's errors use (``section[trumpet].score[0].awards``, ``space[2].number``;
:func:`simulator.validate.join_key`), so that a :class:`simulator.errors.DataError` is shown beside
the field it names. A value is typed as TOML (``[3, 6, 2]``, ``4``, ``true``); what does not read as
TOML is handed to the loader as text, so the loader's own message says what is wrong with it.

Nothing is written until the loader accepts the whole file; the file is written with tomlkit over a
copy of its source, so its comments stay, and never over a shipped file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import tomlkit

from simulator.errors import DataError
from simulator.validate import join_key, read_toml
from ssb.desk import guard


@dataclass
class Field:
    """One value of a data file: ``name`` the form's field name (index path, ``section.0.score.0.awards``),
    ``key`` the loader's key path, ``alt`` the same with table ids (``section[trumpet]``), ``value``."""

    name: str
    key: str
    alt: str
    path: tuple
    value: object
    group: str = ""

    @property
    def kind(self):
        v = self.value
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, (int, float)):
            return "number"
        if isinstance(v, str):
            return "text"
        return "toml"

    def shown(self):
        """The value as the form shows it: a word as is, anything else as TOML."""
        if isinstance(self.value, str):
            return self.value
        return toml_value(self.value)


def toml_value(value):
    """``[8, 6, 2]`` / ``true`` / ``4``: a value as it reads in a TOML file."""
    return tomlkit.item(value).as_string()


def fields_of(doc, base=("", ""), path=(), group=""):
    """Every leaf value of a TOML document as a :class:`Field`, in file order (a list of tables: each
    table's values, named ``name[i]`` and, when it has an ``id``, ``name[id]``)."""
    out = []
    key, alt = base
    for k, v in doc.items():
        k_key, k_alt, k_path = join_key(key, k), join_key(alt, k), (*path, k)
        if isinstance(v, dict):
            out += fields_of(v, (k_key, k_alt), k_path, group or k)
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for i, item in enumerate(v):
                label = f"[{item['id']}]" if isinstance(item.get("id"), str) else f"[{i}]"
                out += fields_of(item, (join_key(k_key, f"[{i}]"), join_key(k_alt, label)), (*k_path, i),
                                 group or join_key(k_alt, label))
        else:
            out.append(Field(".".join(str(p) for p in k_path), k_key, k_alt, k_path, v, group or "(top)"))
    return out


def parse_value(text, old):
    """A form's text as a value of the kind ``old`` had: a word stays a word; anything else is read
    as TOML, and what does not read is given to the loader as text (it says what is wrong)."""
    if isinstance(old, str):
        return text
    if isinstance(old, bool) and text in ("on", "off"):
        return text == "on"
    if len(text) > MAX_VALUE:
        return text  # the loader says it is not a number or a list; no parser runs on a megabyte
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):  # a 5,000-digit number, a very deep list
        return text
    return value if _depth(value) <= MAX_DEPTH else text


MAX_VALUE = 10_000  # characters of one field
MAX_DEPTH = 8  # lists within lists of one field (a data file nests two or three)


def _depth(value, level=0):
    if level > MAX_DEPTH:
        return level
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    return level


def set_value(doc, path, value):
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def apply(doc, fields, form):
    """A deep copy of ``doc`` with the form's values; ``(document, changed field names)``."""
    import copy

    new = copy.deepcopy(doc)
    changed = []
    for f in fields:
        if f.kind == "bool":
            raw = "true" if form.get(f.name) in ("on", "true") else "false"
        elif f.name in form:
            raw = str(form[f.name]).strip()
        else:
            continue
        value = parse_value(raw, f.value)
        if value != f.value:
            set_value(new, f.path, value)
            changed.append(f.name)
    return new, changed


def field_of_error(fields, key):
    """The field an error's key path names (the longest field key that starts it), or None."""
    best, size = None, -1
    for f in fields:
        for k in (f.key, f.alt):
            if (key == k or key.startswith(k + ".") or key.startswith(k + "[")) and len(k) > size:
                best, size = f, len(k)
    return best


MAX_MESSAGE = 300  # characters of a message beside a field (a 5,000-digit value is not repeated whole)


def shorten(text, n=MAX_MESSAGE):
    return text if len(text) <= n else text[: n - 20] + " ... " + text[-15:]


def labelled(f, key):
    """An error's key path as the field's label reads it (``space[t1].number`` for the loader's
    ``space[0].number``), so that the message and the label name the same thing."""
    for k in (f.key,):
        if key == k or key.startswith(k + ".") or key.startswith(k + "["):
            return f.alt + key[len(k):]
    return key


def write_over(source_text, doc, fields, changed, out, root=None):
    """Write ``doc``'s changed values into a copy of ``source_text`` (its comments kept) at ``out``
    (below ``root``, through no link: :func:`ssb.desk.guard.write_file`)."""
    tdoc = tomlkit.parse(source_text)
    by_name = {f.name: f for f in fields}
    for name in changed:
        f = by_name[name]
        node = doc
        for p in f.path:
            node = node[p]
        set_value(tdoc, f.path, node)
    if root is None:
        out.parent.mkdir(parents=True, exist_ok=True)
        root = out.parent
    return guard.write_file(root, out, tomlkit.dumps(tdoc))


@dataclass
class Outcome:
    """What a submitted form gave: ``errors`` by field name (``""``: the file as a whole), the
    changed field names, the file written (None when nothing was)."""

    errors: dict = field(default_factory=dict)
    changed: list = field(default_factory=list)
    written: Path | None = None


def check_and_save(doc, fields, form, validate, source_text, out, protected=(), root=None):
    """Apply the form to ``doc``, check it with ``validate(new_doc)`` (the loader: raises
    DataError) and, only when it passes, write it to ``out`` (never into one of ``protected``,
    never through a link below ``root``; a folder that cannot be written is said, not raised)."""
    new, changed = apply(doc, fields, form)
    outcome = Outcome(changed=changed)
    try:
        validate(new)
    except DataError as exc:
        f = field_of_error(fields, exc.key)
        outcome.errors[f.name if f else ""] = shorten(str(exc) if f is None else f"{labelled(f, exc.key)}: {exc.reason}")
        return outcome
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # a value no loader check expected
        outcome.errors[""] = shorten(f"the loader cannot read this file: {exc}")
        return outcome
    given = Path(out)
    if root is not None:
        try:
            guard.writable(root, given)
        except guard.Refused as exc:
            outcome.errors[""] = f"not saved: {exc}"
            return outcome
    out = given.resolve()
    for folder in protected:
        if out.is_relative_to(Path(folder).resolve()):
            outcome.errors[""] = f"{out}: a shipped file is never written over; save under your own folder"
            return outcome
    try:
        outcome.written = write_over(source_text, new, fields, changed, Path(given) if root else out, root)
    except guard.Refused as exc:
        outcome.errors[""] = f"not saved: {exc}"
    except OSError as exc:
        outcome.errors[""] = f"not saved: {exc.filename or given}: {exc.strerror or exc}"
    return outcome


def warnings(fields):
    """What a saved file holds that the loader takes but a designer may not mean: an ``awards`` list
    in which a place pays more than the place before it (``[3, 6, 2]``: first place pays less than
    second)."""
    out = []
    places = ("first", "second", "third", "fourth", "fifth", "sixth")
    for f in fields:
        v = f.value
        if f.path and f.path[-1] == "awards" and isinstance(v, list) and all(
                isinstance(x, int) and not isinstance(x, bool) for x in v):
            for i in range(1, len(v)):
                if v[i] > v[i - 1]:
                    a, b = (places[i - 1], places[i]) if i < len(places) else (f"place {i}", f"place {i + 1}")
                    out.append(f"{f.alt}: {a} place pays less than {b} ({v[i - 1]} < {v[i]}): saved, "
                               "but is that what you mean?")
                    break
    return out


def read_doc(path):
    """``(document, text)`` of a data file, read as its loader reads it."""
    path = Path(path)
    return read_toml(path), path.read_text(encoding="utf-8")
