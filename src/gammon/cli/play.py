"""``gammon play``: backgammon in the terminal, against a bot here or anyone on a gammon server.

With no options: a 5-point match against ``nn:0:intermediate``. The keys are seed 004's
(:data:`~gammon.cli.terminal.KEYS`) when the terminal allows single keys; typed words work
everywhere (``--words``, and always when input is not a terminal).
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Callable
from typing import Any

from ..dice import SeededDice
from ..errors import IllegalActionError
from ..extras import MissingExtraError, require
from ..match import Match
from ..notation import whole_number
from ..players import check_variant, load_player, parse_player
from ..position import Color
from ..server.matches.rules import terms
from ..state import MAX_MATCH_LENGTH
from ..variant import Variant, VariantError
from .table import LocalTable, RemoteTable, ServerClient, Table, TableError, require_client
from .terminal import KEY_ACTIONS, PinnedScreen, Screen, Settings, Terminal

DEFAULT_BOT = "nn:0:intermediate"
DEFAULT_LENGTH = 5
SHIFTED = ("s-d", "s-h")  #: keys that only a reader knowing the state of Shift can tell apart


def key_reader() -> Callable[[str], str]:
    """Single keys on an empty line (as ``<name>`` tokens), typed lines otherwise (prompt_toolkit)."""
    require("prompt_toolkit", "single keys")
    from prompt_toolkit import PromptSession
    from prompt_toolkit.filters import Condition
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

    session: PromptSession[str] = PromptSession(erase_when_done=True)
    bindings = KeyBindings()
    empty = Condition(lambda: session.default_buffer.text == "")

    def bind(keys: tuple[str, ...], token: str) -> None:
        @bindings.add(*keys, filter=empty, eager=True)
        def _(event: KeyPressEvent) -> None:
            event.app.exit(result=f"<{token}>")

    sequences = {"a-left": ("escape", "left"), "a-right": ("escape", "right"), "a-up": ("escape", "up"),
                 "a-down": ("escape", "down")}
    for name in KEY_ACTIONS:
        if name in SHIFTED:  # a terminal sends Shift+D as it sends D with Caps Lock on: D, read as d
            continue
        bind(sequences.get(name, (name,)), name)
        if len(name) == 1 and name.isalpha():
            bind((name.upper(),), name.upper())
    return lambda prompt: session.prompt(prompt, key_bindings=bindings)


def line_reader(prompt: str) -> str:
    """A typed line; an empty one is Enter."""
    line = input(prompt)
    return "<enter>" if line.strip() == "" else line


def _match_length(text: str) -> int:
    value = whole_number(text, 0, MAX_MATCH_LENGTH)
    if value is None:
        raise argparse.ArgumentTypeError(f"match length must be 1-{MAX_MATCH_LENGTH}, or 0 for money play: {text!r}")
    return value


def _variant(text: str) -> Variant:
    try:
        return Variant.parse(text)
    except VariantError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _command(args: argparse.Namespace) -> int:
    keys = args.keys if args.keys is not None else (sys.stdin.isatty() and sys.stdout.isatty())
    read = line_reader
    if keys:
        try:
            read = key_reader()
        except MissingExtraError as error:
            if args.keys:  # asked for by name: the command cannot do what it was told
                raise
            print(f"gammon play: typed words, not single keys: {error}", file=sys.stderr)
    settings = Settings(plain=args.plain, auto_forced=not args.ask_forced, their_numbering=args.their_numbering,
                        verbose=args.verbose)
    try:
        table = _remote_table(args) if args.server else _local_table(args)
    except TableError as error:
        print(f"gammon play: {error}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, EOFError):
        print("\nBye.")
        return 0
    if table is None:
        return 0
    def write(text: str) -> None:
        print(text, flush=True)

    screen = PinnedScreen(sys.stdout) if _pinned(args) else Screen(write)
    try:
        return Terminal(table, read, write, settings, screen).run()
    finally:
        table.close()


def _pinned(args: argparse.Namespace) -> bool:
    """Whether the board is redrawn in place: on a terminal that can, outside plain mode."""
    return not args.plain and sys.stdout.isatty() and os.environ.get("TERM", "dumb") not in ("", "dumb")


def _local_table(args: argparse.Namespace) -> Table:
    money = args.match == 0
    if (args.jacoby or args.beavers) and not money:
        raise IllegalActionError("--jacoby and --beavers are money-play rules: use them with --match 0")
    match = Match(args.match, dice=SeededDice(args.seed), jacoby=args.jacoby, beavers=args.beavers,
                  variant=args.variant)
    seed = 0 if args.seed is None else args.seed + 1
    if not (args.no_hints and args.no_cube_hints):
        check_variant(parse_player(args.hint_player), args.variant)  # refused now, not at the first hint
    opponent = load_player(args.bot, seed=seed, variant=args.variant)  # an engine that cannot play it is refused
    return LocalTable(match, opponent, you=Color.WHITE, opponent_name=f"the {args.bot} bot",
                      hint_player=args.hint_player, hints=not args.no_hints, cube_hints=not args.no_cube_hints)


def _remote_table(args: argparse.Namespace) -> Table | None:
    require_client()  # before asking for a name and password
    name = args.user or os.environ.get("GAMMON_USER") or input("Your name on the server: ").strip()
    password = os.environ.get("GAMMON_PASSWORD") or getpass.getpass(f"Password for {name}: ")
    server = ServerClient(args.server, name, password, register=args.register)
    print(f"Logged in to {server.url} as {name}.", flush=True)
    match_id = args.join
    # what its player chose, in a challenge from the flags and from the lobby alike (engine hints make
    # a match between people unrated: the terms printed say so)
    options: dict[str, object] = {"hints": not args.no_hints, "cube_hints": not args.no_cube_hints,
                                  "verbose": args.verbose, "variant": str(args.variant)}
    if args.challenge:
        created = server.challenge(args.challenge, args.match, options)
        match_id = created["id"]
        print(f"Match {match_id}: you challenge {args.challenge} to {terms(created['length'], created['options'])}.",
              flush=True)
    elif args.accept is not None:
        server.answer(args.accept, accept=True)
        match_id = args.accept
        print(f"Match {match_id}: you accept.", flush=True)
    if match_id is None:
        match_id = _lobby(server, line_reader, options)  # words, whatever reads the board
        if match_id is None:
            server.close()
            return None
    _wait_until_accepted(server, match_id)
    return RemoteTable(server, match_id)


LOBBY_COMMANDS = ("#N (plays entry N of the list), play ID, accept ID, decline ID (ID: a match's number or #N), "
                  "challenge NAME [LENGTH] (bot:nn:2 for a bot), list, quit")


def _lobby(server: ServerClient, read: Callable[[str], str], options: dict[str, object]) -> int | None:
    """Your invitations and matches, numbered; choose one to play, accept one, or challenge someone.
    The lobby reads typed words, each line ended with Enter (single keys mean something on the
    board only); ``#N`` is entry N of the list last shown."""
    entries: list[tuple[str, dict[str, Any]]] = []
    show = True
    while True:
        if show:
            entries = _lobby_entries(server)
            print("\n".join(_lobby_lines(server, entries)), flush=True)
            show = False
        answer = read("lobby> ").strip().lstrip(":").strip()
        words = answer.split()
        command = words[0].lower() if words else ""
        try:
            if command in ("", "<enter>", "list", "l"):
                show = True
            elif command in ("quit", "q", "exit"):
                return None
            elif command.startswith("#") and len(words) == 1:
                kind, entry = _entry(entries, command)
                if kind == "match":
                    return int(entry["id"])
                print(f"{command} is an invitation: accept {command} or decline {command}.", flush=True)
            elif command in ("play", "join") and len(words) == 2:
                return _match_id(entries, words[1], "match")
            elif command in ("accept", "decline") and len(words) == 2:
                match_id = _match_id(entries, words[1], "invitation")
                server.answer(match_id, accept=command == "accept")
                if command == "accept":
                    return match_id
                print(f"Match {match_id}: declined.", flush=True)
                show = True
            elif command == "challenge" and len(words) in (2, 3):
                length = _match_length(words[2]) if len(words) == 3 else DEFAULT_LENGTH
                created = server.challenge(words[1], length, options)
                print(f"Match {created['id']}: you challenge {words[1]} to {terms(created['length'], created['options'])}.",
                      flush=True)
                return int(created["id"])
            else:
                print(f"Not a lobby command: {answer!r}. The lobby reads words, each line ended with Enter: "
                      f"{LOBBY_COMMANDS}.", flush=True)
        except (TableError, argparse.ArgumentTypeError) as error:
            print(f"Not possible: {error}", flush=True)


def _lobby_entries(server: ServerClient) -> list[tuple[str, dict[str, Any]]]:
    """Your matches under way, then the invitations to you: the lobby's numbered list."""
    me = server.name.lower()
    playing = [("match", m) for m in server.matches("playing")]
    invited = [("invitation", m) for m in server.matches("invited") if m["players"]["black"].lower() == me]
    return playing + invited


def _lobby_lines(server: ServerClient, entries: list[tuple[str, dict[str, Any]]]) -> list[str]:
    me = server.name.lower()
    lines = [] if any(kind == "match" for kind, _ in entries) else ["No match in play."]
    for number, (kind, m) in enumerate(entries, 1):
        players: dict[str, str] = m["players"]
        length = int(m["length"])
        if kind == "match":
            other = players["black"] if players["white"].lower() == me else players["white"]
            to_act = str(m["to_act"] or "")
            turn = "your turn" if to_act.lower() == me else f"{to_act} to act"
            lines.append(f"  #{number} match {m['id']}: against {other}, "
                         f"{f'{length}-point match' if length else 'money game'}, {turn}")
        else:  # what accepting agrees to, in full: the length, variant, clock, rating and hints
            lines.append(f"  #{number} match {m['id']}: {players['white']} invites you to "
                         f"{terms(length, m['options'])}: accept #{number} or decline #{number}")
    lines.append(f"Type a command and press Enter (single keys work once a match is on the board): {LOBBY_COMMANDS}.")
    return lines


def _entry(entries: list[tuple[str, dict[str, Any]]], text: str) -> tuple[str, dict[str, Any]]:
    number = whole_number(text.lstrip("#"), 1, len(entries)) if entries else None
    if number is None:
        raise TableError(f"{text}: an entry of the list, #1 to #{len(entries)}" if entries
                         else f"{text}: the list is empty (list shows it again)")
    return entries[number - 1]


def _match_id(entries: list[tuple[str, dict[str, Any]]], text: str, wanted: str) -> int:
    """A match's number from ``#N`` (entry N, which must be a ``wanted``) or the number itself."""
    if text.startswith("#"):
        kind, entry = _entry(entries, text)
        if kind != wanted:
            raise TableError(f"{text} is {'an invitation: accept or decline it' if kind == 'invitation' else 'a match: play it'}")
        return int(entry["id"])
    if not text.isdigit():
        raise TableError(f"{text!r}: a match's number, or #N for entry N of the list")
    return int(text)


def _wait_until_accepted(server: ServerClient, match_id: int) -> None:
    view = server.match(match_id)
    if view["status"] == "invited":
        print(f"Waiting for {view['players']['black']} to accept (Ctrl+C to stop waiting)...", flush=True)
        after = -1
        while view["status"] == "invited":
            events = server.events(match_id, after, 30.0)
            after = max([after, *(e["seq"] for e in events)])
            view = server.match(match_id)
    if view["status"] != "playing":
        raise TableError(f"match {match_id} was {view['status']}")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "play", help="play backgammon in the terminal against a bot",
        description=f"Play backgammon in the terminal: by default a {DEFAULT_LENGTH}-point match against "
                    f"{DEFAULT_BOT}, with seed 004's keys (? lists them) or typed words.")
    parser.add_argument("--match", type=_match_length, default=DEFAULT_LENGTH, metavar="N",
                        help=f"match length 1-25, or 0 for money play (default {DEFAULT_LENGTH})")
    parser.add_argument("--bot", default=DEFAULT_BOT, metavar="NAME[:PLY][:LEVEL]",
                        help=f"the opponent (default {DEFAULT_BOT}): random, pubeval, simple, nn:2, nn:0:beginner, ...")
    parser.add_argument("--seed", type=int, default=None, help="seed the dice and the bot, for a repeatable game")
    parser.add_argument("--plain", action="store_true",
                        help="for screen readers: one sentence an event, the board read on demand (B)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--keys", dest="keys", action="store_true", default=None,
                      help="single keys (the default in a terminal)")
    mode.add_argument("--words", dest="keys", action="store_false", help="typed lines only")
    parser.add_argument("--ask-forced", action="store_true", help="wait for Enter on a roll with only one play")
    parser.add_argument("--their-numbering", action="store_true",
                        help="tell the opponent's plays in its own numbering (default: yours)")
    parser.add_argument("--verbose", action="store_true", help="pip counts after every play")
    parser.add_argument("--no-hints", action="store_true", help="no play hints (H) in this match")
    parser.add_argument("--no-cube-hints", action="store_true", help="no cube hints (Shift+H) in this match")
    parser.add_argument("--hint-player", default="nn:2", metavar="NAME[:PLY]",
                        help="who gives hints against a local bot (default nn:2)")
    parser.add_argument("--jacoby", action="store_true", help="money play: the Jacoby rule")
    parser.add_argument("--beavers", action="store_true", help="money play: allow beavers")
    parser.add_argument("--variant", type=_variant, default=Variant(), metavar="RULES",
                        help="standard (default), nackgammon, two-move-doubles, or both comma-separated")
    online = parser.add_argument_group("online", "play on a gammon server (gammon serve)")
    online.add_argument("--server", metavar="URL", help="the server, e.g. http://localhost:8000")
    online.add_argument("--user", metavar="NAME", help="your name there (or GAMMON_USER; the password from "
                                                        "GAMMON_PASSWORD or asked)")
    online.add_argument("--register", action="store_true", help="open the account first if it does not exist")
    online.add_argument("--challenge", metavar="NAME", help="challenge a player or a bot (bot:nn:2) to --match N")
    online.add_argument("--accept", type=int, metavar="ID", help="accept the invitation to match ID and play it")
    online.add_argument("--join", type=int, metavar="ID", help="play your match ID")
    parser.set_defaults(handler=_command)
