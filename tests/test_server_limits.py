"""Limits keyed by who they limit: per account and per client (through trusted proxies only),
never by a relay; a stranger's failures never block what an owner asks with their own token or
password; invitations per person invited; codes per requester; commitments bound to an account.

The servers here run in this process (``TestClient``) as the peer ``127.0.0.1``, so a test names
the client behind a proxy with ``X-Forwarded-For``; the connection cap, which lives in the
server's HTTP protocol, is tested on a real ``gammon serve``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import socket
import time
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from gammon.server.app import create_app
from gammon.server.errors import ServerConfigError, TooManyRequests
from gammon.server.models import COMMITMENTS
from gammon.server.pbm.executor import run
from gammon.server.pbm.mail import CODES_PER_ACCOUNT, CODES_PER_HOUR, CommandMail, Mailer, mail_client
from gammon.server.settings import Limits, Settings
from server_support import Client, ServerProcess, database

PROXY = "127.0.0.1"  #: where TestClient's requests come from


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


def _dead_relay() -> str:
    """A relay address nothing listens on: mails to it fail at once, and are logged."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def _app(url: str, *, proxies: str | None = None, relay: bool = False, **limits: Any) -> TestClient:
    settings = Settings(db_url=url, bot_workers=1, hint_player="pubeval", trusted_proxies=proxies,
                        smtp_relay=_dead_relay() if relay else None, limits=Limits(**limits))
    return TestClient(create_app(settings), client=(PROXY, 50000))


def _from(client: str) -> dict[str, str]:
    return {"X-Forwarded-For": client}


def _mail(sender: str, line: str) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, "play@gammon", line
    message.set_content("")
    return message.as_bytes()


def _confirmed(http: TestClient, name: str, address: str) -> None:
    """``name``'s address confirmed, as the code mailed to it would (the relay here delivers nothing)."""
    accounts = http.app.state.runtime.accounts
    account = http.portal.call(accounts.find, name)
    code = http.portal.call(accounts.request_address, account, address)
    http.portal.call(accounts.confirm_address, account, code)


# -- play by mail: the sender, never the relay ------------------------------------------------------------
def test_mail_is_limited_by_its_sender_never_by_the_relay(db_url) -> None:
    with _app(db_url, relay=True, login_per_address=5, commands_per_address=30) as http:
        runtime = http.app.state.runtime
        mail = CommandMail(runtime, runtime.mailer)
        http.post("/pbm", content="register alice wonderland1\nregister mallory password-m")
        _confirmed(http, "alice", "alice@example.org")
        _confirmed(http, "mallory", "mallory@evil.example")

        def send(sender: str, line: str) -> str:
            """One mail through the one relay every mail comes through; its answer to the sender's account."""
            answers = http.portal.call(mail.answer, _mail(sender, line))
            return "\n".join(answer.text for answer in answers.get(sender, []))

        # mallory's wrong passwords count against her sender, until it is refused ...
        told = [send("mallory@evil.example", f"mail mallory wrong-password-{i} on") for i in range(6)]
        assert told[:5] == ["error: wrong name or password"] * 5
        assert told[5].startswith("error: too many log-in attempts for this address")
        # ... and not against alice, whose mail comes through the same relay
        assert "you will get a mail with the board" in send("alice@example.org", "mail alice wonderland1 on")
        # so do commands: mallory's use up her sender's share, alice's are hers
        answers = [send("mallory@evil.example", "help mallory") for _ in range(30)]
        assert answers[0].startswith("Commands") and answers[-1] == ""  # refused before it is read: told to nobody
        limited = http.portal.call(run, runtime, "help", mail_client("mallory@evil.example"))
        assert limited.limited and limited.text.startswith("error: too many commands from you")
        assert "no more mails on your turn" in send("alice@example.org", "mail alice wonderland1 off")


# -- invitations ----------------------------------------------------------------------------------------------
def test_a_challenge_without_its_challengers_password_spends_its_senders_invitations(db_url) -> None:
    with _app(db_url, proxies=PROXY, challenges_per_user=3, invitations_per_target=100) as http:
        alice, _, _ = (Client(http, name).register() for name in ("alice", "bob", "carol"))
        http.cookies.clear()
        stranger = _from("10.6.6.6")
        made = [http.post("/pbm", content="challenge alice bob", headers=stranger) for _ in range(4)]
        assert [answer.status_code for answer in made] == [200, 200, 200, 429]
        assert "without the challenger's password from one sender" in made[3].text
        # alice's own invitations are all hers still
        for opponent in ("carol", "bob"):
            assert http.post("/api/matches", json={"opponent": opponent, "length": 1},
                             headers=alice.headers).status_code == 201
        # confirming one of the stranger's makes it hers, and counts: her third, then no more
        board = int(made[0].text.split("Board ", 1)[1].split(":", 1)[0])
        assert http.post(f"/api/matches/{board}/accept", headers=alice.headers).status_code == 200
        over = http.post("/api/matches", json={"opponent": "carol", "length": 1}, headers=alice.headers)
        assert over.status_code == 429 and "alice: at most 3 invitations an hour" in over.json()["detail"]


def test_one_person_is_sent_at_most_so_many_invitations_an_hour(db_url) -> None:
    with _app(db_url, challenges_per_user=1, invitations_per_target=3, registrations_per_address=100) as http:
        Client(http, "bob").register()
        Client(http, "carol").register()
        senders = [Client(http, f"p{i}").register() for i in range(4)]
        answers = [http.post("/api/matches", json={"opponent": "bob", "length": 1}, headers=sender.headers)
                   for sender in senders]
        assert [answer.status_code for answer in answers] == [201, 201, 201, 429]
        assert "bob has been sent 3 invitations this hour" in answers[3].json()["detail"]
        # the refused invitation did not count against its sender: its one invitation is left
        assert http.post("/api/matches", json={"opponent": "carol", "length": 1},
                         headers=senders[3].headers).status_code == 201


class _Relay:
    """A relay that keeps what it is given."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def send(self, to: str, subject: str, body: str) -> None:
        self.sent.append((to, subject))


def test_mails_others_cause_leave_the_owners_own_mails_and_codes_alone() -> None:
    class Account:
        def __init__(self, user_id: int) -> None:
            self.id = user_id

    async def scenario() -> tuple[list[bool], bool, list[str]]:
        relay = _Relay()
        mailer = Mailer(relay, None, 3, None)  # type: ignore[arg-type]  # neither reads nor draws here
        caused = [mailer.send("bob@example.org", "challenge", "", cause=7) for _ in range(5)]
        own = mailer.send("bob@example.org", "answer", "")
        refusals = []
        mallory, carol = Account(7), Account(8)
        for _ in range(CODES_PER_HOUR + 1):
            try:
                mailer.reserve_code(mallory, "carol@example.org")
            except TooManyRequests as error:
                refusals.append(error.message)
        mailer.reserve_code(carol, "Carol@example.org")  # carol's own codes are hers
        for i in range(CODES_PER_ACCOUNT - CODES_PER_HOUR):
            mailer.reserve_code(mallory, f"other{i}@example.org")
        try:
            mailer.reserve_code(mallory, "yet-another@example.org")
        except TooManyRequests as error:
            refusals.append(error.message)
        await mailer.stop()
        return caused, own, refusals

    caused, own, refusals = asyncio.run(scenario())
    assert caused == [True, True, True, False, False] and own is True
    assert len(refusals) == 2
    assert re.fullmatch(f"email: at most {CODES_PER_HOUR} codes an hour to one address: no code was sent; try again "
                        r"in \d+ minutes", refusals[0])
    assert re.fullmatch(f"email: at most {CODES_PER_ACCOUNT} codes an hour: no code was sent; try again in "
                        r"\d+ minutes", refusals[1])


def test_strangers_cannot_use_up_an_owners_confirmation_codes(db_url) -> None:
    with _app(db_url, relay=True) as http:
        http.post("/pbm", content="register mallory password-m\nregister carol christmas99")
        for _ in range(CODES_PER_HOUR):
            assert http.post("/pbm", content="email mallory password-m carol@example.org").status_code == 200
        refused = http.post("/pbm", content="email mallory password-m carol@example.org")
        assert refused.status_code == 429 and "no code was sent" in refused.text
        own = http.post("/pbm", content="email carol christmas99 carol@example.org")
        assert own.status_code == 200 and "a code was mailed to carol@example.org" in own.text
        carol = Client(http, "carol", "christmas99").log_in()
        for _ in range(CODES_PER_HOUR - 1):  # the same share by the JSON door
            assert http.put("/api/users/me/mail", json={"email": "carol@example.org"},
                            headers=carol.headers).status_code == 200
        over = http.put("/api/users/me/mail", json={"email": "carol@example.org"}, headers=carol.headers)
        assert over.status_code == 429 and "no code was sent" in over.json()["detail"]


# -- an owner's password change ----------------------------------------------------------------------------------
def test_strangers_guesses_never_block_the_owners_password_change(db_url) -> None:
    with _app(db_url, proxies=PROXY) as http:
        assert http.post("/api/users", json={"name": "alice", "password": "correct horse"},
                         headers=_from("10.1.1.1")).status_code == 201
        token = http.post("/api/sessions", json={"name": "alice", "password": "correct horse"},
                          headers=_from("10.1.1.1")).json()["token"]
        other = http.post("/api/sessions", json={"name": "alice", "password": "correct horse"},
                          headers=_from("10.1.1.1")).json()["token"]
        http.cookies.clear()  # the stranger has none of alice's cookies
        guesses = [http.post("/api/sessions", json={"name": "alice", "password": f"guess {i}"},
                             headers=_from("10.6.6.6")).status_code for i in range(12)]
        assert guesses[-1] == 429
        # a new log-in from a new address is held up by the guesses (the name's limit) ...
        assert http.post("/api/sessions", json={"name": "alice", "password": "correct horse"},
                         headers=_from("10.2.2.2")).status_code == 429
        # ... but alice, logged in, with her token and her password, is not; her own wrong tries
        # are counted by her log-in: ten, then no more from it
        mine = [http.put("/api/users/me/password", json={"old": f"not it {i}", "new": "battery staple"},
                         headers={"Authorization": f"Bearer {token}", **_from("10.2.2.2")}).status_code
                for i in range(11)]
        assert mine == [401] * 10 + [429]
        changed = http.put("/api/users/me/password", json={"old": "correct horse", "new": "battery staple"},
                           headers={"Authorization": f"Bearer {other}", **_from("10.2.2.2")})
        assert changed.status_code == 204, changed.text


# -- commitments ----------------------------------------------------------------------------------------------
def test_commitments_belong_to_an_account_are_limited_and_swept(db_url) -> None:
    from gammon.server.matches.service import COMMITMENTS_OPEN

    with _app(db_url) as http:
        assert http.post("/api/commitments").status_code == 401
        alice, bob = Client(http, "alice").register(), Client(http, "bob").register()
        http.cookies.clear()
        tokens = [http.post("/api/commitments", headers=alice.headers) for _ in range(COMMITMENTS_OPEN + 1)]
        assert [answer.status_code for answer in tokens] == [200] * COMMITMENTS_OPEN + [429]
        assert "unused commitments" in tokens[-1].json()["detail"]
        mine = tokens[0].json()["token"]
        # only alice may use hers
        taken = http.post("/api/matches", json={"opponent": "alice", "length": 1, "seed": "bob-seed",
                                                "commitment": mine}, headers=bob.headers)
        assert taken.status_code == 422 and "unknown, used or expired" in taken.json()["detail"]
        used = http.post("/api/matches", json={"opponent": "bob", "length": 1, "seed": "alice-seed",
                                               "commitment": mine}, headers=alice.headers)
        assert used.status_code == 201 and used.json()["dice_proof"]["commitment"] == tokens[0].json()["commitment"]
        assert http.post("/api/commitments", headers=alice.headers).status_code == 200  # one was used: room again
        # unused ones are swept once too old to use
        runtime = http.app.state.runtime
        with runtime.database.begin() as connection:
            connection.execute(COMMITMENTS.update().values(created=dt.datetime(2000, 1, 1)))
        assert http.portal.call(runtime.service.sweep_commitments) == COMMITMENTS_OPEN
        with runtime.database.connect() as connection:
            assert connection.execute(COMMITMENTS.select()).first() is None


# -- proxies --------------------------------------------------------------------------------------------------
def test_no_proxy_is_believed_unless_named(tmp_path) -> None:
    with _app(f"sqlite:///{tmp_path / 'server.db'}", login_per_address=3) as http:
        answers = [http.post("/api/sessions", json={"name": f"n{i}", "password": "wrong password"},
                             headers=_from(f"10.0.{i}.1")).status_code for i in range(4)]
        assert answers == [401, 401, 401, 429]  # the forwarded addresses were the client's own words


def test_behind_a_named_proxy_limits_count_the_client_it_reports(tmp_path) -> None:
    with _app(f"sqlite:///{tmp_path / 'server.db'}", proxies=f"{PROXY}, 10.9.0.0/16", login_per_address=3) as http:
        clients = [http.post("/api/sessions", json={"name": f"n{i}", "password": "wrong password"},
                             headers=_from(f"10.0.{i}.1")).status_code for i in range(5)]
        assert clients == [401] * 5  # five clients behind the proxy, each within its own limit
        # a client that forges hops of its own is the right-most hop no proxy added
        forged = [http.post("/api/sessions", json={"name": f"m{i}", "password": "wrong password"},
                            headers=_from(f"203.0.113.{i}, 198.51.100.7, 10.9.1.1")).status_code for i in range(4)]
        assert forged == [401, 401, 401, 429]
        sessions = http.post("/api/sessions", json={"name": "n0", "password": "wrong password"},
                             headers={"X-Forwarded-For": "10.0.0.1", "X-Forwarded-Proto": "https"})
        assert sessions.headers.get("strict-transport-security")  # the scheme the proxy reports, too


@pytest.mark.parametrize("value", ["localhost", "10.0.0.0/33", "127.0.0.1,, nonsense"])
def test_a_proxy_that_is_not_an_address_is_refused_by_name(value: str) -> None:
    with pytest.raises(ServerConfigError, match="GAMMON_TRUSTED_PROXIES"):
        Settings.from_environment({"GAMMON_TRUSTED_PROXIES": value})


def _in_flight(port: int, client: str) -> socket.socket:
    """A request through the proxy for ``client`` whose body has not come yet: it stays in flight."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    sock.sendall(f"POST /api/sessions HTTP/1.1\r\nhost: gammon\r\nx-forwarded-for: {client}\r\n"
                 "content-type: application/json\r\ncontent-length: 100\r\n\r\n".encode())
    return sock


def test_the_connection_cap_counts_the_client_behind_a_proxy_not_the_proxy(tmp_path) -> None:
    env = {"GAMMON_TRUSTED_PROXIES": PROXY, "GAMMON_LIMIT_CONNECTIONS": "4", "GAMMON_LIMIT_BODY_TIMEOUT": "120"}
    with ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", log=tmp_path / "server.log", env=env) as server:
        held = [_in_flight(server.port, "10.0.0.1") for _ in range(4)]
        try:
            deadline = time.monotonic() + 60  # until the server has read all four requests' headers
            while time.monotonic() < deadline:
                answer = httpx.get(f"{server.url}/api/health", headers=_from("10.0.0.1"), timeout=60)
                if answer.status_code == 429:
                    break
                time.sleep(0.1)
            assert answer.status_code == 429 and "too many connections" in answer.text
            # every other client behind the same proxy is served
            assert httpx.get(f"{server.url}/api/health", headers=_from("10.0.0.2"), timeout=60).status_code == 200
        finally:
            for sock in held:
                sock.close()
        deadline = time.monotonic() + 60  # and once its requests are gone, the first client is served again
        while httpx.get(f"{server.url}/api/health", headers=_from("10.0.0.1"), timeout=60).status_code != 200:
            assert time.monotonic() < deadline, "the closed requests still count"
            time.sleep(0.1)
