"""Fuzz target: an eXtreme Gammon ``.xg``/``.xgp`` file (``MatchRecord.from_xg``): its header, its
zlib archive and its 2560-byte records, any byte of them.

What reads is replayed by the referee, XG's analysis kept; gammon's SGF of it must read back to
the same SGF (a record written by gammon reads back identical).
"""

from __future__ import annotations

import _harness

from gammon.record import MatchRecord


def fuzz_one_input(data: bytes) -> None:
    record = MatchRecord.from_xg(data)
    written = record.sgf()
    again = MatchRecord.from_sgf(written).sgf()
    if again != written:
        raise _harness.violation(f"the SGF of an XG record reads back different:\n{written[:2000]}")


if __name__ == "__main__":
    _harness.main(__file__)
