"""Errors raised for bad component data."""


class DataError(Exception):
    """A data file (board, instrument, ...) is missing, malformed or inconsistent.

    ``file`` is the path of the offending file (or a short description of the source),
    ``key`` the dotted key path inside it (``space[3].colour``, ``section[trumpet].score[0].awards``;
    empty when the whole file is concerned) and ``reason`` a human-readable explanation.
    ``str(error)`` reads ``"FILE: KEY: reason"``.
    """

    def __init__(self, file, key, reason):
        super().__init__(file, key, reason)
        self.file = str(file)
        self.key = str(key)
        self.reason = str(reason)

    def __str__(self):
        if self.key:
            return f"{self.file}: {self.key}: {self.reason}"
        return f"{self.file}: {self.reason}"
