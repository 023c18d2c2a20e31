"""Accounts over HTTP: registering, logging in and out, your log-ins, your password and address."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path, Request, Response
from pydantic import Field

from ..accounts import Account
from ..errors import NotFound
from ..pbm.executor import give_address
from ..profiles import profile
from .common import COOKIE, DEVICE_COOKIE, Body, Me, Server, address

router = APIRouter(tags=["accounts"])


class Credentials(Body):
    name: str = Field(max_length=64)
    password: str = Field(max_length=1024)
    device: str | None = Field(default=None, max_length=200, description="the device token an earlier log-in gave")


class PasswordChange(Body):
    old: str = Field(max_length=1024)
    new: str = Field(max_length=1024)


class MailSettings(Body):
    email: str | None = Field(default=None, max_length=254)
    mail_on_turn: bool | None = None


class Code(Body):
    code: str = Field(max_length=20)


async def _page(server: Any, name: str) -> dict[str, Any]:
    found: dict[str, Any] | None = await server.readers.run(
        lambda connection: profile(connection, name, server.settings.limits.provisional_matches))
    if found is None:
        raise NotFound(f"no user {name[:64]!r}")
    return found


async def _me(server: Any, account: Account) -> dict[str, Any]:
    """Your page, with what only you see: your addresses for play by mail."""
    fresh = await server.accounts.find(account.name)
    assert fresh is not None
    page = await _page(server, account.name)
    return {**page, "email": fresh.email, "email_pending": fresh.email_pending, "mail_on_turn": fresh.mail_on_turn}


@router.post("/api/users", status_code=201)
async def register(body: Credentials, request: Request, server: Server) -> dict[str, Any]:
    account = await server.accounts.register(body.name, body.password, address(request))
    return await _page(server, account.name)


@router.post("/api/sessions")
async def log_in(body: Credentials, request: Request, response: Response, server: Server) -> dict[str, Any]:
    """A log-in: its token (also set as an HttpOnly cookie) and the device token to send next time."""
    device = body.device or request.cookies.get(DEVICE_COOKIE)
    made = await server.accounts.log_in(body.name, body.password, address(request), device,
                                        request.headers.get("user-agent"))
    secure = server.settings.secure_cookies or request.url.scheme == "https"
    days = server.settings.session_days
    response.set_cookie(COOKIE, made.token, httponly=True, samesite="strict", secure=secure, max_age=days * 86400)
    response.set_cookie(DEVICE_COOKIE, made.device, httponly=True, samesite="strict", secure=secure,
                        max_age=365 * 86400)
    return {"token": made.token, "device": made.device, "name": made.account.name, "days": days}


@router.get("/api/sessions")
async def log_ins(me: Me, server: Server) -> list[dict[str, Any]]:
    """Your log-ins that have not ended: when made and last used, until when, from where."""
    return await server.accounts.sessions(me)


@router.delete("/api/sessions", status_code=204)
async def log_out(me: Me, server: Server, response: Response, all: bool = False) -> None:  # noqa: A002 - the name the API gives it
    """End this log-in (``?all=true``: every log-in of yours)."""
    if all:
        await server.accounts.revoke(me)
    else:
        await server.accounts.log_out(me)
    response.delete_cookie(COOKIE)


@router.delete("/api/sessions/{session_id}", status_code=204)
async def revoke(me: Me, server: Server, session_id: int = Path(ge=1, le=2**62)) -> None:
    """End one of your log-ins."""
    if not await server.accounts.revoke(me, session_id):
        raise NotFound(f"you have no log-in {session_id}")


@router.get("/api/users/me")
async def me(me: Me, server: Server) -> dict[str, Any]:
    return await _me(server, me)


@router.put("/api/users/me/password", status_code=204)
async def change_password(body: PasswordChange, request: Request, me: Me, server: Server) -> None:
    """A new password; every log-in ends (log in again)."""
    await server.accounts.change_password(me, body.old, body.new, address(request))


@router.put("/api/users/me/mail")
async def set_mail(body: MailSettings, me: Me, server: Server) -> dict[str, Any]:
    """Your address for play by mail (null: none) and whether your turns are mailed to you.

    A new address gets a code by mail; it is used once confirmed (``POST /api/users/me/mail/confirm``)."""
    if "email" in body.model_fields_set:
        if body.email is None:
            await server.accounts.forget_address(me)
        else:
            await give_address(server.accounts, server.mailer, me, body.email)
    if body.mail_on_turn is not None:
        await server.accounts.set_mail_on_turn(me, body.mail_on_turn)
    return await _me(server, me)


@router.post("/api/users/me/mail/confirm")
async def confirm_mail(body: Code, me: Me, server: Server) -> dict[str, Any]:
    """Confirm the address waiting for confirmation with the code mailed to it."""
    await server.accounts.confirm_address(me, body.code)
    return await _me(server, me)


@router.get("/api/users/{name}")
async def user_page(name: str, server: Server) -> dict[str, Any]:
    """A player's page: rating (provisional or not), experience, record, recent matches, rating history."""
    return await _page(server, name)
