"""Matches over HTTP: challenges, actions, the match and its history, hints, the board, the record."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import Field

from ...match import PlayerAction
from ...position import Color
from ..accounts import Account
from ..errors import Forbidden, NotFound, Unprocessable
from ..matches import store
from ..matches.live import LiveMatch
from ..matches.rules import MAX_DELAY, MAX_RESERVE, MIN_RATED_RESERVE, rated_play, unrated_because
from ..matches.service import Applied
from ..matches.store import EventRow, Seat
from ..matches.views import match_view, summary
from ..runtime import Runtime
from ..seats import BOT_PREFIX, DEFAULT_BOTS, check_bot, check_player, cube_hint_task, hint_task
from .common import Body, MatchId, Me, Server, Viewer

router = APIRouter(tags=["matches"])
HISTORY_LIMIT = 5000  #: events in one answer at most; ask again with ?after= for more


class TimeControl(Body):
    delay: int = Field(ge=0, le=MAX_DELAY, description="seconds each turn may take before the reserve runs")
    reserve: int = Field(ge=1, le=MAX_RESERVE, description="seconds each player has for the whole match beyond the delays")


class Options(Body):
    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    hints: bool = False
    cube_hints: bool = False
    verbose: bool = False
    variant: str = Field(default="standard", max_length=40,
                         description="standard, nackgammon, two-move-doubles, or both comma-separated")
    clock: TimeControl | None = Field(default=None, description="a time control; none when absent")
    rated: bool | None = Field(default=None, description="whether the result may move ratings (default: true for a "
                               "match of a length, false for a money game); with a clock, rated needs a reserve of "
                               f"{MIN_RATED_RESERVE} s or more")


class OwnSeed(Body):
    """Your share of the dice: your seed, sent after the server committed to its own."""

    seed: str | None = Field(default=None, max_length=64,
                             description="your own dice seed, sent with commitment (drawn from the commitment when absent)")
    commitment: str | None = Field(default=None, max_length=100,
                                   description="the token of a commitment asked for before (POST /api/commitments)")


class NewMatch(OwnSeed):
    opponent: str = Field(max_length=300)
    length: int = Field(ge=0, le=25)
    options: Options = Field(default_factory=Options)


class Acceptance(Body):
    seed: str | None = Field(default=None, max_length=64,
                             description="your own dice seed (drawn from the commitment when absent)")


class ActionBody(Body):
    action: PlayerAction = Field(strict=False, description="what you do: the one vocabulary of actions")
    play: str | None = Field(default=None, max_length=200)
    value: int | None = Field(default=None, ge=1, le=3)
    version: int | None = None


def _side(live: LiveMatch, account: Account | None) -> Color | None:
    return None if account is None else live.color_of(account.id)


async def _ratings(server: Runtime, live: LiveMatch) -> dict[int, tuple[float, float]] | None:
    """The players' ratings before and after, once a rated match is over."""
    if live.info.status != "finished" or not live.info.rated:
        return None
    return await server.readers.run(lambda connection: store.match_ratings(connection, live.info.id))


async def _view(server: Runtime, applied: Applied, account: Account | None, status: int = 200) -> JSONResponse:
    """The match after a change, with the events it caused, sent as it is (no second validation of our own JSON)."""
    view = match_view(applied.live, _side(applied.live, account), events=[EventRow.of(row) for row in applied.rows],
                      ratings=await _ratings(server, applied.live))
    return JSONResponse(view, status_code=status)


async def opponent_of(server: Runtime, text: str, variant: str = "standard") -> Seat:
    """The player challenged: a person by name, or a bot (``bot:PLAYER``, opened on first use) that plays ``variant``."""
    if text.startswith(BOT_PREFIX):
        name = BOT_PREFIX + check_bot(text[len(BOT_PREFIX):], server.settings.external_bots, variant)
        return (await server.accounts.bot(name)).seat
    found = await server.accounts.find(text[:64])
    if found is None or found.is_bot:
        raise Unprocessable(f"opponent: no user {text[:64]!r} (a bot is named bot:PLAYER, e.g. bot:{DEFAULT_BOTS[2]})")
    return found.seat


@router.post("/api/commitments")
async def new_commitment(me: Me, server: Server) -> dict[str, str]:
    """A server dice seed drawn and committed now, before you choose yours: pass the token with your
    challenge within 30 minutes (it is yours alone; at most 5 unused at once, 60 an hour)."""
    token, commitment = await server.service.new_commitment(me.seat)
    return {"commitment": commitment, "token": token}


@router.post("/api/matches", status_code=201, response_class=JSONResponse)
async def new_match(body: NewMatch, me: Me, server: Server) -> JSONResponse:
    opponent = await opponent_of(server, body.opponent, body.options.variant)
    applied = await server.service.challenge(me.seat, opponent, body.length, body.options.model_dump(), seed=body.seed,
                                             commitment_token=body.commitment)
    return await _view(server, applied, me, 201)


@router.get("/api/matches")
async def list_matches(server: Server, user: str | None = Query(default=None, max_length=64),
                       status: Literal["invited", "declined", "withdrawn", "expired", "playing", "finished"] | None = None,
                       limit: int = Query(default=50, ge=1, le=500)) -> list[dict[str, Any]]:
    user_id = None
    if user is not None:
        found = await server.accounts.find(user)
        if found is None:
            raise NotFound(f"no user {user!r}")
        user_id = found.id
    rows = await server.readers.run(lambda connection: store.list_matches(connection, user_id, status, limit))
    return [summary(info) for info in rows]


@router.get("/api/matches/{match_id}", response_class=JSONResponse)
async def get_match(match_id: MatchId, server: Server, viewer: Viewer,
                    history: Literal["all", "none"] = "none",
                    after: int | None = Query(default=None, ge=-1, le=2**31 - 1)) -> JSONResponse:
    """The match as last committed; its events only when asked (``?history=all``, or ``?after=SEQ``:
    those numbered after SEQ), at most 5,000 at a time. A player who fetches it is present: on
    their turn, a clock waiting for them starts (docs/server.md, "Time")."""
    live = await server.service.current(match_id)
    if viewer is not None:
        live = await server.service.attend(viewer.id, live)
    events = None
    if history == "all" or after is not None:
        start = -1 if after is None else after
        events = await server.service.events(match_id, start, live.info.next_seq, HISTORY_LIMIT)
    return JSONResponse(match_view(live, _side(live, viewer), history=events, ratings=await _ratings(server, live)))


@router.post("/api/matches/{match_id}/accept", response_class=JSONResponse)
async def accept(match_id: MatchId, me: Me, server: Server, body: Acceptance | None = None) -> JSONResponse:
    return await _view(server, await server.service.accept(me.seat, match_id, seed=body.seed if body else None), me)


@router.post("/api/matches/{match_id}/decline", response_class=JSONResponse)
async def decline(match_id: MatchId, me: Me, server: Server) -> JSONResponse:
    return await _view(server, await server.service.decline(me.seat, match_id), me)


@router.post("/api/matches/{match_id}/withdraw", response_class=JSONResponse)
async def withdraw(match_id: MatchId, me: Me, server: Server) -> JSONResponse:
    """The challenger takes back an invitation not yet answered (its status becomes ``withdrawn``)."""
    return await _view(server, await server.service.withdraw(me.seat, match_id), me)


@router.post("/api/matches/{match_id}/rematch", status_code=201, response_class=JSONResponse)
async def rematch(match_id: MatchId, me: Me, server: Server, body: OwnSeed | None = None) -> JSONResponse:
    """After a finished match: the same opponent invited to a match of the same length and options
    (a bot accepts at once); your dice seed comes with a commitment, as with a challenge."""
    applied = await server.service.rematch(me.seat, match_id, seed=body.seed if body else None,
                                           commitment_token=body.commitment if body else None)
    return await _view(server, applied, me, 201)


@router.post("/api/matches/{match_id}/actions", response_class=JSONResponse)
async def act(match_id: MatchId, body: ActionBody, me: Me, server: Server) -> JSONResponse:
    """Your action; the answer is the match now and the events your action caused (``events``)."""
    applied = await server.service.act(me.seat, match_id, body.action, play=body.play, value=body.value,
                                       version=body.version)
    return await _view(server, applied, me)


async def _hint_state(server: Runtime, me: Account, match_id: int, option: str) -> Any:
    live = await server.service.current(match_id)
    if not live.info.options.get(option):
        raise Forbidden(f"{option.replace('_', ' ')} are off in match {match_id}")
    info = live.info
    if rated_play(info.length, info.options) and unrated_because(info.options, info.white, info.black):
        raise Forbidden(f"no engine hints in match {match_id}: it is rated, between people")  # made before the rule
    if live.info.status != "playing" or live.info.to_act_id != me.id or live.match is None:
        raise Forbidden(f"a hint is for the side to act, and it is not {me.name}")
    return live.match.state


@router.get("/api/matches/{match_id}/hint")
async def play_hint(match_id: MatchId, me: Me, server: Server) -> dict[str, Any]:
    """The plays of your roll ranked, when the match's ``hints`` option is on."""
    state = await _hint_state(server, me, match_id, "hints")
    if state.dice is None:
        raise Unprocessable("a play hint is for a rolled turn: roll first (or ask for a cube hint)")
    player = server.settings.hint_player
    check_player(player, state.variant, "hint")
    plays = await asyncio.wrap_future(server.workers.submit(hint_task, player, state))
    return {"player": player, "plays": plays}


@router.get("/api/matches/{match_id}/cube_hint")
async def cube_hint(match_id: MatchId, me: Me, server: Server) -> dict[str, Any]:
    """Double, take or pass, when the match's ``cube_hints`` option is on."""
    state = await _hint_state(server, me, match_id, "cube_hints")
    if state.dice is not None or state.resignation is not None:
        raise Unprocessable("a cube hint is before rolling, or when a double is offered to you")
    player = server.settings.hint_player
    check_player(player, state.variant, "cube hint")
    decision = await asyncio.wrap_future(server.workers.submit(cube_hint_task, player, state))
    return {"player": player, **decision}


@router.get("/api/matches/{match_id}/board", response_class=JSONResponse)
async def board_of(match_id: MatchId, server: Server, view: Literal["white", "black"] = "white",
                   moves: str = Query(default="", max_length=200),
                   upto: int | None = Query(default=None, ge=-1, le=2**31 - 1)) -> Response:
    """The board picture from ``view``'s side, its points, and where a checker may go next
    after the checker ``moves`` entered so far (or, with ``upto``, after that event); drawn,
    and replayed, away from the event loop (a replay's boards once)."""
    side = Color.WHITE if view == "white" else Color.BLACK
    live = await server.service.current(match_id)
    if live.info.status not in ("playing", "finished") or live.match is None:
        raise Unprocessable(f"match {match_id} is {live.info.status}: it has no board yet")
    if upto is None:
        drawn = await server.replays.current_board(live, side, moves)
    elif moves:
        raise Unprocessable("moves: a replay's board takes no moves")
    else:
        drawn = await server.replays.board(live, upto, side)
    return Response(drawn, media_type="application/json")


@router.get("/api/matches/{match_id}/record.mat", response_class=PlainTextResponse)
async def record(match_id: MatchId, server: Server) -> PlainTextResponse:
    """The match as a GNU Backgammon / Jellyfish ``.mat`` file (a finished match's made once)."""
    live = await server.service.current(match_id)
    info = live.info
    if info.status not in ("playing", "finished"):
        raise Unprocessable(f"match {match_id} is {info.status}: it has no games to record")
    text = await server.replays.record(live)
    return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="match-{match_id}.mat"'})
