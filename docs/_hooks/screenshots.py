"""The desk's screenshots of the guide, taken again in a clean folder: ``make screenshots``.

The browser test of the desk (``tests/test_desk_browser.py``) saves ``docs/desk-*.png`` when
``SSB_DESK_SHOTS`` names a folder. Here it runs with a fresh home folder in a temporary place, a copy
of this checkout in it (``~/shuffle-swing-balance``, where the desk finds the gate's baseline) and
the desk's folder beside it (``~/balance-lab/desk0``); the desk writes a folder under the home folder
as ``~/...``, so the pictures show no machine path, user name or test folder. The copy compiles the
kernel once (a minute or two). The reports' first screens (``docs/report-*.png``) are taken with the
runs they show: ``make findings RERUN=1``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ("desk-home.png", "desk-error.png", "desk-edit.png", "desk-progress.png", "desk-answer.png", "desk-sample.png",
         "desk-history.png", "desk-compare.png", "desk-tune.png", "desk-tune-plan.png", "desk-tune-progress.png")


def main():
    tmp = Path(tempfile.mkdtemp(prefix="ssb-shots-"))
    home = tmp / "home"
    tree = home / "shuffle-swing-balance"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           stdout=subprocess.PIPE).stdout.decode().split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CACHE_HOME": cache,  # the compile cache and its timing stay where they are
        "SSB_DESK_SHOTS": str(ROOT / "docs"),
        "PYTHONPATH": str(tree),
    }
    env.pop("SSB_DOCS_URL", None)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "", "tests/test_desk_browser.py",
           "--basetemp", str(home / "balance-lab")]
    try:
        code = subprocess.call(cmd, cwd=tree, env=env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if code:
        print(f"error: tests/test_desk_browser.py: exit status {code}: the screenshots may be incomplete", file=sys.stderr)
        return code
    for name in SHOTS:
        print(f"wrote docs/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
