"""Every exception class gammon defines survives pickling, by itself and through a worker
process, so a duel's or a trainer's worker that fails reaches the parent with its own error
instead of hanging the pool (``gammon.workers``)."""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil

import pytest

import gammon
from gammon.workers import Workers

#: Seconds after which a worker's result counts as never coming: a hang guard, not a speed check.
HANG_GUARD = 60


def exception_classes() -> list[type[BaseException]]:
    """Every exception class defined in a gammon module, found by importing the whole package."""
    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(gammon.__path__, "gammon."):
        if module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__ == module.__name__):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[key] for key in sorted(found)]


CLASSES = exception_classes()


def sample(cls: type[BaseException]) -> BaseException:
    """An instance made through the class's own ``__init__``, every parameter a distinct text."""
    try:
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError):  # a C-level __init__ (BaseException's): one message
        parameters = []
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not positional or any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return cls(f"{cls.__name__} message")
    return cls(*[f"{p.name}-of-{cls.__name__}" for p in positional])


def same(a: BaseException, b: BaseException) -> bool:
    return type(a) is type(b) and str(a) == str(b) and a.args == b.args and vars(a) == vars(b)


def test_the_walk_finds_the_errors_that_once_broke_pools() -> None:
    names = {cls.__name__ for cls in CLASSES}
    assert {"EngineCommandError", "UnsupportedFeatureError", "NotationError", "TableFolderError",
            "CommandError", "CheckSetupError", "SearchInterrupted"} <= names
    assert len(CLASSES) >= 30


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_every_error_survives_pickle(cls: type[BaseException]) -> None:
    error = sample(cls)
    assert same(pickle.loads(pickle.dumps(error)), error)


def _raise(index: int) -> None:
    raise sample(CLASSES[index])


def test_every_error_comes_back_from_a_worker_process_as_itself() -> None:
    with Workers(2) as pool:
        for index, cls in enumerate(CLASSES):
            results = pool.imap(_raise, [index])
            with pytest.raises(cls) as raised:
                results.next(HANG_GUARD)  # type: ignore[attr-defined]  # a pool's iterator: a deadline
            assert same(raised.value, sample(cls))


class _Unpicklable(Exception):
    """An error of the kind other libraries raise: its __init__ takes what its args do not hold."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(f"{code}: {text}")


def _fail_oddly(task: tuple) -> tuple[list, set[str]]:
    raise _Unpicklable(7, "odd")


def test_a_duel_worker_error_that_cannot_cross_comes_back_named() -> None:
    from gammon.duel import DuelWorkerError, _Crossing

    with pytest.raises(Exception):  # noqa: B017 - whichever error pickle raises for it
        pickle.loads(pickle.dumps(_Unpicklable(7, "odd")))
    with Workers(2) as pool:
        results = pool.imap(_Crossing(_fail_oddly), [(0, [0])])
        with pytest.raises(DuelWorkerError, match="_Unpicklable: 7: odd"):
            results.next(HANG_GUARD)  # type: ignore[attr-defined]
