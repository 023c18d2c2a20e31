"""eXtreme Gammon files for the tests, laid out as XG's published format says (the reader's other
side, written apart from it): a RichGameHeader, a ZLibArchive of temp.xg and its siblings, and
2560-byte records. Real records (tests/records/xg) go in as they are; the rest are made here."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

RECORD = 2560
REAL = Path(__file__).parent / "records" / "xg"
#: The opening from the side to act: its checkers positive on its points 1-24, the other side's negative.
OPENING = (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)
NOT_ANALYSED = -1000.0


def real(name: str) -> bytes:
    return (REAL / name).read_bytes()


def _record(kind: int) -> bytearray:
    record = bytearray(RECORD)
    record[8] = kind
    return record


def _short(text: str, size: int) -> bytes:
    raw = text.encode("cp1252")[:size - 1]
    return bytes([len(raw)]) + raw + bytes(size - 1 - len(raw))


def _wide(text: str) -> bytes:
    raw = text.encode("utf-16-le")[:256]
    return raw + bytes(258 - len(raw))


def match_header(length: int, player1: str, player2: str, *, crawford: bool = True, jacoby: bool = False,
                 beaver: bool = False, variation: int = 0, version: int = 30, cube_limit: int = 10,
                 event: str = "") -> bytes:
    record = _record(0)
    record[9:50] = _short(player1, 41)
    record[50:91] = _short(player2, 41)
    struct.pack_into("<ii", record, 92, length, variation)
    record[100:103] = bytes([crawford, jacoby, beaver])
    record[136:265] = _short(event, 129)
    struct.pack_into("<iI", record, 552, version, 0x494C4D44)
    struct.pack_into("<i", record, 612, cube_limit)
    record[622:880] = _wide(event)
    record[880:1138] = _wide(player1)
    record[1138:1396] = _wide(player2)
    return bytes(record)


def game_header(score1: int, score2: int, number: int, *, crawford: bool = False, autodoubles: int = 0) -> bytes:
    record = _record(1)
    struct.pack_into("<iiB", record, 12, score1, score2, crawford)
    struct.pack_into("<26b", record, 21, *OPENING)
    struct.pack_into("<i", record, 48, number)
    struct.pack_into("<i", record, 64, autodoubles)
    return bytes(record)


def cube(active: int, *, double: int = 0, take: int = -1, beaver: int = 0, cube_b: int = 0,
         position: tuple[int, ...] = OPENING, equities: tuple[float, float, float] | None = None,
         err_cube: float = NOT_ANALYSED, err_take: float = NOT_ANALYSED, edited: bool = False) -> bytes:
    """A cube record: ``active`` 1 player 1, -1 player 2; ``double`` 1 doubled; ``take`` 1 take, 0 drop, 2 beaver."""
    record = _record(2)
    struct.pack_into("<iiiiii", record, 12, active, double, take, beaver, 0, cube_b)
    struct.pack_into("<26b", record, 36, *position)
    if equities is not None:
        struct.pack_into("<i", record, 64 + 28, 2)  # 3-ply
        struct.pack_into("<7f", record, 64 + 60, 0.02, 0.2, 0.3, 0.7, 0.25, 0.03, 0.6)
        struct.pack_into("<fff", record, 64 + 88, *equities)
    struct.pack_into("<d", record, 200, err_cube)
    struct.pack_into("<d", record, 216, err_take)
    record[296] = edited
    return bytes(record)


def move(active: int, dice: tuple[int, int], moves: tuple[int, ...], *, position: tuple[int, ...] = OPENING,
         cube_a: int = 0, edited: bool = False) -> bytes:
    """A checker play, not analysed: ``moves`` XG's from, to pairs (0-based, 24 the bar, -1 off)."""
    record = _record(3)
    struct.pack_into("<26b", record, 9, *position)
    struct.pack_into("<i", record, 64, active)
    listed = (*moves, -1, -1, -1, -1, -1, -1, -1, -1)[:8]
    struct.pack_into("<8i", record, 68, *listed)
    struct.pack_into("<2ii", record, 100, dice[0], dice[1], cube_a)
    struct.pack_into("<dd", record, 2312, NOT_ANALYSED, NOT_ANALYSED)
    record[2528] = edited
    return bytes(record)


def game_footer(winner: int, points: int, termination: int) -> bytes:
    """``winner`` 1 player 1, -1 player 2; ``termination`` 0 drop, 1-3 borne off (single, gammon,
    backgammon), +100 resigned, +1000 settled."""
    record = _record(4)
    struct.pack_into("<iii", record, 24, winner, points, termination)
    return bytes(record)


def match_footer() -> bytes:
    return bytes(_record(5))


def xg_file(records: list[bytes], *, thumbnail: bytes = b"\xff\xd8 not really a jpeg \xff\xd9") -> bytes:
    """The file XG would write around ``records``: header, thumbnail, archive."""
    header = bytearray(8232)
    header[0:4] = b"RGMH"
    struct.pack_into("<IIqI", header, 4, 1, 8232, 8232, len(thumbnail))
    temp = b"".join(records)
    files = [("temp.xg", temp), ("temp.xgi", temp[:RECORD] + temp[-RECORD:]), ("temp.xgr", b""), ("temp.xgc", b"")]
    data = bytearray()
    registry = bytearray()
    for name, content in files:
        packed = zlib.compress(content)
        entry = bytearray(532)
        entry[0] = len(name)
        entry[1:1 + len(name)] = name.encode("ascii")
        struct.pack_into("<iiiIBB", entry, 512, len(content), len(packed), len(data), zlib.crc32(content), 0, 6)
        data += packed
        registry += entry
    packed_registry = zlib.compress(bytes(registry))
    archive = bytes(data) + packed_registry
    trailer = struct.pack("<Iiiiii", zlib.crc32(archive), len(files), 1, len(packed_registry), len(data), 1) + bytes(12)
    return bytes(header) + thumbnail + archive + trailer
