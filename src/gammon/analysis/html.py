"""The analysis as one self-contained HTML page: a summary, the course of the match as an inline
SVG plot, and every move with its board (:func:`gammon.svg.board_svg`), roll, play and best plays."""

from __future__ import annotations

from html import escape

from ..position import Color
from ..svg import board_svg
from .core import Analysis, Decision

__all__ = ["course_svg", "report"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th:first-child, td:first-child, th[scope=row] { text-align: left; }
section.move { display: flex; gap: 1.5em; border-top: 1px solid #ddd; padding: 0.8em 0; }
.blunder { color: #b00; font-weight: bold; } .error { color: #d60; } .doubtful { color: #a80; }
"""


def report(analysis: Analysis) -> str:
    """One self-contained HTML page: every move's board, the plays, the course of the match."""
    record = analysis.record
    what = f"{record.length}-point match" if record.length else "money session"
    white, black = analysis.players[Color.WHITE], analysis.players[Color.BLACK]
    title = f"{white.name} (white) against {black.name} (black), {what}"
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Analysis: {escape(title)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f"<p>Analysed by {escape(analysis.source or analysis.analyst)}: errors in equity per cube (EMG), rates in thousandths "
        f"per decision (mEMG); marks in {escape(analysis.style.title)}'s style (docs/analysis.md).</p>",
        _summary(analysis),
        "<h2>The course of the match</h2>",
        course_svg(analysis),
        "<h2>Every move</h2>",
    ]
    for number, decision in enumerate(analysis.decisions):
        out.append(_move(number, decision, record.length))
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _summary(analysis: Analysis) -> str:
    unit = "MWC" if analysis.record.length else "points"
    rows = [("PR (XG)", "pr", "{:.1f}"), ("Unforced checker plays", "checker_decisions", "{}"),
            ("Checker error (EMG)", "checker_error", "{:.3f}"),
            ("Checker error rate (mEMG)", "checker_error_rate", "{:.1f}"), ("Cube decisions", "cube_decisions", "{}"),
            ("Cube error (EMG)", "cube_error", "{:.3f}"), ("Overall error rate (mEMG)", "error_rate", "{:.1f}"),
            ("Rating", "rating", "{}"), ("Luck (EMG)", "luck", "{:+.3f}"), ("Luck rating", "luck_rating", "{}"),
            (f"Result ({unit})", "result", "{:+.3f}"),
            (f"Luck-adjusted result ({unit})", "luck_adjusted", "{:+.3f}")]
    sides = (analysis.players[Color.WHITE], analysis.players[Color.BLACK])
    head = "".join(f'<th scope="col">{escape(s.name)}</th>' for s in sides)
    body = "".join(
        f'<tr><th scope="row">{label}</th>' + "".join(f"<td>{escape(form.format(getattr(s, key)))}</td>" for s in sides)
        + "</tr>" for label, key, form in rows)
    return f'<table><tr><th scope="col">Statistic</th>{head}</tr>{body}</table>'


def course_svg(analysis: Analysis, width: int = 800, height: int = 240) -> str:
    """White's match winning chance (a match) or equity per cube (money) after each play, as a
    plain SVG line plot with the games marked."""
    points = analysis.course
    match = analysis.record.length > 0
    left, top, plot_w, plot_h = 50, 10, width - 60, height - 40
    lo, hi = (0.0, 1.0) if match else (-3.0, 3.0)

    def x(i: int) -> float:
        return left + plot_w * (i / max(1, len(points) - 1))

    def y(v: float) -> float:
        v = min(hi, max(lo, v))
        return top + plot_h * (hi - v) / (hi - lo)

    label = "White's match winning chance" if match else "White's equity per cube"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-size="11">',
           f"<title>{label} after each play</title>",
           f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#999"/>']
    for tick in ((0, 0.25, 0.5, 0.75, 1) if match else (-3, -2, -1, 0, 1, 2, 3)):
        text = f"{tick:.0%}" if match else f"{tick:+d}"
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>'
                   f'<text x="{left - 4}" y="{y(tick) + 4:.1f}" text-anchor="end">{text}</text>')
    game = None
    for i, (number, _move, _equity, _mwc) in enumerate(points):
        if number != game:
            game = number
            out.append(f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{top}" y2="{top + plot_h}" stroke="#bbb" '
                       f'stroke-dasharray="3 3"/><text x="{x(i) + 3:.1f}" y="{top + 12}">game {number}</text>')
    values = [(mwc if match and mwc is not None else equity) for _, _, equity, mwc in points]
    if values:
        path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        out.append(f'<polyline points="{path}" fill="none" stroke="#1565c0" stroke-width="1.5"/>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 8}" text-anchor="middle">{label}, play by play</text>')
    out.append("</svg>")
    return "\n".join(out)


def _move(number: int, decision: Decision, length: int) -> str:
    side = decision.color.name.lower()
    state = decision.state
    mark = decision.mark
    css = f' class="{mark}"' if mark else ""
    if decision.kind == "checker":
        dice = state.dice or (0, 0)
        heading = f"Game {decision.game}, move {decision.move}: {escape(decision.player)} ({side}) rolls {dice[0]}-{dice[1]}"
        options = "".join(f"<tr><td>{escape(text)}</td><td>{equity:+.3f}</td><td>{equity - decision.options[0][1]:+.3f}</td></tr>"
                          for text, equity in decision.options)
        table = ('<table><tr><th scope="col">Best plays</th><th scope="col">Equity</th><th scope="col">Loss</th></tr>'
                 f"{options}</table>")
        what = f"Played <b>{escape(decision.played)}</b>" + (" (forced)" if decision.forced else "")
        board = board_svg(state, play=decision.play, size=360, id_prefix=f"m{number}-")
    else:
        heading = f"Game {decision.game}, move {decision.move}: {escape(decision.player)} ({side}), cube decision"
        options = "".join(f"<tr><td>{escape(text)}</td><td>{equity:+.3f}</td></tr>" for text, equity in decision.options)
        table = f'<table><tr><th scope="col">Cube action</th><th scope="col">Equity</th></tr>{options}</table>'
        what = f"<b>{escape(decision.played)}</b> (best: {escape(decision.best)})"
        board = board_svg(state, size=360, id_prefix=f"m{number}-")
    verdict = f"error {decision.error:.3f}" + (f" — {mark}" if mark else "")
    return (f'<section class="move" id="move-{number}"><div>{board}</div><div><h3>{heading}</h3>'
            f"<p>{what}: <span{css}>{verdict}</span></p>{table}</div></section>")
