"""GNU Backgammon/Jellyfish ``.mat`` text and its cousins (the sites' ``.txt`` exports): reading
every dialect by rule, writing only GNU Backgammon's.

A game is a score line (black on the left, as GNU Backgammon's player 0) and numbered rows,
each holding black's turn then white's: ``52: 13/8 8/6`` (bar 25, off 0, ``*`` a hit),
`` Doubles => 2``, `` Takes``, `` Drops``, `` Beavers => 4``, and a closing ``Wins N points``
written in the winner's column. GNU Backgammon writes no resignation: a game that ends
unfinished with a ``Wins`` line was resigned, and is read back so.

**Reading, by rule rather than by site.** A row is cut into cells: a cell starts at a roll
(``52:``, or ``52`` without its colon) or at a keyword (``Doubles``, ``Takes``/``Accepts``,
``Drops``/``Passes``/``Rejects``, ``Beavers``, ``Resigns``/``Resign gammon``/``Resigned Game``/
``Resigned Match``, ``Wins``, ``Losses``), and runs to the next. Rolls and cube actions alternate
between the sides from the game's first cell, whose column says who won the opening roll; a
``Wins``, ``Losses`` or resignation is its column's (the boundary lies halfway to where the score
line writes the second name). What a site writes its own way is read as what it means, with a
warning naming the game and line (:class:`~gammon.record.fields.RecordWarning`): ``Cannot Move``
(no move), ``Doubles ==> 2``, ``0/0`` for an unused die, chained plays (``44: 22/6``), tabs,
``[Tag "value"]`` headers without ``;`` and tags in any case (``Cubelimit``), a ``Wins`` line
given a row number, Galaxy's ``????`` for a play it hides before a resignation, ``Illegal play``
marks, ``; Set Pos=`` lines (not read: games start at the opening), and several matches in one
file (each new ``N point match`` line, header or ``Game 1`` after games begins the next).
What cannot be replayed is still a RecordError naming the line, or the game and move.
"""

from __future__ import annotations

import dataclasses
import re

from ..match import Action, ActionKind
from ..position import Color
from ..state import Resignation
from ..variant import STANDARD
from ..notation import whole_number
from .fields import (RecordError, RecordFields, RecordView, Rules, Warnings, beavered, record_number, variant_of,
                     variation)

__all__ = ["read_mat", "read_mats", "write_mat"]

#: Metadata keys and the header tags that carry them, in the order GNU Backgammon writes them (its
#: annotator is the "Transcriber"; the comment is written as plain ``; `` lines after the tags).
TAGS = {"site": "Site", "event": "Event", "round": "Round", "date": "EventDate", "annotator": "Transcriber"}
_READ_TAGS = {**{tag.lower(): key for key, tag in TAGS.items()}, "annotator": "annotator", "date": "date"}
_RULE_TAGS = {tag.lower(): tag for tag in ("Crawford", "Jacoby", "Beaver", "CubeLimit", "Variation")}
_COLUMN = 28  # width of black's column, as GNU Backgammon pads it
_LENGTH = re.compile(r"\s*(\d+)\s+points?\s+match\s*", re.IGNORECASE)
_GAME = re.compile(r"\s*Game\s+(\d+)\s*", re.IGNORECASE)
# The score line ``NAME : N   NAME : N`` is split at its colons by hand (:func:`_score_line`): one
# pattern over it, ``\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*``, backtracks for minutes on
# a line of spaces around a colon (issue 36). These two read the fields after a colon.
_SCORE_AFTER_FIRST = re.compile(r"\s*(\d+)\s")
_SCORE_AFTER_LAST = re.compile(r"\s*(\d+)\s*")
_ROW = re.compile(r"(\s*)(\d+)\)(.*)")
_WORD = re.compile(r"\S+")
_ROLL = re.compile(r"(\d)(\d)(:?)")
#: A checker move as the dialects write it: ``13/8``, ``25/22*``, ``bar/22``, ``6/0``, ``6/off``,
#: ``13/10(2)``, chained ``24/18*/13`` or ``22/6``. Each part is a point, so the pattern cannot
#: backtrack (issue 36).
_STEP = re.compile(r"(?:\d{1,3}|bar|off)\*?(?:/(?:\d{1,3}|bar|off)\*?)+(?:\(\d\))?", re.IGNORECASE)
_DOUBLES = {"doubles": ActionKind.DOUBLE, "double": ActionKind.DOUBLE, "redoubles": ActionKind.DOUBLE,
            "redouble": ActionKind.DOUBLE, "beavers": ActionKind.BEAVER, "beaver": ActionKind.BEAVER}
_ANSWERS = {"takes": ActionKind.TAKE, "take": ActionKind.TAKE, "accepts": ActionKind.TAKE,
            "drops": ActionKind.DROP, "drop": ActionKind.DROP, "passes": ActionKind.DROP,
            "pass": ActionKind.DROP, "rejects": ActionKind.DROP}
_RESIGN_KINDS = {"normal": Resignation.SINGLE, "single": Resignation.SINGLE, "gammon": Resignation.GAMMON,
                 "backgammon": Resignation.BACKGAMMON}
_ARROWS = ("=>", "==>", "->", "=")
_NO_MOVE = ("cannot", "can't", "cant", "no", "(no", "pass", "-")


# -- reading ----------------------------------------------------------------------------------
@dataclasses.dataclass
class _Cell:
    """One turn's entry in a row: where it starts and what it says."""

    column: int
    kind: str  # roll, cube, resign, wins, losses, hidden
    dice: tuple[int, int] | None = None
    steps: str | None = None  # a roll's play (None: hidden)
    action: ActionKind | None = None
    resignation: Resignation | None = None
    points: int | None = None
    whole_match: bool = False


class _Game:
    def __init__(self, line: int, number: int) -> None:
        self.line = line
        self.number = number
        self.score: tuple[int, int] | None = None
        self.names: tuple[str, str] | None = None
        self.actions: list[Action | tuple[Color, str]] = []
        self.moves: list[int] = []
        self.cells = 0
        self.row = 0
        self.first: Color | None = None
        self.declared: tuple[Color, int] | None = None
        self.middle = 5 + _COLUMN // 2  # a column this far in or further is white's
        self.resigned: tuple[Color, Resignation | None, bool, str] | None = None  # who, what, the match, where
        self.hidden: str | None = None  # where a hidden play stands: nothing but a resignation may follow

    def where(self, line: int) -> str:
        return f"game {self.number}, line {line}"

    def side(self, column: int) -> Color:
        return Color.WHITE if column >= self.middle else Color.BLACK


class _Match:
    """One match's lines as read: its header, its rules' tags and its games."""

    def __init__(self) -> None:
        self.metadata: dict[str, str] = {}
        self.comment: list[str] = []  # metadata["comment"] a line at a time, joined once at the end
        self.rules: dict[str, str] = {}
        self.length: int | None = None
        self.games: list[_Game] = []
        self.warnings = Warnings()


def read_mats(text: str) -> list[list[RecordFields]]:
    """Every match in ``.mat`` text, each as the readings it allows (:func:`read_mat`)."""
    text = text.removeprefix("\ufeff")
    matches = [_Match()]
    for number, raw in enumerate(text.splitlines(), 1):
        match = matches[-1]
        if "\t" in raw:
            match.warnings.add(f"line {number}", "tabs read as spaces (to the next multiple of 8)", "tabs")
        line = raw.expandtabs(8).rstrip()
        where = f"line {number}"
        if not line.strip():
            continue
        stripped = line.strip()
        game = match.games[-1] if match.games else None
        tag = _tag(stripped)
        if stripped.startswith(";") or tag is not None:
            if tag is None:
                body = stripped[1:].removeprefix(" ")
                if body.lower().replace(" ", "").startswith("setpos="):
                    match.warnings.add(game.where(number) if game else where, "a '; Set Pos=' line is not read: "
                                       "the game is replayed from the opening roll", "set pos")
                elif game is None:  # the match's comment, a line at a time
                    match.metadata.setdefault("comment", "")
                    match.comment.append(body)
                continue
            if game is not None:  # a header after games: the next match in the file
                matches.append(_Match())
                match = matches[-1]
            if not stripped.startswith(";"):
                match.warnings.add(where, f"a header without its ';' read as one: {stripped!r}", "header")
            name, value = tag
            if name.lower() in _RULE_TAGS:
                match.rules[_RULE_TAGS[name.lower()]] = value
            else:
                key = _READ_TAGS.get(name.lower(), name)
                match.metadata[key] = value.replace(".", "-") if key == "date" else value
                if key == "comment":
                    match.comment = [value]
            continue
        if (found := _LENGTH.fullmatch(line)) is not None:
            if game is not None:
                matches.append(_Match())
                match = matches[-1]
            elif match.length is not None:
                raise RecordError(where, f"a second match length before any game, found {stripped!r}")
            match.length = record_number(found.group(1), where, "the match length")
            continue
        if (found := _GAME.fullmatch(line)) is not None:
            number_read = record_number(found.group(1), where, "the game number")
            if number_read == 1 and match.games:  # a new match without its own header
                length = match.length
                matches.append(_Match())
                match = matches[-1]
                match.length = length
            if match.length is None:
                raise RecordError(where, "a game before the ' N point match' line")
            if number_read != len(match.games) + 1:
                raise RecordError(where, f"expected game {len(match.games) + 1}, found {found.group(1)}")
            match.games.append(_Game(number, number_read))
            continue
        if game is None:
            raise RecordError(where, f"expected ' N point match' or ' Game 1', found {stripped!r}")
        _read_line(match, game, line, number)
    out = []
    for match in matches:
        if match.length is None and not match.games and not match.rules and len(matches) > 1:
            continue  # a trailing header or comment without games
        out.append(_fields(match))
    return out


def read_mat(text: str) -> list[RecordFields]:
    """Read ``.mat`` text (its first match); any line that is not what the format allows is a
    RecordError naming it.

    The file leaves some things unsaid (beavers, the Jacoby rule in money play, whether it starts
    with the Crawford game): the readings it allows, most likely first, for the record to replay
    in turn (:meth:`MatchRecord.from_mat <gammon.record.MatchRecord.from_mat>`)."""
    return read_mats(text)[0]


def _tag(line: str) -> tuple[str, str] | None:
    """``; [Name "value"]`` (or without its ``;``) as (name, value), else None. Split by hand: a
    pattern with a name that may hold spaces (``Player 1``) backtracks on a line of spaces."""
    body = line[1:].lstrip() if line.startswith(";") else line
    if not (body.startswith("[") and body.endswith("]")):
        return None
    inner = body[1:-1].strip()
    quote = inner.find('"')
    if quote <= 0 or not inner.endswith('"') or quote == len(inner) - 1:
        return None
    name = inner[:quote].strip()
    if not name or '"' in name:
        return None
    return name, inner[quote + 1:-1]


def _read_line(match: _Match, game: _Game, line: str, number: int) -> None:
    where = f"line {number}"
    stripped = line.strip()
    if game.declared is not None:
        raise RecordError(where, f"nothing may follow the 'Wins' line of game {game.number}, found {stripped!r}")
    found = _ROW.fullmatch(line)
    if found is not None:
        offset = found.start(3)
        cells = _cells(found.group(3), offset, game, number)
        _read_row(match, game, record_number(found.group(2), where, "the row number"), cells, number)
        return
    if game.score is None and (score := _score_line(line)) is not None:
        game.names = (score[0], score[2])
        # indexed by Color: black 0 (left), white 1
        game.score = (record_number(score[1], where, "a score"), record_number(score[3], where, "a score"))
        second = line.rfind(score[2], 0, line.rfind(":"))
        if second > 0:
            game.middle = (5 + second) // 2 + 1
        return
    cells = _cells(line, 0, game, number, quiet=True)
    if cells and all(cell.kind in ("wins", "losses", "resign") for cell in cells):
        for cell in cells:
            _end_cell(match, game, cell, number)
        return
    raise RecordError(where, f"expected a score line 'NAME : N   NAME : N', a numbered row or 'Wins N points', "
                      f"found {stripped!r}")


def _cells(rest: str, offset: int, game: _Game, number: int, quiet: bool = False) -> list[_Cell]:
    """The cells of a row (``rest``, starting at column ``offset``), each from its roll or keyword
    to the next; a RecordError names what starts no cell."""
    where = f"line {number}"
    words = [(m.start() + offset, m.group()) for m in _WORD.finditer(rest)]
    cells: list[_Cell] = []
    i = 0
    while i < len(words):
        column, word = words[i]
        low = word.lower()
        roll = _ROLL.fullmatch(word)
        if roll is not None and (roll.group(3) or i + 1 == len(words) or _is_play_word(words[i + 1][1])):
            dice = (int(roll.group(1)), int(roll.group(2)))
            if not all(1 <= d <= 6 for d in dice):
                raise RecordError(where, f"dice are 1-6, found {word!r}")
            j = i + 1
            while j < len(words) and _is_play_word(words[j][1]):
                j += 1
            cells.append(_Cell(column, "roll", dice=dice, steps=" ".join(w for _, w in words[i + 1:j])))
            i = j
        elif low in _DOUBLES:
            j = i + 1
            if j < len(words) and words[j][1] in _ARROWS:
                j += 1
                if j == len(words) or whole_number(words[j][1]) is None:
                    found = " ".join(w for _, w in words[i:j + 1])
                    raise RecordError(where, f"expected '{word} => N', found {found!r}")
                j += 1
            cells.append(_Cell(column, "cube", action=_DOUBLES[low], steps=" ".join(w for _, w in words[i:j])))
            i = j
        elif low in _ANSWERS:
            cells.append(_Cell(column, "cube", action=_ANSWERS[low], steps=word))
            i += 1
        elif low.startswith("resign"):
            j = i + 1
            kind = None
            whole = False
            if j < len(words) and words[j][1].lower() in (*_RESIGN_KINDS, "game", "match"):
                kind = _RESIGN_KINDS.get(words[j][1].lower())
                whole = words[j][1].lower() == "match"
                j += 1
            cells.append(_Cell(column, "resign", resignation=kind, whole_match=whole, steps=" ".join(
                w for _, w in words[i:j])))
            i = j
        elif low in ("wins", "won", "losses", "loses", "lost"):
            j = i + 1
            points = None
            if j < len(words) and whole_number(words[j][1]) is not None:
                points = record_number(words[j][1], where, "the points won")
                j += 1
            if j < len(words) and words[j][1].lower() in ("point", "points"):
                j += 1
            tail = [w.lower() for _, w in words[j:j + 3]]
            if tail[:3] == ["and", "the", "match"]:
                j += 3
            elif tail[:1] == ["with"]:
                j = min(len(words), j + 3)
            if points is None:
                if quiet:
                    return []
                raise RecordError(where, f"expected '{word} N points', found {' '.join(w for _, w in words[i:j])!r}")
            cells.append(_Cell(column, "wins" if low in ("wins", "won") else "losses", points=points))
            i = j
        elif word in ("????", "???"):
            cells.append(_Cell(column, "hidden"))
            i += 1
        else:
            if quiet:
                return []
            if cells and cells[-1].kind == "roll":
                raise RecordError(where, f"expected a checker move such as '13/8', '25/21*' or '6/0', found {word!r}")
            if cells and cells[-1].kind == "cube":
                raise RecordError(where, f"expected nothing after {cells[-1].steps!r}, found {word!r}")
            raise RecordError(where, f"expected a roll such as '52:' or a cube action, found {word!r}")
    return cells


def _is_play_word(word: str) -> bool:
    """A word that belongs to a roll's cell: a checker move, or one of the ways of saying none."""
    low = word.lower()
    return (_STEP.fullmatch(word) is not None or low in _NO_MOVE or low in ("move", "moves", "move)", "play",
            "illegal", "????", "???") or low == "0/0")


def _read_row(match: _Match, game: _Game, row: int, cells: list[_Cell], number: int) -> None:
    where = f"line {number}"
    turns = [cell for cell in cells if cell.kind in ("roll", "cube", "hidden")]
    if not cells:
        raise RecordError(where, f"row {row} is empty")
    if turns:
        if game.cells and row != game.row + 1:
            raise RecordError(where, f"expected row {game.row + 1}, found row {row}")
        if game.cells == 0 and row != 1:
            raise RecordError(where, f"expected row 1, found row {row}")
        if len(turns) > 2:
            raise RecordError(where, "a row holds at most two turns, black's then white's")
        game.row = row
    elif any(cell.kind in ("wins", "losses") for cell in cells):
        match.warnings.add(game.where(number), "a 'Wins' line with a row number of its own", "numbered wins")
    for cell in cells:
        if cell.kind in ("wins", "losses", "resign"):
            _end_cell(match, game, cell, number)
            continue
        if game.resigned is not None or game.hidden is not None:
            raise RecordError(where, f"game {game.number} goes on after a resignation or a hidden play "
                              f"({game.hidden or game.resigned[3]})")  # type: ignore[index]
        if game.cells == 0:
            game.first = game.side(cell.column)  # who won the opening roll: the first cell's column
        first = game.first
        assert first is not None  # set by the game's first cell, just above
        color = first if game.cells % 2 == 0 else first.other
        _read_cell(match, game, color, cell, row, number)
        game.cells += 1


def _end_cell(match: _Match, game: _Game, cell: _Cell, number: int) -> None:
    """A ``Wins``, ``Losses`` or resignation: its column says whose."""
    where = f"line {number}"
    side = game.side(cell.column)
    if cell.kind == "resign":
        if game.resigned is not None:
            raise RecordError(where, f"game {game.number} has a second resignation")
        game.resigned = (side, cell.resignation, cell.whole_match, game.where(number))
        if cell.whole_match:
            match.warnings.add(game.where(number), f"{side.name.lower()} resigned the match: read as a "
                               "resignation of this game, for what the 'Wins' line says", "resigned match")
        return
    if game.declared is not None:
        raise RecordError(where, f"game {game.number} has a second 'Wins' line")
    assert cell.points is not None
    if cell.kind == "losses":
        match.warnings.add(game.where(number), f"'Losses {cell.points}' read as the other side winning them",
                           "losses")
        side = side.other
    game.declared = (side, cell.points)


def _read_cell(match: _Match, game: _Game, color: Color, cell: _Cell, row: int, number: int) -> None:
    where = f"line {number}"
    if cell.kind == "hidden":
        game.hidden = game.where(number)
        match.warnings.add(game.where(number), "a turn written '????' (neither roll nor play shown) is left out: "
                           "the game ends by the resignation after it", "hidden")
        return
    if cell.kind == "roll":
        assert cell.dice is not None and cell.steps is not None
        dice = cell.dice
        if game.cells == 0:
            if dice[0] == dice[1]:
                raise RecordError(where, f"an opening roll is two different dice, found {dice[0]}{dice[1]}")
            roll = Action(ActionKind.OPENING_ROLL, color, dice=(max(dice), min(dice)))
        else:
            roll = Action(ActionKind.ROLL, color, dice=dice)
        steps, hidden = _steps(match, game, cell.steps, dice, number)
        game.actions.append(roll)
        game.moves.append(row)
        if hidden:
            game.hidden = game.where(number)
            match.warnings.add(game.where(number), "a play written '????' (hidden) is left out: the game ends by "
                               "the resignation after it", "hidden")
            return
        game.actions.append((color, steps))
        game.moves.append(row)
        return
    assert cell.action is not None and cell.steps is not None
    if cell.action in (ActionKind.DOUBLE, ActionKind.BEAVER):
        words = cell.steps.split()
        if len(words) == 3 and words[1] != "=>":
            match.warnings.add(game.where(number), f"{cell.steps!r} read as '{words[0]} => {words[2]}'", "arrow")
        elif len(words) != 3:
            match.warnings.add(game.where(number), f"{cell.steps!r} without the cube's new value", "no value")
    game.actions.append(Action(cell.action, color))
    game.moves.append(row)


def _steps(match: _Match, game: _Game, text: str, dice: tuple[int, int], number: int) -> tuple[str, bool]:
    """A roll's play as the referee reads it (bar 25, off 0), and whether it is hidden."""
    words = text.split()
    lows = [w.lower() for w in words]
    if any(w in ("????", "???") for w in lows):
        return "", True
    kept = []
    illegal = False
    for word, low in zip(words, lows):
        if low == "0/0":
            match.warnings.add(game.where(number), "'0/0' (a die not used) left out of the play", "0/0")
        elif _STEP.fullmatch(word) is not None:
            kept.append(_step(word))
        elif low in ("illegal", "play"):
            illegal = True
        elif low in _NO_MOVE or low in ("move", "moves", "move)"):
            match.warnings.add(game.where(number), f"{text!r} read as no move", "no move")
        else:  # pragma: no cover - _cells takes only these words into a roll's cell
            raise RecordError(f"line {number}", f"expected a checker move such as '13/8', found {word!r}")
    if illegal:
        match.warnings.add(game.where(number), "an 'Illegal play' mark: the play is read as written, and must be legal",
                           "illegal")
    if any(_jump(step, dice) for step in kept):
        match.warnings.add(game.where(number), f"{' '.join(kept)!r}: a checker's moves written as one path",
                           "chain")
    return " ".join(kept), False


def _jump(step: str, dice: tuple[int, int]) -> bool:
    """Whether a step is one checker's several moves in one (``22/6`` with 4-4, ``24/18*/13``),
    which GNU Backgammon writes a move at a time."""
    points = [part.rstrip("*") for part in step.split("(")[0].split("/")]
    if len(points) > 2:
        return True
    source, target = (25 if points[0] == "bar" else int(points[0])), (0 if points[1] == "off" else int(points[1]))
    return target > 0 and source - target > max(dice)


def _step(word: str) -> str:
    """``25/22*``, ``6/0`` as the referee's reader writes them: ``bar/22*``, ``6/off``."""
    count = ""
    if word.endswith(")"):
        word, count = word[:word.index("(")], word[word.index("("):]
    parts = word.lower().split("/")
    out = []
    for index, part in enumerate(parts):
        hit = part.endswith("*")
        point = part.rstrip("*")
        if index == 0 and point == "25":
            point = "bar"
        elif index > 0 and point == "0":
            point = "off"
        out.append(point + ("*" if hit else ""))
    return "/".join(out) + count


def _fields(match: _Match) -> list[RecordFields]:
    """The readings of one match's lines: the rules it leaves unsaid, tried in turn."""
    metadata = match.metadata
    if "comment" in metadata:
        metadata["comment"] = "\n".join(match.comment)
    length = match.length
    if length is None:
        raise RecordError("", "no ' N point match' line: not a .mat file")
    scores: list[tuple[int, int]] = []
    games = match.games
    names = games[0].names if games else None  # set with the score line
    black, white = names or ("black", "white")
    for game in games:
        if game.score is None:
            raise RecordError(f"line {game.line}", f"game {game.number} has no score line 'NAME : N   NAME : N'")
        if game.names is not None and white != black and game.names == (white, black):
            _swap(game)
            match.warnings.add(game.where(game.line), f"{white} is written on the left, where game 1 writes "
                               f"{black}: its columns read the other way round", "swapped")
        scores.append(game.score)  # type: ignore[arg-type]  # set just above
        _finish_game(match, game)
    rules = match.rules
    parsed = _rules(rules, length)
    if "Beaver" not in rules and any(isinstance(a, Action) and a.kind == ActionKind.BEAVER
                                     for g in games for a in g.actions):
        parsed = dataclasses.replace(parsed, beavers=True)  # GNU Backgammon does not say
    candidates = [parsed]
    if length == 0 and "Jacoby" not in rules:
        candidates.append(dataclasses.replace(parsed, jacoby=True))  # unsaid: try both
    first = scores[0] if scores else (0, 0)
    # A record that starts at a score with one side 1-away starts with the Crawford game, most
    # likely (the file cannot say): tried first, then as a game after it.
    crawford = [True, False] if parsed.crawford and length > 1 and list(first).count(length - 1) == 1 else [False]
    played = [(s, g.actions, g.declared) for s, g in zip(scores, games)]
    warnings = match.warnings.done()
    return [RecordFields(white, black, length, candidate, played, start_score=first, start_crawford=start_crawford,
                         metadata=metadata, moves=[g.moves for g in games], warnings=warnings)
            for candidate in candidates for start_crawford in crawford]


def _score_line(line: str) -> tuple[str, str, str, str] | None:
    """``NAME : N   NAME : N`` as (name, score, name, score) texts, or None: the second name runs to the
    last colon, the first to the first colon that a score and a space follow. Each colon's fields
    are read once, so the time is linear in the line whatever it holds."""
    last = line.rfind(":")
    second = _SCORE_AFTER_LAST.fullmatch(line, last + 1) if last >= 0 else None
    if second is None:
        return None
    colon = line.find(":", 0, last)
    while colon >= 0:
        first = _SCORE_AFTER_FIRST.match(line, colon + 1, last)
        if first is not None:
            return line[:colon].strip(), first.group(1), line[first.end():last].strip(), second.group(1)
        colon = line.find(":", colon + 1, last)
    return None


def _rules(tags: dict[str, str], length: int) -> Rules:
    def on(tag: str, default: bool) -> bool:
        value = tags.get(tag)
        if value is None:
            return default
        if value.lower() not in ("on", "off", "true", "false", "yes", "no"):
            raise RecordError(f"[{tag}]", f"expected \"On\" or \"Off\", found {value!r}")
        return value.lower() in ("on", "true", "yes")

    limit = tags.get("CubeLimit")
    cube_limit = whole_number(limit, 1) if limit is not None else None
    if limit is not None and cube_limit is None:
        raise RecordError("[CubeLimit]", f"expected a cube value such as \"64\", found {limit!r}")
    named = tags.get("Variation")
    variant = variant_of(named, "[Variation]") if named is not None else STANDARD
    return Rules(on("Crawford", length > 0), on("Jacoby", False), on("Beaver", False),
                 cube_limit, variant)



def _swap(game: _Game) -> None:
    """A game whose score line names the players the other way round: every side read from its
    columns is the other one."""
    def other(color: Color | None) -> Color | None:
        return None if color is None else color.other

    game.actions = [dataclasses.replace(a, color=other(a.color)) if isinstance(a, Action) else (a[0].other, a[1])
                    for a in game.actions]
    assert game.score is not None and game.names is not None
    game.score = (game.score[1], game.score[0])
    game.names = (game.names[1], game.names[0])
    if game.declared is not None:
        game.declared = (game.declared[0].other, game.declared[1])
    if game.resigned is not None:
        who, kind, whole, where = game.resigned
        game.resigned = (who.other, kind, whole, where)


def _finish_game(match: _Match, game: _Game) -> None:
    """A resignation the file writes becomes the referee's actions: an explicit kind is resigned and
    accepted; an unsaid one is left to the points of the ``Wins`` line (or a single game without one)."""
    if game.hidden is not None and game.declared is None and game.resigned is None:
        raise RecordError(game.hidden, "a hidden turn ('????') must end the game: expected the 'Wins' line of "
                          "the resignation after it")
    if game.resigned is None:
        return
    side, kind, _, where = game.resigned
    if game.declared is not None and game.declared[0] != side.other:
        raise RecordError(where, f"{side.name.lower()} resigns, but the 'Wins' line is "
                          f"{game.declared[0].name.lower()}'s")
    if kind is None and game.declared is None:
        kind = Resignation.SINGLE
        match.warnings.add(where, "a resignation without its kind or a 'Wins' line: read as a single game", "single")
    if kind is not None:
        game.actions += [Action(ActionKind.RESIGN, side, resignation=kind), Action(ActionKind.ACCEPT, side.other)]
        game.moves += [game.row or 1, game.row or 1]


# -- writing ----------------------------------------------------------------------------------
def write_mat(record: RecordView) -> str:
    """The record laid out as GNU Backgammon exports ``.mat``; :func:`read_mat` reads it back the same."""
    lines: list[str] = []
    meta = record.metadata
    for key in [*[k for k in TAGS if k in meta], *[k for k in meta if k not in TAGS and k != "comment"]]:
        value = meta[key].replace("\n", " ")
        lines.append(f'; [{TAGS.get(key, key)} "{value.replace("-", ".") if key == "date" else value}"]')
    rules = record.rules
    if rules.crawford != (record.length > 0):
        lines.append(f'; [Crawford "{"On" if rules.crawford else "Off"}"]')
    if rules.jacoby:
        lines.append('; [Jacoby "On"]')
    if rules.beavers and not beavered(record):  # a beaver played says so itself
        lines.append('; [Beaver "On"]')
    if rules.cube_limit is not None:
        lines.append(f'; [CubeLimit "{rules.cube_limit}"]')
    if not rules.variant.standard:
        lines.append(f'; [Variation "{variation(rules.variant)}"]')
    lines.append("")  # even without headers, as GNU Backgammon
    lines += [f"; {note}".rstrip() for note in meta.get("comment", "").split("\n")] if "comment" in meta else []
    lines += [f" {record.length} point match", ""]
    for number, game in enumerate(record.games, 1):
        lines.append(f" Game {number}")
        left = f"{record.black} : {game.score[Color.BLACK]}"
        lines.append(f" {left:<31}{record.white} : {game.score[Color.WHITE]}")
        rows = _rows(game.actions)
        if game.result is not None:
            points = game.result.points
            wins = f" Wins {points} point{'' if points == 1 else 's'}"
            if game.result.winner == Color.WHITE and rows and len(rows[-1]) == 5 + _COLUMN:
                rows[-1] += wins + " "  # white's column of black's last row, as GNU Backgammon after a drop
            else:
                rows.append(f"{'':{5 + _COLUMN if game.result.winner == Color.WHITE else 5}}{wins}")
        lines += rows
        if game.result is not None:
            lines.append("")  # a finished game's blank line; an unfinished last game has none
    return "\n".join(lines) + "\n"


def _rows(actions: tuple[Action, ...]) -> list[str]:
    cells: list[str] = []
    first: Color | None = None
    cube = 1  # doubled by each take, quadrupled by each beaver
    for index, action in enumerate(actions):
        kind = action.kind
        if kind in (ActionKind.OPENING_ROLL, ActionKind.ROLL):
            if first is None:
                first = action.color
            continue
        if kind == ActionKind.PLAY:
            dice = actions[index - 1].dice
            assert dice is not None and action.play is not None
            steps = [f"{m.source}/{m.target}{'*' if m.hit else ''}" for m in action.play.moves]
            cells.append(f"{dice[0]}{dice[1]}: " + "".join(s + " " for s in steps).rstrip(" " if len(steps) == 4 else ""))
        elif kind == ActionKind.DOUBLE:
            cells.append(f" Doubles => {2 * cube}")
        elif kind == ActionKind.BEAVER:
            cells.append(f" Beavers => {4 * cube}")
            cube *= 4
        elif kind == ActionKind.TAKE:
            cells.append(" Takes")
            cube *= 2
        elif kind == ActionKind.DROP:
            cells.append(" Drops")
    if first == Color.WHITE and cells:
        cells.insert(0, "")
    rows = []
    for row in range(0, len(cells), 2):
        left = cells[row]
        right = cells[row + 1] if row + 1 < len(cells) else ""
        gap = " " if right and len(left) >= _COLUMN else ""  # a long play still leaves white's column apart
        rows.append(f"{row // 2 + 1:3d}) {left:<{_COLUMN}}{gap}{right}")
    return rows
