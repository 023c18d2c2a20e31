"""eXtreme Gammon's ``.xg`` (a match) and ``.xgp`` (a position) files, read from the layout XG
published (extremegammon.com/xgformat.aspx, "freely redistributed"; reimplemented here, not copied).

A file is a 8232-byte "RichGameHeader" (``RGMH``), a JPEG thumbnail, then a ZLibArchive: files
packed with zlib, a registry of them and a 36-byte archive record at the end, CRC-32 checked.
The archive's ``temp.xg`` is a run of 2560-byte records, the ninth byte saying which: the match
header, a game header, a cube decision, a checker play, a game footer, the match footer. XG's
player 1 is gammon's black (the left-hand column of a ``.mat``), player 2 white. A record's
position and move are seen from its side to act (its points 1-24, 0-based in the move list, 24
the bar, -1 off). Cube records say whether the side doubled and how the other answered; a game
footer says who won, how many points and how (by bearing off, a drop, a resignation).

XG's own analysis of each decision (the candidate plays with their equities and chances, the
cube's no-double / double-take / double-pass equities, the error it charges and the roll's luck)
is kept as the file's analysis (:class:`~gammon.record.fields.DecisionAnalysis`), never judged again.

What gammon's rules cannot carry is refused by name: hypergammon and longgammon, automatic
doubles, raccoons, a game settled by agreement, a position edited in the middle of a game.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

from ..errors import GammonError
from ..match import Action, ActionKind
from ..position import Color, Position
from ..state import GameState, GameStatus, Resignation
from ..variant import STANDARD, Variant
from .fields import Candidate, DecisionAnalysis, RecordError, RecordFields, Rules, Warnings

__all__ = ["read_xg"]

ANALYST = "eXtreme Gammon"
_HEADER_SIZE = 8232
_RECORD = 2560
_ARCHIVE_RECORD = 36
_FILE_RECORD = 532
_NOT_ANALYSED = -999.0  # XG writes -1000 for "not analysed"
_MONEY = 99999  # XG's match length of a money session
#: XG's analysis levels (its PLAYERLEVEL table), as it names them.
_LEVELS = {0: "1-ply", 1: "2-ply", 2: "3-ply", 3: "4-ply", 4: "5-ply", 5: "6-ply", 6: "7-ply", 12: "3-ply red",
           100: "rollout", 1000: "XG Roller", 1001: "XG Roller+", 1002: "XG Roller++"}
_HEADER_MATCH, _HEADER_GAME, _CUBE, _MOVE, _FOOTER_GAME, _FOOTER_MATCH = range(6)


# -- the container ----------------------------------------------------------------------------
def _archive(data: bytes) -> dict[str, bytes]:
    """The files of the ZLibArchive after the header and thumbnail, by name; RecordError for a
    file that is cut short, damaged (its CRC) or not XG's."""
    if len(data) < _HEADER_SIZE or data[:4] != b"RGMH":
        raise RecordError("", "not an eXtreme Gammon file: expected the 'RGMH' header of 8232 bytes")
    (thumbnail,) = struct.unpack_from("<I", data, 20)
    start = _HEADER_SIZE + thumbnail
    body = data[start:]
    if len(body) < _ARCHIVE_RECORD:
        raise RecordError("", "the file ends before its archive: it was cut short")
    crc, count, _, registry_size, archive_size, packed = struct.unpack_from("<Iiiiii", body, len(body) - _ARCHIVE_RECORD)
    registry_at = len(body) - _ARCHIVE_RECORD - registry_size
    archive_at = registry_at - archive_size
    if registry_size < 0 or archive_size < 0 or archive_at < 0 or not 0 <= count <= 64:
        raise RecordError("", "the archive's record does not fit the file: it is damaged")
    if zlib.crc32(body[archive_at:len(body) - _ARCHIVE_RECORD]) != crc:
        raise RecordError("", "the archive's CRC does not match: the file is damaged")
    registry = _unpacked(body[registry_at:registry_at + registry_size], "the archive's registry") if packed \
        else body[registry_at:registry_at + registry_size]
    files: dict[str, bytes] = {}
    for index in range(count):
        at = index * _FILE_RECORD
        if at + _FILE_RECORD > len(registry):
            raise RecordError("", "the archive's registry is cut short: the file is damaged")
        name = _short_string(registry[at:at + 256])
        size, csize, offset, file_crc, stored = struct.unpack_from("<iiiIB", registry, at + 512)
        begin = archive_at + offset
        raw = body[begin:begin + max(csize, 0)] if stored else body[begin:registry_at]
        content = raw if stored else _unpacked(raw, name)
        if len(content) != size or zlib.crc32(content) != file_crc:
            raise RecordError("", f"{name} in the archive does not match its size or CRC: the file is damaged")
        files[name.lower()] = content
    return files


def _unpacked(raw: bytes, what: str) -> bytes:
    try:
        unpacker = zlib.decompressobj()
        out = unpacker.decompress(raw, 64 << 20)
    except zlib.error as error:
        raise RecordError("", f"{what} does not unpack ({error}): the file is damaged") from None
    if unpacker.unconsumed_tail:
        raise RecordError("", f"{what} unpacks to more than 64 MiB: not a match file")
    return out


def _short_string(raw: bytes) -> str:
    """A Delphi ``string[n]``: a length byte, then that many Windows-1252 characters."""
    return raw[1:1 + raw[0]].decode("cp1252", errors="replace") if raw else ""


def _wide_string(raw: bytes) -> str:
    """A Delphi array of WideChar: UTF-16, ended by a zero character."""
    text = raw.decode("utf-16-le", errors="replace")
    return text.split("\0", 1)[0]


# -- the records ------------------------------------------------------------------------------
@dataclass
class _Game:
    score: tuple[int, int]
    crawford: bool
    number: int
    actions: list[Action | tuple[Color, str]] = field(default_factory=list)
    analysis: dict[int, DecisionAnalysis] = field(default_factory=dict)
    declared: tuple[Color, int] | None = None
    moves: list[int] = field(default_factory=list)
    turns: int = 0
    pending: DecisionAnalysis | None = None  # a no-double's analysis, for the roll that follows
    start: GameState | None = None  # the position its first record shows, when not the opening


def read_xg(data: bytes) -> RecordFields:
    """Read an ``.xg``/``.xgp`` file, to be replayed (:meth:`MatchRecord.from_xg
    <gammon.record.MatchRecord.from_xg>`); a RecordError names the game and move of what cannot be."""
    files = _archive(data)
    records = files.get("temp.xg")
    if records is None:
        raise RecordError("", "the archive holds no temp.xg, XG's game records")
    if len(records) % _RECORD:
        raise RecordError("", f"temp.xg is {len(records)} bytes, not a whole number of {_RECORD}-byte records")
    told = Warnings()
    header: dict[str, object] | None = None
    games: list[_Game] = []
    version = 0
    for at in range(0, len(records), _RECORD):
        record = records[at:at + _RECORD]
        kind = record[8]
        game = games[-1] if games else None
        where = f"game {game.number}, move {game.turns // 2 + 1}" if game else "the match header"
        if kind == _HEADER_MATCH:
            header = _match_header(record)
            version = int(header["version"])  # type: ignore[call-overload]
        elif header is None:
            raise RecordError("", "XG's records do not open with the match header")
        elif kind == _HEADER_GAME:
            score1, score2, crawford, number, autodoubles = _game_header(record, version)
            if autodoubles:
                raise RecordError(f"game {number}", f"{autodoubles} automatic doubles: beyond gammon's rules")
            games.append(_Game((score1, score2), crawford, len(games) + 1))
        elif game is None:
            raise RecordError("", "a decision before the first game's header")
        elif kind == _CUBE:
            _cube(game, record, version, where)
        elif kind == _MOVE:
            _move(game, record, version, where, told)
        elif kind == _FOOTER_GAME:
            _footer(game, record)
        elif kind == _FOOTER_MATCH:
            pass
        else:
            told.add(where, f"an XG record of kind {kind} (not a move, a cube or a game's end) is skipped", "kind")
    if header is None:
        raise RecordError("", "XG's records hold no match header")
    length = int(header["length"])  # type: ignore[call-overload]
    rules = Rules(crawford=bool(header["crawford"]) and length > 0, jacoby=bool(header["jacoby"]) and not length,
                  beavers=bool(header["beaver"]) and not length, cube_limit=header["cube_limit"],  # type: ignore[arg-type]
                  variant=header["variant"])  # type: ignore[arg-type]
    metadata = {key: str(header[key]) for key in ("event", "site", "round", "annotator") if header.get(key)}
    setup = games[0].start if games else None
    if setup is not None:
        setup = setup.replace(match_length=length, score=games[0].score, crawford=games[0].crawford and length > 1,
                              jacoby=rules.jacoby, beavers=rules.beavers, cube_limit=rules.cube_limit)
    for game in games[1:]:
        if game.start is not None:
            raise RecordError(f"game {game.number}", "starts from a set-up position: only a record's first game may")
    first = games[0] if games else None
    return RecordFields(
        str(header["player2"]), str(header["player1"]), length, rules,
        [(g.score, g.actions, g.declared) for g in games],
        start_score=first.score if first else (0, 0), start_crawford=bool(first and first.crawford),
        metadata=metadata, moves=[g.moves for g in games], warnings=told.done(),
        analysis=[g.analysis for g in games], setup=setup)


def _match_header(record: bytes) -> dict[str, object]:
    length, variation = struct.unpack_from("<ii", record, 92)
    crawford, jacoby, beaver = record[100], record[101], record[102]
    version = struct.unpack_from("<i", record, 552)[0]
    names = [_short_string(record[9:50]), _short_string(record[50:91])]
    event, location, round_ = _short_string(record[136:265]), _short_string(record[283:412]), \
        _short_string(record[417:546])
    cube_limit = None
    annotator = ""
    if version >= 8:
        (limit,) = struct.unpack_from("<i", record, 612)
        if 0 < limit <= 15:
            cube_limit = 1 << limit  # the log2 of the largest cube, as the XGID's max cube
    if version >= 24:
        wide = [_wide_string(record[622 + 258 * i:622 + 258 * (i + 1)]) for i in range(5)]
        event, names, location, round_ = wide[0] or event, [wide[1] or names[0], wide[2] or names[1]], \
            wide[3] or location, wide[4] or round_
    if version >= 30:
        annotator = _wide_string(record[1960:2218])
    if variation not in (0, 1):
        raise RecordError("", f"XG variation {variation} ({'hypergammon' if variation == 2 else 'longgammon'}): "
                          "gammon plays backgammon and nackgammon")
    return {"length": 0 if length == _MONEY else length, "variant": Variant(nackgammon=True) if variation else STANDARD,
            "crawford": crawford, "jacoby": jacoby, "beaver": beaver, "version": version,
            "player1": names[0] or "player 1", "player2": names[1] or "player 2", "event": event,
            "site": location, "round": round_, "annotator": annotator, "cube_limit": cube_limit}


def _game_header(record: bytes, version: int) -> tuple[int, int, bool, int, int]:
    score1, score2 = struct.unpack_from("<ii", record, 12)
    (number,) = struct.unpack_from("<i", record, 48)
    (autodoubles,) = struct.unpack_from("<i", record, 64) if version >= 26 else (0,)
    return score1, score2, bool(record[20]), number, autodoubles


def _side(active: int) -> Color:
    """XG's side to act: 1 player 1 (black), -1 player 2 (white)."""
    return Color.BLACK if active == 1 else Color.WHITE


def _position(raw: bytes, mover: Color, cube: int) -> tuple[Position, int, Color | None]:
    """A record's position (seen from its side to act) as gammon's, with the cube's value and owner
    (XG's cube: 0 centred, +n owned by the mover at 2**n, -n by the other side)."""
    points = struct.unpack("<26b", raw)
    mine, theirs = [0] * 25, [0] * 25
    for point in range(1, 25):
        if points[point] > 0:
            mine[point - 1] = points[point]
        elif points[point] < 0:
            theirs[24 - point] = -points[point]
    mine[24], theirs[24] = max(points[25], 0), max(-points[0], 0)
    counts = {mover: mine, mover.other: theirs}
    position = Position.from_checkers(counts[Color.WHITE], counts[Color.BLACK], mover)
    owner = None if cube == 0 else mover if cube > 0 else mover.other
    return position, 1 << abs(cube), owner


def _at_start(game: _Game, position: Position, cube: int, owner: Color | None, where: str) -> None:
    """The game's first record: a set-up position when it is not the opening."""
    if position == Position.starting(turn=position.turn) and cube == 1:
        return
    try:
        game.start = GameState(position=position, cube=cube, cube_owner=owner, status=GameStatus.PLAYING)
    except GammonError as error:
        raise RecordError(where, f"the set-up position is not a game: {error}") from None


def _level(level: int) -> str:
    return _LEVELS.get(level, f"level {level}")


def _cube(game: _Game, record: bytes, version: int, where: str) -> None:
    active, double, take, beaver_taken, _, cube = struct.unpack_from("<iiiiii", record, 12)
    doubler = _side(active)
    if version >= 24 and record[296]:
        raise RecordError(where, "the position was edited at this point: a record cannot replay it")
    if not game.actions:
        _at_start(game, *_position(record[36:62], doubler, cube), where)
    evaluation = struct.unpack_from("<7f", record, 64 + 60)
    no_double, double_take, double_pass = struct.unpack_from("<fff", record, 64 + 88)
    (level,) = struct.unpack_from("<i", record, 64 + 28)
    err_cube, err_take = struct.unpack_from("<d", record, 200)[0], struct.unpack_from("<d", record, 216)[0]
    chances = _chances(evaluation)
    options = [Candidate("no double", no_double, chances, _level(level)),
               Candidate("double/take", double_take, chances, _level(level)),
               Candidate("double/pass", double_pass, chances, _level(level))]
    # the doubler's best: no double, or a double the taker answers as is best for the taker
    proper = options[1] if double_take <= double_pass else options[2]
    best = options[0] if no_double >= proper.equity else proper
    ranked = [best, *sorted((c for c in options if c is not best), key=lambda c: -c.equity)]
    if double != 1:
        if err_cube > _NOT_ANALYSED:
            played = next(i for i, c in enumerate(ranked) if c.action == "no double")
            game.pending = DecisionAnalysis("cube", tuple(ranked), played, max(err_cube, 0.0), ANALYST)
        return
    if take == 2 and beaver_taken != 1:
        raise RecordError(where, "a beaver the doubler did not take, or a raccoon: beyond gammon's rules")
    answer = {1: ActionKind.TAKE, 0: ActionKind.DROP, 2: ActionKind.BEAVER}.get(take)
    if answer is None:
        raise RecordError(where, f"a double answered {take} (XG: 0 drop, 1 take, 2 beaver)")
    if err_cube > _NOT_ANALYSED:
        answered = "double/pass" if answer == ActionKind.DROP else "double/take"
        played = next(i for i, c in enumerate(ranked) if c.action == answered)
        game.analysis[len(game.actions)] = DecisionAnalysis("cube", tuple(ranked), played, max(err_cube, 0.0),
                                                            ANALYST)
    game.actions.append(Action(ActionKind.DOUBLE, doubler))
    game.moves.append(game.turns // 2 + 1)
    if err_take > _NOT_ANALYSED:
        flipped = _flip(chances)
        answers = sorted([Candidate("take", -double_take, flipped, _level(level)),
                          Candidate("pass", -double_pass, flipped, _level(level))], key=lambda c: -c.equity)
        played = next(i for i, c in enumerate(answers) if (c.action == "pass") == (answer == ActionKind.DROP))
        game.analysis[len(game.actions)] = DecisionAnalysis("take", tuple(answers), played, max(err_take, 0.0),
                                                            ANALYST)
    game.actions.append(Action(answer, doubler.other))
    game.moves.append(game.turns // 2 + 1)


def _chances(evaluation: tuple[float, ...]) -> tuple[float, float, float, float, float]:
    """XG's 7 figures (lose backgammon, lose gammon, lose, win, win gammon, win backgammon,
    equity; each counting the ones beyond it) as gammon's five chances of the side to act."""
    lose_bg, lose_g, _, win, win_g, win_bg = evaluation[:6]
    return (win, win_g, win_bg, lose_g, lose_bg)


def _flip(chances: tuple[float, float, float, float, float]) -> tuple[float, float, float, float, float]:
    win, win_g, win_bg, lose_g, lose_bg = chances
    return (1.0 - win, lose_g, lose_bg, win_g, win_bg)


def _play_text(moves: tuple[int, ...]) -> str:
    """XG's move list (from, to pairs, 0-based; 24 the bar, -1 off, a -1 source ending it) as steps."""
    steps = []
    for index in range(0, 8, 2):
        source, target = moves[index], moves[index + 1]
        if source < 0 or source == target:
            break
        steps.append(f"{'bar' if source == 24 else source + 1}/{'off' if target < 0 else target + 1}")
    return " ".join(steps)


def _move(game: _Game, record: bytes, version: int, where: str, told: Warnings) -> None:
    (active,) = struct.unpack_from("<i", record, 64)
    mover = _side(active)
    moves = struct.unpack_from("<8i", record, 68)
    dice = struct.unpack_from("<2i", record, 100)
    (cube,) = struct.unpack_from("<i", record, 108)
    if version >= 24 and record[2528]:
        raise RecordError(where, "the position was edited at this point: a record cannot replay it")
    if not all(1 <= die <= 6 for die in dice):
        raise RecordError(where, f"dice {dice[0]}-{dice[1]}: expected two dice 1-6")
    position, cube_value, owner = _position(record[9:35], mover, cube)
    if not game.actions:
        _at_start(game, position, cube_value, owner, where)
    opening = not game.actions and game.start is None
    roll = Action(ActionKind.OPENING_ROLL, mover, dice=(max(dice), min(dice))) if opening \
        else Action(ActionKind.ROLL, mover, dice=(dice[0], dice[1]))
    if game.pending is not None and not opening:
        game.analysis[len(game.actions)] = game.pending
    game.pending = None
    game.actions.append(roll)
    text = _play_text(moves)
    analysis = _checker_analysis(record, position, dice, text)
    if analysis is not None:
        game.analysis[len(game.actions)] = analysis
    game.actions.append((mover, text))
    game.turns += 1
    game.moves += [game.turns // 2 + 1] * 2


def _checker_analysis(record: bytes, position: Position, dice: tuple[int, ...], played: str) -> DecisionAnalysis | None:
    """XG's candidates for a checker play, best first, in gammon's move text."""
    base = 124
    (count,) = struct.unpack_from("<i", record, base + 64)
    err_move, luck = struct.unpack_from("<dd", record, 2312)
    if err_move <= _NOT_ANALYSED or not 0 < count <= 32:
        return None
    try:
        legal = position.legal_plays(dice[0], dice[1])
        played_text = str(legal.find(played)) if played else ""
    except GammonError:
        return None
    candidates = []
    played_index = None
    for index in range(count):
        moves = struct.unpack_from("<8b", record, base + 900 + 8 * index)
        (level,) = struct.unpack_from("<h", record, base + 1156 + 4 * index)
        evaluation = struct.unpack_from("<7f", record, base + 1284 + 28 * index)
        text = _play_text(moves)
        try:
            text = str(legal.find(text)) if text else ""
        except GammonError:
            continue  # not a play gammon's rules allow: left out of the list
        if text == played_text and played_index is None:
            played_index = len(candidates)
        candidates.append(Candidate(text, evaluation[6], _chances(evaluation), _level(level)))
    return DecisionAnalysis("checker", tuple(candidates), played_index, max(err_move, 0.0), ANALYST,
                            luck=luck if luck > _NOT_ANALYSED else None)


def _footer(game: _Game, record: bytes) -> None:
    winner, points, termination = struct.unpack_from("<iii", record, 24)
    if termination >= 1000:
        raise RecordError(f"game {game.number}", "the game was settled by agreement: beyond gammon's rules")
    game.declared = (_side(winner), points)
    if termination >= 100:  # a resignation: of a single game, a gammon, a backgammon
        kind = {1: Resignation.SINGLE, 2: Resignation.GAMMON, 3: Resignation.BACKGAMMON}.get(termination - 100)
        if kind is not None:
            loser = _side(winner).other
            game.actions += [Action(ActionKind.RESIGN, loser, resignation=kind),
                             Action(ActionKind.ACCEPT, loser.other)]
            game.moves += [game.turns // 2 + 1] * 2

