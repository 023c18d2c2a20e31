"""Analysis after the match over HTTP: ask for it, read where it stands and its results, read its report.

A finished match's analysis is anyone's to read, as the match is; an uploaded record's only its
uploader's. The report is the page ``gammon analyse --html`` writes, with no script in it.
"""

from __future__ import annotations

import gzip
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from ..accounts import Account
from ..analyses import MAX_RECORD, AnalysisInfo
from ..errors import NotFound, Unprocessable
from ..runtime import Runtime
from .common import MatchId, Me, Server

router = APIRouter(tags=["analysis"])
AnalysisId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the analysis's number")]
_UPLOAD = {"requestBody": {"required": True, "content": {"text/plain": {"schema": {
    "type": "string", "maxLength": MAX_RECORD, "description": "a GNU Backgammon / Jellyfish .mat match record"}}}}}


def _answer(info: AnalysisInfo, status: int = 200) -> JSONResponse:
    return JSONResponse(info.view(), status_code=status)


def _page(request: Request, packed: bytes, name: str) -> Response:
    """The stored page, sent packed to a client that takes gzip (every browser), else unpacked."""
    headers = {"Content-Disposition": f'inline; filename="{name}"', "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        return Response(packed, media_type="text/html; charset=utf-8", headers={**headers, "Content-Encoding": "gzip"})
    return Response(gzip.decompress(packed), media_type="text/html; charset=utf-8", headers=headers)


@router.post("/api/matches/{match_id}/analysis", status_code=202, response_class=JSONResponse)
async def analyse_match(match_id: MatchId, me: Me, server: Server) -> JSONResponse:
    """Have a finished match judged (202, queued); asked again, where its one analysis stands (200)."""
    info, created = await server.analyses.of_match(me.id, match_id)
    return _answer(info, 202 if created else 200)


@router.get("/api/matches/{match_id}/analysis", response_class=JSONResponse)
async def match_analysis(match_id: MatchId, server: Server) -> JSONResponse:
    """``status`` (queued, running, done, failed); when done, ``players`` (error rates in mEMG, the
    rating ladder, errors and blunders) and ``decisions`` (each judged decision and the best play)."""
    return _answer(await server.analyses.get_for_match(match_id))


@router.get("/api/matches/{match_id}/analysis.html", response_class=HTMLResponse)
async def match_report(request: Request, match_id: MatchId, server: Server) -> Response:
    """The analysis as the page ``gammon analyse --html`` writes (409 until it is done)."""
    info = await server.analyses.get_for_match(match_id)
    return _page(request, await server.analyses.html(info), f"match-{match_id}-analysis.html")


@router.post("/api/analysis", status_code=202, response_class=JSONResponse, openapi_extra=_UPLOAD)
async def analyse_record(request: Request, me: Me, server: Server) -> JSONResponse:
    """Have an uploaded ``.mat`` record judged (the body is the file's text); 422 names what is wrong with it."""
    body = await request.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Unprocessable(f"record: not UTF-8 text (byte {error.start})") from None
    if not text.strip():
        raise Unprocessable("record: empty: send the text of a .mat file as the body")
    info = await server.analyses.upload(me.id, text)
    return _answer(info, 202)


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
async def record_analysis(analysis_id: AnalysisId, me: Me, server: Server) -> JSONResponse:
    """An analysis by its number, as ``GET /api/matches/{id}/analysis`` gives a match's."""
    return _answer(await _uploaded(server, analysis_id, me))

