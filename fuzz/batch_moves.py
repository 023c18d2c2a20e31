"""Fuzz target: ``gammon moves --batch`` fed arbitrary bytes (lines ``POSITIONID D1 D2`` or JSON objects)."""

from __future__ import annotations

import _batch
import _harness


def fuzz_one_input(data: bytes) -> None:
    _batch.run(["moves", "--batch"], data)


if __name__ == "__main__":
    _harness.main(__file__)
