"""Backgammon SGF (``GM[6]``) as GNU Backgammon writes it: one game tree per game.

SGF's colours are GNU Backgammon's players: ``W`` is player 0 (gammon's black), ``B`` player 1
(gammon's white). Points are letters in player 0's numbering, ``a`` its 1-point to ``x`` its
24-point, ``y`` the bar and ``z`` off; a move is the dice then a letter pair per checker step
(``B[52mhhf]``), or ``double``, ``take``, ``drop`` (a beaver is a double answered by a
double, then the doubler's take). The root's ``RE[B+4R]`` says who
won how many points (``R``: by resignation, which GNU Backgammon writes no node for). Every other
property of a node (GNU Backgammon's analysis: ``A``, ``DA``, ``LU``, marks such as ``BM``) is
kept as data on the action and written back unchanged. A resignation that does not end the game
(offered and rejected, or not yet answered) is gammon's own node ``GR[black resign gammon]``,
which other programs skip as an unknown property.

A set-up position (GNU Backgammon's ``set board``) is a node of set-up properties before the
first game's first move: ``AE[a:y]`` clears points (``a:y`` a range), ``AW``/``AB`` put one
checker each per value (a letter once per checker), ``PL`` says who is on roll and ``CV``/``CO``
the cube (``c`` centred); a node with ``DI`` alone (dice set, nothing played) is passed over.
The record then starts there (:attr:`MatchRecord.start <gammon.record.MatchRecord.start>`),
and is written back so. A position edited after a move, or in a later game, cannot be
replayed and is refused by name.
"""

from __future__ import annotations

import dataclasses
import re

from ..errors import GammonError
from ..match import Action, ActionKind
from ..play import BAR, OFF
from ..position import Color, Position
from ..referee import CubeState, WinKind, points_won
from ..state import GameState, GameStatus, Resignation
from ..variant import Variant
from ..notation import whole_number
from .fields import GameRecord, Properties, RecordError, RecordFields, RecordView, Rules, beavered, record_number

__all__ = ["read_sgf", "write_sgf"]

_LETTERS = "abcdefghijklmnopqrstuvwx"
_META = {"DT": "date", "EV": "event", "RO": "round", "PC": "site", "AN": "annotator", "GC": "comment"}
_ROOT = ("FF", "GM", "CA", "AP", "MI", "PW", "PB", "DT", "EV", "RO", "PC", "AN", "GC", "RU", "RE")
_AP = "gammon"
_SGF_COLOR = {"B": Color.WHITE, "W": Color.BLACK}
_CUBE = {"double": ActionKind.DOUBLE, "take": ActionKind.TAKE, "drop": ActionKind.DROP}

Node = list[tuple[str, list[str]]]
_PROPERTY_NAME = re.compile(r"[A-Za-z]+")
_TAKE_NOTES: tuple[str, tuple[str, ...]] = ("", ())  # separates a beaver's own notes from its take's


# -- the SGF syntax ---------------------------------------------------------------------------
def _parse(text: str) -> list[list[Node]]:
    """The game trees' main lines (a variation's first branch), each a list of nodes."""
    trees: list[list[Node]] = []
    i, n = 0, len(text)

    def where(at: int) -> str:
        return f"line {text.count(chr(10), 0, at) + 1}, column {at - text.rfind(chr(10), 0, at)}"

    def skip(at: int) -> int:
        while at < n and text[at].isspace():
            at += 1
        return at

    def tree(at: int) -> tuple[list[Node], int]:
        """The main line of the game tree opening at ``at``: its nodes, then its first variation's,
        and so on down. A loop with a stack, not recursion: nesting as deep as the file is long
        neither overflows Python's stack nor copies a variation's nodes once per level."""
        nodes: list[Node] = []
        branched = bytearray(1)  # per open "(": 1 once a variation has opened in it
        main = 1  # the open trees on the main line: the outermost ones (each its parent's first variation)
        at = skip(at + 1)  # past "("
        while True:
            if at >= n:
                raise RecordError(where(at), "the file ends inside a game tree: expected ')'")
            char = text[at]
            if char == ";" and not branched[-1]:
                node, at = _node(at + 1)
                if main == len(branched):
                    nodes.append(node)
            elif char == "(":
                if main == len(branched) and not branched[-1]:
                    main += 1  # the main line follows a tree's first variation only
                branched[-1] = 1
                branched.append(0)
                at = skip(at + 1)
                continue
            elif char == ")":
                branched.pop()
                main = min(main, len(branched))
                at = skip(at + 1)
                if not branched:
                    return nodes, at
                continue
            else:
                raise RecordError(where(at), f"expected ';', '(' or ')', found {char!r}")
            at = skip(at)

    def _node(at: int) -> tuple[Node, int]:
        node: Node = []
        at = skip(at)
        while at < n and text[at].isalpha():
            found = _PROPERTY_NAME.match(text, at)
            assert found is not None
            name, at = found.group().upper(), skip(found.end())
            values: list[str] = []
            while at < n and text[at] == "[":
                value, at = _value(at + 1)
                values.append(value)
                at = skip(at)
            if not values:
                raise RecordError(where(at), f"property {name} has no value: expected '['")
            node.append((name, values))
        return node, at

    def _value(at: int) -> tuple[str, int]:
        out = []
        while at < n:
            char = text[at]
            if char == "\\" and at + 1 < n:
                out.append(text[at + 1])
                at += 2
            elif char == "]":
                return "".join(out), at + 1
            else:
                out.append(char)
                at += 1
        raise RecordError(where(at), "the file ends inside a property value: expected ']'")

    i = skip(i)
    if i < n and text[i] == "\ufeff":
        i = skip(i + 1)
    while i < n:
        if text[i] != "(":
            raise RecordError(where(i), f"expected '(' to open a game tree, found {text[i]!r}")
        nodes, i = tree(i)
        trees.append(nodes)
    if not trees:
        raise RecordError("", "no game tree: expected '(;FF[4]GM[6]...'")
    return trees


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


# -- reading ----------------------------------------------------------------------------------
def read_sgf(text: str) -> RecordFields:
    """Read backgammon SGF, to be replayed (:meth:`MatchRecord.from_sgf <gammon.record.MatchRecord.from_sgf>`);
    what it cannot be is a RecordError naming the game and what was expected."""
    trees = _parse(text)
    metadata: dict[str, str] = {}
    names: tuple[str, str] | None = None
    length: int | None = None
    rules: Rules | None = None
    games, notes, props, moves = [], [], [], []
    crawford_first = False
    setup: GameState | None = None
    for number, nodes in enumerate(trees, 1):
        if not nodes:
            raise RecordError(f"game {number}", "an empty game tree")
        root = dict(nodes[0])
        if root.get("GM", ["6"])[0] != "6":
            raise RecordError(f"game {number}", f"GM[{root['GM'][0]}] is not backgammon: expected GM[6]")
        info = _match_info(root.get("MI", []), number)
        game_length = info.get("length", 0)
        if length is None:
            length = game_length
        elif game_length != length:
            raise RecordError(f"game {number}", f"a {game_length}-point game in a {length}-point match")
        parts = {p.strip().lower() for value in root.get("RU", []) for p in value.split(":")}
        game_rules = Rules(crawford="crawford" in parts, jacoby="jacoby" in parts, beavers="beaver" in parts,
                           variant=Variant(nackgammon="nackgammon" in parts, two_move_doubles="twomovedoubles" in parts))
        rules = rules or game_rules
        if number == 1:
            crawford_first = "crawfordgame" in parts
        if names is None:
            names = (root.get("PB", ["white"])[0], root.get("PW", ["black"])[0])
        for key, meta in _META.items():
            if key in root and meta not in metadata:
                metadata[meta] = root[key][0]
        score = (info["ws"], info["bs"]) if "ws" in info and "bs" in info else None  # black (W), white (B)
        actions, game_notes, game_moves, placed = _game(nodes[1:], number)
        if placed is not None:
            if number > 1:
                raise RecordError(f"game {number}", "starts from a set-up position: only a record's first game may")
            setup = _setup_state(placed, score or (0, 0), game_length, game_rules, "crawfordgame" in parts)
        games.append((score, actions, _result(root.get("RE"), number)))
        notes.append(game_notes)
        moves.append(game_moves)
        # Another program's AP is kept, to be written back; gammon's own is what it writes by default.
        props.append(tuple((name, tuple(values)) for name, values in nodes[0]
                           if name not in _ROOT or (name == "AP" and values != [_AP])))
    assert names is not None and length is not None and rules is not None
    if any(isinstance(a, Action) and a.kind == ActionKind.BEAVER for _, actions, _ in games for a in actions):
        rules = dataclasses.replace(rules, beavers=True)  # RU does not say; the play does
    first = games[0][0] or (0, 0)
    if setup is not None:
        setup = setup.replace(beavers=rules.beavers)
    return RecordFields(names[0], names[1], length, rules, games, start_score=first, start_crawford=crawford_first,
                        metadata=metadata, notes=notes, properties=props, moves=moves, setup=setup)


def _setup_state(placed: _Placed, score: tuple[int, int], length: int, rules: Rules, crawford: bool) -> GameState:
    """The state a set-up node describes, at the game's score and rules."""
    try:
        position = Position.from_checkers(placed.counts[Color.WHITE], placed.counts[Color.BLACK], placed.turn)
        return GameState(position=position, cube=placed.cube, cube_owner=placed.owner, score=score,
                         match_length=length, crawford=crawford and length > 1, jacoby=rules.jacoby and not length,
                         beavers=rules.beavers and not length, status=GameStatus.PLAYING, variant=rules.variant)
    except GammonError as error:
        raise RecordError(placed.where, f"the set-up position is not a game: {error}") from None


class _Placed:
    """A set-up position as its nodes build it: from the opening, points cleared and checkers put."""

    def __init__(self, where: str) -> None:
        opening = Position.starting()
        self.counts = {color: list(opening.checkers(color)) for color in Color}
        self.turn = Color.WHITE
        self.cube = 1
        self.owner: Color | None = None
        self.where = where

    def apply(self, node: Node, where: str) -> None:
        for name, values in node:
            if name == "AE":
                for value in values:
                    for index in _letters(value, where):
                        for color in Color:
                            self.counts[color][_index(index, color)] = 0
            elif name in ("AW", "AB"):
                color = _SGF_COLOR["B" if name == "AB" else "W"]
                for value in values:
                    for index in _letters(value, where):
                        self.counts[color][_index(index, color)] += 1
            elif name == "PL":
                if values[0].strip().upper() not in _SGF_COLOR:
                    raise RecordError(where, f"PL[{values[0]}]: expected PL[B] or PL[W]")
                self.turn = _SGF_COLOR[values[0].strip().upper()]
            elif name == "CV":
                value = whole_number(values[0].strip(), 1)
                if value is None:
                    raise RecordError(where, f"CV[{values[0]}]: expected the cube's value, e.g. CV[2]")
                self.cube = value
            elif name == "CO":
                owners = {"b": Color.WHITE, "w": Color.BLACK, "c": None, "n": None}
                if values[0].strip().lower() not in owners:
                    raise RecordError(where, f"CO[{values[0]}]: expected b, w, c or n")
                self.owner = owners[values[0].strip().lower()]


def _letters(value: str, where: str) -> list[int]:
    """The points a set-up value names, 0-23 (a-x) and 24 (y, the bar): one letter, or a range ``a:y``."""
    first, _, last = value.strip().lower().partition(":")
    ends = [(_LETTERS + "y").find(letter) if len(letter) == 1 else -1 for letter in (first, last or first)]
    if min(ends) < 0 or ends[0] > ends[1]:
        raise RecordError(where, f"[{value}]: expected a point a-x or y (the bar), or a range such as a:y")
    return list(range(ends[0], ends[1] + 1))


def _index(letter: int, color: Color) -> int:
    """A set-up letter (player 0's numbering) as ``color``'s own checker index (24 its bar)."""
    if letter == 24:
        return 24
    return letter if color == Color.BLACK else 23 - letter


def _match_info(values: list[str], number: int) -> dict[str, int]:
    info = {}
    for value in values:
        key, _, amount = value.partition(":")
        if key in ("length", "game", "ws", "bs"):
            whole = whole_number(amount)
            if whole is None:
                raise RecordError(f"game {number}", f"MI[{value}]: expected a whole number after '{key}:'")
            info[key] = whole
    return info


def _result(values: list[str] | None, number: int) -> tuple[Color, int] | None:
    if not values or not values[0].strip():
        return None
    found = re.fullmatch(r"\s*([BW])\+(\d+)(R?)\s*", values[0])
    if found is None:
        raise RecordError(f"game {number}", f"RE[{values[0]}]: expected e.g. RE[W+2] or RE[B+4R]")
    return _SGF_COLOR[found.group(1)], record_number(found.group(2), f"game {number}", f"RE[{values[0]}]")


def point_of(letter: str, color: Color, where: str, value: str) -> int:
    """The point an SGF letter names for ``color`` (a-x the points, y the bar, z off); a RecordError
    naming ``where`` and the property's ``value`` for any other letter."""
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    index = _LETTERS.find(letter)
    if index < 0:
        raise RecordError(where, f"{value!r}: points are letters a-x, y the bar, z off; found {letter!r}")
    return index + 1 if color == Color.BLACK else 24 - index


def _game(nodes: list[Node], number: int) -> tuple[list[Action | tuple[Color, str]], dict[int, Properties], list[int],
                                                 _Placed | None]:
    actions: list[Action | tuple[Color, str]] = []
    notes: dict[int, Properties] = {}
    moves: list[int] = []
    cells = 0
    offset = 0
    placed: _Placed | None = None
    for node in nodes:
        move = next(((name, values) for name, values in node if name in ("B", "W")), None)
        extra = tuple((name, tuple(values)) for name, values in node if name not in ("B", "W", "GR"))
        resign = next((values for name, values in node if name == "GR"), None)
        row = (max(cells, 1) - 1 + offset) // 2 + 1
        where = f"game {number}, move {row}"
        if resign is not None:
            try:
                action = Action.from_text(resign[0])
            except ValueError:
                raise RecordError(where, f"GR[{resign[0]}]: expected e.g. 'black resign gammon' or 'white reject'") from None
            if action.kind not in (ActionKind.RESIGN, ActionKind.ACCEPT, ActionKind.REJECT):
                raise RecordError(where, f"GR[{resign[0]}]: only resign, accept and reject are written so")
            actions.append(action)
            moves.append(row)
        if move is None:
            if any(name in ("AB", "AW", "AE", "CV", "CO") for name, _ in node):
                if actions:
                    raise RecordError(where, "a position set up after the game began (AB/AW/AE): it cannot be "
                                      "replayed")
                placed = placed or _Placed(where)
                placed.apply(node, where)
            elif any(name == "PL" for name, _ in node) and placed is not None and not actions:
                placed.apply(node, where)
            continue
        name, values = move
        color = _SGF_COLOR[name]
        value = values[0].strip().lower()
        if cells == 0:
            offset = 1 if color == Color.WHITE else 0
        cells += 1
        row = (cells - 1 + offset) // 2 + 1
        where = f"game {number}, move {row}"
        if value in _CUBE:
            kind = _CUBE[value]
            last = next((a for a in reversed(actions) if isinstance(a, Action)), None)
            if kind == ActionKind.DOUBLE and last is not None and last.kind == ActionKind.DOUBLE:
                kind = ActionKind.BEAVER  # a double answered by a double: GNU Backgammon's beaver
            elif kind == ActionKind.TAKE and last is not None and last.kind == ActionKind.BEAVER:
                cells -= 1  # the doubler's take of the beaver: part of the beaver, as gammon keeps it
                if extra:  # its properties follow the beaver's, after a nameless separator
                    notes[len(actions) - 1] = notes.get(len(actions) - 1, ()) + (_TAKE_NOTES,) + extra
                continue
            actions.append(Action(kind, color))
            moves.append(row)
        else:
            found = re.fullmatch(r"([1-6])([1-6])((?:[a-z][a-z])*)", value)
            if found is None:
                raise RecordError(where, f"{name}[{values[0]}]: expected dice and letter pairs such as "
                                  "'52mhhf', or double, take, drop, beaver")
            dice = (int(found.group(1)), int(found.group(2)))
            if cells == 1 and placed is None:
                if dice[0] == dice[1]:
                    raise RecordError(where, f"{name}[{values[0]}]: an opening roll is two different dice")
                actions.append(Action(ActionKind.OPENING_ROLL, color, dice=(max(dice), min(dice))))
            else:
                actions.append(Action(ActionKind.ROLL, color, dice=dice))
            pairs = found.group(3)
            steps = []
            for k in range(0, len(pairs), 2):
                source = point_of(pairs[k], color, where, values[0])
                target = point_of(pairs[k + 1], color, where, values[0])
                steps.append(f"{'bar' if source == BAR else source}/{'off' if target == OFF else target}")
            actions.append((color, " ".join(steps)))
            moves += [row, row]
        if extra:
            notes[len(actions) - 1] = extra
    return actions, notes, moves, placed


# -- writing ----------------------------------------------------------------------------------
def write_sgf(record: RecordView) -> str:
    """The record as GNU Backgammon lays out SGF; :func:`read_sgf` reads it back the same."""
    trees = []
    for number, game in enumerate(record.games):
        root = ["FF[4]GM[6]CA[UTF-8]"]
        kept = dict(game.properties)
        root.append(f"AP[{_escape(kept['AP'][0])}]" if "AP" in kept else f"AP[{_AP}]")
        root.append(f"MI[length:{record.length}][game:{number}][ws:{game.score[Color.BLACK]}]"
                    f"[bs:{game.score[Color.WHITE]}]")
        root.append(f"PW[{_escape(record.black)}]PB[{_escape(record.white)}]")
        if number == 0:
            for key, meta in _META.items():
                if meta in record.metadata:
                    root.append(f"{key}[{_escape(record.metadata[meta])}]")
        rules = [p for p, on in (("Crawford", record.rules.crawford and record.length > 0),
                                 ("CrawfordGame", game.crawford), ("Jacoby", record.rules.jacoby),
                                 ("Beaver", record.rules.beavers and not beavered(record)),
                                 ("Nackgammon", record.rules.variant.nackgammon),
                                 ("TwoMoveDoubles", record.rules.variant.two_move_doubles)) if on]
        if rules:
            root.append(f"RU[{':'.join(rules)}]")
        if game.result is not None:
            letter = "B" if game.result.winner == Color.WHITE else "W"
            root.append(f"RE[{letter}+{game.result.points}{'R' if game.result.resigned else ''}]")
        root.append(_props(tuple(p for p in game.properties if p[0] != "AP")))
        start = getattr(record, "start", None) if number == 0 else None
        nodes = ["".join(root)] + ([_setup_node(start)] if start is not None else []) + _nodes(game, record.rules.jacoby)
        trees.append("(;" + "\n;".join(nodes) + ")\n")
    return "".join(trees)


def _setup_node(state: GameState) -> str:
    """A set-up position as GNU Backgammon writes one: who is on roll, every point cleared, then
    each checker of player 0 (AW) and player 1 (AB), and the cube when it is not the opening's."""
    position = state.position
    parts = [f"PL[{'B' if position.turn == Color.WHITE else 'W'}]AE[a:y]"]
    for name, color in (("AW", Color.BLACK), ("AB", Color.WHITE)):
        counts = position.checkers(color)
        letters = [(_LETTERS + "y")[24 if index == 24 else index if color == Color.BLACK else 23 - index]
                   for index in range(25) for _ in range(counts[index])]
        if letters:
            parts.append(name + "".join(f"[{letter}]" for letter in sorted(letters)))
    if state.cube != 1 or state.cube_owner is not None:
        owner = {None: "c", Color.WHITE: "b", Color.BLACK: "w"}[state.cube_owner]
        parts.append(f"CV[{state.cube}]CO[{owner}]")
    return "".join(parts)


def _props(props: Properties) -> str:
    return "".join(name + "".join(f"[{_escape(v)}]" for v in values) for name, values in props)


def _inferred(game: GameRecord, jacoby: bool) -> Resignation | None:
    """The resignation a reader infers from the result's points: the smallest that gives them."""
    result = game.result
    assert result is not None
    cube = CubeState(result.cube, None if result.cube == 1 else 0)  # a turned cube is never back at 1
    return next((kind for kind in Resignation if points_won(WinKind(int(kind)), cube, jacoby) == result.points), None)


def _nodes(game: GameRecord, jacoby: bool) -> list[str]:
    nodes = []
    actions = game.actions
    implicit = (len(actions) >= 2 and actions[-1].kind == ActionKind.ACCEPT and game.result is not None
                and actions[-2].resignation == _inferred(game, jacoby))
    for index, action in enumerate(actions):
        kind = action.kind
        letter = "B" if action.color == Color.WHITE else "W"
        note = _props(game.notes.get(index, ()))
        if kind in (ActionKind.RESIGN, ActionKind.ACCEPT, ActionKind.REJECT):
            if implicit and index >= len(actions) - 2:
                continue  # the resignation that ends the game: RE[..R] says it, as GNU Backgammon writes
            # (written out when the points alone would read back as another kind: Jacoby's single point)
            nodes.append(f"GR[{action}]{note}")
        elif kind == ActionKind.PLAY:
            dice = actions[index - 1].dice
            assert dice is not None and action.play is not None and action.color is not None
            color = action.color
            steps = "".join(letter_of(m.source, color) + letter_of(m.target, color) for m in action.play.moves)
            nodes.append(f"{letter}[{dice[0]}{dice[1]}{steps}]{note}")
        elif kind == ActionKind.BEAVER:  # as GNU Backgammon writes it: a double back, taken by the doubler
            notes = game.notes.get(index, ())
            cut = notes.index(_TAKE_NOTES) if _TAKE_NOTES in notes else len(notes)
            nodes += [f"{letter}[double]{_props(notes[:cut])}", f"{'W' if letter == 'B' else 'B'}[take]"
                      f"{_props(notes[cut + 1:])}"]
        elif kind in (ActionKind.DOUBLE, ActionKind.TAKE, ActionKind.DROP):
            nodes.append(f"{letter}[{kind.name.lower()}]{note}")
    return nodes


def letter_of(point: int, color: Color) -> str:
    """The SGF letter of ``point`` for ``color``: :func:`point_of` the other way."""
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return _LETTERS[point - 1] if color == Color.BLACK else _LETTERS[24 - point]
