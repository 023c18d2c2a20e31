"""The event stream of a match (WebSocket): every event in order, then each new one once.

A stream reads what happened before it joined from the database, then takes the match's
news from the process's broadcaster (:mod:`gammon.server.notify`); it never polls. It reads
as well as sends, so it notices at once a client that has gone, and it closes (1001) when
the server stops, or (4401) at its next news once the log-in it was opened with has ended.
Each event is told for whoever watches: a player hears "you". A player watching is present:
when their turn comes, a clock waiting for them starts (docs/server.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Annotated, Any

from fastapi import APIRouter, Query, WebSocket, WebSocketDisconnect

from ..errors import NotFound, ServerError, Unauthorized
from ..matches.store import EventRow
from ..matches.views import event_view, narrator_for
from ..runtime import Runtime
from ..security import same_origin
from .common import MatchId, host_url, token_of

router = APIRouter(tags=["matches"])
GOING_AWAY, TRY_LATER, LOGGED_OUT, NOT_FOUND = 1001, 1013, 4401, 4404


@router.websocket("/api/matches/{match_id}/events")
async def events(websocket: WebSocket, match_id: MatchId,
                 after: Annotated[int, Query(ge=-1, le=2**31 - 1)] = -1) -> None:
    """Every event of the match numbered after ``after``, in order, then each new one as it happens."""
    server: Runtime = websocket.app.state.runtime
    client = websocket.client.host if websocket.client is not None else "unknown"
    if server.streams_by_address[client] >= server.settings.limits.websockets_per_address:
        await websocket.close(code=TRY_LATER, reason="too many streams from this address")
        return
    server.streams_by_address[client] += 1
    try:
        await _stream(server, websocket, match_id, after)
    finally:
        server.streams_by_address[client] -= 1
        if server.streams_by_address[client] <= 0:
            del server.streams_by_address[client]


async def _still_logged_in(server: Runtime, token: str | None) -> bool:
    """False once the token's log-in has ended; a busy server (503) does not end a stream."""
    try:
        await server.accounts.authenticate(token)
    except Unauthorized:
        return False
    except ServerError:
        return True
    return True


async def _stream(server: Runtime, websocket: WebSocket, match_id: int, after: int) -> None:
    await websocket.accept()
    try:
        live = await server.service.current(match_id)
    except NotFound:
        await websocket.send_json({"error": f"no match {match_id}"})
        await websocket.close(code=NOT_FOUND)
        return
    except ServerError as error:
        await websocket.send_json({"error": error.message})
        await websocket.close(code=TRY_LATER)
        return
    side = player = None
    token, by_cookie = token_of(websocket)
    if token:
        with contextlib.suppress(ServerError):
            if by_cookie:
                same_origin("POST", websocket.headers, host_url(websocket))  # a page on another site sees a spectator's view
            player = (await server.accounts.authenticate(token)).id
            side = live.color_of(player)
    awaited = player is not None and server.service.awaits(player, live)

    async def attend() -> None:
        """A player watching is present: their clock, if it waits for them on their turn, starts."""
        nonlocal awaited
        if not awaited or player is None:
            return
        with contextlib.suppress(ServerError):  # asked again with the next news
            now = await server.service.attend(player, await server.service.current(match_id))
            awaited = server.service.awaits(player, now)
    narrator = narrator_for(live, side)
    told: dict[int, str] = {}

    def text(row: EventRow) -> str:
        if row.seq not in told:
            told[row.seq] = json.dumps(event_view(row, narrator))
        return told[row.seq]

    last = after
    with server.broadcaster.watching(match_id) as (feed, queue):
        for row in await server.service.events(match_id, last):
            await websocket.send_text(text(row))
            last = row.seq
        feed.caught_up(last)
        await attend()
        receiving = asyncio.ensure_future(websocket.receive())
        stopping = asyncio.ensure_future(server.stopping.wait())
        try:
            while True:
                news = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({news, receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if news not in done:
                    news.cancel()
                if stopping in done:
                    await websocket.close(code=GOING_AWAY, reason="the server is stopping")
                    return
                if receiving in done:
                    message: Any = receiving.result()
                    if message.get("type") == "websocket.disconnect":
                        return
                    receiving = asyncio.ensure_future(websocket.receive())  # clients may say anything: ignored
                if news in done:
                    rows = news.result()
                    if rows is None:  # fell too far behind, or the server stops: come back with ?after=
                        await websocket.close(code=TRY_LATER, reason=f"reconnect with ?after={last}")
                        return
                    if player is not None and not await _still_logged_in(server, token):
                        # its log-in ended (logged out, revoked, a new password): no more of a player's view
                        await websocket.close(code=LOGGED_OUT, reason="the log-in has ended: log in again")
                        return
                    if rows[0].seq > last + 1:  # the feed began after this stream's catch-up read
                        for row in await server.service.events(match_id, last, rows[0].seq):
                            await websocket.send_text(text(row))
                            last = row.seq
                    for row in rows:
                        if row.seq > last:
                            await websocket.send_text(text(row))
                            last = row.seq
                    told.clear()
                    await attend()
        except (WebSocketDisconnect, RuntimeError, ConnectionError):
            return
        finally:
            for task in (receiving, stopping):
                task.cancel()
