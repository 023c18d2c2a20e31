"""``pip install gammon`` is the library alone: every module imports without an extra, and a
command that needs one says which in one line.

The environment without extras is this interpreter with an import system that refuses every
optional package of :data:`gammon.extras.EXTRAS` (as if they were not installed), in a fresh
process: quicker than a throw-away virtual environment, and it fails the same way.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

from gammon.extras import EXTRAS, SERVER_PACKAGES, MissingExtraError, missing_extra, require

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "gammon"

#: Run first in the child: every optional package is "not installed".
REFUSE = textwrap.dedent(f"""
    import importlib.abc, sys

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in {sorted(EXTRAS)!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return None

    sys.meta_path.insert(0, Refuse())
""")


def _without_extras(code: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", REFUSE + textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def _library_modules() -> list[str]:
    """Every module of the package but the server's."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if parts[:2] != ("gammon", "server") and parts != ("gammon", "__main__"):
            names.append(".".join(parts))
    return names


def test_the_refusal_works() -> None:
    result = _without_extras("import fastapi")
    assert result.returncode != 0 and "No module named 'fastapi'" in result.stderr


def test_every_library_module_imports_without_extras() -> None:
    modules = _library_modules()
    assert "gammon.cli.play" in modules and "gammon.notation.xgid" in modules
    result = _without_extras(f"""
        import importlib
        for name in {modules!r}:
            importlib.import_module(name)
        print(sorted(m for m in sys.modules if m.partition(".")[0] in {sorted(EXTRAS)!r}))
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_library_works_without_extras() -> None:
    result = _without_extras("""
        from gammon import GameState, Position
        from gammon.players import hint
        state = GameState.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:1:0:10")
        print(state.gnubg_id(), str(hint(Position(), 3, 1, player="pubeval")[0].play))
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["4HPwATDgc/ABMA:cIkFAAAAAAAA", "8/5", "6/5"]


def _command(*argv: str) -> subprocess.CompletedProcess[str]:
    return _without_extras(f"""
        from gammon.cli import main
        sys.exit(main({list(argv)!r}))
    """)


def test_a_command_that_needs_the_server_says_so_in_one_line() -> None:
    for argv in (["serve", "--port", "0"], ["play", "--server", "http://127.0.0.1:9", "--user", "ann", "--words"]):
        result = _command(*argv)
        assert result.returncode == 1, (argv, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "pip install 'gammon[server]'" in lines[0], (argv, result.stderr)
        assert "Traceback" not in result.stderr


def test_single_keys_without_prompt_toolkit_name_the_extra() -> None:
    """``gammon play`` in a terminal falls back on typed words (it says why); ``--keys`` fails in one line."""
    result = _without_extras("""
        from gammon.cli.play import key_reader
        from gammon.extras import MissingExtraError
        try:
            key_reader()
        except MissingExtraError as error:
            print(error.extra, "|", error)
    """)
    expected = "server | single keys needs prompt_toolkit, which is not installed: pip install 'gammon[server]'"
    assert result.stdout.strip() == expected


def test_a_command_that_needs_no_extra_runs() -> None:
    result = _command("convert", "4HPwATDgc/ABMA:cIkFAAAAAAAA", "--to", "xgid")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("XGID=")


def test_require_names_the_extra() -> None:
    assert require("json", "reading").dumps([]) == "[]"
    result = _without_extras("""
        from gammon.extras import MissingExtraError, require
        try:
            require("cairosvg", "--png")
        except MissingExtraError as error:
            print(error.extra, "|", error)
    """)
    assert result.stdout.strip() == "png | --png needs cairosvg, which is not installed: pip install 'gammon[png]'"
    assert missing_extra(ModuleNotFoundError("No module named 'ray'", name="ray"), "x").extra == "ray"
    assert missing_extra(ModuleNotFoundError("No module named 'nothing'", name="nothing"), "x") is None
    assert isinstance(MissingExtraError("redis", "x"), ImportError)


def test_pyproject_agrees_with_the_extras_table() -> None:
    """The core needs none of the optional packages; each is in the extra the table names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def name(requirement: str) -> str:
        for stop in "<>=[ ;":
            requirement = requirement.split(stop)[0]
        return requirement.lower().replace("-", "_")

    distribution = {"argon2": "argon2_cffi"}  # import name -> distribution name, where they differ
    core = {name(r) for r in project["dependencies"]}
    assert not core & {distribution.get(p, p) for p in EXTRAS}, core
    extras = project["optional-dependencies"]
    for package, extra in EXTRAS.items():
        if package in ("starlette", "pydantic"):  # FastAPI's own
            continue
        assert distribution.get(package, package) in {name(r) for r in extras[extra]}, (package, extra)
    assert {"fastapi", "sqlalchemy", "httpx", "websockets", "prompt_toolkit"} <= SERVER_PACKAGES
