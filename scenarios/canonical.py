"""A small TOML writer for the canonical text of a scenario (the manifest stores it, hashed).

Only what scenario documents hold: strings, integers, floats, booleans, lists and tables. Top-level
values come first, then one ``[table]`` per top-level table; deeper tables are written inline. The
output is deterministic for equal documents, and ``tomllib.loads(to_toml(doc)) == doc``.
"""

import json
import math
import re

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_key(key):
    """A key, quoted when it is not a bare TOML key."""
    key = str(key)
    return key if _BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def toml_value(value):
    """One value in TOML syntax (tables inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        # JSON string escapes are a subset of TOML basic-string escapes.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def to_toml(doc):
    """The document as TOML text: scalars and lists first, then a section per table."""
    lines = []
    for key, value in doc.items():
        if not isinstance(value, dict):
            lines.append(f"{toml_key(key)} = {toml_value(value)}")
    for key, value in doc.items():
        if isinstance(value, dict):
            lines.append("")
            lines.append(f"[{toml_key(key)}]")
            for k, v in value.items():
                lines.append(f"{toml_key(k)} = {toml_value(v)}")
    return "\n".join(lines) + "\n"
