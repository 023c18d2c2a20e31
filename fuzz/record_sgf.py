"""Fuzz target: a backgammon SGF file as GNU Backgammon writes it (``MatchRecord.from_sgf``).

Text that reads is replayed through the referee; what gammon then writes must read back
to the same text.
"""

from __future__ import annotations

import _harness

from gammon.record import MatchRecord


def fuzz_one_input(data: bytes) -> None:
    record = MatchRecord.from_sgf(_harness.text(data))
    written = record.sgf()
    again = MatchRecord.from_sgf(written).sgf()
    if again != written:
        raise _harness.violation(f"an SGF written by gammon reads back different:\n{written[:2000]}")


if __name__ == "__main__":
    _harness.main(__file__)
