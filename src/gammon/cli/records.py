"""Match files on the command line: read whatever the file is (``gammon analyse``, ``gammon convert``),
telling on stderr what the reader accommodated, and written as ``.mat`` or SGF."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..record import MatchRecord

#: The formats a record is written in (``gammon convert FILE --to mat|sgf``).
WRITTEN = ("mat", "sgf")
#: File names that are match files whatever their text looks like.
SUFFIXES = (".mat", ".txt", ".sgf", ".xg", ".xgp", ".gam")


def is_record(argument: str) -> bool:
    """Whether a command-line argument names a match file rather than being a position's text."""
    return Path(argument).suffix.lower() in SUFFIXES or Path(argument).is_file()


def read_record(path: str, match: int = 1) -> MatchRecord:
    """The record in ``path`` (its format known by its content), each warning on stderr as
    ``FILE: game 2, line 31: ...`` so a site's habits are seen, not silently changed."""
    from ..record import MatchRecord

    record = MatchRecord.read(path, match=match)
    for warning in record.warnings:
        print(f"{path}: warning: {warning}", file=sys.stderr)
    return record


def write_record(record: MatchRecord, form: str) -> str:
    """The record as ``mat`` or ``sgf`` text."""
    return record.mat() if form == "mat" else record.sgf()
