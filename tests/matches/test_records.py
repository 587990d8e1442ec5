"""Records that replay: the plain-text record of a match (``GET /v1/matches/{id}/moves``)
is a game record that ``POST /v1/games/{game}/replay`` checks, to the very state the
match ended in, also when it ended on time (R-T1), by resignation, or when a Crystal
turn passed (R-X6).  The record writes those ends with two reserved entries,
``timeout`` and ``resign <seat>``, which only ``replay`` understands: ``play`` judges
moves and refuses them, so nobody can pass a turn by typing ``timeout``."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from matchkit import FakeClock, Match, NewMatch
from test_clocks import CRYSTAL, GRID, a_turn
from test_whole_matches import choose, moves_of

from engine.registry import GAMES

# Fixed starts for every game (Crystal: a set-up grid, player 1 shifts first).
STARTS: dict[str, dict[str, Any]] = {"catchup": {"size": 3}, "bug": {}, "crystal": CRYSTAL}
RESERVED = ["timeout", "TIMEOUT", "resign 0", "resign 1", "Resign 1"]


def largest_group(grid: list[str], letter: str) -> int:
    """Largest orthogonally connected group of ``letter`` (R-H5), by a plain flood fill."""
    seen: set[tuple[int, int]] = set()
    best = 0
    for r0 in range(6):
        for c0 in range(6):
            if grid[r0][c0] != letter or (r0, c0) in seen:
                continue
            stack, size = [(r0, c0)], 0
            seen.add((r0, c0))
            while stack:
                r, c = stack.pop()
                size += 1
                for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= nr < 6 and 0 <= nc < 6 and (nr, nc) not in seen and grid[nr][nc] == letter:
                        seen.add((nr, nc))
                        stack.append((nr, nc))
            best = max(best, size)
    return best


# -- the engine: reserved entries ------------------------------------------------------


@pytest.mark.parametrize("game_name", sorted(STARTS))
@pytest.mark.parametrize("text", RESERVED)
def test_play_refuses_the_reserved_entries_as_moves(client: FlaskClient, game_name: str, text: str) -> None:
    game = GAMES[game_name]
    state = game.new(STARTS[game_name])
    verdict = game.play(state, text)
    assert not verdict.legal and verdict.state == state
    # and over HTTP: a verdict of legal: false, the state unchanged
    dumped = game.dump(state)
    r = client.post(f"/v1/games/{game_name}/play", json={"state": dumped, "move": text})
    assert r.status_code == 200 and r.json["legal"] is False and r.json["state"] == dumped


def test_replay_timeout_in_catchup_and_bug_the_flagged_player_loses() -> None:
    for game_name in ("catchup", "bug"):
        game = GAMES[game_name]
        # after player 0's first stone player 1 is to move; they flag and lose (R-T1)
        result = game.replay(STARTS[game_name], ["C3", "timeout"])
        assert (result.valid, result.plies) == (True, 2)
        state = game.dump(result.state)
        assert (state["status"], state["winner"], state["end"], state["to_move"]) == ("finished", 0, "flag", None)


def test_replay_timeout_in_crystal_passes_the_turn_and_scores_it() -> None:
    game = GAMES["crystal"]
    result = game.replay(CRYSTAL, ["timeout"])
    assert result.valid
    state = game.dump(result.state)
    # R-X6: player 1's turn passed with no shifts; R-X3: both score their products on the unchanged grid
    red, green, blue, yellow = (largest_group(GRID, c) for c in "RGBY")
    assert state["board"] == GRID and state["ply"] == 1 and state["to_move"] == 0 and state["turns"] == [0, 1]
    assert state["scores"] == [red * green, blue * yellow]


def test_replay_resign_names_the_seat_either_may_resign_any_time() -> None:
    game = GAMES["catchup"]
    # player 1 is to move, player 0 resigns
    state = game.dump(game.replay({"size": 3}, ["C3", "resign 0"]).state)
    assert (state["status"], state["winner"], state["end"]) == ("finished", 1, "resign")
    state = game.dump(game.replay({"size": 3}, ["resign 1"]).state)
    assert (state["winner"], state["end"], state["ply"]) == (0, "resign", 0)


@pytest.mark.parametrize(
    ("moves", "index", "code"),
    [
        (["C3", "resign"], 1, "bad_notation"),  # a resignation names its seat
        (["resign 2"], 0, "bad_notation"),
        (["timeout 1"], 0, "bad_notation"),
        (["resign 0", "timeout"], 1, "game_over"),  # nothing follows the end
        (["C3", "timeout", "resign 0"], 2, "game_over"),
        (["resign 0", "C3"], 1, "game_over"),
    ],
)
def test_replay_checks_reserved_entries(client: FlaskClient, moves: list[str], index: int, code: str) -> None:
    r = client.post("/v1/games/catchup/replay", json={"options": {"size": 3}, "moves": moves})
    assert r.status_code == 200 and r.json["valid"] is False
    assert (r.json["plies"], r.json["first_illegal"]["index"], r.json["first_illegal"]["error"]["code"]) == (index, index, code)


# -- matches: the text record replays to the match's final state ------------------------


def replays_to_final(client: FlaskClient, m: Match) -> list[str]:
    """Replay the match's text record over HTTP; it must reach the match's own state.
    Returns the record's entries (numbered lines)."""
    final = m.state()
    rec = m.record()
    entries = moves_of(rec["text"])
    r = client.post(f"/v1/games/{rec['game']}/replay", json={"options": rec["options"], "moves": entries})
    assert r.status_code == 200 and r.json["valid"] is True, (rec["text"], r.json)
    assert r.json["plies"] == len(entries)
    assert r.json["state"] == final
    return entries


def play_some(m: Match, game_name: str, n: int, fake_clock: FakeClock | None = None) -> dict[str, Any]:
    """``n`` legal moves by the seats to move (a tenth of a second each, on a fake clock)."""
    state: dict[str, Any] = m.state()
    for turn in range(n):
        if fake_clock is not None:
            fake_clock.advance(0.1)
        r = m.move(state["to_move"], choose(game_name, state, turn), state["ply"])
        assert r.status_code == 200, r.json
        state = r.json["state"]
    return state


@pytest.mark.parametrize(("game_name", "options"), [("catchup", {"size": 3}), ("bug", {}), ("bug", {"variant": "green-meadow"})])
def test_a_match_lost_on_time_replays(
    client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock, game_name: str, options: dict[str, Any]
) -> None:
    m = new_match(game_name, options, clock={"turn_s": 1, "bank_s": 0})
    before = play_some(m, game_name, 3, fake_clock)
    fake_clock.advance(5)  # the seat to move flags (R-T1)
    final = m.state()
    assert (final["end"], final["winner"]) == ("flag", 1 - before["to_move"])
    assert replays_to_final(client, m)[-1] == "timeout"


@pytest.mark.parametrize(("game_name", "options"), [("catchup", {"size": 3}), ("bug", {}), ("crystal", {"seed": "resign"})])
def test_a_resigned_match_replays(client: FlaskClient, new_match: NewMatch, game_name: str, options: dict[str, Any]) -> None:
    m = new_match(game_name, options)
    state = play_some(m, game_name, 7)  # Crystal: its four draft decisions (R-X1), then shifts
    waiting = 1 - state["to_move"]  # the seat not to move resigns
    assert m.resign(waiting).status_code == 200
    assert (m.state()["end"], m.state()["winner"]) == ("resign", state["to_move"])
    assert replays_to_final(client, m)[-1] == f"resign {waiting}"


def test_crystal_passed_turn_proxy_move_and_resignation_replay(
    client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock
) -> None:
    m = new_match("crystal", CRYSTAL, clock={"turn_s": 1, "bank_s": 1})
    fake_clock.advance(0.1)
    state = m.state()
    assert m.move(1, a_turn(state), 0).status_code == 200  # seat 1 shifts first
    fake_clock.advance(3.4)  # seat 0 flags at 2.1 s, its proxy window lapses at 3.1 s: the turn passes (R-X6)
    state = m.state()
    assert (state["ply"], state["to_move"], state["turns"]) == (2, 1, [1, 1])
    fake_clock.advance(0.1)
    assert m.move(1, a_turn(state), 2).status_code == 200
    fake_clock.advance(1.4)  # seat 0, bank spent, flags at once past its turn; seat 1 may move for it
    state = m.get().json
    assert state["clock"]["proxy"] is True and state["clock"]["may_move"] == 1
    assert m.move(1, a_turn(state["state"]), 3).status_code == 200
    assert m.resign(0).status_code == 200
    entries = replays_to_final(client, m)
    assert entries[1:2] == ["timeout"] and entries[-1] == "resign 0"
    text = m.record()["text"]
    assert "the turn passes with no move and is scored (R-X6)" in text and "seat 1 for seat 0 (R-X6)" in text


def test_crystal_match_decided_by_passes_alone_replays(client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = new_match("crystal", CRYSTAL, clock={"turn_s": 1, "bank_s": 0})
    fake_clock.advance(100)  # nobody ever moves: every turn flags and passes, scored on the same grid
    final = m.state()
    red, green, blue, yellow = (largest_group(GRID, c) for c in "RGBY")
    per_turn = [red * green, blue * yellow]  # R-X3: every turn's end scores both players
    # R-X4: the game ends at the first round's end with a total at the threshold, the higher total winning
    rounds = next(k for k in range(1, 100) if max(per_turn) * 2 * k >= 250)
    assert final["status"] == "finished" and final["scores"] == [2 * rounds * p for p in per_turn]
    assert final["winner"] == per_turn.index(max(per_turn))
    assert replays_to_final(client, m) == ["timeout"] * 2 * rounds


def test_book_moves_are_marked_in_the_record(client: FlaskClient, new_match: NewMatch) -> None:
    """Issue 23: opening moves a harness plays from its book carry ``"book": true``; the
    record marks them, in its entries and its text, and replays as before."""
    m = new_match("catchup", {"size": 3})
    for seat, (move, ply) in enumerate([("C3", 0), ("B2 B3", 1)]):
        r = m.client.post(f"/v1/matches/{m.id}/moves", json={"move": move, "ply": ply, "book": True}, headers=m.auth(seat))
        assert r.status_code == 200, r.json
    assert m.move(0, "C2 C4", 2).status_code == 200  # the bots take over
    bad = m.client.post(f"/v1/matches/{m.id}/moves", json={"move": "A1", "ply": 3, "book": "yes"}, headers=m.auth(1))
    assert bad.status_code == 422 and bad.json["error"]["code"] == "invalid_body"
    record = m.record()
    assert [e.get("book", False) for e in record["moves"]] == [True, True, False]
    lines = [line for line in record["text"].splitlines() if line[:1].isdigit()]
    assert lines[0].startswith("1. C3 {seat 0, book, ") and lines[1].startswith("2. B2 B3 {seat 1, book, ")
    assert "book" not in lines[2]
    assert record["replay"]["moves"] == ["C3", "B2 B3", "C2 C4"]


def test_a_match_record_in_little_golems_format_reads_back(client: FlaskClient) -> None:
    """GET /v1/matches/{id}/moves?format=littlegolem writes the record as Little Golem does (the
    players' initials over the turns), and POST /v1/games/catchup/import reads it back to the same moves."""
    r = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 5}, "players": ["Bert", "Jo"]})
    assert r.status_code == 201
    m = Match(client, r.json["match_id"], (r.json["seats"]["0"], r.json["seats"]["1"]), r.json)
    for ply, (seat, move) in enumerate([(0, "E5"), (1, "C3 F3"), (0, "D3 F6")]):
        assert m.move(seat, move, ply).status_code == 200
    assert m.resign(1).status_code == 200
    text = client.get(f"/v1/matches/{m.id}/moves?format=littlegolem")
    assert text.status_code == 200 and text.mimetype == "text/plain"
    assert text.get_data(as_text=True).splitlines() == ["abcdefghijklmnopq\t\tB\tJ", "1.\t... i5\tg3 f6", "2.\tf4 l6\tresign"]
    back = client.post("/v1/games/catchup/import", json={"format": "littlegolem", "text": text.get_data(as_text=True)})
    assert back.get_json()["moves"] == m.record()["replay"]["moves"]
    assert client.get(f"/v1/matches/{m.id}/moves?format=pgn").status_code == 422


def test_a_set_up_match_in_little_golems_format_answers_422(client: FlaskClient) -> None:
    """GET /v1/matches/{id}/moves?format=littlegolem of a match made from a position."""
    r = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3, "blocked": ["A1", "E3"]}})
    assert r.status_code == 201, r.get_json()
    got = client.get(f"/v1/matches/{r.get_json()['match_id']}/moves?format=littlegolem")
    error = got.get_json()["error"]
    assert got.status_code == 422 and error["code"] == "bad_options" and "options.blocked" in str(error["details"])
    assert client.get(f"/v1/matches/{r.get_json()['match_id']}/moves").status_code == 200  # the JSON record still there
