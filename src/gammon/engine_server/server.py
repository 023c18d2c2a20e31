"""``gammon engine``: gammon (or GNU Backgammon, or any UBGI engine) served over UBGI.

One thread reads commands; a search runs in a worker thread, so ``stop`` and ``isready``
are answered while it thinks. Searches deepen one ply at a time and stream an ``info``
line per completed depth; ``stop`` (or the end of ``movetime``) answers at once with the
deepest result so far. An external engine (GNU Backgammon, another UBGI engine) answers each
request in one piece and cannot be stopped: gammon's own 0-ply answer stands by, and its
shallow result once it has one, so ``stop`` and ``movetime`` answer at once for it too; its
late answer is waited for before the next command (``isready`` answers once it is idle).
Every bad command gets an ``error`` line and the engine carries on; only ``quit`` or the end
of its input ends it.

Both dialects are understood: v0.1's ``setoption name N value V`` and v0.2's
``set KEY VALUE`` / ``get KEY`` / ``keys`` name the same settings (:data:`SETTINGS`).
"""

from __future__ import annotations

import io
import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import ClassVar, TextIO

from .. import __name__ as _package
from ..evaluation import CubeDecision, Hint
from ..players import LEVELS, parse_player
from ..bots.search import MAX_PLY
from ..errors import EngineCommandError, GammonError
from ..lines import Utf8Output, read_lines
from ..notation import MAX_CUBE, whole_number
from ..position import Color, Position
from ..state import GameState, GameStatus
from ..ubgi import ErrorCode, Option, error_line, format_key_line, format_number, format_option_line
from .backends import Backend, LocalBackend, StopSignal, backend_for, standby_backend

ENGINE_NAME = "gammon"
AUTHOR = "gammon developers"
PROTOCOL_VERSION = "0.2"
DEFAULT_PLAYER = "nn"
DEFAULT_PLY = 2
MAX_MULTIPV = 64
MAX_THREADS = 256
#: Seconds the engine spends on commands already read when told to quit.
QUIT_GRACE = 5.0
#: The largest value of each ``go`` limit: movetime in milliseconds (about 24 days; a timer
#: cannot wait for ever), the others counts that no search reaches.
GO_LIMITS = {"movetime": 2**31 - 1, "depth": 2**31 - 1, "nodes": 2**63 - 1, "trials": 2**63 - 1}
#: The deepest ply the first ``isready`` searches to compile the kernels (deeper ones run the same).
WARM_PLY = 2
#: Longest match length ``newsession`` takes.
MAX_MATCH_LENGTH = 25
#: What the reader queues in place of a line too long to read: no input line can be this,
#: since NULs are taken out of every line.
_CUT = "\x00cut"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version(_package)
    except Exception:  # noqa: BLE001 - not installed: running from a source tree
        return "0"


class CommandError(GammonError):
    """A command the engine refuses; becomes one ``error`` line."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        self.code = code
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Setting:
    """One engine setting under both of its names: v0.1's ``option`` and v0.2's ``key``."""

    option: Option
    key: str

    @property
    def name(self) -> str:
        return self.option.name

    def as_key(self) -> Option:
        o = self.option
        return Option(self.key, o.type, o.default, o.min, o.max, o.choices)


SETTINGS: tuple[Setting, ...] = (
    Setting(Option("Player", "string", DEFAULT_PLAYER), "engine.player"),
    Setting(Option("Ply", "spin", str(DEFAULT_PLY), 0, MAX_PLY), "engine.ply"),
    Setting(Option("Level", "combo", "expert", choices=tuple(LEVELS)), "engine.level"),
    # gammon's search runs on one thread: interfaces set Threads as a matter of course, so any
    # value is accepted (and shown by get), and none changes the speed. docs/ubgi.md says so.
    Setting(Option("Threads", "spin", "1", 1, MAX_THREADS), "engine.threads"),
    Setting(Option("Seed", "spin", "0", 0, 2**31 - 1), "engine.seed"),
    Setting(Option("Deterministic", "check", "true"), "engine.deterministic"),
    Setting(Option("EvalMode", "combo", "cubeful", choices=("cubeless", "cubeful")), "engine.eval_mode"),
    Setting(Option("MultiPV", "spin", "1", 1, MAX_MULTIPV), "engine.multipv"),
)
_BY_NAME = {s.name.lower(): s for s in SETTINGS} | {s.key: s for s in SETTINGS}


@dataclass
class SearchJob:
    """One ``go`` in flight: its thread, its stop signal, the best answer so far, and whether
    it has been answered.

    ``move`` and ``cube`` are the deepest results so far (UBGI words); ``standby_move`` and
    ``standby_cube`` gammon's own quick answer, ready for an external engine that cannot stop.
    """

    role: str
    stop: StopSignal
    number: int = 0
    thread: threading.Thread | None = None
    answered: bool = False
    done: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    move: str | None = None
    cube: str | None = None
    standby_move: str | None = None
    standby_cube: str | None = None
    trials: int = 0  #: ``go ... trials N`` (or ``nodes N``, a budget shared by the plays): plays by rollouts
    budget: bool = False

    def best(self) -> str | None:
        """The answer line ``stop`` would send now, or None while nothing is ready."""
        move = self.move or self.standby_move
        cube = self.cube or self.standby_cube
        if self.role == "chequer":
            return None if move is None else f"bestmove {move}"
        if self.role == "cube":
            return None if cube is None else f"bestcube {cube}"
        return None if move is None or cube is None else f"bestturn cube={cube} move={move}"


class UbgiEngine:
    """The engine's state and command handlers; :meth:`run` serves a stream of lines."""

    def __init__(self, player: str = DEFAULT_PLAYER, ply: int | None = None,
                 output: TextIO | None = None) -> None:
        self.output = output if output is not None else Utf8Output(sys.stdout)
        self._write_lock = threading.Lock()
        self.values: dict[str, str] = {s.name: s.option.default or "" for s in SETTINGS}
        self._backend: Backend | None = None
        self._backend_lock = threading.Lock()
        self._standby: LocalBackend | None = None
        self._warm = False  # the kernels have been compiled (the first isready does it)
        self._set_player(player, explicit_ply=ply)
        # The game as the interface has described it: rules, score, cube, turn and, once a
        # position command has come (``positioned``), the position and dice.
        self.game = GameState()
        self.positioned = False
        self.search: SearchJob | None = None
        self._go_count = 0  # gos started
        self._gos_read = 0  # gos read (some may wait in the queue)
        self._stop_up_to = 0  # every go up to this number has been told to stop
        self._queue: queue.Queue[str | None] = queue.Queue()
        self.running = True

    # -- output ---------------------------------------------------------------------------
    def send(self, line: str) -> None:
        with self._write_lock:
            try:
                self.output.write(line + "\n")
                self.output.flush()
            except (BrokenPipeError, ValueError):
                self.running = False

    # -- settings -------------------------------------------------------------------------
    def _set_player(self, text: str, explicit_ply: int | None = None) -> None:
        """``Player`` also sets Ply and Level when written with them (``pubeval:1:advanced``)."""
        try:
            spec = parse_player(text)
        except GammonError as error:
            raise CommandError(ErrorCode.BAD_VALUE, str(error)) from None
        if spec.command:
            self.values["Player"] = str(spec)
        else:
            self.values["Player"] = spec.name
            written = text.split(":")[1:]
            if explicit_ply is not None:
                self.values["Ply"] = str(explicit_ply)
            elif any(whole_number(part.strip()) is not None for part in written):
                self.values["Ply"] = str(spec.ply)
            if any(part.strip().lower() in LEVELS for part in written):
                self.values["Level"] = spec.level
        self.backend_close()

    def set_value(self, name: str, value: str) -> None:
        setting = _BY_NAME.get(name) or _BY_NAME.get(name.lower())
        if setting is None:
            raise CommandError(ErrorCode.BAD_ARGUMENT,
                               f"unknown option {name!r}: expected one of {', '.join(s.name for s in SETTINGS)}")
        if setting.name == "Player":
            if not value.strip():
                raise CommandError(ErrorCode.BAD_VALUE, "Player: expected NAME[:PLY][:LEVEL], e.g. 'nn:2'")
            self._set_player(value.strip())
            return
        value = value.strip()
        if setting.option.type == "spin":
            # Only ASCII digits are numbers: int() would also take "٣", "+3" and "1_0".
            number = whole_number(value)
            if number is None:
                o = setting.option
                raise CommandError(ErrorCode.BAD_VALUE,
                                   f"option {o.name}: expected a whole number {o.min}..{o.max}, got {value[:20]!r}")
            value = str(number)
        try:
            text = setting.option.check(value)
        except ValueError as error:
            raise CommandError(ErrorCode.BAD_VALUE, str(error)) from None
        changed = self.values[setting.name] != text
        self.values[setting.name] = text
        if changed and setting.name == "Level":
            self.backend_close()  # Ply needs no new player: every search is given its depth
        if changed and setting.name == "Threads" and self._backend is not None:
            self._backend.threads(int(text))

    @property
    def ply(self) -> int:
        return int(self.values["Ply"])

    @property
    def multipv(self) -> int:
        return int(self.values["MultiPV"])

    @property
    def cubeful(self) -> bool:
        return self.values["EvalMode"] == "cubeful"

    def player_name(self) -> str:
        name = self.values["Player"]
        if name.startswith("ubgi:"):
            return name
        level = self.values["Level"]
        return f"{name}:{self.ply}" + (f":{level}" if level != "expert" else "")

    def backend_close(self) -> None:
        """Drop the player (a setting changed it); an external engine's process stops."""
        with self._backend_lock:
            backend, self._backend = self._backend, None
            self._warm = False  # another player may run kernels of its own
        if backend is not None:
            backend.close()

    def backend(self) -> Backend:
        """The player that answers searches, made on first use (loading a net takes a moment)."""
        with self._backend_lock:
            if self._backend is None:
                try:
                    self._backend = backend_for(self.player_name(), self.ply)
                    if self.values["Threads"] != "1":
                        self._backend.threads(int(self.values["Threads"]))
                except GammonError as error:
                    raise CommandError(ErrorCode.BAD_VALUE, f"Player: {error}") from None
            return self._backend

    # -- the command loop -------------------------------------------------------------------
    def run(self, lines: io.IOBase | TextIO | Iterable[str | bytes]) -> None:
        """Serve until ``quit`` or the end of input; nothing escapes but an ``error`` line.

        This thread reads; a second one carries the commands out in order, each after the
        search before it has answered (so ``isready`` answers once the engine is idle).
        ``stop`` acts at once: it ends the running search and any ``go`` still waiting (each
        then answers after its first depth). At the end of input the commands already read
        are carried out; at ``quit`` too, for at most :data:`QUIT_GRACE` seconds.

        ``lines`` is read as :mod:`gammon.lines` reads every input: bytes (a text stream's own),
        one line decoded at a time with replacement, a byte-order mark dropped, a line over a
        megabyte refused with an ``error`` line; none of them ends the engine.
        """
        worker = threading.Thread(target=self._dispatch, name="ubgi-commands", daemon=True)
        worker.start()
        grace: float | None = None
        for read in read_lines(lines):
            if read.cut:
                self._queue.put(_CUT)
                continue
            line = read.text.strip().replace("\x00", "")
            word = line.split(maxsplit=1)[0] if line else ""
            if word == "quit":
                grace = QUIT_GRACE
                break
            if word == "stop":
                self._stop_up_to = self._gos_read
                search = self.search
                if search is not None and search.number <= self._stop_up_to:
                    self._finish_early(search)
                continue
            if word == "go":
                self._gos_read += 1
            self._queue.put(line)
            if not self.running:
                break
        self._queue.put(None)
        worker.join(timeout=grace)
        self.shutdown()

    def _dispatch(self) -> None:
        while self.running:
            line = self._queue.get()
            search = self.search
            if search is not None:
                search.done.wait()
                if search.thread is not None:
                    # A stopped search of gammon's ends within a fraction of a second; an external
                    # engine's request runs to its end, and its late answer is dropped here.
                    search.thread.join()
            if line is None:
                return
            if self.running:
                self.handle(line)

    def handle(self, raw: str) -> None:
        """Carry out one command line; any failure becomes an ``error`` line."""
        if raw == _CUT:
            self.send(error_line(ErrorCode.BAD_ARGUMENT, "a line longer than a megabyte: not read"))
            return
        line = raw.strip().replace("\x00", "")
        if not line:
            return
        words = line.split()
        command = words[0]
        handler = self.COMMANDS.get(command)
        try:
            if handler is None:
                raise CommandError(ErrorCode.UNKNOWN_COMMAND, f"unknown command {command[:40]!r}")
            handler(self, words[1:])
        except CommandError as error:
            self.send(error_line(error.code, str(error)))
        except EngineCommandError as error:
            self.send(error_line(_code(error.code), error.message))
        except GammonError as error:
            self.send(error_line(ErrorCode.BAD_ARGUMENT, str(error)))
        except Exception as error:  # noqa: BLE001 - a bug of ours: say so, keep serving
            traceback.print_exc(file=sys.stderr)
            self.send(error_line(ErrorCode.BAD_ARGUMENT, f"internal error on {command[:40]!r}: {type(error).__name__}"))

    def shutdown(self) -> None:
        self.running = False
        search = self.search
        if search is not None:
            search.stop.set()
        self._queue.put(None)

    # -- handshake and settings ---------------------------------------------------------------
    def cmd_ubgi(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME} {_version()}")
        self.send(f"id author {AUTHOR}")
        self.send(f"id version {_version()}")
        for setting in SETTINGS:
            option = setting.option
            default = self.values[setting.name]
            self.send(format_option_line(Option(option.name, option.type, default, option.min, option.max,
                                                option.choices)))
        self.send("ubgiok")

    def cmd_isready(self, args: list[str]) -> None:
        """Load the player and, the first time, compile its kernels, so the first search is quick."""
        backend = self.backend()
        if not self._warm:
            backend.warm(min(self.ply, WARM_PLY))
            if not backend.stoppable:
                if self._standby is None:
                    self._standby = standby_backend()
                self._standby.warm(0)
            self._warm = True
        self.send("readyok")

    def cmd_setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            raise CommandError(ErrorCode.BAD_ARGUMENT, "expected: setoption name <name> [value <value>]")
        words = args[1:]
        if "value" in words:
            at = words.index("value")
            name, value = " ".join(words[:at]), " ".join(words[at + 1:])
        else:
            name, value = " ".join(words), ""
        if not name:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "setoption: missing option name")
        self.set_value(name, value)

    def cmd_set(self, args: list[str]) -> None:
        if len(args) < 2:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "expected: set <key> <value>")
        self.set_value(args[0], " ".join(args[1:]))

    def cmd_get(self, args: list[str]) -> None:
        if len(args) != 1:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "expected: get <key>")
        setting = _BY_NAME.get(args[0]) or _BY_NAME.get(args[0].lower())
        if setting is None:
            raise CommandError(ErrorCode.BAD_ARGUMENT, f"unknown key {args[0][:60]!r}")
        self.send(f"value {args[0]} {self.values[setting.name]}")

    def cmd_keys(self, args: list[str]) -> None:
        self.send(f"proto {PROTOCOL_VERSION}")
        for setting in SETTINGS:
            key = setting.as_key()
            self.send(format_key_line(Option(key.name, key.type, self.values[setting.name], key.min, key.max,
                                             key.choices)))
        self.send("keysok")

    # -- the game context -----------------------------------------------------------------
    def cmd_newgame(self, args: list[str]) -> None:
        """Forget the position, dice and cube; the session's rules and score stay."""
        self.game = self.game.replace(position=Position(), dice=None, cube=1, cube_owner=None,
                                      double_offered=False, resignation=None, crawford=False)
        self.positioned = False

    def cmd_newsession(self, args: list[str]) -> None:
        options = _pairs(args, "newsession")
        kind = options.pop("type", None)
        if kind not in ("money", "match"):
            raise CommandError(ErrorCode.BAD_ARGUMENT, "newsession: expected type money|match")
        length = 0
        if kind == "match":
            text = options.pop("length", None)
            length = whole_number(text or "", 1, MAX_MATCH_LENGTH)  # type: ignore[assignment]
            if length is None:
                raise CommandError(ErrorCode.BAD_ARGUMENT, f"newsession: a match needs length 1-{MAX_MATCH_LENGTH}, "
                                                           f"got {(text or '')[:20]!r}")
        jacoby = _on_off(options.pop("jacoby", "off"), "jacoby")
        crawford = _on_off(options.pop("crawford", "on"), "crawford")
        beavers = _on_off(options.pop("beavers", "off"), "beavers")
        if options:
            raise CommandError(ErrorCode.BAD_ARGUMENT, f"newsession: unknown {', '.join(options)}")
        if length and (jacoby or beavers):
            raise CommandError(ErrorCode.BAD_ARGUMENT, "newsession: jacoby and beavers are money-play rules")
        if length and not crawford:
            raise CommandError(ErrorCode.UNSUPPORTED_FEATURE, "newsession: gammon plays matches with the Crawford rule")
        self.game = GameState(match_length=length, jacoby=jacoby, beavers=beavers)
        self.positioned = False

    def _update(self, **changes: object) -> None:
        """Change the described game; a change that makes it impossible is refused."""
        try:
            self.game = self.game.replace(**changes)
        except GammonError as error:
            raise CommandError(ErrorCode.BAD_ARGUMENT, str(error)) from None

    def cmd_setscore(self, args: list[str]) -> None:
        scores = [whole_number(a) for a in args]
        if len(scores) != 2 or None in scores:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "expected: setscore <p0> <p1> (points, whole numbers)")
        # p0 is GNU Backgammon's player 0 (Color.BLACK), p1 its player 1 (Color.WHITE).
        self._update(score=(scores[0], scores[1]))

    def cmd_setcube(self, args: list[str]) -> None:
        options = _pairs(args, "setcube")
        value = options.pop("value", None)
        owner = options.pop("owner", "center")
        if value is None:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "expected: setcube value <N> owner center|p0|p1")
        # Refused here, not at the next go: no notation carries a cube above MAX_CUBE.
        cube = whole_number(value, 1, MAX_CUBE)
        if cube is None or cube & (cube - 1):
            raise CommandError(ErrorCode.BAD_ARGUMENT,
                               f"setcube: value must be a power of two from 1 to {MAX_CUBE}, got {value[:20]!r}")
        owners = {"center": None, "centre": None, "p0": Color.BLACK, "p1": Color.WHITE}
        if owner not in owners or options:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "setcube: owner must be center, p0 or p1")
        self._update(cube=cube, cube_owner=owners[owner])

    def cmd_setturn(self, args: list[str]) -> None:
        turns = {"p0": Color.BLACK, "p1": Color.WHITE}
        if len(args) != 1 or args[0] not in turns:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "expected: setturn p0|p1")
        position = self.game.position
        if position.turn != turns[args[0]]:
            position = position.flip()
        self._update(position=position, double_offered=False)

    def cmd_position(self, args: list[str]) -> None:
        if len(args) < 2:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "expected: position gnubgid|xgid|bpn <text>")
        form, text = args[0], " ".join(args[1:])
        if form not in ("gnubgid", "xgid", "bpn"):
            raise CommandError(ErrorCode.UNSUPPORTED_FEATURE,
                               f"position form {form[:20]!r}: expected gnubgid, xgid or bpn")
        try:
            if form == "gnubgid":
                if ":" in text:
                    state = GameState.from_gnubg_id(text)
                    if not state.match_length:  # a Match ID carries no money-play rules: the session's
                        state = state.replace(jacoby=self.game.jacoby, beavers=self.game.beavers)
                else:  # a bare Position ID: the rest of the game as described so far
                    position = Position.from_position_id(text, self.game.position.turn)
                    state = self.game.replace(position=position, dice=None, double_offered=False,
                                              resignation=None)
            elif form == "xgid":
                state = GameState.from_xgid(text)
            else:
                state = GameState.from_bpn(text)
        except GammonError as error:
            raise CommandError(ErrorCode.BAD_ARGUMENT, f"position {form}: {error}") from None
        if state.status != GameStatus.PLAYING:
            # A Match ID written outside a game (status "no game", or a game already decided)
            # still shows a position to analyse, as long as the score leaves a game to play.
            try:
                state = state.replace(status=GameStatus.PLAYING, resignation=None)
            except GammonError:
                raise CommandError(ErrorCode.BAD_ARGUMENT, f"position {form}: the match is over") from None
        if state.position.winner() is not None:
            raise CommandError(ErrorCode.BAD_ARGUMENT, f"position {form}: a side has borne off every checker")
        self.game, self.positioned = state, True

    def cmd_dice(self, args: list[str]) -> None:
        dice = [whole_number(a, 1, 6) for a in args]
        if len(dice) != 2 or None in dice:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "expected: dice <d1> <d2>, each 1-6")
        if not self.positioned:
            raise CommandError(ErrorCode.MISSING_CONTEXT, "dice before any position")
        if self.game.double_offered:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "dice while a double is pending: answer the cube first")
        self.game = self.game.replace(dice=(dice[0], dice[1]))

    # -- searches -------------------------------------------------------------------------
    def cmd_go(self, args: list[str]) -> None:
        options = _pairs(args, "go")
        role = options.pop("role", "chequer")
        if role == "checker":
            role = "chequer"
        if role not in ("chequer", "cube", "turn"):
            raise CommandError(ErrorCode.BAD_ARGUMENT, "go: role must be chequer, cube or turn")
        limits: dict[str, int] = {}
        for name, most in GO_LIMITS.items():
            if name in options:
                text = options.pop(name)
                value = whole_number(text, 0, most)
                if value is None:
                    raise CommandError(ErrorCode.BAD_ARGUMENT,
                                       f"go: {name} must be a whole number 0-{most}, got {text[:20]!r}")
                limits[name] = value
        if options:
            raise CommandError(ErrorCode.BAD_ARGUMENT, f"go: unknown argument {next(iter(options))[:20]!r}")
        state = self.game
        if not self.positioned:
            raise CommandError(ErrorCode.MISSING_CONTEXT, "go before any position")
        if role in ("chequer", "turn") and state.dice is None:
            raise CommandError(ErrorCode.MISSING_CONTEXT, f"go role {role} without dice: send dice <d1> <d2>")
        if role == "chequer" and state.double_offered:
            raise CommandError(ErrorCode.MISSING_CONTEXT, "a double is pending: go role cube answers it")
        if role == "turn" and state.double_offered:
            raise CommandError(ErrorCode.BAD_ARGUMENT, "go role turn with a double pending: use go role cube")
        depth = min(self.ply, limits.get("depth", self.ply))
        backend = self.backend()
        self._join_search()
        self._go_count += 1
        stop = StopSignal()
        if self._go_count <= self._stop_up_to:
            stop.set()  # a stop arrived while this go waited: answer after the first depth
        search = SearchJob(role, stop, self._go_count)
        search.trials, search.budget = limits.get("trials") or limits.get("nodes") or 0, not limits.get("trials")
        self.search = search
        if role in ("chequer", "turn"):
            self.game = state.replace(dice=None)  # each go uses up the dice
        target = self._make_search(search, backend, state, role, depth)
        search.thread = threading.Thread(target=target, name="ubgi-search", daemon=True)
        search.thread.start()
        if "movetime" in limits:
            timer = threading.Timer(limits["movetime"] / 1000.0, self._finish_early, args=(search,))
            timer.daemon = True
            timer.start()

    def _join_search(self) -> None:
        """Wait for a search answered early (by stop) to finish its depth, or an external engine
        its request: neither the player nor the engine is shared."""
        previous = self.search
        if previous is not None and previous.thread is not None:
            previous.thread.join()

    def _make_search(self, search: SearchJob, backend: Backend, state: GameState, role: str, depth: int):
        seed = int(self.values["Seed"])
        deterministic = self.values["Deterministic"] == "true"
        multipv, cubeful = self.multipv, self.cubeful
        number = self._go_count

        def run() -> None:
            start = time.perf_counter()
            try:
                backend.reseed(seed, state, deterministic, number)
                if not backend.stoppable:
                    self._stand_by(search, state, cubeful)
                if role == "cube":
                    self._search_cube(search, backend, state, depth, cubeful, start)
                else:
                    self._search_play(search, backend, state, role, depth, multipv, cubeful, start)
            except EngineCommandError as error:  # an external engine's refusal, passed on for the role asked
                self._answer(search, error_line(_code(error.code), _refused(role, error)))
            except Exception as error:  # noqa: BLE001 - keep serving whatever a backend does
                if not isinstance(error, GammonError):
                    traceback.print_exc(file=sys.stderr)
                self._answer(search, error_line(ErrorCode.BAD_ARGUMENT, f"search failed: {error}"))

        return run

    def _stand_by(self, search: SearchJob, state: GameState, cubeful: bool) -> None:
        """Before asking an engine that cannot stop: gammon's own 0-ply answer, ready for a
        ``stop`` (or the end of ``movetime``) that comes first, and given at once if one has."""
        if self._standby is None:
            self._standby = standby_backend()
        quiet = StopSignal()
        if search.role != "cube":
            hints = self._standby.analyse(state, 0, 1, cubeful, quiet, lambda ply, hints, choice: None)
            search.standby_move = hints[0].play.ubgi()
        if search.role != "chequer":
            search.standby_cube = self._standby.cube(state, 0, cubeful, quiet).ubgi()
        if search.stop.is_set():
            self._finish_early(search)

    def _search_play(self, search: SearchJob, backend: Backend, state: GameState, role: str, depth: int,
                     multipv: int, cubeful: bool, start: float) -> None:
        if role == "turn":
            decision = backend.cube(state, depth, cubeful, search.stop)
            self._send_cube_info(search, decision, depth, start)
            search.cube = decision.ubgi()

        def report(ply: int, hints: list[Hint], choice: int) -> None:
            with search.lock:
                if search.answered:
                    return  # stop or movetime has answered: nothing may follow the answer
                search.move = hints[choice].play.ubgi()
                elapsed = int(1000 * (time.perf_counter() - start))
                self.send(_line("info role chequer depth", ply, "time_ms", elapsed, _hint_values(hints[0]), "pv", search.move))

        if search.trials and isinstance(backend, LocalBackend):
            seed = int(self.values["Seed"])
            hints = backend.rollout(state, search.trials, search.budget, cubeful, seed, search.stop, report)
        else:
            hints = backend.analyse(state, depth, max(multipv, 1), cubeful, search.stop, report)
        if multipv > 1 and hints:
            with search.lock:
                for hint in hints[:multipv] if not search.answered else []:
                    self.send(_line("info multipv", hint.rank, "depth", hint.ply, _hint_values(hint), "pv", hint.play.ubgi()))
        self._answer(search, search.best())

    def _search_cube(self, search: SearchJob, backend: Backend, state: GameState, depth: int, cubeful: bool,
                     start: float) -> None:
        decision = backend.cube(state, depth, cubeful, search.stop)
        self._send_cube_info(search, decision, depth, start)
        search.cube = decision.ubgi()
        self._answer(search, search.best())

    def _send_cube_info(self, search: SearchJob, decision: CubeDecision, depth: int, start: float) -> None:
        elapsed = int(1000 * (time.perf_counter() - start))
        parts = [f"info role cube depth {decision.depth if decision.depth is not None else depth} time_ms {elapsed}"]
        values = {key: decision.info[key] for key in ("eq", "mwc") if isinstance(decision.info.get(key), (int, float))}
        values.update((key, value) for key, value in (("nd", decision.no_double), ("dt", decision.double_take),
                                                      ("dp", decision.double_pass)) if value is not None)
        for key in ("eq", "mwc", "nd", "dt", "dp"):
            if key in values:
                parts.append(f"{key} {format_number(float(values[key]))}")  # type: ignore[arg-type]
        with search.lock:
            if not search.answered:
                self.send(" ".join(parts))

    def _answer(self, search: SearchJob, line: str | None) -> None:
        """Send a search's one answer, unless ``stop`` or ``movetime`` has already sent it."""
        with search.lock:
            if search.answered:
                return
            search.answered = True
            self.send(line or error_line(ErrorCode.BAD_ARGUMENT, "the search found no answer"))
        search.done.set()

    def _finish_early(self, search: SearchJob) -> None:
        """``stop`` or the end of ``movetime``: answer now with the best so far, if there is one."""
        search.stop.set()
        with search.lock:
            line = None if search.answered else search.best()
            if line is None:
                return  # answered already, or the first depth is still running: it answers once done
            search.answered = True
            self.send(line)
        search.done.set()

    def cmd_stop(self, args: list[str]) -> None:
        search = self.search
        if search is not None and not search.answered:
            self._finish_early(search)  # only reached when handle() is called directly

    def cmd_eval(self, args: list[str]) -> None:
        if not self.positioned:
            raise CommandError(ErrorCode.MISSING_CONTEXT, "eval before any position")
        self._join_search()
        values = self.backend().evaluate(self.game, self.ply, self.cubeful)
        self.send("eval " + " ".join(f"{k} {format_number(v)}" for k, v in values.items()))

    def cmd_quit(self, args: list[str]) -> None:
        self.shutdown()

    COMMANDS: ClassVar[dict[str, Callable[[UbgiEngine, list[str]], None]]] = {
        "ubgi": cmd_ubgi,
        "isready": cmd_isready,
        "setoption": cmd_setoption,
        "set": cmd_set,
        "get": cmd_get,
        "keys": cmd_keys,
        "newgame": cmd_newgame,
        "newsession": cmd_newsession,
        "setscore": cmd_setscore,
        "setcube": cmd_setcube,
        "setturn": cmd_setturn,
        "position": cmd_position,
        "dice": cmd_dice,
        "go": cmd_go,
        "stop": cmd_stop,
        "eval": cmd_eval,
        "quit": cmd_quit,
    }


def _line(*parts: object) -> str:
    """Words joined by single spaces, the empty ones left out."""
    return " ".join(text for text in map(str, parts) if text)


def _hint_values(hint: Hint) -> str:
    """The ``eq`` and chances of an ``info`` line: only those the player gave (a peer that sends
    only ``bestmove`` gives none, and none are made up)."""
    parts = [] if hint.equity is None else [f"eq {format_number(hint.equity)}"]
    p = hint.probabilities
    if p is not None:
        parts.append(f"pwin {format_number(p.win)} pgammon {format_number(p.win_gammon)} "
                      f"pbg {format_number(p.win_backgammon)} plose_gammon {format_number(p.lose_gammon)} "
                      f"plose_bg {format_number(p.lose_backgammon)}")
    return " ".join(parts)


def _refused(role: str, error: EngineCommandError) -> str:
    """An external engine's refusal in the words of the ``go`` asked of the relay: ``go role turn``
    is relayed as a cube question and a play, so the engine's words alone would name another role.

    >>> _refused("turn", EngineCommandError("unsupported_feature", "go_role_cube", "go role cube"))
    "go role turn: the engine refused 'go role cube': go_role_cube"
    """
    command = error.command.strip()
    asked = repr(" ".join(command.split()[:3])) if command.startswith("go ") else repr(command) if command \
        else "the request"
    return f"go role {role}: the engine refused {asked}" + (f": {error.message}" if error.message else "")


def _code(text: str) -> ErrorCode:
    """An external engine's error code passed on, or bad_argument for one outside the spec."""
    try:
        return ErrorCode(text)
    except ValueError:
        return ErrorCode.BAD_ARGUMENT


def _pairs(args: list[str], command: str) -> dict[str, str]:
    if len(args) % 2:
        raise CommandError(ErrorCode.BAD_ARGUMENT, f"{command}: expected name/value pairs, got {' '.join(args)[:60]!r}")
    return dict(zip(args[::2], args[1::2]))


def _on_off(text: str, name: str) -> bool:
    if text not in ("on", "off"):
        raise CommandError(ErrorCode.BAD_ARGUMENT, f"newsession: {name} must be on or off, got {text[:20]!r}")
    return text == "on"


def serve(player: str = DEFAULT_PLAYER, ply: int | None = None, *, stdin: TextIO | None = None,
          stdout: TextIO | None = None) -> int:
    """Run the engine on stdin/stdout until ``quit`` or end of input: stdin read as bytes (see
    :meth:`UbgiEngine.run`), stdout written as UTF-8 whatever the locale says."""
    engine = UbgiEngine(player, ply, stdout if stdout is not None else Utf8Output(sys.stdout))
    engine.run(stdin if stdin is not None else sys.stdin)
    search = engine.search
    if search is not None and search.thread is not None:
        search.thread.join(timeout=5)
    engine.backend_close()
    return 0
