"""The umpire's controls on the page (issue 22), in headless Chromium against a real
server that may post to a local webhook receiver (WEBHOOK_ALLOW, with its deliverer):

- the clocks wait for the umpire's start (no time runs before it; a seat opened later
  has its whole turn), pause and resume keep the exact time left, a move while paused
  is refused with the server's sentence, time given shows on the clock, an
  adjudication ends the match with its reason, an abort ends it; a seat's page shows
  none of the controls;
- issue 22's "done when", once per registered game (GET /v1/games names them): the
  umpire creates a match from the page with names and a webhook, hands out the seat
  links, starts the clocks, two seat windows play to the end, the umpire pauses and
  gives the player to move time back on the way, and the receiver got every change's
  post with its picture, in order;
- the seed's Little Golem game pasted: refused at its corrupt line as printed, replayed
  once mended.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hookkit import CONTROL_EVENTS, PNG_MAGIC, Receiver, until
from openapi_check import spec_checker_instance
from pagekit import idle, unexpected
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait
from test_littlegolem import seed_diagram, seed_record
from test_page import cells, link, new_game, phone, text
from test_page_slips import click, moves

from engine.registry import GAMES
from umpire.server import EmbeddedServer

Shot = Callable[[WebDriver, str], Path]
Json = dict[str, Any]


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    """A Discord-shaped webhook on loopback: checks each post (multipart, the PNG attached) and keeps it."""
    r = Receiver("discord", spec_checker_instance()).start()
    yield r
    r.stop()


@pytest.fixture(scope="module")
def server(receiver: Receiver) -> Iterator[str]:
    """This module's server (it overrides conftest's): allowed to post to the receiver, so that
    service/run/serve.py runs a deliverer beside it (``flask deliver``), with short waits."""
    settings = {"WEBHOOK_ALLOW": f"127.0.0.1:{receiver.port}", "WEBHOOK_POLL_S": "0.1", "WEBHOOK_BACKOFF_S": "0.1"}
    with pytest.MonkeyPatch.context() as mp:
        for k, v in settings.items():
            mp.setenv(k, v)
        s = EmbeddedServer(workers=1, threads=16).start()  # the environment is read here, at the start
    try:
        yield s.url
    finally:
        s.stop()


def api(server: str, method: str, path: str, body: object = None, token: str | None = None) -> Json:
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(server + path, data, headers, method=method), timeout=10) as resp:
        answer: Json = json.loads(resp.read())
        return answer


def create(d: WebDriver, names: tuple[str, str], turn_s: int, bank_s: int, hook: str = "", start: str = "") -> str:
    """A match of the game on the board, from the page's form, with the clocks' start left at the
    page's default (the umpire's) or ``start``; its id."""
    for seat in (0, 1):
        box = d.find_element(By.ID, f"u-name-{seat}")
        box.clear()
        box.send_keys(names[seat])
    Select(d.find_element(By.ID, "u-clock-preset")).select_by_value("custom")
    for field, value in (("u-turn-s", turn_s), ("u-bank-s", bank_s)):
        box = d.find_element(By.ID, field)
        box.clear()
        box.send_keys(str(value))
    assert Select(d.find_element(By.ID, "u-clock-start")).first_selected_option.get_attribute("value") == "umpire"
    if start:
        Select(d.find_element(By.ID, "u-clock-start")).select_by_value(start)
    if hook:
        d.find_element(By.CSS_SELECTOR, ".u-hooks summary").click()
        d.find_element(By.ID, "u-hook-url").send_keys(hook)
        Select(d.find_element(By.ID, "u-hook-format")).select_by_value("discord")
    d.find_element(By.CSS_SELECTOR, "#u-match-form button[type=submit]").click()
    idle(d)
    return str(d.find_element(By.CSS_SELECTOR, "#u-kept .u-kept").get_attribute("data-match"))


def href(d: WebDriver, seat: str, match_id: str) -> str:
    return str(link(d, seat, match_id).get_attribute("href"))


def open_window(d: WebDriver, url: str) -> str:
    d.switch_to.new_window("window")
    d.get(url)
    idle(d)
    return str(d.current_window_handle)


def seconds(clock: str, part: str) -> int:
    """The ``turn`` or ``bank`` time a clock shows (m:ss), in seconds."""
    found = re.search(rf"{part} (\d+):(\d\d)", clock)
    assert found, clock
    return int(found[1]) * 60 + int(found[2])


def umpire_controls_shown(d: WebDriver) -> bool:
    return bool(d.find_element(By.ID, "u-umpire").is_displayed())


def control(d: WebDriver, element_id: str) -> None:
    click(d, element_id)


def on_phone(d: WebDriver, shot: Shot, name: str) -> None:
    """A screenshot on a 390 px phone screen (no part of the page wider than it), then back to the desktop."""
    phone(d)
    d.execute_script("document.getElementById('u-match-bar').scrollIntoView()")
    shot(d, name)
    d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def offered(d: WebDriver) -> list[str]:
    """The clock's controls the umpire's view offers now."""
    return [b for b in ("u-start-clock", "u-pause", "u-resume") if d.find_element(By.ID, b).is_displayed()]


def give_time(d: WebDriver, seat: int, seconds: int) -> None:
    """The umpire gives ``seat`` time with the "Add time" control."""
    Select(d.find_element(By.ID, "u-add-seat")).select_by_value(str(seat))
    box = d.find_element(By.ID, "u-add-s")
    box.clear()
    box.send_keys(str(seconds))
    d.find_element(By.CSS_SELECTOR, "#u-add-time button[type=submit]").click()
    idle(d)


def try_move(d: WebDriver, move: str) -> None:
    box = d.find_element(By.ID, "u-move")
    box.clear()
    box.send_keys(move)
    click(d, "u-play-button")


def refused(d: WebDriver, status: int) -> None:
    """The browser's log of this window holds the refusal the test asked for, and nothing else
    (read, so that the page fixture's check of failed requests sees only what was unexpected)."""
    failed = [e["message"] for e in d.get_log("browser") if unexpected(e)]
    assert failed and all(f"status of {status}" in m for m in failed), failed


def test_the_clock_waits_for_the_start_then_pause_resume_add_time_and_adjudicate(
    page: WebDriver, server: str, shot: Shot
) -> None:
    """Before: the clocks ran from creation, so a seat opened 11 s later had 9 s of a 20 s turn."""
    new_game(page, "catchup", size="3")
    match_id = create(page, ("Ann", "Bob"), 20, 10)
    seat0, umpire = href(page, "0", match_id), href(page, "umpire", match_id)
    href_seat1 = href(page, "1", match_id)
    # The umpire's token is kept in this browser beside the seat links (localStorage), in no link.
    secret = str(page.execute_script("return JSON.parse(localStorage.getItem('umpire-desk.matches'))[0].umpire"))
    assert len(secret) > 20 and "token=" not in umpire and secret not in page.page_source
    desk = page.current_window_handle
    page.get(umpire)  # the umpire's view, in the browser that keeps the match's umpire token
    idle(page)
    assert umpire_controls_shown(page) and offered(page) == ["u-start-clock"]
    assert text(page, "u-seat").startswith("Umpire's view, with the umpire's controls.")
    assert "The clocks wait for the start." in text(page, "u-seat")
    waiting = text(page, "u-clock-0")
    assert "waiting for the start" in waiting and seconds(waiting, "turn") == 20 and seconds(waiting, "bank") == 10
    shot(page, "umpire-waiting")
    time.sleep(1.2)
    assert text(page, "u-clock-0") == waiting  # no time runs before the start

    # A seat's page, opened later: its whole turn, none of the umpire's controls, and no move before the start.
    player = open_window(page, seat0)
    assert not umpire_controls_shown(page) and secret not in page.page_source
    assert "waiting for the start" in text(page, "u-clock-0") and seconds(text(page, "u-clock-0"), "turn") == 20
    try_move(page, "C3")
    assert "The match waits for the umpire's start: no moves before it." in text(page, "u-verdict")
    refused(page, 409)
    shot(page, "seat-waiting")

    page.switch_to.window(desk)
    control(page, "u-start-clock")
    assert "The umpire started the clocks." in text(page, "u-verdict")
    assert offered(page) == ["u-pause"]  # started: only Pause of the clock's controls
    page.switch_to.window(player)
    WebDriverWait(page, 10).until(lambda d: "waiting" not in text(d, "u-clock-0"))
    running = text(page, "u-clock-0")
    assert seconds(running, "turn") >= 18, running  # the whole turn, from the umpire's start
    assert "u-running" in str(page.find_element(By.ID, "u-clock-0").get_attribute("class"))
    # Bob's page in a browser without Server-Sent Events follows the match by long polls.
    page.switch_to.new_window("window")
    page.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.EventSource;"})
    page.get(href_seat1)
    idle(page)
    polling = page.current_window_handle

    # Pause: the seat's clock stands still, and a move is refused with the server's sentence.
    page.switch_to.window(desk)
    time.sleep(1.0)
    control(page, "u-pause")
    assert "The umpire paused the clocks." in text(page, "u-verdict") and offered(page) == ["u-resume"]
    paused = text(page, "u-clock-0")
    assert paused.startswith("Ann") and "paused" in paused
    left = seconds(paused, "turn")
    page.switch_to.window(player)
    WebDriverWait(page, 10).until(lambda d: "paused" in text(d, "u-clock-0"))
    assert "The umpire paused the clocks." in text(page, "u-verdict")  # the announcement, on the seat's page too
    assert seconds(text(page, "u-clock-0"), "turn") == left
    time.sleep(1.2)
    assert seconds(text(page, "u-clock-0"), "turn") == left  # not ticking
    page.switch_to.window(polling)
    WebDriverWait(page, 30).until(lambda d: "paused" in text(d, "u-clock-0"))
    assert "The clocks are paused: no moves until they resume." in text(page, "u-verdict")
    assert seconds(text(page, "u-clock-0"), "turn") == left
    page.switch_to.window(player)
    try_move(page, "C3")
    assert "The umpire has paused the clocks: no moves until they resume." in text(page, "u-verdict")
    refused(page, 409)
    shot(page, "seat-paused")
    on_phone(page, shot, "seat-paused-phone")

    # Time given to Ann shows on her clock; resumed, the turn runs on from what it had at the pause.
    page.switch_to.window(desk)
    give_time(page, 0, 30)
    assert "The umpire gave Ann 30 s." in text(page, "u-verdict")
    assert seconds(text(page, "u-clock-0"), "bank") == 40 and seconds(text(page, "u-clock-0"), "turn") == left
    page.switch_to.window(polling)  # a page without EventSource says it too, from the clocks its long poll brings
    WebDriverWait(page, 30).until(lambda d: seconds(text(d, "u-clock-0"), "bank") == 40)
    assert "The umpire gave Ann 30 s." in text(page, "u-verdict")
    page.switch_to.window(desk)
    shot(page, "umpire-paused")
    requested = page.execute_script("return performance.getEntriesByType('resource').map((e) => e.name).join(' ')")
    assert "/pause" in requested and secret not in requested and secret not in page.page_source  # a bearer header only
    on_phone(page, shot, "umpire-paused-phone")
    control(page, "u-resume")
    assert "The umpire resumed the clocks." in text(page, "u-verdict")
    page.switch_to.window(player)
    WebDriverWait(page, 10).until(lambda d: "paused" not in text(d, "u-clock-0"))
    resumed = text(page, "u-clock-0")
    assert seconds(resumed, "bank") == 40 and left - 1 <= seconds(resumed, "turn") <= left, (left, resumed)
    try_move(page, "C3")
    assert "Ann places C3." in text(page, "u-verdict")

    # Adjudicated, after a confirmation: over, with the reason, on both pages.
    page.switch_to.window(desk)
    WebDriverWait(page, 10).until(lambda d: moves(d) == ["start", "1. C3"])
    Select(page.find_element(By.ID, "u-adj-winner")).select_by_value("draw")
    page.find_element(By.ID, "u-adj-reason").send_keys("agreed by both players")
    page.find_element(By.CSS_SELECTOR, "#u-adjudicate button[type=submit]").click()
    alert = page.switch_to.alert
    assert "a draw (agreed by both players)" in alert.text and "cannot be undone" in alert.text
    alert.accept()
    idle(page)
    assert "The umpire adjudicated: a draw (agreed by both players)." in text(page, "u-verdict")
    assert text(page, "u-turn").startswith("The game is over.") and not umpire_controls_shown(page)
    page.switch_to.window(player)
    WebDriverWait(page, 10).until(lambda d: text(d, "u-turn").startswith("The game is over."))
    record = api(server, "GET", f"/v1/matches/{match_id}/moves")
    kinds = [e["kind"] for e in record["moves"]]
    assert kinds == ["start", "pause", "add_time", "resume", "move", "adjudicate"], kinds  # the refused moves changed nothing
    assert record["result"] == "1/2-1/2"


def test_clocks_that_start_with_the_first_move_say_so_and_the_seat_to_move_is_told_to_move(page: WebDriver, shot: Shot) -> None:
    """``clock.start: first_move``: no umpire's start is awaited, so the page does not say so (before, it said
    "waiting for the start" and never told the seat to move that it was its move)."""
    new_game(page, "catchup", size="3")
    match_id = create(page, ("Ann", "Bob"), 20, 10, start="first_move")
    assert "The clocks start at the first move." in text(page, "u-verdict")
    seat0, seat1 = href(page, "0", match_id), href(page, "1", match_id)
    page.get(href(page, "umpire", match_id))
    idle(page)
    assert "The clocks start with the first move." in text(page, "u-seat") and "wait" not in text(page, "u-seat")
    assert offered(page) == ["u-start-clock"]  # the umpire may still start them before the first move
    ann = open_window(page, seat0)
    assert text(page, "u-seat") == "You are seat 0 (Ann). Your move: the clocks start with it."
    waiting = text(page, "u-clock-0")
    assert "starts with the first move · turn 0:20 left · bank 0:10" in waiting, waiting
    shot(page, "seat-first-move")
    time.sleep(1.2)
    assert text(page, "u-clock-0") == waiting  # no time runs before the first move
    open_window(page, seat1)
    assert text(page, "u-seat") == "You are seat 1 (Bob). Waiting for Ann…"
    assert "starts with the first move" in text(page, "u-clock-0")
    page.switch_to.window(ann)
    try_move(page, "C3")
    WebDriverWait(page, 10).until(lambda d: "u-running" in str(d.find_element(By.ID, "u-clock-1").get_attribute("class")))
    assert "starts with" not in text(page, "u-clock-1") and seconds(text(page, "u-clock-1"), "turn") >= 18


def test_abort_asks_first_and_ends_the_match(page: WebDriver, server: str) -> None:
    new_game(page, "catchup", size="3")
    match_id = create(page, ("Ann", "Bob"), 20, 10)
    page.get(href(page, "umpire", match_id))
    idle(page)
    page.find_element(By.ID, "u-abort").click()
    page.switch_to.alert.dismiss()  # not confirmed: nothing happens
    idle(page)
    assert api(server, "GET", f"/v1/matches/{match_id}")["state"]["status"] == "ongoing"
    page.find_element(By.ID, "u-abort").click()
    assert "cannot be resumed" in page.switch_to.alert.text
    page.switch_to.alert.accept()
    idle(page)
    assert api(server, "GET", f"/v1/matches/{match_id}")["state"]["end"] == "aborted"
    assert "The umpire aborted the game: no result." in text(page, "u-turn") and not umpire_controls_shown(page)


def test_a_webhook_the_server_will_not_post_to_is_its_sentence(page: WebDriver, shot: Shot) -> None:
    """The page cannot know the operator's WEBHOOK_ALLOW: the server's 422 is shown, and no match is kept."""
    new_game(page, "catchup", size="3")
    page.find_element(By.CSS_SELECTOR, ".u-hooks summary").click()
    page.find_element(By.ID, "u-hook-url").send_keys("https://chat.example.org/hooks/1")
    page.find_element(By.CSS_SELECTOR, "#u-match-form button[type=submit]").click()
    idle(page)
    said = text(page, "u-verdict")
    assert said.startswith("No match: ") and "(webhooks.0.url)" in said, said
    assert text(page, "u-match-said") == said  # beside the form's button too
    refused(page, 422)
    assert not page.find_elements(By.CSS_SELECTOR, "#u-kept .u-kept")
    page.execute_script("document.getElementById('u-match-form').scrollIntoView()")
    shot(page, "form")
    phone(page)
    page.execute_script("document.getElementById('u-match-form').scrollIntoView()")
    shot(page, "form-phone")


def small_options(game: Json) -> dict[str, str]:
    """The smallest board the game offers (its options' ``min``), for a short game; and where the game deals its
    set-up from a ``seed``, always the same one.  A dealt game may never end under this test's policy (the first
    legal move, each turn): in Crystal Connector 1 deal in 40 led to totals tied round after round, and a tie plays
    on (R-X4), so the test ran out of plies now and then.  The deal of ``page`` ends after 20 plies."""
    out = {name: str(opt["min"]) for name, opt in game["options"].items() if name == "size" and "min" in opt}
    if "seed" in game["options"]:
        out["seed"] = "page"
    return out


def games(server: str) -> list[Json]:
    listed: list[Json] = api(server, "GET", "/v1/games")["games"]
    return listed


@pytest.mark.parametrize("game", list(GAMES))  # every registered game, as GET /v1/games lists them
def test_the_umpire_runs_a_match_from_the_page_and_the_channel_alone(
    page: WebDriver, server: str, receiver: Receiver, game: str, shot: Shot
) -> None:
    """Issue 22's "done when": links handed out, the clocks started, a dropped player's time given
    back, every change posted to the channel with its picture, in order."""
    described = {g["name"]: g for g in games(server)}[game]
    new_game(page, game, **small_options(described))
    match_id = create(page, ("Ann", "Bob"), 120, 60, hook=receiver.url)
    seat_links = [href(page, "0", match_id), href(page, "1", match_id)]
    page.get(href(page, "umpire", match_id))
    idle(page)
    desk = page.current_window_handle
    windows = [open_window(page, seat_links[0]), open_window(page, seat_links[1])]
    for w in windows:  # the seats' pages: the clocks wait, and none of the umpire's controls
        page.switch_to.window(w)
        assert not umpire_controls_shown(page)
        assert any("waiting for the start" in text(page, f"u-clock-{seat}") for seat in (0, 1))
    page.switch_to.window(desk)
    control(page, "u-start-clock")
    ply = 0
    while True:
        now = api(server, "GET", f"/v1/matches/{match_id}?legal_moves=true&complete=true&legal_limit=1")
        if now["state"]["status"] == "finished":
            break
        seat = now["clock"]["to_move"]
        if ply == 1:  # the player to move drops out: the umpire pauses, gives the time back, resumes
            page.switch_to.window(desk)
            control(page, "u-pause")
            Select(page.find_element(By.ID, "u-add-seat")).select_by_value(str(seat))
            page.find_element(By.CSS_SELECTOR, "#u-add-time button[type=submit]").click()
            idle(page)
            control(page, "u-resume")
        page.switch_to.window(windows[seat])
        # the seat's page has caught up (the start, the resumption, the last move): its move now
        caught_up = f"(ply {now['ply']})"
        WebDriverWait(page, 10).until(
            lambda d, at=caught_up: text(d, "u-seat").endswith("Your move.") and at in text(d, "u-turn")
        )
        page.execute_script("document.getElementById('u-move').value = arguments[0]", now["legal_moves"]["moves"][0])
        page.find_element(By.ID, "u-play-button").click()
        idle(page)
        after = api(server, "GET", f"/v1/matches/{match_id}")
        assert after["ply"] > now["ply"] or after["state"]["status"] == "finished", text(page, "u-verdict")
        ply += 1
        assert ply < 200
    for w in (*windows, desk):
        page.switch_to.window(w)
        WebDriverWait(page, 10).until(lambda d: text(d, "u-turn").startswith("The game is over."))
    record = api(server, "GET", f"/v1/matches/{match_id}/moves")["moves"]
    mine = lambda: [a for a in receiver.accepted if a["delivery"].startswith(f"{match_id}:")]  # noqa: E731
    until(lambda: len(mine()) >= len(record), 60, "every change posted")
    posts = mine()
    assert [p["delivery"] for p in posts] == [f"{match_id}:{k}" for k in range(1, len(record) + 1)]
    # A change of the board posts its picture; a control of the clocks leaves the board as it was: none (issue 35 item 11).
    pictured = [p["png"] is not None and p["png"].startswith(PNG_MAGIC) for p in posts]
    assert pictured == [e["kind"] not in CONTROL_EVENTS for e in record] and not receiver.problems
    said = [p["text"] for p in posts]
    assert [e["kind"] for e in record[:5]] == ["start", "move", "pause", "add_time", "resume"]
    # each move's post shows the position it reached (its ply) and names the player who moved
    played = [(entry, post) for entry, post in zip(record, said, strict=True) if entry["kind"] == "move"]
    assert len(played) == ply
    for k, (entry, post) in enumerate(played, start=1):
        assert re.search(rf"\bply {k}\b", post) and ("Ann" if entry["seat"] == 0 else "Bob") in post, (k, post)
    assert any("The umpire paused the clocks." in t for t in said) and any("The umpire gave" in t for t in said)


def test_the_seed_s_little_golem_game_pasted(page: WebDriver, shot: Shot) -> None:
    """As printed, refused at its corrupt line (3, "l7"); mended (issue 22's two cells), replayed to the seed's diagram."""
    page.find_element(By.ID, "u-tab-record").click()
    Select(page.find_element(By.ID, "u-game")).select_by_value("catchup")
    Select(page.find_element(By.ID, "u-record-format")).select_by_value("littlegolem")
    box = page.find_element(By.ID, "u-record-text")
    page.execute_script("arguments[0].value = arguments[1]", box, seed_record())
    page.find_element(By.CSS_SELECTOR, "#u-record button[type=submit]").click()
    idle(page)
    said = text(page, "u-verdict")
    assert "l7" in said and "3" in said, said
    refused(page, 422)
    mended = seed_record().replace("l7", "l6").replace("g2 e3", "h2 e3")
    page.execute_script("arguments[0].value = arguments[1]", box, mended)
    page.find_element(By.CSS_SELECTOR, "#u-record button[type=submit]").click()
    idle(page)
    assert text(page, "u-verdict").startswith("The record replays"), text(page, "u-verdict")
    assert text(page, "u-turn").startswith("The game is over.")
    stones = {c: 0 if "Red" in v else 1 for c, v in cells(page).items() if "stone" in v}
    assert stones == seed_diagram()
    shot(page, "littlegolem")
    phone(page)


def test_the_umpire_s_view_shows_how_the_posts_to_the_channel_go(
    page: WebDriver, server: str, receiver: Receiver, shot: Shot
) -> None:
    """Issue 35: a host wants to see on the page that the channel gets the posts (before, only
    ``GET /v1/matches/{id}/webhooks`` said it): posted, given up, waiting, and the last failure."""
    new_game(page, "catchup", size="3")
    match_id = create(page, ("Ann", "Bob"), 120, 60, hook=receiver.url, start="created")
    token = str(page.execute_script("return JSON.parse(localStorage.getItem('umpire-desk.matches'))[0].seats[0]"))
    page.get(href(page, "umpire", match_id))
    idle(page)
    box = page.find_element(By.ID, "u-deliveries")
    assert box.is_displayed() and "0 posted, 0 given up, 0 waiting." in box.text, box.text
    assert (
        f"Discord webhook at 127.0.0.1:{receiver.port}" in box.text and "/api/webhooks/" not in box.text
    )  # its host, never its URL
    receiver.plan[:] = ["404"]  # the channel refuses the first change: given up at once (a 4xx)
    api(server, "POST", f"/v1/matches/{match_id}/moves", {"move": "C3", "ply": 0}, token)
    WebDriverWait(page, 20).until(lambda d: "0 posted, 1 given up, 0 waiting." in text(d, "u-deliveries"))
    said = text(page, "u-deliveries")
    assert "Last failure: Change 1 (ply 1): answered 404" in said and "given up after try 1." in said, said
    assert "u-trouble" in str(page.find_element(By.CSS_SELECTOR, "#u-deliveries .u-delivery").get_attribute("class"))
    page.execute_script("document.getElementById('u-match-bar').scrollIntoView()")
    shot(page, "deliveries")
    on_phone(page, shot, "deliveries-phone")
    # A resignation ends the match: its post still goes, and the page says so after the end.
    api(server, "POST", f"/v1/matches/{match_id}/resign", None, token)
    WebDriverWait(page, 20).until(lambda d: "1 posted, 1 given up, 0 waiting." in text(d, "u-deliveries"))
    assert text(page, "u-turn").startswith("The game is over.") and not umpire_controls_shown(page)
    # A seat's page has no umpire's token: it shows none of it.
    page.get(href(page, "1", match_id))
    idle(page)
    assert not page.find_element(By.ID, "u-deliveries").is_displayed()
