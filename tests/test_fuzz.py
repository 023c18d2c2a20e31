"""The fuzz targets of ``fuzz/`` in CI: each over its seed corpus, then a bounded Hypothesis run,
then hostile shapes at two sizes to show that its time grows linearly with its input.

Every input runs within its time budget (``_harness.budget``: a fixed allowance plus one per
KiB). The Hypothesis run is derandomized (the same inputs every time, no example database), so a
failure here is reproducible; ``python fuzz/run.py TARGET --examples N`` fuzzes for longer
with fresh inputs, and ``--growth`` times every hostile shape. See fuzz/README.md.
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest

from gammon.dice import parse_dice
from gammon.engine import gnubg
from gammon.record import MatchRecord, RecordError

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"
sys.path.insert(0, str(FUZZ))

import _harness  # noqa: E402

#: Hypothesis inputs per target in CI.
EXAMPLES = 200
#: Hostile shapes per target in CI (a target may ask for fewer: ``GROWTH_SHAPES``), each timed at
#: GROWTH_SIZE bytes and 8 times that; ``fuzz/run.py --growth`` times them all.
GROWTH_SHAPES = 40
GROWTH_SIZE = 2048
TARGETS = _harness.names()


def test_every_target_has_seeds() -> None:
    assert len(TARGETS) >= 18
    assert all(len(_harness.corpus(name)) >= 5 for name in TARGETS), {n: len(_harness.corpus(n)) for n in TARGETS}


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize("name", TARGETS)
def test_seed_corpus(name: str) -> None:
    failures = _harness.run_corpus(name)
    assert not failures, "\n\n".join(str(f) for f in failures)


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize("name", TARGETS)
def test_fuzz(name: str) -> None:
    # shrinking is for fuzz/run.py
    _harness.run_hypothesis(name, EXAMPLES, derandomize=True, shrink=False)


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize("name", TARGETS)
def test_time_grows_linearly(name: str) -> None:
    """Each hostile shape 8 times as long takes at most GROWTH_LIMIT times as long: a ratio of two
    timings in one process, so it holds on a slow or loaded machine, where a quadratic reader's
    64 does not pass."""
    module = _harness.load(name)
    _harness.warm_up(name, module)
    shapes = _harness.sample(name, getattr(module, "GROWTH_SHAPES", GROWTH_SHAPES))
    grown = _harness.superlinear(name, module, shapes, GROWTH_SIZE)
    assert not grown, "\n".join(f"{name}: x{ratio:.0f} from {GROWTH_SIZE} to {8 * GROWTH_SIZE} bytes: {shape}"
                                 for shape, ratio in grown)


def _reader(read: Callable[[str], object]) -> types.SimpleNamespace:
    """A fuzz target of one reader of text: gammon's errors are answers, anything else a failure."""
    return types.SimpleNamespace(fuzz_one_input=lambda data: read(data.decode("utf-8")))


def test_growth_finds_a_quadratic_reader() -> None:
    """The growth check itself: a reader that backtracks quadratically on a run of spaces is found."""
    spaces = re.compile(r"\s*\s*x")
    shape = _harness.Shape(b"", (b" ",), (), b"y")
    [(_, ratio)] = _harness.superlinear("quadratic", _reader(spaces.match), [shape], 1024)
    assert ratio > _harness.GROWTH_LIMIT


#: Issue 36's critical upload at any size: at 1,200 spaces each side of the colon it held the
#: server for 51 s, and each doubling took about ten times longer.
SCORE_LINE_OF_SPACES = _harness.Shape(b" 1 point match\n\n Game 1\n", (b" ", b" "), (b":",), b"1\n")


def test_the_score_line_of_spaces_reads_in_linear_time() -> None:
    text = SCORE_LINE_OF_SPACES(2400).decode()
    assert text == " 1 point match\n\n Game 1\n" + " " * 1200 + ":" + " " * 1200 + "1\n"
    with pytest.raises(RecordError, match="line 4: expected a score line"):
        MatchRecord.from_mat(text)
    with pytest.raises(RecordError, match="line 4: expected a score line"):
        MatchRecord.from_mat(SCORE_LINE_OF_SPACES(8 * 2400).decode())
    assert _harness.growth("record_mat", _reader(MatchRecord.from_mat), SCORE_LINE_OF_SPACES, 2400) < _harness.GROWTH_LIMIT


def _gnubg_lines(line: str) -> object:
    return (gnubg._hint_row(line), gnubg._cube_option(line), gnubg._CUBELESS.search(line), gnubg._PROPER.search(line))


def _mail_commands(text: str) -> object:
    from gammon.server.pbm.mail import commands_of

    return commands_of(text.encode())


#: Readers that no fuzz target covers, each with the hostile input its old code took quadratic
#: time on (16,000 spaces or digits, 40,000 "re:": 3 to 38 s each).
READERS = {
    "mail subject": (_mail_commands, _harness.Shape(b"From: a@example.org\r\nSubject: ", (b"Re:",), (), b" board 3\r\n\r\n")),
    "gnubg hint": (_gnubg_lines, _harness.Shape(b"    1. Cubeful 2-ply    8/4", (b" ",), (), b"Eq:")),
    "gnubg cube option": (_gnubg_lines, _harness.Shape(b"1. No double", (b" ",), (), b"x")),
    "gnubg cubeless equity": (_gnubg_lines, _harness.Shape(b"", (b"2",), (), b"-ply cubeless")),
    "gnubg proper cube action": (_gnubg_lines, _harness.Shape(b"Proper cube action: No", (b" ",), (), b"double")),
    "typed dice": (parse_dice, _harness.Shape(b"3", (b" ",), (), b"x")),
}


@pytest.mark.parametrize("reader", READERS)
def test_other_readers_read_in_linear_time(reader: str) -> None:
    read, shape = READERS[reader]
    assert _harness.growth(reader, _reader(read), shape, GROWTH_SIZE) < _harness.GROWTH_LIMIT


def test_a_mail_subject_of_many_replies_is_its_command() -> None:
    assert _mail_commands("From: a@example.org\r\nSubject: " + "Re: FWD:re:" * 1000 + " board 3\r\n\r\n") == \
        ("a@example.org", ["board 3"])


def test_gnubg_output_lines_read_as_before() -> None:
    """The readers split in two steps read GNU Backgammon's lines as the patterns they replace did."""
    assert gnubg._hint_row("    1. Cubeful 2-ply    8/4 6/4                      Eq.: +0.178") == (2, "8/4 6/4", 0.178)
    assert gnubg._hint_row("    2. Cubeless 0-ply    24/20 13/11                  MWC: 51.9 (-0.159)") == \
        (0, "24/20 13/11", 51.9)
    assert gnubg._hint_row("        2-ply cubeful prune [world class]") is None
    assert gnubg._cube_option("2. Double, pass        +1.000  (+0.901)") == ("double, pass", 1.0)
    assert gnubg._cube_option("1. No double           +0.099") == ("no double", 0.099)
    assert gnubg._cube_option("1. No double +0.099") is None  # one space is part of the label
    assert gnubg._CUBELESS.search("2-ply cubeless equity +0.076").groups() == ("2", "+0.076")
    found = gnubg._PROPER.search("Proper cube action: No double, beaver (23.0%)  ")
    assert found is not None and found.group(1).strip() == "No double, beaver (23.0%)"
