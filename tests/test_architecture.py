"""The layers of docs/architecture.md, read from the code: every import (lazy ones too) points down.

Each module of ``src/gammon`` belongs to a unit (a subpackage, or a top-level module); each
unit to a layer. A unit may import the core and units of lower layers only; the core value
types (position, play, state, notation, ...) form one unit, as python-chess keeps them in one
module, but inside it too the modules import one way: no module imports another that imports
it back (the notations read and write plain fields, the value types call them; a compiled
kernel imports the plain steps it compiles, never the module that loads it). Imports are read
with ``ast``, so an import inside a function or under ``TYPE_CHECKING`` counts as much as one
at the top.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

from gammon.extras import SERVER_PACKAGES

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "gammon"

CORE = {"errors", "board", "movegen", "position", "play", "state", "variant", "notation", "dice", "diagram", "evaluation",
        "ubgi", "workers", "data", "lines", "svg", "extras", "compiled"}

#: Layer of each unit above the core (the core is layer 0). Same number: neither imports the other.
LAYERS = {
    "referee": 1,
    "events": 2,  # typed match events: what applying an action returns
    "engine": 1,  # the engine client: core only, as chess.engine imports only chess
    "match": 3,
    "narration": 3,  # the one narrator: an event as a sentence for a listener
    "cube": 2,
    "bearoff": 2,
    "gammon": 4,  # the package's own __init__: the public API of the core and the match
    "record": 4,  # match records (.mat, SGF), replayed through the match
    "bots": 4,
    "nn": 5,
    "rollout": 5,  # rollouts: bots' evaluators, search and cube decisions; players name them rollout:N
    "players": 6,
    "duel": 7,
    "train": 7,
    "engine_server": 7,
    "conformance": 7,
    "analysis": 7,
    "server": 8,  # hosts the analysis of finished matches (gammon.analysis)
    "cli": 9,
    "__main__": 10,
}


def layer(unit: str) -> int:
    return 0 if unit in CORE else LAYERS[unit]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(module: str) -> str:
    parts = module.split(".")
    return "gammon" if len(parts) == 1 else parts[1]


def resolve(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    """The gammon modules an ``from ... import ...`` names (``from . import movegen`` names gammon.movegen)."""
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    targets = []
    for alias in node.names:
        candidate = f"{prefix}.{alias.name}"
        path = PACKAGE.parent.joinpath(*candidate.split("."))
        targets.append(candidate if path.with_suffix(".py").exists() or path.is_dir() else prefix)
    return targets


def imports() -> dict[str, set[tuple[str, str]]]:
    """For each module: the gammon modules it imports, with the line that does."""
    found: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = resolve(module, path.name == "__init__.py", node)
            else:
                continue
            for target in targets:
                if target == "gammon" or target.startswith("gammon."):
                    found[module].add((target, f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"))
    return found


def test_every_unit_has_a_layer() -> None:
    units = {unit_of(module_name(path)) for path in PACKAGE.rglob("*.py")}
    missing = sorted(unit for unit in units if unit not in CORE and unit not in LAYERS)
    assert not missing, f"units with no layer in docs/architecture.md and this test: {missing}"


def test_imports_point_down() -> None:
    upward = []
    for module, targets in imports().items():
        source = unit_of(module)
        for target, where in sorted(targets):
            destination = unit_of(target)
            if source == destination or (source in CORE and destination in CORE):
                continue
            if not layer(destination) < layer(source):
                upward.append(f"{where}: {source} (layer {layer(source)}) imports {target} (layer {layer(destination)})")
    assert not upward, "imports that do not point down:\n" + "\n".join(upward)


def test_no_cycle_between_packages() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in imports().items():
        for target, _ in targets:
            a, b = unit_of(module), unit_of(target)
            if a != b and not (a in CORE and b in CORE):
                graph[a].add(b)
    state: dict[str, int] = {}

    def visit(unit: str, trail: list[str]) -> None:
        state[unit] = 1
        for nxt in sorted(graph[unit]):
            if state.get(nxt) == 1:
                pytest.fail("cycle: " + " -> ".join(trail[trail.index(nxt):] + [unit, nxt]) if nxt in trail
                            else f"cycle: {unit} -> {nxt}")
            if nxt not in state:
                visit(nxt, trail + [unit])
        state[unit] = 2

    for unit in sorted(graph):
        if unit not in state:
            visit(unit, [])


#: The one way back inside the core: a value type's picture for notebooks (``_repr_svg_``) is
#: drawn by gammon.svg, which sits above the value types; the method imports it when called.
PICTURES = {("gammon.position", "gammon.svg", "_repr_svg_"), ("gammon.state", "gammon.svg", "_repr_svg_")}

def module_of(target: str, modules: set[str]) -> str:
    """The module an import names (``gammon.notation.MAX_CUBE`` is in gammon.notation)."""
    while target not in modules and "." in target:
        target = target.rsplit(".", 1)[0]
    return target


def module_graph() -> dict[str, set[str]]:
    """Every module's imports of other gammon modules, lazy ones included, pictures left out."""
    modules = {module_name(path) for path in PACKAGE.rglob("*.py")}
    picture_lines = set()
    for module, target, function in PICTURES:
        path = PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == function:
                picture_lines |= {(module, target, f"{path.relative_to(PACKAGE.parent)}:{inner.lineno}")
                                  for inner in ast.walk(node) if isinstance(inner, ast.ImportFrom)}
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in imports().items():
        for target, where in targets:
            found = module_of(target, modules)
            if found != module and (module, found, where) not in picture_lines:
                graph[module].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_cycle_between_modules() -> None:
    """Value types and notations, records and their formats, kernels and their steps: one way."""
    found = [sorted(c) for c in cycles(module_graph())]
    assert not found, "modules that import each other (lazy imports included):\n" + "\n".join(map(str, found))


def test_cycles_are_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_pictures_are_the_only_way_back() -> None:
    """The value types import gammon.svg only inside ``_repr_svg_``."""
    graph = module_graph()
    assert "gammon.svg" not in graph["gammon.position"] and "gammon.svg" not in graph["gammon.state"]
    assert {"gammon.position", "gammon.state"} <= {m for m, targets in imports().items()
                                                    if any(t.startswith("gammon.svg") for t, _ in targets)}


#: What the notations may import: the board's conventions, errors, rule variants, the kernel
#: (move text is played out on kernel boards), numba's set-up (the Position ID kernel) and each
#: other. notation.pbm reads a move against a position, so it sits above the value types and may
#: call them.
NOTATION_MAY_IMPORT = {"gammon.board", "gammon.errors", "gammon.variant", "gammon.movegen", "gammon.compiled"}


def test_the_notations_read_and_write_plain_fields() -> None:
    modules = {module_name(path) for path in PACKAGE.rglob("*.py")}
    wrong = []
    for module, targets in imports().items():
        if not module.startswith("gammon.notation") or module == "gammon.notation.pbm":
            continue
        for target, where in sorted(targets):
            found = module_of(target, modules)
            if found not in NOTATION_MAY_IMPORT and not found.startswith("gammon.notation"):
                wrong.append(f"{where}: {module} imports {found}")
    assert not wrong, "notations that reach the value types:\n" + "\n".join(wrong)


def test_kernels_import_no_module_that_loads_them() -> None:
    """A compiled kernel (``_*_kernel(s).py``) takes its plain steps and constants from modules
    below it, never from the module that imports it."""
    graph = module_graph()
    kernels = [m for m in graph if m.rsplit(".", 1)[-1].startswith("_") and "_kernel" in m]
    assert len(kernels) >= 5
    wrong = [f"{kernel} imports {target}, which imports it" for kernel in kernels
             for target in graph[kernel] if kernel in graph.get(target, ())]
    assert not wrong, "\n".join(wrong)


def test_the_engine_client_needs_only_the_core() -> None:
    outside = [f"{where}: {target}" for module, targets in imports().items() if unit_of(module) == "engine"
               for target, where in targets if unit_of(target) not in CORE and unit_of(target) != "engine"]
    assert not outside, "gammon.engine imports beyond the core:\n" + "\n".join(outside)


def test_the_document_lists_every_layer() -> None:
    text = (PACKAGE.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [unit for unit in [*LAYERS, *CORE] if unit not in ("gammon", "__main__", "data") and f"`{unit}" not in text]
    assert not missing, f"docs/architecture.md does not name: {missing}"


#: The only places outside ``gammon.server`` that may import the server's packages, each inside
#: the function that needs it (so the library imports without ``gammon[server]``): the terminal's
#: client of a server and its key reader, and the command that runs the server.
SERVER_PACKAGE_USERS = {
    ("gammon.cli.table", "httpx"),
    ("gammon.cli.table", "websockets"),
    ("gammon.cli.play", "prompt_toolkit"),
    ("gammon.cli.serve", "uvicorn"),
}


def outside_imports() -> list[tuple[str, str, str, bool]]:
    """Every import of a package other than gammon: (module, top-level package, where, inside a function)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        lazy: set[ast.AST] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lazy.update(ast.walk(node))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top != "gammon":
                    where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
                    found.append((module, top, where, node in lazy))
    return found


def test_the_server_packages_stay_in_the_server() -> None:
    wrong = []
    for module, package, where, in_function in outside_imports():
        if package not in SERVER_PACKAGES or unit_of(module) == "server":
            continue
        if (module, package) not in SERVER_PACKAGE_USERS:
            wrong.append(f"{where}: {module} imports {package}, a package of gammon[server]")
        elif not in_function:
            wrong.append(f"{where}: {module} imports {package} at the top; import it where it is used")
    assert not wrong, "the server's packages outside gammon.server:\n" + "\n".join(wrong)
    seen = {(module, package) for module, package, _, _ in outside_imports()}
    assert seen >= SERVER_PACKAGE_USERS, f"allowed but unused, remove: {sorted(SERVER_PACKAGE_USERS - seen)}"


#: The server's inside (docs/architecture.md, "Inside the server"): each part imports parts of lower
#: layers only. Routes know HTTP and ask the runtime's services; the services own the SQL and the
#: rules around the referee; below them, the writer, the readers, the settings and the tables.
SERVER_LAYERS = {
    "errors": 0,
    "settings": 1, "models": 1,
    "database": 2, "limits": 2, "security": 2, "migrations": 2,
    "writer": 3,
    "matches": 4,
    "accounts": 5, "notify": 5, "profiles": 5, "board": 5,
    "seats": 6, "replays": 6,
    "pbm": 7, "warmup": 7, "analyses": 7,
    "runtime": 8,
    "routes": 9,
    "app": 10,
}


def server_part(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["gammon", "server"] or len(parts) < 3:
        return None
    return parts[2]


def test_the_server_inside_points_down() -> None:
    modules = {module_name(path) for path in PACKAGE.rglob("*.py")}
    parts = {server_part(m) for m in modules} - {None}
    assert parts <= set(SERVER_LAYERS), f"server parts with no layer: {sorted(parts - set(SERVER_LAYERS))}"
    wrong = []
    for module, targets in imports().items():
        part = server_part(module)
        if part is None:
            continue
        for target, where in sorted(targets):
            other = server_part(module_of(target, modules))
            if other is None or other == part:
                continue
            if not SERVER_LAYERS[other] < SERVER_LAYERS[part]:
                wrong.append(f"{where}: {part} (layer {SERVER_LAYERS[part]}) imports {other} "
                             f"(layer {SERVER_LAYERS[other]})")
    assert not wrong, "server parts that do not point down:\n" + "\n".join(wrong)


def test_only_the_match_store_queries_the_match_tables() -> None:
    """The match service's tables (matches, events, rating changes) are named by its store alone."""
    wrong = []
    for path in sorted((PACKAGE / "server").rglob("*.py")):
        if path.name == "store.py" or "migrations" in path.parts or path.name == "models.py":
            continue
        text = path.read_text(encoding="utf-8")
        for table in ("MATCHES", "EVENTS", "RATING_CHANGES", "MatchRow", "Event.__table__"):
            if re.search(rf"\b{re.escape(table)}\b", text):
                wrong.append(f"{path.relative_to(PACKAGE.parent)} names {table}")
    assert not wrong, "\n".join(wrong)


def test_no_module_reaches_another_modules_private_names() -> None:
    """``other._name`` and ``from other import _name`` stay inside the module that owns the name."""
    modules = {module_name(path) for path in PACKAGE.rglob("*.py")}
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for target, alias in zip(resolve(module, path.name == "__init__.py", node), node.names):
                    if target in modules:
                        aliases[alias.asname or alias.name] = target
                    elif alias.name.startswith("_") and not alias.name.startswith("__") \
                            and module_of(target, modules) != module:
                        wrong.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: imports {alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("gammon"):
                        aliases[alias.asname or alias.name.split(".")[0]] = alias.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value.id}.{node.attr}")
    assert not wrong, "private names reached from outside their module:\n" + "\n".join(wrong)
