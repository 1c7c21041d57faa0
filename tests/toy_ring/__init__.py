"""Ring Race: a toy third game that lives in the test suite only, to prove that a game is its own
folder plus one registration (see docs/developing/add-a-game.md)."""
