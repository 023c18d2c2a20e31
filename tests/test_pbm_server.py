"""Play by mail: the seed's command language through the line port, POST /pbm and real e-mail.

Every door reaches the same matches as the JSON API; bad input gets an answer, never a
change to a match, and answers by mail go only to registered addresses.
"""

from __future__ import annotations

import asyncio
import random
import re
import signal
import smtplib
import socket
import threading
import time
from email.message import EmailMessage
from email import message_from_bytes, policy

import httpx
import pytest
from aiosmtpd.smtp import SMTP
from hypothesis import given, settings
from hypothesis import strategies as st

from fastapi.testclient import TestClient

from gammon import Position, BLACK, WHITE
from gammon.events import Played
from gammon.narration import Narrator
from gammon.notation import pbm as pbm_notation
from gammon.play import OFF, Move, Play
from gammon.server.app import create_app
from gammon.server.pbm.board_text import draw
from gammon.server.pbm.executor import MailNarrator
from gammon.server.settings import Limits, Settings
from gammon.server.pbm.language import MailCommandError, parse
from gammon.server.pbm.mail import commands_of
from gammon.state import GameState
from server_support import Client, ServerProcess, database, play_out, wait_for

# The seed's initial board (../shared/seeds/002), trailing blanks dropped.
SEED_BOARD = """\
|13  14  15  16  17  18 |   |19  20  21  22  23  24 |
| O               X     |   | X                   O |
| O               X     |   | X                   O |
| O               X     |   | X                     |
| O                     |   | X                     |
| O                     |   | X                     |
|                       |BAR|                       |HOME
| X                     |   | O                     |
| X                     |   | O                     |
| X               O     |   | O                     |
| X               O     |   | O                   X |
| X               O     |   | O                   X |
|12  11  10   9   8   7 |   | 6   5   4   3   2   1 |"""
PASSWORDS = {"alice": "wonderland1", "bob": "builder123", "carol": "christmas99"}
#: Whole matches played by one test client from one address: far more commands a minute than a person
#: sends, and the mails they cause; and new players' matches rated from the first (tested apart).
MANY_COMMANDS = {"GAMMON_LIMIT_COMMANDS": "100000", "GAMMON_LIMIT_MAILS": "100000", "GAMMON_PROVISIONAL_MATCHES": "0"}
TURN = re.compile(r"^Move (\d+): (\S+) \(([OX])\) to play (\d)-(\d):$", re.M)


# -- the language, without a server ----------------------------------------------------------------
def test_the_board_is_drawn_as_the_seed_draws_it() -> None:
    assert "\n".join(draw(Position(turn=BLACK))) == SEED_BOARD
    # whoever is on roll: the board is the same picture, black (O) moving down and white (X) up
    assert "\n".join(draw(Position(turn=WHITE))) == SEED_BOARD


def test_a_tall_stack_shows_its_count() -> None:
    # white (eks) has 15 on its 6 point (the board's 19), black (ohs) 15 on its 24 point
    position = Position.from_checkers([0] * 5 + [15] + [0] * 18 + [0], [0] * 23 + [15] + [0], turn=BLACK)
    lines = draw(position)
    assert lines[1:5] == ["|                       |   | X                   O |"] * 4
    assert lines[5] == "|                       |   |15                  15 |"


@pytest.mark.parametrize(("line", "word", "fields"), [
    ("backgammon challenge userid1 userid2", "challenge", {"args": ("userid1", "userid2")}),
    ("backgammon challenge userid1 userid2 -force", "challenge", {"args": ("userid1", "userid2")}),
    ("backgammon move 12 userid password 13-10,13-10,10-7,10-7#5", "move",
     {"board": 12, "user": "userid", "password": "password", "move": "13-10,13-10,10-7,10-7", "move_number": 5}),
    ("backgammon move 12 userid password greedy", "greedy", {"board": 12}),
    ("backgammon greedy 12 userid password", "greedy", {"board": 12}),
    ("backgammon move 12 userid password manual", "manual", {"board": 12}),
    ("backgammon manual 12 userid password", "manual", {"board": 12}),
    ("backgammon move 12 userid password roll", "roll", {"board": 12}),
    ("backgammon roll 12 userid password", "roll", {"board": 12}),
    ("backgammon move 12 userid password double", "double", {"board": 12}),
    ("backgammon double 12 userid password", "double", {"board": 12}),
    ("resign 12 userid password gammon", "resign", {"args": ("gammon",)}),
    ("STATUS 12", "board", {"board": 12}),
    ("standings week", "ratings", {"args": ("week",)}),
])
def test_the_seeds_commands_parse(line: str, word: str, fields: dict) -> None:
    command = parse(line)
    assert command.word == word
    for key, value in fields.items():
        assert getattr(command, key) == value
    if "-force" in line:
        assert command.options["force"] is True
    assert "password" not in repr(command).replace("password=", "")  # a password is never shown


@pytest.mark.parametrize("line", ["", "backgammon", "frobnicate 1", "move 1 alice", "move x alice pw 13-10",
                                  "move 1 alice pw 13-10#x", "mail alice pw maybe", "challenge alice",
                                  "challenge a b -match 99x", "resign 1 a pw twice", "board 0", "x" * 5000,
                                  "help move challenge", "games"])
def test_malformed_commands_are_refused_with_a_reason(line: str) -> None:
    with pytest.raises(MailCommandError) as error:
        parse(line)
    assert str(error.value)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_a_command_or_a_clear_refusal(text: str) -> None:
    try:
        command = parse(text)
    except MailCommandError as error:
        assert str(error)
    else:
        assert command.word


def _mail(subject: str, body: str | bytes, sender: str = "alice@example.org") -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, "play@gammon", subject
    if isinstance(body, bytes):
        message.set_content(body, maintype="application", subtype="octet-stream")
    else:
        message.set_content(body)
    return message.as_bytes()


def test_a_mails_commands_come_from_its_subject_and_body() -> None:
    sender, lines = commands_of(_mail("Re: backgammon board 3",
                                      "move 3 alice pw 13-10\n> quoted line\n\nroll 3 alice pw\n-- \nsignature"))
    assert sender == "alice@example.org"
    assert lines == ["backgammon board 3", "move 3 alice pw 13-10", "roll 3 alice pw"]
    # the server's own subjects ("gammon: ...") are never read back as commands: no mail loops
    assert commands_of(_mail("Re: gammon: answers to your commands", "board 3"))[1] == ["board 3"]
    assert commands_of(_mail("", bytes(range(256)) * 10)) == ("alice@example.org", [])
    # No header line: the whole is body text, read as UTF-8 with the byte that is no UTF-8 replaced.
    assert commands_of(b"\x00\xff garbage without headers") == (None, ["\x00\ufffd garbage without headers"])


# -- a real server ----------------------------------------------------------------------------------
class LinePort:
    """A player's connection to the line port: one command, one answer up to the line ``.``."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.file = self.sock.makefile("rwb")

    def raw(self, data: bytes) -> str:
        self.file.write(data)
        self.file.flush()
        lines = []
        while True:
            line = self.file.readline()
            assert line, "the line port closed the connection"
            text = line.decode("utf-8").rstrip("\n")
            if text == ".":
                return "\n".join(lines)
            lines.append(text[1:] if text.startswith("..") else text)

    def __call__(self, line: str) -> str:
        return self.raw((line + "\n").encode("utf-8"))

    def close(self) -> None:
        self.file.close()
        self.sock.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def line_server(request, tmp_path):
    with database(request.param, tmp_path) as url:  # noqa: SIM117 - the outer block ends first on purpose
        with ServerProcess(url, "--pbm-port", "0", log=tmp_path / "server.log", env=MANY_COMMANDS) as server:
            assert server.pbm_port  # the port it bound, as it printed it
            yield server


def _legal_moves(answer: str) -> list[str]:
    assert "Your legal moves" in answer, answer
    return [line.strip() for line in answer.split("Your legal moves", 1)[1].splitlines()[1:] if line.strip()]


def _play_by_lines(tcp: LinePort, board: int, rng: random.Random, players: dict[str, str], *,
                   turns: int | None = None) -> str:
    """Both players act from what the board says until the match ends (or ``turns`` moves are made)."""
    made = 0
    for _ in range(3000):
        answer = tcp(f"board {board}")
        if "The match is over" in answer or (turns is not None and made >= turns):
            return answer
        last = [line for line in answer.splitlines() if line.startswith("Move ")][-1]
        turn = TURN.search(answer)
        actor = re.match(r"Move \d+: (\S+)", last)
        if actor is None or actor.group(1) not in players:
            time.sleep(0.05)  # a bot is thinking
            continue
        if turn:
            number, name = int(turn.group(1)), turn.group(2)
            moves = _legal_moves(tcp(f"move {board} {name} {players[name]} ?"))
            done = tcp(f"backgammon move {board} {name} {players[name]} {rng.choice(moves)}#{number}")
            assert not done.startswith("error"), done
            made += 1
        elif "is offered the cube" in last:
            name = last.split(": ", 1)[1].split(" is offered", 1)[0]
            word = rng.choice(["roll", "take", "drop"])
            assert not tcp(f"{word} {board} {name} {players[name]}").startswith("error")
        elif "is offered a resignation" in last:
            name = last.split(": ", 1)[1].split(" is offered", 1)[0]
            assert not tcp(f"accept {board} {name} {players[name]}").startswith("error")
        elif " to roll" in last:
            name = last.split(": ", 1)[1].split(" to roll", 1)[0]
            word = "double" if "or double" in last and rng.random() < 0.3 else "roll"
            assert not tcp(f"{word} {board} {name} {players[name]}").startswith("error")
    raise AssertionError(f"the match did not end; the board says:\n{answer}")


def test_a_whole_match_over_the_line_port_and_the_api_sees_it(line_server) -> None:
    tcp = LinePort(line_server.pbm_port)
    rng = random.Random(7)
    try:
        assert tcp("register alice wonderland1").startswith("Welcome, alice")
        assert tcp("backgammon register bob builder123").startswith("Welcome, bob")
        answer = tcp("backgammon challenge alice bob wonderland1 -match 3")
        board = int(re.match(r"Board (\d+):", answer).group(1))
        assert "accept" in answer and "alice challenges bob to a 3-point match, no clock, rated." in answer, answer
        started = tcp(f"accept {board} bob builder123")
        assert "Board" in started and "|BAR|" in started
        # bob plays in manual mode: he rolls and may double himself
        assert "manual mode on" in tcp(f"backgammon manual {board} bob builder123")
        final = _play_by_lines(tcp, board, rng, PASSWORDS)
        winner = re.search(r"The match is over: (\S+) won", final).group(1)
        http = httpx.Client(base_url=line_server.url, timeout=60)
        state = http.get(f"/api/matches/{board}").json()
        assert state["status"] == "finished" and state["winner"] == winner
        assert max(state["score"].values()) >= 3
        history = tcp(f"history {board}")
        assert f"{winner} wins the 3-point match" in history.splitlines()[-1]
        assert history.count(" rolls ") > 10 and "manual mode on" in history
        loser = "bob" if winner == "alice" else "alice"
        assert tcp(f"games {winner}").endswith("won") and tcp(f"games {loser}").endswith("lost")
        assert "alice" in tcp("ratings") and "bob" in tcp("standings week")
    finally:
        tcp.close()


def test_a_match_begun_by_mail_is_finished_through_the_api(line_server) -> None:
    tcp = LinePort(line_server.pbm_port)
    rng = random.Random(3)
    try:
        tcp("register alice wonderland1")
        answer = tcp("challenge alice bot:random wonderland1 -match 1 -force")
        board = int(re.search(r"^Board (\d+):", answer, re.M).group(1))  # after what happened: the board
        turn = TURN.search(answer)
        # -force: alice first; she is white, so X, as the web and the terminal call her
        assert turn and turn.group(2) == "alice" and turn.group(3) == "X"
        _play_by_lines(tcp, board, rng, {"alice": "wonderland1"}, turns=2)
        http = httpx.Client(base_url=line_server.url, timeout=60)
        alice = Client(http, "alice", "wonderland1").log_in()
        final = play_out({"alice": alice}, board, rng)
        assert final["status"] == "finished"
        assert "The match is over" in tcp(f"board {board}")
    finally:
        tcp.close()


def _version(server: ServerProcess, board: int) -> int:
    return httpx.get(f"{server.url}/api/matches/{board}", timeout=60).json()["version"]


def test_bad_commands_change_nothing_and_the_port_stays_up(line_server) -> None:
    tcp = LinePort(line_server.pbm_port)
    try:
        for name, password in PASSWORDS.items():
            tcp(f"register {name} {password}")
        board = int(re.match(r"Board (\d+):", tcp("challenge alice bob wonderland1")).group(1))
        started = tcp(f"accept {board} bob builder123")
        turn = TURN.search(started)
        mover, number = turn.group(2), int(turn.group(1))
        waiter = "bob" if mover == "alice" else "alice"
        version = _version(line_server, board)
        refusals = [
            f"move {board} {mover} wrongpassword 13-10",  # wrong password
            f"move {board} carol christmas99 13-10",  # someone else's board
            f"move {board} {waiter} {PASSWORDS[waiter]} 13-10",  # out of turn
            f"move {board} {mover} {PASSWORDS[mover]} 25-30",  # not a move
            f"move {board} {mover} {PASSWORDS[mover]} 1-2,1-2,1-2,1-2,1-2",  # not legal
            f"move {board} {mover} {PASSWORDS[mover]} 13-10#{number + 5}",  # meant for another turn
            f"double {board} {mover} {PASSWORDS[mover]}",  # dice already rolled
            f"accept {board} {waiter} {PASSWORDS[waiter]}",  # nothing offered
            "move 99999 alice wonderland1 13-10",  # no such board
            "challenge alice bot:random",  # a bot match needs the password
            "challenge alice bot:nosuchbot wonderland1",
            "challenge alice alice wonderland1",
            "challenge alice bob wonderland1 -match 30",
            "email alice wonderland1 not-an-address",
            "\x00\x01\x02 binary",
            "move " * 300,
        ]
        for line in refusals:
            answer = tcp(line)
            assert answer.startswith("error:"), (line, answer)
            assert "wonderland1" not in answer and "builder123" not in answer
        assert "Your legal moves" in tcp(f"move {board} {mover} {PASSWORDS[mover]} 1-2,1-2,1-2,1-2,1-2")
        assert tcp.raw(b"\xff\xfe\xfd not utf-8\n").startswith("error: the command is not UTF-8")
        assert tcp.raw(b"x" * 1_000_000 + b"\n").startswith("error: the command is over")
        assert _version(line_server, board) == version
        for _ in range(11):  # wrong passwords: refused, then limited (even from the owner's own address)
            last = tcp(f"roll {board} {mover} guess-again")
        assert "too many log-in attempts" in last
        assert tcp("help move").startswith("move BOARD USER PASSWORD")
        assert _version(line_server, board) == version
    finally:
        tcp.close()
    # a client that drops mid-line does not hurt the port
    with socket.create_connection(("127.0.0.1", line_server.pbm_port)) as sock:
        sock.sendall(b"board 1")
    fresh = LinePort(line_server.pbm_port)
    try:
        assert "Board 1:" in fresh("board 1")
    finally:
        fresh.close()


def test_the_http_door(tmp_path) -> None:
    with ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", log=tmp_path / "server.log") as server:
        http = httpx.Client(base_url=server.url, timeout=60)
        answer = http.post("/pbm", content="register alice wonderland1\n\nregister bob builder123\nboard 1\n")
        assert answer.status_code == 422  # board 1 does not exist yet
        parts = answer.text.split("\n.\n")
        assert parts[0].startswith("Welcome, alice") and parts[1].startswith("Welcome, bob")
        assert parts[2].startswith("error: no match 1")
        answer = http.post("/pbm", content="challenge alice bob wonderland1 -match 5 -hints\naccept 1 bob builder123")
        assert answer.status_code == 200 and "|BAR|" in answer.text
        assert http.get("/api/matches/1").json()["options"]["hints"] is True
        assert http.post("/pbm", content=b"\xff\xfe").status_code == 422
        assert http.post("/pbm", content=b"x" * 1_000_000).status_code == 413
        assert http.post("/pbm", content="help").status_code == 200


# -- e-mail -------------------------------------------------------------------------------------------
class Sink:
    """The relay's stand-in: keeps every message with the addresses it was sent to."""

    def __init__(self) -> None:
        self.messages: list[tuple[tuple[str, ...], object]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope) -> str:
        with self.lock:
            self.messages.append((tuple(envelope.rcpt_tos), message_from_bytes(envelope.content, policy=policy.default)))
        return "250 OK"

    def to(self, address: str) -> list:
        with self.lock:
            return [message for rcpt, message in self.messages if address in rcpt]

    def wait_for(self, address: str, count: int, timeout: float = 120.0) -> list:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.to(address)
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(f"{address} got {len(self.to(address))} mails, not {count}")


class Relay:
    """An SMTP relay standing in for the operator's: an aiosmtpd server on its own thread, on a
    socket bound to port 0 before anyone is told its port."""

    def __init__(self, sink: Sink) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        async def serve() -> None:
            self.server = await self.loop.create_server(lambda: SMTP(sink, hostname="relay"), sock=self.sock)
            ready.set()

        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(serve(), self.loop)
        assert ready.wait(60)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)


@pytest.fixture
def mail_server(tmp_path):
    sink = Sink()
    relay = Relay(sink)
    try:
        with ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", "--smtp-port", "0", "--smtp-relay",
                           f"127.0.0.1:{relay.port}", "--mail-from", "gammon@test", log=tmp_path / "server.log",
                           env=MANY_COMMANDS) as server:
            assert server.smtp_port
            server.sink = sink
            yield server
    finally:
        relay.stop()


def _send(server: ServerProcess, subject: str, body: str | bytes, sender: str) -> None:
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=60) as smtp:
        smtp.send_message(message_from_bytes(_mail(subject, body, sender), policy=policy.default),
                          to_addrs=["play@gammon"])


def _body(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


_wait = wait_for


def _code(sink: Sink, address: str) -> str:
    """The confirmation code the server mailed to ``address`` last."""
    mails = _wait(lambda: [m for m in sink.to(address) if "confirm your address" in str(m["subject"])], "code mail")
    return re.search(r"confirm \S+ PASSWORD (\d{8})", _body(mails[-1])).group(1)


def _confirmed(http: httpx.Client, sink: Sink, name: str, address: str) -> None:
    """``name`` gives ``address`` and confirms it with the code mailed there (by the HTTP door)."""
    answer = http.post("/pbm", content=f"email {name} {PASSWORDS[name]} {address}")
    assert answer.status_code == 200 and "a code was mailed" in answer.text, answer.text
    confirmed = http.post("/pbm", content=f"confirm {name} {PASSWORDS[name]} {_code(sink, address)}")
    assert confirmed.status_code == 200 and address in confirmed.text, confirmed.text


def test_a_whole_match_by_mail_answers_only_confirmed_addresses(mail_server) -> None:
    http = httpx.Client(base_url=mail_server.url, timeout=60)
    sink = mail_server.sink
    addresses = {"alice": "alice@example.org", "bob": "bob@example.org"}
    for name in addresses:
        assert http.post("/pbm", content=f"register {name} {PASSWORDS[name]}").status_code == 200
    # alice gives her address by mail: a code, and nothing else, goes there until she confirms it
    _send(mail_server, f"email alice {PASSWORDS['alice']} alice@example.org", "", "alice@example.org")
    code = _code(sink, "alice@example.org")
    assert len(sink.to("alice@example.org")) == 1
    _send(mail_server, f"confirm alice {PASSWORDS['alice']} {code}", "", "alice@example.org")
    _wait(lambda: "at alice@example.org" in http.post("/pbm", content=f"mail alice {PASSWORDS['alice']} on").text,
          "address for alice")
    # bob gives his through the JSON API, and confirms it there
    bob = Client(http, "bob", PASSWORDS["bob"]).log_in()
    page = http.put("/api/users/me/mail", json={"email": "bob@example.org"}, headers=bob.headers).json()
    assert page["email"] is None and page["email_pending"] == "bob@example.org"
    wrong = http.post("/api/users/me/mail/confirm", json={"code": "00000000"}, headers=bob.headers)
    assert wrong.status_code == 422
    page = http.post("/api/users/me/mail/confirm", json={"code": _code(sink, "bob@example.org")}, headers=bob.headers)
    assert page.status_code == 200 and page.json()["email"] == "bob@example.org"
    _send(mail_server, "backgammon challenge", f"challenge alice bob {PASSWORDS['alice']} -match 1", "alice@example.org")
    invitation = _wait(lambda: [m for m in sink.to("bob@example.org") if "challenges you" in str(m["subject"])],
                       "invitation")
    board = int(re.search(r"Board (\d+)", _body(invitation[-1])).group(1))
    assert "to a 1-point match, no clock, rated" in _body(invitation[-1])  # what accepting agrees to, in full
    # an invitation made on the web with a clock says so in its mail before bob accepts
    alice = Client(http, "alice", PASSWORDS["alice"]).log_in()
    timed = alice.challenge("bob", length=3, clock={"delay": 12, "reserve": 300}, variant="nackgammon")["id"]
    told = _wait(lambda: [m for m in sink.to("bob@example.org") if f"Board {timed}:" in _body(m)], "clocked invitation")
    assert "to a 3-point match of nackgammon, 12 s a move + 5:00 in reserve, rated" in _body(told[-1]), _body(told[-1])
    _send(mail_server, "", f"accept {board} bob {PASSWORDS['bob']}", "bob@example.org")
    # a forged From: mallory guesses alice's password from alice's own address: alice hears of it,
    # without her text or anyone's password echoed; from mallory's own address nobody is mailed
    before = len(sink.messages)
    _send(mail_server, "", f"move {board} alice not-her-password 13-10", "mallory@evil.example")
    _send(mail_server, "", f"move {board} alice not-her-password 13-10", "alice@example.org")
    refusal = _wait(lambda: [m for m in sink.to("alice@example.org") if "wrong name or password" in _body(m)], "refusal")
    assert "not-her-password" not in _body(refusal[-1]) and str(refusal[-1]["subject"]) == "gammon: answers to your commands"
    assert not any("mallory" in address for rcpt, _ in sink.messages[before:] for address in rcpt)
    rng = random.Random(11)
    for _ in range(600):
        state = http.get(f"/api/matches/{board}").json()
        if state["status"] == "finished":
            break
        if "play" not in state["actions"]:
            time.sleep(0.05)
            continue
        name = state["players"][state["to_act"]]
        boards = _wait(lambda: [m for m in sink.to(addresses[name]) if " plays O " in _body(m)], "board mail")  # noqa: B023 - called within this iteration
        frame = BLACK if re.search(r"(\S+) plays O ", _body(boards[-1])).group(1) == name else WHITE
        game = GameState.from_gnubg_id(state["gnubg_id"])
        move = pbm_notation.format_play(rng.choice(list(game.position.legal_plays(*game.dice))), frame)
        _send(mail_server, f"move {board} {name} {PASSWORDS[name]} {move}", "", addresses[name])
        _wait(lambda: http.get(f"/api/matches/{board}").json()["version"] != state["version"], "move applied")  # noqa: B023 - called within this iteration
    else:
        raise AssertionError("the match by mail did not end")
    assert http.get(f"/api/matches/{board}").json()["status"] == "finished"
    for address in addresses.values():  # the last answer, and the end of the match told to both
        _wait(lambda: any("The match is over" in _body(m) for m in sink.to(address)), f"match end for {address}")  # noqa: B023 - called within this iteration
    # every mail went to a confirmed address; mallory never got one
    recipients = {address for rcpt, _ in sink.messages for address in rcpt}
    assert recipients == set(addresses.values()), recipients
    # turn mails: each got the board when it became their turn (by whatever door the last move came)
    assert any("your turn" in str(m["subject"]) for m in sink.to("alice@example.org") + sink.to("bob@example.org"))
    assert all("wonderland1" not in _body(m) and "builder123" not in _body(m) for _, m in sink.messages)


def test_garbage_and_huge_mails_leave_the_listener_up(mail_server) -> None:
    http = httpx.Client(base_url=mail_server.url, timeout=60)
    http.post("/pbm", content="register alice wonderland1")
    _confirmed(http, mail_server.sink, "alice", "alice@example.org")
    _send(mail_server, "", bytes(range(256)) * 100, "alice@example.org")
    _send(mail_server, "frobnicate", "\x00\x01 more garbage", "alice@example.org")
    with pytest.raises(smtplib.SMTPException):
        _send(mail_server, "board 1", "x" * 1_000_000, "alice@example.org")
    _send(mail_server, "help alice", "", "nobody@example.org")  # names alice, but not from her: not mailed
    _send(mail_server, "help alice", "", "alice@example.org")
    help_mail = _wait(lambda: [m for m in mail_server.sink.to("alice@example.org") if "Commands" in _body(m)], "help")
    assert len(help_mail) == 1
    recipients = {address for rcpt, _ in mail_server.sink.messages for address in rcpt}
    assert recipients == {"alice@example.org"}
    assert http.get("/api/health").status_code == 200


def test_mail_off_stops_turn_mails_but_not_answers(mail_server) -> None:
    http = httpx.Client(base_url=mail_server.url, timeout=60)
    sink = mail_server.sink
    setup = "\n".join([f"register alice {PASSWORDS['alice']}", f"register bob {PASSWORDS['bob']}"])
    assert http.post("/pbm", content=setup).status_code == 200
    _confirmed(http, sink, "alice", "alice@example.org")
    _confirmed(http, sink, "bob", "bob@example.org")
    assert http.post("/pbm", content=f"mail bob {PASSWORDS['bob']} off").status_code == 200
    board = int(re.search(r"Board (\d+)", http.post("/pbm", content=f"challenge alice bob {PASSWORDS['alice']}").text)
                .group(1))
    http.post("/pbm", content=f"accept {board} bob {PASSWORDS['bob']}")
    rng = random.Random(5)
    acted = []
    for _ in range(6):  # six plays through the HTTP door: turns pass both ways
        state = http.get(f"/api/matches/{board}").json()
        if "play" not in state["actions"]:
            break
        name = state["players"][state["to_act"]]
        acted.append(name)
        legal = http.post("/pbm", content=f"move {board} {name} {PASSWORDS[name]} ?").text
        move = rng.choice(_legal_moves(legal.rstrip(".\n")))
        assert http.post("/pbm", content=f"move {board} {name} {PASSWORDS[name]} {move}").status_code == 200
    assert acted.count("alice") >= 2 and acted.count("bob") >= 2, acted  # the turn came to bob after a play
    _wait(lambda: any("your turn" in str(m["subject"]) for m in sink.to("alice@example.org")), "alice's turn mail")
    # an answer to a command bob sends by mail still reaches him
    _send(mail_server, f"board {board} bob", "", "bob@example.org")
    _wait(lambda: any(" plays O " in _body(m) for m in sink.to("bob@example.org")), "bob's answer")
    # No turn mail for bob, checked once none can still come: a graceful stop sends what was queued
    mail_server.stop()
    assert mail_server.process.returncode == -signal.SIGTERM, "gammon serve did not stop gracefully"
    assert not any("your turn" in str(m["subject"]) for m in sink.to("bob@example.org"))


def test_mail_to_one_address_is_limited_and_codes_more_so(tmp_path) -> None:
    sink = Sink()
    relay = Relay(sink)
    try:
        server = ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", "--smtp-port", "0", "--smtp-relay",
                               f"127.0.0.1:{relay.port}", log=tmp_path / "server.log", env={"GAMMON_LIMIT_MAILS": "3"})
        with server:
            http = httpx.Client(base_url=server.url, timeout=60)
            setup = "\n".join(f"register {name} {password}" for name, password in PASSWORDS.items())
            assert http.post("/pbm", content=setup).status_code == 200
            _confirmed(http, sink, "bob", "bob@example.org")
            for _ in range(6):  # six invitations to bob: three mails
                assert http.post("/pbm", content=f"challenge alice bob {PASSWORDS['alice']}").status_code == 200
            for _ in range(5):  # carol asks for a code again and again: three codes
                http.post("/pbm", content=f"email carol {PASSWORDS['carol']} carol@example.org")
            server.stop()  # a graceful stop sends what was queued: nothing more can come
        invitations = [m for m in sink.to("bob@example.org") if "challenges you" in str(m["subject"])]
        assert len(invitations) == 3
        assert len(sink.to("carol@example.org")) == 3
    finally:
        relay.stop()


# -- what the answers say: the HTTP door of an app in this process ----------------------------------
@pytest.fixture
def door(tmp_path):
    """``POST /pbm`` of a server in this process: a command in, its answer's text and whether it was done."""
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'server.db'}", bot_workers=1, hint_player="pubeval",
                        limits=Limits(commands_per_address=100_000, provisional_matches=0))
    with TestClient(create_app(settings)) as http:

        def say(line: str) -> tuple[str, bool]:
            answer = http.post("/pbm", content=line)
            assert answer.status_code in (200, 422), answer.text
            return answer.text.removesuffix("\n.\n"), answer.status_code == 200

        say.http = http
        yield say


def _started(say, length: int = 3) -> tuple[int, str]:
    """alice (white) challenges bob (black); bob accepts: the board and the first answer."""
    say("register alice wonderland1\nregister bob builder123")
    board = int(re.match(r"Board (\d+):", say(f"challenge alice bob wonderland1 -match {length}")[0]).group(1))
    return board, say(f"accept {board} bob builder123")[0]


def _turn(answer: str) -> tuple[int, str]:
    found = TURN.search(answer)
    assert found, answer
    return int(found.group(1)), found.group(2)


def test_every_play_is_told_in_the_boards_numbers_as_it_is_sent(door) -> None:
    board, answer = _started(door)
    rng = random.Random(4)
    sent: list[tuple[str, str]] = []
    for _ in range(8):
        number, name = _turn(answer)
        listed, done = door(f"move {board} {name} {PASSWORDS[name]} ?")
        assert done and listed.startswith("Your legal moves with "), listed  # the list, and nothing else
        move = rng.choice(listed.splitlines()[1:]).strip()
        answer, done = door(f"move {board} {name} {PASSWORDS[name]} {move}#{number}")
        assert done, answer
        assert answer.startswith(f"You play {move}"), (move, answer)  # the numbers the player sent
        sent.append((name, move))
    history = door(f"history {board}")[0]
    chosen = "\n".join(line for line in history.splitlines() if "made for" not in line)  # not the forced plays
    assert re.findall(r"^\s*\d+\s+(\S+) plays (\S+?)(?:\.$|, | \()", chosen, re.M) == sent


def test_each_side_is_the_letter_the_web_board_gives_it(door) -> None:
    board, answer = _started(door)
    # the web board's words for the picture (its <desc>) call white X and black O
    svg = door.http.get(f"/api/matches/{board}/board", params={"view": "white"}).json()["svg"]
    assert "White (X)" in svg and "Black (O)" in svg
    assert answer.split("\n\n")[-1].splitlines()[0] == (f"Board {board}: bob plays O (ohs, from 24 down to 1), alice plays X "
                                      "(eks, from 1 up to 24); a 3-point match.")
    _, name = _turn(answer)
    assert TURN.search(answer).group(3) == ("X" if name == "alice" else "O")


def test_refusals_say_you_and_what_to_do(door) -> None:
    board, answer = _started(door)
    number, mover = _turn(answer)
    waiter = "bob" if mover == "alice" else "alice"
    refusal, done = door(f"double {board} {mover} {PASSWORDS[mover]}")
    assert not done and refusal.startswith("error: you cannot double after rolling"), refusal
    assert f"manual {board} {mover} PASSWORD" in refusal and f"double {board} {mover} PASSWORD" in refusal
    refusal, done = door(f"roll {board} {mover} {PASSWORDS[mover]}")
    assert not done and f"manual {board} {mover} PASSWORD" in refusal, refusal
    refusals = [refusal, door(f"take {board} {waiter} {PASSWORDS[waiter]}")[0],
                door(f"move {board} {waiter} {PASSWORDS[waiter]} ?")[0],
                door(f"move {board} {waiter} {PASSWORDS[waiter]} 13-10")[0]]
    for text in refusals:
        assert text.startswith("error: ") and not re.search(r"\b(white|black)\b", text), text
    # a move guarded by the number of a turn played already, or of one not yet come
    later, done = door(f"move {board} {mover} {PASSWORDS[mover]} 13-10#{number + 1}")
    assert not done and f"is at move {number}, not yet at move {number + 1}" in later, later
    listed = door(f"move {board} {mover} {PASSWORDS[mover]} ?")[0]
    answer, done = door(f"move {board} {mover} {PASSWORDS[mover]} {listed.splitlines()[1].strip()}#{number}")
    assert done, answer
    again, done = door(f"move {board} {mover} {PASSWORDS[mover]} 13-10#{number}")
    assert not done and f"move {number} of board {board} was played already" in again, again
    assert "earlier" not in later + again and "later" not in later + again


def test_a_bots_reply_comes_in_the_same_answer(door) -> None:
    door("register alice wonderland1")
    answer, done = door("challenge alice bot:pubeval wonderland1 -match 1")
    assert done, answer
    board = int(re.search(r"Board (\d+):", answer).group(1))
    rng = random.Random(9)
    for _ in range(30):
        assert "bot:pubeval PASSWORD" not in answer and "is thinking" not in answer, answer
        if "The match is over" in answer:
            break
        number, name = _turn(answer)  # after every answer it is alice's turn again: the bot has replied
        assert name == "alice", answer
        listed = door(f"move {board} alice wonderland1 ?")[0]
        answer, done = door(f"move {board} alice wonderland1 {rng.choice(listed.splitlines()[1:]).strip()}#{number}")
        assert done, answer
        assert "The match is over" in answer or re.search(r"^bot:pubeval (plays|cannot move)", answer, re.M), answer
    history = door(f"history {board}")[0]
    assert "bot:pubeval plays " in history


def test_plays_made_for_a_player_say_why() -> None:
    names = {WHITE: "alice", BLACK: "bob"}
    bear_off = Play((Move(6, OFF), Move(5, OFF)))
    greedy = MailNarrator(names, WHITE, greedy=[WHITE])
    assert greedy.tell(Played(1, WHITE, bear_off, (10, 20), automatic=True)) == \
        "You play 19-H,20-H, bearing off 2 checkers (greedy: made for you)."
    assert greedy.tell(Played(1, BLACK, bear_off, (10, 20), automatic=True)) == \
        "bob plays 6-H,5-H, bearing off 2 checkers (forced: made for bob)."
    # the narrator of the web and the terminal keeps its words
    assert Narrator(names, WHITE).tell(Played(1, BLACK, bear_off, (10, 20), automatic=True)) == \
        "bob plays 19/off 20/off, bearing off 2 checkers (made for bob)."


def test_a_variant_is_chosen_by_mail_and_played_as_on_the_web(door) -> None:
    door("register alice wonderland1\nregister bob builder123")
    invited, done = door("challenge alice bob wonderland1 -match 3 -twomovedoubles -nackgammon -nackgammon")
    assert done and "a 3-point match of nackgammon with two move doubles" in invited, invited
    board = int(re.match(r"Board (\d+):", invited).group(1))
    answer, done = door(f"accept {board} bob builder123")
    assert done and "of nackgammon with two move doubles." in answer, answer
    view = door.http.get(f"/api/matches/{board}").json()
    assert view["options"]["variant"] == "nackgammon,two-move-doubles"
    assert view["pips"] == {"white": 194, "black": 194}  # nackgammon's start: the opening roll is not played yet
    refused, done = door("challenge alice bob wonderland1 -hypergammon")
    assert not done and "-hypergammon" in refused and "-nackgammon" in refused, refused


def test_players_by_mail_mix_seeds_of_their_own_into_the_dice(door) -> None:
    door("register alice wonderland1\nregister bob builder123")
    invited, done = door("challenge alice bob wonderland1 -match 3")
    board = int(re.match(r"Board (\d+):", invited).group(1))
    shown = door.http.get(f"/api/matches/{board}").json()["dice_proof"]["commitment"]  # before bob's seed
    assert door(f"accept {board} bob builder123 Bob's-Own_seed")[1]
    proof = door.http.get(f"/api/matches/{board}").json()["dice_proof"]
    assert proof["opponent_seed"] == "Bob's-Own_seed" and proof["commitment"] == shown  # its case kept
    assert proof["drawn"] == ["challenger"]  # alice sent none: hers comes from the commitment
    refused, done = door(f"accept {board} bob builder123 another-seed")
    assert not done and "a seed goes with accepting a challenge only" in refused

    # a challenger asks for the commitment first, then sends a seed of their own with it
    answer, done = door("commit alice wonderland1")
    assert done, answer
    digest, token = re.search(r"its SHA-256 is ([0-9a-f]{64})", answer).group(1), re.search(r"-commitment (\S+)", answer).group(1)
    started, done = door(f"challenge alice bot:pubeval wonderland1 -commitment {token} -seed alices-seed")
    assert done, started
    mine = door.http.get("/api/matches", params={"user": "alice", "status": "playing"}).json()
    proof = door.http.get(f"/api/matches/{max(m['id'] for m in mine)}").json()["dice_proof"]
    assert proof["commitment"] == digest and proof["challenger_seed"] == "alices-seed" and proof["drawn"] == ["opponent"]
    again, done = door(f"challenge alice bot:pubeval wonderland1 -commitment {token} -seed alices-seed")
    assert not done and "commitment" in again  # a commitment serves one challenge
    without, done = door("challenge alice bob -seed alices-seed")
    assert not done and "need alice's password" in without
