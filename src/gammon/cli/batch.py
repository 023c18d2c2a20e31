"""The ``--batch`` line protocol of ``gammon moves``, ``gammon bearoff query`` and ``gammon cube``.

Each reads stdin and writes one JSON object per non-blank line, in order (blank lines are
skipped). Every object echoes its line as ``input``, so an answer can be matched to its
question by content as well as by order. A line that cannot be answered gets
``{"error": message, "line": number, "input": text}`` (``line`` counts every line of the
input from 1, blank ones included) and the lines after it are answered as usual.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


def numbered(lines: Iterable[str], start: int = 1) -> Iterator[tuple[int, str]]:
    """(line number, text without its line end) of every non-blank line."""
    for number, line in enumerate(lines, start):
        text = line.rstrip("\r\n")
        if text.strip():
            yield number, text


def answer(result: dict[str, Any], text: str) -> dict[str, Any]:
    """The answer to a line: the mode's own fields, then the line as ``input``."""
    return {**result, "input": text}


def error(message: str, number: int, text: str) -> dict[str, Any]:
    """The answer to a line that cannot be answered, the same in every mode."""
    return {"error": message, "line": number, "input": text}
