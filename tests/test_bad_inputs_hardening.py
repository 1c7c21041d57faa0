"""Bad input, third round: the lock file, linked parts of a run folder, damaged records of a run,
absurd nesting and sizes, the registry's environment variable, and the warnings of play and check.

Each case is a mistake (or an attack) through the shared harness (tests/cli_harness.py): exit
status 2, an ``error:`` line naming the file or option, the key and the reason, no traceback, and
nothing written, nothing outside the folder touched; or, where a user would expect it to work, it
works. Small runs only (a few dozen games).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cli_harness import Case, assert_clean_error, check_case, dead_pid, files_under, invoke, run_ssb

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MIXED4 = FIXTURES / "mixed4.toml"

SEQ = """\
name = "seqtiny"
seed = 5
games = 120
players = [2]

[instruments]
sets = [["Violin", "Piano", "Horns"]]

[lineup]
mirror = ["greedy"]

[sequential]
budget = 120
round = 40
"""


@pytest.fixture(scope="module")
def good_run(tmp_path_factory):
    """A small finished run of a fixed-count scenario, in two chunks."""
    from scenarios.runner import run_scenario

    out = tmp_path_factory.mktemp("good") / "run"
    run_scenario(MIXED4, out, jobs=1, games=8, chunk_size=4, progress=False)
    return out


@pytest.fixture(scope="module")
def seq_run(tmp_path_factory):
    """A small finished sequential run (two cells' worth of rounds at most) and its scenario file."""
    from scenarios.runner import run_scenario

    d = tmp_path_factory.mktemp("seq")
    (d / "seq.toml").write_text(SEQ)
    run_scenario(d / "seq.toml", d / "run", jobs=1, chunk_size=20, progress=False)
    return d


def _copy(src, dst):
    shutil.copytree(src, dst, symlinks=True)
    return dst


def _edit(d, change):
    m = json.loads((d / "manifest.json").read_text())
    change(m)
    (d / "manifest.json").write_text(json.dumps(m))


def _snapshot(folder):
    return {p: (Path(folder) / p).read_bytes() for p in files_under(folder)}


# =========================================================================== the lock file


def _victim(tmp_path):
    v = tmp_path / "precious.txt"
    v.write_text("keep me\n")
    return v


def test_a_lock_that_is_a_symlink_is_refused_and_its_target_kept(good_run, tmp_path):
    """Before: the next writer truncated the file the link points to (any file the user may write)."""
    victim = _victim(tmp_path)
    out = tmp_path / "rep"
    out.mkdir()
    (out / ".lock").symlink_to(victim)
    assert_clean_error(invoke("report", good_run, "--out", out), out / ".lock", "symbolic link")
    assert victim.read_text() == "keep me\n"
    assert sorted(os.listdir(out)) == [".lock"]
    assert_clean_error(invoke("run", MIXED4, "--games", 4, "-j", 1, "-q", "--out", out), out / ".lock", "symbolic link")
    assert victim.read_text() == "keep me\n" and sorted(os.listdir(out)) == [".lock"]


def test_a_dangling_lock_link_creates_nothing_outside(good_run, tmp_path):
    outside = tmp_path / "elsewhere" / "made.txt"
    outside.parent.mkdir()
    out = tmp_path / "rep"
    out.mkdir()
    (out / ".lock").symlink_to(outside)
    assert_clean_error(invoke("baseline", good_run, "-o", out / "b.json"), out / ".lock", "symbolic link")
    assert not outside.exists() and not (out / "b.json").exists()


def test_a_fifo_lock_is_refused_without_waiting(good_run, tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    os.mkfifo(out / ".lock")
    result = run_ssb("report", good_run, "--out", out, timeout=120)
    assert_clean_error(result, out / ".lock", "FIFO")
    assert sorted(os.listdir(out)) == [".lock"]


def test_a_lock_that_is_a_folder_is_refused(good_run, tmp_path):
    out = tmp_path / "rep"
    (out / ".lock").mkdir(parents=True)
    assert_clean_error(invoke("report", good_run, "--out", out), out / ".lock", "directory")


@pytest.mark.parametrize(
    "content",
    [bytes(range(256)) * 4, b"99999999999999999999999 ssb run (since then)\n", b"-5 ssb\n", b"\xff\xfe\x00garbage"],
    ids=["binary", "huge-pid", "negative-pid", "not-utf8"],
)
def test_a_garbled_lock_of_no_live_process_is_taken_over(good_run, tmp_path, content):
    """Before: UnicodeDecodeError (binary) and OverflowError (a pid past any process id). A lock
    held by no process is free, whatever it holds: the report is written and the lock emptied."""
    out = tmp_path / "rep"
    out.mkdir()
    (out / ".lock").write_bytes(content)
    result = invoke("report", good_run, "--out", out)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert (out / "report.html").is_file() and (out / ".lock").read_bytes() == b""


def test_a_stale_lock_is_still_taken_over_with_its_note(good_run, tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    pid = dead_pid()
    (out / ".lock").write_text(f"{pid} ssb report (since earlier)\n")
    result = invoke("report", good_run, "--out", out)
    assert result.exit_code == 0 and f"stale lock of pid {pid}" in result.output


# =========================================================================== linked parts of a run folder


@pytest.mark.parametrize("part", ["games", "seats"])
def test_force_never_touches_a_linked_table_folder(good_run, tmp_path, part):
    """Before: a run folder whose games/ was a link to another folder: --force removed and
    replaced the chunk files there."""
    d = _copy(good_run, tmp_path / "run")
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(d / part), elsewhere)
    (d / part).symlink_to(elsewhere, target_is_directory=True)
    before = _snapshot(elsewhere)
    result = invoke("run", MIXED4, "--games", 4, "-j", 1, "-q", "--force", "--out", d)
    assert_clean_error(result, d / part, "symbolic link", "another --out")
    assert _snapshot(elsewhere) == before
    result = invoke("run", MIXED4, "--games", 8, "--chunk-size", 4, "-j", 1, "-q", "--resume", "--out", d)
    assert_clean_error(result, d / part, "symbolic link")
    assert _snapshot(elsewhere) == before


def test_a_linked_manifest_is_refused(good_run, tmp_path):
    d = _copy(good_run, tmp_path / "run")
    real = tmp_path / "manifest-elsewhere.json"
    shutil.move(str(d / "manifest.json"), real)
    (d / "manifest.json").symlink_to(real)
    text = real.read_text()
    assert_clean_error(invoke("run", MIXED4, "--games", 4, "-j", 1, "-q", "--force", "--out", d),
                       d / "manifest.json", "symbolic link")
    assert real.read_text() == text


def test_a_linked_report_folder_is_refused_by_force(good_run, tmp_path):
    d = _copy(good_run, tmp_path / "run")
    elsewhere = tmp_path / "rep-elsewhere"
    elsewhere.mkdir()
    (elsewhere / "report.html").write_text("mine")
    (d / "report").symlink_to(elsewhere, target_is_directory=True)
    assert_clean_error(invoke("run", MIXED4, "--games", 4, "-j", 1, "-q", "--force", "--out", d),
                       d / "report", "symbolic link")
    assert (elsewhere / "report.html").read_text() == "mine"


# =========================================================================== a sequential run's record


def _plan_overlap(m):
    # The second round's first chunk made to repeat the first round's games of its cell.
    plan = m["chunks"]["plan"]
    first, stop = m["sequential"]["rounds"][1]["chunks"]
    row = plan[first]
    plan[first] = [row[0], row[1], row[2] - 20, row[3] - 20]


SEQ_DAMAGE = [
    ("record-deleted", lambda m: m.pop("sequential"), ["sequential", "missing"]),
    ("record-a-list", lambda m: m.update(sequential=[1, 2]), ["sequential", "JSON object"]),
    ("rounds-empty", lambda m: m["sequential"].update(rounds=[]), ["sequential.rounds", "no round is listed", "play those games again"]),
    ("round-range-overlaps",
     lambda m: m["sequential"]["rounds"][1].update(chunks=[m["sequential"]["rounds"][1]["chunks"][0] - 1,
                                                          m["sequential"]["rounds"][1]["chunks"][1]]),
     ["sequential.rounds[1].chunks", "count games twice"]),
    ("plan-row-repeats-games", _plan_overlap, ["chunks.plan[", "count games twice"]),
    ("round-cells-lie", lambda m: m["sequential"]["rounds"][0].update(cells={"0": 999}), ["sequential.rounds[0].cells"]),
    ("cell-record-games", lambda m: m["sequential"]["cells"][0].update(games=1), ["sequential.cells[0].games"]),
]


@pytest.mark.parametrize("damage,fragments", [c[1:] for c in SEQ_DAMAGE], ids=[c[0] for c in SEQ_DAMAGE])
def test_a_damaged_sequential_record_is_refused_by_resume_and_report(seq_run, tmp_path, damage, fragments):
    """Before: --resume trusted it (a bad chunk range counted wins twice, an empty list replayed
    into new chunks and the report counted twice the games); a deleted or list record was a
    traceback. Now the record is checked against the chunk plan first, and nothing is written."""
    d = _copy(seq_run / "run", tmp_path / "run")
    assert len(json.loads((d / "manifest.json").read_text())["sequential"]["rounds"]) >= 2
    _edit(d, damage)
    before = _snapshot(d)
    result = invoke("run", seq_run / "seq.toml", "-j", 1, "-q", "--resume", "--out", d)
    assert_clean_error(result, d / "manifest.json", *fragments)
    assert _snapshot(d) == before
    result = invoke("report", d, "--out", tmp_path / "rep")
    assert_clean_error(result, d / "manifest.json", *fragments)
    assert not (tmp_path / "rep" / "report.html").exists()


def test_an_intact_sequential_record_passes_the_check(seq_run):
    from scenarios.record_check import check_sequential_record
    from scenarios.results import read_manifest

    check_sequential_record(read_manifest(seq_run / "run"), seq_run / "run")  # raises nothing


# =========================================================================== the game a manifest names


def test_a_manifest_naming_another_game_is_refused(good_run, tmp_path):
    """Before: a Shuffle and Swing run whose manifest said game = "echidna" got an Echidna report
    (exit 0, a wrong verdict); the manifest's own columns record shows the mismatch."""
    d = _copy(good_run, tmp_path / "run")
    _edit(d, lambda m: m.update(game="echidna"))
    assert_clean_error(invoke("report", d, "--out", tmp_path / "rep"), d / "manifest.json", "game", "echidna",
                       "Echidna Shuffle")
    assert not (tmp_path / "rep").exists()


@pytest.fixture(scope="module")
def echidna_run(tmp_path_factory):
    from scenarios.runner import run_scenario

    out = tmp_path_factory.mktemp("echidna") / "run"
    run_scenario("echidna-ci", out, jobs=1, games=2, sets=["players=[2]", 'boards=["forest"]'], progress=False)
    return out


def test_a_damaged_echidna_manifest_blames_the_manifest(echidna_run, tmp_path):
    """Before: a columns record with a renamed column blamed an intact chunk file."""
    d = _copy(echidna_run, tmp_path / "run")
    _edit(d, lambda m: m["columns"]["games"].__setitem__(-1, "nonsense"))
    result = invoke("report", d, "--out", tmp_path / "rep")
    assert_clean_error(result, d / "manifest.json", "game", "nonsense")
    assert "chunk-" not in result.output


# =========================================================================== regress --adaptive on a sequential run


@pytest.mark.slow
def test_adaptive_regress_on_a_sequential_run_counts_the_games_it_played(seq_run, tmp_path):
    """Before: "3,996 of 4,000 games" said, 240 played (each round ran as a sequential run and
    stopped once decided). The rounds now play their plan, and the count is what was played."""
    d = _copy(seq_run / "run", tmp_path / "run")
    assert invoke("baseline", d, "-o", tmp_path / "b.json").exit_code == 0
    result = invoke("regress", d, "--baseline", tmp_path / "b.json", "--adaptive", "--budget", 400, "--looks", 2,
                    "--json", tmp_path / "r.json", "-j", 1)
    assert result.exit_code in (0, 1), result.output
    info = json.loads((tmp_path / "r.json").read_text())["adaptive"]
    import pandas as pd

    played = sum(len(pd.read_parquet(f)) for f in (d / "adaptive").glob("round-*/games/*.parquet"))
    assert info["games"] == played
    assert f"{played:,} of 400" in result.output


# =========================================================================== read-only folders


@pytest.fixture
def read_only_dir(tmp_path):
    """A read-only tmpfs (the tests may run as root, whom file modes do not stop)."""
    import subprocess

    mnt = tmp_path / "ro"
    mnt.mkdir()
    if shutil.which("mount") is None or subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", str(mnt)], capture_output=True
    ).returncode != 0:
        if os.geteuid() == 0:
            pytest.skip("cannot mount a read-only tmpfs here")
        mnt.chmod(0o555)
        yield mnt
        mnt.chmod(0o755)
        return
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_baseline_into_a_read_only_folder(good_run, read_only_dir):
    """Before: a traceback (PermissionError / OSError on the lock file)."""
    result = invoke("baseline", good_run, "-o", read_only_dir / "b.json")
    assert_clean_error(result, read_only_dir)
    assert not (read_only_dir / "b.json").exists()


def test_write_baseline_names_the_file_it_cannot_write(tmp_path, monkeypatch):
    from reports.gate.baseline import write_baseline
    from simulator.errors import DataError

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("builtins.open", refuse)
    with pytest.raises(DataError, match="b.json: cannot write: Permission denied"):
        write_baseline({"x": 1}, tmp_path / "b.json")


# =========================================================================== nesting, sizes, names


def _deep_toml(depth):
    return "[" * depth + "1" + "]" * depth


def _chain_dir(tmp_path, n):
    d = tmp_path / "chain"
    d.mkdir()
    (d / "c0.toml").write_text('[strategy]\nname = "c0"\nkind = "greedy"\nweights_from = "greedy"\n')
    for i in range(1, n):
        (d / f"c{i}.toml").write_text(f'[strategy]\nname = "c{i}"\nkind = "greedy"\nweights_from = "c{i - 1}"\n')


def _scenario(tmp_path, extra="", text=None, name="s.toml"):
    (tmp_path / name).write_text((text or MIXED4.read_text()) + extra)


def _pool_scenario(tmp_path, n=40):
    d = tmp_path / "pool"
    d.mkdir()
    for i in range(n):
        (d / f"p{i}.toml").write_text(f'[strategy]\nname = "p{i}"\nkind = "random"\n')
    pool = ", ".join(f'"p{i}"' for i in range(n))
    (tmp_path / "s.toml").write_text(
        'name = "big"\nseed = 1\ngames = 10\nplayers = [4]\nstrategy_dirs = ["pool"]\n'
        '[instruments]\nsets = [["Violin", "Piano", "Horns"]]\n'
        f"[lineup]\nround_robin = {{ pool = [{pool}] }}\n")


def _echidna_scenario(tmp_path, extra=""):
    text = (Path(__file__).resolve().parents[1] / "scenarios" / "echidna-ci.toml").read_text()
    (tmp_path / "e.toml").write_text(text + extra)


def _board(tmp_path, name):
    text = (Path(__file__).resolve().parents[1] / "simulator" / "echidna" / "data" / "forest.toml").read_text()
    (tmp_path / "b.toml").write_text(text.replace('name = "forest"', f'name = "{name}"', 1))


def _strategy(tmp_path, text):
    (tmp_path / "strats").mkdir()
    (tmp_path / "strats" / "w.toml").write_text(text)


CASES = [
    # Tracebacks before: RecursionError.
    Case("weights-from-chain-1500", ["strategies", "list", "--strategy-dir", "chain"],
         ["strategy.weights_from", "chain of more than 32"], setup=lambda t: _chain_dir(t, 1500)),
    Case("toml-100000-deep", ["run", "s.toml", "-o", "out"], ["s.toml", "nested"],
         setup=lambda t: _scenario(t, "\nextra = " + _deep_toml(100_000) + "\n")),
    Case("toml-40-deep", ["run", "s.toml", "-o", "out"], ["s.toml", "nested more than 32 levels"],
         setup=lambda t: _scenario(t, "\nextra = " + _deep_toml(40) + "\n")),
    Case("set-5000-deep", ["run", MIXED4, "-o", "out", "--set", "games=" + _deep_toml(5000)],
         ["--set games", "nested too deeply"]),
    Case("set-40-deep", ["run", MIXED4, "-o", "out", "--set", "games=" + _deep_toml(40)],
         ["--set games", "nested more than 32"]),
    # Unclear or silently wrong before.
    Case("weights-from-random", ["strategies", "list", "--strategy-dir", "strats"],
         ["strats/w.toml", "strategy.weights_from", "'random' plays at random"],
         setup=lambda t: _strategy(t, '[strategy]\nname = "w"\nkind = "greedy"\nweights_from = "random"\n')),
    Case("set-game-echidna", ["run", MIXED4, "-o", "out", "--set", 'game="echidna"'],
         ["--set game", "Shuffle and Swing", "Echidna Shuffle"]),
    # A sequential run is every game's (one schema): its mistakes are named for Echidna Shuffle too.
    Case("echidna-sequential-table", ["run", "e.toml", "-o", "out"],
         ["e.toml", "sequential.margin", "between 0 and 0.5"],
         setup=lambda t: _echidna_scenario(t, "\n[sequential]\nmargin = 2\n")),
    Case("echidna-set-sequential", ["run", "echidna-ci", "-o", "out", "--set", "sequential=true",
                                    "--set", "sequential.strong=[\"nobody\"]"],
         ["sequential.strong", "'nobody' is not a judge"]),
    Case("board-name-markup", ["boards", "draw", "b.toml", "-o", "b.png"], ["b.toml", "board.name", "'<'"],
         setup=lambda t: _board(t, "<b>ring</b>")),
    Case("scenario-123410-cells", ["run", "s.toml", "-o", "out"],
         ["s.toml", "lineup.round_robin.pool", "123,410", "at most 10,000 cells"], setup=_pool_scenario),
    Case("description-20000", ["run", "s.toml", "-o", "out"], ["s.toml", "description", "20,000 characters", "at most 10,000"],
         setup=lambda t: _scenario(t, text=MIXED4.read_text().replace('description = "', 'description = "' + "d" * 19950, 1))),
    Case("scenario-9-mib", ["run", "s.toml", "-o", "out"], ["s.toml", "MiB", "read up to 8 MiB"],
         setup=lambda t: _scenario(t, "\n# " + "x" * (9 * 2**20) + "\n")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hardening_mistake(case, tmp_path, monkeypatch):
    check_case(case, tmp_path, monkeypatch)


def test_a_long_but_bounded_weights_from_chain_still_resolves(tmp_path):
    from simulator.shuffle_swing.strategies import StrategyLibrary

    _chain_dir(tmp_path, 20)
    lib = StrategyLibrary(extra_dirs=(str(tmp_path / "chain"),))
    assert lib.get("c19").weights == lib.get("greedy").weights


def test_a_set_of_the_scenario_s_own_game_is_accepted():
    from scenarios.load import load_scenario

    sc = load_scenario("echidna-ci", sets=['game="echidna"', "games=2"])
    assert sc.game == "echidna"


# =========================================================================== SSB_EXTRA_GAMES


@pytest.mark.parametrize(
    "module,fragments",
    [
        ("no_such_module_anywhere", ["SSB_EXTRA_GAMES", "no_such_module_anywhere", "cannot import"]),
        ("json", ["SSB_EXTRA_GAMES", "json", "defines no GAME"]),
        ("taken_game", ["SSB_EXTRA_GAMES", "taken_game", "'echidna' is taken"]),
    ],
    ids=["missing-module", "no-GAME", "taken-name"],
)
def test_a_bad_extra_games_module_is_a_clear_error(tmp_path, module, fragments):
    """Before: a traceback (ModuleNotFoundError, AttributeError, ValueError)."""
    (tmp_path / "taken_game.py").write_text(
        "import dataclasses\nfrom simulator import games\n"
        "GAME = dataclasses.replace(games.get('echidna'), aliases=())\n")
    env = {"SSB_EXTRA_GAMES": module, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    assert_clean_error(run_ssb("boards", "list", cwd=tmp_path, env=env, timeout=300), *fragments)


# =========================================================================== the stall warning


def _chain_board(tmp_path):
    lines = ["[board]", 'name = "chain"', ""]
    for i in range(40):
        to = [f'"C{j}"' for j in (i - 1, i + 1) if 0 <= j < 40]
        lines += ["[[space]]", f'id = "C{i}"', f"x = {float(i)}", "y = 0.0", f"to = [{', '.join(to)}]", ""]
    board = tmp_path / "chain.toml"
    board.write_text("\n".join(lines))
    return board


def test_play_and_check_warn_of_a_board_where_most_greedy_games_stall(tmp_path):
    """Before: the probe played random seats only and warned only when all 16 stalled."""
    board = _chain_board(tmp_path)
    result = invoke("play", "--game", "echidna", "--board", board, "--players", 2, "--seed", 1)
    assert result.exit_code == 0, result.output
    assert f"warning: {board}: " in result.output and "greedy games" in result.output
    assert "random games on this board stalled at the round cap (E9)" in result.output
    result = invoke("check", "--game", "echidna", "--board", board, "--players", 2, "--games", 4)
    assert f"warning: {board}: " in result.output and "stalled" in result.output
    result = invoke("play", "--game", "echidna", "--board", "snow", "--players", 2, "--seed", 1)
    assert result.exit_code == 0 and "warning" not in result.output


# =========================================================================== progress a log can read


def test_progress_off_a_terminal_is_a_line_every_so_often():
    from scenarios.progress_log import LogProgress

    now = [0.0]
    lines = []
    bar = LogProgress(1000, 0, "starter", every=30, clock=lambda: now[0], write=lines.append)
    bar.cells(1, 6)
    for _ in range(10):
        now[0] += 10
        bar.update(50)
    bar.close()
    assert len(lines) == 4  # at 30, 60 and 90 s, and the last one
    assert lines[0] == "starter: 150 of at most 1,000 games (15%), 5 games/s, at most about 3 min left, 1 of 6 cells decided"
    assert lines[-1].startswith("starter: 500 of at most 1,000 games (50%)") and lines[-1].endswith("(100 s elapsed)")


def test_ssb_run_off_a_terminal_prints_progress_lines(tmp_path):
    result = invoke("run", MIXED4, "--games", 8, "--chunk-size", 4, "-j", 1, "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    assert "mixed4: 8 of at most 8 games (100%)" in result.output


def test_a_sequential_run_off_a_terminal_counts_its_decided_cells(tmp_path):
    """The sequential loop tells the log's progress line how many cells are decided."""
    out = tmp_path / "seq"
    result = invoke("run", "starter", "--set", "players=[2]", "--set", 'lineup.mirror=["greedy"]',
                    "--set", "sequential.seconds=1", "--out", out, "-j", 1)
    assert result.exit_code == 0, result.output
    assert "of 1 cells decided" in result.output


# =========================================================================== a damaged lead record


@pytest.fixture(scope="module")
def lead_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("lead") / "run"
    result = invoke("run", "starter", "--set", "players=[2]", "--set", 'lineup.mirror=["greedy"]',
                    "--set", "sequential.seconds=0.5", "--set", 'record=["lead"]', "--out", out, "-j", 1, "-q")
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("damage", ["no-lead-column", "short-lists"])
def test_a_damaged_lead_record_is_named_not_a_traceback(lead_run, tmp_path, damage):
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    run = tmp_path / "run"
    shutil.copytree(lead_run, run)
    chunk = sorted((run / "games").glob("chunk-*.parquet"))[0]
    table = pq.read_table(chunk)
    if damage == "no-lead-column":
        table = table.drop(["lead"])
    else:
        short = pa.array([list(v)[:-1] for v in table.column("lead").to_pylist()], type=table.schema.field("lead").type)
        table = table.set_column(table.schema.get_field_index("lead"), "lead", short)
    pq.write_table(table, chunk)
    result = invoke("report", run, "--out", tmp_path / "rep")
    assert_clean_error(result, chunk.name, "lead", "damaged")
    assert not (tmp_path / "rep" / "report.html").exists()


def test_progress_of_a_run_with_a_seconds_budget_counts_the_declared_seconds():
    """A sequential run ends on its budget of declared CPU seconds: the line counts those and takes
    the time left from them, not from the games' ceiling (which the budget never reaches)."""
    from scenarios.progress_log import LogProgress

    now = [0.0]
    lines = []
    bar = LogProgress(1_200_000, 0, "starter", every=30, clock=lambda: now[0], write=lines.append)
    bar.budget(0.0, 1100.0, restart=True)
    bar.cells(0, 12)
    for k in range(1, 7):
        now[0] += 10
        bar.budget(20.0 * k, 1100.0)  # 2 declared seconds a second
        bar.update(400)
    bar.cells(5, 12)
    bar.close()
    assert lines[0] == "starter: 1,200 games, 60 of 1,100 declared CPU s (5%), at most about 9 min left, 0 of 12 cells decided"
    assert lines[-1].startswith("starter: 2,400 games, 120 of 1,100 declared CPU s (11%), at most about 8 min left, 5 of 12")
    assert all("1,200,000" not in line for line in lines)
