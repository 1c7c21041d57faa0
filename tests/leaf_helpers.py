"""Helpers the leaf tests share: a row's leaf block at a player count, and the instrument library
with the Horns' numbers changed (a designer's edit, for a fit that must or must not follow it)."""

import dataclasses

from simulator.shuffle_swing.layout import N_LEAF_FEAT, P_LEAF_COEF
from simulator.shuffle_swing.library import InstrumentLibrary


def leaf_block(row, n):
    """The leaf coefficients a strategy row plays at ``n`` players."""
    b = P_LEAF_COEF + (n - 2) * N_LEAF_FEAT
    return tuple(row[b : b + N_LEAF_FEAT])


def changed_library(**changes):
    """The instrument library with the Horns' numbers changed (``dataclasses.replace``)."""
    lib = InstrumentLibrary()

    class Changed:
        def get(self, name):
            inst = lib.get(name)
            return dataclasses.replace(inst, **changes) if inst.name == "Horns" else inst

    return Changed()
