"""GNU Backgammon's command-line program (``gnubg -t``): a second protocol behind the client's API.

:class:`GnubgProtocol` speaks gnubg's own text interface over the same
:class:`~gammon.engine.transport.LineTransport` as :class:`~gammon.engine.protocol.UbgiProtocol`
speaks UBGI (as python-chess puts XBoard beside UCI), so GNU Backgammon serves as an opponent
or referee without a UBGI wrapper. :class:`GnubgEngine` (or ``SimpleEngine.popen_gnubg``) is
its blocking face, with :class:`~gammon.engine.SimpleEngine`'s methods (``play``,
``analyse``, ``cube``, ``configure``, ``quit``).

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
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence

from ..errors import (
    EngineError,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    GammonError,
    IllegalEngineMoveError,
)
from ..evaluation import CubeDecision, Hint, Probabilities
from ..play import Play
from ..position import LegalPlays, Position
from ..state import GameState, GameStatus
from ..ubgi import Option
from .protocol import EngineProtocol
from .results import Limit, PlayResult, as_state, state_and_dice
from .transport import LineTransport, split_command

__all__ = ["MAX_PLY", "GnubgProtocol", "find_gnubg", "popen_gnubg"]

#: Deepest evaluation offered; gnubg accepts more, but 4-ply already takes seconds a move.
MAX_PLY = 4
NOT_FOUND = "GNU Backgammon not found: install it (apt-get install gnubg) or set GAMMON_GNUBG"
#: Where Debian puts GNU Backgammon when /usr/games is not on PATH.
GNUBG_DIRECTORIES = ("/usr/games", "/usr/local/games")
#: Flags always passed: the tty interface, no sounds, no .gnubgrc (the user's settings
#: could change what gnubg prints or how deep it looks).
_FLAGS = ("-t", "-q", "-r")
_MARK = "gammon-end-"
_MARK_LINE = re.compile(r"`" + _MARK + r"([0-9]+)'")
_BANNER = re.compile(r"^\s*GNU Backgammon\s+(\S+)")
_THREADS = re.compile(r"^\s*([0-9]+) calculation thread")
_NUMBER = r"([+-]?[0-9]+(?:\.[0-9]+)?)"
# A hint line, ``  1. Cubeful 2-ply    24/23 13/8     Eq.:  +0.123``, and a cube option, ``1. No double
# +0.456``, are read in two steps, before and after the text in the middle: one pattern with
# ``\s+(.*?)\s+`` around that text backtracks quadratically on a long run of spaces.
_HINT_HEAD = re.compile(r"\s*([0-9]+)\.\s+(?:Cubeful|Cubeless)\s+([0-9]+)-ply\s")
_HINT_VALUE = re.compile(r"\s(?:Eq\.|MWC):\s+" + _NUMBER)
_CHANCES = re.compile(r"^\s*" + r"\s+".join([_NUMBER] * 3) + r"\s+-\s+" + r"\s+".join([_NUMBER] * 3) + r"\s*$")
_EVAL_ROW = re.compile(r"^\s*(static|[0-9]+ ply):\s+" + r"\s+".join([_NUMBER] * 7))
_CUBE_HEAD = re.compile(r"\s*[0-9]+\.\s+")
_CUBE_VALUE = re.compile(r"(?<!\s)\s{2,}" + _NUMBER)  # from a run's first space only: each run scanned once
_CUBELESS = re.compile(r"(?<![0-9])([0-9]+)-ply cubeless equity\s+" + _NUMBER)  # likewise from a number's first digit
_PROPER = re.compile(r"Proper cube action:(.+)")
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


def find_gnubg() -> str | None:
    """The GNU Backgammon program: ``$GAMMON_GNUBG``, else ``gnubg`` on PATH or in /usr/games."""
    configured = os.environ.get("GAMMON_GNUBG")
    if configured:
        return configured
    found = shutil.which("gnubg")
    if found:
        return found
    for directory in GNUBG_DIRECTORIES:
        path = os.path.join(directory, "gnubg")
        if os.access(path, os.X_OK):
            return path
    return None


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


def _text(lines: Sequence[str], limit: int = 1500) -> str:
    """Engine output for an error message, shortened from the front."""
    text = "\n".join(line for line in lines if line.strip())
    return text if len(text) <= limit else "..." + text[-limit:]


def _hint_row(line: str) -> tuple[int, str, float] | None:
    """A hint line's depth, play and equity, or None for another line."""
    head = _HINT_HEAD.match(line)
    if head is None:
        return None
    value = _HINT_VALUE.search(line, head.end())
    if value is None:
        return None
    return int(head.group(2)), line[head.end():value.start()].strip(), float(value.group(1))


def _cube_option(line: str) -> tuple[str, float] | None:
    """A cube option's label (lower case) and equity, or None for another line."""
    head = _CUBE_HEAD.match(line)
    value = _CUBE_VALUE.search(line, head.end() + 1) if head is not None else None
    if head is None or value is None:
        return None
    return line[head.end():value.start()].lower(), float(value.group(1))


class GnubgProtocol(EngineProtocol):
    """A running ``gnubg -t``; made by :func:`popen_gnubg`.

    ``id`` names the program, ``options`` holds ``Ply`` (the evaluation depth for checker play
    and cube decisions), ``Threads`` and ``EvalMode``.
    """

    dialect = "gnubg"

    def __init__(self, transport: LineTransport, *, ply: int = 0, timeout: float = 60.0) -> None:
        super().__init__(transport, timeout)
        self.id = {"name": "GNU Backgammon", "author": "the GNU Backgammon authors (Gary Wong et al.)"}
        self.options = {
            "Ply": Option("Ply", "spin", str(ply), 0, MAX_PLY),
            "Threads": Option("Threads", "spin", "1", 1, 48),  # gnubg's own maximum
            # Checker play by cubeful equity (gnubg's default) or cubeless; cube decisions stay cubeful.
            "EvalMode": Option("EvalMode", "combo", "cubeful", choices=("cubeless", "cubeful")),
        }
        self.ply = ply
        self._plies_set: int | None = None
        self._beavers_set: bool | None = False
        self._serial = 0

    async def initialize(self) -> None:
        """Quiet gnubg down, read its version, set the depth."""
        async with self._lock:
            lines = await self._request(_SETUP)
            version = next((m.group(1) for m in map(_BANNER.match, lines) if m), None)
            if version is None:
                raise EngineProtocolError(f"{self.command[0]} does not look like GNU Backgammon:\n{_text(lines)}")
            self.id["name"] = f"GNU Backgammon {version}"
            self.id["version"] = version
            threads = next((m.group(1) for m in map(_THREADS.match, lines) if m), None)
            if threads is not None:
                option = self.options["Threads"]
                self.options["Threads"] = Option(option.name, option.type, threads, option.min, option.max)
            await self._set_plies(self.ply)

    # -- the conversation (the caller holds the lock) -------------------------------------------
    async def _request(self, commands: Sequence[str]) -> list[str]:
        """Send ``commands`` and the end marker; return the output lines before the marker."""
        self._serial += 1
        serial = self._serial
        for command in (*commands, f"set prompt {_MARK}{serial}"):
            self.transport.send(command)
        asked = commands[-1] if commands else "ping"
        wait = self.timeout
        deadline = self._deadline()
        lines: list[str] = []
        while True:
            try:
                line = await self.transport.read_line(deadline)
            except EngineTimeoutError:
                raise EngineTimeoutError(f"GNU Backgammon did not answer {asked!r} within {wait:g} s") from None
            except EngineTerminatedError as error:
                raise EngineTerminatedError(
                    f"{error} while answering {asked!r}"
                    + (f":\n{_text(lines)}" if any(s.strip() for s in lines) else "")) from None
            mark = _MARK_LINE.search(line)
            if mark is None:
                lines.append(line)
            elif int(mark.group(1)) == serial:
                return lines
            else:
                lines = []  # the end of an earlier request that timed out

    async def _set_plies(self, ply: int) -> None:
        if ply != self._plies_set:
            try:
                await self._request(self._ply_commands(ply))
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
        return self.ply

    async def _exchange(self, state: GameState, limit: Limit | None, commands: Sequence[str]) -> list[str]:
        """Load ``state``, run ``commands``, check gnubg took the position as sent (the caller holds the lock)."""
        try:
            lines = await self._request([*self._load(state, limit), *commands])
        except EngineError:
            self._plies_set = self._beavers_set = None  # unknown now: set again next time
            raise
        shown = next((line for line in reversed(lines) if line.startswith("board:")), None)
        if shown is None or not _same_game(shown, state):
            raise EngineProtocolError(
                f"GNU Backgammon did not load {state.gnubg_id()} as sent:\n{_text(lines)}")
        return lines

    # -- settings -----------------------------------------------------------------------------
    async def configure(self, options: Mapping[str, object]) -> None:
        """Set ``Ply`` (both evaluation depths), ``Threads`` or ``EvalMode``; names are case-insensitive."""
        known = {name.lower(): option for name, option in self.options.items()}
        async with self._lock:
            for name, value in options.items():
                option = known.get(str(name).lower())
                if option is None:
                    raise EngineError(f"GNU Backgammon has no option {name!r} (it has {', '.join(self.options)})")
                try:
                    text = option.check(value)
                except ValueError as error:
                    raise EngineError(str(error)) from None
                if option.name == "Ply":
                    self.ply = int(text)
                    await self._set_plies(self.ply)
                elif option.name == "EvalMode":
                    switch = "on" if text == "cubeful" else "off"
                    await self._request([f"set evaluation chequerplay evaluation cubeful {switch}"])
                else:
                    await self._request([f"set threads {int(text)}"])
                self.options[option.name] = Option(option.name, option.type, text, option.min, option.max)

    async def ping(self) -> None:
        """Wait until gnubg answers (it is alive and idle)."""
        async with self._lock:
            await self._request([])

    # -- questions ----------------------------------------------------------------------------
    async def play(self, position: GameState | Position, dice: tuple[int, int] | None = None,
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
        hints = await self._hints(state, (d1, d2), legal, 1, limit)
        best = hints[0]
        p = best.probabilities
        info: dict[str, object] = {"depth": best.ply, "eq": best.equity, "pv": str(best.play)}
        if p is not None:  # GNU Backgammon evaluates every play it ranks; said only when it did
            info.update(pwin=p.win, pgammon=p.win_gammon, pbg=p.win_backgammon, plose_gammon=p.lose_gammon,
                        plose_bg=p.lose_backgammon)
        return PlayResult(best.play, info)

    async def analyse(self, position: GameState | Position, dice: tuple[int, int] | None = None,
                      multipv: int = 1, limit: Limit | None = None) -> list[Hint]:
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
            return [await self._pass_hint(state, limit)]
        return await self._hints(state, (d1, d2), legal, multipv, limit)

    async def _hints(self, state: GameState, dice: tuple[int, int], legal: LegalPlays, count: int,
                     limit: Limit | None) -> list[Hint]:
        _check_state(state)
        # gnubg shows the larger die first; sending it so keeps its echo of the ID identical.
        asked = state.replace(dice=(max(dice), min(dice)), double_offered=False, resignation=None)
        async with self._lock:
            lines = await self._exchange(asked, limit, [f"hint {count}"])
        where = f"{state.position.position_id()} with {dice[0]}-{dice[1]}"
        rows: list[tuple[int, str, float, Probabilities]] = []
        for i, line in enumerate(lines):
            found = _hint_row(line)
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
            rows.append((*found, probabilities))
        if not rows:
            if any(_NO_MOVES in line for line in lines):
                raise IllegalEngineMoveError(f"GNU Backgammon finds no legal move in {where}, but there are")
            raise EngineProtocolError(f"no hint from GNU Backgammon for {where}:\n{_text(lines)}")
        best = rows[0][2]
        hints = []
        for rank, (ply, text, equity, probabilities) in enumerate(rows[:count], start=1):
            try:
                play = legal.find(text)
            except GammonError as error:
                raise IllegalEngineMoveError(
                    f"GNU Backgammon's play {text!r} is not legal in {where}: {error}") from None
            hints.append(Hint(rank, play, probabilities, ply, best - equity, equity))
        return hints

    async def _pass_hint(self, state: GameState, limit: Limit | None) -> Hint:
        """The empty play, valued by gnubg's ``eval`` of the opponent's turn that follows."""
        _check_state(state)
        after = state.replace(position=state.position.flip(), dice=None, double_offered=False, resignation=None)
        ply = self._depth(limit)
        async with self._lock:
            lines = await self._exchange(after, limit, ["eval"])
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

    async def cube(self, position: GameState | Position, limit: Limit | None = None) -> CubeDecision:
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
            return CubeDecision.from_ubgi("nodouble", offered=False, info={"reason": "the side on roll may not double"},
                                          depth=0)
        # gnubg cannot load a pending double; it analyses the doubler's decision instead.
        asked = state.replace(dice=None, double_offered=False)
        async with self._lock:
            lines = await self._exchange(asked, limit, ["hint"])
        info: dict[str, object] = {"depth": self._depth(limit)}
        proper = None
        for line in lines:
            if (found := _CUBELESS.search(line)) is not None:
                info["depth"] = int(found.group(1))
                info["cubeless"] = float(found.group(2))
            elif (found := _PROPER.search(line)) is not None:
                proper = found.group(1).strip() or found.group(1)[-1]
            elif (option := _cube_option(line)) is not None:
                label, value = option
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
                return CubeDecision.from_ubgi("take" if offered else "nodouble", offered=offered, info=reason,
                                              depth=self._depth(limit))
            raise EngineProtocolError(f"no cube analysis from GNU Backgammon:\n{_text(lines)}")
        info["proper"] = proper
        action = _cube_action(proper, offered, info)
        nd, dt, dp = (info.get(k) for k in ("no_double", "double_take", "double_pass"))
        if offered and isinstance(dt, float) and isinstance(dp, float):
            info["eq"] = -min(dt, dp)
        elif not offered and isinstance(nd, float) and isinstance(dt, float) and isinstance(dp, float):
            info["eq"] = max(nd, min(dt, dp))
        return CubeDecision.from_ubgi(action, offered=offered, info=info, action=proper)



async def popen_gnubg(command: str | Sequence[str] | None = None, *, ply: int = 0,
                      timeout: float = 60.0) -> GnubgProtocol:
    """Start GNU Backgammon (default: :func:`find_gnubg`) and set it up as a calculator.

    ``-t -q -r`` are added to ``command`` when missing. ``timeout`` bounds every wait for an
    answer. EngineError when the program is missing or is not gnubg.
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
        transport = await LineTransport.popen(argv, name="GNU Backgammon", stderr=subprocess.STDOUT, env=env)
    except EngineError as error:
        raise EngineError(f"{NOT_FOUND} ({error})" if command is None else str(error)) from None
    return await GnubgProtocol(transport, ply=ply, timeout=timeout).started()


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
