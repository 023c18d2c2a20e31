"""GNU Backgammon/Jellyfish ``.mat`` text: reading it and writing it as GNU Backgammon exports it.

A game is a score line (black on the left, as GNU Backgammon's player 0) and numbered rows,
each holding black's turn then white's: ``52: 13/8 8/6`` (bar 25, off 0, ``*`` a hit),
`` Doubles => 2``, `` Takes``, `` Drops``, `` Beavers => 4``, and a closing ``Wins N points``
written in the winner's column. Resignations are not written (GNU Backgammon writes none): a
game that ends unfinished with a ``Wins`` line was resigned, and is read back so.
"""

from __future__ import annotations

import dataclasses
import re

from ..match import Action, ActionKind
from ..position import Color
from ..variant import STANDARD
from ..notation import whole_number
from .fields import RecordError, RecordFields, RecordView, Rules, beavered, record_number, variant_of, variation

__all__ = ["read_mat", "write_mat"]

#: Metadata keys and the header tags that carry them.
#: Metadata keys and the header tags that carry them, in the order GNU Backgammon writes them (its
#: annotator is the "Transcriber"; the comment is written as plain ``; `` lines after the tags).
TAGS = {"site": "Site", "event": "Event", "round": "Round", "date": "EventDate", "annotator": "Transcriber"}
_READ_TAGS = {**{tag.lower(): key for key, tag in TAGS.items()}, "annotator": "annotator"}
_RULE_TAGS = ("Crawford", "Jacoby", "Beaver", "CubeLimit", "Variation")
_COLUMN = 28  # width of black's column, as GNU Backgammon pads it
_HEADER = re.compile(r";\s*\[\s*([^\s\"\]]+)\s+\"(.*)\"\s*\]\s*")
_LENGTH = re.compile(r"\s*(\d+)\s+point\s+match\s*", re.IGNORECASE)
_GAME = re.compile(r"\s*Game\s+(\d+)\s*", re.IGNORECASE)
# The score line ``NAME : N   NAME : N`` is split at its colons by hand (:func:`_score_line`): one
# pattern over it, ``\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*``, backtracks for minutes on
# a line of spaces around a colon (issue 36). These two read the fields after a colon.
_SCORE_AFTER_FIRST = re.compile(r"\s*(\d+)\s")
_SCORE_AFTER_LAST = re.compile(r"\s*(\d+)\s*")
_ROW = re.compile(r"(\s*)(\d+)\)(.*)")
_WINS = re.compile(r"(\s*)Wins\s+(\d+)\s+points?(?:\s+and\s+the\s+match)?\s*", re.IGNORECASE)
_STEP = re.compile(r"(\d+|bar)/(\d+|off)(\*?)(\(\d\))?", re.IGNORECASE)


# -- reading ----------------------------------------------------------------------------------
class _Game:
    def __init__(self, line: int) -> None:
        self.line = line
        self.score: tuple[int, int] | None = None
        self.names: tuple[str, str] | None = None
        self.actions: list[Action | tuple[Color, str]] = []
        self.moves: list[int] = []
        self.cells = 0
        self.row = 0
        self.first: Color | None = None
        self.declared: tuple[Color, int] | None = None


def read_mat(text: str) -> list[RecordFields]:
    """Read ``.mat`` text; any line that is not what the format allows is a RecordError naming it.

    The file leaves some things unsaid (beavers, the Jacoby rule in money play, whether it starts
    with the Crawford game): the readings it allows, most likely first, for the record to replay
    in turn (:meth:`MatchRecord.from_mat <gammon.record.MatchRecord.from_mat>`)."""
    text = text.removeprefix("\ufeff")
    metadata: dict[str, str] = {}
    comment: list[str] = []  # metadata["comment"] a line at a time, joined once at the end (not per line)
    rules: dict[str, str] = {}
    length: int | None = None
    games: list[_Game] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        where = f"line {number}"
        if not line.strip():
            continue
        if line.lstrip().startswith(";"):
            header = _HEADER.fullmatch(line.strip())
            if header is None:  # the match's comment, a line at a time
                metadata.setdefault("comment", "")
                comment.append(line.strip()[1:].removeprefix(" "))
                continue
            tag, value = header.group(1), header.group(2)
            if tag in _RULE_TAGS:
                rules[tag] = value
            else:
                key = _READ_TAGS.get(tag.lower(), tag)
                metadata[key] = value.replace(".", "-") if key == "date" else value
                if key == "comment":
                    comment = [value]
            continue
        if (found := _LENGTH.fullmatch(line)) is not None and not games:
            length = record_number(found.group(1), where, "the match length")
            continue
        if (found := _GAME.fullmatch(line)) is not None:
            if length is None:
                raise RecordError(where, "a game before the ' N point match' line")
            if record_number(found.group(1), where, "the game number") != len(games) + 1:
                raise RecordError(where, f"expected game {len(games) + 1}, found {found.group(1)}")
            games.append(_Game(number))
            continue
        if not games:
            raise RecordError(where, f"expected ' N point match' or ' Game 1', found {line.strip()!r}")
        game = games[-1]
        if game.declared is not None:
            raise RecordError(where, f"nothing may follow the 'Wins' line of game {len(games)}, found {line.strip()!r}")
        if (found := _WINS.fullmatch(line)) is not None:
            # The winner's column: white's starts after the row number and black's column.
            winner = Color.WHITE if len(found.group(1)) > 5 + _COLUMN // 2 else Color.BLACK
            game.declared = (winner, record_number(found.group(2), where, "the points won"))
            continue
        if (found := _ROW.fullmatch(line)) is not None:
            _read_row(game, record_number(found.group(2), where, "the row number"), found.group(3), where)
            continue
        if game.score is None and (score := _score_line(line)) is not None:
            game.names = (score[0], score[2])
            # indexed by Color: black 0 (left), white 1
            game.score = (record_number(score[1], where, "a score"), record_number(score[3], where, "a score"))
            continue
        raise RecordError(where, f"expected a score line 'NAME : N   NAME : N', a numbered row or 'Wins N points', "
                          f"found {line.strip()!r}")
    if "comment" in metadata:
        metadata["comment"] = "\n".join(comment)
    if length is None:
        raise RecordError("", "no ' N point match' line: not a .mat file")
    scores: list[tuple[int, int]] = []
    for index, game in enumerate(games, 1):
        if game.score is None:
            raise RecordError(f"line {game.line}", f"game {index} has no score line 'NAME : N   NAME : N'")
        scores.append(game.score)
    names = games[0].names if games else None  # set with the score line
    black, white = names or ("black", "white")
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
    return [RecordFields(white, black, length, candidate, played, start_score=first, start_crawford=start_crawford,
                         metadata=metadata, moves=[g.moves for g in games])
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


def _read_row(game: _Game, row: int, rest: str, where: str) -> None:
    if game.cells and row != game.row + 1:
        raise RecordError(where, f"expected row {game.row + 1}, found row {row}")
    game.row = row
    wins = re.search(r"\bWins\s+(\d+)\s+points?(?:\s+and\s+the\s+match)?\s*$", rest, re.IGNORECASE)
    if wins is not None:  # after black's drop GNU Backgammon writes white's win on the same row
        rest = rest[:wins.start()]
    tokens = [(m.start(), m.group()) for m in re.finditer(r"\S+", rest)]
    cells: list[tuple[int, list[str]]] = []
    for start, token in tokens:
        if re.fullmatch(r"\d\d:", token) or token.lower() in ("doubles", "takes", "take", "drops", "drop", "passes",
                                                             "beavers", "beaver"):
            cells.append((start, [token]))
        elif cells:
            cells[-1][1].append(token)
        else:
            raise RecordError(where, f"expected a roll such as '52:' or a cube action, found {token!r}")
    if not cells:
        raise RecordError(where, f"row {row} is empty" + (": a 'Wins' line is not numbered" if wins else ""))
    if game.cells == 0:
        # Who won the opening roll: the first cell's column (white's starts past black's).
        game.first = Color.WHITE if cells[0][0] > _COLUMN // 2 else Color.BLACK
        if row != 1:
            raise RecordError(where, f"expected row 1, found row {row}")
    if len(cells) > 2:
        raise RecordError(where, "a row holds at most two turns, black's then white's")
    first = game.first
    assert first is not None  # set by the game's first row, just above
    for _, words in cells:
        color = first if game.cells % 2 == 0 else first.other
        _read_cell(game, color, words, row, where)
        game.cells += 1
    if wins is not None:
        winner = Color.WHITE if wins.start() > _COLUMN // 2 else Color.BLACK
        game.declared = (winner, record_number(wins.group(1), where, "the points won"))


def _read_cell(game: _Game, color: Color, words: list[str], row: int, where: str) -> None:
    head = words[0].lower()
    if head.endswith(":"):
        dice = (int(head[0]), int(head[1]))
        if not all(1 <= d <= 6 for d in dice):
            raise RecordError(where, f"dice are 1-6, found {words[0]!r}")
        if game.cells == 0:
            if dice[0] == dice[1]:
                raise RecordError(where, f"an opening roll is two different dice, found {words[0]!r}")
            roll = Action(ActionKind.OPENING_ROLL, color, dice=(max(dice), min(dice)))
        else:
            roll = Action(ActionKind.ROLL, color, dice=dice)
        steps = []
        for word in words[1:]:
            step = _STEP.fullmatch(word)
            if step is None:
                raise RecordError(where, f"expected a checker move such as '13/8', '25/21*' or '6/0', found {word!r}")
            source = "bar" if step.group(1).lower() in ("25", "bar") else step.group(1)
            target = "off" if step.group(2).lower() in ("0", "off") else step.group(2)
            steps.append(f"{source}/{target}{step.group(3)}{step.group(4) or ''}")
        game.actions += [roll, (color, " ".join(steps))]
        game.moves += [row, row]
        return
    value = words[2] if len(words) == 3 and words[1] == "=>" else None
    if head in ("doubles", "beavers"):
        if value is None or not value.isdigit():
            raise RecordError(where, f"expected '{words[0]} => N', found {' '.join(words)!r}")
        kind = ActionKind.DOUBLE if head == "doubles" else ActionKind.BEAVER
    elif len(words) != 1:
        raise RecordError(where, f"expected nothing after {words[0]!r}, found {' '.join(words[1:])!r}")
    else:
        kind = ActionKind.TAKE if head in ("takes", "take") else ActionKind.DROP
    game.actions.append(Action(kind, color))
    game.moves.append(row)


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
