"""The terminal game: seed 004's keys, typed words for screen-reader users, one sentence an event.

A :class:`Terminal` sits at a :class:`~gammon.cli.table.Table` (a bot on this machine, or a
match on a gammon server) and turns keys and typed lines into the table's actions. What
happens is told in "you" terms and in your numbering, from the match's history, so the
opponent's plays read as you see the board. Keys (:data:`KEYS`) act on an empty input line;
anything typed is a line of words or a play (a line that starts with ``:`` is always words).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from .. import diagram
from ..cube.context import CubeContext
from ..errors import GammonError, IllegalActionError
from ..evaluation import NOT_EVALUATED
from ..events import Doubled, MatchEvent, OpeningRolled, Played, Resigned
from ..match import Match
from ..narration import Narrator
from ..notation import whole_number
from ..play import BAR, OFF, Move, Play
from ..position import Color
from ..state import Resignation
from .table import Table, TableError

#: The keys, as seed 004 lists them, then gammon's few additions; shown by ``?``.
KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "roll (before rolling); pick up a checker, put it down (the same point again bears it off); "
              "confirm a complete play"),
    ("Ctrl+Backspace", "put the picked-up checker back (deselect)"),
    ("Ctrl+Arrows", "cycle the points that can move; with a checker picked up, its destinations (blots first)"),
    ("Arrows", "move along the board: Left/Right along a row, Up/Down between the rows"),
    ("Alt+Arrows", "jump to the edge of the row (Left/Right) or of the column (Up/Down)"),
    ("Home / End", "as Alt+Left / Alt+Right"),
    ("Shift+D", "offer a double (before rolling); a terminal cannot tell Shift from Caps Lock, so there a D is "
                "the cube (as d): type :double"),
    ("Y", "take a double; accept a resignation; yes"),
    ("N", "drop a double; reject a resignation; no"),
    ("U", "undo your last checker move"),
    ("H", "play hint: every play of your roll ranked"),
    ("Shift+H", "cube hint: double, take or pass (in a terminal, type :cube hint: an H is the play hint, as h)"),
    ("E", "status: bar and borne-off counts"),
    ("D", "the doubling cube"),
    ("P", "pip counts"),
    ("S", "match score"),
    ("C", "dice left to play"),
    ("T", "whose turn it is"),
    ("B", "read the board"),
    ("I", "Position ID, GNU Backgammon ID and XGID"),
    ("?", "this list"),
)
WORDS = """\
Typed words (a line; in key mode start it with ':' when it begins with a key's letter):
  roll, double, take, drop, accept, reject, undo, confirm, hint, cube hint,
  status, cube, pips, score, dice, turn, board, id, list, resign [gammon|backgammon],
  numbering (the opponent's plays in their numbering or yours), help, quit
  a play: 8/5 6/5, bar/22*, 6/off, 8/5(2); one checker: 13/8 or 13 8; #N plays entry N of the list
  last shown (list, or a hint)"""

#: Key tokens the reader returns for the keys above (prompt_toolkit's names where it has one). A letter
#: is its lower case: Caps Lock and Shift send the same capital, and only a reader that knows Shift was
#: down says so (``s-d``, ``s-h``), so a capital H with Caps Lock on is never the cube hint.
KEY_ACTIONS = {
    "enter": "enter", "c-h": "deselect", "backspace": "deselect",
    "c-right": "next", "c-down": "next", "c-left": "previous", "c-up": "previous",
    "left": "left", "right": "right", "up": "up", "down": "down",
    "home": "row-start", "end": "row-end", "a-left": "row-start", "a-right": "row-end",
    "a-up": "column-top", "a-down": "column-bottom",
    "s-d": "double", "s-h": "cube hint", "y": "yes", "n": "no", "u": "undo", "h": "hint", "e": "status", "d": "cube",
    "p": "pips", "s": "score", "c": "dice", "t": "turn", "b": "board", "i": "id", "?": "help",
}
#: The board as a grid from your side: the top row 13-24 left to right, the bottom row 12-1.
GRID = ((13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24), (12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1))
RESIGN_WORDS = {"": Resignation.SINGLE, "single": Resignation.SINGLE, "gammon": Resignation.GAMMON,
                "backgammon": Resignation.BACKGAMMON}


def key_action(name: str) -> str:
    """The action of a key token's name; a capital letter is its lower case (see :data:`KEY_ACTIONS`)."""
    if len(name) == 1 and name.isalpha():
        name = name.lower()
    return KEY_ACTIONS.get(name, "")


class Screen:
    """Where the board is drawn: appended to the transcript like any other text (a file, a pipe)."""

    in_place = False

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write

    def board(self, text: str) -> None:
        self.write(text)

    def close(self) -> None:
        pass


#: Rows a pinned board leaves for the transcript beneath it, at the least; a smaller terminal appends.
TRANSCRIPT_ROWS = 6


class PinnedScreen(Screen):
    """A terminal: the board pinned at the top and redrawn in place, the transcript scrolling
    beneath it in a scroll region of its own, so a new board never scrolls what was said away.

    The first board clears the screen; later ones rewrite only the rows that changed, with the
    cursor saved and restored around them. A terminal too small for both appends the board.
    """

    in_place = True

    def __init__(self, out: TextIO, size: Callable[[], os.terminal_size] = shutil.get_terminal_size) -> None:
        super().__init__(lambda text: print(text, file=out, flush=True))
        self.out, self.size = out, size
        self.shown: list[str] = []
        self.layout: tuple[int, int, int] | None = None  #: rows, columns, board rows

    def board(self, text: str) -> None:
        lines = text.splitlines()
        columns, rows = self.size()
        if rows < len(lines) + 1 + TRANSCRIPT_ROWS or columns <= max(map(len, lines), default=0):
            self.close()
            self.write(text)
            return
        layout = (rows, columns, len(lines))
        if layout != self.layout:
            self.layout, self.shown = layout, []
            # clear; the transcript's region is the rows below the board and a blank row; the cursor at its foot
            self.out.write(f"\x1b[2J\x1b[{len(lines) + 2};{rows}r\x1b[{rows};1H")
        changed = [(row, line) for row, line in enumerate(lines, 1)
                   if row > len(self.shown) or self.shown[row - 1] != line]
        self.out.write("\x1b7" + "".join(f"\x1b[{row};1H\x1b[2K{line}" for row, line in changed) + "\x1b8")
        self.out.flush()
        self.shown = lines

    def close(self) -> None:
        """The whole screen scrolls again, the cursor at its foot (when the game ends, or the board no longer fits)."""
        if self.layout is not None:
            self.out.write(f"\x1b[r\x1b[{self.layout[0]};1H")
            self.out.flush()
            self.layout, self.shown = None, []


def _one_move(text: str) -> Move | None:
    """One checker's move typed as ``13/8`` or ``13 8`` (read by the one move-text reader), or None."""
    if len(text.split()) > 2 or text.count("/") > 1:
        return None
    try:
        play = Play.parse(text.strip().replace(" ", "/"))
    except GammonError:
        return None
    return play.moves[0] if len(play.moves) == 1 else None


class _Quit(Exception):
    pass


@dataclass
class Settings:
    plain: bool = False  #: one sentence an event; the board read on demand only
    auto_forced: bool = True  #: a roll with one legal play is played for you
    their_numbering: bool = False  #: the opponent's plays in its own numbering
    verbose: bool = False  #: pip counts after every play


class Terminal:
    """One person at a table: reads keys or lines, acts, and tells what happened."""

    def __init__(self, table: Table, read: Callable[[str], str], write: Callable[[str], None],
                 settings: Settings | None = None, screen: Screen | None = None) -> None:
        self.table, self.read, self.write = table, read, write
        self.settings = settings or Settings()
        self.screen = screen or Screen(write)
        self.cursor = 6
        self.selected: int | None = None
        self.forced = False  #: the next play of yours was made for you
        self.crawford_told: int | None = None  #: the game announced as the Crawford game
        #: the plays of the list last shown (``list`` or a hint) and the roll they were shown for: ``#N`` is entry N
        self.numbered: tuple[tuple[int, int], list[Play]] | None = None

    # -- names ------------------------------------------------------------------------------
    @property
    def match(self) -> Match:
        return self.table.match

    @property
    def you(self) -> Color:
        return self.table.you

    def name(self, color: Color, *, start: bool = False) -> str:
        text = self.table.names[color]
        return text[0].upper() + text[1:] if start else text

    def _s(self, color: Color, verb: str) -> str:
        """``you roll`` / ``the bot rolls``."""
        return verb if color == self.you else verb + "s"

    # -- the loop ---------------------------------------------------------------------------
    def run(self) -> int:
        match = self.match
        length = f"a {match.length}-point match" if match.length else "a money game"
        self.board()
        self.write(f"{length[0].upper()}{length[1:]} against {self.name(self.you.other)}. "
                   f"Your checkers move from 24 down to 1; ? lists the keys, help the words.")
        try:
            return self._play()
        finally:
            self.screen.close()

    def _play(self) -> int:
        match = self.match
        try:
            while True:
                try:
                    self.table.advance()
                except TableError as error:
                    self.write(f"The server: {error}")
                told = self.tell()
                if match.state.crawford and self.crawford_told != match.game_number:
                    self.crawford_told = match.game_number
                    self.write("This is the Crawford game: neither side may double in it.")
                if any(isinstance(event, OpeningRolled) or (isinstance(event, Played) and event.color != self.you)
                       for event in told):
                    self.board()  # a new game, or the opponent's play: the board as it now stands
                if match.game_over:
                    if self.table.finished:
                        return 0
                    if match.length == 0 and not self.ask("Another game? Y or N"):
                        return 0
                    self.table.next_game()
                    continue
                if match.to_act != self.you:
                    continue
                if self.turn_start():
                    continue
                token = self.read(self.prompt())
                try:
                    self.handle(token)
                except (GammonError, TableError) as error:
                    reason = self.narrator.personal(str(error))  # "you cannot double", not "white cannot"
                    self.write(f"Not possible: {reason}" + ("" if reason.endswith((".", "?", "!", ")")) else "."))
                self.tell()
        except (EOFError, KeyboardInterrupt):
            self.write("Bye.")
            return 0
        except _Quit:
            self.write("Bye.")
            return 0

    def turn_start(self) -> bool:
        """Play a roll that has one legal play for you (an option); True when it did."""
        match = self.match
        state = match.state
        if state.dice is None or match.pending_moves or not self.settings.auto_forced:
            return False
        legal = match.legal_plays
        if len(legal) != 1 or legal.is_pass():
            return False
        self.forced = True
        for move in legal[0].moves:
            match.move(move.source, move.target, self.you)
        self.table.act("play")
        self.tell()
        return True

    def ask(self, question: str) -> bool:
        while True:
            answer = self.read(question + "> ").strip().lower().lstrip(":")
            if answer in ("y", "yes", "<y>", "yes!"):
                return True
            if answer in ("n", "no", ""):
                return False
            self.write("Y or N, please.")

    # -- telling what happened ---------------------------------------------------------------
    @property
    def narrator(self) -> Narrator:
        """The one narrator, told to you, in your numbering (or, asked for, each mover's own)."""
        return Narrator(self.table.names, self.you, own_numbering=self.settings.their_numbering,
                        verbose=self.settings.verbose)

    def tell(self) -> list[MatchEvent]:
        """Say what happened since last asked; the events told."""
        narrator = self.narrator
        news = self.table.news()
        for event in news:
            if isinstance(event, Played) and event.color == self.you and self.forced:
                self.forced = False
                event = dataclasses.replace(event, automatic=True)
            sentence = narrator.tell(event)
            if isinstance(event, Doubled) and event.color != self.you:
                sentence += " Take (Y) or drop (N)?"
            elif isinstance(event, Resigned) and event.color != self.you:
                sentence += " Accept (Y) or reject (N)?"
            self.write(sentence)
        return news

    # -- prompts ----------------------------------------------------------------------------
    def prompt(self) -> str:
        match = self.match
        state = match.state
        other = self.name(self.you.other)
        if state.double_offered:
            return f"{other[0].upper()}{other[1:]} doubles to {state.cube * 2}: Y takes, N drops> "
        if state.resignation is not None:
            return f"{other[0].upper()}{other[1:]} resigns: Y accepts, N rejects> "
        if state.dice is None:
            return "Your turn: Enter rolls" + (", :double doubles" if match.can_double(self.you) else "") + "> "
        if self.complete():
            return f"Play complete ({self.pending_text()}): Enter confirms, U undoes> "
        where = f"{self.point_text(self.cursor)}" + (f", holding the checker from {self._point_name(self.selected)}"
                                                      if self.selected is not None else "")
        return f"You rolled {state.dice[0]}-{state.dice[1]}, to play {self.dice_left()}; at {where}> "

    def complete(self) -> bool:
        match = self.match
        return match.state.dice is not None and len(match.pending_moves) == len(match.legal_plays[0].moves)

    def dice_left(self) -> str:
        return " ".join(map(str, self.match.remaining_dice)) or "nothing"

    def pending_text(self) -> str:
        return str(Play(self.match.pending_moves)) or "no move"

    def point_text(self, point: int) -> str:
        position = self.match.current_position
        mine = position.checkers(self.you)[point - 1]
        theirs = position.checkers(self.you.other)[24 - point]
        if mine:
            return f"{point}: {mine} of yours"
        if theirs:
            return f"{point}: {theirs} of {self.name(self.you.other)}'s" + (" (a blot)" if theirs == 1 else "")
        return f"{point}: empty"

    @staticmethod
    def _point_name(point: int | None) -> str:
        return "the bar" if point == BAR else str(point)

    # -- input ------------------------------------------------------------------------------
    def handle(self, token: str) -> None:
        if token.startswith("<") and token.endswith(">"):
            self.key(key_action(token[1:-1]))
        else:
            self.words(token.strip().lstrip(":").strip().lower())

    def key(self, action: str) -> None:
        if action == "enter":
            self.enter()
        elif action in ("next", "previous"):
            self.cycle(1 if action == "next" else -1)
        elif action in ("left", "right", "up", "down", "row-start", "row-end", "column-top", "column-bottom"):
            self.move_cursor(action)
        elif action == "deselect":
            self.write("Put back." if self.selected is not None else "Nothing is picked up.")
            self.selected = None
        elif action:
            self.words(action)

    def words(self, text: str) -> None:
        match = self.match
        word, _, rest = text.partition(" ")
        if text in ("", "enter"):
            self.enter()
        elif text in ("q", "quit", "exit"):
            if self.ask("Leave the game? Y or N"):
                raise _Quit
        elif text in ("?", "help", "keys"):
            self.write("Keys:\n" + "\n".join(f"  {key:<15} {what}" for key, what in KEYS) + "\n" + WORDS)
        elif text in ("board", "b"):
            self.show(force=True)
        elif text in ("status", "cube", "pips", "score", "dice", "turn"):
            self.write(self.status(text))
        elif text in ("id", "ids"):
            shown = match.current_state
            self.write(f"Position ID {shown.position.position_id()}; GNU Backgammon ID {shown.gnubg_id()}; "
                       f"XGID {shown.xgid()}.")
        elif text in ("numbering",):
            self.settings.their_numbering = not self.settings.their_numbering
            self.write("The opponent's plays are told in " + ("their own numbering." if self.settings.their_numbering
                                                             else "your numbering."))
        elif text in ("hint", "h"):
            self.hint()
        elif text in ("cube hint", "cubehint", "hint cube"):
            self.cube_hint()
        elif text in ("list", "l", "moves"):
            self.write(self.legal_list())
        elif text in ("roll", "r"):
            self.roll()
        elif text in ("double",):
            self.double()
        elif text in ("take", "yes", "y", "accept"):
            self.answer(True)
        elif text in ("drop", "no", "n", "reject", "pass"):
            self.answer(False)
        elif text in ("undo", "u"):
            undone = match.undo(self.you)
            self.selected = None
            self.write("Undone: " + " ".join(map(str, undone)) + f". To play: {self.dice_left()}.")
        elif text in ("confirm",):
            self.confirm()
        elif word == "resign":
            kind = RESIGN_WORDS.get(rest.strip())
            if kind is None:
                raise IllegalActionError(f"resign what? {rest!r}: say resign, resign gammon or resign backgammon")
            self.resign(kind)
        elif text.startswith("#"):
            plays = self.numbered_plays()
            number = whole_number(text[1:], 1, len(plays)) if plays else None
            if not plays or number is None:
                raise IllegalActionError(f"{text}: a play number from the list last shown (list, or a hint, shows them)")
            self.enter_play(plays[number - 1])
        else:
            self.typed_moves(text)

    def enter(self) -> None:
        """Enter: roll, confirm, or pick up / put down a checker at the cursor."""
        match = self.match
        state = match.state
        if state.double_offered or state.resignation is not None:
            self.write("Answer first: Y or N.")
        elif state.dice is None:
            self.roll()
        elif self.complete():
            self.confirm()
        elif self.selected is None:
            if match.current_position.bar(self.you):
                self.step(BAR, self.cursor)  # with a checker on the bar, any point enters it
            elif self.match.current_position.checkers(self.you)[self.cursor - 1] and self.cursor in self.sources():
                self.selected = self.cursor
                self.write(f"Picked up a checker from {self.cursor}.")
            else:
                self.write(f"No checker of yours can move from {self.cursor}; Ctrl+Right finds one.")
        else:
            source, self.selected = self.selected, None
            self.step(source, OFF if self.cursor == source else self.cursor)

    def step(self, source: int, target: int) -> None:
        path = self.match.move(source, target, self.you)
        self.write(f"You move {Play(path)}." + ("" if self.complete() else f" To play: {self.dice_left()}."))
        self.show()

    def typed_moves(self, text: str) -> None:
        match = self.match
        if match.state.dice is None:
            raise IllegalActionError(f"{text!r}: roll first (Enter)")
        words = text.replace("/", " ").split()
        if len(words) == 2 and words[0] == words[1] and "/" not in text and words[0].isdigit():
            self.step(_point(words[0]), OFF)  # "6 6": the checker on 6 goes off
            return
        single = _one_move(text)
        if single is not None:
            self.step(single.source, single.target)
            return
        if not match.pending_moves:
            try:
                play = match.legal_plays.find(text)
            except GammonError:
                play = None
            if play is not None:
                self.enter_play(play)
                return
        try:  # moves to add to those entered: read by the one move-text reader, each step in turn
            steps = Play.parse(text.replace(",", " ")).moves
        except GammonError:
            raise IllegalActionError(f"{text!r} is not a play: try 8/5 6/5, 13 8, or help") from None
        made = 0
        try:
            for step in steps:
                match.move(step.source, step.target, self.you)
                made += 1
        except GammonError:
            for _ in range(made):
                match.undo(self.you)
            raise
        self.write(f"You move {Play(match.pending_moves)}." + ("" if self.complete() else f" To play: {self.dice_left()}."))
        self.show()

    def enter_play(self, play: Play) -> None:
        """A whole play, entered checker by checker: it waits for your Enter (or U)."""
        match = self.match
        while match.pending_moves:
            match.undo(self.you)
        for move in play.moves:
            match.move(move.source, move.target, self.you)
        self.write(f"You move {play or 'nothing'}.")
        self.show()

    def confirm(self) -> None:
        if not self.complete():
            raise IllegalActionError(f"the play is not complete: to play {self.dice_left()}")
        self.selected = None
        self.table.act("play")

    def roll(self) -> None:
        if self.match.state.dice is not None:
            raise IllegalActionError(f"you have rolled already: to play {self.dice_left()}")
        self.table.act("roll")
        self.tell()
        if self.match.state.dice is not None and self.match.to_act == self.you:
            sources = self.sources()
            if sources:
                self.cursor = sources[0]
            self.show()

    def double(self) -> None:
        match = self.match
        if match.can_double(self.you) and not CubeContext.from_state(match.state).can_double:
            raise IllegalActionError("the cube is dead: one game at the current cube already wins you the match, "
                                     "so doubling gains nothing")
        self.table.act("double")

    def answer(self, yes: bool) -> None:
        """Y or N: take or drop the double offered to you; accept or reject a resignation."""
        state = self.match.state
        if state.double_offered:
            self.table.act("take" if yes else "drop")
        elif state.resignation is not None:
            self.table.act("accept" if yes else "reject")
        else:
            raise IllegalActionError("nothing is offered to you")

    def resign(self, kind: Resignation) -> None:
        what = {Resignation.SINGLE: "a single game", Resignation.GAMMON: "a gammon",
                Resignation.BACKGAMMON: "a backgammon"}[kind]
        points = int(kind) * self.match.state.cube
        if self.ask(f"Resign {what}, giving {points} point{'s' if points != 1 else ''}? Y or N"):
            self.table.act("resign", resignation=kind)
        else:
            self.write("You play on.")

    # -- the cursor ---------------------------------------------------------------------------
    def next_steps(self) -> dict[int, list[int]]:
        """Each point a checker of yours can move from now, with its destinations (blots first)."""
        if self.complete():
            return {}
        theirs = self.match.current_position.checkers(self.you.other)
        return {source: sorted(targets, key=lambda t: (not (t != OFF and theirs[24 - t] == 1), -t))
                for source, targets in self.match.next_moves().items()}

    def sources(self) -> list[int]:
        return [s for s in self.next_steps() if s != BAR]

    def cycle(self, direction: int) -> None:
        steps = self.next_steps()
        if not steps:
            self.write("Nothing to move now.")
            return
        if self.selected is None and BAR in steps:
            targets = list(steps[BAR])
            self._cycle_to(targets, direction, "enter on")
        elif self.selected is None:
            self._cycle_to(list(steps), direction, "from")
        else:
            targets = steps.get(self.selected, [])
            if not targets:
                self.write(f"The checker from {self.selected} cannot move: Ctrl+Backspace puts it back.")
                return
            self._cycle_to([self.selected if t == OFF else t for t in targets], direction, "to")

    def _cycle_to(self, points: list[int], direction: int, what: str) -> None:
        if self.cursor in points:
            self.cursor = points[(points.index(self.cursor) + direction) % len(points)]
        else:
            self.cursor = points[0 if direction > 0 else -1]
        off = what == "to" and self.cursor == self.selected
        self.write(f"{what.capitalize()} {self.point_text(self.cursor)}" + (" (bear off)" if off else "") + ".")

    def move_cursor(self, action: str) -> None:
        row = 0 if self.cursor >= 13 else 1
        column = GRID[row].index(self.cursor)
        if action == "left":
            column = max(column - 1, 0)
        elif action == "right":
            column = min(column + 1, 11)
        elif action in ("up", "column-top"):
            row = 0
        elif action in ("down", "column-bottom"):
            row = 1
        elif action == "row-start":
            column = 0
        elif action == "row-end":
            column = 11
        self.cursor = GRID[row][column]
        self.write(self.point_text(self.cursor) + ".")

    # -- reports ------------------------------------------------------------------------------
    def picture(self) -> str:
        return diagram.render(self.match.current_state, plain=self.settings.plain, perspective=self.you)

    def board(self) -> None:
        """The board at the start, at each new game and after the opponent's play (not in plain mode,
        where it is read on demand): redrawn in place on a terminal, appended elsewhere."""
        if not self.settings.plain:
            self.screen.board(self.picture())

    def show(self, force: bool = False) -> None:
        """The board after a change of yours (a checker moved, a roll): on a terminal, the pinned board
        redrawn; appended only when asked (``force``: B), so a transcript is not a board a checker."""
        if force and (self.settings.plain or not self.screen.in_place):
            self.write(self.picture())
        elif self.screen.in_place and not self.settings.plain:
            self.screen.board(self.picture())

    def status(self, what: str) -> str:
        match = self.match
        state = match.state
        position = match.current_position
        you, other = self.you, self.you.other
        them = self.name(other)
        if what == "pips":
            return f"Pips: you {position.pip_count(you)}, {them} {position.pip_count(other)}."
        if what == "score":
            if match.length == 0:
                return "Money play: one game, the cube's value in points."
            crawford = " This is the Crawford game." if state.crawford else ""
            return (f"Score: you {match.score[you]}, {them} {match.score[other]}, in a {match.length}-point "
                    f"match.{crawford}")
        if what == "cube":
            if match.length == 1:
                return "No doubling cube in a 1-point match."
            owner = "in the middle" if state.cube_owner is None else (
                "yours" if state.cube_owner == you else f"{them}'s")
            offered = " A double is offered." if state.double_offered else ""
            crawford = " Crawford game: no doubling." if state.crawford else ""
            return f"The cube is at {state.cube}, {owner}.{offered}{crawford}"
        if what == "dice":
            if state.dice is None:
                return "The dice have not been rolled."
            return f"You rolled {state.dice[0]}-{state.dice[1]}; to play: {self.dice_left()}." \
                if match.to_act == you else f"{them[0].upper()}{them[1:]} rolled {state.dice[0]}-{state.dice[1]}."
        if what == "turn":
            if match.to_act is None:
                return "No one is to act."
            return "Your turn." if match.to_act == you else f"{them[0].upper()}{them[1:]}'s turn."
        return (f"Bar: you {position.bar(you)}, {them} {position.bar(other)}. "
                f"Borne off: you {position.borne_off(you)}, {them} {position.borne_off(other)}.")

    def _roll(self) -> tuple[int, int]:
        """This roll, as a list's plays are numbered for it: the game and the actions so far."""
        return self.match.game_number, len(self.match.history)

    def numbered_plays(self) -> list[Play]:
        """What ``#N`` numbers: the list last shown for this roll (``list`` or a hint), else every legal play."""
        if self.match.state.dice is None:
            return []
        if self.numbered is not None and self.numbered[0] == self._roll():
            return self.numbered[1]
        return list(self.match.legal_plays)

    def legal_list(self) -> str:
        if self.match.state.dice is None:
            return "Roll first: the plays are those of a roll."
        legal = list(self.match.legal_plays)
        self.numbered = (self._roll(), legal)
        return "\n".join(f"#{i + 1:<3} {play or 'no move'}" for i, play in enumerate(legal))

    def hint(self) -> None:
        state = self.match.state
        if not self.table.hints:
            raise IllegalActionError("hints are off in this match")
        if state.dice is None or self.match.to_act != self.you:
            raise IllegalActionError("a play hint is for your roll: roll first")
        self.write("Thinking...")
        plays = self.table.play_hints()
        lines = [f"Hint for {state.dice[0]}-{state.dice[1]}, best first (ply {plays[0]['ply']}; #N plays entry N):"] \
            if plays else []
        legal = self.match.legal_plays
        self.numbered = (self._roll(), [legal.find(item["play"]) for item in plays])
        for item in plays[:10]:
            loss = "" if item["rank"] == 1 or item["loss"] is None else f" ({-float(item['loss']):+.3f})"
            equity = NOT_EVALUATED if item["equity"] is None else f"equity {float(item['equity']):+.3f}"
            lines.append(f"  #{item['rank']} {item['play']}: {equity}{loss}")
        if len(plays) > 10:
            lines.append(f"  ... and {len(plays) - 10} more (list shows every play)")
        self.write("\n".join(lines) or "No play to hint: the roll cannot be played.")

    def cube_hint(self) -> None:
        state = self.match.state
        if not self.table.cube_hints:
            raise IllegalActionError("cube hints are off in this match")
        if state.dice is not None:
            raise IllegalActionError("the cube is decided before rolling, or when you are doubled")
        self.write("Thinking...")
        advice = self.table.cube_advice()
        numbers = ", ".join(f"{label} {float(advice[key]):+.3f}" for key, label in
                            (("no_double", "no double"), ("double_take", "double/take"),
                             ("double_pass", "double/pass")) if advice.get(key) is not None)
        self.write(f"Cube hint: {advice['action']}." + (f" Equities: {numbers}." if numbers else ""))


def _point(text: str) -> int:
    return BAR if text == "bar" else OFF if text == "off" else int(text)
