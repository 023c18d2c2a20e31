"""``gammon serve``: the game server; ``gammon verify-dice``: check a match's dice against its seed."""

from __future__ import annotations

import argparse
import json
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from ..errors import GammonError


class VerifyInputError(GammonError, ValueError):
    """A match file or address that does not give a finished match's JSON."""


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="run the game server: accounts, matches, bots, ratings",
        description="Serve the JSON API (OpenAPI at /api/openapi.json) on HOST:PORT. With no --db, a SQLite "
        "file in your data folder; PostgreSQL by URL (postgresql+psycopg://USER@HOST/DB). Migrations are "
        "applied on start. Several servers may share one PostgreSQL database; give them --redis so each "
        "hears of moves made on the others at once.",
    )
    serve.add_argument("--db", metavar="URL", help="database URL (default: SQLite in the user data folder)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000,
                       help="port (default 8000; 0: any free port, the one taken is printed on start)")
    serve.add_argument("--redis", metavar="URL", help="Redis for events between servers, e.g. redis://127.0.0.1:6379")
    serve.add_argument("--bot", action="append", default=[], metavar="PLAYER",
                       help="offer an external engine as a bot too (gnubg:0, ubgi:CMD); repeatable")
    serve.add_argument("--hint-player", default=None, metavar="PLAYER",
                       help="who answers hints and cube hints where a match allows them (default nn:2)")
    serve.add_argument("--bot-workers", type=int, metavar="N", help="processes thinking for bots (default: cores, at most 2)")
    serve.add_argument("--pbm-port", type=int, metavar="N",
                       help="also take play-by-mail commands on a line port: one a line, answers end with '.' "
                       "(0: any free port)")
    serve.add_argument("--smtp-port", type=int, metavar="N",
                       help="also take play-by-mail commands by e-mail on an SMTP port (needs --smtp-relay; "
                       "0: any free port)")
    serve.add_argument("--smtp-relay", metavar="HOST:PORT",
                       help="send answers and turn mails through this SMTP relay (only to registered addresses)")
    serve.add_argument("--mail-from", default="gammon@localhost", metavar="ADDRESS",
                       help="the From of the server's mails (default gammon@localhost)")
    serve.add_argument("--migrate-only", action="store_true", help="bring the database's schema up to date and exit")
    serve.set_defaults(handler=_serve)

    verify = subparsers.add_parser(
        "verify-dice",
        help="recompute every roll of a finished match from its revealed seed",
        description="Read a match as GET /api/matches/ID gives it (a file, or --url) and check that the seed's "
        "SHA-256 is the commitment shown from the start and that every roll follows from the seed.",
    )
    verify.add_argument("file", metavar="MATCHFILE", nargs="?", help="the match's JSON")
    verify.add_argument("--url", help="the match's address, e.g. http://127.0.0.1:8000/api/matches/7")
    verify.set_defaults(handler=_verify)


def _serve(args: argparse.Namespace) -> int:
    from ..players import parse_player
    from ..server.app import ServerConfig, create_app
    from ..server.database import migrate, open_engine

    if not 0 <= args.port < 65536:
        print(f"gammon serve: --port: expected 0-65535 (0: any free port), got {args.port}", file=sys.stderr)
        return 2
    if args.bot_workers is not None and not 1 <= args.bot_workers <= 64:
        print(f"gammon serve: --bot-workers: expected 1-64, got {args.bot_workers}", file=sys.stderr)
        return 2
    for flag, port in (("--pbm-port", args.pbm_port), ("--smtp-port", args.smtp_port)):
        if port is not None and not 0 <= port < 65536:
            print(f"gammon serve: {flag}: expected 0-65535 (0: any free port), got {port}", file=sys.stderr)
            return 2
    if args.smtp_port is not None and not args.smtp_relay:
        print("gammon serve: --smtp-port needs --smtp-relay HOST:PORT: answers are sent through a relay", file=sys.stderr)
        return 2
    if args.smtp_relay:
        from ..server.pbm.mail import Relay
        from ..server.errors import ServerConfigError

        try:
            Relay.parse(args.smtp_relay, args.mail_from)
        except ServerConfigError as error:
            print(f"gammon serve: {error}", file=sys.stderr)
            return 2
    external = tuple(str(parse_player(name)) for name in args.bot)
    hint_player = str(parse_player(args.hint_player)) if args.hint_player else None
    engine = open_engine(args.db)
    try:
        migrate(engine)
    except Exception as error:  # a database that does not answer: say so, no traceback
        print(f"gammon serve: cannot open the database {engine.url.render_as_string(hide_password=True)}: "
              f"{str(error).splitlines()[0]}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    if args.migrate_only:
        print(f"gammon serve: the database {engine.url.render_as_string(hide_password=True)} is up to date")
        return 0
    import uvicorn

    # Every port is bound here, before anything is printed, so that the lines below tell the
    # ports really taken (port 0 gives a free one) and a client that reads them never races
    # another program for a port: connections wait in the listen queue until the server is up.
    try:
        sockets = {flag: _listen(args.host, port) for flag, port in
                   (("--port", args.port), ("--pbm-port", args.pbm_port), ("--smtp-port", args.smtp_port))
                   if port is not None}
    except OSError as error:
        print(f"gammon serve: cannot listen on {args.host}: {error}", file=sys.stderr)
        return 1
    ports = {flag: sock.getsockname()[1] for flag, sock in sockets.items()}
    config = ServerConfig(db_url=args.db, redis_url=args.redis, bot_workers=args.bot_workers, external_bots=external,
                          migrate=False, listen_host=args.host, pbm_socket=sockets.get("--pbm-port"),
                          smtp_socket=sockets.get("--smtp-port"), smtp_relay=args.smtp_relay, mail_from=args.mail_from)
    if hint_player is not None:
        config.hint_player = hint_player
    print(f"gammon serve: http://{args.host}:{ports['--port']}/ "
          f"(database {engine.url.render_as_string(hide_password=True)})", flush=True)
    if "--pbm-port" in ports:
        print(f"gammon serve: play by mail on {args.host}:{ports['--pbm-port']} (one command a line)", flush=True)
    if "--smtp-port" in ports:
        print(f"gammon serve: play by e-mail on SMTP {args.host}:{ports['--smtp-port']}, "
              f"answers through {args.smtp_relay}", flush=True)
    server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning"))
    try:
        server.run(sockets=[sockets["--port"]])
    except SystemExit as exit_:
        return int(exit_.code or 1)
    finally:
        for sock in sockets.values():
            sock.close()
    return 0


def _listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening (port 0: one the system picks)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                         flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def _read(args: argparse.Namespace) -> dict[str, Any]:
    if (args.file is None) == (args.url is None):
        raise VerifyInputError("give MATCHFILE or --url, one of them")
    try:
        if args.url is not None:
            with urllib.request.urlopen(args.url, timeout=30) as response:
                text = response.read(50_000_000).decode("utf-8")
        else:
            text = Path(args.file).read_text(encoding="utf-8")
    except (OSError, urllib.error.URLError, UnicodeDecodeError, ValueError) as error:
        raise VerifyInputError(f"cannot read {args.url or args.file}: {error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise VerifyInputError(f"{args.url or args.file}: not JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("dice_proof"), dict) or \
            not isinstance(data.get("history"), list):
        raise VerifyInputError(f"{args.url or args.file}: expected a match as GET /api/matches/ID gives it "
                               "(with dice_proof and history)")
    return data


def _verify(args: argparse.Namespace) -> int:
    from ..server.dice import DiceProofError, ProvenRoll, verify_rolls

    data = _read(args)
    proof = data["dice_proof"]
    if not proof.get("seed"):
        print(f"gammon verify-dice: match {data.get('id')} is {data.get('status')}: its seed is revealed when it ends",
              file=sys.stderr)
        return 1
    rolls = []
    for event in data["history"]:
        if not isinstance(event, dict) or event.get("kind") not in ("opening", "roll"):
            continue
        info = event.get("data") or {}
        try:
            numbers = tuple(int(n) for n in info["numbers"])
            if event["kind"] == "opening":
                dice = (int(info["white_die"]), int(info["black_die"]))
            else:
                dice = tuple(int(d) for d in info["dice"])
        except (KeyError, TypeError, ValueError):
            raise VerifyInputError(f"event {event.get('seq')}: expected numbers and dice in its data") from None
        rolls.append(ProvenRoll(numbers, dice, event["kind"] == "opening"))
    try:
        checked = verify_rolls(str(proof["seed"]), str(proof.get("commitment")), rolls)
    except DiceProofError as error:
        print(f"gammon verify-dice: match {data.get('id')}: FAILED: {error}", file=sys.stderr)
        return 1
    print(f"match {data.get('id')}: {checked} rolls checked against seed SHA-256 {proof.get('commitment')}: all follow from the seed")
    return 0
