"""The ``--batch`` line protocol of ``gammon moves``, ``gammon bearoff query`` and ``gammon cube``.

Each reads stdin and writes one JSON object per non-blank line, in order (blank lines are
skipped). Every object echoes its line as ``input``, so an answer can be matched to its
question by content as well as by order. A line that cannot be answered gets
``{"error": message, "line": number, "input": text}`` (``line`` counts every line of the
input from 1, blank ones included) and the lines after it are answered as usual.

One line never costs another its answer: stdin is read as bytes and each line decoded on
its own (:mod:`gammon.lines`: invalid UTF-8 becomes U+FFFD, a byte-order mark is dropped,
a line over a megabyte is refused, not held), whatever goes wrong while answering a line is
that line's error object, and the answers are written as UTF-8 and flushed after each block
of lines that arrived together, so nothing answered waits for more input.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any

from ..errors import GammonError
from ..lines import MAX_LINE_BYTES, Utf8Output, read_blocks

#: A line to answer: its number (from 1, blank lines counted) and its text without the line end.
Question = tuple[int, str]
#: Characters of a line too long to read that its error object echoes as ``input``.
CUT_ECHO = 200


def answer(result: dict[str, Any], text: str) -> dict[str, Any]:
    """The answer to a line: the mode's own fields, then the line as ``input``."""
    return {**result, "input": text}


def error(message: str, number: int, text: str) -> dict[str, Any]:
    """The answer to a line that cannot be answered, the same in every mode."""
    return {"error": message, "line": number, "input": text}


def failure(problem: BaseException) -> str:
    """The error message of a line whose answer failed, whatever the failure was."""
    if isinstance(problem, (GammonError, ValueError)) and not isinstance(problem, UnicodeError):
        return str(problem)
    if isinstance(problem, RecursionError):
        return "line: nested too deeply to read"
    if isinstance(problem, MemoryError):
        return "line: too large to answer"
    return f"line: could not be answered ({type(problem).__name__}: {str(problem)[:200]})"


def run(
    source: IO[bytes] | IO[str] | Iterable[str],
    sink: IO[str],
    answer_lines: Callable[[Sequence[Question]], Iterable[dict[str, Any]]],
    *,
    one_at_a_time: bool = False,
    separators: tuple[str, str] | None = None,
) -> int:
    """Answer every non-blank line of ``source`` on ``sink``; returns how many answers are errors.

    ``answer_lines`` answers a block of lines in order, one object each; when it fails on a
    block, each line of the block is asked again on its own, and a line that still fails gets
    its error object. ``one_at_a_time`` asks (and flushes) line by line, for slow answers.
    """
    out = Utf8Output(sink)
    encode = json.JSONEncoder(separators=separators, allow_nan=False).encode  # NaN is not JSON
    bad = 0

    def write(results: Iterable[tuple[Question, dict[str, Any]]]) -> None:
        nonlocal bad
        lines = []
        for (number, text), result in results:
            try:
                lines.append(encode(result))
                bad += "error" in result
            except (TypeError, ValueError, RecursionError) as problem:
                lines.append(encode(error(f"the answer could not be written as JSON ({problem})", number, text)))
                bad += 1
        if lines:
            out.write("\n".join(lines) + "\n")

    for block in read_blocks(source):
        group: list[Question] = []
        for line in block:
            if line.cut:
                write(_answered(answer_lines, group))
                group = []
                echo = line.text[:CUT_ECHO]
                write([((line.number, echo), error(
                    f"line: longer than {MAX_LINE_BYTES} bytes, not read (input shows its first {CUT_ECHO} characters)",
                    line.number, echo))])
            elif line.text.strip():
                group.append((line.number, line.text))
                if one_at_a_time:
                    write(_answered(answer_lines, group))
                    group = []
                    out.flush()
        write(_answered(answer_lines, group))
        out.flush()
    return bad


def _answered(answer_lines: Callable[[Sequence[Question]], Iterable[dict[str, Any]]],
              group: Sequence[Question]) -> list[tuple[Question, dict[str, Any]]]:
    """Each question of ``group`` with its answer: asked as a block, then one by one if that fails."""
    if not group:
        return []
    try:
        results = list(answer_lines(group))
        if len(results) != len(group):
            raise RuntimeError(f"{len(results)} answers to {len(group)} lines")
    except Exception as problem:  # noqa: BLE001 - whatever happens inside a line is that line's error
        if len(group) > 1:
            return [pair for question in group for pair in _answered(answer_lines, [question])]
        number, text = group[0]
        return [(group[0], error(failure(problem), number, text))]
    return list(zip(group, results))


def each_line(answer_line: Callable[[int, str], dict[str, Any]]) -> Callable[[Sequence[Question]], list[dict[str, Any]]]:
    """A block answerer for a mode that answers one line at a time."""
    def answer_lines(group: Sequence[Question]) -> list[dict[str, Any]]:
        return [answer_line(number, text) for number, text in group]

    return answer_lines
