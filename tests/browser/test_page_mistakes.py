"""A live event survives people's mistakes (issue 35), in headless Chromium: the umpire and
each seat in a browser of their own (a profile each: its own storage), on a real match.

- a refused attempt reaches every view following the match, with who tried what and why
  (item 2: the umpire's page went on showing the previous move);
- a seat whose link the umpire replaced is told so in a player's words, and offered no
  moves (item 5: the old page said "Your move" and a move answered a raw 401 sentence);
- a seat's page shows the match, not the set-up forms, and asks before leaving it; Back
  brings its link back (item 3);
- a move a click completes waits for Send where the seat asked to confirm moves (on by
  default on a phone) (item 1).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pagekit import idle, without_event_source
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from test_page import cells, click_cell, new_game, phone, text
from test_page_slips import moves
from test_page_umpire import api, create, href, refused, try_move

Shot = Callable[[WebDriver, str], Path]
People = tuple[WebDriver, WebDriver, WebDriver]


def enter(d: WebDriver, url: str) -> None:
    """The page opened afresh at ``url`` (a link followed from a chat: a new document, not a new hash)."""
    d.get("about:blank")
    d.get(url)
    idle(d)


def said(d: WebDriver, words: str, element_id: str = "u-verdict", timeout: float = 10) -> str:
    """The element's text once it holds ``words`` (the page follows the match by itself)."""
    WebDriverWait(d, timeout).until(lambda d: words in text(d, element_id))
    return text(d, element_id)


def refusals(d: WebDriver) -> list[str]:
    """The refused attempts the history lists, in order."""
    return [li.text for li in d.find_elements(By.CSS_SELECTOR, "#u-moves li.u-refused")]


def test_a_refused_attempt_reaches_the_umpire_and_a_spectator(people: People, server: str, shot: Shot) -> None:
    """Before: the umpire's page treated the stream's ``illegal`` event as no change, and still showed the
    previous move; the record (and Discord) had the refused D2, the page nothing."""
    umpire, ann, watcher = people
    new_game(umpire, "catchup", size="3")
    match_id = create(umpire, ("Ann", "Bob"), 120, 60, start="created")
    enter(ann, href(umpire, "0", match_id))
    enter(watcher, href(umpire, "umpire", match_id))  # the umpire's link in another browser: a spectator's read-only view
    enter(umpire, href(umpire, "umpire", match_id))
    try_move(ann, "C3 D3")  # two stones on the first turn (R-C1)
    refused(ann, 422)
    assert "C3 D3 is illegal" in text(ann, "u-verdict")
    why = "You may place at most 1 stone this turn, not 2"
    for d in (umpire, watcher):
        notice = said(d, "Refused: Ann tried C3 D3.")
        assert why in notice and "(R-C1)" in notice and "Ann is still to move." in notice, notice
        assert moves(d) == ["start"]
        listed = refusals(d)
        assert len(listed) == 1 and listed[0].startswith("✗ Ann tried C3 D3: ") and why in listed[0], listed
    shot(umpire, "umpire")
    for d, who in ((umpire, "umpire"), (ann, "seat")):  # on a 390x844 phone: the notice by the board
        phone(d)
        d.execute_script("document.getElementById('u-board').scrollIntoView()")
        shot(d, f"{who}-phone")
        d.execute_script("document.getElementById('u-moves').scrollIntoView()")
        shot(d, f"{who}-phone-history")
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    # The attempt stays in the history where it was made, after later moves and for a page opened later.
    try_move(ann, "C3")
    WebDriverWait(umpire, 10).until(lambda d: moves(d) == ["start", "1. C3"])
    enter(watcher, href(umpire, "umpire", match_id))
    for d in (umpire, watcher, ann):
        items = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#u-moves li")]
        assert items[0] == "start" and items[1].startswith("✗ Ann tried C3 D3") and items[2] == "1. C3", items
    record = api(server, "GET", f"/v1/matches/{match_id}/moves")["moves"]
    assert [e["kind"] for e in record] == ["illegal", "move"]


def test_a_refused_attempt_reaches_a_page_that_long_polls(people: People, shot: Shot) -> None:
    """A browser without Server-Sent Events follows by long polls, which answer any change of the match:
    the attempt is read from the record (before: a poll that brought the same position changed nothing)."""
    umpire, ann, bob = people
    new_game(umpire, "catchup", size="3")
    match_id = create(umpire, ("Ann", "Bob"), 120, 60, start="created")
    with without_event_source(bob):
        enter(bob, href(umpire, "1", match_id))
    enter(ann, href(umpire, "0", match_id))
    try_move(ann, "E1 E2")
    refused(ann, 422)
    notice = said(bob, "Refused: Ann tried E1 E2.", timeout=30)
    assert "(R-C1)" in notice and len(refusals(bob)) == 1
    shot(bob, "polling")


def test_a_replaced_seat_link_says_so_in_a_player_s_words(people: People, shot: Shot) -> None:
    """Before: after "New link" the old page said "You are seat 0 (Ann). Your move." and a move answered
    "Send a seat token of this match: Authorization: Bearer <token>."."""
    umpire, ann, bob = people
    new_game(umpire, "catchup", size="3")
    match_id = create(umpire, ("Ann", "Bob"), 120, 60, start="created")
    enter(ann, href(umpire, "0", match_id))
    assert text(ann, "u-seat") == "You are seat 0 (Ann). Your move."
    # The umpire replaces seat 0's link: Ann's open page learns it from the match's stream.
    umpire.find_element(By.CSS_SELECTOR, f'#u-kept [data-match="{match_id}"] button[data-reissue="0"]').click()
    umpire.switch_to.alert.accept()
    idle(umpire)
    seat = said(ann, "was replaced", "u-seat")
    assert seat == (
        "You were seat 0 (Ann): this seat's link was replaced by the umpire and no longer works. Ask the umpire for the new link."
    ), seat
    assert "Your move" not in text(ann, "u-seat") and not ann.find_element(By.ID, "u-move").is_enabled()
    assert not ann.find_element(By.ID, "u-play-button").is_enabled()
    assert ann.find_element(By.ID, "u-resign").get_attribute("hidden") is not None
    click_cell(ann, "C3")  # no move is offered: nothing is sent
    assert "new link" in text(ann, "u-verdict") and cells(ann)["C3"] == "C3, empty"
    assert not ann.find_elements(By.CSS_SELECTOR, f'#u-kept [data-match="{match_id}"]')  # its dead link is not kept
    shot(ann, "replaced")
    # The old link opened again later: told at once, as the page opens it (GET .../seat answers 401
    # token_replaced); before, the page said "Your move" until a move was refused.
    old = str(ann.current_url)
    enter(ann, old)
    refused(ann, 401)
    assert text(ann, "u-seat").startswith("You were seat 0 (Ann): this seat's link was replaced by the umpire")
    verdict = text(ann, "u-verdict")
    assert "Authorization" not in verdict and "Ask the umpire for the new link." in verdict, verdict
    assert not ann.find_element(By.ID, "u-move").is_enabled()
    # A link whose token the match never had (cut short when pasted) says so, in other words.
    enter(ann, old.rsplit("token=", 1)[0] + "token=cut-sh0rt")
    refused(ann, 401)
    assert text(ann, "u-seat") == (
        "This link does not open seat 0 (Ann): its token is not one of this match's. Ask the umpire for the seat's link."
    )
    assert not ann.find_element(By.ID, "u-move").is_enabled()
    # Bob's page follows by long polls: a poll answers the umpire's change, and the record says whose link it replaced.
    with without_event_source(bob):
        enter(bob, href(umpire, "1", match_id))
    assert text(bob, "u-seat") == "You are seat 1 (Bob). Waiting for Ann…"
    umpire.find_element(By.CSS_SELECTOR, f'#u-kept [data-match="{match_id}"] button[data-reissue="1"]').click()
    umpire.switch_to.alert.accept()
    idle(umpire)
    said(bob, "was replaced", "u-seat", timeout=30)
    assert not bob.find_element(By.ID, "u-move").is_enabled()
    # The new link works: Ann moves with it.
    enter(ann, href(umpire, "0", match_id))
    assert text(ann, "u-seat") == "You are seat 0 (Ann). Your move."
    click_cell(ann, "C3")
    assert "Ann places C3." in text(ann, "u-verdict")


def leaving_is_held(d: WebDriver) -> bool:
    """Would the browser ask before this page is left (closed, reloaded, another address)?  A beforeunload
    event that the page cancels is what makes it ask."""
    return bool(
        d.execute_script(
            "const e = new Event('beforeunload', {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented"
        )
    )


def following(d: WebDriver) -> str:
    return str(d.execute_script("return location.hash"))


def test_a_seat_s_page_shows_the_match_and_asks_before_leaving_it(people: People, server: str, shot: Shot) -> None:
    """Before: a seat's page showed "Set up" with its big "Start a new game", which went to a new game without
    asking, and Back left the site: the seat link was gone while the clock ran."""
    umpire, ann, _ = people
    new_game(umpire, "catchup", size="3")
    match_id = create(umpire, ("Ann", "Bob"), 120, 60, start="created")
    seat0 = href(umpire, "0", match_id)
    enter(ann, seat0)  # the link, followed from a chat
    assert not ann.find_element(By.CSS_SELECTOR, ".u-setup").is_displayed()  # no set-up, no paste forms: the match
    assert not ann.find_element(By.ID, "u-match-form").is_displayed()
    assert leaving_is_held(ann)  # closing the tab, reloading, another address: the browser asks
    # This browser keeps the seat's link from now on (it created no match, so it kept none before).
    kept = ann.find_element(By.CSS_SELECTOR, f'#u-kept [data-match="{match_id}"] a[data-seat="0"]')
    assert kept.get_attribute("href") == seat0 and kept.text == "Seat 0 (Ann)"
    assert not ann.find_elements(By.CSS_SELECTOR, f'#u-kept [data-match="{match_id}"] a[data-seat="1"]')
    shot(ann, "seat")
    # "Leave the match" asks; not confirmed, nothing changes.
    ann.find_element(By.ID, "u-leave").click()
    question = ann.switch_to.alert.text
    assert "Leave your seat" in question and "clock runs on" in question, question
    ann.switch_to.alert.dismiss()
    assert following(ann).startswith(f"#match={match_id}&seat=0") and text(ann, "u-seat") == "You are seat 0 (Ann). Your move."
    ann.find_element(By.ID, "u-leave").click()
    ann.switch_to.alert.accept()
    idle(ann)
    assert following(ann) == "" and ann.find_element(By.CSS_SELECTOR, ".u-setup").is_displayed() and not leaving_is_held(ann)
    # Back brings the seat's page again: the seat link was kept in the browser's history, not replaced.
    ann.back()
    idle(ann)
    assert following(ann).startswith(f"#match={match_id}&seat=0") and text(ann, "u-seat") == "You are seat 0 (Ann). Your move."
    # Back from the seat's page to the desk in the same tab asks too; not confirmed, the seat's page stays.
    ann.get(f"{server}/")
    idle(ann)
    ann.find_element(
        By.CSS_SELECTOR, f'#u-kept [data-match="{match_id}"] a[data-seat="0"]'
    ).click()  # offered from the kept links
    idle(ann)
    assert text(ann, "u-seat") == "You are seat 0 (Ann). Your move."
    ann.back()
    assert "Leave your seat" in ann.switch_to.alert.text
    ann.switch_to.alert.dismiss()
    idle(ann)
    assert following(ann).startswith(f"#match={match_id}&seat=0") and text(ann, "u-seat") == "You are seat 0 (Ann). Your move."
    click_cell(ann, "C3")  # still the seat: it moves
    assert "Ann places C3." in text(ann, "u-verdict")
    # Once the match is over, nothing holds the page.
    umpire.get(href(umpire, "umpire", match_id))
    idle(umpire)
    umpire.find_element(By.ID, "u-abort").click()
    umpire.switch_to.alert.accept()
    said(ann, "The game is over.", "u-turn")
    assert not leaving_is_held(ann)
    ann.find_element(By.ID, "u-leave").click()  # no question: the match is over
    idle(ann)
    assert following(ann) == ""


def held(d: WebDriver) -> str:
    """The move held for Send by the board ('' when none)."""
    box = d.find_element(By.ID, "u-pending")
    return str(box.text) if box.is_displayed() else ""


def test_a_move_a_click_completes_waits_for_send_where_the_seat_confirms(people: People, server: str, shot: Shot) -> None:
    """Before: a click that completed a move (Catchup's only stone, a second stone) sent it at once: a
    misclick could not be undone.  Now a seat may confirm its moves, and does by default on a phone."""
    umpire, ann, bob = people
    new_game(umpire, "catchup", size="3")
    match_id = create(umpire, ("Ann", "Bob"), 120, 60, start="created")
    path = f"/v1/matches/{match_id}"
    enter(umpire, href(umpire, "umpire", match_id))
    enter(ann, href(umpire, "0", match_id))
    confirm = ann.find_element(By.ID, "u-confirm")
    assert confirm.is_displayed() and not confirm.is_selected()  # a desktop's default: sent at once, as before
    confirm.click()  # Ann asks to confirm: kept in her browser, for her seat
    idle(ann)
    enter(ann, href(umpire, "0", match_id))
    assert ann.find_element(By.ID, "u-confirm").is_selected()
    click_cell(ann, "C3")  # the first turn's only stone: the move is complete, and held
    assert held(ann).startswith("Not sent yet: C3.") and cells(ann)["C3"] != "C3, empty"  # shown as it would be
    assert api(server, "GET", path)["ply"] == 0 and moves(umpire) == ["start"]  # nothing sent
    shot(ann, "held")
    ann.find_element(By.ID, "u-undo").click()
    idle(ann)
    assert held(ann) == "" and cells(ann)["C3"] == "C3, empty" and "nothing was sent" in text(ann, "u-verdict")
    click_cell(ann, "C4")
    assert held(ann).startswith("Not sent yet: C4.")
    ann.find_element(By.ID, "u-send").click()
    idle(ann)
    assert held(ann) == "" and "Ann places C4." in text(ann, "u-verdict") and api(server, "GET", path)["ply"] == 1
    WebDriverWait(umpire, 10).until(lambda d: moves(d) == ["start", "1. C4"])
    # Bob on a phone: confirming is his default; the second stone completes the move, held by the board.
    phone(bob)
    enter(bob, href(umpire, "1", match_id))
    assert bob.find_element(By.ID, "u-confirm").is_selected()
    click_cell(bob, "B2")
    assert held(bob) == "" and "B2 may be played now" in text(bob, "u-verdict")  # not complete: a second stone may come
    click_cell(bob, "B3")
    assert held(bob).startswith("Not sent yet: B2 B3.") and api(server, "GET", path)["ply"] == 1
    send = bob.find_element(By.ID, "u-send")
    assert bob.execute_script("return arguments[0].getBoundingClientRect().bottom", send) <= 844  # by the board, in sight
    shot(bob, "held-phone")
    send.click()
    idle(bob)
    assert api(server, "GET", path)["ply"] == 2
    assert ann.execute_script("return localStorage.getItem(arguments[0])", f"umpire-desk.confirm.{match_id}.0") == "1"
    assert bob.execute_script("return Object.keys(localStorage).filter((k) => k.startsWith('umpire-desk.confirm.'))") == []
