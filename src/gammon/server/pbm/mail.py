"""Play by e-mail: an SMTP listener (aiosmtpd) for commands, and the mail the server sends.

Commands come from the Subject line and the body (one a line; quoted ``>`` lines and
everything after a ``-- `` signature line are skipped). The server mails only **confirmed**
addresses (a code is mailed to a new address, and nothing else until it is confirmed), and
never echoes what a stranger wrote: an answer holds the server's own text only, under a fixed
subject, and goes only to accounts the commands proved with their password (or whose own
address sent them). A player with mail on their turn on gets the board whenever it becomes
their turn, whatever door the move came through.

Limits count who they limit. A mail's commands count against its sender (:func:`mail_client`),
never the relay every mail comes through. An address gets so many mails an hour about what its
owner did (answers), and as many again from each other player (invitations, turns, ends), so
others cannot use up the mails that answer the owner; an account may have so many codes an
hour mailed, and so many to one address, so strangers cannot use up an owner's codes.
"""

from __future__ import annotations

import asyncio
import email.policy
import email.utils
import logging
import smtplib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session
from sqlalchemy import select

from ..accounts import Account
from ..database import Readers
from ..errors import ServerConfigError, TooManyRequests
from ..limits import Buckets
from ..matches.live import LiveMatch
from ..models import USERS
from .executor import Answer, Host, run

log = logging.getLogger("gammon.server.pbm")
MAX_MAIL = 256 * 1024  #: a larger mail is refused by the listener (552) before it is read
MAX_COMMANDS = 20  #: commands read from one mail
SENDING = 4  #: mails being sent at once
CODES_PER_HOUR = 3  #: confirmation codes one account may have mailed to one address an hour
CODES_PER_ACCOUNT = 6  #: confirmation codes one account may have mailed an hour, to every address together


@dataclass(frozen=True)
class Relay:
    """Where the server's mails are sent from and through: ``host:port`` of an SMTP relay."""

    host: str
    port: int
    sender: str

    @classmethod
    def parse(cls, text: str, sender: str) -> Relay:
        host, _, port = text.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ServerConfigError(f"--smtp-relay: expected HOST:PORT such as 127.0.0.1:25, got {text!r}")
        return cls(host, int(port), sender)

    def send(self, to: str, subject: str, body: str) -> None:
        """One plain-text mail to one address (the caller has checked it may be mailed)."""
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = self.sender, to, subject
        message.set_content(body)
        try:
            with smtplib.SMTP(self.host, self.port, timeout=60) as smtp:
                smtp.send_message(message)
        except (OSError, smtplib.SMTPException) as error:
            log.warning("mail to %s through %s:%d not sent: %s", to, self.host, self.port, error)


class Mailer:
    """Every mail the server sends: confirmation codes, answers, turns; rate-limited (see the module)."""

    def __init__(self, relay: Relay, readers: Readers, per_hour: int,
                 draw: Callable[[LiveMatch], Awaitable[str]]) -> None:
        self.relay, self.readers, self.draw = relay, readers, draw
        self.buckets = Buckets(rate=per_hour / 60.0, burst=per_hour)  #: by address, then by (cause, address)
        self.codes = Buckets(rate=CODES_PER_HOUR / 60.0, burst=CODES_PER_HOUR)  #: by (account, address)
        self.code_requests = Buckets(rate=CODES_PER_ACCOUNT / 60.0, burst=CODES_PER_ACCOUNT)  #: by account
        self._sending = asyncio.Semaphore(SENDING)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._last: dict[int, int | None] = {}  # match -> who was to act when it was last mailed about
        self.sent = 0
        self.refused = 0

    def send(self, address: str, subject: str, body: str, *, cause: int | None = None) -> bool:
        """Queue one mail (False: the address has had its share this hour, nothing is sent). ``cause``:
        the account whose action it tells of, when not the address's owner (it has a share of its own)."""
        key = address.lower() if cause is None else f"{cause}>{address.lower()}"
        if self.buckets.take(key):
            self.refused += 1
            log.info("mail to %s not sent: its hourly limit is reached", address)
            return False
        task = asyncio.ensure_future(self._send(address, subject, body))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    def reserve_code(self, account: Account, address: str) -> None:
        """Take one of the codes ``account`` may have mailed this hour, to ``address`` (429 when none is left)."""
        for buckets, key, limit in ((self.codes, f"{account.id}>{address.lower()}",
                                     f"{CODES_PER_HOUR} codes an hour to one address"),
                                    (self.code_requests, str(account.id), f"{CODES_PER_ACCOUNT} codes an hour")):
            wait = buckets.take(key)
            if wait:
                self.refused += 1
                raise TooManyRequests(f"email: at most {limit}: no code was sent; try again in "
                                      f"{int(wait // 60) + 1} minutes", retry_after=wait)

    async def _send(self, address: str, subject: str, body: str) -> None:
        async with self._sending:
            await asyncio.to_thread(self.relay.send, address, subject, body)
            self.sent += 1

    def confirmation(self, address: str, name: str, code: str) -> None:
        """The code that confirms ``address`` for ``name`` (the only mail an unconfirmed address gets;
        counted by :meth:`reserve_code` before the code was made)."""
        task = asyncio.ensure_future(self._send(
            address, "gammon: confirm your address",
            f"Someone, probably you, gave this address to the gammon account {name}.\n"
            f"To receive its answers and turns here, send:\n\n  confirm {name} PASSWORD {code}\n\n"
            "(or enter the code on the site). If it was not you, ignore this mail: nothing more will come."))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def changed(self, live: LiveMatch) -> None:
        """After a committed change: mail the player whose turn it has become, the one challenged,
        or both players at the end (confirmed address, mail on turn on)."""
        info = live.info
        to_act = info.to_act_id if info.status == "playing" else None
        if self._last.get(info.id, -1) == to_act and info.status == "playing":
            return
        self._last[info.id] = to_act
        if info.status == "invited" and info.challenger_confirmed:
            seats, subject = [info.black], f"gammon board {info.id}: {info.white.name} challenges you"
        elif info.status == "finished":
            seats, subject = [info.white, info.black], f"gammon board {info.id}: the match is over"
            self._last.pop(info.id, None)
        elif to_act is not None:
            seat = info.seat(to_act)
            seats, subject = ([seat] if seat is not None else []), f"gammon board {info.id}: your turn"
        else:
            return
        people = [seat for seat in seats if not seat.is_bot]
        if people:
            task = asyncio.ensure_future(self._mail_turn(live, [seat.id for seat in people], subject))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _mail_turn(self, live: LiveMatch, user_ids: list[int], subject: str) -> None:
        rows = await self.readers.run(lambda connection: connection.execute(
            select(USERS.c.id, USERS.c.name, USERS.c.email, USERS.c.mail_on_turn).where(USERS.c.id.in_(user_ids))).all())
        wanted = [(row.id, row.name, row.email) for row in rows if row.email and row.mail_on_turn]
        if not wanted:
            return
        text = await self.draw(live)
        info = live.info
        for user_id, name, address in wanted:  # the other player's doing: counted as theirs, not the owner's
            other = info.black.id if user_id == info.white.id else info.white.id
            self.send(address, subject, text + f"\n\n(mail {name} PASSWORD off: no more mails on your turn)", cause=other)

    async def stop(self, patience: float = 1.0) -> None:
        """Send what is queued (for at most ``patience`` seconds), then give up on the rest."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=patience)
        for task in list(self._tasks):
            task.cancel()


def mail_client(sender: str | None) -> str:
    """Who a mail's commands count against (for every limit): its sender, never the relay, which
    every mail comes through (keyed by it, one sender's wrong passwords would lock out everyone)."""
    return f"mail:{(sender or '').strip().lower()[:254]}"


def commands_of(content: bytes) -> tuple[str | None, list[str]]:
    """(the sender's address, the command lines) of a mail; a mail with no readable text has none."""
    try:
        message = email.message_from_bytes(content, policy=email.policy.default)
        subject = str(message.get("subject", "") or "")
        sender = email.utils.parseaddr(str(message.get("from", "") or ""))[1] or None
    except Exception:  # noqa: BLE001 - a header no parser reads: treat it as a mail without commands
        return None, []
    lines = []
    subject = _without_replies(subject)
    if subject.strip() and not subject.lower().startswith("gammon"):
        lines.append(subject.strip())
    try:
        body = message.get_body(preferencelist=("plain",))
        text = body.get_content() if body is not None else ""
    except Exception:  # noqa: BLE001 - a broken part or charset: the subject alone is read
        text = ""
    if not isinstance(text, str):
        text = ""
    for line in text.splitlines():
        if line.rstrip() == "--":
            break
        if line.strip() and not line.lstrip().startswith(">"):
            lines.append(line.strip())
    return sender, lines[:MAX_COMMANDS]


def _without_replies(subject: str) -> str:
    """The subject after its ``Re:`` and ``Fwd:`` prefixes (any case, any number), each passed over in
    place: cutting and lowering the whole subject once per prefix is quadratic in a long subject."""
    at = 0
    while (head := subject[at:at + 4].lower()).startswith(("re:", "fwd:")):
        at += head.index(":") + 1
        while at < len(subject) and subject[at].isspace():
            at += 1
    return subject[at:]


class CommandMail:
    """The aiosmtpd handler: every mail's commands are run, and the answers mailed as above."""

    def __init__(self, host: Host, mailer: Mailer) -> None:
        self.host, self.mailer = host, mailer

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        try:
            await self.answer(envelope.original_content or envelope.content or b"")
        except Exception:  # a mail must never take the listener down
            log.exception("a mail's commands could not be run")
        return "250 OK"

    async def answer(self, content: bytes | str) -> dict[str, list[Answer]]:
        """Run the mail's commands (counted against its sender); mail each allowed address the answers meant for it."""
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogateescape")
        sender, lines = commands_of(content)
        by_address: dict[str, list[Answer]] = {}
        for line in lines:
            answer = await run(self.host, line, mail_client(sender), sender)
            for address in answer.recipients:
                by_address.setdefault(address, []).append(answer)
        if not by_address:
            log.info("a mail with %d command lines proved no account with an address: no answer sent", len(lines))
        for address, answers in by_address.items():
            self.mailer.send(address, "gammon: answers to your commands", "\n\n".join(answer.text for answer in answers))
        return by_address


async def serve_mail(host: Host, address: str, port: int, *, shared: bool = False) -> asyncio.AbstractServer:
    """The SMTP listener on ``address:port``, on the running event loop (``shared``: with other processes)."""
    handler = CommandMail(host, host.mailer)
    loop = asyncio.get_running_loop()

    def protocol() -> Any:
        return SMTP(handler, data_size_limit=MAX_MAIL, enable_SMTPUTF8=True, decode_data=False,
                    hostname="gammon", ident="gammon play by mail")

    return await loop.create_server(protocol, address, port, reuse_port=shared)
