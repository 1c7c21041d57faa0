"""The shape of the house: the layers import downwards only (stats <- simulator <- strategies <- scenarios
<- reports <- ssb; the statistics core on the ground floor imports nothing of the project), with no circle between modules, imports written as strings included (importlib,
the registry's lazy entries, ``module:attr`` entry points); the reports import no kernel; no
module imports another module's private name; no module of one game's folder imports another game's
folder; no product file grows past 800 lines; no statistical test is computed outside the statistics
core."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("stats", "simulator", "strategies", "scenarios", "reports", "ssb")
RANK = {name: i for i, name in enumerate(LAYERS)}
MODULE_TEXT = re.compile(r"^(%s)(\.[A-Za-z_][A-Za-z0-9_]*)+(:[A-Za-z_][A-Za-z0-9_]*)?$" % "|".join(LAYERS))
MAX_LINES = 800
# Files still over MAX_LINES, each with its reason; the list may only shrink (it is empty: keep it so).
OVER_SIZE = set()


def _modules():
    out = {}
    for layer in LAYERS:
        for f in sorted((ROOT / layer).rglob("*.py")):
            parts = f.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


MODULES = _modules()


def _resolve(name):
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(path):
    """``(line, module)`` of every import of a project module in a file, strings naming one included
    (but not the argv of a ``python -m`` child process)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    argv = {id(c) for n in ast.walk(tree) if isinstance(n, ast.List)
            if any(isinstance(e, ast.Constant) and e.value == "-m" for e in n.elts) for c in n.elts}
    out = []
    for n in ast.walk(tree):
        names = []
        if isinstance(n, ast.Import):
            names = [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
            names = [n.module] + [f"{n.module}.{a.name}" for a in n.names]
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in argv and MODULE_TEXT.match(n.value):
            names = [n.value.split(":")[0]]
        out += [(n.lineno, m) for m in names if m.split(".")[0] in RANK]
    return out


GRAPH = {}
for _mod, _path in MODULES.items():
    GRAPH[_mod] = {}
    for _line, _name in _imports(_path):
        _target = _resolve(_name)
        if _target and _target != _mod and not _mod.startswith(_target + "."):
            GRAPH[_mod].setdefault(_target, _line)


def test_layers_import_downwards_only():
    climbs = [
        f"{MODULES[m].relative_to(ROOT)}:{line}: {m} -> {t}"
        for m, targets in GRAPH.items()
        for t, line in targets.items()
        if RANK[t.split(".")[0]] > RANK[m.split(".")[0]]
    ]
    assert climbs == []


def test_stats_imports_nothing_of_the_project_and_no_file_library():
    """The statistics core (``stats/``) takes plain arrays: numpy, scipy, statsmodels and the standard
    library only, nothing of the project above it, no file or table library."""
    assert "stats.tests" in MODULES and "stats.paired" in MODULES  # the check looks at real modules
    bad = [f"{MODULES[m].relative_to(ROOT)}:{line}: {m} -> {t}" for m, targets in GRAPH.items() if m.startswith("stats.")
           for t, line in targets.items() if not t.startswith("stats.")]
    assert bad == []
    allowed = {"numpy", "scipy", "statsmodels", "stats", "__future__"}
    third = []
    for m, path in MODULES.items():
        if not m.startswith("stats"):
            continue
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in n.names] if isinstance(n, ast.Import) else (
                [n.module] if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module else [])
            third += [f"{m}: {x}" for x in names if x.split(".")[0] not in allowed | STDLIB]
    assert third == []


STDLIB = {"math", "functools", "warnings", "dataclasses", "itertools", "collections", "typing", "numbers"}

# Modules outside the statistics core that still compute a test or an interval from a distribution
# (scipy.stats, statsmodels.stats): none; the list may only shrink, so a new one is refused.
STATS_ELSEWHERE = set()


def statistical_modules(modules):
    """Modules (outside ``stats/``) importing scipy.stats or statsmodels.stats, or calling a test."""
    out = set()
    for m, path in modules.items():
        if m == "stats" or m.startswith("stats."):
            continue
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
                full = [n.module] + [f"{n.module}.{a.name}" for a in n.names]
            elif isinstance(n, ast.Import):
                full = [a.name for a in n.names]
            else:
                continue
            if any(x.startswith(("scipy.stats", "statsmodels.stats")) for x in full):
                out.add(m)
    return out


def test_no_statistical_test_outside_the_statistics_core():
    found = statistical_modules(MODULES)
    bad = sorted(found - STATS_ELSEWHERE)
    assert bad == [], "compute the test in stats/ and call it from there:\n" + "\n".join(bad)
    gone = sorted(STATS_ELSEWHERE - found)
    assert gone == [], f"these modules no longer compute a test: take them off STATS_ELSEWHERE: {gone}"


def test_the_statistics_guard_sees_a_test(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f(x):\n    from scipy import stats\n    return stats.ttest_1samp(x, 0)\n")
    g = tmp_path / "n.py"
    g.write_text("from statsmodels.stats.proportion import proportion_confint\n")
    h = tmp_path / "k.py"
    h.write_text("from stats import tests\nimport numpy as np\n")
    assert statistical_modules({"reports.m": f, "reports.n": g, "reports.k": h, "stats.tests": g}) == {"reports.m", "reports.n"}


def test_no_import_circle():
    index, low, stack, on, circles, count = {}, {}, [], set(), [], [0]

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = count[0]
        count[0] += 1
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in GRAPH:
        if v not in index:
            visit(v)
    assert circles == []


def test_reports_import_no_kernel():
    kernels = [m for m in GRAPH if re.search(r"\.kernel(\.|$)", m)]
    assert kernels  # the check looks at real module names
    bad = [f"{m} -> {t}" for m, targets in GRAPH.items() if m.startswith("reports.") for t in targets if t in kernels]
    assert bad == []


GAME_FOLDERS = sorted(p.name for p in (ROOT / "simulator").iterdir() if (p / "game.py").is_file())


def _game_of(module):
    """The game folder a module lives in (``simulator.<game>...``), or None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "simulator" and parts[1] in GAME_FOLDERS else None


def test_no_game_imports_another_game():
    """A game's folder uses only its own modules and the shared top of ``simulator/`` (the kernels
    share ``simulator.kernel_common``, not each other's files)."""
    assert {"shuffle_swing", "echidna"} <= set(GAME_FOLDERS)  # the check looks at real folders
    bad = [
        f"{MODULES[m].relative_to(ROOT)}:{line}: {m} -> {t}"
        for m, targets in GRAPH.items()
        for t, line in targets.items()
        if _game_of(m) and _game_of(t) and _game_of(m) != _game_of(t)
    ]
    assert bad == []


def test_no_module_imports_a_private_name_of_another():
    bad = []
    for mod, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module and n.module.split(".")[0] in RANK:
                for a in n.names:
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        bad.append(f"{path.relative_to(ROOT)}:{n.lineno}: from {n.module} import {a.name}")
                    elif f"{n.module}.{a.name}" in MODULES:
                        aliases.add(a.asname or a.name)
            elif isinstance(n, ast.Import):
                aliases |= {a.asname for a in n.names if a.asname and a.name.split(".")[0] in RANK}
        for n in ast.walk(tree):
            if (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases
                    and n.attr.startswith("_") and not n.attr.startswith("__")):
                bad.append(f"{path.relative_to(ROOT)}:{n.lineno}: {n.value.id}.{n.attr}")
    assert bad == []


def test_no_product_file_over_800_lines():
    sizes = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in MODULES.values()}
    over = sorted(f for f, n in sizes.items() if n > MAX_LINES)
    assert [f for f in over if f not in OVER_SIZE] == []
    assert [f for f in OVER_SIZE if sizes.get(f, 0) <= MAX_LINES] == []  # a file split leaves the list


def test_the_checks_see_a_climb_and_a_string_import(tmp_path):
    """The parser finds what the checks rely on: a string naming a module, a function-level import."""
    f = tmp_path / "m.py"
    f.write_text('def f():\n    from reports.build import build_report\nX = Lazy("ssb.cli", "main")\nY = "scenarios.load:load_scenario"\n'
                 'Z = [sys.executable, "-m", "ssb.cli"]\n')
    assert sorted(m for _, m in _imports(f)) == ["reports.build", "reports.build.build_report", "scenarios.load", "ssb.cli"]


# --------------------------------------------------------------------------- each game's own folders

GAME_WINGS = ("simulator.{g}", "reports.sections.{g}", "ssb.games.{g}")  # a game's folders, one per layer
# The registry's list of game modules names each game's entry: the one shared module that may.
REGISTRY = "simulator.games"
# Edges into a game's package still present in modules being reworked at the same time (the run loop,
# the one scenario schema, the tuning and ladder code, the warm-up): ``(module, target)``. The list may
# only shrink; it is to be emptied when that work lands.
STILL_TO_GO = set()  # empty: every game is reached through the registry (an edge added here is a step back)


def _wing_of(module):
    """The game whose folder (in any layer: :data:`GAME_WINGS`) holds ``module``, or None."""
    for game in GAME_FOLDERS:
        for wing in GAME_WINGS:
            top = wing.format(g=game)
            if module == top or module.startswith(top + "."):
                return game
    return None


def wing_edges(graph):
    """``[(module, target, line)]``: every import of a game's folder (``simulator/<g>/``,
    ``reports/sections/<g>/``, ``ssb/games/<g>``) from outside that game's folders, the registry's
    list of game modules left out."""
    return [(m, t, line) for m, targets in graph.items() for t, line in targets.items()
            if _wing_of(t) and _wing_of(m) != _wing_of(t) and m != REGISTRY]


def test_only_a_games_own_folders_import_it():
    """No shared module imports a game's package (nor its report parts or its commands): a shared
    module asks the registry (``simulator.games``) and the game's entry; the game's own report parts
    live in ``reports/sections/<game>/`` and its commands in ``ssb/games/<game>``."""
    found = wing_edges(GRAPH)
    # The check looks at real edges: the first game's report wing reads its package.
    assert any(t.startswith("simulator.shuffle_swing") for t in GRAPH["reports.sections.shuffle_swing.bots"])
    bad = [f"{MODULES[m].relative_to(ROOT)}:{line}: {m} -> {t}" for m, t, line in found if (m, t) not in STILL_TO_GO]
    assert bad == [], "import the game through the registry, or move the module into the game's folders:\n" + "\n".join(bad)
    gone = sorted(STILL_TO_GO - {(m, t) for m, t, _ in found})
    assert gone == [], f"these edges are gone: take them off STILL_TO_GO: {gone}"


def test_the_wing_guard_sees_an_edge():
    graph = {
        "reports.seats": {"simulator.shuffle_swing.layout": 3},  # shared -> a game: flagged
        "reports.sections.shuffle_swing.why": {"simulator.shuffle_swing.layout": 4},  # its own wing: fine
        "ssb.games.shuffle_swing": {"simulator.echidna.board": 5},  # another game's folder: flagged
        "ssb.cli": {"ssb.games.shuffle_swing": 6},  # a game's commands imported by name: flagged
        "simulator.games": {"simulator.echidna.game": 7},  # the registry's list
    }
    assert [(m, line) for m, _, line in wing_edges(graph)] == [("reports.seats", 3), ("ssb.games.shuffle_swing", 5),
                                                                 ("ssb.cli", 6)]
