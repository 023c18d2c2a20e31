"""The test suite itself: every test function checks something, so that none can pass by doing nothing.

Read with ``ast``, not run. A test checks something when its body has an ``assert``, expects an
exception (``pytest.raises``, ``pytest.fail``), raises one of its own, lets only named errors
escape (``try: ... except RecordError: pass``: any other error fails it), calls an ``assert...``
function (numpy's testing helpers), or calls a helper that does one of those: its own, this
folder's support modules' or the fuzz harness's.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
CHECKING_CALLS = {"raises", "fail", "warns"}


def _called_names(node: ast.AST) -> set[str]:
    """The last part of every name called in ``node``: ``f`` for ``f(...)`` and ``a.b.f(...)``."""
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            if isinstance(call.func, ast.Name):
                names.add(call.func.id)
            elif isinstance(call.func, ast.Attribute):
                names.add(call.func.attr)
    return names


def _checks_directly(node: ast.AST) -> bool:
    for child in ast.walk(node):
        if isinstance(child, ast.Assert):
            return True
        if isinstance(child, ast.Raise) and child.exc is not None:  # a helper's own failure
            return True
        if isinstance(child, ast.Try) and child.handlers and all(_named_error(h.type) for h in child.handlers):
            return True  # only the errors it names may escape; any other fails the test
    return any(name in CHECKING_CALLS or name.startswith("assert") for name in _called_names(node))


def _named_error(node: ast.expr | None) -> bool:
    """Whether an ``except`` names errors narrower than everything."""
    names = node.elts if isinstance(node, ast.Tuple) else [node] if node is not None else []
    return bool(names) and not any(isinstance(n, ast.Name) and n.id in ("Exception", "BaseException") for n in names)


@functools.cache
def _functions(path: Path) -> dict[str, ast.AST]:
    """Functions and methods by name, nested ones included (a test's local helpers)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name: node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


#: The helpers every test file may call: this folder's support modules and the fuzz harness.
SHARED = [path for path in sorted(TESTS.glob("*.py")) if not path.name.startswith("test_")] + \
    sorted((TESTS.parent / "fuzz").glob("*.py"))


_READ: dict[int, tuple[bool, set[str]]] = {}


def _read(node: ast.AST) -> tuple[bool, set[str]]:
    """(whether ``node`` checks directly, the names it calls), worked out once per function."""
    if id(node) not in _READ:
        _READ[id(node)] = (_checks_directly(node), _called_names(node))
    return _READ[id(node)]


def _checking(functions: dict[str, ast.AST]) -> set[str]:
    """Names of the functions that check something, directly or through another of them."""
    checking = {name for name, node in functions.items() if _read(node)[0]}
    while True:
        more = {name for name, node in functions.items() if name not in checking and _read(node)[1] & checking}
        if not more:
            return checking
        checking |= more


SHARED_FUNCTIONS: dict[str, ast.AST] = {}
for _path in SHARED:
    SHARED_FUNCTIONS.update(_functions(_path))
TEST_FILES = sorted(path.name for path in TESTS.glob("test_*.py"))


def test_the_test_files_are_found() -> None:
    assert "test_suite.py" in TEST_FILES and len(TEST_FILES) > 50


@pytest.mark.parametrize("name", TEST_FILES)
def test_every_test_checks_something(name: str) -> None:
    functions = {**SHARED_FUNCTIONS, **_functions(TESTS / name)}
    helpers = _checking(functions)
    tests = [node for key, node in _functions(TESTS / name).items() if key.startswith("test_")]
    assert tests, f"{name} holds no test"
    idle = [test.name for test in tests if test.name not in helpers]  # type: ignore[attr-defined]
    assert idle == [], f"{name}: these tests check nothing (no assert, no expected error, no checking helper)"
