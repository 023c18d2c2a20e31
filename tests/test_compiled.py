"""numba set up in one place (gammon.compiled): the cache's folder, kernels of one signature, compiling
ahead on every core with a count on the terminal, and the list of sources that names the folder."""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pexpect
import pytest

from gammon import compiled, movegen
from gammon.workers import available_cores
from gammon.nn import features

PACKAGE = Path(compiled.__file__).resolve().parent

#: Modules the kernels import Python names from that numba never compiles: classes, errors, pools,
#: the value types (the opening board a trainer copies is the rules' own, never edited).
NOT_COMPILED = {"errors", "play", "variant", "position", "dice", "workers", "cube.context", "bearoff",
                "train.settings", "compiled"}

#: Three kernels, one calling the next, and one alone: what a command's first call compiles.
TINY = '''
import numpy as np
from gammon.compiled import kernel

@kernel("(readonly(int64[::1]),)")
def total(values):
    s = 0
    for v in values:
        s += v
    return s

@kernel("(readonly(int64[::1]), int64)")
def scaled(values, k):
    return k * total(values)

@kernel("(readonly(int64[::1]),)")
def twice(values):
    return scaled(values, 2)

@kernel("(float64,)")
def alone(x):
    return x + 1.0
'''


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> dict[str, set[str]]:
    """The gammon modules ``path`` imports names from (relative imports), with the names."""
    name = _module_name(path).split(".")
    base = name if path.name == "__init__.py" else name[:-1]
    found: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            parent = base[: len(base) - (node.level - 1)]
            module = ".".join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:
                full = f"{module}.{alias.name}" if module else alias.name
                is_module = (PACKAGE / f"{full.replace('.', '/')}.py").exists() or (PACKAGE / full.replace(".", "/")).is_dir()
                found.setdefault(full if is_module else module, set()).add(alias.name)
    return found


def test_every_source_numba_compiles_names_the_cache_folder() -> None:
    """Each module with kernels is in KERNEL_SOURCES, and so is every module they take a name
    from, unless it is one numba never compiles: an edit to any of them starts a new folder."""
    kernels = {_module_name(path) for path in PACKAGE.rglob("*.py") if "kernel" in _imports(path).get("compiled", ())}
    assert kernels <= set(compiled.KERNEL_SOURCES), sorted(kernels - set(compiled.KERNEL_SOURCES))
    unlisted = {f"{module} takes names from {target}"
                for module in kernels
                for target in _imports(PACKAGE.joinpath(*module.split(".")).with_suffix(".py"))
                if target not in compiled.KERNEL_SOURCES and target not in NOT_COMPILED}
    assert not unlisted, sorted(unlisted)
    assert all(PACKAGE.joinpath(*module.split(".")).with_suffix(".py").is_file() for module in compiled.KERNEL_SOURCES)


def test_the_folder_is_named_by_numba_python_and_the_sources(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(compiled.NUMBA_ENV, raising=False)
    monkeypatch.setenv(compiled.CACHE_ENV, str(tmp_path))
    digest = compiled.sources_digest()
    assert len(digest) == 16 and int(digest, 16) >= 0
    python = f"py{sys.version_info[0]}.{sys.version_info[1]}"
    assert compiled.cache_folder() == tmp_path / "numba" / f"{numba.__version__}-{python}-{digest}"
    monkeypatch.setattr(compiled, "KERNEL_SOURCES", (*compiled.KERNEL_SOURCES[:-1],))
    assert compiled.sources_digest() != digest  # other sources, another folder
    monkeypatch.setenv(compiled.NUMBA_ENV, str(tmp_path / "mine"))
    assert compiled.cache_folder() == tmp_path / "mine"  # the user's choice wins


def test_this_session_shares_one_folder_with_every_process_it_starts() -> None:
    assert os.environ[compiled.NUMBA_ENV] == str(compiled.cache_folder())
    assert os.environ[compiled.NUMBA_ENV] == numba.config.CACHE_DIR
    assert compiled.cache_root() == Path(os.environ[compiled.CACHE_ENV])  # the tables stay private


def test_a_kernel_compiles_once_whatever_its_callers_pass(tmp_path: Path) -> None:
    board = np.zeros(26, np.int8)
    board[6], board[19] = 15, -15
    buffers = movegen.play_buffers()
    assert movegen.generate_into(board, 3, 1, *buffers, False) == movegen.generate_into(board, np.int8(3), np.int8(1),
                                                                                         *buffers, False)
    frozen = board.copy()
    frozen.setflags(write=False)
    assert movegen.board_class(frozen) == movegen.board_class(board)  # a read-only board converts
    features.encode(board, np.empty(features.INPUTS))
    for kernel in (movegen.generate_into, movegen.board_class, features.encode):
        assert list(kernel.overloads) == [kernel.declared], kernel
    # Compiled here (as a worker does): a kernel's callee, passed a literal 2 by its caller and an
    # int8 from Python, still has its one signature.
    (tmp_path / "tiny.py").write_text(textwrap.dedent(TINY))
    script = ("import numpy as np, tiny\nfrom gammon import compiled\ncompiled._state['worker'] = True\n"
              "values = np.arange(4)\n"
              "print(tiny.twice(values), tiny.scaled(values, np.int8(3)), tiny.scaled(values, 3), "
              "[list(f.overloads) == [f.declared] for f in (tiny.total, tiny.scaled, tiny.twice)])\n")
    env = {**os.environ, compiled.NUMBA_ENV: str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "12 18 18 [True, True, True]\n"


def test_a_call_it_cannot_convert_names_the_types() -> None:
    with pytest.raises(TypeError, match=r"No matching definition for argument type\(s\) array\(int64, 1d, C\)"):
        movegen.board_class(np.zeros(26, np.int64))


def test_a_kernel_declares_its_signature_unless_it_is_inlined() -> None:
    with pytest.raises(TypeError, match="needs its signature"):
        compiled.kernel()(lambda x: x)


def test_the_count_is_told_on_a_terminal_and_elsewhere_only_when_it_takes_long(
        monkeypatch: pytest.MonkeyPatch) -> None:
    quick = io.StringIO()
    count = compiled._Count(3, quick, "gammon: ")
    count.show(1)
    count.close(3)
    assert quick.getvalue() == ""  # a batch mode's stderr stays clean when nothing took long
    monkeypatch.setattr(compiled, "QUIET_SECONDS", 0.0)
    slow = io.StringIO()
    count = compiled._Count(3, slow, "gammon serve: ")
    count.show(1)
    count.show(2)  # told once, not once a kernel
    count.close(3)
    lines = slow.getvalue().splitlines()
    assert lines[0].startswith("gammon serve: compiling the engine (1/3 kernels, ")
    assert lines[1].startswith("gammon serve: compiled the engine (3 kernels) in ") and len(lines) == 2


def test_the_first_call_compiles_every_imported_kernel_in_workers_counted_on_the_terminal(tmp_path: Path) -> None:
    """A fresh cache: the first call compiles all four kernels (callees first) in worker processes,
    counting them on the terminal (a line that stays only when it took 2 s or more); a second
    process loads them without a word."""
    (tmp_path / "tiny.py").write_text(textwrap.dedent(TINY))
    env = {**os.environ, compiled.NUMBA_ENV: str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    script = ("import numpy as np, tiny\nfrom gammon import compiled\n"
              "assert compiled.calls(tiny.twice) == {tiny.scaled, tiny.total}\n"
              "print('answer', tiny.twice(np.arange(4)), tiny.alone(1.0), tiny.twice.stats.cache_hits.total())\n")
    child = pexpect.spawn(sys.executable, ["-c", script], env=env, timeout=600, encoding="utf-8")
    child.expect(r"compiling the engine \(0/4 kernels")
    child.expect(r"compiling the engine \(4/4 kernels")  # redrawn in place as they come
    hits = 1 if available_cores() > 1 else 0  # loaded from the cache the workers wrote: compiled elsewhere
    child.expect(rf"answer 12 2\.0 {hits}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    again = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "answer 12 2.0 1\n" and again.stderr == ""  # loaded, silently
    assert len(list((tmp_path / "cache" / "compiled").iterdir())) == 4
    (tmp_path / "tiny.py").write_text(textwrap.dedent(TINY) + "\n# edited\n")  # an edited source compiles again
    edited = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert edited.returncode == 0 and "answer 12 2.0 1" in edited.stdout, edited.stderr
    assert len(list((tmp_path / "cache" / "compiled").iterdir())) == 8
