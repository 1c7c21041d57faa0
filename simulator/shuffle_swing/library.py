"""The instrument library of Shuffle and Swing: the packaged instruments plus those of the folders a
user gives (``--instrument-dir``), looked up by name, and the check of instrument files."""

from __future__ import annotations

from pathlib import Path

from simulator.errors import DataError
from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.board import DATA_DIR, load_board
from simulator.shuffle_swing.instruments import load_instrument

INSTRUMENT_DIR = DATA_DIR / "instruments"

# Starter set, in department order black, orange, gray.
STARTER = ("Violin", "Piano", "Horns")

LIBRARY_SOURCE = "instrument library"


# =========================================================================== library


def instrument_files(path):
    """The instrument files a path names: a ``.toml`` file, or every ``*.toml`` of a folder.

    A missing path, or a folder holding no ``*.toml``, raises :class:`DataError` naming it."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*.toml"))
        if not files:
            raise DataError(p, "", "no instrument files (*.toml) in this folder")
        return files
    if p.is_file():
        return [p]
    if p.suffix == ".toml":
        raise DataError(p, "", "file not found")
    raise DataError(p, "", "instrument file or folder not found")


def validate_paths(paths, board=None):
    """Check instrument files as ``--instrument-dir`` would load them: yields ``(file, Instrument or
    DataError)`` per file. Besides each file's own checks, a name that differs only in case from a
    packaged instrument or from another file given here is an error (the library compares names
    without regard to case)."""
    board = board if board is not None else load_board()
    seen = {}
    for f in sorted(INSTRUMENT_DIR.glob("*.toml")):
        try:
            inst = load_instrument(f, board)
        except DataError:
            continue
        seen[inst.name.casefold()] = (inst.name, f.resolve())
    for p in paths:
        try:
            files = instrument_files(p)
        except DataError as exc:
            yield Path(p), exc
            continue
        for f in files:
            try:
                inst = load_instrument(f, board)
                key = inst.name.casefold()
                other = seen.get(key)
                if other is not None and other[1] != f.resolve():
                    raise DataError(
                        f,
                        "instrument.name",
                        f"'{inst.name}' is already the name of an instrument ({other[0]}, {other[1]}); "
                        "names are compared without regard to case",
                    )
                seen[key] = (inst.name, f.resolve())
            except DataError as exc:
                yield f, exc
            else:
                yield f, inst



class InstrumentLibrary:
    """The packaged instruments plus every ``*.toml`` found in ``extra_dirs``.

    An entry of ``extra_dirs`` may also be a single ``.toml`` file. Names are unique, compared
    without regard to case.
    """

    def __init__(self, extra_dirs=(), board=None):
        if isinstance(extra_dirs, (str, Path)):
            extra_dirs = (extra_dirs,)
        self.board = board if board is not None else load_board()
        files = sorted(INSTRUMENT_DIR.glob("*.toml"))
        for d in extra_dirs:
            d = Path(d)
            if d.is_dir():
                files.extend(sorted(d.glob("*.toml")))
            elif d.is_file():
                files.append(d)
            else:
                raise DataError(d, "", "instrument directory not found")
        self._by_key = {}
        shipped = set()
        for f in files:
            inst = load_instrument(f, self.board)
            key = inst.name.casefold()
            if key in self._by_key:
                other = self._by_key[key]
                # A designer's copy marked `replaces = true` takes the place of a shipped instrument
                # (e.g. the files `ssb tune` writes); any other clash is a mistake.
                if not (inst.replaces and key in shipped):
                    hint = "; mark the copy `replaces = true` in [instrument] to replace it" if key in shipped else ""
                    raise DataError(
                        f,
                        "instrument.name",
                        f"duplicate instrument name '{inst.name}' (already defined in {other.path}){hint}",
                    )
                shipped.discard(key)
            elif Path(f).parent == INSTRUMENT_DIR:
                shipped.add(key)
            self._by_key[key] = inst
        self._order = sorted(self._by_key.values(), key=lambda i: (i.department, i.expansion, i.name.casefold()))

    def __len__(self):
        return len(self._order)

    def __iter__(self):
        return iter(self._order)

    def __contains__(self, name):
        return isinstance(name, str) and name.strip().casefold() in self._by_key

    def names(self):
        """Instrument names, by department (black, orange, gray), base game before expansion."""
        return [i.name for i in self._order]

    def get(self, name):
        """Instrument by name, ignoring case. Unknown names raise DataError listing the known ones."""
        inst = self._by_key.get(str(name).strip().casefold())
        if inst is None:
            raise DataError(
                LIBRARY_SOURCE, "name", f"unknown instrument '{name}'; known instruments: {', '.join(self.names())}"
            )
        return inst

    def by_department(self, department):
        """Instruments of one department, given by index (0..2) or name."""
        d = department_index(department)
        return [i for i in self._order if i.department == d]

    def lineup(self, names=STARTER):
        """Three instruments, one per department, returned in department order black, orange, gray."""
        names = list(names)
        if len(names) != L.N_DEPT:
            raise DataError(LIBRARY_SOURCE, "lineup", f"need one instrument per department ({L.N_DEPT}), got {len(names)}")
        slots = [None] * L.N_DEPT
        for n in names:
            inst = self.get(n)
            if slots[inst.department] is not None:
                raise DataError(
                    LIBRARY_SOURCE,
                    "lineup",
                    f"{slots[inst.department].name} and {inst.name} are both {inst.department_name} instruments",
                )
            slots[inst.department] = inst
        return tuple(slots)

    def starter(self):
        return self.lineup(STARTER)


def department_index(department):
    if isinstance(department, str):
        key = department.strip().lower()
        if key not in L.DEPT_NAMES:
            raise DataError(LIBRARY_SOURCE, "department", f"unknown department '{department}'")
        return L.DEPT_NAMES.index(key)
    d = int(department)
    if not 0 <= d < L.N_DEPT:
        raise DataError(LIBRARY_SOURCE, "department", f"department index {d} out of range 0..{L.N_DEPT - 1}")
    return d
