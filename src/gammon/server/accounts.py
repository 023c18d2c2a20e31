"""Accounts: names, passwords, log-ins that expire, the devices they come from, and the limits
that keep guessers out without locking owners out.

A token is 32 random bytes shown once; the database keeps only its SHA-256, so a copy of the
database logs nobody in. Passwords are never stored, logged or echoed, and are hashed
(argon2id) by a small pool of threads (:class:`Passwords`) that takes only so many at once.

Log-in attempts are counted before any password is hashed (:mod:`gammon.server.limits`):
per address, and per name — except from a **known device** (a browser holding the device
cookie an earlier log-in of that account gave it, or an address it logged in from before),
which has a count of its own. So a stranger guessing a name is stopped after a few tries,
while the owner, from where they always log in, is not; an attempt that succeeds gives its
count back. An owner already logged in who gives the password again (to change it) is counted
by that log-in alone, so strangers' guesses never block what the owner's token and password ask.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import datetime as dt
import hashlib
import logging
import re
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import Connection, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from .database import Readers
from .errors import Conflict, TooManyRequests, Unauthorized, Unavailable, Unprocessable
from .limits import forget, hit, sweep
from .matches.store import Seat
from .models import DEVICES, LIMITS, NETWORKS, SESSIONS, USERS, network, skeleton, utcnow
from .settings import Limits
from .writer import Writer

log = logging.getLogger("gammon.server")
T = TypeVar("T")
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{1,19}")  #: matched whole (``fullmatch``): no trailing newline slips in
EMAIL = re.compile(r"[^@\s<>,;\"']{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+")
MIN_PASSWORD, MAX_PASSWORD = 8, 256
TOUCH_EVERY = dt.timedelta(minutes=10)  #: a log-in's last use is written at most this often
#: Log-ins remembered by a single-process server (the least recently used go first).
KNOWN_LOG_INS = 10_000
CODE_HOURS = 24  #: how long an address confirmation code stays valid


@dataclass(frozen=True, slots=True)
class Account:
    """Who a request comes from: the account, and the log-in it used (None: a password each time)."""

    id: int
    name: str
    is_bot: bool
    session_id: int | None = None
    email: str | None = None
    email_pending: str | None = None
    mail_on_turn: bool = True

    @property
    def seat(self) -> Seat:
        return Seat(self.id, self.name, self.is_bot)


@dataclass(frozen=True, slots=True)
class LogIn:
    """A log-in made: its token, the device token to keep, and the account."""

    token: str
    device: str
    account: Account


def check_name(name: object) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise Unprocessable("name: expected 2-20 characters, a letter first, then letters, digits, '_', '.' or '-'")
    return name


def check_password(password: object, name: str | None = None) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Unprocessable(f"password: expected {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    if name is not None and password.lower() == name.lower():
        raise Unprocessable("password: it must not be the name")
    return password


def check_email(address: object) -> str:
    if not isinstance(address, str) or len(address) > 254 or not EMAIL.fullmatch(address):
        raise Unprocessable(f"email: expected an address such as you@example.org, got {str(address)[:60]!r}")
    return address


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def _address_device(user_id: int, address: str) -> str:
    return token_hash(f"address|{user_id}|{address}")


class Passwords:
    """argon2id hashing on a bounded pool of threads: over ``queue`` waiting, a request is refused (503)."""

    def __init__(self, workers: int, queue: int) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(max(1, workers), thread_name_prefix="gammon-hash")
        self._hasher = PasswordHasher()
        self.queue, self.waiting = queue, 0
        self._dummy: str | None = None

    async def _run(self, function: Any, *args: Any) -> Any:
        if self.waiting >= self.queue:
            raise Unavailable("too many log-ins at once: try again in a moment")
        self.waiting += 1
        try:
            return await asyncio.wrap_future(self._pool.submit(function, *args))
        finally:
            self.waiting -= 1

    async def hash(self, password: str) -> str:
        return str(await self._run(self._hasher.hash, password))

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``stored`` hashes; without a hash, the same work for nothing."""
        if not stored:
            if self._dummy is None:
                self._dummy = await self.hash(secrets.token_hex(16))
            await self._run(self._matches, self._dummy, password)
            return False
        return bool(await self._run(self._matches, stored, password))

    def _matches(self, stored: str, password: str) -> bool:
        try:
            return self._hasher.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class Accounts:
    """Registration, log-ins and their limits, sessions, devices and addresses (see the module)."""

    def __init__(self, readers: Readers, writer: Writer, passwords: Passwords, limits: Limits,
                 session_days: int = 30, *, single_process: bool = False) -> None:
        self.readers, self.writer, self.passwords, self.limits = readers, writer, passwords, limits
        self.session_days = session_days
        self._touching: set[int] = set()
        #: With no other process writing the database, a log-in read once is remembered until
        #: this process ends it (every change of an account goes through :meth:`_change`, which forgets it).
        self.single_process = single_process
        self._known: OrderedDict[str, tuple[Account, dt.datetime, dt.datetime]] = OrderedDict()
        #: Changes of accounts committed so far: a read that overlapped one is not remembered.
        self._forgotten = 0

    # -- finding ---------------------------------------------------------------------------------
    async def find(self, name: str) -> Account | None:
        """The account of ``name``, compared without regard to case."""
        return await self.readers.run(lambda connection: _find(connection, name))

    async def bot(self, name: str) -> Account:
        """The account of a bot (``bot:PLAYER``), opened on first use."""
        found = await self.find(name)
        if found is not None:
            return found

        def work(connection: Connection) -> Account:
            existing = _find(connection, name)
            if existing is not None:
                return existing
            connection.execute(insert(USERS).values(name=name, skeleton=skeleton(name), is_bot=True, created=utcnow(),
                                                    rating=1500.0, experience=0, opponents=0, mail_on_turn=False))
            made = _find(connection, name)
            assert made is not None
            return made

        return await self.writer.run(work)

    # -- registering and logging in ----------------------------------------------------------------
    async def register(self, name: object, password: object, address: str) -> Account:
        name = check_name(name)
        password = check_password(password, name)
        limit = self.limits.registrations_per_address

        def reserve(connection: Connection) -> None:
            count, wait = hit(connection, f"register:{address}", 3600)
            if count > limit:
                raise TooManyRequests(f"at most {limit} accounts an hour from one address: try again later",
                                      retry_after=wait)
            _refuse_look_alike(connection, name)

        await self.writer.run(reserve)
        hashed = await self.passwords.hash(password)

        def create(connection: Connection) -> Account:
            try:
                with connection.begin_nested():
                    connection.execute(insert(USERS).values(name=name, skeleton=skeleton(name), password_hash=hashed,
                                                            is_bot=False, created=utcnow(), rating=1500.0,
                                                            experience=0, opponents=0, mail_on_turn=True))
            except IntegrityError:
                _refuse_look_alike(connection, name)  # a name registered meanwhile: say which
                raise Conflict(f"name: {name!r} is taken") from None
            made = _find(connection, name)
            assert made is not None
            _seen_on(connection, made.id, address, utcnow())
            return made

        return await self.writer.run(create)

    async def check(self, name: object, password: object, address: str) -> Account:
        """The account whose name and password these are, for a command that carries them (play by
        mail): counted against the limits like a log-in; a right one gives its count back and makes
        the address a known device of the account. 401 otherwise."""
        account, keys = await self._check(name, password, address, None)
        now = utcnow()

        def work(connection: Connection) -> None:
            _count_back(connection, keys)
            _remember_device(connection, account.id, _address_device(account.id, address), now)

        await self.writer.run(work)
        return account

    async def _check(self, name: object, password: object, address: str, device: str | None,
                     owner: Account | None = None) -> tuple[Account, list[str]]:
        """The account of this name and password, counted against the limits (see the module).
        ``owner``: the account's own log-in asks (a password change), and is counted on its own."""
        if not isinstance(name, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD \
                or len(name) > 64:
            raise Unauthorized("wrong name or password")
        key = name.lower()
        limits = self.limits
        device_hash = token_hash(device) if isinstance(device, str) and len(device) <= 200 else None

        def reserve(connection: Connection) -> tuple[Any, list[str]]:
            row = connection.execute(select(USERS.c.id, USERS.c.password_hash, USERS.c.is_bot)
                                     .where(func.lower(USERS.c.name) == key)).first()
            known = browser = None
            if row is not None:  # the browser's own device token first, else the address it comes from
                for candidate in ([device_hash] if device_hash else []) + [_address_device(row.id, address)]:
                    known = connection.execute(select(DEVICES.c.id).where(DEVICES.c.user_id == row.id,
                                                                          DEVICES.c.token_hash == candidate)).scalar()
                    if known is not None:
                        browser = candidate == device_hash
                        break
            if owner is not None:  # the owner's log-in, proving the password again: by that log-in alone,
                # so that strangers' guesses at the name never block it
                counted = [(f"password:session:{owner.session_id}" if owner.session_id is not None
                            else f"password:account:{owner.id}", limits.login_per_device)]
            else:  # a browser that logged in to this account before is counted on its own: neither
                # strangers at its address nor strangers guessing its name can lock it out
                counted = [] if browser else [(f"login:address:{address}", limits.login_per_address)]
                counted.append((f"login:device:{known}", limits.login_per_device) if known is not None
                               else (f"login:name:{key}", limits.login_per_name))
            keys = []
            for counter, limit in counted:
                count, wait = hit(connection, counter, limits.login_window)
                keys.append(counter)
                if count > limit and owner is not None:
                    raise TooManyRequests(f"too many wrong passwords from this log-in: try again in "
                                          f"{int(wait // 60) + 1} minutes", retry_after=wait)
                if count > limit:
                    who = "this address" if counter.startswith("login:address") else repr(name)
                    raise TooManyRequests(f"too many log-in attempts for {who}: try again in {int(wait // 60) + 1} "
                                          f"minutes" + ("" if known is not None or counter.startswith("login:address")
                                                        else ", or from a device you logged in from before"),
                                          retry_after=wait)
            return row, keys

        row, keys = await self.writer.run(reserve)
        good = await self.passwords.verify(row.password_hash if row is not None and not row.is_bot else None, password)
        if not good or row is None:
            raise Unauthorized("wrong name or password")
        account = await self.readers.run(lambda connection: _find(connection, name))
        if account is None:
            raise Unauthorized("wrong name or password")
        return account, keys

    async def log_in(self, name: object, password: object, address: str, device: str | None = None,
                     agent: str | None = None) -> LogIn:
        """A new log-in; ``device`` the device token an earlier log-in gave (see the module)."""
        account, keys = await self._check(name, password, address, device)
        token = secrets.token_urlsafe(32)
        device_token = device if isinstance(device, str) and 20 <= len(device) <= 200 else secrets.token_urlsafe(24)
        now = utcnow()
        days = self.session_days

        def work(connection: Connection) -> int:
            _count_back(connection, keys)
            session_id = connection.execute(insert(SESSIONS).values(
                token_hash=token_hash(token), user_id=account.id, created=now, last_used=now,
                expires=now + dt.timedelta(days=days), address=address[:64], agent=(agent or "")[:200] or None)
                .returning(SESSIONS.c.id)).scalar_one()
            for device_hash in (token_hash(device_token), _address_device(account.id, address)):
                _remember_device(connection, account.id, device_hash, now)
            _seen_on(connection, account.id, address, now)
            return int(session_id)

        session_id = await self.writer.run(work)
        return LogIn(token, device_token, _with(account, session_id=session_id))

    async def authenticate(self, token: str | None) -> Account:
        """The account a request's token belongs to; 401 when it has none, or one logged out or expired."""
        if not token or len(token) > 200:
            raise Unauthorized("log in first: send 'Authorization: Bearer TOKEN' from POST /api/sessions")
        hashed = token_hash(token)
        known = self._known.get(hashed) if self.single_process else None
        if known is not None:
            account, expires, last_used = known
            now = utcnow()
            if expires < now:
                self._known.pop(hashed, None)
                raise Unauthorized("this log-in has expired: log in again")
            if now - last_used > TOUCH_EVERY:
                self._known[hashed] = (account, now + dt.timedelta(days=self.session_days), now)
                self._touch(account.session_id or 0)
            return account

        def read(connection: Connection) -> Any:
            return connection.execute(
                select(SESSIONS.c.id.label("session_id"), SESSIONS.c.expires, SESSIONS.c.last_used,
                       *_ACCOUNT_COLUMNS).join(USERS, USERS.c.id == SESSIONS.c.user_id)
                .where(SESSIONS.c.token_hash == hashed)).first()

        epoch = self._forgotten
        row = await self.readers.run(read)
        if row is None:
            raise Unauthorized("this token is not valid (logged out, or never issued): log in again")
        now = utcnow()
        if row.expires is None or row.expires < now:
            raise Unauthorized("this log-in has expired: log in again")
        if row.last_used is None or now - row.last_used > TOUCH_EVERY:
            self._touch(row.session_id)
        account = _with(_account(row), session_id=row.session_id)
        if self.single_process and epoch == self._forgotten:  # no change of an account committed while it was read
            self._known[hashed] = (account, row.expires, row.last_used or now)
            while len(self._known) > KNOWN_LOG_INS:
                self._known.popitem(last=False)
        return account

    async def _change(self, user_id: int, work: Callable[[Connection], T], session_id: int | None = None) -> T:
        """Run ``work``, a change of ``user_id``'s account or log-ins (only ``session_id``'s, when
        given), then forget what is remembered of them: after the commit, so that no read made
        before it is remembered after it (:meth:`authenticate` keeps a read only if no change was
        committed while it ran). Forgotten whatever the outcome: forgetting is never wrong."""
        try:
            return await self.writer.run(work)
        finally:
            self._forgotten += 1
            for hashed, (account, _, _) in list(self._known.items()):
                if account.id == user_id and (session_id is None or account.session_id == session_id):
                    del self._known[hashed]

    def _touch(self, session_id: int) -> None:
        """Note a log-in's use and extend it (in the background: nothing waits on it). It only updates
        the row, so a log-in ended meanwhile stays ended."""
        if session_id in self._touching:
            return
        self._touching.add(session_id)
        now = utcnow()
        days = self.session_days

        def work(connection: Connection) -> None:
            connection.execute(update(SESSIONS).where(SESSIONS.c.id == session_id)
                               .values(last_used=now, expires=now + dt.timedelta(days=days)))

        def done(task: asyncio.Future[None]) -> None:
            self._touching.discard(session_id)
            if not task.cancelled():
                task.exception()  # a lost touch only shortens the log-in's next extension

        asyncio.ensure_future(self.writer.run(work)).add_done_callback(done)

    # -- log-ins -------------------------------------------------------------------------------------
    async def log_out(self, account: Account) -> None:
        session_id = account.session_id
        await self._change(account.id, lambda connection: connection.execute(
            SESSIONS.delete().where(SESSIONS.c.id == session_id)), session_id)

    async def sessions(self, account: Account) -> list[dict[str, Any]]:
        """Your log-ins: when made and last used, until when, from where (the current one marked)."""
        rows = await self.readers.run(lambda connection: connection.execute(
            select(SESSIONS).where(SESSIONS.c.user_id == account.id).order_by(SESSIONS.c.created.desc())).all())
        now = utcnow()
        return [{"id": row.id, "created": _iso(row.created), "last_used": _iso(row.last_used),
                 "expires": _iso(row.expires), "address": row.address, "agent": row.agent,
                 "current": row.id == account.session_id} for row in rows
                if row.expires is not None and row.expires >= now]

    async def revoke(self, account: Account, session_id: int | None = None) -> int:
        """End one of your log-ins (None: every one); how many ended."""
        def work(connection: Connection) -> int:
            query = SESSIONS.delete().where(SESSIONS.c.user_id == account.id)
            if session_id is not None:
                query = query.where(SESSIONS.c.id == session_id)
            return int(connection.execute(query).rowcount or 0)

        return await self._change(account.id, work, session_id)

    async def change_password(self, account: Account, old: object, new: object, address: str) -> None:
        """A new password; every log-in of the account ends (the caller logs in again)."""
        checked, keys = await self._check(account.name, old, address, None, owner=account)
        new = check_password(new, account.name)
        hashed = await self.passwords.hash(new)

        def work(connection: Connection) -> None:
            _count_back(connection, keys)  # a right password gives its attempt back, as a log-in does
            connection.execute(update(USERS).where(USERS.c.id == checked.id).values(password_hash=hashed))
            connection.execute(SESSIONS.delete().where(SESSIONS.c.user_id == checked.id))

        await self._change(checked.id, work)

    # -- addresses --------------------------------------------------------------------------------------
    async def request_address(self, account: Account, address: object) -> str | None:
        """Note ``address`` as waiting for confirmation; the code to mail to it (None: it is already yours)."""
        address = check_email(address)
        if account.email is not None and account.email.lower() == address.lower():
            return None
        code = f"{secrets.randbelow(10**8):08d}"

        def work(connection: Connection) -> None:
            taken = connection.execute(select(USERS.c.id).where(func.lower(USERS.c.email) == address.lower(),
                                                               USERS.c.id != account.id)).first()
            if taken is not None:
                raise Conflict("email: this address belongs to another account")
            connection.execute(update(USERS).where(USERS.c.id == account.id).values(
                email_pending=address, email_code=token_hash(code), email_code_at=utcnow()))

        await self._change(account.id, work)
        return code

    async def confirm_address(self, account: Account, code: object) -> str:
        """Confirm the waiting address with the code mailed to it; the address."""
        if not isinstance(code, str) or not re.fullmatch(r"[0-9]{8}", code.strip()):
            raise Unprocessable("code: expected the 8 digits mailed to the address")
        hashed = token_hash(code.strip())

        def work(connection: Connection) -> str:
            row = connection.execute(select(USERS.c.email_pending, USERS.c.email_code, USERS.c.email_code_at)
                                     .where(USERS.c.id == account.id)).first()
            fresh = row is not None and row.email_code_at is not None and \
                utcnow() - row.email_code_at < dt.timedelta(hours=CODE_HOURS)
            if row is None or not row.email_pending or not fresh or not secrets.compare_digest(row.email_code or "", hashed):
                raise Unprocessable("code: wrong or expired: ask for a new one by giving the address again")
            try:
                with connection.begin_nested():
                    connection.execute(update(USERS).where(USERS.c.id == account.id).values(
                        email=row.email_pending, email_pending=None, email_code=None, email_code_at=None))
            except IntegrityError:
                raise Conflict("email: this address belongs to another account") from None
            return str(row.email_pending)

        return await self._change(account.id, work)

    async def forget_address(self, account: Account) -> None:
        await self._change(account.id, lambda connection: connection.execute(
            update(USERS).where(USERS.c.id == account.id).values(email=None, email_pending=None, email_code=None,
                                                                 email_code_at=None)))

    async def set_mail_on_turn(self, account: Account, on: bool) -> None:
        await self._change(account.id, lambda connection: connection.execute(
            update(USERS).where(USERS.c.id == account.id).values(mail_on_turn=on)))

    # -- upkeep ---------------------------------------------------------------------------------------
    async def sweep(self) -> None:
        """Forget expired log-ins, finished limit windows, stale devices and codes."""
        now = utcnow()
        window = dt.timedelta(seconds=max(self.limits.login_window, 3600))

        def work(connection: Connection) -> None:
            connection.execute(SESSIONS.delete().where(SESSIONS.c.expires < now))
            sweep(connection, now - window)
            connection.execute(DEVICES.delete().where(DEVICES.c.last_used < now - dt.timedelta(days=365)))
            connection.execute(NETWORKS.delete().where(NETWORKS.c.last_seen < now - dt.timedelta(days=365)))
            connection.execute(update(USERS).where(USERS.c.email_code_at < now - dt.timedelta(hours=CODE_HOURS))
                               .values(email_pending=None, email_code=None, email_code_at=None))

        await self.writer.run(work)


_ACCOUNT_COLUMNS = (USERS.c.id, USERS.c.name, USERS.c.is_bot, USERS.c.email, USERS.c.email_pending,
                    USERS.c.mail_on_turn)


def _account(row: Any) -> Account:
    return Account(row.id, row.name, bool(row.is_bot), None, row.email, row.email_pending, bool(row.mail_on_turn))


def _with(account: Account, **changes: Any) -> Account:
    return dataclasses.replace(account, **changes)


def _find(connection: Connection, name: str) -> Account | None:
    row = connection.execute(select(*_ACCOUNT_COLUMNS).where(func.lower(USERS.c.name) == name[:64].lower())).first()
    return None if row is None else _account(row)


def _refuse_look_alike(connection: Connection, name: str) -> None:
    """409 when ``name`` is taken, or looks like a name that is (:func:`~gammon.server.models.skeleton`)."""
    existing = connection.execute(select(USERS.c.name).where(
        or_(func.lower(USERS.c.name) == name.lower(), USERS.c.skeleton == skeleton(name)))
        .order_by(USERS.c.id)).scalars().first()
    if existing is None:
        return
    if existing.lower() == name.lower():
        raise Conflict(f"name: {name!r} is taken")
    raise Conflict(f"name: {name!r} is too like an existing name, {existing!r}: choose another")


def _seen_on(connection: Connection, user_id: int, address: str, now: dt.datetime) -> None:
    """Note the network ``address`` is on for ``user_id``: a rating does not count as opponents
    people seen on one network (docs/server.md)."""
    where = network(address)
    if not connection.execute(update(NETWORKS).where(NETWORKS.c.user_id == user_id, NETWORKS.c.network == where)
                              .values(last_seen=now)).rowcount:
        try:
            with connection.begin_nested():
                connection.execute(insert(NETWORKS).values(user_id=user_id, network=where, last_seen=now))
        except IntegrityError:  # noted by another server at the same moment
            pass


def _count_back(connection: Connection, keys: list[str]) -> None:
    """An attempt that succeeded does not count against anyone: its device starts afresh."""
    for key in keys:
        if key.startswith("login:device"):
            forget(connection, key)
        else:
            _give_back(connection, key)


def _give_back(connection: Connection, key: str) -> None:
    connection.execute(update(LIMITS).where(LIMITS.c.key == key[:200], LIMITS.c.count > 0)
                       .values(count=LIMITS.c.count - 1))


def _remember_device(connection: Connection, user_id: int, device_hash: str, now: dt.datetime) -> None:
    changed = connection.execute(update(DEVICES).where(DEVICES.c.token_hash == device_hash, DEVICES.c.user_id == user_id)
                                 .values(last_used=now)).rowcount
    if not changed:
        try:
            with connection.begin_nested():
                connection.execute(insert(DEVICES).values(token_hash=device_hash, user_id=user_id, created=now,
                                                          last_used=now))
        except IntegrityError:  # the same device token for another account: it stays that account's
            pass


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat() + "Z"
