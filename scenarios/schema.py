"""The columns of the result tables a run writes and the reports read: one schema for every game.

A run directory holds ``seats/`` (one row per game and seat) and ``games/`` (one row per game) as
Parquet chunk files, plus ``manifest.json``, which records the game and these columns. Every game's
tables start with the same cell columns, the cell's setting columns being the game's own
(``Game.setting_columns``: Shuffle and Swing's instruments, Echidna Shuffle's board and variant)::

    cell, cell_key, players, <setting columns>, lineup, deal, rotation, game, seed

then the seats table has ``seat`` and ``strategy`` and the game's ``seat_columns``; the games table
the game's ``game_columns`` and ``winner_strategy``. Text columns: ``cell_key``, the setting
columns, ``lineup``, ``strategy``, ``winner_strategy``; every other column is an integer.
``reports`` relies on these names only; it never imports a kernel. Bump ``FORMAT_VERSION`` whenever
a column changes meaning.

* ``cell``: index of the cell in the scenario's expansion order; ``cell_key``: the text naming it
  (``players=4|black=Violin|orange=Piano|gray=Horns|lineup=greedy,random,...``);
* ``lineup``: the lineup before rotation, comma-separated; ``deal``: index of the deal (setup seed)
  within the cell; ``rotation``: cyclic shift of the lineup over the seats (paired design);
  ``game``: game index within the cell (deal * rotations + rotation); ``seed``: the game's seed
  (uint64 as int64, the same for every rotation of a deal).

A manifest written before the game and its columns were recorded (result format 1 of Shuffle and
Swing) reads as the default game's.
"""

from simulator import games as registry

FORMAT_VERSION = 1


def cell_columns(game):
    """The cell columns of a game's tables (its setting columns after ``players``)."""
    return ("cell", "cell_key", "players", *game.setting_columns, "lineup", "deal", "rotation", "game", "seed")


def string_columns(game):
    """The text columns of a game's tables."""
    return ("cell_key", *game.setting_columns, "lineup", "strategy", "winner_strategy")


def seat_columns(game):
    return cell_columns(game) + ("seat", "strategy") + tuple(game.seat_columns)


def game_columns(game):
    own = tuple(game.game_columns)
    return cell_columns(game) + own + (() if "winner_strategy" in own else ("winner_strategy",))


def result_columns(game):
    """What a manifest records of a game's tables: ``seats``, ``games``, ``score_sources``, ``strings``."""
    return {
        "seats": list(seat_columns(game)),
        "games": list(game_columns(game)),
        "score_sources": list(game.score_sources),
        "strings": list(string_columns(game)),
    }


# The default game's columns (Shuffle and Swing), which its reports and old result folders use.
_DEFAULT = registry.get(registry.DEFAULT_GAME)
CELL_COLUMNS = cell_columns(_DEFAULT)
SEAT_COLUMNS = seat_columns(_DEFAULT)
GAME_COLUMNS = game_columns(_DEFAULT)
STRING_COLUMNS = frozenset(string_columns(_DEFAULT))

assert len(set(SEAT_COLUMNS)) == len(SEAT_COLUMNS), "duplicate seat column names"
assert len(set(GAME_COLUMNS)) == len(GAME_COLUMNS), "duplicate game column names"
