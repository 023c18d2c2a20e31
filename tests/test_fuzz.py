"""The fuzz targets of ``fuzz/`` in CI: each over its seed corpus, then a bounded Hypothesis run.

The Hypothesis run is derandomized (the same inputs every time, no example database), so a
failure here is reproducible; ``python fuzz/run.py TARGET --examples N`` fuzzes for longer
with fresh inputs. See fuzz/README.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"
sys.path.insert(0, str(FUZZ))

import _harness  # noqa: E402

#: Hypothesis inputs per target in CI; the whole file stays well under a minute on one core.
EXAMPLES = 200
#: A hang guard, not a speed check: an input may take this long on a loaded machine.
HANG_GUARD_SECONDS = 120.0
TARGETS = _harness.names()


def test_every_target_has_seeds() -> None:
    assert len(TARGETS) >= 18
    assert all(len(_harness.corpus(name)) >= 5 for name in TARGETS), {n: len(_harness.corpus(n)) for n in TARGETS}


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize("name", TARGETS)
def test_seed_corpus(name: str) -> None:
    failures = _harness.run_corpus(name, HANG_GUARD_SECONDS)
    assert not failures, "\n\n".join(str(f) for f in failures)


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize("name", TARGETS)
def test_fuzz(name: str) -> None:
    # shrinking is for fuzz/run.py
    _harness.run_hypothesis(name, EXAMPLES, derandomize=True, shrink=False, seconds=HANG_GUARD_SECONDS)
