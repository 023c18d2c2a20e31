"""What every router needs: the runtime, who is asking, and from where."""

from __future__ import annotations

from typing import Annotated, Any, cast

from fastapi import Depends, Path, Request
from pydantic import BaseModel, ConfigDict

from ..accounts import Account
from ..errors import ServerError
from ..runtime import Runtime
from ..security import same_origin

COOKIE = "gammon_session"  #: the web client's log-in (HttpOnly, SameSite=Strict)
DEVICE_COOKIE = "gammon_device"  #: a browser that logged in before (see gammon.server.accounts)
MatchId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the match's number")]


class Body(BaseModel):
    """A request body: unknown fields and loose types are refused (422 naming the field)."""

    model_config = ConfigDict(extra="forbid", strict=True)


async def runtime(request: Request) -> Runtime:
    """The runtime (async: a plain function would be run on FastAPI's thread pool for nothing)."""
    return cast(Runtime, request.app.state.runtime)  # set by create_app


def address(request: Request) -> str:
    """The client's address (behind a trusted proxy, the one it reports)."""
    return request.client.host if request.client is not None else "unknown"


def token_of(request: Any) -> tuple[str | None, bool]:
    """The bearer token, or the web client's cookie; and whether it came from the cookie."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip(), False
    return request.cookies.get(COOKIE), True


def host_url(request: Any) -> str:
    """This site's own origin as a browser names it (a WebSocket's ws:// is the page's http://)."""
    scheme = {"ws": "http", "wss": "https"}.get(request.url.scheme, request.url.scheme)
    return f"{scheme}://{request.headers.get('host', request.url.netloc)}"


async def account(request: Request) -> Account:
    """Who sends this request (401 without a valid log-in; a cookie's write must come from this site)."""
    token, by_cookie = token_of(request)
    if by_cookie and token:
        same_origin(request.method, request.headers, host_url(request))
    return await (await runtime(request)).accounts.authenticate(token)


async def viewer(request: Request) -> Account | None:
    """Who is looking, if logged in (a spectator otherwise): what they see is told to them."""
    token, _ = token_of(request)
    if not token:
        return None
    try:
        return await (await runtime(request)).accounts.authenticate(token)
    except ServerError:  # a stale token, or the database too busy to say: they see what anyone sees
        return None


Me = Annotated[Account, Depends(account)]
Viewer = Annotated[Account | None, Depends(viewer)]
Server = Annotated[Runtime, Depends(runtime)]
