"""UBGI, backgammon's UCI: its lines, read and written (``info``, ``option`` and ``key``
lines, ``error`` lines, the position command).

Both ends of the protocol use these, so the engine (:mod:`gammon.engine_server`), the
client (:mod:`gammon.engine`) and the conformance suite (:mod:`gammon.conformance`) agree on
one reading of the wire. Plays are the play layer's: :meth:`Play.ubgi() <gammon.play.Play.ubgi>`
writes them, :meth:`LegalPlays.parse_ubgi() <gammon.play.LegalPlays.parse_ubgi>` reads them.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from .state import GameState


class ErrorCode(str, enum.Enum):  # noqa: UP042 - str() names the member, as StrEnum's would not
    """The codes of an ``error <code> <message>`` line."""

    UNKNOWN_COMMAND = "unknown_command"
    BAD_ARGUMENT = "bad_argument"
    BAD_VALUE = "bad_value"
    MISSING_CONTEXT = "missing_context"
    UNSUPPORTED_FEATURE = "unsupported_feature"
    SEARCH_IN_PROGRESS = "search_in_progress"

    def __str__(self) -> str:
        return self.value


#: Longest message an ``error`` line carries (bad input is quoted, and may be long).
MAX_ERROR_MESSAGE = 240


def error_line(code: ErrorCode, message: str) -> str:
    """``error <code> <message>`` on one line, whatever the message holds (cut if very long)."""
    text = " ".join(message.split())
    if len(text) > MAX_ERROR_MESSAGE:
        text = text[: MAX_ERROR_MESSAGE - 3] + "..."
    return f"error {code.value} {text}".rstrip()


# -- info lines ---------------------------------------------------------------------------
#: Keys of ``info`` lines whose value is a number; ``pv`` takes the rest of the line.
INFO_NUMBERS = frozenset({
    "time_ms", "nodes", "nps", "depth", "multipv", "eq", "mwc", "pwin", "pgammon", "pbg",
    "plose_gammon", "plose_bg", "trials", "seldepth", "nd", "dt", "dp",
})


def parse_info(text: str) -> dict[str, object]:
    """The keys and values of an ``info`` line (numbers converted); unknown keys kept as text.

    >>> parse_info("info role chequer depth 2 eq 0.162 pv 8/5 6/5")
    {'role': 'chequer', 'depth': 2, 'eq': 0.162, 'pv': '8/5 6/5'}
    """
    words = text.split()
    if words and words[0] == "info":
        words = words[1:]
    info: dict[str, object] = {}
    i = 0
    while i < len(words):
        key = words[i]
        if key == "pv":
            info["pv"] = " ".join(words[i + 1:])
            break
        if key == "string":
            info["string"] = " ".join(words[i + 1:])
            break
        value = words[i + 1] if i + 1 < len(words) else ""
        if key in INFO_NUMBERS:
            info[key] = _number(value)
        else:
            info[key] = value
        i += 2
    return info


#: Numbers as engines write them, in ASCII digits only (``int``/``float`` also read ``٣``).
_INTEGER = re.compile(r"[+-]?[0-9]{1,30}")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]*)?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?")


def _number(text: str) -> float | int | str:
    if _INTEGER.fullmatch(text):
        return int(text)
    if _DECIMAL.fullmatch(text):
        return float(text)
    return text


def format_number(value: float) -> str:
    """Six decimals, the precision engines print."""
    return f"{value:.6f}"


# -- options ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Option:
    """One engine setting, from a v0.1 ``option`` line or a v0.2 ``key`` line.

    ``type`` is the v0.1 word (``spin``, ``check``, ``string``, ``combo``, ``button``) or the
    v0.2 word (``int``, ``bool``, ``enum``, ``string``, ``float``); ``choices`` lists a combo's or
    enum's values.
    """

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()

    def check(self, value: object) -> str:
        """``value`` as the engine's text, or ValueError saying what this option takes."""
        if isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        if self.type in ("spin", "int"):
            if not _INTEGER.fullmatch(text):
                raise ValueError(f"option {self.name}: expected an integer, got {text!r}")
            number = int(text)
            if (self.min is not None and number < self.min) or (self.max is not None and number > self.max):
                raise ValueError(f"option {self.name}: expected {self.min}..{self.max}, got {number}")
        elif self.type in ("check", "bool"):
            if text.lower() not in ("true", "false"):
                raise ValueError(f"option {self.name}: expected true or false, got {text!r}")
            text = text.lower()
        elif self.type in ("combo", "enum") and self.choices and text not in self.choices:
            raise ValueError(f"option {self.name}: expected one of {', '.join(self.choices)}, got {text!r}")
        return text


def parse_option_line(line: str) -> Option:
    """A v0.1 ``option name <N> type <T> [default <D>] [min <m>] [max <M>] [var <v>]...`` line.

    Names and defaults may hold spaces (everything up to the next keyword).

    >>> parse_option_line("option name Ply type spin default 2 min 0 max 3")
    Option(name='Ply', type='spin', default='2', min=0, max=3, choices=())
    """
    words = line.split()
    if len(words) < 5 or words[0] != "option" or words[1] != "name":
        raise ValueError(f"not an option line: {line!r}")
    keywords = {"name", "type", "default", "min", "max", "var"}
    fields: dict[str, list[str]] = {}
    choices: list[str] = []
    key = None
    current: list[str] = []
    for word in words[1:]:
        if word in keywords and not (key == "name" and not current):
            if key is not None:
                if key == "var":
                    choices.append(" ".join(current))
                else:
                    fields[key] = current
            key, current = word, []
        else:
            current.append(word)
    if key is not None:
        if key == "var":
            choices.append(" ".join(current))
        else:
            fields[key] = current
    if "name" not in fields or "type" not in fields:
        raise ValueError(f"option line without name or type: {line!r}")
    default = " ".join(fields["default"]) if "default" in fields else None
    if default == "<empty>":
        default = ""
    return Option(
        " ".join(fields["name"]), " ".join(fields["type"]), default,
        _integer(fields.get("min")), _integer(fields.get("max")), tuple(choices),
    )


def _integer(words: list[str] | None) -> int | None:
    if not words:
        return None
    try:
        return int(words[0])
    except ValueError:
        return None


def format_option_line(option: Option) -> str:
    """The v0.1 line announcing ``option``."""
    kind = {"int": "spin", "bool": "check", "enum": "combo"}.get(option.type, option.type)
    parts = [f"option name {option.name} type {kind}"]
    if option.default is not None:
        parts.append(f"default {option.default if option.default != '' else '<empty>'}")
    if option.min is not None:
        parts.append(f"min {option.min}")
    if option.max is not None:
        parts.append(f"max {option.max}")
    parts.extend(f"var {choice}" for choice in option.choices)
    return " ".join(parts)


def parse_key_line(line: str) -> Option:
    """A v0.2 ``key <name> <type> <range> <default>`` line.

    >>> parse_key_line("key engine.eval_mode enum cubeless|cubeful cubeful")
    Option(name='engine.eval_mode', type='enum', default='cubeful', min=None, max=None, choices=('cubeless', 'cubeful'))
    """
    words = line.split()
    if len(words) < 3 or words[0] != "key":
        raise ValueError(f"not a key line: {line!r}")
    name, kind = words[1], words[2]
    span = words[3] if len(words) > 3 else "-"
    default = " ".join(words[4:]) if len(words) > 4 else None
    low = high = None
    choices: tuple[str, ...] = ()
    if kind == "enum" or (kind not in ("bool", "check") and "|" in span):
        choices = tuple(span.split("|"))
    elif ".." in span:
        first, _, last = span.partition("..")
        low, high = _integer([first]), _integer([last])
    return Option(name, kind, default, low, high, choices)


def format_key_line(option: Option) -> str:
    """The v0.2 line announcing ``option`` (its name already the v0.2 key)."""
    kind = {"spin": "int", "check": "bool", "combo": "enum"}.get(option.type, option.type)
    if option.choices:
        span = "|".join(option.choices)
    elif kind == "bool":
        span = "true|false"
    elif option.min is not None or option.max is not None:
        span = f"{'' if option.min is None else option.min}..{'' if option.max is None else option.max}"
    else:
        span = "-"
    default = "-" if option.default in (None, "") else option.default
    return f"key {option.name} {kind} {span} {default}"


# -- positions ----------------------------------------------------------------------------
def position_command(state: GameState) -> str:
    """The mandatory ``position gnubgid POSID:MATCHID`` form: position, cube, score, turn, dice."""
    return f"position gnubgid {state.gnubg_id()}"


__all__ = [
    "ErrorCode",
    "Option",
    "error_line",
    "format_key_line",
    "format_number",
    "format_option_line",
    "parse_info",
    "parse_key_line",
    "parse_option_line",
    "position_command",
]
