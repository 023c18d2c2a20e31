"""Every reader of lines (the three ``--batch`` modes and ``gammon engine``) against bad input (issue 13).

Bytes in, each line decoded on its own; a failure inside a line is that line's answer; a
byte-order mark is not part of the first line; nothing answered is lost and the run goes
on, under ``PYTHONIOENCODING=utf-8:strict`` too.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gammon import lines
from gammon.cli import main

GOOD_MOVES = "4HPwATDgc/ABMA 3 1"
GOOD_COUNTS = "1 1 0 0 0 0"
GOOD_CUBE = "4HPwATDgc/ABMA:cAkAAAAAAAAA"
MODES = {
    "moves": (["moves", "--batch"], GOOD_MOVES, "results"),
    "bearoff": (["bearoff", "query", "--batch"], GOOD_COUNTS, "mean_rolls"),
    "cube": (["cube", "--batch", "--player", "pubeval:0"], GOOD_CUBE, "action"),
}
STRICT = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
_LINE_END = re.compile(rb"\r\n|\r|\n")


def gammon(args: list[str], stdin: bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "gammon", *args], input=stdin, capture_output=True,
                          env=env or STRICT, timeout=300)


def answers(done: subprocess.CompletedProcess[bytes]) -> list[dict]:
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-2000:]
    assert b"Traceback" not in done.stderr and b"Traceback" not in done.stdout
    return [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]


def non_blank(data: bytes) -> list[tuple[int, str]]:
    """(number, text) of the non-blank lines of ``data``, as the readers number them."""
    pieces = _LINE_END.split(data)
    if len(pieces) > 1 and not pieces[-1]:
        pieces.pop()
    if not data:
        pieces = []
    texts = [p.decode("utf-8", "replace") for p in pieces]
    if texts:
        texts[0] = texts[0].removeprefix("\ufeff")
    return [(n, t) for n, t in enumerate(texts, 1) if t.strip()]


# -- gammon.lines -------------------------------------------------------------------------------------
def read(data: bytes, **options: int) -> list[tuple[int, str, bool]]:
    return [(line.number, line.text, line.cut) for line in lines.read_lines(io.BytesIO(data), **options)]


def test_each_line_decoded_on_its_own_bom_dropped_every_line_end_read() -> None:
    assert read(b"\xef\xbb\xbfa\r\nb\rc\n\nd") == [(1, "a", False), (2, "b", False), (3, "c", False),
                                                      (4, "", False), (5, "d", False)]
    assert read(b"ok\n\xff\xfe\nstill ok\n") == [(1, "ok", False), (2, "\ufffd\ufffd", False), (3, "still ok", False)]
    assert read(b"a\xef\xbb\xbfb\n\xef\xbb\xbfc") == [(1, "a\ufeffb", False), (2, "\ufeffc", False)]  # first line only
    assert read(b"") == [] and read(b"\n") == [(1, "", False)]


def test_a_line_too_long_is_cut_and_the_rest_of_it_skipped() -> None:
    assert read(b"x" * 30 + b"\nshort\n" + b"y" * 25 + b"\r\nend", max_line=10) == [
        (1, "x" * 10, True), (2, "short", False), (3, "y" * 10, True), (4, "end", False)]


class Trickle(io.RawIOBase):
    """A stream that gives its bytes a few at a time, as a pipe may."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self.data, self.sizes, self.at = data, sizes or [1], 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        size = min(len(buffer), self.sizes[self.at % len(self.sizes)], len(self.data) - self.at)
        buffer[:size] = self.data[self.at : self.at + size]
        self.at += size
        return size


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=80) | st.lists(st.sampled_from([b"a", b"\r", b"\n", b"\xef\xbb\xbf", b"\xff", b" "]),
                                         max_size=40).map(b"".join),
       st.lists(st.integers(1, 7), max_size=5))
def test_lines_do_not_depend_on_how_the_bytes_arrive(data: bytes, sizes: list[int]) -> None:
    got = [(line.number, line.text) for line in lines.read_lines(Trickle(data, sizes))]
    whole = [(line.number, line.text) for line in lines.read_lines(io.BytesIO(data))]
    assert got == whole
    assert [(n, t) for n, t in got if t.strip()] == non_blank(data)


def test_text_sources_and_line_lists_are_read_the_same_way() -> None:
    read = lines.read_lines(["a\n", "b", "c\r\nd"])
    assert [(line.number, line.text) for line in read] == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    wrapped = io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbfx\n\xff\n"), encoding="utf-8", errors="strict")
    assert [(line.number, line.text) for line in lines.read_lines(wrapped)] == [(1, "x"), (2, "\ufffd")]


# -- the batch modes, as a user runs them -------------------------------------------------------------
def test_moves_batch_answers_a_line_too_deep_for_json_and_goes_on() -> None:
    deep = '{"a":' * 1000
    got = answers(gammon(["moves", "--batch"], f"{GOOD_MOVES}\n{deep}\n{GOOD_MOVES}\n".encode()))
    assert len(got) == 3 and len(got[0]["results"]) == 16 and got[2] == got[0]
    assert got[1]["line"] == 2 and got[1]["input"] == deep and got[1]["error"].startswith("line: not JSON")


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize("mode", MODES)
def test_an_invalid_byte_under_strict_utf8_is_one_bad_line(mode: str) -> None:
    argv, good, field = MODES[mode]
    got = answers(gammon(argv, f"{good}\n".encode() + b"\xff\xfe\n" + f"{good}\n".encode()))
    assert len(got) == 3 and field in got[0] and got[2] == got[0]
    assert got[1]["line"] == 2 and got[1]["input"] == "\ufffd\ufffd" and "error" in got[1]


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize("mode", MODES)
def test_a_byte_order_mark_is_not_part_of_the_first_line(mode: str) -> None:
    argv, good, field = MODES[mode]
    got = answers(gammon(argv, b"\xef\xbb\xbf" + f"{good}\r\n{good}\n".encode()))
    assert len(got) == 2 and field in got[0] and got[0] == got[1] and got[0]["input"] == good


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize("mode", MODES)
def test_a_line_over_a_megabyte_is_refused_and_the_next_answered(mode: str) -> None:
    argv, good, field = MODES[mode]
    huge = b"[" * (lines.MAX_LINE_BYTES + 10)
    got = answers(gammon(argv, f"{good}\n".encode() + huge + f"\n{good}\n".encode()))
    assert len(got) == 3 and field in got[0] and got[2] == got[0]
    assert got[1]["line"] == 2 and "longer than" in got[1]["error"] and len(got[1]["input"]) <= 200


def test_moves_batch_answers_each_line_as_it_comes() -> None:
    """Nothing waits for a chunk of lines to fill: a client can ask, read the answer, ask again."""
    process = subprocess.Popen([sys.executable, "-m", "gammon", "moves", "--batch"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=STRICT)
    try:
        for dice in ("3 1", "6 5", "2 2"):
            process.stdin.write(f"4HPwATDgc/ABMA {dice}\n".encode())  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]
            answer = json.loads(process.stdout.readline())  # type: ignore[union-attr]
            assert answer["input"] == f"4HPwATDgc/ABMA {dice}" and answer["results"]
        process.stdin.close()  # type: ignore[union-attr]
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
        process.wait()


# -- the batch modes, in process, on any bytes ----------------------------------------------------------
@contextlib.contextmanager
def strict_stdio(data: bytes) -> Iterator[io.BytesIO]:
    """stdin and stdout as under PYTHONIOENCODING=utf-8:strict; yields the bytes written."""
    out = io.BytesIO()
    saved = sys.stdin, sys.stdout
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    try:
        yield out
    finally:
        fake_in, fake_out = sys.stdin, sys.stdout
        sys.stdin, sys.stdout = saved
        fake_out.flush()
        for stream in (fake_in, fake_out):
            stream.detach()


PIECES = [GOOD_MOVES, GOOD_COUNTS, GOOD_CUBE, '{"pid": "4HPwATDgc/ABMA", "dice": [3, 1]}', '{"a":' * 600, "²", "\ufeff",
          "\x00", " ", "[", "9" * 5000]
line_bytes = st.one_of(st.binary(max_size=40), st.sampled_from(PIECES).map(str.encode),
                       st.sampled_from([b"\xff", b"\xef\xbb\xbf", b"\r", b"\n", b"\r\n"]))
inputs = st.lists(line_bytes, max_size=12).map(b"".join)


def check_batch(argv: list[str], data: bytes) -> None:
    with strict_stdio(data) as out:
        status = main(argv)
    assert status == 0
    got = [json.loads(line) for line in out.getvalue().decode("utf-8").splitlines()]
    expected = non_blank(data)
    assert len(got) == len(expected)
    for (number, text), answer in zip(expected, got):
        assert answer["input"] == text
        if "error" in answer:
            assert answer["line"] == number


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs)
def test_moves_batch_answers_one_json_line_per_non_blank_line_of_any_bytes(data: bytes) -> None:
    check_batch(["moves", "--batch"], data)


@pytest.mark.usefixtures("bearoff_cache")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs)
def test_bearoff_batch_answers_one_json_line_per_non_blank_line_of_any_bytes(data: bytes) -> None:
    check_batch(["bearoff", "query", "--batch"], data)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs)
def test_cube_batch_answers_one_json_line_per_non_blank_line_of_any_bytes(data: bytes) -> None:
    check_batch(["cube", "--batch", "--player", "pubeval:0"], data)


# -- the engine ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ["utf-8:strict", "ascii:strict"])
def test_engine_survives_invalid_bytes_a_bom_and_a_huge_line(encoding: str) -> None:
    stdin = (b"\xef\xbb\xbfisready\n\xff\xfe\nisready\r\n" + b"x" * (lines.MAX_LINE_BYTES + 5) + b"\n"
             b"position gnubgid \xff4HPwATDgc/ABMA:cAkAAAAAAAAA\nisready\n")
    done = subprocess.run([sys.executable, "-m", "gammon", "engine", "--player", "pubeval", "--ply", "0"],
                          input=stdin, capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONIOENCODING": encoding})
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    out = done.stdout.decode("utf-8").splitlines()
    assert out.count("readyok") == 3 and out[0] == "readyok"  # the BOM is not part of the first command
    errors = [line for line in out if line.startswith("error")]
    assert len(errors) == 3 and "\ufffd" in errors[0] and "longer than a megabyte" in errors[1]
    assert not any("internal error" in line for line in errors)
