"""Fuzz target: ``gammon cube --batch`` fed arbitrary bytes (one position per line), with pubeval at 0 ply."""

from __future__ import annotations

import _batch
import _harness


def fuzz_one_input(data: bytes) -> None:
    _batch.run(["cube", "--batch", "--player", "pubeval:0"], data)


if __name__ == "__main__":
    _harness.main(__file__)
