"""An engine nobody here wrote, played by the fake engine's ``--peer`` mode: it announces
settings it then refuses (with a code of its own), has no MultiPV and no cube, and keeps
its own Jacoby default. The client, the duels and ``gammon engine`` relaying it must carry
on, stay in step, tell the engine the whole game, and name every refusal."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest

from gammon import GameState, Position
from gammon.cli import main
from gammon.duel import duel, match_duel
from gammon.engine import EngineCommandError, SimpleEngine

FAKE = [sys.executable, str(Path(__file__).with_name("ubgi_fake_engine.py"))]
PEER = [*FAKE, "--peer"]
#: Seconds after which a test calls a duel or an engine hung: a guard against hangs, not a speed check.
HANG_GUARD = 120
ROLLS = [(3, 1), (5, 2), (6, 6), (4, 1), (2, 1), (6, 5)]


def ubgi(argv: list[str]) -> str:
    return "ubgi:" + shlex.join(argv)


def test_refused_settings_are_named_and_leave_the_client_in_step() -> None:
    with SimpleEngine.popen_ubgi(PEER) as peer:
        assert "engine.seed" in peer.options and "MultiPV" not in peer.options
        with pytest.raises(EngineCommandError) as refused:
            peer.configure({"Seed": 5})
        assert refused.value.code == "unsupported" and refused.value.command == "set engine.seed 5"
        assert peer.try_configure("Seed", 6) is False and peer.try_configure("EvalMode", "cubeless") is False
        assert "unsupported key" in peer.unsupported["engine.seed"]
        assert peer.try_configure("NoSuchSetting", 1) is False
        # Every play answers its own roll, after the refusals as before them.
        with SimpleEngine.popen_ubgi(FAKE) as plain:
            for dice in ROLLS:
                assert peer.play(Position(), dice).play == plain.play(Position(), dice).play
        assert len(peer.analyse(Position(), (6, 5), multipv=3)) == 1  # no MultiPV: its best play only


def test_the_whole_context_goes_on_the_wire() -> None:
    with SimpleEngine.popen_ubgi(PEER) as peer:
        assert peer.play(GameState(), (3, 1)).info["string"] == "session money jacoby off beavers off"
        assert peer.play(GameState(jacoby=True, beavers=True), (3, 1)).info["string"] == \
            "session money jacoby on beavers on"
        assert peer.play(GameState(match_length=7, score=(2, 4)), (3, 1)).info["string"] == "session match length 7"
    with SimpleEngine.popen_ubgi(FAKE) as plain:  # no newsession: positions only, and said once
        assert plain.play(GameState(jacoby=True), (3, 1)).play in Position().legal_plays(3, 1)
        assert "unknown_command" in plain.unsupported["newsession"]
        assert plain.play(GameState(), (4, 2)).play in Position().legal_plays(4, 2)


def test_duels_with_the_peer_finish_reproducibly_and_say_it_has_no_seed(capsys: pytest.CaptureFixture[str]) -> None:
    start = time.monotonic()
    first = duel(ubgi(PEER), "pubeval", 4, seed=2, workers=2)
    again = duel(ubgi(PEER), "pubeval", 4, seed=2, workers=1)
    assert first.points.tolist() == again.points.tolist()
    seedless = [note for note in first.notes if "plays without a seed" in note]
    assert len(seedless) == 1 and "refused engine.seed: error unsupported key" in seedless[0]
    assert any("its own evaluation mode, not cubeless" in note for note in first.notes)
    matches = match_duel(ubgi(PEER), "pubeval", 2, 3, seed=1, workers=2)
    assert matches.matches == 2 and seedless[0] in matches.notes
    assert main(["duel", ubgi(PEER), "pubeval", "--games", "2", "--workers", "2", "--json"]) == 0
    err = capsys.readouterr().err
    assert err.count("plays without a seed") == 1 and "not reproducible" in err
    assert time.monotonic() - start < HANG_GUARD * 3


def test_a_workers_engine_error_ends_the_duel_with_that_error(capsys: pytest.CaptureFixture[str]) -> None:
    start = time.monotonic()
    refusing = ubgi([*FAKE, "--break", "refuse-go"])
    for workers in (2, 1):
        with pytest.raises(EngineCommandError) as failed:
            duel(refusing, "pubeval", 4, seed=1, workers=workers)
        assert failed.value.code == "engine_failure" and "cannot search today" in str(failed.value)
    assert main(["duel", refusing, "pubeval", "--games", "4", "--workers", "2"]) == 1
    err = capsys.readouterr().err
    assert "engine_failure cannot search today" in err and "Traceback" not in err
    assert time.monotonic() - start < HANG_GUARD


def test_gammon_engine_relays_the_peer_without_drift() -> None:
    relay = [sys.executable, "-m", "gammon", "engine", "--player", ubgi(PEER)]
    with SimpleEngine.popen_ubgi(relay, timeout=HANG_GUARD) as engine, SimpleEngine.popen_ubgi(FAKE) as plain:
        engine.configure({"Seed": 9})  # relayed as the peer's engine.seed, which it refuses: not fatal
        engine.configure({"EvalMode": "cubeless"})
        for dice in ROLLS:
            assert engine.play(Position(), dice).play == plain.play(Position(), dice).play
