"""Fuzz target: a GNU Backgammon / Jellyfish ``.mat`` file (``MatchRecord.from_mat``).

Text that reads is replayed through the referee; what gammon then writes must read back
to the same text (a record written by gammon reads back identical).
"""

from __future__ import annotations

import _harness

from gammon.record import MatchRecord


def fuzz_one_input(data: bytes) -> None:
    record = MatchRecord.from_mat(_harness.text(data))
    written = record.mat()
    again = MatchRecord.from_mat(written).mat()
    if again != written:
        raise _harness.violation(f"a .mat written by gammon reads back different:\n{written}\n---\n{again}")


if __name__ == "__main__":
    _harness.main(__file__)
