"""Balance search (``ssb tune``): the package of the tuning file, its search space, the search and
its answer; what other modules import comes from here."""

from scenarios.tuning.search import *  # noqa: F403
