"""The ``ssb`` command line (:mod:`ssb.cli`).

Its options list the registered games when the commands are defined, so the registry is loaded on
import. A game that cannot be registered (``SSB_EXTRA_GAMES`` naming a missing module, one without
``GAME``, or a name already taken) is a user's mistake, not a crash: it ends here with
``error: SSB_EXTRA_GAMES=...: MODULE: reason`` and exit status 2, before any command runs.
"""

import sys

from simulator import games as _registry
from simulator.errors import DataError as _DataError

try:
    _registry.names()
except _DataError as _exc:
    print(f"error: {_exc}", file=sys.stderr)
    raise SystemExit(2) from None
