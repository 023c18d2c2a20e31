"""``gammon serve``: the game server; ``gammon verify-dice``: check a finished match's dice and record."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import json
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from ..errors import GammonError


BACKLOG = 4096  #: connections waiting to be accepted
#: A stop signal (SIGTERM, Ctrl+C) ends the process within this many seconds at the latest, whatever is
#: still running then (a bot thinking in a thread, a connection that does not close): the graceful stop
#: has the server's shutdown seconds and this margin.
STOP_MARGIN_SECONDS = 2.0


class VerifyInputError(GammonError, ValueError):
    """A match file or address that does not give a finished match's JSON."""


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="run the game server: accounts, matches, bots, ratings",
        description="Serve the JSON API (OpenAPI at /api/openapi.json) on HOST:PORT. With no --db, a SQLite "
        "file in your data folder; PostgreSQL by URL (postgresql+psycopg://USER@HOST/DB). Every flag has a "
        "GAMMON_* environment variable too (docs/server.md lists them); a flag wins. Migrations are applied "
        "once on start, under a lock. --workers N runs N processes on one port (PostgreSQL); several servers "
        "may share one PostgreSQL database, and hear of each other's moves through it or through --redis.",
    )
    serve.add_argument("--db", metavar="URL", help="database URL (default: SQLite in the user data folder)")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8000; 0: any free port, printed)")
    serve.add_argument("--workers", type=int, metavar="N", help="server processes on the port (default 1; PostgreSQL)")
    serve.add_argument("--redis", metavar="URL", help="Redis for events between servers, e.g. redis://127.0.0.1:6379")
    serve.add_argument("--bot", action="append", default=None, metavar="PLAYER",
                       help="offer an external engine as a bot too (gnubg:0, ubgi:CMD); repeatable")
    serve.add_argument("--hint-player", default=None, metavar="PLAYER",
                       help="who answers hints and cube hints where a match allows them (default nn:2)")
    serve.add_argument("--analysis-player", default=None, metavar="PLAYER",
                       help="who judges a finished match analysed on the server (default nn:0)")
    serve.add_argument("--bot-workers", type=int, metavar="N", help="processes thinking for bots (default: cores, at most 2)")
    serve.add_argument("--pbm-port", type=int, metavar="N",
                       help="also take play-by-mail commands on a line port: one a line, answers end with '.'")
    serve.add_argument("--smtp-port", type=int, metavar="N",
                       help="also take play-by-mail commands by e-mail on an SMTP port (needs --smtp-relay)")
    serve.add_argument("--smtp-relay", metavar="HOST:PORT",
                       help="send answers and turn mails through this SMTP relay (only to confirmed addresses)")
    serve.add_argument("--mail-from", default=None, metavar="ADDRESS", help="the From of the server's mails")
    serve.add_argument("--public-url", default=None, metavar="URL",
                       help="where players reach the site (https://...: cookies are marked Secure)")
    serve.add_argument("--migrate-only", action="store_true", help="bring the database's schema up to date and exit")
    serve.set_defaults(handler=_serve)

    verify = subparsers.add_parser(
        "verify-dice",
        help="regenerate every roll of a finished match from its seeds and replay it through the referee",
        description="Read a finished match as GET /api/matches/ID?history=all gives it (a file, or --url) and check "
        "that its record is whole, that its dice scheme is the one it was made under, that the server's seed is "
        "the one committed to from the challenge, that every roll follows from it and the two sides' seeds, and "
        "that the whole match replays through the referee (any variant, a match lost on time too) to the "
        "published end; then say what that proves, whose seeds were whose, and what no record can prove.",
    )
    verify.add_argument("file", metavar="MATCHFILE", nargs="?", help="the match's JSON")
    verify.add_argument("--url", help="the match's address, e.g. http://127.0.0.1:8000/api/matches/7")
    verify.add_argument("--commitment", metavar="HEX",
                        help="the commitment your client was shown before it sent your seed: the match's must be it")
    verify.set_defaults(handler=_verify)


def _serve(args: argparse.Namespace) -> int:
    from ..players import parse_player
    from ..server.database import migrate, open_database
    from ..server.errors import ServerConfigError
    from ..server.settings import Settings

    try:
        settings = Settings.from_environment(
            db_url=args.db, host=args.host, port=args.port, workers=args.workers, redis_url=args.redis,
            bot_workers=args.bot_workers, pbm_port=args.pbm_port, smtp_port=args.smtp_port, smtp_relay=args.smtp_relay,
            mail_from=args.mail_from, public_url=args.public_url,
            external_bots=tuple(str(parse_player(name)) for name in args.bot) if args.bot else None,
            hint_player=str(parse_player(args.hint_player)) if args.hint_player else None,
            analysis_player=str(parse_player(args.analysis_player)) if args.analysis_player else None)
    except ServerConfigError as error:
        print(f"gammon serve: {error}", file=sys.stderr)
        return 2
    engine = open_database(settings.db_url)
    where = engine.url.render_as_string(hide_password=True)
    if settings.workers > 1 and engine.dialect.name == "sqlite":
        print("gammon serve: --workers above 1 needs PostgreSQL (SQLite has one writer: run one process)",
              file=sys.stderr)
        return 2
    try:
        migrate(engine)
    except Exception as error:  # noqa: BLE001 - a database that does not answer: say so, no traceback
        print(f"gammon serve: cannot open the database {where}: {str(error).splitlines()[0]}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    if args.migrate_only:
        print(f"gammon serve: the database {where} is up to date")
        return 0
    sockets = {}
    for flag, port in (("--port", settings.port), ("--pbm-port", settings.pbm_port), ("--smtp-port", settings.smtp_port)):
        if port is None:
            continue
        try:
            sockets[flag] = _bind(settings.host, port)
        except OSError as error:
            print(f"gammon serve: {_unusable(flag, settings.host, port, error)}", file=sys.stderr)
            return 1
    ports = {flag: sock.getsockname()[1] for flag, sock in sockets.items()}
    for flag in ("--pbm-port", "--smtp-port"):  # the doors bind their own port: free the probe
        if flag in sockets:
            sockets.pop(flag).close()
    settings = Settings.from_environment({}, **{**_fields(settings), "port": ports["--port"],
                                                "pbm_port": ports.get("--pbm-port"), "smtp_port": ports.get("--smtp-port"),
                                                "migrate": False})
    os.environ.update(settings.environment())  # worker processes (and the connection guard) read the same
    from ..server.warmup import announce, offered

    announce(offered(settings.hint_player, settings.external_bots))  # before the address: ready when it is said
    lines = [f"gammon serve: http://{settings.host}:{settings.port}/ (database {where}"
             + (f", {settings.workers} processes" if settings.workers > 1 else "") + ")"]
    if settings.pbm_port:
        lines.append(f"gammon serve: play by mail on {settings.host}:{settings.pbm_port} (one command a line)")
    if settings.smtp_port:
        lines.append(f"gammon serve: play by e-mail on SMTP {settings.host}:{settings.smtp_port}, answers through "
                     f"{settings.smtp_relay}")
    threading.Thread(target=_tell_when_answering, args=(settings, lines), name="gammon-ready", daemon=True).start()
    return _run(settings, sockets["--port"])


def _tell_when_answering(settings: Any, lines: list[str]) -> None:
    """Print the addresses once each answers: the site once its health check does (the app has
    started), each door once a connection to it is taken (its process listens), so nobody told a
    port is refused on it. Runs beside the server; a server that never starts prints nothing."""
    host = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(settings.host, settings.host)
    address = f"[{host}]" if ":" in host else host
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # our own port: never through a proxy
    while True:
        try:
            with direct.open(f"http://{address}:{settings.port}/api/health", timeout=60) as answer:
                if answer.status == 200:
                    break
        except (OSError, urllib.error.URLError):  # not listening yet, or 503 until the database answers
            pass
        time.sleep(0.05)
    for port in (settings.pbm_port, settings.smtp_port):
        while port:
            try:
                socket.create_connection((host, port), timeout=5).close()
                break
            except OSError:
                time.sleep(0.05)
    print("\n".join(lines), flush=True)  # one write: a reader that sees the site's line sees the doors' too


def _bind(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port``: listening too, since another program's socket may be
    bound to the port without listening yet, and then only ``listen`` finds the port taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def _unusable(flag: str, host: str, port: int, error: OSError) -> str:
    """Why ``flag``'s port cannot be listened on, in one line that says what to do."""
    what = {"--port": "port", "--pbm-port": "play-by-mail port", "--smtp-port": "SMTP port"}.get(flag, flag)
    if error.errno == errno.EADDRINUSE:
        return f"{what} {port} on {host} is taken (another server?): choose another with {flag}"
    if error.errno == errno.EACCES:
        return f"{what} {port} on {host} needs more rights (ports below 1024 are the system's): choose another with {flag}"
    if error.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or isinstance(error, socket.gaierror):
        return f"cannot listen on {host}: not an address of this machine: choose another with --host"
    return f"cannot listen on {host}:{port} ({error.strerror or error}): choose another with {flag}"


def _fields(settings: Any) -> dict[str, Any]:
    return {item.name: getattr(settings, item.name) for item in dataclasses.fields(settings)}


def _run(settings: Any, sock: socket.socket) -> int:
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from ..server.security import GuardedHTTP, Proxies

    GuardedHTTP.configure(settings.limits, Proxies(settings.trusted_proxies))
    # the app reads X-Forwarded-For itself, from the proxies named alone (uvicorn's own would trust 127.0.0.1)
    common = {"http": GuardedHTTP, "ws": "websockets-sansio", "ws_max_size": 64 * 1024, "log_level": "warning",
                  "proxy_headers": False,
                  "timeout_graceful_shutdown": int(settings.shutdown_seconds), "timeout_keep_alive": 5,
                  "limit_concurrency": 20_000, "backlog": BACKLOG}
    deadline = Deadline(settings.shutdown_seconds + STOP_MARGIN_SECONDS)
    if settings.workers > 1:

        class Supervisor(Multiprocess):
            def handle_term(self) -> None:
                deadline.start(signal.SIGTERM)
                super().handle_term()

            def handle_int(self) -> None:
                deadline.start(signal.SIGINT)
                super().handle_int()

        config = uvicorn.Config("gammon.server.app:app_from_environment", factory=True, workers=settings.workers,
                                **common)
        Supervisor(config, sockets=[sock]).run()
        return deadline.status(0)
    from ..server.app import create_app

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            deadline.start(sig)
            super().handle_exit(sig, frame)

    config = uvicorn.Config(create_app(settings), **common)
    server = Server(config)
    try:
        server.run(sockets=[sock])
    except SystemExit as exit_:
        return int(exit_.code or 1)
    return deadline.status(0 if server.started else 1)


class Deadline:
    """Ends the process ``seconds`` after a stop signal if the graceful stop has not ended it by then.

    The graceful stop waits for what is running: a bot's thought in a worker thread (a 2-ply
    decision, or a first one compiling the kernels) is not interrupted, and the interpreter
    waits for such threads before it exits. Past the deadline the worker processes are killed
    and the process exits at once with status 128 + the signal's number.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._timer: threading.Timer | None = None
        self._fired: int | None = None  # the signal whose deadline passed

    def status(self, otherwise: int) -> int:
        """The process's exit status: 128 + the signal once the deadline has passed (the server's own
        loop may end first, its workers killed by :meth:`end`), else ``otherwise``."""
        return otherwise if self._fired is None else 128 + self._fired

    def start(self, sig: int) -> None:
        """Count from the first stop signal (later ones do not move the deadline)."""
        if self._timer is None:
            self._timer = threading.Timer(self.seconds, self.end, (sig,))
            self._timer.daemon = True
            self._timer.start()

    def end(self, sig: int) -> None:
        self._fired = sig
        print(f"gammon serve: still stopping after {self.seconds:g} s: stopped at once", file=sys.stderr, flush=True)
        children = multiprocessing.active_children()
        for child in children:
            child.kill()
        until = time.monotonic() + 1.0
        for child in children:  # gone before this process is (a second at most): nothing it started holds a port
            child.join(max(0.0, until - time.monotonic()))
        os._exit(128 + sig)  # as a shell reports a death by the signal (a thread cannot restore its default)


def _read(args: argparse.Namespace) -> dict[str, Any]:
    if (args.file is None) == (args.url is None):
        raise VerifyInputError("give MATCHFILE or --url, one of them")
    if args.file is not None:
        try:
            return _match_json(Path(args.file).read_text(encoding="utf-8"), args.file)
        except (OSError, UnicodeDecodeError) as error:
            raise VerifyInputError(f"cannot read {args.file}: {error}") from None
    base = args.url.split("?", 1)[0]
    data = _match_json(_fetch(f"{base}?history=all"), args.url)
    history = data["history"]
    # the server sends at most 5,000 events at a time: ask for the rest, after the last one received
    while history and isinstance(data.get("last_seq"), int) and isinstance(history[-1], dict) and \
            isinstance(history[-1].get("seq"), int) and history[-1]["seq"] < data["last_seq"]:
        more = _match_json(_fetch(f"{base}?after={history[-1]['seq']}"), args.url)["history"]
        if not more:
            break
        history.extend(more)
    return data


def _fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return str(response.read(50_000_000).decode("utf-8"))
    except (OSError, urllib.error.URLError, UnicodeDecodeError, ValueError) as error:
        raise VerifyInputError(f"cannot read {url}: {error}") from None


def _match_json(text: str, where: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise VerifyInputError(f"{where}: not JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("dice_proof"), dict) or \
            not isinstance(data.get("history"), list):
        raise VerifyInputError(f"{where}: expected a match as GET /api/matches/ID?history=all gives it "
                               "(with dice_proof and history)")
    return data


def _verify(args: argparse.Namespace) -> int:
    from ..server.matches.fair_dice import DiceProofError
    from ..server.matches.proof import verify_match

    data = _read(args)
    try:
        verified = verify_match(data, shown=args.commitment)
    except DiceProofError as error:
        print(f"gammon verify-dice: match {data.get('id')}: FAILED: {error}", file=sys.stderr)
        return 1
    print(verified.report())
    return 0

