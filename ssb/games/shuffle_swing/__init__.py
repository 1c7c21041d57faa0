"""Shuffle and Swing's own part of the command line (``Game.commands = "shuffle_swing"``, see
:mod:`ssb.games`): its commands ``instruments`` (:mod:`.instruments`) and ``bench`` (:mod:`.bench`),
and how ``ssb play``, ``ssb check``, ``ssb strategies`` and ``ssb strategies meta`` read its
instrument sets (``--instruments``, ``--instrument-dir``, ``--all-sets``) and its profiles (a focus
department, the search parameters)."""

from __future__ import annotations

import itertools

import click

from simulator.errors import DataError
from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.library import STARTER
from ssb.common import NameList, instrument_dir_option
from ssb.games.shuffle_swing.bench import bench
from ssb.games.shuffle_swing.instruments import instruments

COMMANDS = (instruments, bench)


def instruments_option(f):
    """``--instruments``: three instrument names, one per department, in any order."""
    return click.option(
        "--instruments",
        type=NameList(),
        default=",".join(STARTER),
        show_default=True,
        metavar="A,B,C",
        help="Three instruments, one per department (black, orange, gray); Shuffle and Swing only.",
    )(f)


def all_sets_option(f):
    """``--all-sets``: soak every instrument set."""
    return click.option(
        "--all-sets",
        is_flag=True,
        help="Soak every instrument set (one instrument per department from the library) instead of one; "
        "Shuffle and Swing only.",
    )(f)


OPTIONS = {
    "play": (instruments_option, instrument_dir_option),
    "check": (instruments_option, all_sets_option, instrument_dir_option),
    "meta": (instruments_option, instrument_dir_option),
}


def _game_setup(nplayers, instruments, **kw):
    """``GameSetup`` for ``--instruments``; a wrong choice of names blames the argument (a broken
    instrument file keeps naming its file)."""
    from simulator.shuffle_swing.library import LIBRARY_SOURCE
    from simulator.shuffle_swing.playout import GameSetup

    try:
        return GameSetup(nplayers=nplayers, instruments=instruments, **kw)
    except DataError as exc:
        if exc.file in (LIBRARY_SOURCE, "game") and exc.key in ("name", "instruments"):
            raise DataError("--instruments", ",".join(instruments), exc.reason) from None
        raise


def play_setup(game, players, options):
    """The setup of ``ssb play``: the instrument set of ``--instruments`` (with ``--instrument-dir``)."""
    return _game_setup(players, options["instruments"], instrument_dirs=tuple(options["instrument_dirs"]))


def check_settings(game, options):
    """What ``ssb check`` soaks: the set of ``--instruments``, or with ``--all-sets`` every set of one
    instrument per department; each as ``(setup(players), replay arguments)``."""
    from simulator.shuffle_swing.library import InstrumentLibrary

    dirs = tuple(options["instrument_dirs"])
    library = InstrumentLibrary(extra_dirs=dirs)
    if options.get("all_sets"):
        per_dept = [[i.name for i in library.by_department(d)] for d in range(L.N_DEPT)]
        sets = list(itertools.product(*per_dept))
    else:
        sets = [tuple(options["instruments"])]
    out = []
    for inst_set in sets:
        args = ["--instruments", ",".join(inst_set), *(a for d in dirs for a in ("--instrument-dir", d))]
        out.append((lambda n, s=inst_set: _game_setup(n, s, library=library), args))
    return out


def setup_label(setup):
    """How ``ssb check`` names a setting: its instruments, ``Violin/Piano/Horns``."""
    return setup.label


def strategy_matrix(library, names):
    """A lineup's rows; an unknown name blames ``--strategies``."""
    return library.matrix(names, source="--strategies")


def play_entry(game, strat):
    """The compiled entry ``ssb play`` runs for the lineup ``strat`` (random and greedy seats: the plain one)."""
    from simulator.shuffle_swing.playout import game_entry

    return game.kernel_entry_named(game_entry(strat))


def get_strategy(library, name):
    """A profile by name (``NAME`` blamed when unknown)."""
    return library.get(name, source="NAME")


def strategy_columns(s):
    """``ssb strategies list``: the focus department of a profile."""
    return {"focus": L.DEPT_NAMES[s.focus] if s.focus >= 0 else "-"}


def strategy_lines(s):
    """``ssb strategies show``: its focus and search budget."""
    lines = [f"focus: {L.DEPT_NAMES[s.focus] if s.focus >= 0 else '-'}"]
    if s.kind == "lookahead":
        lines.append(f"budget: {s.budget} rollouts per candidate")
    return lines


def weight_names(s):
    """Every weight a profile has, in the kernel's order."""
    return L.WEIGHT_NAMES


def validate_instrument(doc, path):
    """The desk's check of an instrument file (its loader, on the board)."""
    from simulator.shuffle_swing.board import load_board
    from simulator.shuffle_swing.instruments import instrument_from_doc

    instrument_from_doc(doc, path, load_board())


def validate_board(doc, path):
    """The desk's check of the board file."""
    from simulator.shuffle_swing.board import load_board

    load_board(path, doc=doc)
