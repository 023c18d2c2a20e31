"""gammon.engine, the client: driving real engine processes of both dialects, and failing clearly."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gammon import GameState, Position
from gammon.players import cube_hint, hint
from gammon.players import load_player, parse_player
from gammon.engine import (
    EngineCommandError,
    EngineError,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalEngineMoveError,
    Limit,
    SimpleEngine,
    UnsupportedFeatureError,
)
from gammon.players.engine import EnginePlayer, state_of
from gammon.cube.context import CubeContext, Owner
import itertools

ENGINE = [sys.executable, "-m", "gammon", "engine", "--player", "pubeval", "--ply", "0"]
FAKE = [sys.executable, str(Path(__file__).with_name("ubgi_fake_engine.py"))]
RACE = GameState.from_bpn("b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7")
#: Seconds after which a test calls an engine hung: a guard against hangs, not a speed check.
HANG_GUARD = 60


def script(body: str) -> list[str]:
    """An engine made of a few lines of Python (it answers the handshake, then as ``body`` says)."""
    source = textwrap.dedent('''
        import sys
        def say(line):
            sys.stdout.write(line + "\\n"); sys.stdout.flush()
        for line in sys.stdin:
            word = line.split()[0] if line.split() else ""
            if word == "ubgi":
                say("id name scripted"); say("ubgiok")
            elif word == "isready":
                say("readyok")
            elif word == "quit":
                break
    ''') + textwrap.indent(textwrap.dedent(body), " " * 4)
    return [sys.executable, "-c", source]


def gone(pid: int, wait: float = HANG_GUARD) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            # A zombie child of ours still answers kill(0); reap it if it is ours.
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            status = Path(f"/proc/{pid}/status")
            if status.exists() and "zombie" in status.read_text():
                return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def engine():
    with SimpleEngine.popen_ubgi(ENGINE, timeout=60) as running:
        yield running


def test_handshake_reads_identity_options_and_dialect(engine: SimpleEngine) -> None:
    assert engine.id["name"].startswith("gammon")
    assert engine.dialect == "0.1"
    assert engine.options["Ply"].max == 3 and engine.options["EvalMode"].choices == ("cubeless", "cubeful")


def test_play_is_legal_and_matches_gammons_own_player(engine: SimpleEngine) -> None:
    engine.configure({"EvalMode": "cubeless"})
    for dice in [(3, 1), (6, 6), (5, 2), (6, 5)]:
        result = engine.play(Position(), dice)
        expected = load_player("pubeval").choose_play(Position(), *dice)
        assert result.play == expected
        assert result.info["role"] == "chequer" and "eq" in result.info
    engine.configure({"EvalMode": "cubeful"})


def test_analyse_ranks_multipv_plays_like_hint(engine: SimpleEngine) -> None:
    hints = engine.analyse(RACE, (6, 5), multipv=4)
    local = hint(RACE.replace(dice=None), 6, 5, "pubeval")
    assert [h.rank for h in hints] == [1, 2, 3, 4]
    assert [h.play for h in hints] == [h.play for h in local[:4]]
    assert all(a.equity >= b.equity for a, b in itertools.pairwise(hints))
    assert hints[0].loss == 0 and hints[1].loss > 0
    assert abs(hints[0].equity - local[0].equity) < 1e-5


def test_cube_answers_come_from_gammons_cube_decisions(engine: SimpleEngine) -> None:
    leader = GameState(position=Position.from_checkers([0] + [3] * 5 + [0] * 19, [0] * 6 + [3] * 5 + [0] * 14))
    for state in (RACE.replace(dice=None), leader.replace(dice=None)):
        decision = cube_hint(state, "pubeval")
        assert engine.cube(state).double == (decision.double and decision.available)
        doubled = state.replace(double_offered=True)
        assert engine.cube(doubled).take == decision.take


def test_configure_rejects_unknown_options_and_bad_values(engine: SimpleEngine) -> None:
    with pytest.raises(EngineError, match="no option 'Bogus'"):
        engine.configure({"Bogus": 1})
    with pytest.raises(EngineError, match="expected 0..3"):
        engine.configure({"Ply": 9})
    engine.configure({"ply": 0})  # case-insensitive
    engine.ping()


def test_limit_time_gets_a_legal_answer() -> None:
    with SimpleEngine.popen_ubgi([sys.executable, "-m", "gammon", "engine", "--player", "nn", "--ply", "3"],
                                 timeout=60) as slow:
        slow.ping()
        state = GameState(position=Position("J+UtQBCJzw9AQA"))
        start = time.monotonic()
        result = slow.play(state, (3, 1), Limit(time=0.3))
        assert time.monotonic() - start < HANG_GUARD
        assert result.play in state.position.legal_plays(3, 1)


def test_v02_engine_with_stars_and_no_cube() -> None:
    with SimpleEngine.popen_ubgi(FAKE) as fake:
        assert fake.dialect == "0.2" and "engine.seed" in fake.options
        fake.configure({"Seed": 7})  # found as engine.seed, sent with `set`
        result = fake.play(Position(), (3, 1))
        assert result.play in Position().legal_plays(3, 1)
        # Only a bestmove: the hint says it is not evaluated rather than showing an even game.
        (only,) = fake.analyse(Position(), (3, 1))
        assert only.probabilities is None and only.equity is None and not only.evaluated
        assert only.as_dict()["equity"] is None and only.as_dict()["probabilities"] is None
        with pytest.raises(UnsupportedFeatureError):
            fake.cube(GameState())
    starred = script('''
            elif word == "go":
                say("bestmove 13/11* 6/5*")
    ''')
    with SimpleEngine.popen_ubgi(starred) as engine:
        # `*` marks are tolerated (here even where nothing is hit); the play is checked by the rules.
        assert engine.play(Position(), (2, 1)).play.ubgi() == "13/11 6/5"
        with pytest.raises(IllegalEngineMoveError):
            engine.play(Position(), (3, 1))


def test_illegal_garbled_crashed_and_silent_engines_raise_specific_errors() -> None:
    with SimpleEngine.popen_ubgi(FAKE + ["--break", "illegal"]) as bad, pytest.raises(IllegalEngineMoveError):
        bad.play(Position(), (3, 1))
    garbled = script('''
            elif word == "go":
                say("hello there")
    ''')
    with SimpleEngine.popen_ubgi(garbled) as engine, pytest.raises(EngineProtocolError, match="hello there"):
        engine.play(Position(), (3, 1))
    crashing = script('''
            elif word == "go":
                sys.exit(3)
    ''')
    with SimpleEngine.popen_ubgi(crashing) as engine:
        with pytest.raises(EngineTerminatedError, match="code 3"):
            engine.play(Position(), (3, 1))
        with pytest.raises(EngineTerminatedError):
            engine.play(Position(), (3, 1))
    with SimpleEngine.popen_ubgi(FAKE + ["--hang-after", "1"], timeout=0.5) as silent:
        start = time.monotonic()
        with pytest.raises(EngineTimeoutError):
            silent.play(Position(), (3, 1))
        assert time.monotonic() - start < HANG_GUARD
    with pytest.raises(EngineError, match="cannot start engine"):
        SimpleEngine.popen_ubgi("/nonexistent/engine")
    with pytest.raises(EngineTerminatedError):
        SimpleEngine.popen_ubgi([sys.executable, "-c", "pass"])


def test_engine_process_never_outlives_its_client(tmp_path: Path) -> None:
    engine = SimpleEngine.popen_ubgi(FAKE)
    pid = engine.protocol.process.pid
    engine.quit()
    engine.quit()  # idempotent
    assert gone(pid)
    with pytest.raises(EngineTerminatedError):
        engine.play(Position(), (3, 1))
    # A client killed outright takes its engine with it.
    pid_file = tmp_path / "pid"
    client = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f'''
        import os, sys, time
        from gammon.engine import SimpleEngine
        engine = SimpleEngine.popen_ubgi({FAKE!r})
        open({str(pid_file)!r}, "w").write(str(engine.protocol.process.pid))
        time.sleep(60)
    ''')])
    deadline = time.monotonic() + HANG_GUARD
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    engine_pid = int(pid_file.read_text())
    client.kill()
    client.wait()
    assert gone(engine_pid)


def test_engine_players_by_name() -> None:
    spec = parse_player("ubgi:" + " ".join(ENGINE))
    player = load_player(spec)
    assert isinstance(player, EnginePlayer) and str(spec).startswith("ubgi:")
    try:
        board = Position().array()
        child = player.choose_board(board, 3, 1)
        local = load_player("pubeval").choose_board(board, 3, 1)
        assert (child == local).all()
        context = CubeContext(away=(3, 5), owner=Owner.ME, cube=2)
        state = state_of(board, context)
        assert (state.away(state.position.turn), state.away(state.position.turn.other)) == (3, 5)
        assert CubeContext.from_state(state).owner is Owner.ME
        assert player.offer_resignation(board, context) is None
        ranked = hint(GameState(), 6, 5, player)  # the engine ranks the plays
        assert [h.play for h in ranked[:3]] == [h.play for h in hint(GameState(), 6, 5, "pubeval")[:3]]
    finally:
        player.close()


def test_duels_through_ubgi_match_the_same_player_in_process() -> None:
    from gammon.duel import duel

    remote = duel("ubgi:" + " ".join(ENGINE), "random", 4, seed=3, workers=1)
    local = duel("pubeval", "random", 4, seed=3, workers=1)
    assert remote.a.startswith("ubgi:") and remote.games == 4
    assert remote.points.tolist() == local.points.tolist()
    cubeful = duel("ubgi:" + " ".join(ENGINE), "pubeval", 2, seed=5, workers=1, cube=True)
    assert cubeful.games == 2 and cubeful.cubes is not None


def until(condition, what: str) -> None:
    """Wait for ``condition()`` (a state to reach, not a time to pass); fail after the hang guard."""
    deadline = time.monotonic() + HANG_GUARD
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {HANG_GUARD} s"
        time.sleep(0.01)


@pytest.mark.parametrize("arrives", ["before the next question", "after the next question"])
def test_a_late_answer_does_not_answer_the_next_question(tmp_path: Path, arrives: str) -> None:
    # The first go is never answered in time: its answer waits for the test to release it, so
    # the timeout cannot be missed, however loaded the machine. The late answer then comes
    # either before the next question is sent (the test waits until the engine has written it)
    # or only once the engine reads the next question's first line.
    release, said = tmp_path / "release", tmp_path / "said"
    held = script(f'''
            elif word == "go":
                import os, threading, time
                if not globals().get("asked"):
                    globals()["asked"] = True
                    def late():
                        while not os.path.exists({str(release)!r}):
                            time.sleep(0.01)
                        say("bestmove 13/11 6/5")
                        open({str(said)!r}, "w").close()
                    threading.Thread(target=late, daemon=True).start()
                else:
                    say("bestmove 8/5 6/5")
    ''') if arrives == "before the next question" else script('''
            elif word == "go":
                if not globals().get("asked"):
                    globals()["asked"] = True
                else:
                    say("bestmove 8/5 6/5")
            if globals().get("asked") == True and word == "position":
                globals()["asked"] = "answered"
                say("bestmove 13/11 6/5")  # the late answer, ahead of whatever the next line asks
    ''')
    with SimpleEngine.popen_ubgi(held, timeout=HANG_GUARD) as engine:
        engine.timeout = 0.2  # the first go waits for the test, so any timeout expires
        with pytest.raises(EngineTimeoutError, match="did not answer in time"):
            engine.play(Position(), (2, 1))
        engine.timeout = HANG_GUARD
        if arrives == "before the next question":
            release.touch()
            until(said.exists, "late answer")
        assert engine.play(Position(), (3, 1)).play.ubgi() == "8/5 6/5"


def test_gammon_means_this_gammon_without_it_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from gammon.engine.transport import split_command

    monkeypatch.setenv("PATH", "/nonexistent")
    assert split_command("gammon engine --ply 0") == [sys.executable, "-m", "gammon", "engine", "--ply", "0"]
    assert split_command(["other", "x"]) == ["other", "x"]


def test_two_refused_settings_then_a_play_stay_in_step(engine: SimpleEngine) -> None:
    # The reproduction against gammon's own engine: each refusal is its own request's.
    for name in ("nobody", "neither"):
        with pytest.raises(EngineCommandError) as refused:
            engine.configure({"Player": name})
        assert refused.value.code == "bad_value" and name in str(refused.value)
    assert engine.play(Position(), (5, 2)).play == load_player("pubeval").choose_play(Position(), 5, 2)
    engine.configure({"Ply": 0})  # accepted: no stale error left to raise
    assert engine.try_configure("Seed", 3) is True and engine.unsupported == {}
