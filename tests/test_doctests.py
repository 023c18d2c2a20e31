"""The examples in the package's docstrings run and say what they print.

Only modules whose source holds an example (a ``>>>`` line) are collected, and each must run
at least one: a module whose examples doctest cannot find (a ``>>>`` outside any docstring, a
docstring hidden from doctest) fails instead of passing with nothing tried.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import gammon

PACKAGE = Path(gammon.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = sorted(
    _module_name(path) for path in PACKAGE.rglob("*.py")
    if path.name != "__main__.py" and ">>> " in path.read_text(encoding="utf-8")
)


def test_the_modules_with_examples_are_found() -> None:
    # the core's value types document themselves by example; an empty list would test nothing
    assert {"gammon.position", "gammon.play", "gammon.state", "gammon.notation"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has '>>> ' in its source but doctest found no example to run"
    assert result.failed == 0
