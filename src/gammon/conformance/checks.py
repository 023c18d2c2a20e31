"""The checks of ``gammon ubgi-check``, run in order against one engine on the raw wire.

It talks to the engine line by line (no client in between, so what is checked is exactly
what the engine prints), judges every play with gammon's own rules, and says which
compliance level the engine reaches:

* level 0: handshake, ``isready``, options, checker play in every position form, whole
  games and a corpus of tricky positions, ``error`` lines (not crashes) for bad input,
  ``quit``, and no traceback anywhere;
* level 1: level 0 plus ``go role cube``, ``go role turn`` and deterministic answers;
* level 2: level 1 plus ``info`` lines during ``go``, ``movetime`` honoured (and nothing
  printed after the answer) and ``stop`` answered promptly, leaving the engine idle.

Optional forms (``position xgid``, the match-context commands) may be skipped but must not
fail; gammon's extensions (``position bpn``, take/drop) are reported without counting
towards a level. Every read has a deadline and no write blocks (:mod:`.connection`), and
the engine is killed at the end, so a hung engine cannot hang the suite; an engine that dies
or hangs during one check is restarted for the next. The positions are :mod:`.corpus`'s,
the results :mod:`.report`'s.
"""

from __future__ import annotations

import random
import re
import shlex
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..engine.transport import BackgroundLoop, split_command
from ..errors import EngineError, IllegalPlayError, InvalidMoveError
from ..play import Play
from ..position import Color, LegalPlays, Position
from ..state import GameState
from ..ubgi import INFO_NUMBERS, ErrorCode, Option, parse_info, parse_key_line, parse_option_line
from .connection import FIRST_SEARCH_S, Connection, Gone, Timeout, clip
from .corpus import CorpusPosition, builtin_corpus, midgame, read_corpus
from .report import FAIL, PASS, SKIP, CheckReport, CheckResult, CheckSetupError

#: Error codes an ``error`` line may carry (v0.1's and v0.2's).
SPEC_CODES = frozenset(code.value for code in ErrorCode)
#: The keys of ``info`` lines the spec names; one of them makes an ``info`` line useful.
INFO_KEYS = frozenset({"role", "time_ms", "nodes", "nps", "depth", "eq", "mwc", "pwin", "pgammon", "pbg", "pv"})
#: Further keys gammon's wire knows (its extensions: ``multipv``, ``plose_gammon``, ...).
KNOWN_INFO_KEYS = INFO_NUMBERS | {"string"}
#: Replies that end a ``go``.
GO_REPLIES = ("bestmove", "bestcube", "bestturn", "error")
#: How long ``stop`` (or the end of ``movetime``) may take to bring the answer, by default.
STOP_LIMIT_S = 2.0
#: The ``movetime`` of the movetime check, and how long nothing may follow its bestmove.
MOVETIME_MS = 200
GRACE_S = 1.0
#: A search this long at least (ms) shows whether ``movetime`` cut it short; a plain ``go``
#: still running after PLAIN_LIMIT_S is stopped.
MEASURABLE_MS = 1000.0
PLAIN_LIMIT_S = 3.0
#: A ``movetime`` search that takes this share of a plain one's time has ignored its limit.
IGNORED_SHARE = 0.8
#: The length of the line the long-command check sends: over 2,048 bytes, a common buffer size.
LONG_COMMAND_BYTES = 2100
#: How long ``quit`` may take to end the process.
QUIT_LIMIT_S = 5.0
#: Plies after which a game of the ``games`` check is abandoned (no real game gets near).
MAX_PLIES = 1000


class _Fail(Exception):
    """A check found something wrong; the message says what."""


class _Skip(Exception):
    """The engine said it does not do this (``unsupported_feature``), or nothing to check."""


@dataclass
class _Reply:
    """What one ``go`` drew: its reply line, the ``info`` lines before it, and how long it took."""

    line: str
    infos: list[str]
    ms: float

    @property
    def word(self) -> str:
        return self.line.split()[0]

    @property
    def rest(self) -> str:
        parts = self.line.split(None, 1)
        return parts[1].strip() if len(parts) > 1 else ""


def judge_play(text: str, legal: LegalPlays) -> Play:
    """The legal play an engine's play text means (:meth:`LegalPlays.parse_ubgi`, the one
    reader of UBGI plays); IllegalPlayError says why it is not one.

    Strict: every word must be one ``from/to`` step (``*`` allowed), and ``pass`` must be
    written out and only when nothing can be played.
    """
    try:
        return legal.parse_ubgi(text, strict=True)
    except InvalidMoveError as error:
        raise IllegalPlayError(str(error)) from None


def _is_error(line: str) -> bool:
    return line.split()[:1] == ["error"]


def _error_code(line: str) -> str:
    words = line.split()
    return words[1] if len(words) > 1 else ""


#: The codes that say "not done here": an optional form or an extension answered so is skipped.
DECLINED = frozenset({ErrorCode.UNKNOWN_COMMAND.value, ErrorCode.UNSUPPORTED_FEATURE.value})


def _declined(line: str) -> bool:
    return _is_error(line) and _error_code(line) in DECLINED


def exchange(sent: Sequence[str], received: Sequence[str]) -> str:
    """What went over the wire, as a report shows it: ``> sent`` and ``< received``, lines cut."""
    lines = [f"> {clip(line, 70)}" for line in sent] + [f"< {clip(line, 70)}" for line in received]
    return "exchange: " + " | ".join(lines)


# -- the suite ----------------------------------------------------------------------------
class _Suite:
    """Runs the checks in order on one engine, restarting it when a check leaves it dead."""

    def __init__(self, argv: list[str], timeout: float, games: int, seed: int,
                 corpus: list[CorpusPosition] | None, report: CheckReport,
                 on_result: Callable[[CheckResult], None] | None, stop_limit: float = STOP_LIMIT_S) -> None:
        self.argv = argv
        self.timeout = timeout
        self.stop_limit_ms = stop_limit * 1000
        self.background = BackgroundLoop("ubgi-check")
        self.games = games
        self.seed = seed
        self.corpus = corpus
        self.report = report
        self.on_result = on_result
        self.wire: Connection | None = None
        self.wires: list[Connection] = []
        self.options: list[Option] = []
        self.identity: dict[str, str] = {}
        self.infos: list[str] = []
        self.unusable: str | None = None

    # -- engine life ------------------------------------------------------------------------
    def start(self) -> Connection:
        wire = Connection(self.argv, self.timeout, self.background)
        self.wires.append(wire)
        self.wire = wire
        return wire

    def engine(self) -> Connection:
        """A live engine past its handshake: the current one, or a fresh one if it died."""
        if self.wire is not None and self.wire.alive():
            return self.wire
        if self.unusable:
            raise _Fail(f"not run: {self.unusable}")
        if self.wire is not None:
            self.wire.kill()
        wire = self.start()
        try:
            self.handshake(wire)
        except (_Fail, Gone, Timeout) as error:
            wire.kill()
            self.unusable = f"the engine could not be restarted: {error}"
            raise _Fail(self.unusable) from None
        return wire

    def handshake(self, wire: Connection) -> str:
        """``ubgi`` to ``ubgiok``: identity, dialect and options; the detail of the check."""
        wire.send("ubgi")
        _, lines = wire.until(lambda line: line.strip() == "ubgiok")
        options: list[Option] = []
        kinds: set[str] = set()
        unexpected: list[str] = []
        proto = None
        for line in lines:
            words = line.split()
            if not words:
                unexpected.append(line)
            elif words[0] == "id" and len(words) >= 2:
                self.identity[words[1]] = " ".join(words[2:])
            elif words[0] == "proto":
                proto = " ".join(words[1:])
            elif words[0] in ("option", "key"):
                kinds.add(words[0])
                try:
                    options.append(parse_option_line(line) if words[0] == "option" else parse_key_line(line))
                except ValueError as error:
                    raise _Fail(f"unreadable {words[0]} line: {error}") from None
            else:
                unexpected.append(line)
        missing = [f"id {key}" for key in ("name", "author") if key not in self.identity]
        if missing:
            raise _Fail(f"no {' or '.join(missing)} line before ubgiok")
        if len(kinds) > 1:
            raise _Fail("mixes v0.1 option lines and v0.2 key lines")
        self.options = options
        self.report.dialect = "v0.2" if "key" in kinds or proto is not None else "v0.1"
        detail = (f"{self.identity['name']!r} by {self.identity['author']!r}, dialect {self.report.dialect}"
                  f"{f' (proto {proto})' if proto else ''}, {len(options)} {'keys' if 'key' in kinds else 'options'}")
        if unexpected:
            detail += f"; ignored unexpected lines: {', '.join(repr(clip(u, 60)) for u in unexpected[:3])}"
        return detail

    def close(self) -> None:
        for wire in self.wires:
            wire.kill()
        self.background.close()

    # -- running checks ---------------------------------------------------------------------
    def run(self, name: str, level: int | None, check: Callable[[], str], optional: bool = False) -> CheckResult:
        try:
            status, detail = PASS, check()
        except _Skip as skip:
            status, detail = SKIP, str(skip)
        except _Fail as failure:
            status, detail = FAIL, str(failure)
        except Timeout as timeout:
            status, detail = FAIL, str(timeout)
            if self.wire is not None:  # its state is unknown now: start afresh for the next check
                self.wire.kill()
        except Gone as gone:
            status, detail = FAIL, str(gone)
        result = CheckResult(name, status, detail or "ok", level, optional)
        self.report.checks.append(result)
        if self.on_result is not None:
            self.on_result(result)
        return result

    # -- helpers ----------------------------------------------------------------------------
    def quiet(self, wire: Connection, *commands: str) -> None:
        """Commands that answer nothing on success; any line they draw is a failure."""
        for command in commands:
            wire.send(command)
        lines = [line for line in wire.sync() if line.split()[:1] != ["info"]]
        if lines:
            raise _Fail(f"{' / '.join(clip(c, 60) for c in commands)}: unexpected {clip(lines[0])!r}")

    def reply(self, wire: Connection, start: float) -> tuple[_Reply, list[str]]:
        """The line that ends a ``go`` sent at ``start`` (its ``info`` lines recorded for the
        info check), and any other lines that came before it."""
        line, before = wire.until(lambda text: text.split()[:1] != [] and text.split()[0] in GO_REPLIES)
        ms = (time.monotonic() - start) * 1000
        wire.searched = True
        infos = [text for text in before if text.split()[:1] == ["info"]]
        self.infos.extend(infos)
        return _Reply(line.strip(), infos, ms), [text for text in before if text.split()[:1] != ["info"]]

    @staticmethod
    def judged(text: str, state: GameState, dice: tuple[int, int], what: str) -> Play:
        """The engine's play ``text``, or a failure saying why gammon's rules refuse it."""
        try:
            return judge_play(text, state.position.legal_plays(*dice))
        except IllegalPlayError as error:
            raise _Fail(f"{what}: bestmove {clip(text)!r}: {clip(str(error), 300)}") from None

    def go(self, wire: Connection, command: str) -> _Reply:
        """Send ``go``; its reply and info lines. Non-info lines before it, or a second reply
        after it, are failures."""
        start = time.monotonic()
        wire.send(command)
        reply, others = self.reply(wire, start)
        if others:
            raise _Fail(f"{command!r}: unexpected {clip(others[0])!r} before the reply")
        after = wire.sync()
        extra = [text for text in after if text.split()[:1] != ["info"]]
        if extra:
            raise _Fail(f"{command!r}: {clip(reply.line)!r}, then also {clip(extra[0])!r} (one reply per go)")
        return reply

    def chequer(self, wire: Connection, state: GameState, dice: tuple[int, int], position: str | None = None,
                go: str = "go role chequer") -> tuple[Play, _Reply]:
        """The engine's play for ``state`` and ``dice``, checked for legality."""
        position = position or f"position gnubgid {state.gnubg_id()}"
        wire.send(position)
        wire.send(f"dice {dice[0]} {dice[1]}")
        reply = self.go(wire, go)
        where = f"{position}, dice {dice[0]} {dice[1]}"
        if reply.word != "bestmove":
            raise _Fail(f"{where}, {go}: got {clip(reply.line)!r}, not a bestmove")
        return self.judged(reply.rest, state, dice, where), reply

    def positions(self) -> list[tuple[GameState, tuple[int, int]]]:
        """Positions and rolls of the position-form checks: the opening, a midgame, BLACK to act."""
        return [
            (GameState(), (3, 1)),
            (GameState(position=midgame(12)), (5, 2)),
            (GameState(position=Position().apply("13/11 24/23")), (6, 6)),
        ]

    # -- level 0 ----------------------------------------------------------------------------
    def check_handshake(self) -> str:
        wire = self.start()
        return self.handshake(wire)

    def check_isready(self) -> str:
        wire = self.engine()
        start = time.monotonic()
        lines = wire.sync()
        if lines:
            raise _Fail(f"unexpected {clip(lines[0])!r} before readyok")
        return (f"readyok in {(time.monotonic() - start) * 1000:.0f} ms (until its first search has answered, "
                f"an engine has {FIRST_SEARCH_S:g} s for each reply: it may load and compile then)")

    def set_command(self, name: str, value: str) -> str:
        if self.report.dialect == "v0.2":
            return f"set {name} {value}"
        return f"setoption name {name} value {value}"

    def check_option_defaults(self) -> str:
        wire = self.engine()
        done = []
        for option in self.options:
            if option.type == "button" or option.default in (None, "", "-"):
                continue
            command = self.set_command(option.name, option.default)
            wire.send(command)
            lines = wire.sync()
            if lines:
                raise _Fail(f"{command!r} answered {clip(lines[0])!r}")
            done.append(option.name)
        if not self.options:
            return "no options advertised"
        return f"{len(done)} set to their defaults without complaint"

    def check_option_get(self) -> str:
        wire = self.engine()
        read = 0
        for option in self.options:
            if option.default in (None, "", "-"):
                continue
            wire.send(f"get {option.name}")
            line, _before = wire.until(lambda text: True)
            expected = f"value {option.name} {option.default}"
            if line.strip() != expected:
                raise _Fail(f"'get {option.name}' answered {clip(line)!r}, expected {expected!r}")
            read += 1
        return f"{read} keys read back with their defaults"

    def check_option_bogus(self) -> str:
        wire = self.engine()
        command = self.set_command("NoSuchOptionUBGICheck" if self.report.dialect != "v0.2" else "no.such.key", "1")
        wire.send(command)
        lines = wire.sync()
        return self.one_error(command, lines)

    def one_error(self, command: str, lines: list[str], allow_none: bool = False) -> str:
        """Exactly one ``error <code> ...`` line with a spec code among ``lines``, nothing else."""
        traced = [line for line in lines if "Traceback" in line]
        if traced:
            raise _Fail(f"{clip(command, 60)!r}: the engine printed a traceback")
        errors = [line for line in lines if _is_error(line)]
        others = [line for line in lines if not _is_error(line)]
        if others:
            raise _Fail(f"{clip(command, 60)!r}: unexpected {clip(others[0])!r}")
        if not errors and allow_none:
            return "ignored"
        if len(errors) != 1:
            raise _Fail(f"{clip(command, 60)!r}: {len(errors)} error lines, expected one")
        code = _error_code(errors[0])
        if code not in SPEC_CODES:
            raise _Fail(f"{clip(command, 60)!r}: error code {code!r} is not one of the spec's")
        return clip(errors[0], 100)

    def check_position_gnubgid(self) -> str:
        wire = self.engine()
        wire.send("newgame")
        for state, dice in self.positions():
            self.chequer(wire, state, dice)
        return f"{len(self.positions())} positions as POSID:MATCHID, legal plays"

    def check_position_posid(self) -> str:
        wire = self.engine()
        wire.send("newgame")
        # A Position ID is written from the side on roll's view, so the colour does not matter.
        for state, dice in self.positions():
            self.chequer(wire, state, dice, f"position gnubgid {state.position.position_id()}")
        return f"{len(self.positions())} positions as a bare Position ID, legal plays"

    def check_position_form(self, form: str) -> str:
        """``position xgid`` (optional) or ``position bpn`` (gammon's extension): ``unsupported_feature``
        or ``unknown_command`` is a skip, anything else judged."""
        wire = self.engine()
        wire.send("newgame")
        for state, dice in self.positions():
            text = state.xgid() if form == "xgid" else state.bpn()
            command = f"position {form} {text}"
            wire.send(command)
            lines = wire.sync()
            if lines:
                if len(lines) == 1 and _declined(lines[0]):
                    raise _Skip(f"not supported ({clip(lines[0], 100)})")
                raise _Fail(f"{command!r} answered {clip(lines[0])!r}")
            self.chequer(wire, state, dice, command)
        return f"{len(self.positions())} positions as {form}, legal plays"

    def check_session(self) -> str:
        """The match-context commands, each silent on success; then checker play still works."""
        wire = self.engine()
        commands = ["newgame", "newsession type match length 7", "setscore 2 3", "setcube value 2 owner p0",
                    "setturn p1", "newsession type money jacoby on crawford off"]
        for command in commands:
            wire.send(command)
            lines = wire.sync()
            errors = [line for line in lines if _is_error(line)]
            if errors and _error_code(errors[0]) in (ErrorCode.UNKNOWN_COMMAND.value,
                                                     ErrorCode.UNSUPPORTED_FEATURE.value):
                raise _Skip(f"{command!r}: not supported ({clip(errors[0], 100)})")
            if lines:
                raise _Fail(f"{command!r} answered {clip(lines[0])!r}")
        self.chequer(wire, GameState(jacoby=True), (6, 5))
        return f"{len(commands)} commands accepted silently, then a legal play"

    def check_corpus(self, item: CorpusPosition) -> str:
        wire = self.engine()
        wire.send("newgame")
        passes = 0
        for dice in item.rolls:
            play, _ = self.chequer(wire, item.state, dice)
            passes += not play.moves
        rolls = f"{len(item.rolls)} roll{'s' if len(item.rolls) > 1 else ''}"
        return f"{rolls}, legal plays" + (f" ({passes} passes)" if passes else "")

    def check_corpus_file(self, corpus: list[CorpusPosition]) -> str:
        wire = self.engine()
        rolls = 0
        for item in corpus:
            wire.send("newgame")
            for dice in item.rolls:
                try:
                    self.chequer(wire, item.state, dice)
                except _Fail as failure:
                    raise _Fail(f"{item.name}: {failure}") from None
                rolls += 1
        return f"{len(corpus)} positions, {rolls} rolls, legal plays"

    def check_games(self) -> str:
        wire = self.engine()
        dice = random.Random(self.seed)
        plies = passes = 0
        total_ms = 0.0
        for game in range(1, self.games + 1):
            wire.send("newgame")
            first = (0, 0)
            while first[0] == first[1]:
                first = (dice.randint(1, 6), dice.randint(1, 6))
            position = Position(turn=Color.WHITE if first[0] > first[1] else Color.BLACK)
            roll = first
            ply = 0
            while position.winner() is None:
                ply += 1
                if ply > MAX_PLIES:
                    raise _Fail(f"game {game}: no winner after {MAX_PLIES} plies")
                try:
                    play, reply = self.chequer(wire, GameState(position=position), roll)
                except _Fail as failure:
                    raise _Fail(f"game {game} ply {ply}: {failure}") from None
                total_ms += reply.ms
                passes += not play.moves
                position = position.apply(play, roll)
                roll = (dice.randint(1, 6), dice.randint(1, 6))
            plies += ply
        average = total_ms / plies if plies else 0.0
        return (f"{self.games} games, {plies} plays ({passes} passes) all legal, "
                f"{average:.1f} ms per move, seed {self.seed}")

    def check_bad_input(self, payload: str | bytes, setup: Sequence[str] = (), allow_none: bool = False) -> str:
        wire = self.engine()
        for command in setup:
            wire.send(command)
        if setup:
            wire.sync()
        traced = len(wire.tracebacks)
        if isinstance(payload, bytes):
            wire.send_bytes(payload)
        else:
            wire.send(payload)
        shown = clip(repr(payload), 60)
        try:
            lines = wire.sync()
        except Gone as gone:
            raise _Fail(f"{shown} killed the engine: {gone}") from None
        except Timeout:
            raise _Fail(f"{shown}: no readyok within {self.timeout:g} s after it") from None
        if len(wire.tracebacks) > traced:
            raise _Fail(f"{shown}: traceback ({wire.tracebacks[traced]})")
        try:
            return self.one_error(shown, lines, allow_none)
        except _Fail as failure:
            sent = [*setup, payload if isinstance(payload, str) else repr(payload), "isready"]
            raise _Fail(f"{failure}; {exchange(sent, [*lines, 'readyok'])}") from None

    def check_long_command(self) -> str:
        """A command longer than 2,048 bytes (``dice 3``, spaces, ``1``) is one command: taken
        (then the next ``go`` plays a 3-1) or refused with one ``error``, never read as several."""
        wire = self.engine()
        opening = GameState()
        setup = ["newgame", f"position gnubgid {opening.gnubg_id()}"]
        self.quiet(wire, *setup)
        command = "dice 3" + " " * (LONG_COMMAND_BYTES - len("dice 3 1")) + " 1"
        wire.send(command)
        lines = wire.sync()
        shown = f"dice 3 <{LONG_COMMAND_BYTES - 8} spaces> 1 ({len(command)} bytes)"
        if lines:
            if len(lines) == 1 and _is_error(lines[0]):
                return f"{shown}: refused as one command ({clip(lines[0], 80)})"
            raise _Fail(f"{shown}: {len(lines)} lines, as if read as several commands; "
                        f"{exchange([*setup, shown, 'isready'], [*lines, 'readyok'])}")
        play, _ = self.chequer(wire, opening, (3, 1), setup[1])
        return f"{shown}: read as one command (then a legal 3-1, {play.ubgi()})"

    def check_quit(self) -> str:
        wire = self.engine()
        start = time.monotonic()
        wire.send("quit")
        status = wire.wait(QUIT_LIMIT_S)
        if status is None:
            wire.kill()
            raise _Fail(f"still running {QUIT_LIMIT_S:g} s after quit")
        return f"exited in {(time.monotonic() - start) * 1000:.0f} ms with status {status}"

    def check_tracebacks(self) -> str:
        found = [trace for wire in self.wires for trace in wire.tracebacks]
        if found:
            raise _Fail(f"{len(found)} traceback lines, first {found[0]}")
        starts = len(self.wires)
        return "no traceback printed" + (f" (engine started {starts} times)" if starts > 1 else "")

    # -- level 1 ----------------------------------------------------------------------------
    def cube(self, state: GameState, answers: tuple[str, ...]) -> str:
        wire = self.engine()
        wire.send("newgame")
        command = f"position gnubgid {state.gnubg_id()}"
        wire.send(command)
        reply = self.go(wire, "go role cube")
        if _declined(reply.line):
            raise _Skip(f"not supported ({clip(reply.line, 100)})")
        if reply.word != "bestcube" or reply.rest not in answers:
            raise _Fail(f"{command}: 'go role cube' answered {clip(reply.line)!r}, expected bestcube {'|'.join(answers)}")
        return reply.line

    def check_cube(self) -> str:
        answers = [self.cube(GameState(position=position), ("double", "nodouble"))
                   for position in (Position(), midgame(20))]
        return "; ".join(answers)

    def check_take(self) -> str:
        return self.cube(GameState(double_offered=True), ("take", "drop"))

    def check_turn(self) -> str:
        wire = self.engine()
        wire.send("newgame")
        state, dice = GameState(position=midgame(8)), (4, 2)
        command = f"position gnubgid {state.gnubg_id()}"
        wire.send(command)
        wire.send(f"dice {dice[0]} {dice[1]}")
        reply = self.go(wire, "go role turn")
        if _declined(reply.line):
            raise _Skip(f"not supported ({clip(reply.line, 100)})")
        match = re.fullmatch(r"bestturn cube=(double|nodouble) move=(.*)", reply.line)
        if match is None:
            raise _Fail(f"{command}, dice 4 2: 'go role turn' answered {clip(reply.line)!r}")
        self.judged(match[2], state, dice, f"{command}, dice 4 2, bestturn")
        return reply.line

    def determinism_options(self) -> list[tuple[str, str]]:
        """The settings that make answers repeatable: Deterministic on, a fixed Seed."""
        settings = []
        for option in self.options:
            short = option.name.rsplit(".", 1)[-1].lower()
            if short == "deterministic":
                settings.append((option.name, "true"))
            elif short == "seed":
                seed = 12345 if option.max is None else min(12345, option.max)
                settings.append((option.name, str(seed)))
        return settings

    def check_determinism(self) -> str:
        settings = self.determinism_options()
        if not settings:
            raise _Skip("no Seed or Deterministic option advertised")
        wire = self.engine()
        cases = [(GameState(position=midgame(12)), (6, 3)), (GameState(position=midgame(20)), (2, 1))]
        for state, dice in cases:
            answers = []
            for _ in range(2):
                wire.send("newgame")
                self.quiet(wire, *(self.set_command(name, value) for name, value in settings))
                play, _ = self.chequer(wire, state, dice)
                answers.append(play)
            if answers[0] != answers[1]:
                legal = state.position.legal_plays(*dice)
                if legal.index(answers[0]) != legal.index(answers[1]):
                    raise _Fail(f"position gnubgid {state.gnubg_id()}, dice {dice[0]} {dice[1]}: "
                                f"{answers[0].ubgi()!r} then {answers[1].ubgi()!r}")
        names = ", ".join(f"{name}={value}" for name, value in settings)
        return f"with {names}: the same play twice in {len(cases)} positions"

    # -- level 2 ----------------------------------------------------------------------------
    def check_info(self) -> str:
        wire = self.engine()
        wire.send("newgame")
        self.chequer(wire, GameState(position=midgame(20)), (5, 3))
        if not self.infos:
            raise _Skip("no info lines during go")
        useful = 0
        for line in self.infos:
            try:
                info = parse_info(line)
            except (ValueError, IndexError) as error:
                raise _Fail(f"unreadable {clip(line)!r}: {error}") from None
            useful += bool(INFO_KEYS & info.keys())
        if not useful:
            raise _Fail(f"{len(self.infos)} info lines, none with a spec key, e.g. {clip(self.infos[0])!r}")
        keys = {key for line in self.infos for key in parse_info(line)}
        detail = f"{len(self.infos)} info lines ({useful} with spec keys: {', '.join(sorted(keys & INFO_KEYS))})"
        unknown = keys - INFO_KEYS - KNOWN_INFO_KEYS
        return detail + (f"; keys not in the spec: {', '.join(sorted(unknown))}" if unknown else "")

    def depth_option(self) -> Option | None:
        """The advertised search-depth setting (``Ply``, ``engine.ply``, ``Depth``) with a maximum."""
        for option in self.options:
            if option.max is not None and option.name.rsplit(".", 1)[-1].lower() in ("ply", "plies", "depth"):
                return option
        return None

    def deepest(self, search: Callable[[Connection, Option | None], str]) -> str:
        """Run ``search`` with the depth setting at its maximum, and put it back afterwards."""
        depth = self.depth_option()
        wire = self.engine()
        try:
            return search(wire, depth)
        finally:
            if depth is not None and depth.default not in (None, "", "-") and self.wire is wire and wire.alive():
                try:
                    self.quiet(wire, self.set_command(depth.name, depth.default))
                except (_Fail, Gone, Timeout):
                    wire.kill()  # the check's own outcome stands; a fresh engine starts at the defaults

    def search_setup(self, wire: Connection, depth: Option | None,
                     dice: tuple[int, int]) -> tuple[GameState, tuple[int, int], list[str]]:
        """An opening roll (many close plays: deep searches take long) at the deepest setting;
        the two checks use different rolls so that no cached search makes either short."""
        state = GameState()
        setup = [f"position gnubgid {state.gnubg_id()}", f"dice {dice[0]} {dice[1]}"]
        if depth is not None:
            setup.insert(0, self.set_command(depth.name, str(depth.max)))
        wire.send("newgame")
        self.quiet(wire, *setup)
        return state, dice, setup

    def check_stop(self) -> str:
        """``stop`` during a long search (the deepest setting, ``movetime 60000``); an engine
        whose searches all end within half a second gets ``go`` and ``stop`` back to back."""
        return self.deepest(self.stop_search)

    def check_movetime(self) -> str:
        """``movetime`` ends the search: a bestmove in time, and nothing after it."""
        return self.deepest(self.movetime_search)

    def movetime_search(self, wire: Connection, depth: Option | None) -> str:
        state, dice, setup = self.search_setup(wire, depth, (2, 1))
        command = f"go role chequer movetime {MOVETIME_MS}"
        start = time.monotonic()
        wire.send(command)
        reply, _ = self.reply(wire, start)
        line, ms = reply.line, reply.ms
        answered = start + ms / 1000
        if reply.word == "error":
            raise _Skip(f"{command!r} answered {clip(line, 100)!r}")
        if reply.word != "bestmove":
            raise _Fail(f"{command!r} answered {clip(line)!r}")
        self.judged(reply.rest, state, dice, repr(command))
        try:
            late = wire.read(answered + GRACE_S)
        except Timeout:
            late = None
        if late is not None:
            after = (time.monotonic() - answered) * 1000
            raise _Fail(f"{command!r}: {clip(line, 60)!r} after {ms:.0f} ms, then {clip(late, 80)!r} "
                        f"{after:.0f} ms later (the search went on after its answer)")
        extra = wire.sync()
        if extra:
            raise _Fail(f"{command!r}: after {clip(line, 60)!r} also {clip(extra[0])!r}")
        if ms > MOVETIME_MS + self.stop_limit_ms:
            raise _Fail(f"{command!r}: bestmove after {ms:.0f} ms (limit {MOVETIME_MS + self.stop_limit_ms:g} ms)")
        plain = self.plain_search(wire, setup[-2:])
        if plain.ms >= MEASURABLE_MS and ms >= IGNORED_SHARE * plain.ms:
            shown = [*setup[-2:], command]
            raise _Fail(f"{command!r} ignored: {ms:.0f} ms, as long as a go without it ({plain.ms:.0f} ms); "
                        f"{exchange(shown, [line + f' (after {ms:.0f} ms)'])}, then "
                        f"{exchange([*setup[-2:], 'go role chequer'], [plain.line + f' (after {plain.ms:.0f} ms)'])}")
        compared = (f"; a go without it took {plain.ms:.0f} ms" if plain.ms >= MEASURABLE_MS
                    else "; searches end within it anyway, so whether it is honoured cannot be told")
        return f"{command!r}: legal bestmove after {ms:.0f} ms, nothing after it for {GRACE_S:g} s{compared}"

    def plain_search(self, wire: Connection, setup: Sequence[str]) -> _Reply:
        """The same search without a limit, for comparison: stopped if it runs over
        :data:`PLAIN_LIMIT_S` (its time then counts as that at least)."""
        self.quiet(wire, *setup)
        start = time.monotonic()
        wire.send("go role chequer")
        done = self.collect(wire, start, start + PLAIN_LIMIT_S)
        if done is not None:
            return done
        wire.send("stop")
        reply, _ = self.reply(wire, start)
        wire.sync()
        return _Reply(reply.line, reply.infos, max(reply.ms, PLAIN_LIMIT_S * 1000))

    def stop_search(self, wire: Connection, depth: Option | None) -> str:
        state, dice, setup = self.search_setup(wire, depth, (4, 3))
        command = "go role chequer movetime 60000"
        start = time.monotonic()
        wire.send(command)
        early = self.collect(wire, start, start + 0.5)
        if early is not None and early.word == "error":
            command = "go role chequer"  # movetime not understood: a plain go, then
            self.quiet(wire, *setup[-2:])
            start = time.monotonic()
            wire.send(command)
            early = self.collect(wire, start, start + 0.5)
        if early is not None:
            if early.word == "error":
                raise _Fail(f"{command!r} answered {clip(early.line)!r}")
            self.quiet(wire, *setup[-2:])
            wire.send(command)
            quick = f"searches end at once ({early.ms:.0f} ms), so stop came right after {command!r}"
        else:
            quick = ""
        stopped = time.monotonic()
        wire.send("stop")
        reply, others = self.reply(wire, stopped)
        line, ms = reply.line, reply.ms
        if reply.word == "error":
            if _error_code(line) in (ErrorCode.UNKNOWN_COMMAND.value, ErrorCode.UNSUPPORTED_FEATURE.value):
                wire.kill()  # maybe still searching: a fresh engine for what follows
                raise _Skip(f"stop not supported ({clip(line, 100)})")
            raise _Fail(f"stop during {command!r} answered {clip(line)!r}")
        if others:
            raise _Fail(f"stop during {command!r}: unexpected {clip(others[0])!r}")
        if reply.word != "bestmove":
            raise _Fail(f"stop during {command!r}: {clip(line)!r} is not a bestmove")
        self.judged(reply.rest, state, dice, f"stop during {command!r}")
        after = wire.sync()
        errors = [text for text in after if _is_error(text)]
        if errors and _error_code(errors[0]) in (ErrorCode.UNKNOWN_COMMAND.value, ErrorCode.UNSUPPORTED_FEATURE.value):
            raise _Skip(f"stop not supported ({clip(errors[0], 100)})")
        extra = [text for text in after if text.split()[:1] != ["info"]]
        if extra:
            raise _Fail(f"after stop: {clip(line)!r} then also {clip(extra[0])!r}")
        if ms > self.stop_limit_ms:
            raise _Fail(f"bestmove {ms:.0f} ms after stop during {command!r} (limit {self.stop_limit_ms:g} ms)")
        # Stopped means idle: a go with nothing to think about (a closed board) must not wait
        # for the stopped search to finish in the background.
        closed = next(item for item in builtin_corpus() if item.name == "closed-board")
        _, follow = self.chequer(wire, closed.state, closed.rolls[0])
        if follow.ms > self.stop_limit_ms:
            raise _Fail(f"bestmove {ms:.0f} ms after stop during {command!r}, but the next go took "
                        f"{follow.ms:.0f} ms for a forced pass: the stopped search went on")
        if quick:
            return f"{quick}: one legal bestmove {ms:.0f} ms after stop"
        deepest = f" at {depth.name} {depth.max}" if depth is not None else ""
        return f"{command!r}{deepest} stopped after 500 ms: legal bestmove {ms:.0f} ms after stop"

    def collect(self, wire: Connection, start: float, deadline: float) -> _Reply | None:
        """The reply of a ``go`` sent at ``start`` if it comes before ``deadline``; None while it
        is still searching."""
        infos = []
        while True:
            try:
                line = wire.read(deadline)
            except Timeout:
                self.infos.extend(infos)
                return None
            words = line.split()
            if words[:1] == ["info"]:
                infos.append(line)
            elif words and words[0] in GO_REPLIES:
                ms = (time.monotonic() - start) * 1000
                wire.searched = True
                self.infos.extend(infos)
                wire.sync()
                return _Reply(line, infos, ms)
            else:
                raise _Fail(f"{wire.last_sent!r}: unexpected {clip(line)!r}")

    # -- all of it --------------------------------------------------------------------------
    def run_all(self) -> None:
        if self.run("handshake", 0, self.check_handshake).status == FAIL:
            return
        self.run("isready", 0, self.check_isready)
        self.run("options-defaults", 0, self.check_option_defaults)
        if self.report.dialect == "v0.2" and self.options:
            self.run("options-get", 0, self.check_option_get, optional=True)
        self.run("options-bogus", 0, self.check_option_bogus)
        self.run("session-commands", 0, self.check_session, optional=True)
        self.run("position-gnubgid", 0, self.check_position_gnubgid)
        self.run("position-posid", 0, self.check_position_posid)
        self.run("position-xgid", 0, lambda: self.check_position_form("xgid"), optional=True)
        self.run("position-bpn", None, lambda: self.check_position_form("bpn"))
        if self.corpus is None:
            for item in builtin_corpus():
                self.run(f"corpus-{item.name}", 0, lambda item=item: self.check_corpus(item))
        else:
            corpus = self.corpus
            self.run("corpus-file", 0, lambda: self.check_corpus_file(corpus))
        if self.games > 0:
            self.run("games", 0, self.check_games)
        opening = GameState().gnubg_id()
        bad_inputs: list[tuple[str, str | bytes, tuple[str, ...], bool]] = [
            ("blank", "   \t ", (), True),
            ("garbage", "}{ ;; %%", (), False),
            ("unknown-command", "frobnicate the board", (), False),
            ("dice-7-7", "dice 7 7", (f"position gnubgid {opening}",), False),
            ("dice-3", "dice 3", (f"position gnubgid {opening}",), False),
            ("position-garbage", "position gnubgid !!!", (), False),
            ("position-trailing-garbage", f"position gnubgid {opening} trailing garbage", (), False),
            ("setoption-no-name", "setoption", (), False),
            ("go-without-position", "go role chequer", ("newgame", "dice 3 1"), False),
            ("go-without-dice", "go role chequer", ("newgame", f"position gnubgid {opening}"), False),
            ("go-bad-role", "go role sideways", ("newgame", f"position gnubgid {opening}", "dice 3 1"), False),
            ("long-line", "position gnubgid " + "4HPwATDgc/ABMA" * 732, (), False),
            ("non-ascii", "dice \u2682 \u2684 \u00e9\u00e8", (), False),
            ("invalid-utf8", b"position gnubgid \xff\xfe\x80\xc3", (), False),
        ]
        for name, payload, setup, allow_none in bad_inputs:
            self.run(f"bad-input-{name}", 0,
                     lambda payload=payload, setup=setup, allow_none=allow_none:
                     self.check_bad_input(payload, setup, allow_none))
        self.run("long-command", 0, self.check_long_command)
        self.run("cube", 1, self.check_cube)
        self.run("cube-take", None, self.check_take)
        self.run("turn", 1, self.check_turn)
        self.run("determinism", 1, self.check_determinism)
        self.run("movetime", 2, self.check_movetime)
        self.run("stop", 2, self.check_stop)
        self.run("info", 2, self.check_info)
        self.run("quit", 0, self.check_quit)
        self.run("no-traceback", 0, self.check_tracebacks)


def run_check(
    command: str | Sequence[str],
    *,
    games: int = 4,
    seed: int = 0,
    timeout: float = 10.0,
    positions: str | Path | Iterable[CorpusPosition] | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
    stop_limit: float = STOP_LIMIT_S,
) -> CheckReport:
    """Run every check against the engine that ``command`` starts; the report says the level.

    ``positions`` is a file of positions (one notation per line) or CorpusPosition items
    replacing the built-in tricky positions; ``on_result`` sees each result as it is made.
    ``stop_limit`` is how many seconds ``stop`` or the end of ``movetime`` may take to bring
    the answer (level 2); a generous one checks that the answer comes, not how fast.
    CheckSetupError when the engine cannot be started or the positions cannot be read.
    """
    try:
        argv = split_command(command)
    except EngineError as error:
        raise CheckSetupError(str(error)) from None
    if positions is None:
        corpus = None
    elif isinstance(positions, (str, Path)):
        corpus = read_corpus(positions, seed)
    else:
        corpus = list(positions)
    shown = command if isinstance(command, str) else shlex.join(argv)
    report = CheckReport(shown, None)
    suite = _Suite(argv, timeout, games, seed, corpus, report, on_result, stop_limit)
    try:
        suite.run_all()
    finally:
        suite.close()
    return report

