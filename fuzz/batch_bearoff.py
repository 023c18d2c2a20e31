"""Fuzz target: ``gammon bearoff query --batch`` fed arbitrary bytes (lines of 6 or 12 checker counts)."""

from __future__ import annotations

import _batch
import _harness


def fuzz_one_input(data: bytes) -> None:
    for answer in _batch.run(["bearoff", "query", "--batch"], data):
        if "error" in answer:
            continue
        counts = answer.get("counts", [])
        if len(counts) == 12 and not any(counts):
            raise _harness.violation(f"a race with no checker on either side is answered: {answer}")
        if not 0.0 <= answer.get("p_win", 0.0) <= 1.0 or not 0.0 <= answer.get("mean_rolls", 0.0) <= 64.0:
            raise _harness.violation(f"an answer out of range: {answer}")


if __name__ == "__main__":
    _harness.main(__file__)
