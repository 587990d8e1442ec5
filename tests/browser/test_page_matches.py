"""Whole matches run from the page alone (issue 35's "done when"), in headless Chromium: a Green Meadow
Bug match and a Crystal Connector match with rocks and spikes, the umpire and each seat in a browser
of their own on a real match (Redis, gunicorn, a webhook receiver in Discord's shape).

The umpire creates the match from the page and starts the clocks; each seat makes every move on its
own page as a person does - a cell clicked for each of a Bug move's steps, a word step picked for each
of a Crystal draft's and shifts' - until the game ends; on the way a seat's refused attempt reaches
the umpire's view, and the umpire takes back a move (the seat moves again), and the move that ended
the game (the game goes on).  Every page ends on the verdict in the game's words, the umpire's history numbers
each move by the ply the server's record gives it, and every post the channel got compiles as the
body of Discord's Execute Webhook (``discord-api-types``, tsc --strict).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from discordkit import typecheck
from hookkit import Receiver, until
from pagekit import idle
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from test_page import text
from test_page_desk import set_up
from test_page_mistakes import enter, said
from test_page_record import history
from test_page_slips import click, moves
from test_page_umpire import api, create, href, receiver, refused, server, try_move  # noqa: F401 (the module's fixtures)

from engine.hints import PLAYERS

Shot = Callable[[WebDriver, str], Path]
People = tuple[WebDriver, WebDriver, WebDriver]
Json = dict[str, Any]
NAMES = ("Ann", "Bob")


def steps_of(move: str, hints: Json) -> list[str]:
    """A move's steps as the page splits it (``hints.step_pattern``)."""
    return [m.group(0).strip() for m in re.finditer(hints["step_pattern"], move, re.IGNORECASE) if m.group(0).strip()]


def make_by_hand(d: WebDriver, move: str, hints: Json) -> None:
    """``move`` made on the page as a person makes it: each step a word offered under the move box, or a
    click on its cell; Play where the last step leaves a move that may still go on."""
    for step in steps_of(move, hints):
        offered = [b for b in d.find_elements(By.CSS_SELECTOR, "#u-steps button") if b.text.lower() == step.lower()]
        if offered:
            offered[0].click()
            idle(d)
        else:
            assert hints["click"] is not None, (step, text(d, "u-legal"))
            click_on_cell(d, step.split()[-1].upper())
    if "may be played now" in text(d, "u-verdict"):
        click(d, "u-play-button")


def click_on_cell(d: WebDriver, name: str) -> None:
    """A click on the cell ``name`` where a person's lands: on whatever it shows (a piece, the last move's mark)."""
    cell = d.find_element(By.CSS_SELECTOR, f'#u-board [data-cell="{name}"]')
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", cell)
    cell.click()
    idle(d)


def check_anomalies(d: WebDriver, anomalies: list[str]) -> None:
    for name in anomalies:
        d.find_element(By.CSS_SELECTOR, f'#u-options [data-option="anomalies"] input[value="{name}"]').click()


def take_back(umpire: WebDriver, who: str, move: str) -> None:
    """The umpire takes back ``who``'s ``move``, the last, from the controls (once the umpire's page shows it)."""
    offer = f"Take back {who}'s move {move}"
    button = umpire.find_element(By.ID, "u-takeback")
    WebDriverWait(umpire, 10).until(lambda d: button.is_displayed() and button.text == offer)
    umpire.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    umpire.switch_to.alert.accept()
    idle(umpire)
    said(umpire, f"The umpire took back {who}'s move {move}")


def to_play(url: str, match_id: str) -> Json | None:
    """The match with its first complete legal move (the move the test makes), or None once it is over."""
    now = api(url, "GET", f"/v1/matches/{match_id}?legal_moves=true&complete=true&legal_limit=1")
    return None if now["state"]["status"] == "finished" else now


def the_end(game: Json, state: Json) -> str:
    """The sentence of the game's end, as its hints say it, with the winner's name."""
    said_end = game["hints"]["ends"][state["end"]]
    if state["winner"] is None:
        return str(said_end["drawn"])
    return str(said_end["won"]).replace("{winner}", NAMES[state["winner"]])


@pytest.mark.parametrize(
    ("game_name", "options", "anomalies"),
    [
        ("bug", {"variant": "green-meadow"}, []),  # R-H4's fixed board
        ("crystal", {"seed": "page"}, ["rocks", "spikes"]),  # R-X5: crystals with spikes, rocks that do not move
    ],
)
def test_a_whole_match_from_the_page(
    people: People,
    server: str,  # noqa: F811 (the module's own, which may post to the receiver)
    receiver: Receiver,  # noqa: F811
    shot: Shot,
    tmp_path: Path,
    game_name: str,
    options: dict[str, str],
    anomalies: list[str],
) -> None:
    umpire, ann, bob = people
    game = {g["name"]: g for g in api(server, "GET", "/v1/games")["games"]}[game_name]
    hints = game["hints"]
    set_up(umpire, game_name, **options)
    if anomalies:
        check_anomalies(umpire, anomalies)
        umpire.find_element(By.CSS_SELECTOR, "#u-new button[type=submit]").click()
        idle(umpire)
    match_id = create(umpire, NAMES, 600, 600, hook=receiver.url)
    created = api(server, "GET", f"/v1/matches/{match_id}")
    assert all(created["state"]["options"].get(k, v) == v for k, v in options.items())
    if anomalies:
        assert sorted(created["state"]["options"]["anomalies"]) == anomalies
    seats = (ann, bob)
    enter(ann, href(umpire, "0", match_id))
    enter(bob, href(umpire, "1", match_id))
    enter(umpire, href(umpire, "umpire", match_id))
    click(umpire, "u-start-clock")
    last, mover = "", 0  # the last move made, and who made it
    tried = False
    made = 0  # the moves on the board: those taken back are not
    taken = 0  # the moves the umpire took back: one on the way, and the one that ended the game
    while True:
        now = to_play(server, match_id)
        if now is None and taken == 2:
            break
        if now is None:  # the game's last move, a slip: the umpire takes it back, and the game goes on
            take_back(umpire, NAMES[mover], last)
            assert api(server, "GET", f"/v1/matches/{match_id}")["state"]["status"] == "ongoing"
            taken, made = 2, made - 1
            continue
        seat = now["clock"]["to_move"]
        d = seats[seat]
        said(d, f"(ply {now['ply']})", "u-turn")  # the seat's page has caught up, by itself
        assert text(d, "u-seat") == f"You are seat {seat} ({NAMES[seat]}). Your move."
        if not tried and now["ply"] >= 6:
            # The opponent's last move again: on an occupied cell (Bug), or shifting the files just shifted (Crystal, R-X2).
            try_move(d, last)
            refused(d, 422)
            notice = said(umpire, f"Refused: {NAMES[seat]} tried {last}.")
            assert f"{NAMES[seat]} is still to move." in notice, notice
            shot(umpire, "refused")
            tried = True
        move = now["legal_moves"]["moves"][0]
        make_by_hand(d, move, hints)
        after = api(server, "GET", f"/v1/matches/{match_id}")
        assert after["ply"] == now["ply"] + 1, (move, text(d, "u-verdict"))
        last, mover = move, seat
        made += 1
        assert made < 100
        if not taken and now["ply"] >= 10:  # a slip on the way: taken back, the seat moves again
            take_back(umpire, NAMES[seat], move)
            said(d, "Your move.", "u-seat")
            taken, made = 1, made - 1
    assert tried
    state = api(server, "GET", f"/v1/matches/{match_id}")["state"]
    end = the_end(game, state)
    result = "a draw" if state["winner"] is None else f"{NAMES[state['winner']]} wins"
    for d in (umpire, ann, bob):
        said(d, "The game is over.", "u-turn")
        assert text(d, "u-turn") == f"The game is over. {end}", text(d, "u-turn")
        verdict = text(d, "u-verdict")  # the last move, numbered as the history numbers it, and its announcements
        assert verdict.startswith(f"{state['ply']}. {last}\n") and result in verdict, verdict
        assert "The match is over." in text(d, "u-seat")
    # The umpire may still take back the move that ended it, for a while: the controls say so, and offer only that.
    assert text(umpire, "u-seat") == "Umpire's view, with the umpire's controls. The match is over."
    assert text(umpire, "u-takeback") == f"Take back {NAMES[mover]}'s move {last}"
    assert not umpire.find_element(By.ID, "u-pause").is_displayed()
    # The umpire's history: each move numbered by the ply the record gives it, the start and the refusal between.
    record = api(server, "GET", f"/v1/matches/{match_id}/moves")["moves"]
    played: list[Json] = []  # the moves on the board: each take-back undoes the move before it
    for e in record:
        if e["kind"] == "move":
            played.append(e)
        elif e["kind"] == "takeback":
            played.pop()
    assert len(played) == made == state["ply"] - created["ply"] and [e["kind"] for e in record].count("takeback") == 2
    start = f"start (ply {created['ply']})" if created["ply"] else "start"
    assert moves(umpire) == [start, *(f"{e['ply'] + 1}. {e['move']}" for e in played)]
    lines = history(umpire)
    assert lines[1] == f"ply {created['ply']} The umpire started the clocks." and sum(li.startswith("✗ ") for li in lines) == 1
    assert sum(" The umpire took back " in li for li in lines) == 2
    # The players' names everywhere: on the board's cells too, where the game's pieces are theirs.
    named = [w.replace(PLAYERS[0], NAMES[0]).replace(PLAYERS[1], NAMES[1]) for w in hints["named_words"].values()]
    labels = umpire.execute_script(
        "return [...document.querySelectorAll('#u-board [data-cell]')].map((g) => g.getAttribute('aria-label'))"
    )
    assert not named or any(w in label for label in labels for w in named)
    assert not any(w in label for label in labels for w in hints["board_words"].values() if "Red" in w or "Blue" in w)
    for d, who in ((umpire, "umpire"), (ann, "ann"), (bob, "bob")):
        d.execute_script("window.scrollTo(0, 0)")
        shot(d, who)
    # Every change posted to the channel, once each, in order, each compiling as Discord's webhook body.
    mine = lambda: [a for a in receiver.accepted if a["delivery"].startswith(f"{match_id}:")]  # noqa: E731
    until(lambda: len(mine()) >= len(record), 60, "every change posted")
    posts = mine()
    assert [p["delivery"] for p in posts] == [f"{match_id}:{k}" for k in range(1, len(record) + 1)]
    assert not receiver.problems, receiver.problems
    assert result in posts[-1]["text"], posts[-1]["text"]
    typecheck([("RESTPostAPIWebhookWithTokenJSONBody", p["payload"]) for p in posts], tmp_path)
