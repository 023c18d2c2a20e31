"""Test-session set-up: a private cache folder, so tests never touch the user's tables."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

_CACHE = Path(tempfile.mkdtemp(prefix="gammon-test-cache-"))
os.environ["GAMMON_CACHE_DIR"] = str(_CACHE)


@pytest.fixture(scope="session", autouse=True)
def _private_cache() -> Iterator[None]:
    yield
    shutil.rmtree(_CACHE, ignore_errors=True)


@pytest.fixture(scope="session")
def bearoff_cache() -> Path:
    """The default bear-off tables, built once per session into the private cache."""
    from gammon.bearoff import defaults

    os.environ[defaults.CACHE_ENV] = str(_CACHE)
    defaults.onesided()
    defaults.twosided()
    return _CACHE / "bearoff"
