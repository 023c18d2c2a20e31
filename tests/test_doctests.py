"""The examples in the package's docstrings run and say what they print."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import gammon

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(gammon.__path__, "gammon.")
    if not info.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
