"""The three readings of the R13 tie-break side by side, from runs of the same scenario and seed.

    ssb run starter --set 'players=[3,4]' --set 'lineup.mirror=["greedy","search"]' --out results/r13-latest
    ssb run starter --set 'players=[3,4]' --set 'lineup.mirror=["greedy","search"]' \\
        --set 'overrides.board.rulings.tie_break="shared"' --out results/r13-shared        # and "earliest"
    .venv/bin/python benchmarks/tiebreak_readings.py results/r13-latest results/r13-shared results/r13-earliest

Per cell (player count x judge) it prints each seat's win rate with its 95% interval (deals counted)
under R13 as decided (the first run), the same games read with tied wins shared (1/k to each tied
seat, ``reports.sections.shuffle_swing.why``), and the runs played with the ruling switch ``tie_break`` = "shared" and
"earliest" (the same deals: the override does not change the deal seeds). For greedy, who never
looks at the winner, the switch runs play the very same games; a search player values winning, so
its games may differ.
"""

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reports.io import load_run  # noqa: E402
from reports.seats import seat_advantage  # noqa: E402
from reports.sections.shuffle_swing.why import tiebreak_shares  # noqa: E402


def rates(run_dir):
    run = load_run(run_dir)
    adv = seat_advantage(run.games)
    return run, adv.rates.set_index(["players", "level", "seat"])


def fmt(rate, lo, hi):
    return f"{100 * rate:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    latest_dir, *others = argv
    run, latest = rates(latest_dir)
    shares = tiebreak_shares(run.seats, run.games).set_index(["players", "level", "seat"])
    switched = [(Path(d).name, rates(d)[1]) for d in others]
    for (players, level), part in latest.groupby(level=[0, 1], sort=True):
        n = len(part)
        games = int(part["games"].iloc[0])
        tb = shares.loc[(players, level, 0), "ties_decided"]
        print(f"{players} players, {level} ({games:,} games; the tie-break decides {100 * tb:.1f}%):")
        for seat in range(n):
            r = latest.loc[(players, level, seat)]
            s = shares.loc[(players, level, seat)]
            line = (f"  seat {seat + 1}: as decided {fmt(r['win_rate'], r['win_lo'], r['win_hi'])}; "
                    f"same games, ties shared {fmt(s['shared_rate'], s['shared_lo'], s['shared_hi'])}")
            for name, other in switched:
                if (players, level, seat) in other.index:
                    o = other.loc[(players, level, seat)]
                    line += f"; {name} {fmt(o['win_rate'], o['win_lo'], o['win_hi'])}"
            print(line)


if __name__ == "__main__":
    main()
