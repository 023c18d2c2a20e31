"""A tiny UBGI engine for testing ``gammon ubgi-check``: the v0.2 dialect, checker play only.

It plays a random legal play (seeded by ``engine.seed``, the position and the roll, so the
same question gets the same answer) and answers ``go role cube``/``turn`` with
``error unsupported_feature``: a level-0 engine. ``--break`` makes it misbehave:
``illegal`` plays incomplete or wrong plays, ``crash`` dies with a traceback on an unknown
command, ``late-info`` prints an ``info`` line after its ``bestmove``, ``--hang-after N``
stops answering at the N-th ``go``, and ``--delay S`` thinks S seconds over every ``go`` (and
cannot be stopped, as GNU Backgammon's text interface cannot).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from gammon.errors import GammonError
from gammon.position import Position
from gammon.ubgi import ErrorCode, error_line, parse_key_line
from gammon.state import GameState

KEYS = {
    "engine.seed": parse_key_line("key engine.seed int 0..1000000 0"),
    "engine.eval_mode": parse_key_line("key engine.eval_mode enum cubeless|cubeful cubeful"),
}


class Fake:
    """The engine's state between commands: settings, position and dice."""

    def __init__(self, mode: str, hang_after: int, delay: float = 0.0) -> None:
        self.mode = mode
        self.hang_after = hang_after
        self.delay = delay
        self.gos = 0
        self.values = {name: key.default or "" for name, key in KEYS.items()}
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
            for name, key in KEYS.items():
                span = f"{key.min}..{key.max}" if key.min is not None else "|".join(key.choices)
                self.say(f"key {name} {key.type} {span} {key.default}")
            self.say("ubgiok")
        elif command == "isready":
            self.say("readyok")
        elif command == "quit":
            return False
        elif command == "newgame":
            self.state, self.dice = None, None
        elif command == "set":
            if len(args) < 2 or args[0] not in KEYS:
                self.error(ErrorCode.BAD_VALUE, "usage: set <key> <value> with a known key")
                return True
            try:
                self.values[args[0]] = KEYS[args[0]].check(" ".join(args[1:]))
            except ValueError as error:
                self.error(ErrorCode.BAD_VALUE, str(error))
        elif command == "get":
            if len(args) != 1 or args[0] not in KEYS:
                self.error(ErrorCode.BAD_VALUE, "usage: get <key> with a known key")
            else:
                self.say(f"value {args[0]} {self.values[args[0]]}")
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

    def position(self, args: list[str]) -> None:
        if len(args) != 2:
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
        self.gos += 1
        if self.hang_after and self.gos >= self.hang_after:
            time.sleep(3600)
        time.sleep(self.delay)
        legal = self.state.position.legal_plays(*self.dice)
        chooser = random.Random(f"{self.values['engine.seed']}:{self.state.position.position_id()}:{self.dice}")
        play = chooser.choice(list(legal))
        text = play.ubgi()
        if self.mode == "illegal":
            text = " ".join(text.split()[:-1]) or ("pass" if text != "pass" else "24/23")
        self.dice = None
        self.say(f"bestmove {text}")
        if self.mode == "late-info":
            self.say(f"info depth 1 pv {text}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--break", dest="mode", choices=("illegal", "crash", "late-info"), default="")
    parser.add_argument("--hang-after", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    fake = Fake(args.mode, args.hang_after, args.delay)
    for raw in sys.stdin.buffer:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            fake.error(ErrorCode.BAD_ARGUMENT, "not UTF-8")
            continue
        if not fake.handle(line):
            break


if __name__ == "__main__":
    main()
