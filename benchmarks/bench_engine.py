"""Engine benchmark: games/s and decisions/s per core, JIT speed-up, compile times, greedy quality.

    .venv/bin/python benchmarks/bench_engine.py [--games 2000] [--quick] [--json] [--game NAME]

(``ssb bench`` prints the same figures.) ``--game NAME`` measures another registered game with its
own engine benchmark, ``benchmarks/bench_<its folder>.py`` (Echidna Shuffle: ``bench_echidna.py``,
the other options handed to it); a game without one is refused, naming the file it would need.
"""

import argparse
import json
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def other_game_script(name):
    """The engine benchmark of game ``name`` when it is not the one measured here, else None; a game
    without one ends the process with status 2 and the reason."""
    from simulator import games as registry
    from simulator.errors import DataError

    try:
        game = registry.get(name, "--game", "")
    except DataError as exc:
        sys.exit(f"error: --game: {exc.reason}")
    if game.commands and hasattr(__import__(f"ssb.games.{game.commands}", fromlist=["bench"]), "bench"):
        return None  # the game whose `ssb bench` this file prints
    folder = (registry.module_of(game.name) or "").split(".")[-2:-1]
    script = HERE / f"bench_{folder[0]}.py" if folder else None
    if script is None or not script.is_file():
        sys.exit(f"error: --game: {game.title} has no engine benchmark (benchmarks/bench_<its folder>.py); "
                 "its speed shows in ssb check's games/s")
    return script


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000, help="games per throughput measurement")
    ap.add_argument("--quick", action="store_true", help="small counts, no child-process measurements")
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")
    ap.add_argument("--game", default=None, help="a registered game (default: the first game)")
    args, rest = ap.parse_known_args()
    script = other_game_script(args.game) if args.game else None
    if script is not None:
        sys.argv = [str(script), *(["--json"] if args.json else []), *rest]
        runpy.run_path(str(script), run_name="__main__")
        return
    if rest:
        ap.error(f"unrecognized arguments: {' '.join(rest)}")
    from ssb.games.shuffle_swing.benchmark import format_report, run_all

    fig = run_all(args.games, quick=args.quick)
    print(json.dumps(fig, indent=2) if args.json else format_report(fig))


if __name__ == "__main__":
    main()
