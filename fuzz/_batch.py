"""The ``--batch`` readers' contract: every non-blank line answered, one JSON object each, in order."""

from __future__ import annotations

import json
import re

import _harness

_LINE_ENDS = re.compile(rb"\r\n|\r|\n")


def expected_answers(data: bytes) -> set[int]:
    """How many lines are non-blank: split at any line end, or at newlines only (either reading is fine)."""
    counts = set()
    for lines in (_LINE_ENDS.split(data), data.split(b"\n")):
        texts = [line.decode("utf-8", "replace") for line in lines]
        if texts:
            texts[0] = texts[0].removeprefix("\ufeff")  # a byte-order mark is not part of the line
        counts.add(sum(1 for text in texts if text.strip()))
    return counts


def run(argv: list[str], data: bytes) -> list[dict]:
    """Run ``gammon ARGV`` on ``data`` as stdin; the answers, after checking the batch contract."""
    from gammon.cli import main

    with _harness.captured_stdio(data) as captured:
        status = main(argv)
    errors = captured.stderr
    if status != 0:
        raise _harness.violation(f"gammon {' '.join(argv)} stopped with status {status}: {errors[-500:]!r}")
    if "Traceback" in errors:
        raise _harness.violation(f"a traceback on stderr:\n{errors[-2000:]}")
    try:
        text = captured.stdout.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _harness.violation(f"output is not UTF-8: {error}") from None
    answers = []
    for line in text.splitlines():
        try:
            answer = json.loads(line)
        except ValueError:
            raise _harness.violation(f"an output line is not JSON: {line!r}") from None
        if not isinstance(answer, dict) or "input" not in answer:
            raise _harness.violation(f"an output line is not an answer object echoing its input: {line!r}")
        if "error" in answer and not isinstance(answer.get("line"), int):
            raise _harness.violation(f"an error object without its line number: {line!r}")
        answers.append(answer)
    if len(answers) not in expected_answers(data):
        raise _harness.violation(
            f"{len(answers)} answers to {' or '.join(map(str, sorted(expected_answers(data))))} non-blank lines"
        )
    return answers
