"""Play by e-mail: an SMTP listener (aiosmtpd) for commands, and answers and turns sent through a relay.

Commands come from the Subject line and the body (one a line; quoted ``>`` lines and
everything after a ``-- `` signature line are skipped). Answers go **only** to the
addresses registered for the accounts the commands name, never to the From header, so the
server cannot be made to mail strangers. A player with an address, and mail on their turn
on, gets the board whenever it becomes their turn, whatever door the move came through.
"""

from __future__ import annotations

import asyncio
import email.policy
import logging
import smtplib
import socket
import threading
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session

from ..errors import ServerConfigError
from ..models import MatchRow, User
from .executor import Answer, Host, report, run
from .language import masked

log = logging.getLogger("gammon.server.pbm")
MAX_MAIL = 256 * 1024  #: a larger mail is refused by the listener (552) before it is read
MAX_COMMANDS = 20  #: commands read from one mail


@dataclass(frozen=True)
class Relay:
    """Where answers are sent from and through: ``host:port`` of an SMTP relay."""

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
        """One plain-text mail to one address (the caller has checked it is a registered one)."""
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = self.sender, to, subject
        message.set_content(body)
        try:
            with smtplib.SMTP(self.host, self.port, timeout=60) as smtp:
                smtp.send_message(message)
        except (OSError, smtplib.SMTPException) as error:
            log.warning("mail to %s through %s:%d not sent: %s", to, self.host, self.port, error)


def commands_of(content: bytes) -> tuple[str, list[str]]:
    """(the subject, the command lines) of a mail; a mail with no readable text has none."""
    try:
        message = email.message_from_bytes(content, policy=email.policy.default)
        subject = str(message.get("subject", "") or "")
    except Exception:  # a header no parser reads: treat it as a mail without commands
        return "", []
    lines = []
    while subject.lower().startswith(("re:", "fwd:")):
        subject = subject.split(":", 1)[1].strip()
    if subject.strip():
        lines.append(subject.strip())
    try:
        body = message.get_body(preferencelist=("plain",))
        text = body.get_content() if body is not None else ""
    except Exception:  # a broken part or charset: the subject alone is read
        text = ""
    if not isinstance(text, str):
        text = ""
    for line in text.splitlines():
        if line.rstrip() == "--":
            break
        if line.strip() and not line.lstrip().startswith(">"):
            lines.append(line.strip())
    return subject, lines[:MAX_COMMANDS]


class CommandMail:
    """The aiosmtpd handler: every mail's commands are run, and the answers mailed as above."""

    def __init__(self, host: Host, relay: Relay) -> None:
        self.host, self.relay = host, relay

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        try:
            await asyncio.to_thread(self.answer, envelope.original_content or envelope.content or b"")
        except Exception:  # a mail must never take the listener down
            log.exception("a mail's commands could not be run")
        return "250 OK"

    def answer(self, content: bytes | str) -> dict[str, list[tuple[str, Answer]]]:
        """Run the mail's commands; mail each registered address the answers meant for it."""
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogateescape")
        subject, lines = commands_of(content)
        by_address: dict[str, list[tuple[str, Answer]]] = {}
        for line in lines:
            answer = run(self.host, line)
            for address in answer.recipients:
                by_address.setdefault(address, []).append((masked(line), answer))
        if not by_address:
            log.info("a mail with %d command lines named no account with an address: no answer sent", len(lines))
        for address, answers in by_address.items():
            body = "\n\n".join(f"> {line}\n{answer.text}" for line, answer in answers)
            self.relay.send(address, f"Re: {subject}" if subject else "gammon: your commands", body)
        return by_address


class TurnMailer:
    """Mails the board to a player whose turn it has become, an invitation to the one challenged,
    and the final board to both when the match ends (address set, mail on turn on)."""

    def __init__(self, host: Host, relay: Relay) -> None:
        self.host, self.relay = host, relay
        self._last: dict[int, int | None] = {}  # match -> who was to act when we last looked
        self._lock = threading.Lock()

    def changed(self, match_id: int) -> None:
        """Called (in a thread) after every committed change of ``match_id``."""
        with self.host.db() as db:
            row = db.get(MatchRow, match_id)
            if row is None:
                return
            to_act = row.to_act_id if row.status == "playing" else None
            with self._lock:
                if self._last.get(match_id, -1) == to_act:
                    return
                self._last[match_id] = to_act
            if row.status == "invited":
                users, subject = [row.black], f"gammon board {row.id}: {row.white.name} challenges you"
            elif row.status == "finished":
                users, subject = [row.white, row.black], f"gammon board {row.id}: the match is over"
            elif to_act is not None:
                users, subject = [db.get(User, to_act)], f"gammon board {row.id}: your turn"
            else:
                return
            text = report(db, row)
            mails = [(user.name, user.email) for user in users
                     if user is not None and not user.is_bot and user.email and user.mail_on_turn]
        for name, address in mails:
            footer = f"\n\n(mail {name} PASSWORD off: no more mails on your turn)"
            self.relay.send(address, subject, text + footer)


async def serve_mail(host: Host, relay: Relay, address: str, port: int | None,
                     sock: socket.socket | None = None) -> asyncio.Server:
    """The SMTP listener on ``address:port`` (or the bound ``sock``), on the running event loop."""
    handler = CommandMail(host, relay)
    loop = asyncio.get_running_loop()

    def protocol() -> Any:
        return SMTP(handler, data_size_limit=MAX_MAIL, enable_SMTPUTF8=True, decode_data=False,
                    hostname="gammon", ident="gammon play by mail")

    if sock is not None:
        return await loop.create_server(protocol, sock=sock)
    return await loop.create_server(protocol, address, port)

