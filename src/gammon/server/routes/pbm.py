"""Play by mail over HTTP: ``POST /pbm`` with commands, one a line (docs/pbm.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from ..pbm.executor import answers
from ..pbm.line_server import framed
from .common import Server, address

router = APIRouter(tags=["play by mail"])


@router.post("/pbm", response_class=PlainTextResponse,
             responses={422: {"description": "a command was refused (its answer says why)"},
                        429: {"description": "too many commands from this address"}})
async def play_by_mail(request: Request, server: Server) -> PlainTextResponse:
    """Commands of the play-by-mail language, one a line (text/plain); each answer ends with a line ``.``."""
    body = await request.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return PlainTextResponse("error: the commands are not UTF-8 text; nothing was done\n.\n", status_code=422)
    results = await answers(server, text, address(request))
    status = 200 if all(answer.ok for answer in results) else 429 if any(answer.limited for answer in results) else 422
    return PlainTextResponse(b"".join(framed(answer) for answer in results).decode("utf-8"), status_code=status)
