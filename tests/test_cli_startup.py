"""A command line that starts at once: what each command imports, never how long it takes.

Commands that need no kernel (reading and writing notations, help, version) must not import
numba nor the move-generation kernel; their speed is measured in bench/cli.py.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib.metadata import version

import numpy as np
import pytest

from gammon import movegen, play
from gammon.cli import COMMAND_MODULES, COMMANDS, build_parser
from gammon.errors import NotationError
from gammon.notation import position_id

#: Runs ``gammon ARGS`` in this interpreter, then writes the names of the loaded modules
#: as the last line of stderr.
WRAPPER = """
import json, sys
from gammon.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as exit:
    status = exit.code
sys.stdout.flush()
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(status)
"""

POSITION = "4HPwATDgc/ABMA"
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


def run_gammon(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    result = subprocess.run([sys.executable, "-c", WRAPPER, *args], capture_output=True, text=True, timeout=120)
    *_, last = result.stderr.rstrip("\n").split("\n")
    return result, set(json.loads(last))


@pytest.mark.parametrize(
    "args",
    [
        ("convert", POSITION, "--to", "bpn"),
        ("convert", XGID, "--to", "gnubgid"),
        ("convert", POSITION, "--to", "xgid"),
        ("convert", POSITION, "--to", "fibs"),
        ("convert", XGID, "--to", "pid"),
        ("show", POSITION),
        ("show", XGID, "--plain"),
        ("--help",),
        ("--version",),
        ("show", "--help"),
        (),
    ],
    ids=lambda args: " ".join(args) or "no arguments",
)
def test_commands_without_a_kernel_load_neither_numba_nor_the_kernel(args: tuple[str, ...]) -> None:
    result, modules = run_gammon(*args)
    assert result.returncode in (0, 2), result.stderr  # 2: no command, usage printed
    assert "Traceback" not in result.stderr
    assert "numba" not in modules
    assert "gammon.movegen" not in modules
    # numpy is no kernel, but loading it would take half of the time convert is allowed.
    assert "numpy" not in modules


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize(
    ("args", "status", "told"),
    [
        # one checker on the 6-point: off in one roll unless it is 1-1, 2-1, 1-2, 2-2 ... 1.25 rolls
        (("bearoff", "query", "0", "0", "0", "0", "0", "1"), 0, '"mean_rolls": 1.25000'),
        (("bearoff", "query", "1", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "1"), 0,
         '"method": "two-sided"'),
        (("bearoff", "query", "3", "3", "3", "3", "3", "0", "0", "0", "0", "0", "0", "15"), 0,
         '"method": "one-sided"'),
        (("bearoff", "show", "4HPwATDgc/ABMA"), 1, "is not a bear-off position"),  # refused, with the reason
        (("bearoff", "show", "d3cHAAB3dwcAAA"), 0, "expected rolls 7.3680"),  # 3 on each of points 1-5, a side
    ],
    ids=["query one-sided", "query two-sided", "query one-sided estimate", "show refused", "show"],
)
def test_lookups_in_built_bearoff_tables_load_neither_numba_nor_the_kernel(args: tuple[str, ...], status: int,
                                                                           told: str) -> None:
    result, modules = run_gammon(*args)
    assert result.returncode == status, result.stderr
    assert told in (result.stdout if status == 0 else result.stderr), result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "numba" not in modules
    assert "gammon.movegen" not in modules


def test_a_kernel_command_still_runs_the_kernel() -> None:
    result, modules = run_gammon("moves", POSITION, "3", "1")
    assert result.returncode == 0, result.stderr
    assert "16 legal plays" in result.stdout
    assert "gammon.movegen" in modules


def test_a_command_imports_only_its_own_module() -> None:
    result, modules = run_gammon("convert", POSITION, "--to", "bpn")
    assert result.returncode == 0, result.stderr
    assert {m for m in modules if m in COMMAND_MODULES} == {"gammon.cli.positions"}


def test_version_is_the_installed_distributions() -> None:
    result, _ = run_gammon("--version")
    assert result.returncode == 0
    assert result.stdout == f"gammon {version('gammon')}\n"


def test_help_lists_every_command_with_the_line_its_module_gives() -> None:
    parser = build_parser()  # every module registered in full
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    registered = {choice.dest: choice.help for choice in subparsers._choices_actions}
    assert registered == {command: text for command, (_, text) in COMMANDS.items()}
    for command, (module, _) in COMMANDS.items():
        assert subparsers.choices[command].get_default("handler").__module__ == module


def test_the_board_constants_of_play_are_the_kernels() -> None:
    assert play.BAR == movegen.OWN_BAR
    assert play.OFF == movegen.OFF


@pytest.mark.parametrize("text", [POSITION, "4HPwATDgc/ABMA", "jGfkASjg8wcBMA", "AAAAAAAAAAAAAA", "4HPwATDgc/ABM!",
                                  "////////////AA", "4HPwATDgc/ABMB"])
def test_one_position_id_in_python_is_what_the_compiled_batch_gives(text: str) -> None:
    boards, status = position_id.decode_batch(np.frombuffer(text.encode("ascii"), np.uint8).reshape(1, 14).copy())
    if status[0] == position_id.OK:
        assert position_id.decode(text) == boards[0].tolist()
        assert position_id.encode(boards[0]) == text
        assert position_id.encode_batch(boards).tobytes().decode("ascii") == text
    else:
        with pytest.raises(NotationError, match=position_id.STATUS_TEXT[int(status[0])].split(" ")[0]):
            position_id.decode(text)
