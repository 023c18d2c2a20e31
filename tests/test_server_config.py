"""The server's settings: one typed place, every variable listed in docs/server.md, clear refusals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gammon.server.errors import ServerConfigError
from gammon.server.settings import Limits, Settings, environment_table

DOCS = Path(__file__).resolve().parents[1] / "docs" / "server.md"


def test_every_variable_is_listed_in_the_docs_as_the_code_has_it() -> None:
    assert environment_table() in DOCS.read_text(encoding="utf-8")


@given(st.integers(0, 65535), st.integers(1, 64), st.integers(1, 10_000), st.booleans(),
       st.lists(st.sampled_from(["gnubg:0", "gnubg:1", "ubgi:engine"]), max_size=3, unique=True))
def test_settings_written_to_the_environment_read_back_the_same(port: int, workers: int, logins: int, migrate: bool,
                                                                  bots: list[str]) -> None:
    settings = Settings(port=port, workers=workers, migrate=migrate, external_bots=tuple(bots),
                        limits=Limits(login_per_name=logins))
    assert Settings.from_environment(settings.environment()) == settings


@pytest.mark.parametrize(("variable", "value", "named"), [
    ("GAMMON_PORT", "eighty", "GAMMON_PORT"), ("GAMMON_PORT", "70000", "GAMMON_PORT"),
    ("GAMMON_WORKERS", "0", "GAMMON_WORKERS"), ("GAMMON_MIGRATE", "perhaps", "GAMMON_MIGRATE"),
    ("GAMMON_LIMIT_HEADER_TIMEOUT", "soon", "GAMMON_LIMIT_HEADER_TIMEOUT"),
    ("GAMMON_SMTP_RELAY", "nowhere", "--smtp-relay"), ("GAMMON_SESSION_DAYS", "0", "GAMMON_SESSION_DAYS"),
])
def test_a_bad_value_is_refused_naming_its_variable(variable: str, value: str, named: str) -> None:
    with pytest.raises(ServerConfigError, match=named):
        Settings.from_environment({variable: value})


def test_gammon_serve_reads_the_environment_and_a_flag_wins(tmp_path) -> None:
    env = {"GAMMON_WORKERS": "0", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.run([sys.executable, "-m", "gammon", "serve", "--db", f"sqlite:///{tmp_path / 'x.db'}",
                          "--migrate-only"], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 2 and "GAMMON_WORKERS: expected 1-64, got 0" in run.stderr and "Traceback" not in run.stderr
    run = subprocess.run([sys.executable, "-m", "gammon", "serve", "--db", f"sqlite:///{tmp_path / 'x.db'}",
                          "--workers", "1", "--migrate-only"], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0 and "is up to date" in run.stdout, run.stderr
    run = subprocess.run([sys.executable, "-m", "gammon", "serve", "--db", f"sqlite:///{tmp_path / 'x.db'}",
                          "--workers", "2"], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 2 and "needs PostgreSQL" in run.stderr
