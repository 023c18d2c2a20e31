"""gammon.svg: the board as SVG, compared byte for byte with committed pictures, and its properties.

Regenerate the pictures in tests/svg/ after a deliberate change of the drawing with
``GAMMON_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_svg.py`` (and look at them).
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gammon import GameState, Position
from gammon.cli import main
from gammon.play import Play
from gammon.position import Color
from gammon.svg import DEFAULT_COLORS, SvgError, board_svg

from notation_strategies import game_states, positions

SNAPSHOTS = Path(__file__).parent / "svg"
UPDATE = os.environ.get("GAMMON_UPDATE_SNAPSHOTS") == "1"
NS = "{http://www.w3.org/2000/svg}"


def _bar_off_stacks() -> GameState:
    """White on the bar, 3 borne off, 7 on its 6-point; black with 6 on its 6-point, 2 on the bar."""
    white, black = [0] * 25, [0] * 25
    white[5], white[4], white[2], white[24], white[12] = 7, 2, 1, 1, 1
    black[5], black[3], black[1], black[24], black[0] = 6, 2, 1, 2, 1
    return GameState(position=Position.from_checkers(white, black, Color.WHITE), dice=(4, 3))


def _bearoff() -> GameState:
    """A Crawford game bear-off: white to play 6-4 with 4 off, black still to bear in."""
    white, black = [0] * 25, [0] * 25
    white[0], white[1], white[3], white[5] = 2, 3, 4, 2
    black[0], black[2], black[4] = 3, 9, 3
    position = Position.from_checkers(white, black, Color.WHITE)
    return GameState(position=position, dice=(6, 4), score=(3, 6), match_length=7, crawford=True)


BLACK_OPENING = GameState(position=Position(turn=Color.BLACK), dice=(6, 4))
OWNED = GameState(
    position=Position().apply("8/5 6/5").apply("24/18 13/9"), cube=4, cube_owner=Color.BLACK,
    score=(2, 4), match_length=7, dice=(5, 2),
)
OFFERED = GameState(
    position=Position(turn=Color.BLACK), cube=2, cube_owner=Color.BLACK, double_offered=True, score=(5, 4),
    match_length=9,
)

#: Snapshot name -> the call that draws it.
CASES: dict[str, Callable[[], str]] = {
    "opening": lambda: board_svg(Position()),
    "opening_black_play": lambda: board_svg(BLACK_OPENING, play=Play.from_ubgi("24/18 13/9")),
    "opening_black_play_white_view": lambda: board_svg(
        BLACK_OPENING, play=Play.from_ubgi("24/18 13/9"), orientation=Color.WHITE
    ),
    "bar_off_stacks": lambda: board_svg(_bar_off_stacks(), play="bar/22 13/9", highlight=[22, "bar-white"]),
    "bearoff_crawford": lambda: board_svg(_bearoff(), play="6/off 4/off", orientation=Color.BLACK, size=400),
    "owned_cube": lambda: board_svg(OWNED, orientation=Color.WHITE),
    "offered_double": lambda: board_svg(OFFERED, orientation=Color.WHITE, highlight=["off-white"]),
}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def groups(root: ET.Element) -> dict[str, ET.Element]:
    return {g.get("id"): g for g in root.iter(f"{NS}g") if g.get("id")}


def checkers_in(element: ET.Element, color: str | None = None) -> int:
    return sum(
        1 for e in element.iter()
        if "checker" in (e.get("class") or "").split()
        and (color is None or color in (e.get("class") or "").split())
    )


# -- snapshots -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_picture_is_the_committed_one_byte_for_byte(name: str) -> None:
    svg = CASES[name]()
    path = SNAPSHOTS / f"{name}.svg"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_bytes(svg.encode("utf-8"))
    assert path.exists(), f"{path} is missing: run GAMMON_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_svg.py"
    expected = path.read_bytes().decode("utf-8")
    assert svg == expected, (
        f"board_svg drew {name} differently from {path}. If the change is meant, regenerate the pictures with "
        "GAMMON_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_svg.py, look at them, and commit them."
    )


def test_the_output_is_the_same_on_every_call() -> None:
    assert all(CASES[name]() == CASES[name]() for name in CASES)


# -- what is drawn --------------------------------------------------------------------------------------
def test_every_point_bar_and_tray_is_a_group_with_a_stable_id_and_its_checkers() -> None:
    state = _bar_off_stacks()
    position = state.position
    for view in (Color.WHITE, Color.BLACK):
        root = parse(board_svg(state, orientation=view))
        found = groups(root)
        for point in range(1, 25):
            group = found[f"point-{point}"]
            assert group.get("class") == "point" and group.get("data-point") == str(point)
            own = position.checkers(view)[point - 1]
            theirs = position.checkers(view.other)[24 - point]
            assert int(group.get("data-checkers")) == own + theirs == checkers_in(group)
            if own:
                assert checkers_in(group, view.name.lower()) == own
            if theirs:
                assert checkers_in(group, view.other.name.lower()) == theirs
        for color in (Color.WHITE, Color.BLACK):
            name = color.name.lower()
            assert checkers_in(found[f"bar-{name}"], name) == position.bar(color)
            assert checkers_in(found[f"off-{name}"], name) == position.borne_off(color)
            assert found[f"bar-{name}"].get("data-point") == "bar" and found[f"off-{name}"].get("data-point") == "off"


def test_the_orientation_puts_its_side_at_the_bottom_right() -> None:
    """The view's 6-point (five of its checkers at the opening) is right of the bar, at the bottom."""
    for view in (Color.WHITE, Color.BLACK):
        root = parse(board_svg(Position(turn=Color.WHITE), orientation=view))
        found = groups(root)
        six = found["point-6"]
        circles = list(six.iter(f"{NS}circle"))
        assert len(circles) == 5 and all(view.name.lower() in c.get("class") for c in circles)
        top_left = list(found["point-13"].iter(f"{NS}circle"))
        assert float(circles[0].get("cy")) > 300 > float(top_left[0].get("cy"))  # bottom, then top half
        assert float(circles[0].get("cx")) > float(top_left[0].get("cx"))
        labels = [t.text for t in root.iter(f"{NS}text") if t.text and t.text.isdigit()]
        assert [str(p) for p in range(1, 25)] == sorted(set(labels) & {str(p) for p in range(1, 25)}, key=int)


def test_a_tall_stack_squeezes_and_shows_its_count() -> None:
    root = parse(CASES["bar_off_stacks"]())
    six = groups(root)["point-6"]
    assert checkers_in(six) == 7
    assert [t.text for t in six.iter(f"{NS}text") if t.get("class") == "count"] == ["7"]
    ys = sorted(float(c.get("cy")) for c in six.iter(f"{NS}circle"))
    assert max(ys) - min(ys) <= 4 * 34 + 0.01  # all seven within five checkers' room
    five = groups(parse(CASES["opening"]()))["point-6"]
    assert not [t for t in five.iter(f"{NS}text") if t.get("class") == "count"]


def test_the_cube_centred_owned_and_offered() -> None:
    cube = groups(parse(board_svg(Position())))["cube"]
    assert (cube.get("data-value"), cube.get("data-owner")) == ("1", "centre")
    assert [t.text for t in cube.iter(f"{NS}text")] == ["64"]
    owned = groups(parse(CASES["owned_cube"]()))["cube"]
    assert (owned.get("data-value"), owned.get("data-owner")) == ("4", "black")
    bottom = groups(parse(board_svg(OWNED, orientation=Color.BLACK)))["cube"]
    y_top = float(next(owned.iter(f"{NS}rect")).get("y"))
    y_bottom = float(next(bottom.iter(f"{NS}rect")).get("y"))
    assert y_top < 150 < 300 < y_bottom  # the owner's side: top when black is drawn at the top
    offered = groups(parse(CASES["offered_double"]()))["cube"]
    assert offered.get("class") == "cube offered" and offered.get("data-value") == "4"


def test_dice_are_the_states_or_the_override() -> None:
    dice = groups(parse(CASES["owned_cube"]()))["dice"]
    assert dice.get("data-dice") == "52" and [d.get("data-value") for d in dice.findall(f"{NS}g")] == ["5", "2"]
    assert "dice" not in groups(parse(board_svg(OWNED, dice=())))
    root = parse(board_svg(Position(), dice=(6, 6)))
    assert groups(root)["dice"].get("data-dice") == "66"
    assert "to play 6-6" in root.find(f"{NS}title").text  # the words say the dice drawn
    pips = list(groups(root)["dice"].iter(f"{NS}circle"))
    assert len(pips) == 12


def test_score_match_and_crawford_are_written() -> None:
    texts = [t.text for t in parse(CASES["bearoff_crawford"]()).iter(f"{NS}text")]
    assert "7-point match · Crawford" in texts
    assert any(t and t.startswith("White") and "score 6" in t for t in texts)
    assert any(t and t.startswith("Black") and "score 3" in t for t in texts)
    assert "Money game" in [t.text for t in parse(CASES["opening"]()).iter(f"{NS}text")]


def test_arrows_follow_the_play_in_the_movers_numbering_bar_and_off_included() -> None:
    def arrows(svg: str) -> list[tuple[str, str]]:
        return [(g.get("data-from"), g.get("data-to")) for g in parse(svg).iter(f"{NS}g") if g.get("class") == "arrow"]

    assert arrows(CASES["opening_black_play"]()) == [("24", "18"), ("13", "9")]
    # Seen from white, black's 24/18 13/9 runs from white's 1 to 7 and 12 to 16.
    assert arrows(CASES["opening_black_play_white_view"]()) == [("1", "7"), ("12", "16")]
    assert arrows(CASES["bar_off_stacks"]()) == [("bar", "22"), ("13", "9")]
    assert arrows(CASES["bearoff_crawford"]()) == [("19", "off"), ("21", "off")]  # white's 6 and 4, seen from black
    # The last play, drawn for the side that made it.
    after = Position(turn=Color.BLACK).apply("24/18 13/9")
    assert arrows(board_svg(after, play="24/18 13/9", mover=Color.BLACK, orientation=Color.BLACK)) == [
        ("24", "18"), ("13", "9")
    ]


def test_highlights_mark_their_groups() -> None:
    found = groups(parse(CASES["bar_off_stacks"]()))
    assert {name for name, g in found.items() if "highlighted" in g.get("class").split()} == {"point-22", "bar-white"}
    assert len([r for r in found["point-22"].iter(f"{NS}rect") if r.get("class") == "highlight"]) == 1


def test_size_colours_title_and_id_prefix() -> None:
    svg = board_svg(Position(), size=300, colors={"board": "#123456"}, title='<Board> & "quotes"', id_prefix="b2-")
    root = parse(svg)
    assert root.get("width") == "300" and int(root.get("height")) == round(300 * 542 / 672)
    assert root.get("role") == "img" and root.get("aria-labelledby") == "b2-title b2-desc"
    assert root.find(f"{NS}title").text == '<Board> & "quotes"'
    assert 'fill="#123456"' in svg and DEFAULT_COLORS["board"] not in svg
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids)) and all(i.startswith("b2-") for i in ids)
    assert "b2-point-13" in ids


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 0}, "size"),
        ({"size": True}, "size"),
        ({"orientation": 1}, "orientation"),
        ({"mover": "white"}, "mover"),
        ({"colors": {"felt": "green"}}, "unknown name 'felt'"),
        ({"colors": {"board": 3}}, "colors['board']"),
        ({"dice": (7, 1)}, "dice"),
        ({"dice": "31"}, "dice"),
        ({"play": "24/z"}, "play"),
        ({"play": 5}, "play"),
        ({"highlight": [25]}, "highlight"),
        ({"highlight": "point-1"}, "highlight"),
        ({"highlight": ["bar"]}, "highlight"),
        ({"title": 5}, "title"),
        ({"id_prefix": "<x>"}, "id_prefix"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(SvgError, match=message.replace("[", r"\[").replace("]", r"\]")):
        board_svg(Position(), **kwargs)


def test_only_positions_and_states_are_drawn() -> None:
    with pytest.raises(SvgError, match="Position or a GameState, got str"):
        board_svg("4HPwATDgc/ABMA")  # type: ignore[arg-type]


def test_notebooks_get_the_picture() -> None:
    assert Position()._repr_svg_() == board_svg(Position())
    assert OWNED._repr_svg_() == board_svg(OWNED)
    assert Position([0] * 26)._repr_svg_() is None  # no checkers at all: no game to draw, the text repr shows


# -- properties -------------------------------------------------------------------------------------------
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(game_states(), positions()), st.sampled_from([None, Color.WHITE, Color.BLACK]))
def test_any_state_draws_valid_xml_with_every_checker_and_the_pips(board: GameState | Position, view: Color | None) -> None:
    svg = board_svg(board, orientation=view)
    root = parse(svg)
    position = board.position if isinstance(board, GameState) else board
    for color in (Color.WHITE, Color.BLACK):  # on the points, the bar or in the tray: all 15 of each
        assert checkers_in(root, color.name.lower()) == 15
    found = groups(root)
    on_points = sum(checkers_in(found[f"point-{p}"]) for p in range(1, 25))
    assert on_points == sum(sum(position.checkers(c)[:24]) for c in (Color.WHITE, Color.BLACK))
    title = root.find(f"{NS}title").text
    desc = root.find(f"{NS}desc").text
    for color in (Color.WHITE, Color.BLACK):
        pips = position.pip_count(color)
        assert f"{color.name.capitalize()} {pips}" in title
        assert f"pip count {pips}" in desc
    assert svg == board_svg(board, orientation=view)


@settings(max_examples=40, deadline=None)
@given(positions(), st.integers(1, 6), st.integers(1, 6), st.data())
def test_any_legal_play_draws_one_arrow_per_checker_move(position: Position, d1: int, d2: int, data: st.DataObject) -> None:
    legal = position.legal_plays(d1, d2)
    play = data.draw(st.sampled_from(list(legal)))
    root = parse(board_svg(position, play=play, dice=(d1, d2)))
    assert len([g for g in root.iter(f"{NS}g") if g.get("class") == "arrow"]) == len(play.moves)


# -- PNG and the command -------------------------------------------------------------------------------------
def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_picture_renders_as_a_png_of_its_size() -> None:
    cairosvg = pytest.importorskip("cairosvg")
    data = cairosvg.svg2png(bytestring=board_svg(Position(), size=450).encode())
    assert png_size(data) == (450, round(450 * 542 / 672))


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    out, err = capsys.readouterr()
    return status, out, err


def test_show_writes_svg_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("cairosvg")
    svg, png = tmp_path / "board.svg", tmp_path / "board.png"
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:1:0:10"
    status, out, err = run(["show", xgid, "--svg", str(svg), "--png", str(png), "--size", "300",
                            "--play", "8/5 6/5"], capsys)
    assert (status, out, err) == (0, "", "")
    state = GameState.parse(xgid)
    expected = board_svg(state, size=300, play=state.position.legal_plays(3, 1).find("8/5 6/5"))
    assert svg.read_text(encoding="utf-8") == expected
    assert png_size(png.read_bytes()) == (300, round(300 * 542 / 672))
    status, out, _ = run(["show", "4HPwATDgc/ABMA", "--svg", "-", "--perspective", "black"], capsys)
    assert status == 0 and out == board_svg(Position(), orientation=Color.BLACK)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--svg", "{tmp}/no/such/folder/b.svg"],
         "--svg {tmp}/no/such/folder/b.svg: cannot write there (No such file or directory)"),
        (["--png", "{tmp}"], "--png {tmp}: cannot write there (Is a directory)"),
        (["--svg", "-", "--size", "12"], "--size '12': expected a width of 16 to 20000 pixels"),
        (["--svg", "-", "--size", "٣٠٠"], "--size"),
        (["--play", "8/5 6/5"], "--play draws arrows on a picture"),
        (["--svg", "-", "--play", "8/2"], "--play '8/2': '8/2' is not legal with 3-1"),
    ],
)
def test_show_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:1:0:10"
    status, out, err = run(["show", xgid, *[e.format(tmp=tmp_path) for e in extra]], capsys)
    assert status == 1 and out == ""
    assert err.startswith("gammon: " + message.format(tmp=tmp_path)) and err.count("\n") == 1, err


def test_show_png_without_cairosvg_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # import cairosvg raises ImportError
    status, _, err = run(["show", "4HPwATDgc/ABMA", "--png", str(tmp_path / "b.png")], capsys)
    assert status == 1 and "pip install 'gammon[png]'" in err and err.count("\n") == 1
    assert not (tmp_path / "b.png").exists()


def test_show_svg_loads_neither_numba_nor_the_kernel() -> None:
    code = (
        "import io, json, sys, contextlib\n"
        "from gammon.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = main(['show', '4HPwATDgc/ABMA:cAkAAAAAAAAA', '--svg', '-'])\n"
        "print(json.dumps([status, sorted(sys.modules)]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    status, modules = json.loads(result.stdout)
    assert status == 0 and "gammon.svg" in modules
    assert "numba" not in modules and "gammon.movegen" not in modules and "numpy" not in modules


def test_the_last_play_is_drawn_where_it_was_made() -> None:
    """Arrows of the play that led to a position start and end where they did before it was made."""

    def arrows(svg: str) -> list[bytes]:
        return [ET.tostring(g) for g in parse(svg).iter(f"{NS}g") if g.get("class") == "arrow"]

    before = Position()
    for text, count in (("8/5 6/5", 2), ("24/20 13/9", 2), ("6/5(2) 8/7(2)", 4)):
        after = before.apply(text)
        drawn_before = arrows(board_svg(before, play=text, orientation=Color.WHITE))
        drawn_after = arrows(board_svg(after, play=text, mover=Color.WHITE, orientation=Color.WHITE))
        assert drawn_before == drawn_after and len(drawn_before) == count


def test_every_point_and_bar_half_is_clickable_over_its_whole_column() -> None:
    found = groups(parse(CASES["opening"]()))
    for name in [f"point-{p}" for p in range(1, 25)] + ["bar-white", "bar-black"]:
        areas = [r for r in found[name].iter(f"{NS}rect") if r.get("class") == "area"]
        assert len(areas) == 1 and float(areas[0].get("height")) == 180, name


def test_show_pips_hides_them_from_the_picture_but_not_from_the_words() -> None:
    root = parse(board_svg(OWNED, show_pips=False))
    sides = [t.text for t in root.iter(f"{NS}text") if (t.get("class") or "").startswith("side")]
    assert sides == ["Black  ·  score 2", "White  ·  score 4"]
    assert "Pips: White 163, Black 157." in root.find(f"{NS}title").text
    shown = [t.text for t in parse(board_svg(OWNED)).iter(f"{NS}text") if (t.get("class") or "").startswith("side")]
    assert shown == ["Black  ·  157 pips  ·  score 2", "White  ·  163 pips  ·  score 4"]
