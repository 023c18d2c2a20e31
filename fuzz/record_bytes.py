"""Fuzz target: any file's bytes as a match record (``MatchRecord.from_bytes``): the format known by
its content (XG's header, SGF, the ``.mat`` dialects), text in UTF-8 or else Windows-1252, any
match of several in one file.

Whatever reads has a history the referee replays, and every warning names where it stands.
"""

from __future__ import annotations

import _harness

from gammon.record import MatchRecord


def fuzz_one_input(data: bytes) -> None:
    record = MatchRecord.from_bytes(data, "fuzzed")
    record.to_match()
    for warning in record.warnings:
        if not warning.message:
            raise _harness.violation(f"a warning says nothing: {warning!r}")


if __name__ == "__main__":
    _harness.main(__file__)
