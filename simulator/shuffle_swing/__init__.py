"""Shuffle and Swing, the first game: its data, rules kernel, loaders, playout, narration and drawing."""
