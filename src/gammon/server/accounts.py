"""Accounts: names, argon2id password hashes, bearer tokens and the log-in rate limit.

A token is 32 random bytes shown once; the database keeps only its SHA-256, so a copy of the
database logs nobody in. Passwords are never stored, logged or echoed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session as DbSession

from .errors import Conflict, TooManyRequests, Unauthorized, Unprocessable
from .models import LoginFailure, Session, User, utcnow

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{1,19}$")
MIN_PASSWORD, MAX_PASSWORD = 8, 256
#: Wrong passwords for one name within the window before log-ins are refused with 429.
FAILURES_ALLOWED, FAILURE_WINDOW = 5, dt.timedelta(minutes=5)

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters


def check_name(name: object) -> str:
    if not isinstance(name, str) or not NAME.match(name):
        raise Unprocessable("name: expected 2-20 characters, a letter first, then letters, digits, '_', '.' or '-'")
    return name


def check_password(password: object) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Unprocessable(f"password: expected {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def password_matches(stored: str | None, password: str) -> bool:
    if not stored:
        return False
    try:
        return _hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def register(db: DbSession, name: object, password: object) -> User:
    name, password = check_name(name), check_password(password)
    if find_user(db, name) is not None:
        raise Conflict(f"name: {name!r} is taken")
    user = User(name=name, password_hash=hash_password(password))
    db.add(user)
    db.flush()
    return user


def find_user(db: DbSession, name: str) -> User | None:
    """The user of ``name``, compared without regard to case (so ``Alice`` and ``alice`` are one)."""
    return db.scalars(select(User).where(func.lower(User.name) == name.lower())).first()


def authenticate(db: DbSession, name: object, password: object) -> User:
    """The user whose name and password these are; 401 otherwise, 429 after a run of wrong passwords."""
    if not isinstance(name, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD:
        raise Unauthorized("wrong name or password")
    since = utcnow() - FAILURE_WINDOW
    failures = db.scalar(select(func.count()).select_from(LoginFailure)
                         .where(LoginFailure.name == name.lower(), LoginFailure.at > since))
    if failures >= FAILURES_ALLOWED:
        raise TooManyRequests(f"too many wrong passwords for {name!r}: try again in {FAILURE_WINDOW.seconds // 60} minutes")
    user = find_user(db, name)
    if user is None or user.is_bot or not password_matches(user.password_hash, password):
        db.add(LoginFailure(name=name.lower()))
        db.commit()
        raise Unauthorized("wrong name or password")
    db.execute(delete(LoginFailure).where(LoginFailure.name == name.lower()))
    return user


def new_session(db: DbSession, user: User) -> str:
    token = secrets.token_urlsafe(32)
    db.add(Session(token_hash=token_hash(token), user_id=user.id))
    return token


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def user_of_token(db: DbSession, token: str | None) -> User:
    if not token or len(token) > 200:
        raise Unauthorized("log in first: send 'Authorization: Bearer TOKEN' from POST /api/sessions")
    session = db.scalars(select(Session).where(Session.token_hash == token_hash(token))).first()
    if session is None:
        raise Unauthorized("this token is not valid (logged out, or never issued): log in again")
    return session.user


def end_session(db: DbSession, token: str) -> None:
    db.execute(delete(Session).where(Session.token_hash == token_hash(token)))


def change_password(db: DbSession, user: User, old: object, new: object) -> None:
    if not isinstance(old, str) or not password_matches(user.password_hash, old):
        raise Unauthorized("the current password is wrong")
    user.password_hash = hash_password(check_password(new))
    # every other log-in ends with the old password
    db.execute(delete(Session).where(Session.user_id == user.id))
