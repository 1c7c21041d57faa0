"""What every data loader shares: reading a TOML file and checking what it holds, naming the file,
the key path and the reason of every problem (:class:`simulator.errors.DataError`), and the rules
for names that travel on the command line and in result files.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from pathlib import Path

from simulator.errors import DataError

DATA_INT_MAX = 1_000_000  # any integer of a data file without a bound of its own


# =========================================================================== names

# Names travel on the command line (``--instruments A,B,C``, ``--strategies a,b``, ``name:focus``),
# in cell keys (``players=4|black=...|lineup=a,b``), in override keys (``Horns.section...``) and
# in file names, so they are restricted to what all of these carry.
NAME_MAX_LEN = 40
NAME_EXTRA_CHARS = " -_'+&()"


def name_problem(name):
    """Why ``name`` cannot name an instrument or a strategy, or ``None`` when it can."""
    if not name:
        return "must not be empty"
    if len(name) > NAME_MAX_LEN:
        return f"at most {NAME_MAX_LEN} characters, got {len(name)}"
    for ch in name:
        if not ch.isprintable():
            return f"contains the control character {ch!r}; use letters, digits, spaces and {NAME_EXTRA_CHARS.strip()}"
        if not (ch.isalnum() or ch in NAME_EXTRA_CHARS):
            return (
                f"contains {ch!r}, which the command line or the result files cannot carry "
                f"(names are given as A,B,C and name:focus); use letters, digits, spaces and "
                f"{NAME_EXTRA_CHARS.strip()}"
            )
    if not name[0].isalnum():
        return f"must start with a letter or digit, got {name[0]!r}"
    return None


# =========================================================================== small checking helpers


def join_key(base, key):
    """``base.key`` (or ``base[0]`` for an index), the key path an error names."""
    if not base:
        return str(key)
    if isinstance(key, str) and not key.startswith("["):
        return f"{base}.{key}"
    return f"{base}{key}"


def typename(value):
    """How an error names the type of a value read from a file."""
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a float",
        str: "a string",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)



def _one(what):
    """``numbers`` -> ``number``, ``entries`` -> ``entry``: the word for one of ``what``."""
    return what[:-3] + "y" if what.endswith("ies") else what[:-1] if what.endswith("s") else what

class Checker:
    """Type and shape checks that raise :class:`DataError` for one file."""

    def __init__(self, file):
        self.file = str(file)

    def fail(self, key, reason):
        raise DataError(self.file, key, reason)

    def table(self, value, key, required=(), optional=(), top_level_hint=()):
        """A table with the ``required`` keys and no keys beyond ``optional``; ``top_level_hint``: the
        file's top-level keys, named in the error when one of them is written inside a table."""
        if not isinstance(value, dict):
            self.fail(key, f"expected a table, got {typename(value)}")
        allowed = set(required) | set(optional)
        for name in value:
            if name not in allowed:
                reason = f"unknown key '{name}'"
                close = difflib.get_close_matches(name, sorted(allowed), n=1)
                if close:
                    reason += f" (did you mean '{close[0]}'?)"
                elif allowed:
                    reason += f" (allowed: {', '.join(sorted(allowed))})"
                if name in top_level_hint:
                    reason += (
                        f"; '{name}' is a top-level key and must be written before the first "
                        "[table] header of the file"
                    )
                self.fail(join_key(key, name), reason)
        for name in required:
            if name not in value:
                self.fail(join_key(key, name), "missing required key")
        return value

    def integer(self, value, key, lo=None, hi=None, why=""):
        """An integer within ``lo..hi``; without ``hi`` at most ``DATA_INT_MAX`` (and without ``lo``
        at least ``-DATA_INT_MAX``), so no unbounded number reaches the kernel. ``why`` explains
        the bound in the error."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"expected an integer, got {typename(value)} {value!r}")
        lo = -DATA_INT_MAX if lo is None else lo
        hi = DATA_INT_MAX if hi is None else hi
        note = f" ({why})" if why else ""
        if value < lo:  # ``why`` explains the maximum: a minimum is said alone
            self.fail(key, f"{value} is below the minimum {lo}")
        if value > hi:
            self.fail(key, f"{value} is above the maximum {hi}{note}")
        return value

    def name(self, value, key):
        """A name the command line and the result files can carry (see ``name_problem``)."""
        text = self.string(value, key).strip()
        problem = name_problem(text)
        if problem:
            self.fail(key, f"{text!r}: {problem}")
        return text

    def boolean(self, value, key):
        if not isinstance(value, bool):
            self.fail(key, f"expected true or false, got {typename(value)} {value!r}")
        return value

    def string(self, value, key, choices=None):
        if not isinstance(value, str):
            self.fail(key, f"expected a string, got {typename(value)} {value!r}")
        if not value.strip():
            self.fail(key, "must not be empty")
        bad = next((ch for ch in value if not ch.isprintable() and ch not in "\n\t"), None)
        if bad is not None:
            self.fail(key, f"{value!r} contains the control character {bad!r}")
        if choices is not None and value not in choices:
            self.fail(key, f"'{value}' is not one of: {', '.join(choices)}")
        return value

    def array(self, value, key, min_len=0, max_len=None, what="entries"):
        if not isinstance(value, list):
            self.fail(key, f"expected a list, got {typename(value)} {value!r}")
        if len(value) < min_len:
            self.fail(key, f"needs at least {min_len} {_one(what) if min_len == 1 else what}, got {len(value)}")
        if max_len is not None and len(value) > max_len:
            self.fail(key, f"at most {max_len} {what} supported, got {len(value)}")
        return value

    def int_list(self, value, key, min_len=0, max_len=None, lo=None, hi=None, exact=None, why=""):
        if exact is not None:
            min_len = max_len = exact
        self.array(value, key, min_len, max_len, what="numbers")
        return tuple(self.integer(v, f"{key}[{i}]", lo, hi, why) for i, v in enumerate(value))

    def bool_list(self, value, key, exact):
        self.array(value, key, exact, exact, what="values")
        return tuple(self.boolean(v, f"{key}[{i}]") for i, v in enumerate(value))

    def str_list(self, value, key, min_len=0, max_len=None, what="names", unique=True):
        self.array(value, key, min_len, max_len, what=what)
        out = []
        for i, v in enumerate(value):
            s = self.string(v, f"{key}[{i}]")
            if unique and s in out:
                self.fail(key, f"'{s}' is listed twice")
            out.append(s)
        return tuple(out)

    def table_array(self, value, key, min_len, max_len, what):
        if isinstance(value, dict):
            self.fail(key, f"expected an array of tables written [[{key}]], got a single [{key}] table")
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.fail(key, f"expected an array of tables written [[{key}]]")
        if len(value) < min_len:
            self.fail(key, f"needs at least {min_len} {_one(what) if min_len == 1 else what}, got {len(value)}")
        if len(value) > max_len:
            self.fail(key, f"at most {max_len} {what} supported by the kernel, got {len(value)}")
        return value


MAX_TOML_BYTES = 8 * 2**20  # the largest data file of the lab is a few kB; past this, not a data file
MAX_NESTING = 32  # tables and arrays within each other; the lab's files use at most 5


def nesting(value):
    """How deep tables and arrays sit within each other in ``value`` (0 for a plain value), counted
    without recursion (a hostile value may be deeper than Python's stack)."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, (list, tuple)):
            deepest = max(deepest, d + 1)
            if d + 1 > MAX_NESTING:
                return deepest
            todo.extend((x, d + 1) for x in v)
    return deepest


def check_nesting(value, file, key=""):
    """Refuse a value nested deeper than :data:`MAX_NESTING` (a DataError naming file and key)."""
    if nesting(value) > MAX_NESTING:
        raise DataError(file, key, f"nested more than {MAX_NESTING} levels deep (tables or arrays within each other); "
                        "no data of the lab needs more than a few")


def read_toml(path):
    """A TOML file as a dict; a missing, unreadable, malformed, huge (over 8 MiB) or absurdly nested
    file raises :class:`DataError`."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_TOML_BYTES:
                raise DataError(path, "", f"{size / 2**20:,.0f} MiB; data files are read up to {MAX_TOML_BYTES // 2**20} MiB "
                                "(the lab's own are a few kB): is this the file you meant?")
            doc = tomllib.load(fh)
        check_nesting(doc, path)
        return doc
    except RecursionError:
        raise DataError(path, "", f"TOML nested too deeply to read (tables or arrays within each other); at most "
                        f"{MAX_NESTING} levels are read") from None
    except FileNotFoundError:
        raise DataError(path, "", "file not found") from None
    except IsADirectoryError:
        raise DataError(path, "", "is a directory, expected a TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(path, "", f"TOML syntax error: {exc}") from None
    except UnicodeDecodeError as exc:
        raise DataError(path, "", f"not UTF-8 text: {exc}") from None
    except OSError as exc:
        raise DataError(path, "", f"cannot read: {exc}") from None
