"""mkdocs hooks: pages of the docs site written from the code, so they cannot drift from it.

* ``on_config`` drops from the nav the pages listed under ``extra.optional_pages`` in mkdocs.yml
  that are not in ``docs/`` (pages other work adds later). Any other page the nav names and the
  folder lacks still fails the strict build.
* ``on_page_markdown`` replaces a marker ``<!-- generated: NAME -->`` in a page with what
  ``GENERATORS[NAME]`` writes from the code: the scenario and tuning-file schemas from the loaders'
  own docstrings and key lists, the result columns from the column tuples and their comments, the
  verdict words from the constants the reports use. An unknown marker, or a module that moved
  without this file following, fails the build.
"""

from __future__ import annotations

import importlib
import inspect
import io
import logging
import re
import tokenize
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.generate")

MARKER = re.compile(r"^<!--\s*generated:\s*([\w-]+)\s*-->[ \t]*$", re.M)


# --------------------------------------------------------------------------- optional nav pages
def _prune(nav, docs_dir, optional, dropped):
    out = []
    for entry in nav:
        if isinstance(entry, dict):
            (title, value), = entry.items()
            if isinstance(value, list):
                kept = _prune(value, docs_dir, optional, dropped)
                if kept:
                    out.append({title: kept})
                continue
            if isinstance(value, str) and value in optional and not (docs_dir / value).is_file():
                dropped.append(value)
                continue
        elif isinstance(entry, str) and entry in optional and not (docs_dir / entry).is_file():
            dropped.append(entry)
            continue
        out.append(entry)
    return out


def on_config(config):
    optional = set(config["extra"].get("optional_pages") or ())
    if config["nav"] and optional:
        dropped = []
        config["nav"] = _prune(config["nav"], Path(config["docs_dir"]), optional, dropped)
        for page in dropped:
            log.info("optional page %s is not written yet: left out of the nav", page)
    return config


# --------------------------------------------------------------------------- helpers
def _first_module(*names):
    """The first of ``names`` that imports (modules the layout work may move)."""
    errors = []
    for name in names:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            errors.append(f"{name}: {exc}")
    raise RuntimeError("none of these modules imports: " + "; ".join(errors))


def rst_to_markdown(text, lang="toml"):
    """A module docstring (reST as this code writes it) as Markdown: ``::`` blocks fenced."""
    lines = inspect.cleandoc(text).splitlines()
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip().endswith("::"):
            head = _inline(line.rstrip()[:-2].rstrip())
            out.append(head + ":" if head and not head.endswith(":") else head)
            i += 1
            block = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith("    ")):
                block.append(lines[i][4:] if lines[i].startswith("    ") else "")
                i += 1
            while block and not block[-1].strip():
                block.pop()
            while block and not block[0].strip():
                block.pop(0)
            out += ["", f"```{lang}", *block, "```", ""]
            continue
        out.append(_inline(line))
        i += 1
    return "\n".join(out)


def _inline(line):
    line = re.sub(r":(?:class|func|mod|meth|attr|data):`~?([^`]+)`", r"`\1`", line)
    return line.replace("``", "`")


def source_comments(module):
    """``{string literal: its trailing comment}`` for every line of a module's source."""
    src = inspect.getsource(module)
    comments, last = {}, None
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.STRING:
            last = (tok.start[0], tok.string.strip("\"'"))
        elif tok.type == tokenize.COMMENT and last and last[0] == tok.start[0]:
            comments.setdefault(last[1], tok.string.lstrip("# ").strip())
    return comments


def _table(rows, header):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return "\n".join(out)


def _keys(keys, required=()):
    return ", ".join(f"`{k}`" + (" (required)" if k in required else "") for k in keys)


# --------------------------------------------------------------------------- generators
def _const(name, *modules):
    """A constant from the first of ``modules`` that defines it (constants the layout work moves)."""
    for m in modules:
        mod = _first_module(m) if isinstance(m, str) else m
        if hasattr(mod, name):
            return getattr(mod, name)
    raise RuntimeError(f"no module of {[getattr(m, '__name__', m) for m in modules]} defines {name}")


def gen_scenario_schema():
    mod = _first_module("simulator.shuffle_swing.setting")
    spec = _first_module("scenarios.spec")
    schema = _first_module("scenarios.scenario")
    shared = (mod, "scenarios.spec", "simulator.seeds")
    rows = [
        ("top level", _keys(schema.top_keys(mod), spec.SHARED_REQUIRED + mod.REQUIRED)),
        ("`[instruments]`", _keys(mod.INSTRUMENT_KEYS) + " (one of " + ", ".join(f"`{m}`" for m in mod.SET_MODES) + ")"),
        ("`[lineup]`", _keys(_const("LINEUP_KEYS", *shared))),
        (
            "`[lineup.round_robin]`",
            _keys(_const("ROUND_ROBIN_KEYS", *shared), ("pool",)) + "; `mix`: " + ", ".join(f"`{m}`" for m in _const("MIXES", *shared)),
        ),
        ("`wheel`", ", ".join(f"`{w}`" for w in mod.WHEELS)),
        ("bounds", f"`seed` 0 .. {_const('MAX_SEED', *shared):,}; `games` 1 .. {_const('MAX_GAMES', *shared):,}"),
    ]
    return (
        f"*Written from `{schema.__name__}` and `{mod.__name__}` (their docstrings and key lists) when the site "
        "is built.*\n\n"
        + _table(rows, ("table", "keys the loader accepts"))
        + "\n\n"
        + rst_to_markdown(schema.__doc__)
        + "\n\n"
        + rst_to_markdown(mod.__doc__)
    )


def gen_game_scenario_schema():
    mod = _first_module("simulator.boards_setting")
    spec = _first_module("scenarios.spec")
    keys = _first_module("scenarios.scenario").top_keys(mod)
    req = ("game",) + spec.SHARED_REQUIRED + tuple(mod.REQUIRED)
    head = f"*Written from `{mod.__name__}` when the site is built.*\n\n"
    if keys:
        head += _table([("top level", _keys(keys, req))], ("table", "keys the loader accepts")) + "\n\n"
    return head + rst_to_markdown(mod.__doc__)


def gen_tuning_schema():
    mod = _first_module("scenarios.tuning.spec", "scenarios.tuning")
    rows = [
        ("top level", _keys(mod.TOP_KEYS + mod.GAME_KEYS, mod.REQUIRED_KEYS)),
        ("`[judges]`", _keys(mod.JUDGE_KEYS, ("search",))),
    ]
    return (
        f"*Written from `{mod.__name__}` when the site is built.*\n\n"
        + _table(rows, ("table", "keys the loader accepts"))
        + "\n\n"
        + rst_to_markdown(mod.__doc__)
    )


# Columns named after a department (``objective_black`` ...): what the name pattern means.
DEPT_PATTERNS = (
    (r"inspector()", "points scored with the inspector"),
    (r"objective_(\w+)", "points from the {0} instrument's objectives (sections)"),
    (r"brag_space_(\w+)", "brag-track space of the seat's disc on the {0} track (-1 = no disc)"),
    (r"brag_(\w+)", "points from the {0} brag award at the end"),
    (r"penalty_(\w+)", "penalty points for the {0} instrument left unbuilt (negative)"),
    (r"pieces_(\w+)", "the seat's pieces on the {0} instrument"),
    (r"built_(\w+)", "1 if the {0} instrument was built"),
)


def _layout_comments():
    """``{stat name: comment}`` from the per-seat counter constants (``ST_PICKUPS = 4  # ...``)."""
    try:
        layout = _first_module("simulator.shuffle_swing.layout", "simulator.layout")
    except RuntimeError:
        return {}
    out = {}
    for line in inspect.getsource(layout).splitlines():
        m = re.match(r"ST_(\w+)\s*=\s*\d+\s*#\s*(.+)$", line)
        if m:
            out[m.group(1).lower()] = m.group(2).strip()
    return out


def _column_rows(columns, comments):
    rows = []
    for c in columns:
        text = comments.get(c, "")
        if not text:
            for pattern, words in DEPT_PATTERNS:
                m = re.fullmatch(pattern, c)
                if m:
                    text = words.format(m.group(1))
                    break
        rows.append((f"`{c}`", text))
    return rows


# What a column means where the code that declares it says nothing beside it (the column lists
# themselves always come from the code; a column missing here shows with its name only).
COLUMN_WORDS = {
    "cell": "index of the cell in the scenario's expansion order",
    "cell_key": "the text naming the cell (`players=4|black=Violin|...|lineup=greedy,...`)",
    "players": "player count",
    "lineup": "the lineup before rotation, comma-separated strategy names",
    "deal": "index of the deal (set-up seed) within the cell",
    "rotation": "cyclic shift of the lineup over the seats for this game (paired design)",
    "game": "game index within the cell (deal x rotations + rotation)",
    "seed": "the game's seed (uint64 as int64; the same for every rotation of a deal)",
    "seat": "0 .. players-1, turn order (reports count from 1)",
    "strategy": "strategy name at this seat",
    "score": "final score = the sum of the score-source columns",
    "won": "1 for the winning seat",
    "rank": "1 = best; ties ordered by the turn-order tie-break (R13)",
    "winner": "winning seat (-1 when the game stalled)",
    "winner_strategy": "the winner's strategy",
    "tiebreak": "1 if the tie-break decided the winner (R13)",
    "tied": "seats sharing the top score",
    "rounds": "rounds played",
    "turns": "turns played",
    "stalled": "1 if the safety cap ended the game",
    "decisions": "decisions taken in the game",
    "pri_or_neutral_pieces": "pieces of Pri (2 players) or of the neutral player (3 players) placed",
    "pri_penalty_absorbed": "unbuilt penalty points on Pri's disc (2 players, R12/R14): paid by no player",
    "inst_black": "the black instrument of the cell's set",
    "inst_orange": "the orange instrument of the cell's set",
    "inst_gray": "the gray instrument of the cell's set",
    "board": "the board of the cell",
    "variant": "the variant of the cell (its name in the scenario's `[variants]`)",
}


def gen_result_columns():
    from simulator import games as registry

    schema = _first_module("scenarios.schema")
    parts = [
        f"*Written from `{schema.__name__}` and each game's declaration in the registry when the site is built.*",
        rst_to_markdown(schema.__doc__, lang="text"),
    ]
    for name in sorted(registry.names(), key=lambda n: n != registry.DEFAULT_GAME):
        g = registry.get(name)
        notes = dict(COLUMN_WORDS)
        game_mod = _first_module(f"simulator.{name.replace('-', '_')}.game", "simulator.games")
        notes.update(source_comments(game_mod))
        if name == registry.DEFAULT_GAME:
            notes.update(_layout_comments())
        cell = list(schema.cell_columns(g))
        seat = [c for c in schema.seat_columns(g) if c not in cell]
        game = [c for c in schema.game_columns(g) if c not in cell]
        parts.append(f"## {g.title} (`--game {name}`)")
        parts.append("### Cell columns (every row of both tables)\n\n" + _table(_column_rows(cell, notes), ("column", "meaning")))
        parts.append("### `seats/`: one row per game and seat\n\n" + _table(_column_rows(seat, notes), ("column", "meaning")))
        parts.append("### `games/`: one row per game\n\n" + _table(_column_rows(game, notes), ("column", "meaning")))
        parts.append("Text columns: " + ", ".join(f"`{c}`" for c in schema.string_columns(g)) + "; every other column is an integer.")
    return "\n\n".join(parts)


def gen_games():
    from simulator import games as registry

    rows = []
    for name in registry.names():
        g = registry.get(name)
        rows.append((f"`{name}`", g.title, ", ".join(map(str, g.player_counts)), ", ".join(g.boards) or "(instrument sets)"))
    return "*Written from the registry (`simulator.games`) when the site is built.*\n\n" + _table(rows, ("`--game`", "title", "players", "boards"))


GENERATORS = {
    "scenario-schema": gen_scenario_schema,
    "game-scenario-schema": gen_game_scenario_schema,
    "tuning-schema": gen_tuning_schema,
    "result-columns": gen_result_columns,
    "games": gen_games,
}


ROLE = re.compile(r":(?:class|func|mod|meth|attr|data):(<code>[^<]*</code>)")


def on_page_content(html, page, config, files):
    """Docstrings' reST roles (``:class:`X```) as plain code in the API pages."""
    return ROLE.sub(r"\1", html)


def on_page_markdown(markdown, page, config, files):
    def repl(m):
        name = m.group(1)
        if name not in GENERATORS:
            raise KeyError(f"{page.file.src_path}: unknown generated block '{name}' (known: {', '.join(GENERATORS)})")
        return GENERATORS[name]()

    return MARKER.sub(repl, markdown)
