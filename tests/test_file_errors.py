"""File-system and decompression errors are gammon's own, name the path and say what to do.

A cache that cannot be written still answers (from a temporary folder, said once on stderr);
a folder or a named pipe where a table or a weights file should be is refused at once,
never waited on and never deleted; a damaged weights file is a :class:`NetworkFileError`.
"""

from __future__ import annotations

import io
import json
import os
import struct
import sys
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from gammon.bearoff import defaults, onesided, read_table, twosided
from gammon.bearoff.storage import Kind, PartialBuild
from gammon.errors import BearoffTableError, GammonError, NetworkFileError, TableFolderError
from gammon.nn import evaluator as nn_evaluator
from gammon.nn.network import Network

#: A bear-off position (white: 2 2 1 on points 1-3; black: 2 1 on its points 1-2).
BEAROFF_POSITION = "CwAAsAUAAAAAAA"
SMALL = 2  # a two-sided table of 2 checkers a side builds in milliseconds


def _at_once(call: Callable[[], object], seconds: float = 20.0) -> BaseException | None:
    """Run ``call`` in a thread and return what it raised; fail if it is still running after ``seconds``."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            outcome.append(error)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked: a special file was opened for reading"
    return outcome[0]


@pytest.fixture
def fresh_defaults(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No table loaded and no temporary folder made yet; restored afterwards."""
    monkeypatch.setattr(defaults, "_temporary", [])
    defaults.clear_loaded()
    yield
    defaults.clear_loaded()


def _unwritable_caches(tmp: Path) -> list[Path]:
    a_file = tmp / "a-file"
    a_file.write_text("not a folder\n")
    caches = [a_file]  # NotADirectoryError on mkdir
    if Path("/sys/kernel").is_dir():
        caches.append(Path("/sys/gammon-cache"))  # PermissionError on mkdir, even for root
    if Path("/proc/self").is_dir():
        caches.append(Path("/proc/gammon-cache"))  # FileNotFoundError on mkdir
    if os.name == "posix" and os.geteuid() != 0:
        read_only = tmp / "read-only"
        read_only.mkdir()
        read_only.chmod(0o500)
        caches.append(read_only)
    return caches


@pytest.mark.usefixtures("fresh_defaults")
def test_an_unwritable_cache_still_answers_and_says_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for cache in _unwritable_caches(tmp_path):
        monkeypatch.setattr(defaults, "_temporary", [])
        defaults.clear_loaded()
        monkeypatch.setenv(defaults.CACHE_ENV, str(cache))
        small = defaults.twosided(SMALL)
        assert small.p_win([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]) == 1.0
        assert defaults.twosided(SMALL + 1).checkers == SMALL + 1
        err = capsys.readouterr().err
        assert err.count("gammon:") == 1, err
        assert str(cache / "bearoff") in err and "for this run only" in err and defaults.CACHE_ENV in err
        assert defaults._temporary[0].is_dir()


@pytest.mark.usefixtures("fresh_defaults")
def test_a_build_lock_in_an_unwritable_folder_is_a_table_folder_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(TableFolderError, match="a-file") as caught, defaults.build_lock(blocker / "bearoff" / "x.bearoff"):
        pass
    assert "writable folder" in str(caught.value)


@pytest.mark.usefixtures("fresh_defaults")
def test_a_folder_in_a_tables_place_is_refused_not_deleted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(defaults.CACHE_ENV, str(tmp_path))
    folder = tmp_path / "bearoff" / twosided.table_name(SMALL)
    folder.mkdir(parents=True)
    (folder / "keep").write_text("someone's file\n")
    with pytest.raises(BearoffTableError, match="a folder, not a bear-off table") as caught:
        defaults.twosided(SMALL)
    assert str(folder) in str(caught.value)
    assert (folder / "keep").read_text() == "someone's file\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.usefixtures("fresh_defaults")
def test_a_named_pipe_in_a_tables_place_is_refused_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(defaults.CACHE_ENV, str(tmp_path))
    pipe = tmp_path / "bearoff" / twosided.table_name(SMALL)
    pipe.parent.mkdir()
    os.mkfifo(pipe)
    for call in (
        lambda: defaults.twosided(SMALL),
        lambda: read_table(pipe),
        lambda: twosided.TwoSidedTable(pipe),
        lambda: onesided.OneSidedTable(pipe),
    ):
        error = _at_once(call)
        assert isinstance(error, BearoffTableError) and "a named pipe" in str(error), error
    assert pipe.is_fifo()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_special_files_are_never_written_over(tmp_path: Path) -> None:
    pipe = tmp_path / "table.bearoff"
    os.mkfifo(pipe)
    error = _at_once(lambda: twosided.build(pipe, SMALL))
    assert isinstance(error, BearoffTableError) and "a named pipe" in str(error), error
    assert pipe.is_fifo()
    partial = tmp_path / "partial"
    os.mkfifo(partial)
    error = _at_once(lambda: PartialBuild(partial, Kind.TWOSIDED, 6, SMALL, {"values": ((4, 4), "<i2")}))
    assert isinstance(error, BearoffTableError) and "a named pipe" in str(error), error
    assert partial.is_fifo()


def test_writing_a_table_where_it_cannot_be_written_names_the_folder(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(TableFolderError, match="a-file"):
        twosided.build(blocker / "table.bearoff", SMALL)


def test_a_table_with_a_bad_section_type_is_a_table_error(tmp_path: Path) -> None:
    path = tmp_path / "t.bearoff"
    twosided.build(path, SMALL)
    data = bytearray(path.read_bytes())
    for bad in (b"O", b"V0", b"(", b"\xff", b"<M8"):
        damaged = bytearray(data)
        damaged[64 + 16 : 64 + 24] = bad.ljust(8, b"\0")  # the first section's type
        path.write_bytes(bytes(damaged))
        with pytest.raises(BearoffTableError, match="bad type"):
            read_table(path, verify=False)


def _with_checksum(data: bytes) -> bytes:
    import hashlib

    digest = hashlib.sha256(data[:44])
    digest.update(data[64:])
    return data[:44] + digest.digest()[:20] + data[64:]


def test_a_checksummed_table_with_impossible_fields_is_a_table_error(tmp_path: Path) -> None:
    path = tmp_path / "t.bearoff"
    onesided.build(path, 2, 2)
    data = path.read_bytes()
    for at, value, reason in ((11, 200, "points"), (12, 99, "checkers"), (20, 7, "entries")):
        damaged = bytearray(data)
        damaged[at] = value  # points, checkers, positions: still a checksummed file
        path.write_bytes(_with_checksum(bytes(damaged)))
        with pytest.raises(BearoffTableError, match=reason):
            onesided.OneSidedTable(path)


def test_a_checksummed_table_whose_index_points_outside_its_data_is_refused(tmp_path: Path) -> None:
    from gammon.bearoff.storage import write_table

    path = tmp_path / "t.bearoff"
    onesided.build(path, 3, 3)
    table = read_table(path, Kind.ONESIDED)
    sections = {name: np.array(table[name]) for name in ("start", "length", "offset", "rolls_sum", "data")}
    header = table.header
    del table
    longest = int(np.argmax(sections["length"].reshape(-1, 2)[:, 0]))  # rolls past the limit from 63
    for name, row, value in (("offset", 1, 10**6), ("start", longest, 63), ("length", 1, 255)):
        damaged = {key: array.copy() for key, array in sections.items()}
        damaged[name].reshape(-1, 2)[row, 0] = value  # checksummed, so only the bounds can tell
        write_table(path, header, damaged)
        with pytest.raises(BearoffTableError, match="outside the data"):
            onesided.OneSidedTable(path)


# -- the command ----------------------------------------------------------------------------
def _gammon(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from gammon.cli import main

    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.usefixtures("fresh_defaults")
def test_bearoff_query_and_show_answer_from_an_unwritable_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(defaults.CACHE_ENV, str(blocker))
    status, out, err = _gammon(["bearoff", "query", "1", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "1"], capsys)
    assert status == 0 and json.loads(out)["p_win"] == 1.0
    assert "for this run only" in err
    status, out, err = _gammon(["bearoff", "show", BEAROFF_POSITION], capsys)
    assert status == 0 and "wins" in out
    assert err == ""  # said once per process


@pytest.mark.usefixtures("fresh_defaults")
def test_hint_in_a_bearoff_answers_from_an_unwritable_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(defaults.CACHE_ENV, str(blocker))
    status, out, err = _gammon(["hint", BEAROFF_POSITION, "3", "1", "--player", "simple:0"], capsys)
    assert status == 0, err
    assert "3/off" in out
    assert "Traceback" not in err


@pytest.mark.usefixtures("fresh_defaults")
def test_hint_refuses_a_folder_in_a_tables_place_without_deleting_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(defaults.CACHE_ENV, str(tmp_path))
    defaults.onesided()
    folder = tmp_path / "bearoff" / twosided.table_name(defaults.DEFAULT_CHECKERS)
    folder.mkdir()
    defaults.clear_loaded()
    status, _, err = _gammon(["hint", BEAROFF_POSITION, "3", "1", "--player", "simple:0"], capsys)
    assert status == 1
    assert err.startswith("gammon: ") and str(folder) in err and "Traceback" not in err
    assert folder.is_dir()


# -- weights --------------------------------------------------------------------------------
def _npz(meta: object, **arrays: np.ndarray) -> io.BytesIO:
    net = Network.random(hidden=4)
    values = {name: getattr(net, name) for name in ("w1", "b1", "w2", "b2")}
    values.update(arrays)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, meta=np.array(json.dumps(meta)), **values)
    buffer.seek(0)
    return buffer


def _saved() -> bytes:
    buffer = io.BytesIO()
    net = Network.random(hidden=8)
    np.savez_compressed(buffer, meta=np.array(json.dumps(net.header())), w1=net.w1, b1=net.b1, w2=net.w2, b2=net.b2)
    return buffer.getvalue()


def test_flipped_bits_in_a_weights_file_are_network_file_errors() -> None:
    good = _saved()
    Network.load(io.BytesIO(good))
    messages = []
    for position in range(0, len(good), max(1, len(good) // 400)):
        for bit in (0, 5):
            damaged = bytearray(good)
            damaged[position] ^= 1 << bit
            try:
                Network.load(io.BytesIO(bytes(damaged)))
            except NetworkFileError as error:
                messages.append(str(error))
    assert messages
    assert any("decompressing" in m for m in messages)  # zlib's own error, as gammon's


@pytest.mark.parametrize("meta", [[1, 2], "gammon-nn", 3, None, [[[]]]])
def test_weights_metadata_that_is_not_an_object(meta: object) -> None:
    with pytest.raises(NetworkFileError, match="not a gammon weights file"):
        Network.load(_npz(meta))


@pytest.mark.parametrize("hidden", ["x", None, [4], 4.0, True, 0, -4, 10**30, "4"])
def test_a_bad_hidden_field_is_a_network_file_error(hidden: object) -> None:
    header = Network.random(hidden=4).header()
    header["hidden"] = hidden
    with pytest.raises(NetworkFileError, match="hidden"):
        Network.load(_npz(header))


def test_deeply_nested_metadata_is_a_network_file_error() -> None:
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.array("[" * 100_000))
    buffer.seek(0)
    with pytest.raises(NetworkFileError):
        Network.load(buffer)


def _archive(**members: bytes) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    buffer.seek(0)
    return buffer


def test_a_damaged_array_header_or_an_encrypted_member_is_a_network_file_error() -> None:
    header = b"{'descr': '<U2', 'fortran_order': False, 'shape': (,".ljust(118) + b"\n"
    unfinished = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header  # numpy's tokenizer fails
    with pytest.raises(NetworkFileError, match="damaged"):
        Network.load(_archive(**{"meta.npy": unfinished}))
    stored = io.BytesIO()
    np.savez(stored, meta=np.array("{}"))
    encrypted = bytearray(stored.getvalue())
    encrypted[encrypted.index(b"PK\x01\x02") + 8] |= 1  # the central directory's "encrypted" flag
    with pytest.raises(NetworkFileError, match="encrypted"):
        Network.load(io.BytesIO(bytes(encrypted)))


def test_a_folder_or_a_pipe_in_a_weights_files_place(tmp_path: Path) -> None:
    with pytest.raises(NetworkFileError, match="a folder, not a weights file"):
        Network.load(tmp_path)
    if hasattr(os, "mkfifo"):
        pipe = tmp_path / "weights.npz"
        os.mkfifo(pipe)
        error = _at_once(lambda: Network.load(pipe))
        assert isinstance(error, NetworkFileError) and "a named pipe" in str(error), error


def test_the_environment_variable_is_named_when_its_file_is_bad(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    damaged = tmp_path / "damaged.npz"
    data = bytearray(_saved())
    data[len(data) // 2 : len(data) // 2 + 64] = bytes(64)
    damaged.write_bytes(bytes(data))
    monkeypatch.setenv(nn_evaluator.ENVIRONMENT, str(damaged))
    with pytest.raises(NetworkFileError) as caught:
        nn_evaluator.load_network()
    assert str(damaged) in str(caught.value) and nn_evaluator.ENVIRONMENT in str(caught.value)
    assert isinstance(caught.value, GammonError) and isinstance(caught.value, ValueError)


def test_network_file_error_is_still_importable_from_the_net() -> None:
    from gammon.nn import NetworkFileError as from_package
    from gammon.nn.network import NetworkFileError as from_module

    assert from_package is from_module is NetworkFileError
    assert sys.modules["gammon.errors"].NetworkFileError is NetworkFileError
