"""The HTTP and WebSocket API of ``gammon serve`` (FastAPI; the contract is in docs/server.md).

Handlers that touch the database are plain functions, which FastAPI runs in its thread
pool, so the event loop only ever waits; every action is one transaction (see
:mod:`gammon.server.games`). Errors are answered as ``{"detail": "..."}`` with the status of
their :class:`~gammon.server.errors.ServerError` class; a malformed body gets 422 naming the field.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pathlib
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Path, Query, Request, Response, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import event as sqlalchemy_event
from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session as DbSession

from ..position import Color
from ..state import GameState
from ..workers import Workers, available_cores
from . import accounts, games
from ..players import DEFAULT_HINT_PLAYER
from .board import board as board_view
from .bots import BOT_PREFIX, BotDriver, Turn, cube_hint_task, find_opponent, hint_task
from .database import WRITE, migrate, open_engine, session_factory
from .errors import Conflict, Forbidden, NotFound, ServerConfigError, ServerError, Unprocessable
from .models import MatchRow, RatingChange, User
from .notify import Notifier
from .pbm.executor import EMAIL, answers as pbm_answers, run as pbm_run
from .pbm.line_server import framed, serve_lines
from .pbm.mail import Relay, TurnMailer, serve_mail
from .toplist import toplist as toplist_of
from ..players.decisions import Decision

log = logging.getLogger("gammon.server")
COOKIE = "gammon_session"
MatchId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the match's number")]
SWEEP_SECONDS = 2.0
WEB = pathlib.Path(__file__).parent / "web"  #: the web client: static files, no build step
MAX_BODY = 64 * 1024  #: the largest request body read: every request of the API is far smaller


class BodyLimit:
    """Answer 413 to a request body over ``limit`` bytes before it is read into memory."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await JSONResponse({"detail": f"the request body is over {self.limit} bytes"}, status_code=413)(
                scope, receive, send)
            return
        seen = 0

        async def limited() -> dict:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await JSONResponse({"detail": f"the request body is over {self.limit} bytes"}, status_code=413)(
                scope, receive, send)


class _TooLarge(Exception):
    pass


@dataclass
class ServerConfig:
    """How a server runs: its database, Redis for several instances, the bots it offers."""

    db_url: str | None = None
    redis_url: str | None = None
    bot_workers: int | None = None  #: processes thinking for bots (default: every core)
    external_bots: tuple[str, ...] = ()  #: gnubg:N and ubgi:CMD players the operator offers
    migrate: bool = True
    hint_player: str = DEFAULT_HINT_PLAYER  #: who answers hints and cube hints, where a match's options allow them
    listen_host: str = "127.0.0.1"  #: the address the play-by-mail line port and SMTP listener bind
    pbm_port: int | None = None  #: the play-by-mail line port (docs/pbm.md)
    smtp_port: int | None = None  #: the SMTP listener taking commands by mail (needs ``smtp_relay``)
    #: Listening sockets already bound (``gammon serve`` binds them first, so that it can tell
    #: the ports that port 0 gave): used instead of ``pbm_port`` and ``smtp_port``.
    pbm_socket: socket.socket | None = None
    smtp_socket: socket.socket | None = None
    smtp_relay: str | None = None  #: ``host:port`` that answers and turn mails are sent through
    mail_from: str = "gammon@localhost"  #: the From of the server's mails


# -- request bodies -----------------------------------------------------------------------------
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Credentials(_Body):
    name: str = Field(max_length=64)
    password: str = Field(max_length=1024)


class PasswordChange(_Body):
    old: str = Field(max_length=1024)
    new: str = Field(max_length=1024)


class Options(_Body):
    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    hints: bool = False
    cube_hints: bool = False
    verbose: bool = False


class NewMatch(_Body):
    opponent: str = Field(max_length=300)
    length: int = Field(ge=0, le=games.MAX_LENGTH)
    options: Options = Field(default_factory=Options)


class ActionBody(_Body):
    action: Literal["roll", "play", "double", "take", "drop", "beaver", "resign", "accept", "reject"]
    play: str | None = Field(default=None, max_length=200)
    value: int | None = Field(default=None, ge=1, le=3)
    version: int | None = None


class MailSettings(_Body):
    email: str | None = Field(max_length=254)
    mail_on_turn: bool | None = None


class Token(BaseModel):
    token: str


# -- the application ----------------------------------------------------------------------------
@dataclass
class Server:
    """What the handlers share: the database, the notifier, the bots' pool and driver."""

    config: ServerConfig
    engine: Any = None
    sessions: Any = None
    notifier: Notifier | None = None
    workers: Workers | None = None
    driver: BotDriver | None = None
    tasks: list[asyncio.Task] = field(default_factory=list)
    write_lock: Any = field(default_factory=lambda: _NoLock())
    listeners: list[asyncio.Server] = field(default_factory=list)  #: the play-by-mail doors
    turn_mailer: TurnMailer | None = None

    @property
    def external_bots(self) -> tuple[str, ...]:
        return self.config.external_bots

    @contextlib.contextmanager
    def db(self, write: bool = False) -> Iterator[DbSession]:
        """A session, committed at the end; a writing one takes its turn first.

        SQLite has one writer at a time: this server's writers queue on a lock rather than
        poll SQLite's busy lock (which sleeps up to 100 ms between tries).
        """
        session = self.sessions()
        if write:
            self.write_lock.acquire()  # released when this session's transaction ends (see _release)
            session.info[WRITE] = True
            session.connection(execution_options={WRITE: True})
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()
            self._release(session)

    def _release(self, session: DbSession) -> None:
        if session.info.pop(WRITE, False):
            self.write_lock.release()

    # -- bots --------------------------------------------------------------------------------
    def next_turn(self, match_id: int) -> Turn | None:
        """The turn a bot must play in ``match_id`` now, or None."""
        with self.db() as db:
            row = db.get(MatchRow, match_id)
            if row is None or row.status != "playing" or row.to_act_id is None:
                return None
            user = db.get(User, row.to_act_id)
            if user is None or not user.is_bot:
                return None
            match = games.load(db, row)
            actions = games.available_actions(match)
            games._cache.put(row.id, row.version, match)
            return Turn(row.id, row.version, user.name[len(BOT_PREFIX):], match.state, "double" in actions,
                        "beaver" in actions)

    def submit_bot(self, turn: Turn, decision: Decision) -> bool:
        try:
            with self.db(write=True) as db:
                row = games.get_row(db, turn.match_id, lock=True)
                bot = db.get(User, row.to_act_id) if row.to_act_id else None
                if bot is None or not bot.is_bot:
                    return False
                games.act(db, bot, row, decision.kind, play=str(decision.play) if decision.play else None,
                          version=turn.version)
        except (ServerError, OperationalError, IntegrityError) as error:
            log.info("bot move in match %d refused: %s", turn.match_id, error)
            return False
        self.publish(turn.match_id)
        return True

    def publish(self, match_id: int) -> None:
        """Tell every listener of a committed change: WebSockets on every server, and the turn mailer."""
        if self.notifier is not None:
            self.notifier.publish(match_id)
        if self.turn_mailer is not None and self.loop is not None:
            self.loop.call_soon_threadsafe(self._mail_turn, match_id)

    def _mail_turn(self, match_id: int) -> None:
        task = asyncio.ensure_future(asyncio.to_thread(self.turn_mailer.changed, match_id))  # type: ignore[union-attr]
        self.tasks.append(task)
        task.add_done_callback(self._mailed)

    def _mailed(self, task: asyncio.Task) -> None:
        with contextlib.suppress(ValueError):
            self.tasks.remove(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("turn mail failed: %s", task.exception())

    def after_action(self, match_id: int, bot_to_act: bool) -> None:
        """Called in a handler's thread once its transaction is committed."""
        self.publish(match_id)
        if bot_to_act and self.driver is not None and self.loop is not None:
            self.loop.call_soon_threadsafe(self.driver.kick, match_id)

    loop: asyncio.AbstractEventLoop | None = None

    async def sweep(self) -> None:
        """Now and then: bots to act in any match (after a restart, or a move made on another server)."""
        while True:
            try:
                ids = await asyncio.to_thread(self._bot_matches)
                for match_id in ids:
                    self.driver.kick(match_id)  # type: ignore[union-attr]
            except Exception:
                log.exception("bot sweep failed")
            await asyncio.sleep(SWEEP_SECONDS)

    def _bot_matches(self) -> list[int]:
        with self.db() as db:
            return list(db.scalars(select(MatchRow.id).join(User, User.id == MatchRow.to_act_id)
                                   .where(MatchRow.status == "playing", User.is_bot.is_(True))))


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The server as an ASGI application (``uvicorn`` runs it; tests may too)."""
    config = config or ServerConfig()
    server = Server(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        server.engine = open_engine(config.db_url)
        if config.migrate:
            await asyncio.to_thread(migrate, server.engine)
        server.sessions = session_factory(server.engine)
        if server.engine.dialect.name == "sqlite":
            server.write_lock = threading.Lock()
        # the write turn ends with the writing transaction, not with the request's answer
        sqlalchemy_event.listen(server.sessions, "after_commit", server._release)
        sqlalchemy_event.listen(server.sessions, "after_rollback", server._release)
        server.loop = asyncio.get_running_loop()
        postgres = None
        if server.engine.dialect.name == "postgresql":
            postgres = server.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        server.notifier = Notifier(config.redis_url, postgres)
        await server.notifier.start()
        server.workers = Workers(config.bot_workers or min(2, available_cores()))
        server.driver = BotDriver(server.next_turn, server.submit_bot, server.workers)
        server.tasks.append(asyncio.create_task(server.sweep()))
        relay = Relay.parse(config.smtp_relay, config.mail_from) if config.smtp_relay else None
        if relay is not None:
            server.turn_mailer = TurnMailer(server, relay)
        if config.pbm_port is not None or config.pbm_socket is not None:
            server.listeners.append(await serve_lines(server, config.listen_host, config.pbm_port, config.pbm_socket))
        if config.smtp_port is not None or config.smtp_socket is not None:
            if relay is None:
                raise ServerConfigError("--smtp-port needs --smtp-relay HOST:PORT: answers are sent through a relay")
            server.listeners.append(await serve_mail(server, relay, config.listen_host, config.smtp_port,
                                                     config.smtp_socket))
        try:
            yield
        finally:
            for listener in server.listeners:
                listener.close()
            for task in list(server.tasks):
                task.cancel()
            await server.driver.stop()
            await server.notifier.stop()
            server.workers.close()
            server.engine.dispose()

    app = FastAPI(title="gammon", version="1", lifespan=lifespan, openapi_url="/api/openapi.json",
                  docs_url="/api/docs", redoc_url=None)
    app.state.server = server
    app.add_middleware(BodyLimit, limit=MAX_BODY)

    @app.exception_handler(ServerError)
    async def _server_error(request: Request, error: ServerError) -> JSONResponse:
        return JSONResponse({"detail": error.message}, status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        problems = []
        for item in error.errors():
            if item.get("type") == "json_invalid":
                problems.append(f"body: not valid JSON ({item.get('ctx', {}).get('error', 'decode error')})")
                continue
            where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
            problems.append(f"{where or 'body'}: {item.get('msg', 'invalid')}")
        return JSONResponse({"detail": "; ".join(problems) or "invalid request"}, status_code=422)

    @app.exception_handler(OperationalError)
    async def _busy(request: Request, error: OperationalError) -> JSONResponse:
        log.warning("database busy: %s", error)
        return JSONResponse({"detail": "the database is busy: try again"}, status_code=503)

    def db(request: Request) -> Iterator[DbSession]:
        with server.db(write=request.method != "GET") as session:
            yield session

    def current_user(request: Request, session: DbSession = Depends(db)) -> User:
        return accounts.user_of_token(session, token_of(request))

    # -- accounts ---------------------------------------------------------------------------
    @app.post("/api/users", status_code=201)
    def register(body: Credentials, session: DbSession = Depends(db)) -> dict[str, Any]:
        try:
            user = accounts.register(session, body.name, body.password)
            session.commit()
        except IntegrityError:
            session.rollback()
            raise Conflict(f"name: {body.name!r} is taken") from None
        return _user_view(session, user)

    @app.post("/api/sessions")
    def log_in(body: Credentials, response: Response, session: DbSession = Depends(db)) -> Token:
        user = accounts.authenticate(session, body.name, body.password)
        token = accounts.new_session(session, user)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", max_age=30 * 24 * 3600)
        return Token(token=token)

    @app.delete("/api/sessions", status_code=204)
    def log_out(request: Request, response: Response, session: DbSession = Depends(db)) -> None:
        token = token_of(request)
        accounts.user_of_token(session, token)
        accounts.end_session(session, token)  # type: ignore[arg-type]
        response.delete_cookie(COOKIE)

    @app.get("/api/users/me")
    def me(user: User = Depends(current_user), session: DbSession = Depends(db)) -> dict[str, Any]:
        """Your page, with what only you see: your address for play by mail."""
        return {**_user_view(session, user), "email": user.email, "mail_on_turn": user.mail_on_turn}

    @app.put("/api/users/me/password", status_code=204)
    def change_password(body: PasswordChange, user: User = Depends(current_user),
                        session: DbSession = Depends(db)) -> None:
        accounts.change_password(session, user, body.old, body.new)

    @app.get("/api/users/{name}")
    def user_page(name: str, session: DbSession = Depends(db)) -> dict[str, Any]:
        user = accounts.find_user(session, name[:64])
        if user is None:
            raise NotFound(f"no user {name!r}")
        return _user_view(session, user, recent=True)

    # -- matches -----------------------------------------------------------------------------
    @app.post("/api/matches", status_code=201)
    def new_match(body: NewMatch, user: User = Depends(current_user), session: DbSession = Depends(db)) -> dict[str, Any]:
        opponent = find_opponent(session, body.opponent, config.external_bots)
        outcome = games.challenge(session, user, opponent, body.length, body.options.model_dump())
        session.commit()
        server.after_action(outcome.row.id, outcome.bot_to_act)
        return games.view(session, outcome.row, outcome.match)

    @app.get("/api/matches")
    def list_matches(user: str | None = Query(default=None, max_length=64),
                     status: Literal["invited", "declined", "playing", "finished"] | None = None,
                     limit: int = Query(default=50, ge=1, le=500),
                     session: DbSession = Depends(db)) -> list[dict[str, Any]]:
        query = select(MatchRow).order_by(MatchRow.updated.desc()).limit(limit)
        if user is not None:
            found = accounts.find_user(session, user)
            if found is None:
                raise NotFound(f"no user {user!r}")
            query = query.where(or_(MatchRow.white_id == found.id, MatchRow.black_id == found.id))
        if status is not None:
            query = query.where(MatchRow.status == status)
        return [games.summary(row) for row in session.scalars(query).unique()]

    @app.get("/api/matches/{match_id}")
    def get_match(match_id: MatchId, session: DbSession = Depends(db)) -> dict[str, Any]:
        return games.view(session, games.get_row(session, match_id))

    @app.post("/api/matches/{match_id}/accept")
    def accept(match_id: MatchId, user: User = Depends(current_user), session: DbSession = Depends(db)) -> dict[str, Any]:
        outcome = games.accept(session, user, games.get_row(session, match_id, lock=True))
        session.commit()
        server.after_action(match_id, outcome.bot_to_act)
        return games.view(session, outcome.row, outcome.match)

    @app.post("/api/matches/{match_id}/decline")
    def decline(match_id: MatchId, user: User = Depends(current_user), session: DbSession = Depends(db)) -> dict[str, Any]:
        row = games.get_row(session, match_id, lock=True)
        games.decline(session, user, row)
        session.commit()
        server.after_action(match_id, False)
        return games.view(session, row)

    @app.post("/api/matches/{match_id}/actions")
    def action(match_id: MatchId, body: ActionBody, user: User = Depends(current_user),
               session: DbSession = Depends(db)) -> dict[str, Any]:
        row = games.get_row(session, match_id, lock=True)  # concurrent actions on a match queue here
        outcome = games.act(session, user, row, body.action, play=body.play, value=body.value, version=body.version)
        session.commit()
        server.after_action(match_id, outcome.bot_to_act)
        return games.view(session, outcome.row, outcome.match)

    @app.get("/api/matches/{match_id}/hint")
    async def play_hint(match_id: MatchId, request: Request) -> dict[str, Any]:
        """The plays of your roll ranked, when the match's ``hints`` option is on."""
        state = await asyncio.to_thread(_hint_state, server, request, match_id, "hints")
        if state.dice is None:
            raise Unprocessable("a play hint is for a rolled turn: roll first (or ask for a cube hint)")
        plays = await asyncio.wrap_future(server.workers.submit(hint_task, config.hint_player, state))  # type: ignore[union-attr]
        return {"player": config.hint_player, "plays": plays}

    @app.get("/api/matches/{match_id}/cube_hint")
    async def cube_hint(match_id: MatchId, request: Request) -> dict[str, Any]:
        """Double, take or pass, when the match's ``cube_hints`` option is on."""
        state = await asyncio.to_thread(_hint_state, server, request, match_id, "cube_hints")
        if state.dice is not None or state.resignation is not None:
            raise Unprocessable("a cube hint is before rolling, or when a double is offered to you")
        decision = await asyncio.wrap_future(server.workers.submit(cube_hint_task, config.hint_player, state))  # type: ignore[union-attr]
        return {"player": config.hint_player, **decision}

    @app.get("/api/matches/{match_id}/board")
    def board_of(match_id: MatchId, view: Literal["white", "black"] = "white",
                 moves: str = Query(default="", max_length=200),
                 upto: int | None = Query(default=None, ge=-1, le=2**31 - 1),
                 session: DbSession = Depends(db)) -> dict[str, Any]:
        """The board picture from ``view``'s side, its points, and where a checker may go next
        after the checker ``moves`` entered so far (or, with ``upto``, after that event)."""
        side = Color.WHITE if view == "white" else Color.BLACK
        return board_view(session, games.get_row(session, match_id), side, moves, upto)

    @app.get("/", include_in_schema=False)
    def web_client() -> FileResponse:
        return FileResponse(WEB / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=WEB), name="static")

    @app.get("/api/matches/{match_id}/record.mat", response_class=PlainTextResponse)
    def record(match_id: MatchId, session: DbSession = Depends(db)) -> PlainTextResponse:
        from ..record import MatchRecord

        row = games.get_row(session, match_id)
        if row.status not in ("playing", "finished"):
            raise Unprocessable(f"match {match_id} is {row.status}: it has no games to record")
        match = games.full_match(session, row)
        text = MatchRecord.from_match(match, white=row.white.name, black=row.black.name).mat()
        return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="match-{match_id}.mat"'})

    @app.websocket("/api/matches/{match_id}/events")
    async def events(websocket: WebSocket, match_id: MatchId,
                     after: Annotated[int, Query(ge=-1, le=2**31 - 1)] = -1) -> None:
        """Every event of the match in order, then each new one as it happens."""
        await websocket.accept()
        exists = await asyncio.to_thread(_match_exists, server, match_id)
        if not exists:
            await websocket.send_json({"error": f"no match {match_id}"})
            await websocket.close(code=4404)
            return
        assert server.notifier is not None
        cursor = after
        try:
            with server.notifier.listening(match_id) as changed:
                while True:
                    changed.clear()
                    new = await asyncio.to_thread(_events_after, server, match_id, cursor)
                    for item in new:
                        await websocket.send_json(item)
                        cursor = item["seq"]
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(changed.wait(), SWEEP_SECONDS)
        except (WebSocketDisconnect, RuntimeError):
            return

    # -- lists -------------------------------------------------------------------------------
    @app.get("/api/toplist")
    def toplist(period: Literal["all", "week"] = "all", limit: int = Query(default=50, ge=1, le=500),
                session: DbSession = Depends(db)) -> list[dict[str, Any]]:
        return toplist_of(session, period, limit)

    @app.post("/pbm", response_class=PlainTextResponse, tags=["play by mail"],
              responses={422: {"description": "a command was refused (its answer says why)"}})
    async def play_by_mail(request: Request) -> PlainTextResponse:
        """Commands of the play-by-mail language, one a line (text/plain); each answer ends with a line ``.``."""
        body = await request.body()
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return PlainTextResponse("error: the commands are not UTF-8 text; nothing was done\n.\n", status_code=422)
        results = await asyncio.to_thread(lambda: list(pbm_answers(server, text)))
        if not results:
            results = [pbm_run(server, "")]
        return PlainTextResponse(b"".join(framed(answer) for answer in results).decode("utf-8"),
                                 status_code=200 if all(answer.ok for answer in results) else 422)

    @app.put("/api/users/me/mail")
    def set_mail(body: MailSettings, user: User = Depends(current_user), session: DbSession = Depends(db)) -> dict[str, Any]:
        """Your address for play by mail (null: none) and whether your turns are mailed to you."""
        if body.email is not None and (len(body.email) > 254 or not EMAIL.match(body.email)):
            raise Unprocessable(f"email: expected an address such as you@example.org, got {body.email[:60]!r}")
        user.email = body.email
        if body.mail_on_turn is not None:
            user.mail_on_turn = body.mail_on_turn
        return me(user, session)

    @app.get("/api/health")
    def health(session: DbSession = Depends(db)) -> dict[str, Any]:
        session.execute(select(1))
        return {"ok": True}

    return app


class _NoLock:
    """PostgreSQL's writers need no turn-taking here: its row locks order them."""

    def acquire(self) -> bool:
        return True

    def release(self) -> None:
        pass


def token_of(request: Request) -> str | None:
    """The bearer token, or the web client's cookie."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.cookies.get(COOKIE)


def _hint_state(server: Server, request: Request, match_id: int, option: str) -> GameState:
    """The state a hint is asked about: the asker must be the side to act, and the option on."""
    with server.db() as db:
        user = accounts.user_of_token(db, token_of(request))
        row = games.get_row(db, match_id)
        if not row.options.get(option):
            raise Forbidden(f"{option.replace('_', ' ')} are off in match {match_id}")
        if row.status != "playing" or row.to_act_id != user.id:
            raise Forbidden(f"a hint is for the side to act, and it is not {user.name}")
        return games.load(db, row).state


def _match_exists(server: Server, match_id: int) -> bool:
    with server.db() as db:
        return db.get(MatchRow, match_id) is not None


def _events_after(server: Server, match_id: MatchId, seq: int) -> list[dict[str, Any]]:
    with server.db() as db:
        return games.events_between(db, match_id, seq)


def _user_view(session: DbSession, user: User, recent: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"name": user.name, "bot": user.is_bot, "rating": round(user.rating, 2),
                           "experience": user.experience, "created": user.created.isoformat() + "Z"}
    finished = select(MatchRow).where(or_(MatchRow.white_id == user.id, MatchRow.black_id == user.id),
                                      MatchRow.status == "finished")
    won = session.scalar(select(func.count()).select_from(finished.where(MatchRow.winner_id == user.id).subquery()))
    played = session.scalar(select(func.count()).select_from(finished.subquery()))
    out["record"] = {"won": won, "lost": played - won}
    if recent:
        rows = session.scalars(select(MatchRow).where(or_(MatchRow.white_id == user.id, MatchRow.black_id == user.id))
                               .order_by(MatchRow.updated.desc()).limit(20)).unique()
        out["recent_matches"] = [games.summary(row) for row in rows]
        changes = session.scalars(select(RatingChange).where(RatingChange.user_id == user.id)
                                  .order_by(RatingChange.at.desc()).limit(50))
        out["rating_history"] = [{"match": c.match_id, "before": round(c.before, 2), "after": round(c.after, 2),
                                  "won": c.won, "at": c.at.isoformat() + "Z"} for c in changes]
    return out
