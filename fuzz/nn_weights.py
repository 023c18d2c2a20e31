"""Fuzz target: an nn weights file (``Network.load``, from bytes and from a file)."""

from __future__ import annotations

import io

import _harness
import numpy as np

from gammon.nn.network import Network



def fuzz_one_input(data: bytes) -> None:
    network = Network.load(io.BytesIO(data))
    with _harness.scratch_file(data, ".npz") as path:
        again = Network.load(path)
    if not all(np.array_equal(a, b) for a, b in zip(network.arrays(), again.arrays())):
        raise _harness.violation("the same bytes load differently from a file")
    boards = np.zeros((1, 26), np.int8)
    boards[0, 6], boards[0, 19] = 2, -2  # a race: two checkers each
    out = network.evaluate(boards)
    if not np.isfinite(out).all():
        raise _harness.violation(f"a loaded net answers {out}")


if __name__ == "__main__":
    _harness.main(__file__)
