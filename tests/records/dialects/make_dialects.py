"""How the files here were made: matches played by gammon's referee with seeded dice and seeded
random choices, written by gammon as GNU Backgammon's .mat, then rewritten line by line in each
site's habit as issue 39 describes it (no site's own file is copied: see README.md).

    python tests/records/dialects/make_dialects.py      # rewrites every file here

Each file's first comment line says which habits it shows; tests/test_record_dialects.py reads
them and checks each replays to the result it states, with a warning naming the line and game
for every habit.
"""

from __future__ import annotations

import itertools

import random
import re
from pathlib import Path

from gammon import Match
from gammon.position import Color
from gammon.record import MatchRecord
from gammon.state import GameStatus, Resignation

HERE = Path(__file__).parent


def play_game(match: Match, rng: random.Random, *, resign_after: int | None = None,
              resignation: Resignation = Resignation.SINGLE, double_at: int | None = None) -> None:
    """One game to its end: random legal plays; a double (taken) on turn ``double_at``; the side to
    roll resigns ``resignation`` on turn ``resign_after`` (accepted)."""
    turn = 0
    while not match.game_over:
        state = match.state
        if state.status == GameStatus.NONE:
            first = rng.randint(1, 6)
            match.roll(dice=(first, rng.choice([d for d in range(1, 7) if d != first])))
        elif state.double_offered:
            match.take()
        elif state.resignation is not None:
            match.accept()
        elif state.dice is None:
            turn += 1
            if resign_after is not None and turn >= resign_after:
                match.resign(resignation)
            elif double_at is not None and turn == double_at and match.can_double():
                match.double()
            else:
                match.roll(dice=(rng.randint(1, 6), rng.randint(1, 6)))
        else:
            match.play(rng.choice(list(match.legal_plays)))


def mat_of(match: Match, white: str, black: str, **meta: str) -> str:
    return MatchRecord.from_match(match, white=white, black=black, **meta).mat()


def foxamon() -> str:
    """The last game's value capped at what its winner needed; ``Cubelimit`` spelt so."""
    for seed in range(1000):
        rng = random.Random(seed)
        match = Match(3)
        play_game(match, rng)
        while not match.is_over:
            match.new_game()
            play_game(match, rng, double_at=3)
        if len(match.results) > 1 and match.results[-1].points > 3 - (
                match.score[match.winner] - match.results[-1].points):
            break
    else:  # pragma: no cover - a seed is found well before
        raise AssertionError("no capped match found")
    result = match.results[-1]
    needed = 3 - (match.score[result.winner] - result.points)
    text = mat_of(match, "Sofia", "Kemal", site="Foxamon")
    wins = f"Wins {result.points} point{'s' if result.points > 1 else ''}"
    head, _, tail = text.rpartition(wins)
    text = head + f"Wins {needed} point{'s' if needed > 1 else ''}" + tail
    return text.replace('; [Site "Foxamon"]\n', '; [Site "Foxamon"]\n; [Cubelimit "1024"]\n', 1)


def opengammon() -> str:
    """``Resigned Game`` in the resigner's column, in its row or on a line of its own; the match ended
    by ``Resigned Match`` with a 'Wins' line capped at what won the match."""
    for seed in range(2000):
        rng = random.Random(seed)
        match = Match(5)
        play_game(match, rng, resign_after=6, resignation=Resignation.GAMMON)  # 2 points
        first = match.results[0].winner
        match.new_game()
        play_game(match, rng, double_at=2, resign_after=7, resignation=Resignation.GAMMON)
        last = match.results[-1]
        if match.is_over and last.winner == first and last.cube == 2:  # 4 points, where 3 won the match
            break
    else:  # pragma: no cover - a seed is found well before
        raise AssertionError("no match found")
    text = mat_of(match, "Ana", "Ben", site="OpenGammon")
    out: list[str] = []
    games = 0
    for line in text.splitlines():
        if line.strip().startswith("Game "):
            games += 1
        found = re.match(r"(\s*)Wins (\d+) points?", line)
        if found:
            result = match.results[games - 1]
            loser_left = result.winner == Color.WHITE  # black (left) resigned
            cell = "Resigned Match" if games == 2 else "Resigned Game"
            if games == 1 and not loser_left and len(out[-1].rstrip()) <= 33:
                out[-1] = f"{out[-1].rstrip():<33}{cell}"  # in its row
            else:
                out.append(f"{'':5}{cell}" if loser_left else f"{'':33}{cell}")
            if games == 2:
                line = line.replace(f"Wins {result.points} points", "Wins 3 points and the match")
        out.append(line)
    return "\n".join(out) + "\n"


def studio() -> str:
    """``Cannot Move`` for a roll with no play; the 'Wins' line given a row number; ``Wins 2008 point``
    on a resignation."""
    rng = random.Random(11)
    for seed in range(200):
        rng = random.Random(seed)
        match = Match(0, jacoby=False)
        play_game(match, rng)
        match.new_game()
        play_game(match, rng, resign_after=9, resignation=Resignation.BACKGAMMON)
        text = mat_of(match, "Lee", "Max", site="Backgammon Studio")
        if re.search(r"\d\d: {2,}", text) or re.search(r"\d\d: *$", text, re.MULTILINE):
            break
    out = []
    row = 0
    game = 0
    for line in text.splitlines():
        if line.strip().startswith("Game "):
            game += 1
        found = re.match(r"\s*(\d+)\)", line)
        if found:
            row = int(found.group(1))
            line = re.sub(r"(\d\d): (\s*)(?=\s{2}\d|$)",
                          lambda m: f"{m.group(1)}: {'Cannot Move':<{max(len(m.group(2)), 11)}}", line)
        wins = re.match(r"(\s*)Wins (\d+) points?", line)
        if wins:
            indent = wins.group(1)
            if game == 2:
                line = f"{indent}Wins 2008 point"
            line = f"{row + 1:3d})" + line[4:] if len(indent) >= 5 else line
        out.append(line)
    return "\n".join(out) + "\n"


def choue() -> str:
    """``Doubles ==> 2`` (and tabs between the columns)."""
    rng = random.Random(3)
    match = Match(3)
    play_game(match, rng, double_at=2)
    text = mat_of(match, "Jean", "Paul", site="choue.net")
    text = text.replace("Doubles =>", "Doubles ==>")
    out = []
    for line in text.splitlines():
        found = re.match(r"(\s*\d+\) )(\S.{27})(\S.*)$", line)
        if found and len(out) % 3 == 0:
            line = f"{found.group(1)}{found.group(2).rstrip()}\t\t{found.group(3)}".expandtabs(8)
            line = line.replace("        ", "\t", 1) if "\t" not in line else line
        out.append(line)
    return "\n".join(out) + "\n"


def windows_1252() -> bytes:
    """Names in Windows-1252, not UTF-8 (``Sürmeyan``)."""
    rng = random.Random(5)
    match = Match(1)
    play_game(match, rng)
    return mat_of(match, "Sürmeyan", "Çağla".replace("ğ", "g"), site="Sahara").encode("cp1252")


def galaxy() -> str:
    """A header without its ``;``; Galaxy's ``????`` for the play it hides before a resignation;
    ``Resign gammon`` written out."""
    rng = random.Random(21)
    match = Match(3)
    play_game(match, rng, resign_after=8, resignation=Resignation.SINGLE)
    text = mat_of(match, "Mika", "Noor", site="Backgammon Galaxy")
    lines = text.splitlines()
    lines[0] = lines[0].lstrip("; ")
    result = match.results[0]
    wins_at = next(i for i, line in enumerate(lines) if "Wins" in line)
    loser = result.winner.other
    # the loser rolled, hid the play and resigned: a roll cell of '????' in the loser's column
    cell = "62: ????"
    last = wins_at - 1
    row = int(re.match(r"\s*(\d+)\)", lines[last]).group(1))
    if loser == Color.BLACK:
        lines.insert(wins_at, f"{row + 1:3d}) {cell}")
    else:
        if len(lines[last].rstrip()) <= 5 + 28:
            lines[last] = f"{lines[last]:<33}{cell}"
        else:
            lines.insert(wins_at, f"{row + 1:3d}) {'':28}{cell}")
    return "\n".join(lines) + "\n"


def cell(roll: tuple[int, int], steps: str) -> str:
    """A roll's cell as gammon writes it: ``52: 13/8 8/6``."""
    return f"{roll[0]}{roll[1]}: {steps}"


def decorate(text: str, record: MatchRecord, game: int, index: int, change) -> str:
    """``text`` with the cell of the play at action ``index`` of game ``game`` (1 the first)
    rewritten by ``change(cell)``, in its row."""
    actions = record.games[game - 1].actions
    action = actions[index]
    row = record.games[game - 1].moves()[index]
    written = cell(actions[index - 1].dice, " ".join(
        f"{m.source}/{m.target}{'*' if m.hit else ''}" for m in action.play.moves))
    lines = text.splitlines()
    games = 0
    for i, line in enumerate(lines):
        if line.strip().startswith("Game "):
            games += 1
        if games == game and re.match(rf"\s*{row}\)", line) and written in line:
            lines[i] = line.replace(written, change(written), 1)
            return "\n".join(lines) + "\n"
    raise AssertionError(f"cell {written!r} not found in row {row}")


def find(match: Match, want) -> int:
    """The index in the (only) game's history of the first play ``want(roll, play)`` accepts."""
    history = match.history
    for index, action in enumerate(history):
        if action.play is not None and want(history[index - 1].dice, action.play):
            return index
    return -1


def _chained(dice: tuple[int, int], play) -> bool:
    moves = play.moves
    return dice[0] == dice[1] and len(moves) == 4 and all(a.target == b.source for a, b in itertools.pairwise(moves))


def _one_die(dice: tuple[int, int], play) -> bool:
    return dice[0] != dice[1] and len(play.moves) == 1


def assorted() -> str:
    """Two matches in one file; ``Losses N point``; ``; Set Pos=``; ``0/0`` for an unused die; a chained
    double (``44: 22/6``) where one checker makes all four; an ``Illegal play`` mark on a legal play;
    ``Resign normal``."""
    for seed in range(2000):
        first = Match(1)
        play_game(first, random.Random(seed))
        chained, single = find(first, _chained), find(first, _one_die)
        if chained > 0 and single > 0:
            break
    else:  # pragma: no cover - a seed is found well before
        raise AssertionError("no match with both a chained double and a one-die play")
    record = MatchRecord.from_match(first, white="Ida", black="Ola", site="assorted")
    one = record.mat()
    one = decorate(one, record, 1, chained, lambda c: c[:4] + c[4:].split()[0].split("/")[0] + "/"
                   + c.split()[-1].split("/")[-1])
    one = decorate(one, record, 1, single, lambda c: c + " 0/0")
    legal = find(first, lambda dice, play: dice[0] != dice[1] and len(play.moves) == 2)
    one = decorate(one, record, 1, legal, lambda c: c + " Illegal play")
    lines = one.splitlines()
    wins = next(i for i, line in enumerate(lines) if "Wins" in line)
    line = lines[wins]
    indent = len(line) - len(line.lstrip())
    # the loser's column says what it lost
    lines[wins] = f"{'':33}Losses 1 point" if indent < 20 else f"{'':5}Losses 1 point"
    lines.insert(lines.index(" Game 1") + 1, "; Set Pos=4HPwATDgc/ABMA:cAkAAAAAAAAA")
    second = Match(1)
    play_game(second, random.Random(10), resign_after=4, resignation=Resignation.SINGLE)
    two = mat_of(second, "Ida", "Ola", site="assorted")
    rows = two.splitlines()
    at = next(i for i, line in enumerate(rows) if "Wins" in line)
    loser_left = second.results[0].winner == Color.WHITE
    rows.insert(at, f"{'':5}Resign normal" if loser_left else f"{'':33}Resign normal")
    return "\n".join(lines) + "\n\n" + "\n".join(rows) + "\n"


FILES = {
    "foxamon.txt": foxamon,
    "opengammon.txt": opengammon,
    "studio.txt": studio,
    "choue.txt": choue,
    "windows1252.mat": windows_1252,
    "galaxy.txt": galaxy,
    "assorted.txt": assorted,
}


def main() -> None:
    for name, make in FILES.items():
        made = make()
        (HERE / name).write_bytes(made if isinstance(made, bytes) else made.encode("utf-8"))
        print(name)


if __name__ == "__main__":
    main()
