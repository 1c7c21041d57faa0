"""Golden playthroughs: three fixed games narrated by ``ssb play`` and compared with tests/golden/*.txt.

Any change to the rules, the strategies or the narration shows up here as a readable diff. When the
change is intended, regenerate the files and review them like code::

    SSB_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_golden.py
"""

import difflib
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from ssb.cli import cli

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("SSB_UPDATE_GOLDEN") == "1"
MAX_DIFF_LINES = 150

GAMES = {
    "play_4p_greedy_seed7": ["play", "--players", "4", "--strategies", "greedy", "--seed", "7"],
    "play_3p_random_seed11": ["play", "--players", "3", "--strategies", "random", "--seed", "11"],
    "play_2p_greedy_random_seed5": ["play", "--players", "2", "--strategies", "greedy,random", "--seed", "5"],
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough(name):
    result = CliRunner().invoke(cli, GAMES[name])
    assert result.exit_code == 0, result.output
    actual = result.stdout
    path = GOLDEN_DIR / f"{name}.txt"
    if UPDATE:
        GOLDEN_DIR.mkdir(exist_ok=True)
        path.write_text(actual)
        return
    assert path.exists(), f"{path} is missing; create it with SSB_UPDATE_GOLDEN=1"
    expected = path.read_text()
    if actual != expected:
        diff = list(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"golden/{name}.txt",
                tofile=f"ssb {' '.join(GAMES[name])}",
                n=2,
            )
        )
        shown = "".join(diff[:MAX_DIFF_LINES])
        more = f"\n... {len(diff) - MAX_DIFF_LINES} more diff lines" if len(diff) > MAX_DIFF_LINES else ""
        pytest.fail(
            f"the narrated game differs from golden/{name}.txt; if the change is intended, rerun with "
            f"SSB_UPDATE_GOLDEN=1 and review the new file.\n{shown}{more}",
            pytrace=False,
        )
