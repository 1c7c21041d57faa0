"""What was played, said up front: the lineups, each bot and its rung on the skill ladder, and the
caveats a designer needs before reading a figure (reconstructed layouts, seats counted from 1).

The strategy descriptions are read from the profile files (``simulator/shuffle_swing/data/strategies/*.toml``), as data;
nothing here imports the kernel.
"""

from __future__ import annotations

import tomllib
from simulator.shuffle_swing.strategies import PROFILE_DIR

# The skill ladder, weakest first: where each kind of player stands.
LADDER = {
    "random": "bottom rung: random legal moves",
    "greedy": "middle rung: a one-step heuristic (greedy is the reference rung)",
    "lookahead": "top rung: looks ahead with greedy rollouts",
    "search": "top rung: searches ahead",
}


def _profile(name):
    base = name.split(":")[0].strip()
    path = PROFILE_DIR / f"{base}.toml"
    if not path.is_file():
        return None, None
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None, None
    strat = doc.get("strategy", doc)
    return strat.get("kind"), strat.get("description")


def bot_lines(names):
    """One line per strategy: what it does and its rung on the skill ladder."""
    out = []
    for name in names:
        kind, desc = _profile(name)
        rung = LADDER.get(kind or "", "rung unknown (a strategy from another folder)")
        what = f"{desc.rstrip('.')}; " if desc else ""
        out.append(f"{name}: {what}{rung}.")
    return out


def lineup_text(lineup):
    names = [x.strip() for x in str(lineup).split(",")]
    if len(set(names)) == 1:
        return f"{names[0]} in all {len(names)} seats"
    return ", ".join(f"seat {i + 1} {n}" for i, n in enumerate(names)) + " (every seat rotation played)"


def about_lines(games):
    """The lines shown above the headline (see the module doc)."""
    lines = []
    by_players = games.groupby("players")["lineup"].unique()
    for players, lineups in by_players.items():
        text = "; ".join(lineup_text(x) for x in lineups)
        extra = " Pri, the automa, plays too." if int(players) == 2 else (
            " Neutral pieces stand on every instrument." if int(players) == 3 else "")
        lines.append(f"{players} players: {text}.{extra}")
    names = sorted({x.strip() for lu in games["lineup"].astype(str).unique() for x in lu.split(",")})
    lines += ["Bots: " + " ".join(bot_lines(names))]
    lines.append(
        "Seats are numbered in turn order from 1: seat 1 is the first player. The instrument layouts are "
        "reconstructions (the printed boards are not public), so every figure describes the reconstructed "
        "instruments. Intervals count deals (setup seeds), not games, as the independent unit."
    )
    return lines
