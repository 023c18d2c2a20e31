"""The default bear-off tables, built once per test session into a temporary cache."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from gammon.bearoff import defaults

_STATE: dict[str, Path] = {}


@pytest.fixture(scope="session")
def bearoff_cache() -> Path:
    """A temporary GAMMON_CACHE_DIR holding the default tables, built on first use."""
    if "dir" not in _STATE:
        folder = Path(tempfile.mkdtemp(prefix="gammon-bearoff-"))
        os.environ[defaults.CACHE_ENV] = str(folder)
        defaults.clear_loaded()
        defaults.onesided()
        defaults.twosided()
        _STATE["dir"] = folder
    os.environ[defaults.CACHE_ENV] = str(_STATE["dir"])
    return _STATE["dir"] / "bearoff"
