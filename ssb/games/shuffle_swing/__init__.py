"""Shuffle and Swing's own commands: ``instruments``, ``bench``."""
