"""GNU Backgammon's command-line program (``gnubg -t``) behind the engine client's methods.

:class:`GnubgEngine` offers what :class:`~gammon.engine.SimpleEngine` offers (``play``,
``analyse``, ``cube``, ``configure``, ``quit``) but speaks gnubg's own text interface, so
GNU Backgammon serves as an opponent or referee without a UBGI wrapper.

How it talks: one long-lived ``gnubg -t -q -r`` process reads commands on stdin. Each
request is a batch of commands (``set gnubgid POSID:MATCHID``, ``hint N``) followed by
``set prompt gammon-end-<n>``, a harmless command whose answer, ``The prompt has been set
to `gammon-end-<n>'.``, marks the end of the batch's output (gnubg prints no prompt when
stdin is not a terminal, so nothing else does). The serial number makes each marker
unique: output left over from a request that timed out is recognised and skipped.

gnubg writes positions and moves from the view of the player on roll, as
:class:`~gammon.position.Position` does, so its move text is read against our own legal
plays; :meth:`GameState.gnubg_id` carries score, cube and rules. Every play gnubg names
is checked to be legal in our position (else :class:`IllegalEngineMoveError`).

>>> from gammon.engine.gnubg import GnubgEngine
>>> with GnubgEngine.popen(ply=0) as engine:  # doctest: +SKIP
...     str(engine.play(Position(), (3, 1)).play)
'8/5 6/5'
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO

from ..evaluation import Hint, Probabilities
from ..errors import (
    EngineError,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    GammonError,
    IllegalEngineMoveError,
)
from ..notation import movetext
from ..play import LegalPlays, Play
from ..position import Position
from ..protocol.wire import Option
from ..state import GameState, GameStatus
from .process import die_with_parent, find_gnubg, split_command
from .results import CubeResult, Limit, PlayResult, as_state, state_and_dice

__all__ = ["GnubgEngine", "MAX_PLY"]

#: Deepest evaluation offered; gnubg accepts more, but 4-ply already takes seconds a move.
MAX_PLY = 4
NOT_FOUND = "GNU Backgammon not found: install it (apt-get install gnubg) or set GAMMON_GNUBG"
#: Flags always passed: the tty interface, no sounds, no .gnubgrc (the user's settings
#: could change what gnubg prints or how deep it looks).
_FLAGS = ("-t", "-q", "-r")
_MARK = "gammon-end-"
_MARK_LINE = re.compile(r"`" + _MARK + r"(\d+)'")
_BANNER = re.compile(r"^\s*GNU Backgammon\s+(\S+)")
_THREADS = re.compile(r"^\s*(\d+) calculation thread")
_NUMBER = r"([+-]?\d+(?:\.\d+)?)"
_HINT = re.compile(r"^\s*(\d+)\.\s+(?:Cubeful|Cubeless)\s+(\d+)-ply\s+(.*?)\s+(?:Eq\.|MWC):\s+" + _NUMBER)
_CHANCES = re.compile(r"^\s*" + r"\s+".join([_NUMBER] * 3) + r"\s+-\s+" + r"\s+".join([_NUMBER] * 3) + r"\s*$")
_EVAL_ROW = re.compile(r"^\s*(static|\d+ ply):\s+" + r"\s+".join([_NUMBER] * 7))
_CUBE_OPTION = re.compile(r"^\s*\d+\.\s+(.+?)\s{2,}" + _NUMBER)
_CUBELESS = re.compile(r"(\d+)-ply cubeless equity\s+" + _NUMBER)
_PROPER = re.compile(r"Proper cube action:\s*(.+?)\s*$")
_CANNOT_DOUBLE = "You cannot double"
_NO_MOVES = "There are no legal moves"

#: Commands that make gnubg a quiet calculator: nobody moves by itself, nothing asks for
#: confirmation, numbers are printed the same way at every score.
_SETUP = (
    "set player both human",
    "set display off",
    "set confirm new off",
    "set sound enable off",
    "set automatic roll off",
    "set automatic game off",
    "set automatic move off",
    "set automatic bearoff off",
    "set automatic doubles 0",
    "set output mwc off",
    "set output winpc off",
    "set output matchpc off",
    "set output rawboard on",  # one line per board: quicker than the ASCII drawing
    "set output digits 6",
    "set evaluation chequerplay evaluation noise 0",
    "set evaluation cubedecision evaluation noise 0",
    "set evaluation chequerplay evaluation cubeful on",
    "set evaluation cubedecision evaluation cubeful on",
    "set beavers 0",
    "show version",
    "show threads",
)
#: gnubg's default number of beavers, used for a state whose ``beavers`` is set.
_BEAVERS = 3


def _check_state(state: GameState) -> None:
    """gnubg can only be asked about a game in progress."""
    if state.status != GameStatus.PLAYING or state.position.winner() is not None:
        raise ValueError("the game is over: there is nothing to ask GNU Backgammon")


def _same_game(board: str, state: GameState) -> bool:
    """Whether gnubg's raw (FIBS) board shows ``state``: checkers, dice, cube and score.

    gnubg writes its player 1 as FIBS's O, so the colours come back swapped; what is
    seen from the player on roll is the same.
    """
    try:
        shown = GameState.from_fibs(board)
    except GammonError:
        return False
    owner = None if shown.cube_owner is None else shown.cube_owner.other
    return (shown.position.board == state.position.board and shown.dice == state.dice
            and shown.match_length == state.match_length and shown.score[::-1] == state.score
            and shown.cube == state.cube and owner == state.cube_owner and shown.crawford == state.crawford)


def _pump(stream: IO[bytes], lines: queue.Queue[str | None]) -> None:
    """Reader thread: gnubg's output line by line into ``lines``, None at the end."""
    try:
        for raw in iter(stream.readline, b""):
            lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
    except (OSError, ValueError):
        pass
    lines.put(None)


def _text(lines: Sequence[str], limit: int = 1500) -> str:
    """Engine output for an error message, shortened from the front."""
    text = "\n".join(line for line in lines if line.strip())
    return text if len(text) <= limit else "..." + text[-limit:]


class GnubgEngine:
    """A running ``gnubg -t``: ``play``, ``analyse`` and ``cube`` as SimpleEngine has them.

    Start it with :meth:`popen`; ``id`` names the program, ``options`` holds ``Ply`` (the
    evaluation depth for checker play and cube decisions), ``Threads`` and ``EvalMode``. Calls are
    serialised by a lock, so one engine can be shared between threads.
    """

    dialect: str = "gnubg"

    def __init__(self, process: subprocess.Popen, command: list[str], *, ply: int = 0,
                 timeout: float = 60.0) -> None:
        """Wrap a started process; use :meth:`popen` rather than calling this directly."""
        self.process = process
        self.command = command
        self.timeout = timeout
        self.id: dict[str, str] = {"name": "GNU Backgammon", "author": "the GNU Backgammon authors (Gary Wong et al.)"}
        self.options: dict[str, Option] = {
            "Ply": Option("Ply", "spin", str(ply), 0, MAX_PLY),
            "Threads": Option("Threads", "spin", "1", 1, 48),  # gnubg's own maximum
            # Checker play by cubeful equity (gnubg's default) or cubeless; cube decisions stay cubeful.
            "EvalMode": Option("EvalMode", "combo", "cubeful", choices=("cubeless", "cubeful")),
        }
        self._ply = ply
        self._plies_set: int | None = None
        self._beavers_set: bool | None = False
        self._serial = 0
        self._lock = threading.RLock()
        self._closed = False
        self._ended = False
        self._lines: queue.Queue[str | None] = queue.Queue()
        # The reader holds the stream and queue, not self, so an engine dropped without
        # quit() is still collected and __del__ ends the process.
        self._reader = threading.Thread(target=_pump, args=(process.stdout, self._lines), name="gnubg-reader",
                                        daemon=True)
        self._reader.start()

    # -- starting -----------------------------------------------------------------------------
    @classmethod
    def popen(cls, command: str | Sequence[str] | None = None, *, ply: int = 0,
              timeout: float = 60.0) -> GnubgEngine:
        """Start GNU Backgammon (default: :func:`find_gnubg`) and set it up as a calculator.

        ``-t -q -r`` are added to ``command`` when missing. ``timeout`` bounds every wait
        for an answer. EngineError when the program is missing or is not gnubg.
        """
        if not isinstance(ply, int) or not 0 <= ply <= MAX_PLY:
            raise ValueError(f"ply must be 0..{MAX_PLY}, got {ply!r}")
        if command is None:
            found = find_gnubg()
            if found is None:
                raise EngineError(NOT_FOUND)
            argv = [found]
        else:
            argv = split_command(command)
        argv += [flag for flag in _FLAGS if flag not in argv]
        # The C locale keeps gnubg's messages in English and its decimal separator a dot.
        env = {**os.environ, "LC_ALL": "C", "LANG": "C", "LANGUAGE": "C"}
        try:
            process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                env=env, preexec_fn=die_with_parent(), bufsize=0,
            )
        except OSError as error:
            prefix = NOT_FOUND if command is None else "cannot start GNU Backgammon"
            raise EngineError(f"{prefix} ({argv[0]!r}: {error})") from None
        engine = cls(process, argv, ply=ply, timeout=timeout)
        try:
            engine._initialise()
        except BaseException:
            engine._shutdown(polite=False)
            raise
        return engine

    def _initialise(self) -> None:
        """Quiet gnubg down, read its version, set the depth."""
        lines = self._request(_SETUP)
        version = next((m.group(1) for m in map(_BANNER.match, lines) if m), None)
        if version is None:
            raise EngineProtocolError(f"{self.command[0]} does not look like GNU Backgammon:\n{_text(lines)}")
        self.id["name"] = f"GNU Backgammon {version}"
        self.id["version"] = version
        threads = next((m.group(1) for m in map(_THREADS.match, lines) if m), None)
        if threads is not None:
            option = self.options["Threads"]
            self.options["Threads"] = Option(option.name, option.type, threads, option.min, option.max)
        self._ensure_plies(self._ply)

    # -- the conversation ---------------------------------------------------------------------
    def _request(self, commands: Sequence[str], timeout: float | None = None) -> list[str]:
        """Send ``commands`` and the end marker; return the output lines before the marker."""
        with self._lock:
            if self._closed:
                raise EngineTerminatedError("GNU Backgammon has been quit")
            if self._ended:
                raise EngineTerminatedError(f"GNU Backgammon has exited (code {self.process.poll()})")
            self._serial += 1
            serial = self._serial
            batch = "".join(f"{command}\n" for command in (*commands, f"set prompt {_MARK}{serial}"))
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(batch.encode("utf-8"))
                self.process.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                self._ended = True
                raise EngineTerminatedError(f"GNU Backgammon has exited (code {self._exit_code()})") from None
            wait = self.timeout if timeout is None else timeout
            asked = commands[-1] if commands else "ping"
            deadline = time.monotonic() + wait
            lines: list[str] = []
            while True:
                try:
                    line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    raise EngineTimeoutError(
                        f"GNU Backgammon did not answer {asked!r} within {wait:g} s") from None
                if line is None:
                    self._ended = True
                    raise EngineTerminatedError(
                        f"GNU Backgammon exited (code {self._exit_code()}) while answering {asked!r}"
                        + (f":\n{_text(lines)}" if any(s.strip() for s in lines) else ""))
                mark = _MARK_LINE.search(line)
                if mark is None:
                    lines.append(line)
                elif int(mark.group(1)) == serial:
                    return lines
                else:
                    lines = []  # the end of an earlier request that timed out

    def _exit_code(self) -> int | None:
        try:
            return self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return None

    def _ensure_plies(self, ply: int) -> None:
        with self._lock:
            if ply != self._plies_set:
                try:
                    self._request(self._ply_commands(ply))
                except EngineError:
                    self._plies_set = None  # unknown after a failed request: set again next time
                    raise

    def _ply_commands(self, ply: int) -> list[str]:
        """The commands that set both evaluation depths to ``ply`` (none if already set)."""
        if ply == self._plies_set:
            return []
        self._plies_set = ply
        return [f"set evaluation chequerplay evaluation plies {ply}",
                f"set evaluation cubedecision evaluation plies {ply}"]

    def _load(self, state: GameState, limit: Limit | None) -> list[str]:
        """Commands that set the depth, the beaver rule and the position."""
        commands = self._ply_commands(self._depth(limit))
        if state.is_money and state.beavers != self._beavers_set:
            commands.append(f"set beavers {_BEAVERS if state.beavers else 0}")
            self._beavers_set = state.beavers
        commands.append(f"set gnubgid {state.gnubg_id()}")
        return commands

    def _depth(self, limit: Limit | None) -> int:
        if limit is not None and limit.depth is not None:
            if not 0 <= limit.depth <= MAX_PLY:
                raise ValueError(f"depth must be 0..{MAX_PLY} for GNU Backgammon, got {limit.depth}")
            return int(limit.depth)
        return self._ply

    def _exchange(self, state: GameState, limit: Limit | None, commands: Sequence[str]) -> list[str]:
        """Load ``state``, run ``commands``, check gnubg took the position as sent."""
        with self._lock:
            try:
                lines = self._request([*self._load(state, limit), *commands])
            except EngineError:
                self._plies_set = self._beavers_set = None  # unknown now: set again next time
                raise
        shown = next((line for line in reversed(lines) if line.startswith("board:")), None)
        if shown is None or not _same_game(shown, state):
            raise EngineProtocolError(
                f"GNU Backgammon did not load {state.gnubg_id()} as sent:\n{_text(lines)}")
        return lines

    # -- settings -----------------------------------------------------------------------------
    def configure(self, options: Mapping[str, object]) -> None:
        """Set ``Ply`` (both evaluation depths), ``Threads`` or ``EvalMode``; names are case-insensitive."""
        known = {name.lower(): option for name, option in self.options.items()}
        for name, value in options.items():
            option = known.get(str(name).lower())
            if option is None:
                raise EngineError(f"GNU Backgammon has no option {name!r} (it has {', '.join(self.options)})")
            try:
                text = option.check(value)
            except ValueError as error:
                raise EngineError(str(error)) from None
            if option.name == "Ply":
                self._ply = int(text)
                self._ensure_plies(self._ply)
            elif option.name == "EvalMode":
                switch = "on" if text == "cubeful" else "off"
                self._request([f"set evaluation chequerplay evaluation cubeful {switch}"])
            else:
                self._request([f"set threads {int(text)}"])
            self.options[option.name] = Option(option.name, option.type, text, option.min, option.max)

    def ping(self) -> None:
        """Wait until gnubg answers (it is alive and idle)."""
        self._request([])

    # -- questions ----------------------------------------------------------------------------
    def play(self, position: GameState | Position, dice: tuple[int, int] | None = None,
             limit: Limit | None = None) -> PlayResult:
        """gnubg's best play for ``dice`` (default: the state's dice), legal in our position.

        A roll that cannot be played gives an empty Play without asking gnubg. ``info``
        has ``eq`` (cubeful, per cube), ``pwin`` ... ``plose_bg``, ``depth`` and ``pv``.
        ``limit.depth`` overrides ``Ply`` for this call; other limits are ignored.
        """
        state, (d1, d2) = state_and_dice(position, dice)
        legal = state.position.legal_plays(d1, d2)
        if legal.is_pass():
            return PlayResult(Play())
        hints = self._hints(state, (d1, d2), legal, 1, limit)
        best = hints[0]
        p = best.probabilities
        info: dict[str, object] = {
            "depth": best.ply, "eq": best.equity, "pwin": p.win, "pgammon": p.win_gammon,
            "pbg": p.win_backgammon, "plose_gammon": p.lose_gammon, "plose_bg": p.lose_backgammon,
            "pv": str(best.play),
        }
        return PlayResult(best.play, info)

    def analyse(self, position: GameState | Position, dice: tuple[int, int] | None = None, multipv: int = 1,
                limit: Limit | None = None) -> list[Hint]:
        """The ``multipv`` best plays, best first, as gnubg's ``hint`` ranks them.

        Probabilities are the mover's after the play; ``cubeful`` holds gnubg's equity
        (per cube; normalised money equity in a match), ``loss`` the gap to the best, ``ply``
        the depth each play was evaluated at (plays pruned by gnubg's move filters keep a
        shallower one). A roll that cannot be played gives one hint, the empty play.
        """
        if multipv < 1:
            raise ValueError(f"multipv must be at least 1, got {multipv}")
        state, (d1, d2) = state_and_dice(position, dice)
        legal = state.position.legal_plays(d1, d2)
        if legal.is_pass():
            return [self._pass_hint(state, limit)]
        return self._hints(state, (d1, d2), legal, multipv, limit)

    def _hints(self, state: GameState, dice: tuple[int, int], legal: LegalPlays, count: int,
               limit: Limit | None) -> list[Hint]:
        _check_state(state)
        # gnubg shows the larger die first; sending it so keeps its echo of the ID identical.
        asked = state.replace(dice=(max(dice), min(dice)), double_offered=False, resignation=None)
        lines = self._exchange(asked, limit, [f"hint {count}"])
        where = f"{state.position.position_id()} with {dice[0]}-{dice[1]}"
        rows: list[tuple[int, str, float, Probabilities]] = []
        for i, line in enumerate(lines):
            found = _HINT.match(line)
            if found is None:
                continue
            chances = _CHANCES.match(lines[i + 1]) if i + 1 < len(lines) else None
            if chances is None:
                raise EngineProtocolError(f"no probabilities after GNU Backgammon's hint line {line!r}")
            values = [float(v) for v in chances.groups()]
            try:
                probabilities = Probabilities(values[0], values[1], values[2], values[4], values[5])
            except ValueError as error:
                raise EngineProtocolError(f"GNU Backgammon's probabilities {line!r}: {error}") from None
            rows.append((int(found.group(2)), found.group(3), float(found.group(4)), probabilities))
        if not rows:
            if any(_NO_MOVES in line for line in lines):
                raise IllegalEngineMoveError(f"GNU Backgammon finds no legal move in {where}, but there are")
            raise EngineProtocolError(f"no hint from GNU Backgammon for {where}:\n{_text(lines)}")
        best = rows[0][2]
        hints = []
        for rank, (ply, text, equity, probabilities) in enumerate(rows[:count], start=1):
            try:
                play = movetext.parse_play(text, legal)
            except GammonError as error:
                raise IllegalEngineMoveError(
                    f"GNU Backgammon's play {text!r} is not legal in {where}: {error}") from None
            hints.append(Hint(rank, play, probabilities, ply, best - equity, equity))
        return hints

    def _pass_hint(self, state: GameState, limit: Limit | None) -> Hint:
        """The empty play, valued by gnubg's ``eval`` of the opponent's turn that follows."""
        _check_state(state)
        after = state.replace(position=state.position.flip(), dice=None, double_offered=False, resignation=None)
        ply = self._depth(limit)
        lines = self._exchange(after, limit, ["eval"])
        label = "static" if ply == 0 else f"{ply} ply"
        for line in lines:
            row = _EVAL_ROW.match(line)
            if row and row.group(1) == label:
                win, wg, wbg, lg, lbg, _, cubeful = (float(v) for v in row.groups()[1:])
                try:
                    probabilities = Probabilities(1.0 - win, lg, lbg, wg, wbg)
                except ValueError as error:
                    raise EngineProtocolError(f"GNU Backgammon's probabilities {line!r}: {error}") from None
                return Hint(1, Play(), probabilities, ply, 0.0, -cubeful)
        raise EngineProtocolError(f"no {label} evaluation from GNU Backgammon:\n{_text(lines)}")

    def cube(self, position: GameState | Position, limit: Limit | None = None) -> CubeResult:
        """gnubg's proper cube action: ``double``/``nodouble`` for the side on roll, or with a
        double pending the doubled side's ``take``/``drop``.

        "Too good" is ``nodouble``, a beaver is ``take``. A side that may not double (the
        Crawford game, the opponent owns the cube, the cube limit, a dead cube) gets
        ``nodouble``; a pointless double offered anyway is taken.
        ``info`` holds gnubg's cubeful equities ``no_double``, ``double_take``,
        ``double_pass`` (doubler's view; also as ``nd``/``dt``/``dp``), ``eq`` (the best for
        the side to act), ``cubeless``, ``depth`` and ``proper`` (gnubg's own words).
        """
        state = as_state(position)
        _check_state(state)
        if state.resignation is not None:
            raise ValueError("a resignation is pending: there is no cube decision")
        offered = state.double_offered
        if not offered and (state.cube_owner == state.position.turn.other
                            or (state.cube_limit is not None and 2 * state.cube > state.cube_limit)):
            return CubeResult("nodouble", {"reason": "the side on roll may not double"})
        # gnubg cannot load a pending double; it analyses the doubler's decision instead.
        asked = state.replace(dice=None, double_offered=False)
        lines = self._exchange(asked, limit, ["hint"])
        info: dict[str, object] = {"depth": self._depth(limit)}
        proper = None
        for line in lines:
            if (found := _CUBELESS.search(line)) is not None:
                info["depth"] = int(found.group(1))
                info["cubeless"] = float(found.group(2))
            elif (found := _PROPER.search(line)) is not None:
                proper = found.group(1)
            elif (found := _CUBE_OPTION.match(line)) is not None:
                label, value = found.group(1).lower(), float(found.group(2))
                if label.startswith("no "):
                    key = "no_double"
                elif "pass" in label or "drop" in label:
                    key = "double_pass"
                elif "take" in label or "beaver" in label:
                    key = "double_take"
                else:
                    continue
                info[key] = value
                info[{"no_double": "nd", "double_take": "dt", "double_pass": "dp"}[key]] = value
        if proper is None:
            if any(_CANNOT_DOUBLE in line for line in lines):
                # A dead cube (the doubler already has the points it needs, a 1-point
                # match): a double gains nothing, and dropping can only cost the taker.
                reason = {"reason": "GNU Backgammon: you cannot double"}
                return CubeResult("take" if offered else "nodouble", reason)
            raise EngineProtocolError(f"no cube analysis from GNU Backgammon:\n{_text(lines)}")
        info["proper"] = proper
        action = _cube_action(proper, offered, info)
        nd, dt, dp = (info.get(k) for k in ("no_double", "double_take", "double_pass"))
        if offered and isinstance(dt, float) and isinstance(dp, float):
            info["eq"] = -min(dt, dp)
        elif not offered and isinstance(nd, float) and isinstance(dt, float) and isinstance(dp, float):
            info["eq"] = max(nd, min(dt, dp))
        return CubeResult(action, info)

    # -- the end ------------------------------------------------------------------------------
    def quit(self) -> None:
        """Send ``quit``, kill gnubg if it lingers, reap it. Idempotent."""
        self._shutdown(polite=True)

    close = quit

    def _shutdown(self, polite: bool) -> None:
        """End the process: ``quit`` first when ``polite``, then kill; close the pipes."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            process = self.process
            if process.poll() is None:
                if polite:
                    try:
                        assert process.stdin is not None
                        process.stdin.write(b"quit\n")
                        process.stdin.flush()
                    except (OSError, ValueError):
                        pass
                try:
                    process.wait(timeout=2.0 if polite else 0.0)
                except subprocess.TimeoutExpired:
                    process.kill()
                    try:
                        process.wait(timeout=5.0)
                    except subprocess.TimeoutExpired:
                        pass
            for stream in (process.stdin, process.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
        self._reader.join(timeout=1.0)

    def __enter__(self) -> GnubgEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    def __del__(self) -> None:
        try:
            self.quit()
        except Exception:  # noqa: BLE001 - never raise from a finaliser
            pass

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"pid={self.process.pid}"
        return f"<GnubgEngine {self.id.get('name', 'GNU Backgammon')!r} ply={self._ply} ({state})>"


def _cube_action(proper: str, offered: bool, info: Mapping[str, object]) -> str:
    """Read gnubg's "Proper cube action" (e.g. ``No double, beaver``, ``Too good to redouble,
    pass``): its first part is the doubler's choice, its second the answer to a double.
    Words it does not use fall back on the equities."""
    first, _, second = (part.strip().lower() for part in proper.partition(","))
    nd, dt, dp = (info.get(k) for k in ("no_double", "double_take", "double_pass"))
    if offered:
        if "pass" in second or "drop" in second:
            return "drop"
        if "take" in second or "beaver" in second:
            return "take"
        if isinstance(dt, float) and isinstance(dp, float):
            return "take" if dt <= dp else "drop"
    else:
        if first.startswith(("no ", "too good", "never")):
            return "nodouble"
        if "double" in first:
            return "double"
        if isinstance(nd, float) and isinstance(dt, float) and isinstance(dp, float):
            return "double" if min(dt, dp) > nd else "nodouble"
    raise EngineProtocolError(f"cannot read GNU Backgammon's cube action {proper!r}")
