"""The slips the page invited (issue 22), each in headless Chromium as an
umpire meets it: seat links lost once the umpire left for a match, a post or
PNG link or half-typed move left over from another position or game, no
branch and no take-back, no coordinates, Red/Blue on the clocks of a match
with named players, a Down arrow that skipped a row, cells too small on a
phone and a verdict below the board there, and Little Golem's records."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from pagekit import idle
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait
from test_page import cells, click_cell, link, new_game, phone, ply, text

Shot = Callable[[WebDriver, str], Path]


def moves(d: WebDriver) -> list[str]:
    return [b.text for b in d.find_elements(By.CSS_SELECTOR, "#u-moves button")]


def value(d: WebDriver, element_id: str) -> str:
    return str(d.find_element(By.ID, element_id).get_attribute("value") or "")


def shown(d: WebDriver, element_id: str) -> bool:
    return bool(d.find_element(By.ID, element_id).is_displayed())


def click(d: WebDriver, element_id: str) -> None:
    button = d.find_element(By.ID, element_id)
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    idle(d)


def create_match(d: WebDriver, *names: str, start: str = "created") -> str:
    """A match of the game on the board, created from the page with these names, its clocks
    starting as ``start`` says (``clock.start``; the page's own default is ``umpire``); its id."""
    Select(d.find_element(By.ID, "u-clock-start")).select_by_value(start)
    for seat in (0, 1):
        box = d.find_element(By.ID, f"u-name-{seat}")
        box.clear()
        if seat < len(names):
            box.send_keys(names[seat])
    d.find_element(By.CSS_SELECTOR, "#u-match-form button[type=submit]").click()
    idle(d)
    return str(d.find_element(By.CSS_SELECTOR, "#u-kept .u-kept").get_attribute("data-match"))


def test_the_seat_links_survive_the_umpire_s_view_and_a_reload(page: WebDriver, server: str, shot: Shot) -> None:
    """Before: the links were shown once, in the creating tab's form, and gone as soon as the
    umpire followed one of them in that tab."""
    new_game(page, "catchup", size="3")
    first = create_match(page, "Ann", "Bob")
    second = create_match(page)  # a second match: both are kept, the newest first
    assert [k.get_attribute("data-match") for k in page.find_elements(By.CSS_SELECTOR, "#u-kept .u-kept")] == [second, first]
    umpire = link(page, "umpire", first)
    assert umpire.get_attribute("target") == "_blank" and umpire.get_attribute("rel") == "noopener"  # a tab of its own
    assert [link(page, seat, first).text for seat in "01"] == ["Seat 0 (Ann)", "Seat 1 (Bob)"]
    assert link(page, "0", second).text == "Seat 0 (Red)"
    seat0 = str(link(page, "0", first).get_attribute("href"))
    seat1 = str(link(page, "1", first).get_attribute("href"))
    assert "token=" in seat0 and "token=" not in str(umpire.get_attribute("href"))
    copy = page.find_element(By.CSS_SELECTOR, f'#u-kept [data-match="{first}"] button[data-copy="1"]')
    copy.click()
    idle(page)
    note = "const n = arguments[0].nextElementSibling; return n && n.matches('.u-said-by') ? n.textContent : ''"
    WebDriverWait(page, 5).until(lambda d: d.execute_script(note, copy))  # said by the button (issue 35)
    assert page.execute_script(note, copy) in ("Copied", "Not copied: copy the link itself (right-click it, or press and hold)")
    shot(page, "links")
    # The umpire takes seat 0 in this very tab: the links stay, and names are used everywhere.
    link(page, "0", first).click()
    idle(page)
    assert text(page, "u-seat") == "You are seat 0 (Ann). Your move."
    assert text(page, "u-clock-0").startswith("Ann (you)") and text(page, "u-clock-1").startswith("Bob")
    assert text(page, "u-turn").startswith("Ann to move")
    assert link(page, "1", first).get_attribute("href") == seat1  # the other seat's link, still to hand out
    click_cell(page, "C3")
    assert "Ann places C3." in text(page, "u-verdict")  # the match's announcements name the players
    assert "Ann" in str(page.find_element(By.CSS_SELECTOR, "#u-board svg").get_attribute("innerHTML"))  # and so does the board
    # A reload, or another visit: still there until dismissed.
    page.get(f"{server}/")
    idle(page)
    assert link(page, "0", first).get_attribute("href") == seat0
    page.find_element(By.CSS_SELECTOR, f'#u-kept [data-match="{first}"] .u-dismiss').click()
    page.switch_to.alert.accept()
    idle(page)
    assert not page.find_elements(By.CSS_SELECTOR, f'#u-kept [data-match="{first}"]')
    page.get(f"{server}/")
    idle(page)
    assert not page.find_elements(By.CSS_SELECTOR, f'#u-kept [data-match="{first}"]') and link(page, "0", second)


def test_a_new_position_or_game_clears_what_belonged_to_the_old_one(page: WebDriver) -> None:
    """Before: the ply-1 post stayed under the ply-2 board, one game's PNG link while another was
    played, and a half-typed move in the move box of a new game."""
    new_game(page, "plur", size="3")
    click_cell(page, "B2")
    click(page, "u-copy-post")
    click(page, "u-save-png")
    assert shown(page, "u-post") and value(page, "u-post").startswith("**Plur, ply 1")
    assert shown(page, "u-png-link") and "ply-1.png" in text(page, "u-png-link")
    click(page, "u-back")  # another position: its own post, when asked
    assert not shown(page, "u-post") and value(page, "u-post") == "" and not shown(page, "u-png-link")
    click(page, "u-forward")
    click(page, "u-copy-post")
    assert value(page, "u-post").startswith("**Plur, ply 1")
    page.find_element(By.ID, "u-move").send_keys("E5")
    new_game(page, "too", size="3")
    assert value(page, "u-move") == "" and not shown(page, "u-post") and not shown(page, "u-png-link")
    assert ply(page) == 0


def test_a_branch_from_move_3_keeps_the_main_line(page: WebDriver, shot: Shot) -> None:
    """Before: after Back the move box was disabled, and a move could not be taken back."""
    new_game(page, "catchup", size="3")
    for turn, cell in enumerate(("C3", "A1", "E3", "A2", "E1")):
        click_cell(page, cell)
        if ply(page) == turn:  # a turn that may take a second stone: Play ends it with one
            click(page, "u-play-button")
    main = moves(page)
    assert main == ["start", "1. C3", "2. A1", "3. E3", "4. A2", "5. E1"]
    page.find_element(By.XPATH, "//ol[@id='u-moves']//button[text()='3. E3']").click()
    idle(page)
    assert page.find_element(By.ID, "u-move").is_enabled()
    assert "A move played here starts a branch" in text(page, "u-turn")
    assert not page.find_element(By.ID, "u-take-back").is_enabled()  # only the last move of a line is taken back
    click_cell(page, "B2")
    click(page, "u-play-button")
    assert moves(page) == ["start", "1. C3", "2. A1", "3. E3", "4. B2"]
    assert shown(page, "u-branch") and text(page, "u-branch-text").startswith("A branch from ply 3 (move 3): 1 move of its own.")
    assert "The main line, 5 moves, is kept." in text(page, "u-branch-text")
    branch = page.find_elements(By.CSS_SELECTOR, "#u-moves li.u-branch-move button")
    assert [b.text for b in branch] == ["4. B2"]  # the branch's own moves are marked
    shot(page, "branch")
    click(page, "u-take-back")  # the branch's only move taken back: the main line again, at move 3
    assert moves(page) == main and not shown(page, "u-branch")
    assert text(page, "u-ply") == "ply 3 · move 3 of 5"
    click_cell(page, "B3")
    click(page, "u-play-button")
    click_cell(page, "B1")
    click(page, "u-play-button")
    assert moves(page) == ["start", "1. C3", "2. A1", "3. E3", "4. B3", "5. B1"]
    click(page, "u-main-line")
    assert moves(page) == main and text(page, "u-ply") == "ply 3 · move 3 of 5" and not shown(page, "u-branch")
    click(page, "u-last")
    click(page, "u-take-back")
    assert moves(page) == main[:-1] and "E1 is taken back." in text(page, "u-verdict")
    assert cells(page)["E1"] == "E1, empty"


def test_coordinates_and_each_cell_s_name_on_hover_and_focus(page: WebDriver, shot: Shot) -> None:
    new_game(page, "catchup", size="5")
    svg = page.find_element(By.CSS_SELECTOR, "#u-board svg").get_attribute("innerHTML") or ""
    assert ">D7<" not in svg
    click(page, "u-coords")
    svg = page.find_element(By.CSS_SELECTOR, "#u-board svg").get_attribute("innerHTML") or ""
    assert ">D7<" in svg  # each empty cell named on the board
    title = page.find_element(By.CSS_SELECTOR, '#u-board [data-cell="D7"] title')
    assert title.get_attribute("textContent") == "D7, empty"  # the browser's tooltip on hover
    cell = page.find_element(By.CSS_SELECTOR, '#u-board [data-cell="D7"]')
    page.execute_script("arguments[0].focus()", cell)
    assert text(page, "u-cell-name") == "D7, empty"
    shot(page, "coords")


def test_the_down_arrow_goes_to_the_next_row(page: WebDriver) -> None:
    """Before: from a cell of row B, Down went to row D."""
    new_game(page, "catchup", size="5")
    cell = page.find_element(By.CSS_SELECTOR, '#u-board [data-cell="B3"]')
    page.execute_script("arguments[0].focus()", cell)
    visited = []
    for _ in range(4):
        page.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        visited.append(str(page.switch_to.active_element.get_attribute("data-cell"))[0])
    assert visited == ["C", "D", "E", "F"]
    page.switch_to.active_element.send_keys(Keys.ARROW_UP)
    assert str(page.switch_to.active_element.get_attribute("data-cell"))[0] == "E"


def test_on_a_phone_big_boards_keep_cells_a_finger_wide_and_the_verdict_in_sight(page: WebDriver, shot: Shot) -> None:
    """Before: side-10 cells were 17 px wide on a 390 px screen, and the verdict of a click sat
    below the board, off the screen."""
    phone(page)
    new_game(page, "catchup", size="10")
    width = page.execute_script(
        "return document.querySelector('#u-board [data-cell=\"J10\"] > :first-child').getBoundingClientRect().width"
    )
    assert width >= 29.5, width
    phone(page)  # the board scrolls in its card: the page itself is no wider than the screen
    click_cell(page, "J10")
    box = page.execute_script("const r = document.getElementById('u-verdict').getBoundingClientRect(); return [r.top, r.bottom]")
    assert 0 <= box[0] <= 844 - 48 and "J10" in text(page, "u-verdict")  # its first lines in sight at least
    shot(page, "side-10")


def test_a_little_golem_record_pasted_and_a_match_exported(page: WebDriver, server: str) -> None:
    """The page reads the records the game declares (GET /v1/games ``records``) and a match's
    record is copied in them too."""
    new_game(page, "catchup", size="5")
    match_id = create_match(page, "Ann", "Bob")
    link(page, "0", match_id).click()
    idle(page)
    click_cell(page, "E5")
    Select(page.find_element(By.ID, "u-export-format")).select_by_value("littlegolem")
    click(page, "u-export")
    exported = value(page, "u-post")
    with urllib.request.urlopen(f"{server}/v1/matches/{match_id}/moves?format=littlegolem", timeout=10) as resp:
        assert exported == resp.read().decode()
    page.find_element(By.ID, "u-leave").click()
    assert "Leave your seat (Ann)" in page.switch_to.alert.text  # the seat's match runs: asked first (issue 35)
    page.switch_to.alert.accept()
    idle(page)
    page.find_element(By.ID, "u-tab-record").click()
    Select(page.find_element(By.ID, "u-game")).select_by_value("catchup")
    Select(page.find_element(By.ID, "u-record-format")).select_by_value("littlegolem")
    box = page.find_element(By.ID, "u-record-text")
    box.clear()
    page.execute_script("arguments[0].value = arguments[1]", box, exported)
    click(page, "u-tab-record")
    page.find_element(By.CSS_SELECTOR, "#u-record button[type=submit]").click()
    idle(page)
    assert text(page, "u-verdict").startswith("The record replays: 1 move."), text(page, "u-verdict")
    assert moves(page) == ["start", "1. E5"] and cells(page)["E5"] == "E5, Red's stone"
    # The game on the page is exported as the match was (POST export), and in the page's own record.
    click_cell(page, "D4")
    click(page, "u-play-button")
    Select(page.find_element(By.ID, "u-export-format")).select_by_value("littlegolem")
    click(page, "u-export")
    again = value(page, "u-post")
    assert again.startswith("abcdefghijklmnopq") and "1.\t... i5\th4" in again  # E5, then D4 (Little Golem's h4)
    page.execute_script("arguments[0].value = arguments[1]", box, again)
    page.find_element(By.CSS_SELECTOR, "#u-record button[type=submit]").click()
    idle(page)
    assert moves(page) == ["start", "1. E5", "2. D4"], text(page, "u-verdict")
    Select(page.find_element(By.ID, "u-export-format")).select_by_value("")
    click(page, "u-export")
    own = value(page, "u-post")
    assert own.startswith('[Game "catchup"]\n[Options {') and own.endswith("}]\n\n1. E5\n2. D4\n"), own


def test_a_position_pasted_as_the_post_s_diagram(page: WebDriver, server: str, shot: Shot) -> None:
    """Umpires have positions as the post prints them, not as the API's JSON: the whole post,
    pasted into "Paste a state", sets the position up (whose turn from its turn line)."""
    body = {"options": {"size": 3, "position": {"A1": 0, "B2": 1, "C3": 0}, "to_move": 1}}
    request = urllib.request.Request(
        f"{server}/v1/games/product/new", json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as resp:
        state = json.loads(resp.read())["state"]
    request = urllib.request.Request(
        f"{server}/v1/games/product/post",
        json.dumps({"state": state}).encode(),
        {"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as resp:
        post = resp.read().decode()
    assert "```text" in post and "White to move" in post
    page.find_element(By.ID, "u-tab-new").click()
    Select(page.find_element(By.ID, "u-game")).select_by_value("product")
    page.find_element(By.ID, "u-tab-state").click()
    box = page.find_element(By.ID, "u-state-text")
    page.execute_script("arguments[0].value = arguments[1]", box, post)
    page.find_element(By.CSS_SELECTOR, "#u-state button[type=submit]").click()
    idle(page)
    assert text(page, "u-verdict").startswith("The diagram is read: a Product position"), text(page, "u-verdict")
    board = cells(page)
    assert (
        board["A1"].startswith("A1, black stone")
        and board["B2"].startswith("B2, white stone")
        and board["C3"].startswith("C3, black")
    )
    assert text(page, "u-turn").startswith("White to move")
    shot(page, "pasted")
    # A line that cannot be read is named.
    page.execute_script("arguments[0].value = arguments[1]", box, post.replace("A   B . .", "A   Q . ."))
    page.find_element(By.CSS_SELECTOR, "#u-state button[type=submit]").click()
    idle(page)
    assert "Line " in text(page, "u-verdict") and "'Q' on A1 is no piece of Product" in text(page, "u-verdict")
    refused = [e["message"] for e in page.get_log("browser") if e["level"] == "SEVERE"]  # type: ignore[attr-defined]
    assert len(refused) == 1 and "/v1/games/product/import" in refused[0] and "422" in refused[0]  # the one expected


def test_an_option_the_board_does_not_use_is_not_offered(page: WebDriver) -> None:
    """Before: Green Meadow (a fixed board, R-H4) showed Bug's size field, and sent it."""
    page.find_element(By.ID, "u-tab-new").click()
    Select(page.find_element(By.ID, "u-game")).select_by_value("bug")
    size = page.find_element(By.ID, "u-opt-size")
    assert size.is_displayed()
    Select(page.find_element(By.ID, "u-opt-variant")).select_by_value("green-meadow")
    assert not size.is_displayed()
    assert page.execute_script("return document.getElementById('u-opt-size').closest('label').hidden") is True
    page.find_element(By.CSS_SELECTOR, "#u-new button[type=submit]").click()
    idle(page)
    assert text(page, "u-verdict") == "A new game of Bug."
    assert "green-meadow" in (page.find_element(By.CSS_SELECTOR, "#u-board svg").get_attribute("innerHTML") or "").lower()
    Select(page.find_element(By.ID, "u-opt-variant")).select_by_value("genius")
    assert size.is_displayed()


def test_a_seat_s_link_is_reissued_and_the_umpire_s_controls_are_no_moves(page: WebDriver, server: str) -> None:
    """The umpire gives a seat a new link (its old token refused at once); the umpire's controls in
    the record (here a seat's new token) are no moves on the page (before, every entry the
    page did not know became "resign")."""
    new_game(page, "catchup", size="3")
    match_id = create_match(page, "Ann", "Bob")
    old = str(link(page, "1", match_id).get_attribute("href"))
    page.find_element(By.CSS_SELECTOR, f'#u-kept [data-match="{match_id}"] button[data-reissue="1"]').click()
    page.switch_to.alert.accept()
    idle(page)
    new = str(link(page, "1", match_id).get_attribute("href"))
    assert new != old and "seat=1&token=" in new and "Seat 1 (Bob) has a new link" in text(page, "u-verdict")

    def move(token: str, cell: str, ply: int) -> int:
        body = json.dumps({"move": cell, "ply": ply}).encode()
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
        request = urllib.request.Request(f"{server}/v1/matches/{match_id}/moves", body, headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as resp:
                return int(resp.status)
        except urllib.error.HTTPError as e:
            return int(e.code)

    seat0 = str(link(page, "0", match_id).get_attribute("href")).split("token=")[1]
    assert move(seat0, "C3", 0) == 200
    assert move(old.split("token=")[1], "A1", 1) == 401 and move(new.split("token=")[1], "A1", 1) == 200
    page.get(str(link(page, "umpire", match_id).get_attribute("href")))
    idle(page)
    assert moves(page) == ["start", "1. C3", "2. A1"]
    assert text(page, "u-turn").startswith("Ann to move")


def test_crystal_s_shifts_are_previewed_while_the_turn_is_built(page: WebDriver, shot: Shot) -> None:
    """Before: the grid stayed as it was until the turn's last shift was played, so the umpire
    built a three-shift turn blind (legal-moves' ``preview``: each shift on the grid the ones
    before left, R-X2)."""
    new_game(page, "crystal", seed="19")
    for step in ("first", "red", "blue", "green", "second"):
        buttons = [b for b in page.find_elements(By.CSS_SELECTOR, "#u-steps button") if b.text == step]
        buttons[0].click()
        idle(page)
    assert ply(page) == 4 and text(page, "u-turn").startswith("Player 1 to move: 3 shifts")
    before = cells(page)
    assert not shown(page, "u-preview")
    shift = next(b for b in page.find_elements(By.CSS_SELECTOR, "#u-steps button") if b.text == "A up 1")
    shift.click()
    idle(page)
    assert ply(page) == 4 and value(page, "u-move") == "A up 1"  # not played: one shift of three
    after = cells(page)
    column = [f"A{row}" for row in range(1, 7)]
    what = [label.split(", ", 1)[1] for label in (before[c] for c in column)]
    assert [after[c].split(", ", 1)[1] for c in column] == what[1:] + what[:1]  # column A, up one (it wraps)
    assert all(after[c] == before[c] for c in before if not c.startswith("A"))
    assert shown(page, "u-preview")
    shot(page, "preview")
    click(page, "u-clear")
    assert cells(page) == before and not shown(page, "u-preview")
