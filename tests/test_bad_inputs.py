"""Bad input never gives a traceback or a silently wrong answer.

Each case below is one mistake a user can make: in an instrument file, a strategy file, a scenario,
a ``--set``, a command-line value or a result folder. Every one must end with exit status 2, an
``error:`` message that names the file (or the argument) and the key, and no traceback; a mistake in
a scenario writes nothing. The property tests at the end mutate valid instrument and scenario
documents at random: the loaders must either accept the document (and then a game on it keeps every
invariant and every score within the kernel's int32 bounds) or refuse it with a DataError, never
anything else.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from simulator.shuffle_swing.library import INSTRUMENT_DIR

HORNS = (INSTRUMENT_DIR / "horns.toml").read_text()
ORGAN = (INSTRUMENT_DIR / "organ.toml").read_text()
PIANO = (INSTRUMENT_DIR / "piano.toml").read_text()
BASELINE = Path(__file__).resolve().parent.parent / "baselines" / "ci-baseline.json"


# The shared harness of every command's tests (tests/cli_harness.py).
from cli_harness import assert_clean_error, invoke  # noqa: E402


# =========================================================================== instrument files


def _tuba(text):
    return text.replace('name = "Horns"', 'name = "Tuba"')


INSTRUMENT_CASES = [
    # (id, base text, old, new, key fragments): the replacement must change the text.
    ("award-99999999999", HORNS, "awards = [8, 6, 2]", "awards = [99999999999, 6, 2]",
     ["section[trumpet].score[0].awards[0]", "maximum 1000", "32-bit"]),
    ("award-3000000000", HORNS, "awards = [8, 6, 2]", "awards = [3000000000, 6, 2]",
     ["section[trumpet].score[0].awards[0]", "maximum 1000"]),
    ("award-negative", HORNS, "awards = [8, 6, 2]", "awards = [8, -6, 2]",
     ["section[trumpet].score[0].awards[1]", "minimum 0"]),
    ("award-float", HORNS, "awards = [8, 6, 2]", "awards = [8.5, 6, 2]",
     ["section[trumpet].score[0].awards[0]", "integer"]),
    ("award-string", HORNS, "awards = [8, 6, 2]", 'awards = "eight"',
     ["section[trumpet].score[0].awards", "list"]),
    ("awards-empty", HORNS, "awards = [8, 6, 2]", "awards = []",
     ["section[trumpet].score[0].awards", "at least 1"]),
    ("awards-too-many", HORNS, "awards = [8, 6, 2]", "awards = [8, 6, 2, 1, 1]",
     ["section[trumpet].score[0].awards", "at most 4"]),
    ("penalty-5e9", HORNS, "reconstructed = true", "reconstructed = true\npenalty_per_space = 5000000000",
     ["instrument.penalty_per_space", "maximum 1000"]),
    ("penalty-negative", HORNS, "reconstructed = true", "reconstructed = true\npenalty_per_space = -2",
     ["instrument.penalty_per_space", "minimum 0"]),
    ("per-piece-int32-max", HORNS, 'rule = "rank"\nawards = [8, 6, 2]', 'rule = "per_piece"\npoints = 2147483647',
     ["section[trumpet].score[0].points", "maximum 1000"]),
    ("number-rank-offset-huge", ORGAN, "offsets = [0, -2, -3]", "offsets = [5000, -2, -3]",
     ["section[r1].score[0].offsets[0]", "maximum 1000"]),
    ("section-number-huge", ORGAN, "number = 5", "number = 50000",
     ["section[r1].number", "maximum 1000"]),
    ("completer-zero-denominator", PIANO, "completer = [1, 1]", "completer = [1, 0]",
     ["completer[1]", "denominator"]),
    ("completer-huge", PIANO, "others = [1, 2]", "others = [3000000000, 2]",
     ["others[0]", "maximum 1000"]),
    ("track-vp-huge", HORNS, "reconstructed = true",
     "reconstructed = true\n\n[track]\nvp = [0, 2, 4, 7, 10, 15, 17, 2000000000]",
     ["track.vp[7]", "maximum 1000"]),
    ("track-need-decreasing", HORNS, "reconstructed = true",
     "reconstructed = true\n\n[track]\nneed = [0, 1, 2, 4, 3, 8, 10, 12]", ["track.need[4]", "decrease"]),
    ("name-lowercase-duplicate", HORNS, 'name = "Horns"', 'name = "horns"',
     ["instrument.name", "Horns", "case"]),
    ("name-comma", HORNS, 'name = "Horns"', 'name = "Ho,rns"', ["instrument.name", "','"]),
    ("name-nul", HORNS, 'name = "Horns"', 'name = "Ho\\u0000rns"', ["instrument.name", "control character"]),
    ("name-colon", HORNS, 'name = "Horns"', 'name = "Horns:2"', ["instrument.name", "':'"]),
    ("name-empty", HORNS, 'name = "Horns"', 'name = "  "', ["instrument.name", "empty"]),
    ("name-not-string", HORNS, 'name = "Horns"', "name = 7", ["instrument.name", "string"]),
    ("department-unknown", HORNS, 'department = "gray"', 'department = "purple"', ["instrument.department"]),
    ("space-number-4", HORNS, "number = 1", "number = 4", ["space[0].number", "maximum 3"]),
    ("space-own-colour", HORNS, 'colour = "black"', 'colour = "gray"', [".colour", "gray"]),
    ("rule-misspelt", HORNS, 'rule = "rank"', 'rule = "rankk"', ["section[trumpet].score[0].rule", "rank"]),
    ("key-misspelt", HORNS, "awards = [8, 6, 2]", "awrds = [8, 6, 2]", ["section[trumpet].score[0]", "awards"]),
    ("line-missing-space", HORNS, '["t1", "t2"], ["t2", "t3"]', '["t1", "t99"], ["t2", "t3"]', ["lines[0][1]", "t99"]),
    ("neutral-twice", HORNS, 'neutral = ["t5", "s4"]', 'neutral = ["t5", "t5"]', ["neutral", "differ"]),
    ("toml-syntax", HORNS, 'name = "Horns"', 'name = "Horns', ["TOML syntax error", "line"]),
]


@pytest.mark.parametrize(
    "base,old,new,fragments", [c[1:] for c in INSTRUMENT_CASES], ids=[c[0] for c in INSTRUMENT_CASES]
)
def test_instrument_file_mistake(tmp_path, base, old, new, fragments):
    assert old in base
    text = base.replace(old, new, 1)
    if "name-" not in new and 'name = "Horns"' in text:
        text = text.replace('name = "Horns"', 'name = "Tuba"')
    text = text.replace('name = "Organ"', 'name = "Tuba"').replace('name = "Piano"', 'name = "Tuba"')
    f = tmp_path / "tuba.toml"
    f.write_text(text)
    assert_clean_error(invoke("instruments", "validate", f), f, *fragments)


def test_instrument_file_not_utf8(tmp_path):
    f = tmp_path / "tuba.toml"
    f.write_bytes(b'[instrument]\nname = "T\xff"\n')
    assert_clean_error(invoke("instruments", "validate", f), f, "UTF-8")


def test_validate_folder_named_like_a_file(tmp_path):
    d = tmp_path / "DIR.toml"
    d.mkdir()
    assert_clean_error(invoke("instruments", "validate", d), d, "no instrument files")


def test_validate_missing_path(tmp_path):
    assert_clean_error(invoke("instruments", "validate", tmp_path / "nope.toml"), tmp_path / "nope.toml", "not found")


def test_validate_two_files_with_one_name(tmp_path):
    (tmp_path / "a.toml").write_text(_tuba(HORNS))
    (tmp_path / "b.toml").write_text(_tuba(HORNS).replace('name = "Tuba"', 'name = "TUBA"'))
    assert_clean_error(invoke("instruments", "validate", tmp_path), tmp_path / "b.toml", "instrument.name", "Tuba")


def test_validate_accepts_the_packaged_folder():
    result = invoke("instruments", "validate", INSTRUMENT_DIR)
    assert result.exit_code == 0, result.output
    assert result.output.count("OK ") == 12


def test_instrument_dir_with_a_case_duplicate(tmp_path):
    (tmp_path / "v.toml").write_text(HORNS.replace('name = "Horns"', 'name = "HORNS"'))
    assert_clean_error(invoke("instruments", "list", "--instrument-dir", tmp_path), tmp_path / "v.toml", "instrument.name")


# =========================================================================== strategy files

STRATEGY_CASES = [
    ("weight-nan", '[strategy]\nname = "w"\nkind = "greedy"\n[weights]\npoints = nan\n', ["weights.points", "finite"]),
    ("weight-inf", '[strategy]\nname = "w"\nkind = "greedy"\n[weights]\npoints = inf\n', ["weights.points", "finite"]),
    ("weight-minus-inf", '[strategy]\nname = "w"\nkind = "greedy"\n[weights]\npiece = -inf\n', ["weights.piece", "finite"]),
    ("weight-huge", '[strategy]\nname = "w"\nkind = "greedy"\n[weights]\npoints = 1e300\n', ["weights.points", "outside"]),
    ("weight-text", '[strategy]\nname = "w"\nkind = "greedy"\n[weights]\npoints = "high"\n', ["weights.points", "number"]),
    ("weight-unknown", '[strategy]\nname = "w"\nkind = "greedy"\n[weights]\npointz = 1.0\n', ["weights.pointz", "points"]),
    ("name-comma", '[strategy]\nname = "a,b"\nkind = "random"\n', ["strategy.name", "','"]),
    ("name-colon", '[strategy]\nname = "my:bot"\nkind = "random"\n', ["strategy.name", "':'"]),
    ("name-tab", '[strategy]\nname = "my\\tbot"\nkind = "random"\n', ["strategy.name", "control character"]),
    ("name-duplicate", '[strategy]\nname = "Greedy"\nkind = "random"\n', ["strategy.name", "greedy"]),
    ("kind-unknown", '[strategy]\nname = "w"\nkind = "smart"\n', ["strategy.kind", "smart"]),
    ("focus-unknown", '[strategy]\nname = "w"\nkind = "greedy"\nfocus = "purple"\n[weights]\nfocus = 1.0\n', ["strategy.focus", "purple"]),
    ("budget-zero", '[strategy]\nname = "w"\nkind = "lookahead"\nbudget = 0\n[weights]\npoints = 1.0\n', ["strategy.budget", "minimum 1"]),
    ("no-strategy-table", '[weights]\npoints = 1.0\n', ["strategy", "missing"]),
]


@pytest.mark.parametrize("text,fragments", [c[1:] for c in STRATEGY_CASES], ids=[c[0] for c in STRATEGY_CASES])
def test_strategy_file_mistake(tmp_path, text, fragments):
    (tmp_path / "w.toml").write_text(text)
    assert_clean_error(invoke("strategies", "list", "--strategy-dir", tmp_path), tmp_path / "w.toml", *fragments)


# =========================================================================== command-line values

CLI_CASES = [
    ("specialist-purple", ["play", "--strategies", "specialist:purple"], ["--strategies", "specialist:purple", "department"]),
    ("strategy-with-colon", ["play", "--strategies", "my:bot"], ["--strategies", "my:bot", "unknown strategy 'my'"]),
    ("strategy-trailing-colon", ["play", "--strategies", "greedy:"], ["--strategies", "greedy:", "focus"]),
    ("strategy-unknown", ["play", "--strategies", "nobody"], ["--strategies", "nobody"]),
    ("strategies-count", ["play", "--players", 3, "--strategies", "greedy,random"], ["--strategies", "3 players"]),
    ("instrument-unknown", ["play", "--instruments", "Violin,Piano,Tuba"], ["--instruments", "Tuba"]),
    ("instruments-two", ["play", "--instruments", "Violin,Piano"], ["--instruments", "one per department"]),
    ("instruments-same-department", ["play", "--instruments", "Violin,Bass,Horns"], ["--instruments", "black"]),
    ("players-5", ["play", "--players", 5], ["--players", "5"]),
    ("seed-negative", ["play", "--seed", -1], ["--seed", "-1"]),
    ("seed-huge", ["play", "--seed", 2**64], ["--seed"]),
    ("bench-games-0", ["bench", "--games", 0, "--quick"], ["--games", "0"]),
    ("bench-games-negative", ["bench", "--games", -5, "--quick"], ["--games", "-5"]),
    ("bench-ratio", ["bench", "--compare", "x.json", "--ratio", 2], ["--ratio"]),
    ("draw-unknown-suffix", ["instruments", "draw", "Piano", "-o", "p.gif"], ["-o", "p.gif", ".png"]),
    ("show-unknown", ["instruments", "show", "Tuba"], ["Tuba", "unknown instrument"]),
    ("strategies-show-purple", ["strategies", "show", "specialist:purple"], ["NAME", "specialist:purple"]),
    ("check-players", ["check", "--players", "2,7"], ["--players", "7"]),
    ("check-games-0", ["check", "--games", 0], ["--games"]),
    ("run-jobs-negative", ["run", "ci", "--jobs", -1], ["--jobs", "-1"]),
    ("run-chunk-size-0", ["run", "ci", "--chunk-size", 0], ["--chunk-size"]),
    ("run-resume-force", ["run", "ci", "--resume", "--force"], ["--resume", "--force"]),
    ("run-unknown-scenario", ["run", "nosuch"], ["nosuch", "not found"]),
    ("run-instrument-dir-missing", ["run", "ci", "--instrument-dir", "x"], ["--instrument-dir", "x", "not found"]),
    ("report-margin", ["report", "results/x", "--margin", 60], ["--margin"]),
    ("report-confidence", ["report", "results/x", "--confidence", 1.5], ["--confidence"]),
    ("instrument-dir-missing", ["play", "--instrument-dir", "no/such/dir"], ["no/such/dir", "not found"]),
    ("strategy-dir-missing", ["play", "--strategy-dir", "no/such/dir"], ["no/such/dir", "not found"]),
    ("board-picture-unwritable", ["boards", "draw", "snow", "-o", "no/such/dir/snow.png"], ["no/such/dir/snow.png", "cannot write"]),
]


@pytest.mark.parametrize("args,fragments", [c[1:] for c in CLI_CASES], ids=[c[0] for c in CLI_CASES])
def test_command_line_mistake(tmp_path, monkeypatch, args, fragments):
    monkeypatch.chdir(tmp_path)
    assert_clean_error(invoke(*args), *fragments)
    assert not (tmp_path / "results").exists()


def test_draw_honours_the_suffix(tmp_path):
    for name, magic in (("p.jpg", b"\xff\xd8"), ("p.png", b"\x89PNG"), ("p.svg", b"<?xml")):
        result = invoke("instruments", "draw", "Piano", "-o", tmp_path / name)
        assert result.exit_code == 0, result.output
        assert (tmp_path / name).read_bytes().startswith(magic)


# =========================================================================== scenarios and --set

# A fixed scenario of this module, so that the shipped ones may change without moving these cases.
MIXED4 = Path(__file__).resolve().parent / "fixtures" / "mixed4.toml"
CI = MIXED4.read_text()

SCENARIO_CASES = [
    ("name-escapes", 'name = "mixed4"', 'name = "../../escape"', ["name", "results folder"]),
    ("name-nested", 'name = "mixed4"', 'name = "a/b/c"', ["name", "results folder"]),
    ("name-dotdot", 'name = "mixed4"', 'name = ".."', ["name"]),
    ("name-empty", 'name = "mixed4"', 'name = ""', ["name", "empty"]),
    ("seed-negative", "seed = 7", "seed = -1", ["seed", "minimum 0"]),
    ("games-zero", "games = 8000", "games = 0", ["games", "minimum 1"]),
    ("players-five", "players = [4]", "players = [5]", ["players[0]", "5 players"]),
    ("wheel-unknown", 'wheel = "shuffled"', 'wheel = "spun"', ["wheel", "spun"]),
    ("max-rounds-zero", 'wheel = "shuffled"', 'wheel = "shuffled"\nmax_rounds = 0', ["max_rounds", "minimum 1"]),
    ("unknown-key", "games = 8000", "games = 8000\ngamez = 3", ["gamez"]),
    ("instrument-unknown", '["Violin", "Piano", "Horns"]', '["Violin", "Piano", "Tuba"]', ["instruments.sets[0][2]", "Tuba"]),
    ("lineup-unknown", '"greedy", "greedy", "random", "random"', '"greedy", "greedy", "random", "nobody"',
     ["lineup.seats[3]", "nobody"]),
    ("lineup-purple", '"greedy", "greedy", "random", "random"', '"greedy", "greedy", "random", "specialist:purple"',
     ["lineup.seats[3]", "purple"]),
    ("lineup-length", '"greedy", "greedy", "random", "random"', '"greedy", "random"', ["lineup.seats", "4 players"]),
    ("instrument-dir-missing", "games = 8000", 'games = 8000\ninstrument_dirs = ["nowhere"]', ["instrument_dirs[0]"]),
    ("override-3e9", "[lineup]", '[overrides]\n"Horns.section.trumpet.score.0.awards" = [3000000000, 6, 2]\n\n[lineup]',
     ["overrides", "awards[0]", "maximum 1000"]),
    ("override-unknown-instrument", "[lineup]", '[overrides]\n"Tuba.instrument.penalty_per_space" = 3\n\n[lineup]',
     ["overrides", "Tuba"]),
]


@pytest.mark.parametrize("old,new,fragments", [c[1:] for c in SCENARIO_CASES], ids=[c[0] for c in SCENARIO_CASES])
def test_scenario_file_mistake(tmp_path, monkeypatch, old, new, fragments):
    monkeypatch.chdir(tmp_path)
    assert old in CI
    f = tmp_path / "my.toml"
    f.write_text(CI.replace(old, new, 1))
    games = [] if "games" in new else ["--games", 8]
    assert_clean_error(invoke("run", f, *games, "--jobs", 1, "-q"), f, *fragments)
    assert not (tmp_path / "results").exists() and not (tmp_path.parent / "escape").exists()


SET_CASES = [
    ("games-zero", "games=0", ["games", "minimum 1"]),
    ("players-seven", "players=[7]", ["players[0]"]),
    ("wheel-unknown", "wheel=spun", ["wheel"]),
    ("name-escapes", "name=../../escape", ["name", "results folder"]),
    ("seed-negative", "seed=-5", ["seed"]),
    ("award-3e9", "overrides.Horns.section.trumpet.score.0.awards=[3000000000,6,2]", ["overrides", "maximum 1000"]),
    ("penalty-5e9", "overrides.Horns.instrument.penalty_per_space=5000000000", ["overrides", "penalty_per_space"]),
    ("override-name", "overrides.Horns.instrument.name=Tuba", ["overrides", "instrument.name"]),
    ("no-equals", "games", ["games", "KEY=VALUE"]),
    ("unknown-key", "gamez=3", ["gamez", "unknown scenario key"]),
    ("lineup-purple", "lineup.mirror=specialist:purple", ["lineup.mirror", "purple"]),
    ("instruments-sub-key", "instruments.sets.x=1", ["instruments.sets.x"]),
]


@pytest.mark.parametrize("item,fragments", [c[1:] for c in SET_CASES], ids=[c[0] for c in SET_CASES])
def test_set_mistake(tmp_path, monkeypatch, item, fragments):
    monkeypatch.chdir(tmp_path)
    games = [] if item.startswith("games") else ["--games", 8]
    assert_clean_error(invoke("run", "ci", *games, "--jobs", 1, "-q", "--set", item), "ci.toml", *fragments)
    assert not (tmp_path / "results").exists()


# =========================================================================== result folders


@pytest.fixture(scope="module")
def good_run(tmp_path_factory):
    """A small finished run of the ci scenario in two chunks."""
    from scenarios.runner import run_scenario

    out = tmp_path_factory.mktemp("good") / "run"
    run_scenario(MIXED4, out, jobs=1, games=8, chunk_size=4, progress=False)
    return out


def _copy(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def _edit_manifest(d, change):
    m = json.loads((d / "manifest.json").read_text())
    change(m)
    (d / "manifest.json").write_text(json.dumps(m))


def _truncate(f):
    f.write_bytes(f.read_bytes()[:300])


def _other_columns(f):
    import pandas as pd

    pd.read_parquet(f).drop(columns=["score"]).to_parquet(f, index=False)


def _other_rows(f):
    import pandas as pd

    df = pd.read_parquet(f)
    df.iloc[:2].to_parquet(f, index=False)


def _float_column(f):
    import pandas as pd

    df = pd.read_parquet(f)
    df["rounds"] = df["rounds"].astype(float)
    df.to_parquet(f, index=False)


RESULT_CASES = [
    # (id, damage(run dir), command (with DIR), fragments (with {dir}))
    ("games-truncated", lambda d: _truncate(d / "games" / "chunk-00000.parquet"), "report",
     ["{dir}/games/chunk-00000.parquet", "Parquet"]),
    ("seats-random-bytes", lambda d: (d / "seats" / "chunk-00001.parquet").write_bytes(bytes(range(256)) * 8), "report",
     ["{dir}/seats/chunk-00001.parquet", "Parquet"]),
    ("games-empty", lambda d: (d / "games" / "chunk-00000.parquet").write_bytes(b""), "report",
     ["{dir}/games/chunk-00000.parquet", "empty"]),
    ("baseline-truncated", lambda d: _truncate(d / "games" / "chunk-00001.parquet"), "baseline",
     ["{dir}/games/chunk-00001.parquet", "Parquet"]),
    ("regress-empty", lambda d: (d / "seats" / "chunk-00000.parquet").write_bytes(b""), "regress",
     ["{dir}/seats/chunk-00000.parquet", "empty"]),
    ("column-missing", lambda d: _other_columns(d / "seats" / "chunk-00000.parquet"), "report",
     ["{dir}/seats/chunk-00000.parquet", "columns", "score"]),
    ("row-count", lambda d: _other_rows(d / "games" / "chunk-00001.parquet"), "report",
     ["{dir}/games/chunk-00001.parquet", "rows", "plan"]),
    ("column-type", lambda d: _float_column(d / "games" / "chunk-00000.parquet"), "baseline",
     ["{dir}/games/chunk-00000.parquet", "rounds", "integers"]),
    ("manifest-no-chunks", lambda d: _edit_manifest(d, lambda m: m.pop("chunks")), "report",
     ["{dir}/manifest.json", "chunks", "missing key"]),
    ("manifest-plan-oops", lambda d: _edit_manifest(d, lambda m: m["chunks"].update(plan="oops")), "report",
     ["{dir}/manifest.json", "chunks.plan", "oops"]),
    ("manifest-plan-row", lambda d: _edit_manifest(d, lambda m: m["chunks"]["plan"].__setitem__(0, [0, 0, "a", 4])),
     "baseline", ["{dir}/manifest.json", "chunks.plan[0]"]),
    ("manifest-chunk-size", lambda d: _edit_manifest(d, lambda m: m["chunks"].update(size="big")), "regress",
     ["{dir}/manifest.json", "chunks.size"]),
    ("manifest-status", lambda d: _edit_manifest(d, lambda m: m.update(status="done")), "report",
     ["{dir}/manifest.json", "status", "done"]),
    ("manifest-format", lambda d: _edit_manifest(d, lambda m: m.update(format_version=99)), "report",
     ["{dir}/manifest.json", "format_version"]),
    ("manifest-cells", lambda d: _edit_manifest(d, lambda m: m["cells"][0].update(players=9)), "report",
     ["{dir}/manifest.json", "cells[0]"]),
    ("manifest-not-json", lambda d: (d / "manifest.json").write_text("{not json"), "report",
     ["{dir}/manifest.json", "unreadable manifest"]),
    ("baseline-unfinished", lambda d: _edit_manifest(d, lambda m: m.update(status="running")), "baseline",
     ["{dir}/manifest.json", "status", "--resume"]),
    ("regress-unfinished", lambda d: _edit_manifest(d, lambda m: m.update(status="running")), "regress",
     ["{dir}/manifest.json", "status", "--resume"]),
    ("report-no-manifest", lambda d: (d / "manifest.json").unlink(), "report", ["{dir}/manifest.json", "no manifest"]),
]


def _command(kind, d, tmp_path):
    if kind == "report":
        return ["report", d, "--out", tmp_path / "rep"]
    if kind == "baseline":
        return ["baseline", d, "-o", tmp_path / "b.json"]
    return ["regress", d, "--baseline", BASELINE, "--summary-md", tmp_path / "s.md"]


@pytest.mark.parametrize("damage,kind,fragments", [c[1:] for c in RESULT_CASES], ids=[c[0] for c in RESULT_CASES])
def test_damaged_result_folder(good_run, tmp_path, damage, kind, fragments):
    d = _copy(good_run, tmp_path / "run")
    damage(d)
    result = invoke(*_command(kind, d, tmp_path))
    assert_clean_error(result, *[f.format(dir=d) for f in fragments])
    assert "allow_partial" not in result.output
    assert not (tmp_path / "b.json").exists() and not (tmp_path / "rep").exists()


def test_missing_result_folder(tmp_path):
    assert_clean_error(invoke("report", tmp_path / "nope"), tmp_path / "nope", "not found")


def test_resume_replays_a_damaged_chunk(good_run, tmp_path):
    """A chunk that cannot be read is reported by name and played again; the tables end up identical."""
    from scenarios.results import load_results
    from scenarios.runner import run_scenario

    d = _copy(good_run, tmp_path / "run")
    _truncate(d / "games" / "chunk-00001.parquet")
    (d / "seats" / "chunk-00000.parquet").write_bytes(b"")
    notices = []
    summary = run_scenario(MIXED4, d, jobs=1, games=8, resume=True, progress=False, announce=notices.append)
    assert summary.games_played == 8 and summary.chunks_skipped == 0
    assert any("chunk-00001.parquet" in n and "chunk 1 again" in n for n in notices), notices
    assert any("chunk-00000.parquet" in n and "chunk 0 again" in n for n in notices), notices
    seats, games, _ = load_results(d)
    seats0, games0, _ = load_results(good_run)
    assert seats.equals(seats0) and games.equals(games0)


def test_force_removes_the_old_report(good_run, tmp_path):
    from scenarios.runner import run_scenario

    d = _copy(good_run, tmp_path / "run")
    (d / "report").mkdir()
    (d / "report" / "report.html").write_text("old")
    run_scenario(MIXED4, d, jobs=1, games=4, chunk_size=4, force=True, progress=False)
    assert not (d / "report").exists()


# =========================================================================== bounds


def test_score_bound_leaves_room_in_int32():
    """With every data number at its bound, no seat's score can reach the kernel's -2**30 start."""
    from simulator.shuffle_swing import board as I

    assert I.score_bound() * 5 < I.SCORE_LIMIT  # five owners' scores summed still fit


def test_a_game_at_the_bounds_keeps_its_invariants(tmp_path):
    """An instrument with every award, points value and penalty at the maximum plays a game whose
    invariants hold (score = sum of its sources) and whose scores stay within the bound."""
    from simulator.shuffle_swing import board as I
    from simulator.shuffle_swing.layout import S_SCORE
    from simulator.shuffle_swing.playout import GameSetup, play_one
    from simulator.shuffle_swing.strategies import StrategyLibrary

    m = I.MAX_POINTS
    text = _tuba(HORNS).replace("awards = [8, 6, 2]", f"awards = [{m}, {m}, {m}]", 1)
    text = text.replace('rule = "rank"\nawards = [8, 6, 2]', f'rule = "per_piece"\npoints = {m}', 1)
    vp = ", ".join(str(m) for _ in range(8))
    text = text.replace(
        "reconstructed = true", f"reconstructed = true\npenalty_per_space = {m}\n\n[track]\nvp = [{vp}]"
    )
    assert f"points = {m}" in text and f"awards = [{m}" in text
    (tmp_path / "tuba.toml").write_text(text)
    lib = StrategyLibrary()
    for n in (2, 3, 4):
        setup = GameSetup(nplayers=n, instruments=("Violin", "Piano", "Tuba"), instrument_dirs=(str(tmp_path),))
        for seed in range(3):
            rec = play_one(setup, lib.matrix(["greedy"] * n), seed)
            assert rec.violation == 0
            assert all(abs(int(rec.state[S_SCORE + p])) <= I.score_bound() for p in range(n))


# =========================================================================== property tests

from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_weird_text = st.sampled_from(["", " ", "Horns", "horns", "a,b", "x:y", "..", "../x", "\x00", "é", "gray", "t1", "rank"])
_values = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.sampled_from([0, 1, 3, 4, 1000, 1001, 2**31 - 1, 2**31, 3_000_000_000, -1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    _weird_text,
    st.lists(st.integers(min_value=-(2**40), max_value=2**40), max_size=6),
    st.lists(_weird_text, max_size=4),
    st.dictionaries(_weird_text, st.integers(-5, 5), max_size=2),
)


def _paths(doc, prefix=()):
    """Every (path, value) in a parsed TOML document; lists and tables included."""
    out = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append((prefix + (k,), v))
            out += _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.append((prefix + (i,), v))
            out += _paths(v, prefix + (i,))
    return out


_near_ints = st.one_of(
    st.integers(-3, 12),
    st.integers(990, 1010),
    st.sampled_from([2**31 - 1, 2**31, 3_000_000_000, 10**6, 10**6 + 1, -(2**31)]),
)


def _like(old, strings, data):
    """A value close to ``old``: another small or boundary integer, a list with one number
    changed, added or removed, another string of the same document."""
    if isinstance(old, bool):
        return data.draw(st.booleans(), label="bool")
    if isinstance(old, int):
        return data.draw(st.one_of(st.integers(old - 2, old + 2), _near_ints), label="int")
    if isinstance(old, str):
        return data.draw(st.sampled_from(strings), label="string")
    if isinstance(old, list) and old and all(isinstance(x, int) and not isinstance(x, bool) for x in old):
        new = list(old)
        how = data.draw(st.sampled_from(["change", "change", "add", "remove"]), label="list edit")
        i = data.draw(st.integers(0, len(new) - 1), label="index")
        if how == "change":
            new[i] = data.draw(st.one_of(st.integers(new[i] - 2, new[i] + 2), _near_ints), label="int")
        elif how == "add":
            new.insert(i, data.draw(_near_ints, label="int"))
        else:
            del new[i]
        return new
    if isinstance(old, list) and old and all(isinstance(x, str) for x in old):
        new = list(old)
        new[data.draw(st.integers(0, len(new) - 1), label="index")] = data.draw(st.sampled_from(strings), label="s")
        return new
    return data.draw(_values, label="value")


def _mutate(doc, data):
    """Change, delete or add one key somewhere in ``doc`` (a deep copy), as hypothesis chooses:
    mostly to a value close to the old one, so that many mutants stay valid and get played."""
    import copy

    doc = copy.deepcopy(doc)
    strings = sorted({v for _, v in _paths(doc) if isinstance(v, str)} | {"", "a,b", "x:y", "..", "\x00"})
    for _ in range(data.draw(st.integers(1, 2), label="mutations")):
        paths = _paths(doc)
        path, _ = paths[data.draw(st.integers(0, len(paths) - 1), label="where")]
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        action = data.draw(st.sampled_from(["set"] * 6 + ["delete", "add"]), label="action")
        if action == "delete":
            del parent[path[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[data.draw(_weird_text, label="new key")] = data.draw(_values, label="new value")
        elif data.draw(st.booleans(), label="close"):
            parent[path[-1]] = _like(parent[path[-1]], strings, data)
        else:
            parent[path[-1]] = data.draw(_values, label="value")
    return doc


@pytest.fixture(scope="module")
def library():
    from simulator.shuffle_swing.library import InstrumentLibrary

    return InstrumentLibrary()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), which=st.sampled_from(["horns", "piano", "organ", "clarinet", "trombone", "harp", "vibes"]))
def test_mutated_instrument_is_valid_or_a_clear_error(library, data, which):
    """A mutated instrument file: a DataError, or an instrument that plays games that keep every
    invariant with scores inside the bound. Never another exception."""
    import tomllib

    from simulator.errors import DataError
    from simulator.shuffle_swing.instruments import instrument_from_doc
    from simulator.shuffle_swing.board import score_bound
    from simulator.shuffle_swing.layout import S_SCORE
    from simulator.shuffle_swing.playout import GameSetup, play_one
    from simulator.shuffle_swing.strategies import StrategyLibrary

    doc = tomllib.loads((INSTRUMENT_DIR / f"{which}.toml").read_text())
    mutated = _mutate(doc, data)
    try:
        inst = instrument_from_doc(mutated, "mutated.toml", library.board)
    except DataError as exc:
        assert exc.file == "mutated.toml" and exc.reason
        event("refused")
        return
    event("valid")
    names = list(("Violin", "Piano", "Horns"))
    names[inst.department] = inst.name

    class One:
        board = library.board

        def get(self, name):
            if str(name).casefold() == inst.name.casefold():
                return inst
            return library.get(name)

    n = data.draw(st.sampled_from([2, 3, 4]), label="players")
    setup = GameSetup(nplayers=n, instruments=tuple(names), library=One(), board=library.board)
    rec = play_one(setup, StrategyLibrary().matrix(["greedy"] * n), data.draw(st.integers(0, 2**32), label="seed"))
    assert rec.violation == 0, f"invariant {rec.violation} violated by a valid instrument"
    assert all(abs(int(rec.state[S_SCORE + p])) <= score_bound() for p in range(n))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), which=st.sampled_from(["ci", "starter", "expansion"]))
def test_mutated_scenario_is_valid_or_a_clear_error(data, which):
    """A mutated scenario document: a DataError naming the scenario, or a scenario whose cells and
    results folder are sound. Never another exception."""
    import tomllib

    from scenarios.spec import SCENARIO_DIR
    from scenarios.load import scenario_from_doc
    from simulator.errors import DataError

    path = SCENARIO_DIR / f"{which}.toml"
    doc = tomllib.loads(path.read_text())
    if data.draw(st.booleans(), label="with overrides"):
        doc["overrides"] = {"Horns.section.trumpet.score.0.awards": [8, 6, 2]}
    mutated = _mutate(doc, data)
    try:
        sc = scenario_from_doc(mutated, path)
    except DataError as exc:
        assert str(path) in exc.file and exc.reason
        event("refused")
        return
    event("valid")
    assert sc.cells and all(c.games >= 1 and c.players in (2, 3, 4) for c in sc.cells)
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", sc.name) and ".." not in sc.name
    for c in sc.cells:
        for name in c.instruments:
            inst = sc.instruments.get(name)
            for terms in inst.section_terms:
                for t in terms:
                    assert all(0 <= a <= 1000 for a in t.awards + t.later)
                    assert all(0 <= p <= 1000 for p in t.params)
    assert not math.isnan(float(sc.seed))


def test_set_instrument_dirs_are_relative_to_the_working_directory(tmp_path, monkeypatch):
    """`--set instrument_dirs=[...]` names folders where the command runs (a shipped scenario's own
    folder is inside the package), and so does `ssb run --instrument-dir`, which adds to them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "tuba.toml").write_text(_tuba(HORNS))
    result = invoke(
        "run", MIXED4, "--games", 4, "--jobs", 1, "-q", "--out", tmp_path / "out2", "--instrument-dir", "mine",
        "--set", 'instruments.sets=[["Violin", "Piano", "Tuba"]]',
    )
    assert result.exit_code == 0, result.output
    assert str(tmp_path / "mine") in (tmp_path / "out2" / "manifest.json").read_text()
    assert_clean_error(invoke("run", MIXED4, "--instrument-dir", "mine", "--set", 'instrument_dirs=["mine"]'),
                       "--instrument-dir", "not both")
    result = invoke(
        "run", MIXED4, "--games", 4, "--jobs", 1, "-q", "--out", tmp_path / "out",
        "--set", 'instrument_dirs=["mine"]', "--set", 'instruments.sets=[["Violin", "Piano", "Tuba"]]',
    )
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "out" / "games").glob("chunk-*.parquet"))) == 1


# =========================================================================== the newer commands
#
# Each case: a mistake a new user made with the commands added since (ssb tune, ssb boards, the
# second game's options, ssb strategies tune/ladder), through the shared harness: exit status 2,
# one error naming the file or option, the key and the reason, nothing written.

from cli_harness import Case, check_case, dead_pid, files_under, live_writer, run_ssb  # noqa: E402

FOREST = (Path(__file__).resolve().parent.parent / "simulator" / "echidna" / "data" / "forest.toml").read_text()

TINY_SCENARIO = """
name = "tiny"
seed = 3
games = 40
players = [2]
[instruments]
sets = [["Violin", "Piano", "Horns"]]
[lineup]
mirror = "greedy"
"""

TINY_TUNE = """
name = "tiny-tune"
scenario = "tiny.toml"
seed = 9
[judges]
search = { mirror = "greedy" }
[search]
max_keys = 1
trials = 3
restarts = 2
rungs = [20, 40]
batch = 2
confirm_games = 60
confirm_max = 2
[[target]]
kind = "rounds"
range = [1, 200]
[space]
"Horns.instrument.penalty_per_space" = { range = [1, 3] }
"""


def _tuning(tmp_path):
    (tmp_path / "tiny.toml").write_text(TINY_SCENARIO)
    (tmp_path / "t.toml").write_text(TINY_TUNE)


def _study(tmp_path, content=None, names=("identity", "keys1-restart0")):
    """A tuning file and a study.db in out/: ``content`` bytes, or an optuna file with ``names``."""
    _tuning(tmp_path)
    (tmp_path / "out").mkdir()
    db = tmp_path / "out" / "study.db"
    if content is not None:
        db.write_bytes(content)
        return
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = optuna.storages.RDBStorage(f"sqlite:///{db}")
    for n in names:
        optuna.create_study(study_name=n, storage=storage)
    storage.engine.dispose()


def _truncated_study(tmp_path):
    _study(tmp_path)
    db = tmp_path / "out" / "study.db"
    db.write_bytes(db.read_bytes()[:5000])


def _foreign_sqlite(tmp_path):
    import sqlite3

    _study(tmp_path, b"")
    db = tmp_path / "out" / "study.db"
    db.unlink()
    with sqlite3.connect(db) as con:
        con.execute("create table recipes (name text)")


def _board(tmp_path, old, new, name="mine"):
    text = FOREST.replace('name = "forest"', f'name = "{name}"', 1)
    assert old in text
    (tmp_path / "b.toml").write_text(text.replace(old, new, 1))


def _manifest(tmp_path, doc):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "manifest.json").write_text(json.dumps(doc))


NEW_CASES = [
    # Tracebacks before: AttributeError, sqlite3/optuna errors, matplotlib StopIteration.
    Case("report-manifest-list", ["report", "run"], ["run/manifest.json", "JSON object"],
         setup=lambda t: _manifest(t, [1, 2])),
    Case("tune-study-truncated", ["tune", "t.toml", "--out", "out", "--resume"], ["out/study.db", "damaged"],
         setup=_truncated_study),
    Case("tune-study-random-bytes", ["tune", "t.toml", "--out", "out", "--resume"],
         ["out/study.db", "not an SQLite database"], setup=lambda t: _study(t, bytes(range(256)) * 40)),
    Case("tune-study-foreign-sqlite", ["tune", "t.toml", "--out", "out", "--resume"],
         ["out/study.db", "not a tuning study"], setup=_foreign_sqlite),
    Case("board-y-nan", ["boards", "draw", "b.toml", "-o", "b.png"], ["b.toml", "space[L0].y", "finite"],
         setup=lambda t: _board(t, "y = 10.00", "y = nan")),
    # Unclear or ignored before.
    Case("tune-study-empty", ["tune", "t.toml", "--out", "out", "--resume"], ["out/study.db", "empty (0 bytes)"],
         setup=lambda t: _study(t, b"")),
    Case("tune-study-renamed", ["tune", "t.toml", "--out", "out", "--resume"],
         ["out/study.db", "keys1-restartX", "renamed"], setup=lambda t: _study(t, names=("identity", "keys1-restartX"))),
    Case("tune-study-not-ssb", ["tune", "t.toml", "--out", "out", "--resume"],
         ["out/study.db", "no study of ssb tune"], setup=lambda t: _study(t, names=("someone-else",))),
    Case("tune-given-a-scenario", ["tune", "tiny.toml"], ["tiny.toml", "is a scenario file", "ssb run"], setup=_tuning),
    Case("tune-resume-nothing", ["tune", "t.toml", "--out", "none", "--resume"], ["none", "no tuning study"],
         setup=_tuning),
    Case("play-board-first-game", ["play", "--board", "snow"], ["--board", "Echidna Shuffle", "--game echidna"]),
    Case("play-variant-first-game", ["play", "--variant", "catch_up"], ["--variant", "Echidna Shuffle"]),
    Case("play-instruments-echidna", ["play", "--game", "echidna", "--instruments", "Bass,Vibes,Drums"],
         ["--instruments", "Shuffle and Swing"]),
    Case("play-instrument-dir-echidna", ["play", "--game", "echidna", "--instrument-dir", "."],
         ["--instrument-dir", "Shuffle and Swing"]),
    Case("check-all-sets-echidna", ["check", "--game", "echidna", "--all-sets"], ["--all-sets", "Shuffle and Swing"]),
    Case("ladder-board-first-game", ["strategies", "ladder", "--board", "snow"], ["--board", "not a board of Shuffle and Swing"]),
    Case("ladder-instruments-echidna", ["strategies", "ladder", "--game", "echidna", "--instruments", "Bass,Vibes,Drums"],
         ["--instruments", "Shuffle and Swing"]),
    Case("report-instrument-margin-echidna", ["report", "run", "--instrument-margin", "objective_points=3"],
         ["--instrument-margin", "Shuffle and Swing", "echidna"],
         setup=lambda t: _manifest(t, {"game": "echidna", "columns": {}})),
    Case("boards-list-first-game", ["boards", "list", "--game", "shuffle-swing"], ["--game", "no boards", "echidna"]),
    Case("strategies-tune-name-comma", ["strategies", "tune", "--name", "a,b"], ["--name", "a,b"]),
    Case("strategies-tune-name-shipped", ["strategies", "tune", "--name", "greedy"], ["--name", "greedy", "already"]),
    Case("ladder-rungs-empty", ["strategies", "ladder", "--rungs", ""], ["--rungs", "at least two"]),
    Case("ladder-rungs-twice", ["strategies", "ladder", "--rungs", "greedy,greedy"], ["--rungs", "twice"]),
    Case("ladder-rungs-one", ["strategies", "ladder", "--rungs", "greedy"], ["--rungs", "at least two"]),
    Case("board-two-spaces-one-place", ["boards", "draw", "b.toml"], ["b.toml", "space[L1]", "same place"],
         setup=lambda t: _board(t, "x = 1.56\ny = 9.88", "x = 0.00\ny = 10.00")),
    Case("board-named-like-shipped", ["boards", "draw", "b.toml"], ["b.toml", "board.name", "shipped board"],
         setup=lambda t: _board(t, 'name = "mine"', 'name = "forest"')),
    Case("tune-jobs-negative", ["tune", "t.toml", "--jobs", -1], ["--jobs", "-1"], setup=_tuning),
    Case("draw-needs-out", ["instruments", "draw", "Piano"], ["--out", "-o piano.png"]),
]


@pytest.mark.parametrize("case", NEW_CASES, ids=[c.id for c in NEW_CASES])
def test_newer_command_mistake(case, tmp_path, monkeypatch):
    check_case(case, tmp_path, monkeypatch)


def test_a_shipped_scenario_is_found_past_a_folder_of_its_name(tmp_path, monkeypatch):
    """A results folder named like a shipped scenario (``--out echidna-seats``) does not hide it:
    a bare name is the scenario, a path is the folder (and refused as such)."""
    from scenarios.spec import SCENARIO_DIR, find_scenario

    monkeypatch.chdir(tmp_path)
    (tmp_path / "echidna-seats").mkdir()
    assert find_scenario("echidna-seats") == SCENARIO_DIR / "echidna-seats.toml"
    assert_clean_error(invoke("run", "./echidna-seats/"), "echidna-seats", "is a directory")


def test_validate_agrees_with_the_library_on_a_replacing_copy(tmp_path):
    """A copy of a shipped instrument marked ``replaces = true`` is what ``ssb run`` plays: validate
    says OK; the same copy without the mark is refused by both, with the hint."""
    from simulator.shuffle_swing.library import InstrumentLibrary

    (tmp_path / "mine").mkdir()
    copy = HORNS.replace("reconstructed = true", "reconstructed = true\nreplaces = true", 1)
    assert copy != HORNS
    (tmp_path / "mine" / "horns.toml").write_text(copy)
    result = invoke("instruments", "validate", tmp_path / "mine")
    assert result.exit_code == 0, result.output
    assert "OK" in result.output
    InstrumentLibrary(extra_dirs=(str(tmp_path / "mine"),))  # and the library loads it
    (tmp_path / "mine" / "horns.toml").write_text(HORNS)
    assert_clean_error(invoke("instruments", "validate", tmp_path / "mine"), "instrument.name", "replaces = true")


def test_option_spellings_are_one_convention():
    """-o/--out, -j/--jobs, -q/--quiet wherever the option exists, every --seed defaults to 1; the
    earlier spellings (--output) are hidden aliases that still work."""
    import click

    from ssb.cli import cli

    def walk(cmd, path=()):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, path + (name,))

    seen = 0
    for path, cmd in walk(cli):
        for p in cmd.params:
            if not isinstance(p, click.Option) or p.hidden:
                continue
            where = f"ssb {' '.join(path)} {p.opts}"
            if "--jobs" in p.opts:
                assert "-j" in p.opts, where
            if "--quiet" in p.opts:
                assert "-q" in p.opts, where
            if "--out" in p.opts:
                assert "-o" in p.opts, where
            assert "--output" not in p.opts, where
            if "-o" in p.opts:
                assert "--out" in p.opts, where
            if "--seed" in p.opts and p.default is not None:
                assert p.default == 1, where
                seen += 1
    assert seen >= 4


def test_the_old_output_spelling_still_writes(tmp_path):
    result = invoke("instruments", "draw", "Piano", "--output", tmp_path / "p.png")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "p.png").read_bytes().startswith(b"\x89PNG")


def test_a_rate_interval_stays_within_0_and_100_percent():
    """Tiny deal counts gave [-292.7%, 342.7%]: the interval is kept within what a rate can be."""
    import numpy as np

    from strategies.tune import deal_interval

    m, lo, hi = deal_interval(np.array([0, 4]), 4)
    assert 0.0 <= lo <= m <= hi <= 1.0
    d, dlo, dhi = deal_interval(np.array([-4, 4, 3]), 4, bounds=(-1.0, 1.0))
    assert -1.0 <= dlo <= d <= dhi <= 1.0


def test_the_compile_notice_quotes_the_load_and_shows_the_elapsed_seconds(tmp_path, monkeypatch, capsys):
    import time as _time

    import simulator.warmup as warmup

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # this machine's records left out (a fresh one)
    monkeypatch.setattr(warmup, "kernel_cached", lambda entry="play_batch": False)
    monkeypatch.setattr(warmup, "compile_state", lambda entry="play_batch": "cold")  # as in a fresh process
    said = []
    with warmup.compile_watch("play_batch", "the rules kernel", echo=said.append):
        _time.sleep(0.05)
    assert said[0].startswith("compiling the rules kernel, first run only: about 60 s on a quiet 2-core machine")
    assert said[-1].startswith("compiled the rules kernel in ")
    doc = json.loads(warmup._record_path("play_batch", "cold").read_text())
    assert doc["seconds"] >= 0.0 and "load" in doc and "cpu_seconds" in doc and doc["state"] == "cold"
    with warmup.compile_watch("play_batch", "the rules kernel", echo=said.append):
        pass
    assert "last measured here at load" in said[2]


# --------------------------------------------------------------------------- one writer per folder


def test_every_writing_command_refuses_a_live_writer(good_run, tmp_path, monkeypatch):
    """A live process holding a folder's lock: ssb run, tune, report, baseline and strategies tune
    into that folder are refused with its pid, and write nothing."""
    monkeypatch.chdir(tmp_path)
    _tuning(tmp_path)
    busy = tmp_path / "busy"
    busy.mkdir()
    commands = [
        ["run", MIXED4, "--games", 4, "--jobs", 1, "-q", "--out", busy],
        ["tune", "t.toml", "--out", busy, "--jobs", 1, "-q"],
        ["report", good_run, "--out", busy],
        ["baseline", good_run, "-o", busy / "b.json"],
        ["strategies", "tune", "--deals", 2, "--generations", 1, "--runs", 1, "-o", busy / "mine.toml"],
    ]
    with live_writer(busy) as pid:
        for args in commands:
            assert_clean_error(invoke(*args), busy / ".lock", f"pid {pid}", "another ssb command")
            assert files_under(busy) == [".lock"], args


def test_a_stale_lock_is_taken_over(good_run, tmp_path):
    """The lock file of a process that died (kill -9) does not block the next writer, which says so."""
    out = tmp_path / "rep"
    out.mkdir()
    pid = dead_pid()
    (out / ".lock").write_text(f"{pid} ssb report (since earlier)\n")
    result = invoke("report", good_run, "--out", out)
    assert result.exit_code == 0, result.output
    assert f"stale lock of pid {pid}" in result.output
    assert (out / "report.html").is_file()
    assert (out / ".lock").read_text() == ""  # released


@pytest.mark.slow
def test_two_live_tunes_on_one_folder(tmp_path):
    """Two real ``ssb tune --resume`` processes on one study: the second is refused while the first runs."""
    import subprocess
    import sys
    import time as _time

    _tuning(tmp_path)
    first = run_ssb("tune", "t.toml", "--out", "out", "--jobs", 1, "-q", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    proc = subprocess.Popen([str(Path(sys.executable).parent / "ssb"), "tune", "t.toml", "--out", "out", "--jobs", "1",
                             "-q", "--force"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = _time.time() + 60
        while (tmp_path / "out" / ".lock").read_text().strip() == "" and _time.time() < deadline:
            _time.sleep(0.05)
        second = run_ssb("tune", "t.toml", "--out", "out", "--jobs", 1, "-q", "--resume", cwd=tmp_path)
        assert_clean_error(second, "out/.lock", f"pid {proc.pid}")
    finally:
        proc.communicate(timeout=300)
    assert proc.returncode == 0


# --------------------------------------------------------------------------- a full disk


@pytest.fixture
def tiny_disk(tmp_path):
    """A 256 KiB tmpfs (root only; skipped where mounting is not allowed)."""
    import shutil
    import subprocess

    mnt = tmp_path / "disk"
    mnt.mkdir()
    if shutil.which("mount") is None or subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True
    ).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_run_on_a_full_disk_names_the_file(tiny_disk, tmp_path):
    (tiny_disk / "filler").write_bytes(b"\0" * (200 * 1024))
    result = run_ssb("run", MIXED4, "--games", 200, "--chunk-size", 100, "--jobs", 1, "-q", "--out", tiny_disk / "r",
                     cwd=tmp_path)
    assert_clean_error(result, str(tiny_disk / "r"), "No space left on device")
    assert "Traceback" not in result.stderr and "Warning" not in result.stderr


def test_tune_on_a_full_disk_names_the_study(tiny_disk, tmp_path):
    _tuning(tmp_path)
    (tiny_disk / "filler").write_bytes(b"\0" * (200 * 1024))
    result = run_ssb("tune", "t.toml", "--out", tiny_disk / "t", "--jobs", 1, "-q", cwd=tmp_path)
    assert_clean_error(result, str(tiny_disk / "t"))
    assert "disk is full" in result.stderr or "No space left" in result.stderr


def test_a_board_on_which_every_game_stalls_is_warned_of(tmp_path):
    """A chain of 40 spaces with arrows both ways: the loader accepts it (every space reachable),
    every game stalls; ssb play says so before playing, naming the file (and plays as asked)."""
    lines = ['[board]', 'name = "chain"', '']
    for i in range(40):
        to = [f'"C{j}"' for j in (i - 1, i + 1) if 0 <= j < 40]
        lines += ['[[space]]', f'id = "C{i}"', f'x = {float(i)}', 'y = 0.0', f'to = [{", ".join(to)}]', '']
    board = tmp_path / "chain.toml"
    board.write_text("\n".join(lines))
    result = invoke("play", "--game", "echidna", "--board", board, "--players", 2, "--seed", 1)
    assert result.exit_code == 0, result.output
    assert f"warning: {board}: 16 of 16 greedy games and 16 of 16 random games on this board stalled" in result.output
    # A shipped board is not probed (and is not warned of).
    result = invoke("play", "--game", "echidna", "--board", "snow", "--players", 2, "--seed", 1)
    assert result.exit_code == 0 and "warning" not in result.output
