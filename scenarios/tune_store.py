"""The study file of ``ssb tune`` (``DIR/study.db``): what is checked before it is resumed, and the
database errors turned into user errors.

A study to resume must be an SQLite file holding optuna's tables, the identity study of ``ssb
tune`` and only the studies this tuning file makes (``keys<k>-restart<r>``). Anything else (a
zero-byte file, random bytes, a truncated or damaged database, another program's SQLite file, a
study renamed or made by another tuning file) is refused with what is on disk and what to do,
instead of a traceback or a silent new start.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from simulator.errors import DataError

SQLITE_MAGIC = b"SQLite format 3\x00"
OPTUNA_TABLES = ("studies", "trials", "version_info")
START_OVER = "start over with --force (or choose another --out)"


class StudyFileError(DataError):
    """The study file cannot be resumed (or written)."""


def check_study_file(db, expected_studies, identity_study):
    """Refuse a ``study.db`` that is not a resumable study of this tuning file (StudyFileError)."""
    db = Path(db)
    size = db.stat().st_size
    if size == 0:
        raise StudyFileError(db, "", f"is empty (0 bytes): no study was ever written to it; {START_OVER}")
    with open(db, "rb") as fh:
        head = fh.read(len(SQLITE_MAGIC))
    if head != SQLITE_MAGIC:
        raise StudyFileError(db, "", f"is not an SQLite database ({size:,} bytes of something else); {START_OVER}")
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StudyFileError(db, "", f"cannot be opened ({exc}); {START_OVER}") from None
    try:
        with contextlib.closing(con):
            ok = con.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                raise StudyFileError(db, "", f"is damaged ({ok}); {START_OVER}")
            tables = {r[0] for r in con.execute("select name from sqlite_master where type = 'table'")}
            missing = [t for t in OPTUNA_TABLES if t not in tables]
            if missing:
                raise StudyFileError(
                    db, "", f"is an SQLite database but not a tuning study (no table {', '.join(missing)}); {START_OVER}"
                )
            names = [r[0] for r in con.execute("select study_name from studies order by study_id")]
    except sqlite3.DatabaseError as exc:
        raise StudyFileError(db, "", f"is damaged ({exc}); {START_OVER}") from None
    if identity_study not in names:
        raise StudyFileError(
            db, "", f"holds no study of ssb tune (its studies: {', '.join(names) or 'none'}); {START_OVER}"
        )
    foreign = [n for n in names if n != identity_study and n not in expected_studies]
    if foreign:
        raise StudyFileError(
            db,
            "",
            f"holds studies this tuning file does not make ({', '.join(foreign)}; it makes "
            f"{', '.join(expected_studies)}): it was renamed or written by other settings; {START_OVER}",
        )


def storage_error(db, exc):
    """A StudyFileError for a database error met while the study is read or written."""
    text = str(getattr(exc, "orig", None) or exc).splitlines()[0]
    if "disk is full" in text or "No space left" in text:
        return StudyFileError(db, "", f"the disk is full ({text}): free some space, then continue with --resume")
    if "malformed" in text or "not a database" in text:
        return StudyFileError(db, "", f"is damaged ({text}); {START_OVER}")
    return StudyFileError(db, "", f"database error: {text}")


def is_storage_error(exc):
    """Whether ``exc`` comes from the study's database (sqlite3, SQLAlchemy or optuna's storage)."""
    if isinstance(exc, sqlite3.Error):
        return True
    mod = type(exc).__module__
    return mod.startswith("sqlalchemy") or (mod.startswith("optuna") and "Storage" in type(exc).__name__)
