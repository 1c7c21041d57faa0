"""Packaging from the games: a wheel built from the sources holds every shipped game's data (boards,
rule numbers, instruments, strategy profiles, scenarios), and installed into a fresh virtual
environment outside the checkout (``--no-deps``; the dependencies come from this environment's site
packages) it plays a game of each shipped game and soaks it with every invariant checked.

The installed copy runs interpreted (``NUMBA_DISABLE_JIT=1``): the games are the same, without a
cold compile of each kernel in the new place. The first game's golden playthrough must come out
identical."""

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from simulator import games as registry

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("stats", "simulator", "strategies", "scenarios", "reports", "ssb")
GOLDEN = ROOT / "tests" / "golden" / "play_2p_greedy_random_seed5.txt"


def _run(args, cwd, env=None, timeout=600):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, args))}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for pkg in PACKAGES:  # a clean copy: no build folders or caches land in the checkout
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(src)], tmp)
    wheel = next((tmp / "dist").glob("*.whl"))
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)], tmp)
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp).strip()
    # The dependencies (numpy, numba, pandas, ...) from this environment, after the installed package.
    Path(site, "_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    away = tmp / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", registry.EXTRA_GAMES_ENV)}
    env["NUMBA_DISABLE_JIT"] = "1"
    return {"wheel": wheel, "bin": venv / "bin", "site": Path(site), "cwd": away, "env": env}


def test_the_wheel_holds_every_games_data(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    shipped = []
    for module in registry.GAME_MODULES:  # every shipped game's own data folder
        data = ROOT.joinpath(*module.split(".")[:-1]) / "data"
        files = sorted(data.rglob("*.toml"))
        assert len(files) >= 3 and any("strategies" in f.parts for f in files), module
        shipped += files
    missing = sorted(str(p.relative_to(ROOT)) for p in shipped if p.relative_to(ROOT).as_posix() not in names)
    assert missing == []
    scenarios = [p.relative_to(ROOT).as_posix() for p in (ROOT / "scenarios").rglob("*.toml")]
    assert [s for s in scenarios if s not in names] == []


def test_the_installed_copy_plays_each_game(installed):
    probe = _run([str(installed["bin"] / "python"), "-c", "import simulator, ssb; print(simulator.__file__)"],
                 installed["cwd"], installed["env"])
    assert probe.strip().startswith(str(installed["site"]))  # not the checkout
    ssb = str(installed["bin"] / "ssb")
    out = _run([ssb, "play", "--players", "2", "--strategies", "greedy,random", "--seed", "5"], installed["cwd"], installed["env"])
    assert out == GOLDEN.read_text()
    for name in registry.names():
        game = registry.get(name)
        n = min(game.player_counts)
        out = _run([ssb, "play", "--game", name, "--players", str(n), "--seed", "3"], installed["cwd"], installed["env"])
        assert len(out.splitlines()) > 5
        out = _run([ssb, "check", "--game", name, "--games", "3", "--players", str(n)], installed["cwd"], installed["env"])
        assert "no violation" in out.splitlines()[-1], out
        out = _run([ssb, "run", game.gate_scenario, "--games", "2", "--out", name, "--quiet"], installed["cwd"], installed["env"])
        assert (installed["cwd"] / name / "manifest.json").is_file()
