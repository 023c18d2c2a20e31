"""The play-by-mail command language: one command a line, as the seed's server reads it.

``backgammon move 12 alice PASSWORD 13-10,13-10,10-7,10-7#5``: the game's name first
(optional here), then the command word and its arguments. :func:`parse` turns a line into a
:class:`Command` or raises :class:`MailCommandError` saying what was expected; nothing here
touches the database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...errors import GammonError

MAX_LINE = 1000  #: the longest command line read; a move takes far fewer characters
GAME = "backgammon"
#: The moves that are not checker moves: ``move BOARD USER PASSWORD roll`` is ``roll BOARD USER PASSWORD``.
SPECIAL_MOVES = ("greedy", "manual", "roll", "double", "take", "drop", "accept", "decline", "reject", "resign")
#: Commands of the form ``WORD BOARD USER PASSWORD``.
BOARD_ACTIONS = ("greedy", "manual", "roll", "double", "take", "drop", "accept", "decline", "reject")
RESIGN_WORDS = {"single": 1, "gammon": 2, "backgammon": 3}

USAGE: dict[str, str] = {
    "help": "help [COMMAND] [USER]: this list, or how to use one command (by mail, name yourself to get the answer)",
    "register": "register USER PASSWORD: open an account (2-20 characters, a letter first; a password of 8 or more)",
    "email": "email USER PASSWORD ADDRESS|none: the address that receives your answers and your turns (a code is "
             "mailed to it first: confirm it with the confirm command)",
    "confirm": "confirm USER PASSWORD CODE: confirm your address with the code mailed to it",
    "mail": "mail USER PASSWORD on|off: a mail with the board when it is your turn (on by default)",
    "challenge": "challenge USER1 USER2 [PASSWORD1] [-force] [-match N | -money] [-nocrawford] [-jacoby] [-beavers] "
                 "[-hints] [-cubehints] [-verbose] [-nackgammon] [-twomovedoubles] [-commitment TOKEN -seed SEED]: "
                 "a new board (-nackgammon: "
                 "nackgammon's start; -twomovedoubles: a double is two moves); USER2 (a person) accepts it, a bot (bot:nn, "
                 "bot:pubeval, ...) at once; without PASSWORD1, USER1 must confirm it too (accept BOARD USER1 "
                 "PASSWORD); -force (with PASSWORD1): USER1 takes the higher die of the first opening roll, and "
                 "USER2 is told so; -seed (with the TOKEN commit gave, and PASSWORD1): your own dice seed",
    "move": "move BOARD USER PASSWORD MOVE[#MOVENO]: play your roll, e.g. 13-10,13-10,10-7,10-7 or 2(13-10),2(10-7) "
            "or 13:3,13:3,10:3,10:3 (B is the bar, H home; with men on the bar just the point entered; bearing off just "
            "the point); MOVE may also be greedy, manual, roll, double, take, drop, accept, decline, reject or resign, "
            "or ? for the list of your legal moves. #MOVENO (the number the board shows) plays the move on that turn "
            "only: a move sent twice, or once the board has moved on, is refused",
    "greedy": "greedy BOARD USER PASSWORD: turn greedy mode on or off (default off): a bear-off that uses every die "
              "is made for you",
    "manual": "manual BOARD USER PASSWORD: turn manual mode on or off (default off): in manual mode you roll and "
              "double yourself; otherwise the server rolls for you",
    "roll": "roll BOARD USER PASSWORD: roll the dice (manual mode); with a double offered to you, take it",
    "double": "double BOARD USER PASSWORD: offer a double before rolling (manual mode)",
    "take": "take BOARD USER PASSWORD: take the double offered to you",
    "drop": "drop BOARD USER PASSWORD: drop the double offered to you (you lose the game at the cube's value)",
    "accept": "accept BOARD USER PASSWORD [SEED]: accept a challenge (SEED: your own dice seed, 1-64 characters "
              "without spaces, mixed with the server's seed committed in the invitation), a resignation offered to "
              "you, or a double",
    "commit": "commit USER PASSWORD: the server draws its dice seed for your next challenge and shows its "
              "SHA-256 first; challenge with -commitment TOKEN -seed SEED (your own seed) to mix it in",
    "decline": "decline BOARD USER PASSWORD: decline a challenge (or withdraw yours), or reject a resignation",
    "reject": "reject BOARD USER PASSWORD: reject the resignation offered to you: play goes on",
    "resign": "resign BOARD USER PASSWORD [single|gammon|backgammon]: offer to resign (default single); with a "
              "double offered to you, drop it",
    "board": "board BOARD [USER]: the board, the dice, the cube, the score and whose turn it is (also: status)",
    "history": "history BOARD [USER]: every event of the board, numbered",
    "games": "games USER: your boards and whose turn it is on each",
    "ratings": "ratings [all|week] [USER]: the top list of all time or of the last 7 days (also: standings)",
}
ALIASES = {"status": "board", "standings": "ratings"}


class MailCommandError(GammonError, ValueError):
    """A command line that is not a command: the message says which word and what was expected."""


@dataclass(frozen=True)
class Command:
    """One parsed command: its word, the board, the account and password it names, and the rest."""

    word: str
    board: int | None = None
    user: str | None = None
    password: str | None = None
    args: tuple[str, ...] = ()
    move: str | None = None  #: a checker move in the seed's syntax
    move_number: int | None = None  #: the ``#MOVENO`` guard
    options: dict[str, object] = field(default_factory=dict)  #: challenge options

    @property
    def accounts(self) -> tuple[str, ...]:
        """The accounts the command names: its answers may be mailed to their registered addresses."""
        if self.word == "challenge":
            return tuple(self.args[:2])
        return (self.user,) if self.user else ()

    def __repr__(self) -> str:  # the password is never shown
        shown = "***" if self.password is not None else None
        return (f"Command(word={self.word!r}, board={self.board!r}, user={self.user!r}, password={shown!r}, "
                f"args={self.args!r}, move={self.move!r}, move_number={self.move_number!r}, options={self.options!r})")


def _board(word: str) -> int:
    if not re.fullmatch(r"[0-9]{1,9}", word) or int(word) < 1:
        raise MailCommandError(f"board: expected a board number such as 12, got {word!r}")
    return int(word)


def _need(words: list[str], count: int, command: str) -> None:
    if len(words) < count:
        raise MailCommandError(f"{command}: too few words; usage: {USAGE[command]}")


def _no_more(words: list[str], used: int, command: str) -> None:
    if len(words) > used:
        raise MailCommandError(f"{command}: unexpected {' '.join(words[used:])!r}; usage: {USAGE[command]}")


def parse(line: str) -> Command:
    """The command on one line (its first word may be ``backgammon``)."""
    if len(line) > MAX_LINE:
        raise MailCommandError(f"the command is {len(line)} characters long; at most {MAX_LINE} are read")
    if any(ord(ch) < 32 and ch not in "\t\r\n" for ch in line):
        raise MailCommandError("the command holds control characters: send plain text")
    words = line.split()
    if words and words[0].lower() == GAME:
        words = words[1:]
    if not words:
        raise MailCommandError(f"no command: expected one of {', '.join(USAGE)} (help COMMAND tells how to use one)")
    word = words[0].lower()
    word = ALIASES.get(word, word)
    rest = words[1:]
    if word == "help":  # help [COMMAND] [USER]: USER, for an answer by mail
        _no_more(rest, 2, "help")
        topics = [w.lower() for w in rest if w.lower() in USAGE or w.lower() in ALIASES]
        users = [w for w in rest if w.lower() not in USAGE and w.lower() not in ALIASES]
        if len(users) > 1 or len(topics) > 1:
            raise MailCommandError(f"help: usage: {USAGE['help']}")
        return Command("help", user=users[0] if users else None, args=tuple(topics))
    if word == "register":
        _need(rest, 2, word)
        _no_more(rest, 2, word)
        return Command(word, user=rest[0], password=rest[1])
    if word == "email":
        _need(rest, 3, word)
        _no_more(rest, 3, word)
        return Command(word, user=rest[0], password=rest[1], args=(rest[2],))
    if word == "confirm":
        _need(rest, 3, word)
        _no_more(rest, 3, word)
        return Command(word, user=rest[0], password=rest[1], args=(rest[2],))
    if word == "mail":
        _need(rest, 3, word)
        _no_more(rest, 3, word)
        if rest[2].lower() not in ("on", "off"):
            raise MailCommandError(f"mail: expected on or off, got {rest[2]!r}")
        return Command(word, user=rest[0], password=rest[1], args=(rest[2].lower(),))
    if word == "challenge":
        return _challenge(rest)
    if word == "move":
        _need(rest, 4, word)
        board, user, password = _board(rest[0]), rest[1], rest[2]
        text = " ".join(rest[3:])
        number = None
        if "#" in text:
            text, _, guard = text.rpartition("#")
            if not re.fullmatch(r"\s*[0-9]{1,9}\s*", guard):
                raise MailCommandError(f"move: after # expected the move number the board shows, got {guard!r}")
            number = int(guard)
        special = text.strip().lower().split()
        if special and special[0] in SPECIAL_MOVES:
            return _special(special[0], board, user, password, special[1:], number)
        if not text.strip():
            raise MailCommandError(f"move: no move given; usage: {USAGE['move']}")
        return Command("move", board, user, password, move=text.strip(), move_number=number)
    if word == "commit":
        _need(rest, 2, word)
        _no_more(rest, 2, word)
        return Command(word, user=rest[0], password=rest[1])
    if word == "accept":  # its seed keeps its case
        _need(rest, 3, word)
        _no_more(rest, 4, word)
        return Command(word, _board(rest[0]), rest[1], rest[2], args=tuple(rest[3:]))
    if word in BOARD_ACTIONS or word == "resign":
        _need(rest, 3, word)
        return _special(word, _board(rest[0]), rest[1], rest[2], [w.lower() for w in rest[3:]], None)
    if word in ("board", "history"):
        _need(rest, 1, word)
        _no_more(rest, 2, word)
        return Command(word, _board(rest[0]), user=rest[1] if len(rest) > 1 else None)
    if word == "games":
        _need(rest, 1, word)
        _no_more(rest, 1, word)
        return Command(word, user=rest[0])
    if word == "ratings":
        period = "all"
        if rest and rest[0].lower() in ("all", "week"):
            period, rest = rest[0].lower(), rest[1:]
        _no_more(rest, 1, word)
        return Command(word, user=rest[0] if rest else None, args=(period,))
    shown = word if len(word) <= 40 else word[:40] + "..."
    raise MailCommandError(f"unknown command {shown!r}: expected one of {', '.join(USAGE)} (help COMMAND tells how to use one)")


def _special(word: str, board: int, user: str, password: str, rest: list[str], number: int | None) -> Command:
    if word == "resign":
        if len(rest) > 1 or (rest and rest[0] not in RESIGN_WORDS):
            raise MailCommandError(f"resign: expected single, gammon or backgammon, got {' '.join(rest)!r}")
        return Command("resign", board, user, password, args=tuple(rest), move_number=number)
    _no_more(rest, 0, word)
    return Command(word, board, user, password, move_number=number)


def _challenge(rest: list[str]) -> Command:
    _need(rest, 2, "challenge")
    names = rest[:2]
    options: dict[str, object] = {"length": 1, "force": False, "crawford": True, "jacoby": False, "beavers": False,
                                  "hints": False, "cube_hints": False, "verbose": False}
    password = None
    variant: list[str] = []
    words = iter(rest[2:])
    flags = {"-nocrawford": ("crawford", False), "-jacoby": ("jacoby", True), "-beavers": ("beavers", True),
             "-hints": ("hints", True), "-cubehints": ("cube_hints", True), "-verbose": ("verbose", True),
             "-force": ("force", True)}
    for word in words:
        lowered = word.lower()
        if lowered in flags:
            key, value = flags[lowered]
            options[key] = value
        elif lowered in VARIANT_FLAGS:
            if VARIANT_FLAGS[lowered] not in variant:
                variant.append(VARIANT_FLAGS[lowered])
        elif lowered == "-money":
            options["length"] = 0
        elif lowered in ("-seed", "-commitment"):
            given = next(words, None)
            if given is None or given.startswith("-"):
                raise MailCommandError(f"challenge: {lowered} expects a word after it, got {given!r}")
            options[lowered[1:]] = given
        elif lowered == "-match":
            length = next(words, None)
            if length is None or not re.fullmatch(r"[0-9]{1,2}", length):
                raise MailCommandError(f"challenge: -match expects a number of points 1-25, got {length!r}")
            options["length"] = int(length)
        elif not word.startswith("-") and password is None:
            password = word
        else:
            raise MailCommandError(f"challenge: unknown option {word[:40]!r}; usage: {USAGE['challenge']}")
    if variant:
        options["variant"] = ",".join(sorted(variant, key=list(VARIANT_FLAGS.values()).index))
    return Command("challenge", args=tuple(names), password=password, options=options)


#: The challenge's flags naming a rule variant, and its words (:class:`gammon.variant.Variant`).
VARIANT_FLAGS = {"-nackgammon": "nackgammon", "-twomovedoubles": "two-move-doubles"}
