"""Where a result comes from: the package version, a hash of the rules kernel that decided its games,
and the hashes of the data files it read."""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path

PACKAGE = "shuffle-swing-balance"


def sha256_file(path):
    """SHA-256 of a file's bytes (the run manifest, every game's data files and ``ssb tune``)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sources_digest(files):
    """SHA-256 over source files, each file's name then its bytes, in the order given."""
    h = hashlib.sha256()
    for f in files:
        h.update(Path(f).name.encode())
        h.update(Path(f).read_bytes())
    return h.hexdigest()


def package_version():
    """The lab's version as installed (pyproject.toml's ``version``; "unknown" when not installed)."""
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "unknown"


def code_version(game=None):
    """Package version and a hash of the game's kernel sources (the code that decides every game).

    ``game``: a registered game, or its name (``None``: the default game)."""
    from simulator import games as registry

    if game is None or isinstance(game, str):
        game = registry.get(game)
    version = package_version()
    files = [Path(f) for f in game.kernel_sources()]
    return {
        "package": PACKAGE,
        "version": version,
        "kernel_sha256": sources_digest(files),
        "kernel_files": [f"{f.parent.name}/{f.name}" for f in files],
    }
