"""Lines in and out, as every line reader of gammon takes and answers them.

The ``--batch`` modes and the engine server (and the doors to come) read their input with
:func:`read_blocks`: bytes, cut into lines at ``\\n``, ``\\r\\n`` or ``\\r``, each line decoded
on its own as UTF-8 with replacement, so a bad byte spoils one character of one line and
never the run, whatever ``PYTHONIOENCODING`` says. A byte-order mark before the first line
is not part of it. A line longer than :data:`MAX_LINE_BYTES` is handed over cut
(:attr:`Line.cut`, its beginning only) and the rest of it skipped, not held in memory.

Lines come in blocks of what has arrived: a reader that answers a block at a time answers
each line at once when lines come one by one, and in bulk when they come in bulk.
:class:`Utf8Output` writes the answers as UTF-8 bytes for the same reason.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any, NamedTuple, cast

#: The longest line handed over whole; a longer one is cut (1 MiB: far above any real line).
MAX_LINE_BYTES = 1 << 20
#: Bytes asked for per read: at most this much waits in memory besides one unfinished line.
READ_SIZE = 1 << 16
_BOM = b"\xef\xbb\xbf"
_LINE_END = re.compile(rb"\r\n|\r|\n")
_TEXT_LINE_END = re.compile(r"\r\n|\r|\n")


class Line(NamedTuple):
    """One line of input: its number (from 1, blank lines counted) and its text without the line end."""

    number: int
    text: str
    #: True when the line was longer than :data:`MAX_LINE_BYTES`: ``text`` is its beginning only.
    cut: bool = False


class _Decoder:
    """Numbers and decodes the lines of one input, in order."""

    def __init__(self, max_line: int) -> None:
        self.number = 0
        self.max_line = max_line

    def line(self, data: bytes, cut: bool = False) -> Line:
        return self.lines([data], cut)[0]

    def lines(self, pieces: list[bytes], cut: bool = False) -> list[Line]:
        """``pieces`` (lines without their ends) decoded and numbered."""
        if not pieces:
            return []
        if self.number == 0 and pieces[0].startswith(_BOM):
            pieces = [pieces[0][len(_BOM):], *pieces[1:]]
        first = self.number + 1
        self.number += len(pieces)
        if cut or max(map(len, pieces)) > self.max_line:
            return [Line(n, piece[: self.max_line].decode("utf-8", "replace"), cut or len(piece) > self.max_line)
                    for n, piece in enumerate(pieces, first)]
        # Decoding the lines together gives what decoding each on its own gives: a line end is
        # ASCII, so it is never inside a UTF-8 sequence and always ends a broken one.
        texts = b"\n".join(pieces).decode("utf-8", "replace").split("\n")
        return [Line(n, text) for n, text in enumerate(texts, first)]


def read_blocks(source: IO[bytes] | IO[str] | Iterable[bytes | str], max_line: int = MAX_LINE_BYTES) -> Iterator[list[Line]]:
    """Every line of ``source`` in order, in blocks of what has arrived (no block is empty).

    ``source`` is a binary stream (``sys.stdin.buffer``), a text stream over one (``sys.stdin``:
    its bytes are read), or any iterable of lines as ``str`` or ``bytes`` (each item ends a line).
    """
    binary = getattr(source, "buffer", None)
    if binary is not None and hasattr(binary, "read"):
        source = binary
    if hasattr(source, "read1") or isinstance(source, io.RawIOBase):
        yield from _stream_blocks(source, max_line)
        return
    decoder = _Decoder(max_line)
    for item in source:
        data = item if isinstance(item, (bytes, bytearray)) else str(item).encode("utf-8", "surrogatepass")
        pieces = _LINE_END.split(bytes(data))
        if len(pieces) > 1 and not pieces[-1]:
            pieces.pop()  # the item's own line end
        yield decoder.lines(pieces)


def read_lines(source: IO[bytes] | IO[str] | Iterable[bytes | str], max_line: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """Every line of ``source`` in order, one at a time (see :func:`read_blocks`)."""
    for block in read_blocks(source, max_line):
        yield from block


def _stream_blocks(stream: Any, max_line: int) -> Iterator[list[Line]]:
    read = getattr(stream, "read1", None) or stream.read
    decoder = _Decoder(max_line)
    pending = b""  # the beginning of a line whose end has not come yet
    skipping = False  # inside a line already handed over cut: its bytes are dropped up to its end
    after_cr = False  # the last line ended with \r: a \n that comes next belongs to it
    while True:
        raw = read(READ_SIZE)
        end_of_input = not raw
        data = raw[1:] if after_cr and raw[:1] == b"\n" else raw
        if raw:
            after_cr = False
        buffer = pending + data if pending else data
        pieces = _LINE_END.split(buffer)
        rest = pieces.pop()  # after the last line end: the beginning of a line still to come
        if skipping and pieces:
            del pieces[0]  # the end of the line handed over cut
            skipping = False
        block = decoder.lines(pieces)
        if data:
            after_cr = buffer.endswith(b"\r")
        pending = b""
        if end_of_input:
            if rest and not skipping:
                block.append(decoder.line(rest))
        elif not skipping:
            if len(rest) > max_line:
                block.append(decoder.line(rest, cut=True))
                skipping = True
            else:
                pending = rest
        if block:
            yield block
        if end_of_input:
            return


class Utf8Output:
    """A text sink that writes UTF-8 bytes to the binary stream under ``stream`` (``sys.stdout``), so
    what is written never depends on the locale or ``PYTHONIOENCODING``; a stream with no bytes
    under it (``io.StringIO``) is written as text."""

    def __init__(self, stream: IO[str] | IO[bytes]) -> None:
        self._text = stream
        binary = getattr(stream, "buffer", None)
        if binary is None and isinstance(stream, (io.RawIOBase, io.BufferedIOBase)):
            binary = stream
        self._binary = binary
        if binary is not None and binary is not stream:
            stream.flush()  # what was printed before goes out first

    def write(self, text: str) -> int:
        if self._binary is None:  # a text stream, with no bytes beneath it
            return cast("IO[str]", self._text).write(text)
        self._binary.write(text.encode("utf-8", "replace"))
        return len(text)

    def flush(self) -> None:
        (self._binary or self._text).flush()
