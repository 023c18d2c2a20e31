"""Test-session set-up: a private cache folder, so tests never touch the user's tables; compiled code
shared by every process the session starts; Hypothesis without deadlines; and, under ``CI=true``, a
run that fails on any skipped test."""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from gammon import compiled

# numba's compiled code, in the user's cache as outside the tests (named by the sources it was
# compiled from, so never stale): set for the session before the tables' folder moves, so this
# process and every one it starts (gammon serve, gammon engine, workers, a test's own HOME) load
# what the first compiled, and no test waits on a compile it does not test.
os.environ.setdefault(compiled.NUMBA_ENV, str(compiled.cache_folder()))
_CACHE = Path(tempfile.mkdtemp(prefix="gammon-test-cache-"))
os.environ["GAMMON_CACHE_DIR"] = str(_CACHE)

# An example's time is the machine's business, not the property's: on two busy cores a parse that
# takes 5 ms alone takes 300, and Hypothesis's 200 ms default deadline would fail it. A hang is
# caught by pytest-timeout (pyproject.toml), with its stack.
settings.register_profile("gammon", deadline=None)
settings.load_profile("gammon")

#: Skips CI accepts, by test id: none. On CI's machine every service and program the tests need is
#: there (make test installs gnubg and Chromium; PostgreSQL and Redis run), so a skip there means
#: a test that did not run while the run looked green.
EXPECTED_SKIPS_ON_CI: frozenset[str] = frozenset()

_skipped: list[str] = []


def pytest_sessionstart(session: pytest.Session) -> None:
    """Every kernel compiled before the first test, once and on every core (a later session finds
    them in the cache and loads only what it calls): no test waits on a compile it does not test."""
    for name in compiled.KERNEL_SOURCES:
        importlib.import_module(f"gammon.{name}")
    try:
        compiled.prepare()
    except Exception as error:  # noqa: BLE001 - a kernel that does not compile fails the tests that call it
        print(f"conftest: not every kernel compiled ahead: {error}", file=sys.stderr)


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


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail") and report.nodeid not in EXPECTED_SKIPS_ON_CI:
        _skipped.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Under CI=true, a skipped test fails the run (exit status 1), naming every skipped test."""
    if os.environ.get("CI") == "true" and _skipped and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int) -> None:
    if os.environ.get("CI") == "true" and _skipped:
        terminalreporter.section("skipped under CI=true", sep="=", red=True, bold=True)
        for nodeid in _skipped:
            terminalreporter.line(f"{nodeid}: skipped, and CI expects every test to run")
