"""A tiny UBGI engine for testing ``gammon ubgi-check``: the v0.2 dialect, checker play only.

It plays a random legal play (seeded by ``engine.seed``, the position and the roll, so the
same question gets the same answer) and answers ``go role cube``/``turn`` with
``error unsupported_feature``: a level-0 engine. ``--break`` makes it misbehave:
``illegal`` plays incomplete or wrong plays, ``crash`` dies with a traceback on an unknown
command, ``late-info`` prints an ``info`` line after its ``bestmove``, ``refuse-go`` answers every
``go`` with an ``error`` of a code outside the spec, ``--hang-after N``
stops answering at the N-th ``go``, and ``--delay S`` thinks S seconds over every ``go`` (and
cannot be stopped, as GNU Backgammon's text interface cannot), less if ``movetime`` says so
unless ``--ignore-movetime``.

``--peer`` behaves like the independently written engine gammon was tried against (the GNU
Backgammon UBGI fork, v0.2): it announces keys it then refuses (``error unsupported key``,
a code outside the spec), has no MultiPV and no cube, ignores ``movetime``, keeps a session
whose Jacoby rule is on until ``newsession`` says otherwise (each search tells it in an
``info ... string`` line), answers gammon's ``position bpn`` and ``xgid`` with
``unknown_command``, takes ``position gnubgid ID`` followed by garbage, and reads a line
longer than 2,048 bytes as several commands.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from gammon.errors import GammonError
from gammon.position import Position
from gammon.ubgi import ErrorCode, error_line, format_key_line, parse_key_line
from gammon.state import GameState

KEYS = {
    "engine.seed": parse_key_line("key engine.seed int 0..1000000 0"),
    "engine.eval_mode": parse_key_line("key engine.eval_mode enum cubeless|cubeful cubeful"),
}
#: What ``--peer`` announces on top, and refuses all the same as the two above.
PEER_KEYS = {
    "engine.threads": parse_key_line("key engine.threads int 1..64 1"),
    "engine.deterministic": parse_key_line("key engine.deterministic bool true|false true"),
}
#: The longest line ``--peer`` reads as one command; the rest is read as further lines.
PEER_LINE = 2048


class Fake:
    """The engine's state between commands: settings, position and dice."""

    def __init__(self, mode: str, hang_after: int, delay: float = 0.0, *, peer: bool = False,
                 ignore_movetime: bool = False) -> None:
        self.mode = mode
        self.hang_after = hang_after
        self.delay = delay
        self.peer = peer
        self.ignore_movetime = ignore_movetime or peer
        self.keys = KEYS | PEER_KEYS if peer else KEYS
        self.gos = 0
        self.values = {name: key.default or "" for name, key in self.keys.items()}
        self.session = "money jacoby on beavers off"  # the peer's own default, Jacoby on
        self.state: GameState | None = None
        self.dice: tuple[int, int] | None = None

    def say(self, line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def error(self, code: ErrorCode, message: str) -> None:
        self.say(error_line(code, message))

    def handle(self, line: str) -> bool:
        """Answer one command; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        if command == "ubgi":
            for reply in ("id name fake-ubgi", "id author gammon tests", "id version 0", "proto 0.2"):
                self.say(reply)
            for key in self.keys.values():
                self.say(format_key_line(key))
            self.say("ubgiok")
        elif command == "isready":
            self.say("readyok")
        elif command == "quit":
            return False
        elif command == "newgame":
            self.state, self.dice = None, None
        elif command == "set":
            if len(args) < 2 or args[0] not in self.keys:
                self.error(ErrorCode.BAD_VALUE, "usage: set <key> <value> with a known key")
                return True
            if self.peer:
                self.say("error unsupported key")  # announced, then refused, with a code of its own
                return True
            try:
                self.values[args[0]] = KEYS[args[0]].check(" ".join(args[1:]))
            except ValueError as error:
                self.error(ErrorCode.BAD_VALUE, str(error))
        elif command == "get":
            if len(args) != 1 or args[0] not in self.keys:
                self.error(ErrorCode.BAD_VALUE, "usage: get <key> with a known key")
            else:
                self.say(f"value {args[0]} {self.values[args[0]]}")
        elif command == "newsession" and self.peer:
            self.newsession(args)
        elif command == "position":
            self.position(args)
        elif command == "dice":
            if self.state is None:
                self.error(ErrorCode.MISSING_CONTEXT, "no position")
            elif len(args) != 2 or not all(a in "123456" and len(a) == 1 for a in args):
                self.error(ErrorCode.BAD_ARGUMENT, "dice takes two values 1-6")
            else:
                self.dice = (int(args[0]), int(args[1]))
        elif command == "go":
            self.go(args)
        elif self.mode == "crash":
            raise RuntimeError(f"unknown command {command!r}")
        else:
            self.error(ErrorCode.UNKNOWN_COMMAND, f"unknown command {command!r}")
        return True

    def newsession(self, args: list[str]) -> None:
        """``newsession type money|match [length N] [jacoby on|off] [beavers on|off] [crawford on|off]``."""
        fields = dict(zip(args[::2], args[1::2]))
        if fields.get("type") == "match":
            self.session = f"match length {fields.get('length', '?')}"
        elif fields.get("type") == "money":
            self.session = f"money jacoby {fields.get('jacoby', 'on')} beavers {fields.get('beavers', 'off')}"
        else:
            self.error(ErrorCode.BAD_ARGUMENT, "usage: newsession type money|match ...")

    def position(self, args: list[str]) -> None:
        if self.peer and args[:1] in (["xgid"], ["bpn"]):
            self.error(ErrorCode.UNKNOWN_COMMAND, f"position {args[0]}")
        elif len(args) != 2 and not (self.peer and len(args) > 2):  # the peer reads the ID, not what follows
            self.error(ErrorCode.BAD_ARGUMENT, "usage: position gnubgid <id>")
        elif args[0] in ("xgid", "bpn"):
            self.error(ErrorCode.UNSUPPORTED_FEATURE, f"position {args[0]}")
        elif args[0] != "gnubgid":
            self.error(ErrorCode.BAD_ARGUMENT, f"unknown position form {args[0]!r}")
        else:
            try:
                if ":" in args[1]:
                    self.state = GameState.from_gnubg_id(args[1])
                else:
                    self.state = GameState(position=Position.from_position_id(args[1]))
            except GammonError as error:
                self.error(ErrorCode.BAD_ARGUMENT, str(error))
                return
            self.dice = None

    def go(self, args: list[str]) -> None:
        role = args[1] if len(args) >= 2 and args[0] == "role" else "chequer"
        if role in ("cube", "turn"):
            self.error(ErrorCode.UNSUPPORTED_FEATURE, "checker play only")
            return
        if role != "chequer":
            self.error(ErrorCode.BAD_ARGUMENT, f"unknown role {role!r}")
            return
        if self.state is None or self.dice is None:
            self.error(ErrorCode.MISSING_CONTEXT, "go needs a position and dice")
            return
        if self.mode == "refuse-go":
            self.say("error engine_failure cannot search today")
            return
        self.gos += 1
        if self.hang_after and self.gos >= self.hang_after:
            time.sleep(3600)
        limits = dict(zip(args[2::2], args[3::2]))
        movetime = limits.get("movetime", "")
        if movetime.isdigit() and not self.ignore_movetime:
            time.sleep(min(self.delay, int(movetime) / 1000))
        else:
            time.sleep(self.delay)
        legal = self.state.position.legal_plays(*self.dice)
        chooser = random.Random(f"{self.values['engine.seed']}:{self.state.position.position_id()}:{self.dice}")
        play = chooser.choice(list(legal))
        text = play.ubgi()
        if self.mode == "illegal":
            text = " ".join(text.split()[:-1]) or ("pass" if text != "pass" else "24/23")
        self.dice = None
        if self.peer:
            self.say(f"info depth 0 string session {self.session}")
        self.say(f"bestmove {text}")
        if self.mode == "late-info":
            self.say(f"info depth 1 pv {text}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--break", dest="mode", choices=("illegal", "crash", "late-info", "refuse-go"), default="")
    parser.add_argument("--hang-after", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--ignore-movetime", action="store_true")
    parser.add_argument("--peer", action="store_true")
    args = parser.parse_args()
    fake = Fake(args.mode, args.hang_after, args.delay, peer=args.peer, ignore_movetime=args.ignore_movetime)
    for raw in sys.stdin.buffer:
        pieces = [raw[i:i + PEER_LINE] for i in range(0, len(raw), PEER_LINE)] if args.peer else [raw]
        for piece in pieces:
            try:
                line = piece.decode("utf-8")
            except UnicodeDecodeError:
                fake.error(ErrorCode.BAD_ARGUMENT, "not UTF-8")
                continue
            if not fake.handle(line):
                return


if __name__ == "__main__":
    main()
