"""What the parts of one report share while it is built (:mod:`reports.build`), and how a game's
parts are found.

A *part* is a module of ``reports/sections/`` (a game's own parts in its folder there,
``reports/sections/<game>/``; a game outside the shipped packages may name a module of its own by
its dotted path) with

* ``KEY``: the key of the section it writes (a game's part whose key is a generic part's replaces it);
* ``ORDER``: where it stands among the report's parts (the generic ones: seats 10, strategies 20,
  variants 30, shape 60, feel 90);
* ``NUMBERED`` (default True): whether its section takes a number ("3. Scoring sources");
* ``OPTIONS`` (default none): the report options only it reads (``instrument_margins``); an option
  that no part of a game reads is refused for that game's runs;
* ``applies(ctx)`` (optional, default yes): whether the run has what the part needs;
* ``build(ctx)``: writes its section (:meth:`ReportContext.add`) and whatever it adds to the
  headline, the answer or another section.

Every report has the generic parts :data:`GENERIC`; a game adds its own by name
(``simulator.game_api.ReportSpec.sections``), so a new game's part costs its own file only.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from reports.document import Section
from reports.frames import Setting

GENERIC = ("seats", "strategies", "variants", "shape", "feel")
PART_PACKAGE = "reports.sections"


@dataclass
class Options:
    """The report's options: ``margin`` and ``gap_margin`` fractions, ``confidence`` a level, ``seed``
    of the bootstrap draws, ``instrument_margins`` (a part's own option)."""

    margin: float = 0.03
    confidence: float = 0.95
    seed: int = 0
    gap_margin: float | None = None
    instrument_margins: dict | None = None


@dataclass
class ReportContext:
    """One report in the making: the run, its game and setting, the options, the parts' products."""

    run: object  # reports.io.RunData
    game: object  # simulator.game_api.Game
    setting: Setting
    options: Options
    numbered: list = field(default_factory=list)  # the keys of the numbered sections, in order
    sections: list = field(default_factory=list)
    adv: object = None  # reports.seats.SeatAdvantage, once the seat part has run
    comp: object = None  # reports.strategies.StrategyComparison, once the strategy part has run
    changes: object = None  # the variant part's change table (None: no variants compared)
    answers: list = field(default_factory=list)  # answer sentences after the seat verdicts' own
    why: list = field(default_factory=list)
    why_title: str = ""
    why_intro: str = ""
    headline_lines: list = field(default_factory=list)
    about: list = field(default_factory=list)

    @property
    def tables(self):
        """The run as the sections read it, chunk by chunk (:meth:`reports.io.RunData.scan`)."""
        return self.run

    @property
    def cells(self):
        """One row per cell of the run (:attr:`reports.io.RunData.cells`): its lineups, settings, games."""
        return self.run.cells

    @property
    def seats(self):
        """The whole seats table (read on first use): only for a part not yet reading chunks."""
        return self.run.seats

    @property
    def games(self):
        """The whole games table (read on first use): only for a part not yet reading chunks."""
        return self.run.games

    @property
    def mixed(self):
        """Whether some lineup seats more than one strategy (strategies then met in a game)."""
        from reports.seats import is_mirror

        return any(not is_mirror(lu) for lu in self.cells["lineup"].astype(str).unique())

    def number(self, key):
        """The number of a numbered section (1 for the seat section)."""
        return self.numbered.index(key) + 1

    def title(self, key, text):
        """``'3. Scoring sources'``: a section's title with its number."""
        return f"{self.number(key)}. {text}"

    def add(self, section):
        self.sections.append(section)
        return section

    def section(self, key):
        """The section already written under ``key``."""
        return next(s for s in self.sections if s.key == key)

    def new_section(self, key, text, question, **kw):
        """A numbered :class:`reports.document.Section`, added to the report."""
        return self.add(Section(key, self.title(key, text), question, **kw))


def load_part(name, game_name=""):
    """The part module ``name``: ``reports.sections.<name>`` (a generic part, or a game's own in its
    folder, ``shuffle_swing.about``), else ``name`` as a dotted module path (a game outside the
    shipped packages)."""
    candidates = [f"{PART_PACKAGE}.{name}"] + ([name] if "." in name else [])
    part = None
    for module in candidates:
        try:
            part = importlib.import_module(module)
            break
        except ModuleNotFoundError as exc:
            if exc.name not in (module, *_parents(module)):
                raise
    if part is None:
        raise ValueError(f"game {game_name!r} names the report part {name!r}, but there is no module "
                         f"{' or '.join(candidates)}")
    for attr in ("KEY", "ORDER", "build"):
        if not hasattr(part, attr):
            raise ValueError(f"report part {module} has no {attr} (see reports/context.py)")
    return part


def _parents(module):
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def parts_of(game):
    """The parts of a game's report, in order: the generic ones, each replaced by a part of the game
    with its key, and the game's own (``game.report.sections``)."""
    own = [load_part(n, game.name) for n in game.report.sections]
    keys = {p.KEY for p in own}
    generic = [load_part(n) for n in GENERIC]
    chosen = [p for p in generic if p.KEY not in keys] + own
    return sorted(chosen, key=lambda p: p.ORDER)


def option_owners(option):
    """The titles of the registered games whose report reads ``option`` (a part's ``OPTIONS``)."""
    from simulator import games as registry

    return [registry.get(n).title for n in registry.names()
            if any(option in getattr(p, "OPTIONS", ()) for p in parts_of(registry.get(n)))]


__all__ = ["GENERIC", "Options", "ReportContext", "load_part", "option_owners", "parts_of"]
