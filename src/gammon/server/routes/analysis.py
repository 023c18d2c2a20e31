"""Analysis after the match over HTTP: ask for it, read where it stands and its results, read its report.

A finished match's analysis is anyone's to read, as the match is; an uploaded record's only its
uploader's. The report is the page ``gammon analyse --html`` writes, with no script in it, kept
gzip-compressed and sent so to every client that takes gzip (every browser: a long match's page
is 40 MB of pictures, 2 MB packed). A client that does not is sent it unpacked piece by piece,
each piece unpacked in a thread (zlib lets go of the interpreter), up to :data:`MAX_PLAIN`;
a larger page it is refused (406, saying how to ask for it): unpacked, it would cost the
server twenty times the bandwidth and a script that forgot ``--compressed`` nothing.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse

from ..accounts import Account
from ..analyses import MAX_RECORD, AnalysisInfo
from ..errors import NotAcceptable, NotFound, Unprocessable
from ..runtime import Runtime
from .common import MatchId, Me, Server

router = APIRouter(tags=["analysis"])
AnalysisId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the analysis's number")]
_UPLOAD = {"requestBody": {"required": True, "content": {"text/plain": {"schema": {
    "type": "string", "maxLength": MAX_RECORD, "description": "a GNU Backgammon / Jellyfish .mat match record"}}}}}


async def _answer(server: Runtime, info: AnalysisInfo, status: int = 200) -> Response:
    return Response(await server.analyses.answer(info), status_code=status, media_type="application/json")


MAX_PLAIN = 8 * 2**20  #: the largest page sent unpacked to a client that does not take gzip, in bytes
_PIECE = 256 * 1024  #: bytes of a page unpacked at a time


def _takes_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (``gzip`` or ``*``, not at ``q=0``)."""
    for item in accept_encoding.lower().split(","):
        name, *parameters = (part.strip() for part in item.split(";"))
        weight = next((parameter[2:] for parameter in parameters if parameter.startswith("q=")), "1")
        try:
            taken = float(weight) > 0
        except ValueError:
            taken = False
        if name in ("gzip", "x-gzip", "*") and taken:
            return True
    return False


def _unpacked_size(packed: bytes) -> int:
    """A gzip member's size unpacked, from its trailer (pages are one member, far under 4 GiB)."""
    return int.from_bytes(packed[-4:], "little") if len(packed) >= 18 else 0


async def _unpacked(packed: bytes) -> AsyncIterator[bytes]:
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
    for start in range(0, len(packed), _PIECE // 16):
        data = packed[start:start + _PIECE // 16]
        while data:
            piece = await asyncio.to_thread(inflater.decompress, data, _PIECE)
            data = inflater.unconsumed_tail
            if piece:
                yield piece
    rest = inflater.flush()
    if rest:
        yield rest


def _page(request: Request, packed: bytes, name: str) -> Response:
    """The stored page: packed to a client that takes gzip, else unpacked piece by piece (see the module)."""
    headers = {"Content-Disposition": f'inline; filename="{name}"', "Vary": "Accept-Encoding"}
    if _takes_gzip(request.headers.get("accept-encoding", "")):
        return Response(packed, media_type="text/html; charset=utf-8", headers={**headers, "Content-Encoding": "gzip"})
    size = _unpacked_size(packed)
    if size > MAX_PLAIN:
        raise NotAcceptable(f"the page is {size / 2**20:.0f} MiB unpacked, and is sent gzip-encoded only: ask with "
                            "'Accept-Encoding: gzip' (curl --compressed)")
    return StreamingResponse(_unpacked(packed), media_type="text/html; charset=utf-8", headers=headers)


@router.post("/api/matches/{match_id}/analysis", status_code=202, response_class=JSONResponse)
async def analyse_match(match_id: MatchId, me: Me, server: Server) -> Response:
    """Have a finished match judged (202, queued); asked again, where its one analysis stands (200)."""
    info, created = await server.analyses.of_match(me.id, match_id)
    return await _answer(server, info, 202 if created else 200)


@router.get("/api/matches/{match_id}/analysis", response_class=JSONResponse)
async def match_analysis(match_id: MatchId, server: Server) -> Response:
    """``status`` (queued, running, done, failed); when done, ``players`` (error rates in mEMG, the
    rating ladder, errors and blunders) and ``decisions`` (each judged decision and the best play)."""
    return await _answer(server, await server.analyses.get_for_match(match_id))


@router.get("/api/matches/{match_id}/analysis.html", response_class=HTMLResponse)
async def match_report(request: Request, match_id: MatchId, server: Server) -> Response:
    """The analysis as the page ``gammon analyse --html`` writes (409 until it is done)."""
    info = await server.analyses.get_for_match(match_id)
    return _page(request, await server.analyses.html(info), f"match-{match_id}-analysis.html")


@router.post("/api/analysis", status_code=202, response_class=JSONResponse, openapi_extra=_UPLOAD)
async def analyse_record(request: Request, me: Me, server: Server) -> Response:
    """Have an uploaded ``.mat`` record judged (the body is the file's text); 422 names what is wrong with it."""
    body = await request.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Unprocessable(f"record: not UTF-8 text (byte {error.start})") from None
    if not text.strip():
        raise Unprocessable("record: empty: send the text of a .mat file as the body")
    info = await server.analyses.upload(me.id, text)
    return await _answer(server, info, 202)


async def _uploaded(server: Runtime, analysis_id: int, me: Account) -> AnalysisInfo:
    info = await server.analyses.get(analysis_id)
    if info.match_id is None and info.requested_by != me.id:
        raise NotFound(f"no analysis {analysis_id}")  # an upload is its uploader's
    return info


@router.get("/api/analysis/{analysis_id}.html", response_class=HTMLResponse)
async def record_report(request: Request, analysis_id: AnalysisId, me: Me, server: Server) -> Response:
    """An analysis's page (409 until it is done)."""
    info = await _uploaded(server, analysis_id, me)
    return _page(request, await server.analyses.html(info), f"analysis-{analysis_id}.html")


@router.get("/api/analysis/{analysis_id}", response_class=JSONResponse)
async def record_analysis(analysis_id: AnalysisId, me: Me, server: Server) -> Response:
    """An analysis by its number, as ``GET /api/matches/{id}/analysis`` gives a match's."""
    return await _answer(server, await _uploaded(server, analysis_id, me))

