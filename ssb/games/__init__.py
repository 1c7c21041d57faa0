"""Each game's own part of the command line, in a module named for the game (``ssb/games/<game>``)."""
