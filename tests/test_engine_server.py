"""``gammon engine`` (gammon.engine_server): the UBGI engine, in process and as a real process, with fuzzed input."""

from __future__ import annotations

import io
import queue
import random
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gammon import Color, GameState, Position
from gammon.players import cube_hint, hint
from gammon import ubgi
from gammon.engine_server import SETTINGS, UbgiEngine

OPENING = "4HPwATDgc/ABMA:cIkFAAAAAAAA"
FAKE = Path(__file__).with_name("ubgi_fake_engine.py")
RACE_BPN = "b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7"
#: Words an engine's line may start with.
REPLIES = {"id", "option", "ubgiok", "readyok", "info", "bestmove", "bestcube", "bestturn", "eval", "error",
           "proto", "key", "keysok", "value"}
CODES = {code.value for code in ubgi.ErrorCode}
#: Seconds after which a test calls an engine hung: a guard against hangs, not a speed check.
HANG_GUARD = 60


def converse(lines: list[str], player: str = "pubeval", ply: int | None = 0) -> list[str]:
    """Everything the engine prints for ``lines`` (all carried out, as at the end of input)."""
    out = io.StringIO()
    engine = UbgiEngine(player, ply, out)
    engine.run(iter(line + "\n" for line in lines))
    return out.getvalue().splitlines()


def replies(lines: list[str], word: str) -> list[str]:
    return [line for line in lines if line.split()[0] == word]


def test_handshake_lists_every_setting_then_ubgiok() -> None:
    out = converse(["ubgi", "isready"])
    assert out[0].startswith("id name gammon") and out[1] == "id author gammon developers"
    options = [ubgi.parse_option_line(line) for line in out if line.startswith("option")]
    assert [o.name for o in options] == [s.name for s in SETTINGS]
    assert out[-2:] == ["ubgiok", "readyok"]
    assert {o.name: o.default for o in options}["Ply"] == "0"  # --ply 0


def test_v02_dialect_keys_get_and_set() -> None:
    out = converse(["keys", "set engine.multipv 3", "get engine.multipv", "get MultiPV", "set engine.ply 7",
                    "set nonsense 1", "setoption name Ply value 1", "get engine.ply"])
    keys = [ubgi.parse_key_line(line) for line in out if line.startswith("key ")]
    assert {k.name for k in keys} == {s.key for s in SETTINGS}
    assert out[0] == "proto 0.2"
    assert "value engine.multipv 3" in out and "value MultiPV 3" in out
    errors = replies(out, "error")
    assert errors[0].startswith("error bad_value") and errors[1].startswith("error bad_argument")
    assert out[-1] == "value engine.ply 1"
    # Interfaces set Threads as a matter of course: accepted and shown, though the search uses one.
    assert converse(["setoption name Threads value 4", "get engine.threads"]) == ["value engine.threads 4"]


def test_player_option_sets_name_ply_and_level() -> None:
    out = converse(["setoption name Player value simple:1:advanced", "get engine.player", "get engine.ply",
                    "get engine.level", "setoption name Player value nobody", "setoption name Player value"])
    assert out[:3] == ["value engine.player simple", "value engine.ply 1", "value engine.level advanced"]
    assert all(line.startswith("error bad_value") for line in out[3:]) and len(out) == 5


def test_every_position_form_gives_a_legal_bestmove() -> None:
    state = GameState.from_gnubg_id(OPENING)
    forms = [f"position gnubgid {OPENING}", "position gnubgid 4HPwATDgc/ABMA",
             f"position xgid {state.xgid()}", f"position bpn {state.bpn()}"]
    for form in forms:
        out = converse([form, "dice 6 4", "go role chequer"])
        best = replies(out, "bestmove")
        assert len(best) == 1, out
        play = Position().legal_plays(6, 4).parse_ubgi(best[0][len("bestmove "):])
        assert play == hint(GameState(), 6, 4, "pubeval")[0].play  # cubeful, money, cube centred


def test_a_match_id_outside_a_game_still_shows_a_position() -> None:
    out = converse(["position gnubgid 4HPwATDgc/ABMA:cAgAAAAAAAAE", "dice 3 1", "go"])  # status "no game"
    assert replies(out, "bestmove") == ["bestmove 8/5 6/5"]


def test_pass_bar_and_the_opponents_turn() -> None:
    closed = Position.from_checkers([0] * 24 + [2], [2, 2, 2, 2, 2, 2] + [0] * 19)  # white on the bar, shut out
    out = converse([f"position gnubgid {GameState(position=closed).gnubg_id()}", "dice 6 5", "go"])
    assert replies(out, "bestmove") == ["bestmove pass"]
    black = GameState(position=Position(turn=Color.BLACK))
    out = converse([f"position gnubgid {black.gnubg_id()}", "dice 2 1", "go", "setturn p1", "dice 2 1", "go"])
    plays = [line[len("bestmove "):] for line in replies(out, "bestmove")]
    assert len(plays) == 2 and all(Position().legal_plays(2, 1).parse_ubgi(p) for p in plays)


def test_cube_roles_follow_gammons_cube_decision() -> None:
    race = GameState.from_bpn(RACE_BPN).replace(dice=None)
    leader = GameState(position=Position.from_checkers([0] + [3] * 5 + [0] * 19, [0] * 6 + [3] * 5 + [0] * 14))
    for state in (race, leader):
        decision = cube_hint(state, "pubeval:0")
        out = converse([f"position gnubgid {state.gnubg_id()}", "go role cube",
                        f"position gnubgid {state.replace(double_offered=True).gnubg_id()}", "go role cube"])
        answers = replies(out, "bestcube")
        assert answers[0] == ("bestcube double" if decision.double else "bestcube nodouble")
        assert answers[1] == ("bestcube take" if decision.take else "bestcube drop")
        assert any(line.startswith("info role cube") for line in out)
    out = converse([f"position gnubgid {race.gnubg_id()}", "dice 3 1", "go role turn"])
    turn = replies(out, "bestturn")[0]
    assert turn.startswith("bestturn cube=nodouble move=")
    race.position.legal_plays(3, 1).parse_ubgi(turn.split("move=")[1])


def test_multipv_lines_rank_distinct_legal_plays() -> None:
    out = converse(["setoption name MultiPV value 5", f"position bpn {RACE_BPN}", "dice 6 5", "go"])
    lines = [ubgi.parse_info(line) for line in out if line.startswith("info multipv")]
    assert [info["multipv"] for info in lines] == [1, 2, 3, 4, 5]
    legal = GameState.from_bpn(RACE_BPN).position.legal_plays(6, 5)
    plays = [legal.parse_ubgi(str(info["pv"])) for info in lines]
    assert len(set(plays)) == 5
    assert [float(info["eq"]) for info in lines] == sorted((float(info["eq"]) for info in lines), reverse=True)
    assert replies(out, "bestmove")[0] == f"bestmove {lines[0]['pv']}"


def test_out_of_order_and_malformed_commands_get_errors() -> None:
    cases = {
        "go": "missing_context", "dice 3 1": "missing_context", "frobnicate": "unknown_command",
        "position gnubgid !!!": "bad_argument", "position fen x": "unsupported_feature",
        "setoption": "bad_argument", "setoption name": "bad_argument", "newsession type blitz": "bad_argument",
        "setscore 1": "bad_argument", "setcube value 3 owner p0": "bad_argument", "setturn p2": "bad_argument",
        "go role sideways": "bad_argument", "go depth x": "bad_argument", "eval": "missing_context",
        "position gnubgid 4HPwATDgc/ABMA:cAqgAFAAEAAA": "bad_argument",  # 5-2 in a 5-point match: over
    }
    for command, code in cases.items():
        out = converse(["newgame", command, "isready"])
        assert out[0].startswith(f"error {code} "), (command, out)
        assert out[-1] == "readyok"
    out = converse([f"position gnubgid {OPENING}", "dice 7 7", "dice 3", "go role chequer", "go role chequer"])
    assert [line.split()[1] for line in out if line.startswith("error")] == ["bad_argument", "bad_argument",
                                                                           "missing_context"]
    assert len(replies(out, "bestmove")) == 1  # the position's own dice; a go uses them up


def test_engine_limits_are_checked_where_they_are_set() -> None:
    """Issue 13: a huge movetime killed the timer thread; a 65536-cube was taken, then every go failed."""
    dead: list[str] = []
    previous = threading.excepthook
    threading.excepthook = lambda args: dead.append(f"{args.exc_type.__name__}: {args.exc_value}")
    try:
        out = converse([f"position gnubgid {OPENING}", "go role cube movetime 99999999999999999999",
                        "go role cube movetime 9" + "9" * 200, "setcube value 65536 owner center",
                        "setcube value 3 owner center", "setcube value 0 owner center", "setcube value 32768 owner p0",
                        "newsession type match length 26", "go role cube", "isready"])
    finally:
        threading.excepthook = previous
    errors = [line for line in out if line.startswith("error")]
    assert len(errors) == 6 and not dead
    assert all("movetime" in line for line in errors[:2]) and all("setcube" in line for line in errors[2:5])
    assert "length 1-25" in errors[5]
    assert replies(out, "bestcube") and out[-1] == "readyok"  # the 32768-cube was taken and is searched


def test_deterministic_noise_repeats() -> None:
    lines = ["setoption name Player value pubeval:0:beginner", "setoption name Seed value 11",
             f"position bpn {RACE_BPN}", "go"]
    first = replies(converse(lines + lines[2:] * 5), "bestmove")
    assert len(set(first)) == 1


@pytest.mark.parametrize(("engine", "go", "stop_after"), [
    # a million trials of every candidate would take hours: only stop brings the answer in time
    (["--player", "pubeval"], "go trials 1000000", "depth 0"),
    # a 3-ply search of a position whose two candidates survive to 3 ply, stopped during it
    (["--player", "nn", "--ply", "3"], "go", "depth 2"),
], ids=["rollouts", "depth"])
def test_stop_ends_the_search_and_answers_the_best_so_far(engine: list[str], go: str, stop_after: str) -> None:
    process = subprocess.Popen([sys.executable, "-m", "gammon", "engine", *engine],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()

    def next_line() -> str:
        return lines.get(timeout=HANG_GUARD).strip()  # queue.Empty: the engine did not stop

    try:
        assert process.stdin and process.stdout
        process.stdin.write(f"isready\nposition gnubgid J+UtQBCJzw9AQA\ndice 3 1\n{go}\n")
        assert next_line() == "readyok"
        infos = [next_line()]
        while stop_after not in infos[-1]:
            infos.append(next_line())
        process.stdin.write("stop\n")
        line = next_line()
        while not line.startswith("bestmove"):
            assert line.startswith("info "), line
            infos.append(line)
            line = next_line()
        assert line == "bestmove " + infos[-1].split(" pv ")[1]  # the last reported best, not a guess
        Position("J+UtQBCJzw9AQA").legal_plays(3, 1).parse_ubgi(line.split(maxsplit=1)[1])
        # The search has ended, not only been answered: a go waits for the one before it to
        # finish, and this one is answered in full.
        process.stdin.write("dice 6 5\ngo depth 1\nisready\n")
        line = next_line()
        while not line.startswith("bestmove"):
            line = next_line()
        Position("J+UtQBCJzw9AQA").legal_plays(6, 5).parse_ubgi(line.split(maxsplit=1)[1])
        assert next_line() == "readyok"
        process.stdin.write("quit\n")
        assert process.wait(timeout=HANG_GUARD) == 0
    finally:
        process.kill()


def test_an_engine_that_cannot_stop_answers_movetime_and_its_late_answer_is_dropped() -> None:
    # An external engine thinking a second over every go, deaf to stop: movetime is answered
    # with gammon's own quick play; the engine's late answer never answers the next question.
    slow = "ubgi:" + shlex.join([sys.executable, str(FAKE), "--delay", "1"])
    out = converse([f"setoption name Player value {slow}", f"position gnubgid {OPENING}", "dice 3 1",
                    "go movetime 50", "isready", "dice 6 5", "go role chequer", "isready"], ply=None)
    first, second = replies(out, "bestmove")
    Position().legal_plays(3, 1).parse_ubgi(first[len("bestmove "):])
    Position().legal_plays(6, 5).parse_ubgi(second[len("bestmove "):])
    assert out[out.index(first) + 1] == "readyok"  # nothing from the late answer before the next command
    assert out[-1] == "readyok" and out.index(second) < len(out) - 1


def test_real_process_survives_random_garbage() -> None:
    rng = random.Random(7)
    words = ["ubgi", "isready", "go", "dice", "position", "setoption", "set", "get", "stop", "newgame",
             "setcube", "setscore", "setturn", "newsession", "eval", "keys"]
    lines = []
    for _ in range(300):
        kind = rng.random()
        if kind < 0.5:
            arguments = ["1", "role", "cube", "7", "gnubgid", OPENING, "name", "value", "Ply", "x"]
            lines.append(" ".join([rng.choice(words)] + [rng.choice(arguments) for _ in range(rng.randrange(4))]))
        elif kind < 0.8:
            lines.append("".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(60))))
        else:
            lines.append("x" * rng.randrange(10_000, 20_000))
    process = subprocess.run([sys.executable, "-m", "gammon", "engine", "--player", "pubeval", "--ply", "0"],
                             input=("\n".join(lines) + "\nisready\n").encode("utf-8", "surrogatepass"),
                             capture_output=True, timeout=120)
    out = process.stdout.decode().splitlines()
    assert process.returncode == 0
    assert out[-1] == "readyok"
    assert all(line.split()[0] in REPLIES for line in out if line.strip())
    assert b"Traceback" not in process.stdout and b"Traceback" not in process.stderr


# -- properties ---------------------------------------------------------------------------------
COMMAND_WORDS = sorted(UbgiEngine.COMMANDS) + ["bestmove", "info", "ponder", ""]
tokens = st.one_of(
    st.sampled_from(["role", "chequer", "cube", "turn", "movetime", "depth", "1", "0", "-1", "6", "99", "name",
                     "value", "Ply", "MultiPV", "gnubgid", "xgid", "bpn", OPENING, RACE_BPN, "p0", "p1", "center",
                     "type", "match", "money", "length", "on", "off", "engine.ply"]),
    st.text(max_size=12),
)
command_lines = st.builds(lambda word, args: " ".join([word, *args]), st.sampled_from(COMMAND_WORDS),
                          st.lists(tokens, max_size=6))
VALID = [f"position gnubgid {OPENING}", "dice 3 1", "go role chequer", f"position bpn {RACE_BPN}", "go role cube",
         "setoption name MultiPV value 2", "set engine.ply 1", "newsession type match length 7", "setscore 2 3",
         "setcube value 2 owner p0", "setturn p0", "go role turn depth 0"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    line = list(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(line)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        char = draw(st.characters())
        if action == "insert":
            line.insert(at, char)
        elif line and at < len(line):
            if action == "delete":
                del line[at]
            else:
                line[at] = char
    return "".join(line).replace("\n", " ").replace("\r", " ")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(command_lines, mutated(), st.sampled_from(VALID)), max_size=12))
def test_random_and_mutated_commands_never_crash_or_hang(lines: list[str]) -> None:
    lines = [line.replace("\n", " ").replace("\r", " ").replace("\x0b", " ").replace("\x0c", " ")
             .replace("\x1c", " ").replace("\x1d", " ").replace("\x1e", " ").replace("\x85", " ")
             .replace("\u2028", " ").replace("\u2029", " ") for line in lines]
    lines = [line for line in lines if line.split()[:1] != ["quit"]]
    result: list[list[str]] = []
    worker = threading.Thread(target=lambda: result.append(converse(lines + ["isready"])), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert result, f"the engine hung on {lines!r}"
    out = result[0]
    assert out[-1] == "readyok"
    for line in out:
        word = line.split()[0]
        assert word in REPLIES, line
        if word == "error":
            assert line.split()[1] in CODES, line


def test_session_commands_describe_the_game_a_bare_position_id_joins() -> None:
    out = converse(["newsession type match length 7", "setscore 2 3", "setcube value 2 owner p1", "setturn p1",
                    "position gnubgid 4HPwATDgc/ABMA", "eval", "setscore 9 0", "setcube value 3 owner p0"])
    evaluation = ubgi.parse_info(out[0].replace("eval", "info", 1))
    assert 0 < float(evaluation["mwc"]) < 1  # valued at the match score, not as money
    assert out[1].startswith("error bad_argument") and "score" in out[1]
    assert out[2].startswith("error bad_argument")
    out = converse(["newsession type money jacoby on", "newgame", "position gnubgid 4HPwATDgc/ABMA", "eval"])
    assert "mwc" not in out[0]


def test_the_sessions_money_rules_join_a_match_id() -> None:
    # A Match ID carries no Jacoby rule: the session's applies, so gammons count as the session says.
    ask = [f"position gnubgid {OPENING}", "eval"]
    jacoby = converse(["newsession type money jacoby on", *ask], "nn")
    plain = converse(["newsession type money jacoby off", *ask], "nn")
    values = [ubgi.parse_info(out[0].replace("eval", "info", 1)) for out in (jacoby, plain)]
    assert values[0]["pgammon"] == values[1]["pgammon"] > 0  # the same chances ...
    assert values[0]["eq"] < values[1]["eq"]  # ... worth less when the Jacoby rule voids gammons
    refused = converse(["newsession type match length 5 crawford off"])
    assert refused[0].startswith("error unsupported_feature") and "Crawford" in refused[0]


def test_the_first_isready_compiles_the_kernels_before_readyok(monkeypatch) -> None:
    from gammon.engine_server.backends import LocalBackend

    out = io.StringIO()
    warmed: list[tuple[int, str]] = []
    original = LocalBackend.warm

    def spy(self: LocalBackend, depth: int) -> None:
        warmed.append((depth, out.getvalue()))
        original(self, depth)

    monkeypatch.setattr(LocalBackend, "warm", spy)
    engine = UbgiEngine("pubeval", 1, out)
    engine.run(iter(["isready\n", "isready\n", "setoption name Player value simple\n", "isready\n"]))
    # Once per player, at its depth, and before the readyok it precedes.
    assert [(depth, text) for depth, text in warmed] == [(1, ""), (1, "readyok\nreadyok\n")]
    assert out.getvalue().splitlines() == ["readyok"] * 3


def test_a_relayed_engine_without_evaluations_shows_none_and_its_refusals_name_the_role_asked() -> None:
    # The fake peer sends only bestmove: the relay's info lines carry no made-up eq or pwin, and
    # its refusal of the cube is reported as the refusal of the turn that was asked for.
    peer = "ubgi:" + shlex.join([sys.executable, str(FAKE)])
    out = converse([f"setoption name Player value {peer}", f"position gnubgid {OPENING}", "dice 3 1",
                    "go role turn", "isready", "dice 3 1", "go role chequer", "isready"], ply=0)
    refusal = replies(out, "error")[0]
    assert refusal.startswith("error unsupported_feature go role turn: the engine refused 'go role cube'"), refusal
    infos = [line for line in replies(out, "info") if " pv " in line]
    assert infos and all(" eq " not in line and "pwin" not in line for line in infos), infos
    (move,) = replies(out, "bestmove")
    Position().legal_plays(3, 1).parse_ubgi(move[len("bestmove "):])
