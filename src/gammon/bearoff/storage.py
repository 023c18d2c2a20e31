"""The bear-off table file: a checked header, a section directory and memory-mapped arrays.

Layout (little-endian)::

    header     64 bytes  magic, format version, kind, points, checkers, contents,
                         positions, section count, payload size, SHA-256 of the rest
    directory  48 bytes per section: name, numpy dtype, offset, element count
    payload    the sections, each aligned to 64 bytes

A file is written under a temporary name and renamed into place, so a reader sees a
whole file or none. Loading checks the header and sizes every time and, unless told
not to, the SHA-256 of everything after the header (about 2 GB/s: 4 ms for the default
tables), so a wrong or damaged file raises :class:`BearoffTableError` instead of
answering wrongly.

A build in progress lives in a *partial* file: a short header (kind, points, checkers,
steps done) and the working arrays, memory-mapped so that an interrupted build resumes
from its last checkpoint.
"""

from __future__ import annotations

import enum
import hashlib
import mmap
import os
import stat
import struct
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import BearoffTableError, TableFolderError

#: What a stored number means, for the readers and for the kernels that build the tables.
#: One-sided: probability 1 as a 16-bit fraction.
ONE = 65535
#: One-sided: the largest number of rolls a distribution can reach (15 checkers on the 10-point need < 40).
ROLL_LIMIT = 64
#: One-sided: working width of one stored distribution: its non-zero counts span at most this many rolls.
BAND = 32
#: One-sided: the two distributions of a position, rolls to bear all off and to bear the first off.
ALL_OFF, FIRST_OFF = 0, 1
#: Two-sided: +1 and -1 in the 16-bit fixed point.
PLUS_ONE = 32767
MINUS_ONE = -32768

MAGIC = b"GAMMONBO"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sHBBBxxxIQIIQ")  # 44 bytes, then the 20 checksum bytes below
_HEADER_SIZE = 64
_CHECKSUM_SIZE = 20  # SHA-256 truncated: ample against damage, not a signature
_ENTRY = struct.Struct("<16s8sQQQ")  # name, dtype, offset, count, reserved: 48 bytes
_ALIGN = 64
_MAX_POINTS = 10  # the widest table the perfect hash can index (one-sided, 10 points)
_MAX_CHECKERS = 15
#: Sections whose length is fixed by the positions in the header: elements per position.
_PER_POSITION = {1: {"start": 2, "length": 2, "offset": 2, "rolls_sum": 2}, 2: {"values": 4}}

PARTIAL_MAGIC = b"GAMMONPT"
_PARTIAL = struct.Struct("<8sHBBBxxxQQ")  # magic, version, kind, points, checkers, steps done, data bytes
_PARTIAL_SIZE = 64


class Kind(enum.IntEnum):
    ONESIDED = 1
    TWOSIDED = 2


class Contents(enum.IntFlag):
    """What a table holds; a reader asks for what it needs and gets an error if it is missing."""

    DISTRIBUTION = 1  #: one-sided: rolls to bear off all checkers
    FIRST_OFF = 2  #: one-sided: rolls to bear off the first checker (gammons)
    CUBELESS = 4  #: two-sided: cubeless equity of the side on roll
    CUBEFUL = 8  #: two-sided: money cubeful equities, cube owned / centred / opponent's


@dataclass(frozen=True)
class TableHeader:
    kind: Kind
    points: int
    checkers: int
    contents: Contents
    positions: int
    version: int = FORMAT_VERSION


def _align(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def _describe(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def special_file(path: Path) -> str | None:
    """What ``path`` is when it exists but is no regular file (``"a folder"``, ``"a named pipe"``), else None.

    Such a path is refused, never opened for reading (a pipe would block) and never deleted.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else _describe(mode)


def _refuse_special(path: Path, what: str) -> None:
    kind = special_file(path)
    if kind is not None:
        raise BearoffTableError(f"{path}: {kind}, not {what}; move it out of the way")


def _cannot_write(path: Path, error: OSError) -> TableFolderError:
    return TableFolderError(path.parent, error.strerror or str(error))


def write_table(path: Path, header: TableHeader, sections: Mapping[str, np.ndarray]) -> None:
    """Write a table atomically: a temporary file in the same folder, fsync, then rename."""
    path = Path(path)
    _refuse_special(path, "a bear-off table file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    except OSError as error:
        raise _cannot_write(path, error) from None
    directory_size = _ENTRY.size * len(sections)
    offset = _align(_HEADER_SIZE + directory_size)
    entries = []
    layout = []
    for name, array in sections.items():
        array = np.ascontiguousarray(array)
        dtype = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
        entries.append(_ENTRY.pack(name.encode(), dtype.str.encode(), offset, array.size, 0))
        layout.append((offset, array.astype(dtype, copy=False)))
        offset = _align(offset + array.nbytes)
    payload_size = offset - _HEADER_SIZE
    fields = _HEADER.pack(
        MAGIC,
        header.version,
        int(header.kind),
        header.points,
        header.checkers,
        int(header.contents),
        header.positions,
        len(sections),
        0,
        payload_size,
    )
    digest = hashlib.sha256(fields)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(b"\0" * _HEADER_SIZE)
            position = _HEADER_SIZE
            body = b"".join(entries)
            out.write(body)
            digest.update(body)
            position += len(body)
            for start, array in layout:
                gap = b"\0" * (start - position)
                out.write(gap)
                digest.update(gap)
                data = array.reshape(-1).view(np.uint8).data
                out.write(data)
                digest.update(data)
                position = start + array.nbytes
            tail = b"\0" * (offset - position)
            out.write(tail)
            digest.update(tail)
            out.seek(0)
            out.write(fields + digest.digest()[:_CHECKSUM_SIZE])
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)  # mkstemp's 0600 is for secrets; a table is not one
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _cannot_write(path, error) from None
        raise


class TableFile:
    """A verified, memory-mapped table: ``header`` and ``sections`` (read-only arrays)."""

    def __init__(self, path: Path, header: TableHeader, sections: dict[str, np.ndarray], mapping: mmap.mmap) -> None:
        self.path = path
        self.header = header
        self.sections = sections
        self._mapping = mapping

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.sections[name]
        except KeyError:
            raise BearoffTableError(f"{self.path}: no section {name!r} (has {sorted(self.sections)})") from None


def read_table(
    path: Path,
    kind: Kind | None = None,
    points: int | None = None,
    checkers: int | None = None,
    contents: Contents | None = None,
    verify: bool = True,
) -> TableFile:
    """Open and check a table file; raise :class:`BearoffTableError` naming what is wrong."""
    path = Path(path)
    try:
        # Non-blocking, so that a named pipe in the table's place is refused instead of waited on.
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise BearoffTableError(f"{path}: no such bear-off table") from None
    except OSError as error:
        _refuse_special(path, "a bear-off table file")
        raise BearoffTableError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise BearoffTableError(f"{path}: {_describe(info.st_mode)}, not a bear-off table file; move it out of the way")
        size = info.st_size
        if size < _HEADER_SIZE:
            raise BearoffTableError(f"{path}: {size} bytes is too short for a gammon bear-off table")
        mapping = mmap.mmap(handle, 0, access=mmap.ACCESS_READ)
    except OSError as error:
        raise BearoffTableError(f"{path}: cannot read: {error.strerror or error}") from None
    finally:
        os.close(handle)
    raw = mapping[: _HEADER.size]
    magic, version, kind_value, file_points, file_checkers, flags, positions, count, _, payload_size = _HEADER.unpack(
        raw
    )
    if magic != MAGIC:
        raise BearoffTableError(f"{path}: not a gammon bear-off table (magic {magic!r}, expected {MAGIC!r})")
    if version != FORMAT_VERSION:
        raise BearoffTableError(f"{path}: format version {version}; this gammon reads version {FORMAT_VERSION}")
    if size != _HEADER_SIZE + payload_size:
        raise BearoffTableError(
            f"{path}: {size} bytes, but its header promises {_HEADER_SIZE + payload_size} (truncated?)"
        )
    try:
        file_kind = Kind(kind_value)
    except ValueError:
        raise BearoffTableError(f"{path}: unknown table kind {kind_value}") from None
    if not (1 <= file_points <= _MAX_POINTS and 1 <= file_checkers <= _MAX_CHECKERS):
        raise BearoffTableError(
            f"{path}: a table of {file_points} points and {file_checkers} checkers; gammon's tables span "
            f"1 to {_MAX_POINTS} points and 1 to {_MAX_CHECKERS} checkers"
        )
    header = TableHeader(file_kind, file_points, file_checkers, Contents(flags), positions, version)
    wanted = {"kind": kind, "points": points, "checkers": checkers}
    for field, value in wanted.items():
        if value is not None and getattr(header, field) != value:
            raise BearoffTableError(f"{path}: table has {field} {getattr(header, field)!s}, expected {value!s}")
    if contents is not None and contents & ~header.contents:
        raise BearoffTableError(f"{path}: table lacks {Contents(contents & ~header.contents)!r}")
    if verify:
        stored = mapping[_HEADER.size : _HEADER_SIZE]
        digest = hashlib.sha256(raw)
        digest.update(memoryview(mapping)[_HEADER_SIZE:])
        if digest.digest()[:_CHECKSUM_SIZE] != stored:
            raise BearoffTableError(f"{path}: checksum mismatch: the file is damaged; delete it and rebuild")
    sections: dict[str, np.ndarray] = {}
    for k in range(count):
        start = _HEADER_SIZE + k * _ENTRY.size
        if start + _ENTRY.size > size:
            raise BearoffTableError(f"{path}: section directory runs past the end of the file")
        name, dtype_text, offset, elements, _ = _ENTRY.unpack(mapping[start : start + _ENTRY.size])
        try:
            dtype = np.dtype(dtype_text.rstrip(b"\0").decode("ascii"))
        except (TypeError, ValueError, SyntaxError):  # numpy parses some type strings as Python
            dtype = None
        if dtype is None or dtype.kind not in "biuf":  # tables hold plain numbers only
            raise BearoffTableError(f"{path}: section {k} has a bad type {dtype_text!r}")
        label = name.rstrip(b"\0").decode(errors="replace")
        if offset % _ALIGN or offset + elements * dtype.itemsize > size:
            raise BearoffTableError(f"{path}: section {label!r} lies outside the file")
        per_position = _PER_POSITION[file_kind].get(label)
        if per_position is not None and elements != per_position * positions:
            raise BearoffTableError(
                f"{path}: section {label!r} has {elements} entries, expected {per_position * positions}"
            )
        sections[label] = np.frombuffer(mapping, dtype, elements, offset)
    return TableFile(path, header, sections, mapping)


class PartialBuild:
    """The working arrays of an unfinished build, memory-mapped so progress survives a stop.

    ``steps`` counts completed steps (pip levels, diagonals); a step's results reach the
    disk before the counter that says it is done, so a resumed build may redo the last
    step but never trusts one half written.
    """

    def __init__(
        self, path: Path, kind: Kind, points: int, checkers: int, arrays: Mapping[str, tuple[tuple[int, ...], str]]
    ):
        self.path = Path(path)
        layout = {}
        offset = _PARTIAL_SIZE
        for name, (shape, dtype) in arrays.items():
            nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
            layout[name] = (offset, shape, dtype)
            offset = _align(offset + nbytes)
        self.data_size = offset
        self._identity = (kind, points, checkers)
        self.steps = 0
        fresh = True
        _refuse_special(self.path, "a partial bear-off build")
        try:
            fresh = self._open(kind, points, checkers, offset)
        except OSError as error:
            raise _cannot_write(self.path, error) from None
        self.arrays = {
            name: np.frombuffer(self._mapping, np.dtype(dtype), int(np.prod(shape)), start).reshape(shape)
            for name, (start, shape, dtype) in layout.items()
        }
        self.resumed = not fresh
        if fresh:
            self.checkpoint(0)

    def _open(self, kind: Kind, points: int, checkers: int, offset: int) -> bool:
        """Map the partial file, resuming it when it is one of this build; True when started afresh."""
        fresh = True
        if self.path.exists():
            with open(self.path, "rb") as handle:
                head = handle.read(_PARTIAL.size)
            if len(head) == _PARTIAL.size and self.path.stat().st_size == offset:
                magic, version, k, p, c, steps, data_size = _PARTIAL.unpack(head)
                if (magic, version, k, p, c, data_size) == (
                    PARTIAL_MAGIC,
                    FORMAT_VERSION,
                    int(kind),
                    points,
                    checkers,
                    offset,
                ):
                    self.steps = int(steps)
                    fresh = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            with open(self.path, "wb") as handle:
                handle.truncate(offset)
        self._file = open(self.path, "r+b")
        self._mapping = mmap.mmap(self._file.fileno(), offset)
        return fresh

    def checkpoint(self, steps: int) -> None:
        """Record ``steps`` as done, after the data they produced is on disk."""
        self._mapping.flush()
        kind, points, checkers = self._identity
        self._mapping[: _PARTIAL.size] = _PARTIAL.pack(
            PARTIAL_MAGIC, FORMAT_VERSION, int(kind), points, checkers, steps, self.data_size
        )
        self._mapping.flush()
        self.steps = steps

    def close(self) -> None:
        self.arrays = {}
        try:
            self._mapping.close()
        except BufferError:
            pass  # a caller still holds a view; the mapping closes when it is collected
        self._file.close()

    def discard(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)
