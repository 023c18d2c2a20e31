"""Fuzz target: a bear-off table file (``read_table``, ``OneSidedTable``, ``TwoSidedTable``).

The input is the file. Its checksum is set right before the one-sided and two-sided loaders
read it, so the fuzzer gets past the checksum to the header, the section directory and the
sections; ``read_table`` also reads it as it is, checksum and all.
"""

from __future__ import annotations

import hashlib

import _harness

from gammon.bearoff import OneSidedTable, TwoSidedTable, read_table

_HEADER = 44  # the header's fields; the checksum fills the rest of its 64 bytes
_SIZE = 64


def with_checksum(data: bytes) -> bytes:
    """``data`` with the header's SHA-256 (20 bytes) made to match the rest of the file."""
    if len(data) < _SIZE:
        return data
    digest = hashlib.sha256(data[:_HEADER])
    digest.update(data[_SIZE:])
    return data[:_HEADER] + digest.digest()[:20] + data[_SIZE:]


def fuzz_one_input(data: bytes) -> None:
    with _harness.scratch_file(data, ".bearoff") as path:
        try:
            read_table(path)
        except _harness.GammonError:
            pass
    with _harness.scratch_file(with_checksum(data), ".bearoff") as path:
        for loader in (OneSidedTable, TwoSidedTable):
            try:
                table = loader(path)
            except _harness.GammonError:
                continue
            probe(table)


def probe(table: OneSidedTable | TwoSidedTable) -> None:
    """Look up the first and the last position: a loaded table answers for every index it has."""
    if isinstance(table, OneSidedTable):
        for x in (0, table.size - 1):
            table.distribution(x)
            table.mean_rolls(x)
    else:
        for x in (0, table.size - 1):
            table.equities(x, x)


if __name__ == "__main__":
    _harness.main(__file__)
