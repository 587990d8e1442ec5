"""Announcements: what the umpire says about a move, in plain English, checked
against the seeds' worked examples (000 Catchup, 002 Bug, 003 Crystal) and
over random games of every game and variant, so that every event the engine
emits (and the spec's events for Plur, Too and the common ends) has its
sentence."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_catchup import TIE_BREAK_1, TIE_BREAK_2
from test_crystal import IDENTITY_A
from viewcases import (
    ALL_ANOMALIES,
    BUG,
    CATCHUP,
    CRYSTAL,
    Move,
    bug_seed_example,
    catchup_last_stone,
    catchup_worked_example,
    crystal_finished,
    crystal_seed_example,
    play,
    plur_finished,
    position,
    random_bug,
    random_catchup,
    random_crystal,
    random_plur,
    random_product,
    random_too,
    too_finished,
)

import views
from engine.games.crystal.show import TIMES
from engine.registry import ROOMS

Json = dict[str, Any]


# -- seed 002: Bug ---------------------------------------------------------------------------


def test_seed_002_blue_eats_the_bend_and_red_eats_back() -> None:
    blue, red = bug_seed_example()
    said = views.announcements(*blue)
    assert said == [
        "Blue grows on B1: the bug is now the bend 3-bug A2-B1-B2.",
        "Blue's bend 3-bug A2-B1-B2 eats Red's congruent bend 3-bug A3-B4-C4 and grows on the bonus cell B3: "
        "now the 4-bug A2-B1-B2-B3 (R-B4).",
        "Pieces on the board: Red 4, Blue 7; largest bugs: Red 3, Blue 4.",
    ]
    said = views.announcements(*red)
    assert said == [
        "Red grows on C2: the bug is now the 4-bug C1-C2-D1-E1.",
        "Red's 4-bug C1-C2-D1-E1 eats Blue's congruent 4-bug A2-B1-B2-B3 and grows on the bonus cell C3: "
        "now the 5-bug C1-C2-C3-D1-E1 (R-B4).",
        "Pieces on the board: Red 6, Blue 3; largest bugs: Red 5, Blue 3.",
    ]


def test_seed_002_shapes_and_names() -> None:
    # "a straight 3-hex bug on C1-D1-E1" and custom names
    before, events, after = bug_seed_example()[0]
    said = views.announcements(before, events, after, names=["Ann", "Bob"])
    assert said[1].startswith("Bob's bend 3-bug A2-B1-B2 eats Ann's congruent bend 3-bug A3-B4-C4")
    from engine.games.bug.show import shape_word

    board = BUG.new({}).board
    assert shape_word(board, ["C1", "D1", "E1"]) == "straight 3-bug"
    assert shape_word(board, ["B2", "B3", "C3"]) == "triangle 3-bug"


def test_an_eat_with_no_bonus_cell_is_announced_as_refused() -> None:
    # tests/test_bug.py's position: Red's A1 touches Blue's single A2 but could not grow after eating (R-B4)
    board, blocked = position(
        """
          . O X
         # # . X
        . . . . .
         . . . .
          . . .
        """,
        3,
    )
    state = BUG.new({"size": 3, "position": board, "blocked": blocked, "to_move": 0})
    (move,) = play(BUG, state, "A1")[1]
    said = views.announcements(*move)
    assert "Red's 1-bug A1 touches Blue's congruent 1-bug A2, but could not grow after eating" in said[1]
    assert "does not eat" in said[1]


def test_green_meadow_blackening() -> None:
    state = BUG.new({"variant": "green-meadow"})
    _, moves = play(BUG, state, "D4", "C3")
    assert views.announcements(*moves[0]) == [
        "Red blackens D4: it leaves the board for good (R-B2).",
        "Blue blackens a cell next.",
    ]
    assert views.announcements(*moves[1])[-1] == "The board is set: Red places the first piece."


# -- seed 000: Catchup -------------------------------------------------------------------------


def test_seed_000_worked_example() -> None:
    red_b4, blue_d7, red_b3, blue_f2 = catchup_worked_example()
    assert views.announcements(*red_b4) == ["Red places B4 and B5.", "Blue may place 1 or 2 stones next turn."]
    assert views.announcements(*blue_d7) == [
        "Blue places D7 and F8.",
        "Blue's score rises from 2 to 4.",
        "Blue is leading (4 against Red's 4), so Red may place up to three stones next turn (R-C3).",
    ]
    assert views.announcements(*red_b3) == [
        "Red places B3, C1 and D2.",
        "Red's score rises from 4 to 6.",
        "Red is leading (6 against Blue's 4), so Blue may place up to three stones next turn (R-C3).",
    ]
    # "Blue's score rises to 5, but this does not overtake Red, so Blue is not leading;
    # Red may only play two spaces next turn."
    assert views.announcements(*blue_f2) == [
        "Blue places F2, G7 and H6.",
        "Blue's score rises from 4 to 5, but stays below Red's 6, so Blue is not leading (R-C3).",
        "Red may place 1 or 2 stones next turn.",
    ]


def test_a_bonus_not_used_lapses() -> None:
    _, blue_d7, _, _ = catchup_worked_example()
    state = CATCHUP.load(blue_d7[2])  # Red may place 3 (R-C3)
    (move,) = play(CATCHUP, state, "I3 I4")[1]
    said = views.announcements(*move)
    assert said[:2] == ["Red places I3 and I4.", "Red placed 2 stones of the 3 allowed: the bonus lapses unused (R-C3)."]


def test_seed_000_tie_break_third_group() -> None:
    # "you have 11-8-8-3 and your opponent has 11-8-7-4-1. Then you win as your third-largest group 8 is larger than 7"
    said = views.announcements(*catchup_last_stone(TIE_BREAK_1, 0))
    assert said[-2:] == [
        "The board is full: the game is over (R-C4).",
        "Red wins: Red's groups 11-8-8-3 beat Blue's 11-8-7-4-1 at the third group (8 against 7).",
    ]


def test_seed_000_tie_break_fifth_group() -> None:
    # "Had your opponent 11-8-8-3-1 instead, your opponent would have won as their fifth-largest group 1 is larger than your 0"
    said = views.announcements(*catchup_last_stone(TIE_BREAK_2, 1))
    assert (
        said[-1]
        == "Blue wins: Blue's groups 11-8-8-3-1 beat Red's 11-8-8-3 at the fifth group (1 against 0: Red has no fifth group)."
    )


def test_catchup_end_event_with_decided_at_and_end() -> None:
    before, events, after = catchup_last_stone(TIE_BREAK_1, 0)
    end = {**events[-1], "end": "full", "decided_at": 3}
    said = views.announcements(before, [*events[:-1], end], after)
    assert said[-1].endswith("at the third group (8 against 7).")


def test_catchup_mindsports_and_bolanos_say_their_rule() -> None:
    state = CATCHUP.new({"size": 3, "variant": "mindsports"})
    _, moves = play(CATCHUP, state, "C3", "A1 A2")
    assert "made a group larger than any on the board at the start of the turn" in views.announcements(*moves[1])[-1]
    state = CATCHUP.new({"size": 3, "variant": "bolanos"})
    _, moves = play(CATCHUP, state, "C3", "A1 E3")
    assert views.announcements(*moves[1])[-1] == (
        "Red may place 1 stone, or 2 that leave the largest group on the board the same size (R-C3) next turn."
    )


# -- seed 003: Crystal Connector -------------------------------------------------------------------


def test_seed_003_scoring_example() -> None:
    # "Player 1 would score 7*5=35 points. Player 2 would score 4*2=8 points."
    state = crystal_seed_example()
    (move,) = play(CRYSTAL, state, IDENTITY_A)[1]
    assert views.announcements(*move) == [
        "Player 1 shifts A up 2, A up 2, A up 2.",
        f"Player 1 scores red 7 {TIMES} green 5 = 35, total 35 (R-X3).",
        f"Player 2 scores blue 2 {TIMES} yellow 4 = 8, total 8 (R-X3).",
        "Player 2 shifts next: 3 shifts, not on A.",
    ]


def test_crystal_round_end_threshold_and_winner() -> None:
    said = views.announcements(*crystal_finished())
    assert said[-2:] == [
        "End of round 7: Player 1 265, Player 2 208 (threshold 250).",
        "A total has reached the threshold of 250 at the end of the round: Player 1 wins 265 to 208 (R-X4).",
    ]


def test_crystal_draft() -> None:
    state = CRYSTAL.new({"seed": "draft"})
    _, moves = play(CRYSTAL, state, "second", "yellow", "green red", "second")
    said = [s for m in moves for s in views.announcements(*m)]
    assert said == [
        "Player 1 says 'second': Player 2 picks a colour first (R-X1).",
        "Player 2 picks yellow.",
        "Player 1 picks red and green.",
        "Player 2 gets the last colour, blue (R-X1).",
        "Player 2 says 'second': Player 1 shifts first (R-X1).",
    ]


def test_crystal_ties_spikes_and_time_outs() -> None:
    state = CRYSTAL.dump(crystal_seed_example())
    tie = {"type": "tie", "scores": [260, 260]}
    assert views.announcements(state, [tie], state) == [
        "The round ends with a total past the threshold but the totals equal (260 each): play goes on (R-X4)."
    ]
    assert views.announcements(state, [{"type": "spikes_vanish"}], state) == [
        "Both players have made 15 turns: the spikes vanish (R-X5)."
    ]
    proxy = {"type": "flag", "player": 0, "proxy": True, "until": "2026-11-22T12:01:30.000Z"}
    assert views.announcements(state, [proxy], state) == [
        "Player 1 has run out of time: Player 2 may submit Player 1's turn until 12:01:30 UTC (R-X6)."
    ]
    lapsed = CRYSTAL.timeout(crystal_seed_example())
    said = views.announcements(state, lapsed[1], CRYSTAL.dump(lapsed[0]))
    assert said[:2] == [
        "Player 1 ran out of time and nobody moved for them (R-X6).",
        "Player 1's turn passes with no shifts and is scored as usual (R-X6).",
    ]
    draft = CRYSTAL.new({"seed": "draft"})
    flagged, events = CRYSTAL.timeout(draft)
    said = views.announcements(CRYSTAL.dump(draft), events, CRYSTAL.dump(flagged))
    assert said[0] == "Player 1 ran out of time in the draft: the default choice 'first' is made for them (R-X6)."


# -- Plur and Too ---------------------------------------------------------------------------------------


def test_plur_ladder_and_swap() -> None:
    said = views.announcements(*plur_finished())
    assert said == [
        "Black places a black stone on E3.",
        "Groups: Black 9-1, White 3-2-2-2.",
        "The board is full: the game is over (R-E1).",
        "White wins: of the 5 largest groups (9, 3, 2, 2, 2) Black owns 1 and White 4; "
        "the third and fourth largest were the same size, so the count went on to 5.",
    ]
    swap = {"type": "swap", "player": 1, "cell": "E5"}
    after = {"game": "plur", "options": {"size": 5, "pie": True}, "board": {"E5": 1}, "scores": [[], [1]], "to_move": 0}
    assert views.announcements(None, [swap], after)[0] == (
        "White swaps (pie rule): the black stone on E5 becomes White's white stone, and Black moves next with black (R-E1a)."
    )


def test_too_second_largest() -> None:
    assert views.announcements(*too_finished()) == [
        "Black places a black stone on E3.",
        "Second-largest groups: black 3, white 2.",
        "The board is full: the game is over (R-E2).",
        "Black wins: the board is full and black's second-largest group (3) is larger than white's (2).",
    ]


# -- ends and clocks common to all ----------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(ROOMS))
def test_resign_flag_illegal_aborted(game: str) -> None:
    state = {"game": game, "options": {}, "board": {} if game != "crystal" else CRYSTAL.dump(crystal_seed_example())["board"]}
    names = ROOMS[game].show.default_names
    resign = [{"type": "resign", "player": 0}, {"type": "end", "winner": 1, "end": "resign"}]
    assert views.announcements(state, resign, state) == [f"{names[0]} resigns.", f"{names[1]} wins: {names[0]} resigned."]
    illegal = [
        {"type": "illegal", "player": 1, "code": "occupied", "message": "C3 is already occupied."},
        {"type": "end", "winner": 0, "end": "illegal"},
    ]
    said = views.announcements(state, illegal, state)
    assert said[0] == f"{names[1]}'s move is illegal: C3 is already occupied. {names[1]} forfeits the game."
    assert said[1] == f"{names[0]} wins: {names[1]} forfeited with an illegal move: C3 is already occupied."
    # Under the match's `reject` policy the move is refused and the game goes on: no forfeit.
    refused = [{"type": "illegal", "player": 1, "move": "C3", "code": "occupied", "message": "C3 is already occupied."}]
    assert views.announcements(state, refused, state) == [
        f"{names[1]}'s move is illegal: C3 is already occupied.",
        f"The move (C3) is refused: {names[1]} is still to move.",
    ]
    forfeit = [{**illegal[0], "forfeit": True}, illegal[1]]
    assert views.announcements(state, forfeit, state) == said
    assert views.announcements(state, [{"type": "end", "winner": None, "end": "aborted"}], state) == [
        "The game was aborted: no result."
    ]
    if game != "crystal":
        flag = [{"type": "flag", "player": 1}, {"type": "end", "winner": 0, "end": "flag"}]
        assert views.announcements(state, flag, state)[1] == f"{names[0]} wins on time: {names[1]} ran out of time (R-T1)."


def test_the_movers_clock() -> None:
    blue = catchup_worked_example()[1]
    clock = {
        "turn_s": 60.0,
        "bank_s": 300.0,
        "step_s": 1.0,
        "on_flag": "loses",
        "seats": {"0": {"bank_s": 300.0, "deadline": "2026-11-22T12:06:00.000Z"}, "1": {"bank_s": 250.0}},
        "to_move": 0,
        "may_move": 0,
        "turn_started": "2026-11-22T12:00:00.000Z",
        "deadline": "2026-11-22T12:06:00.000Z",
        "proxy": False,
        "now": "2026-11-22T12:00:13.000Z",
    }
    assert views.announcements(*blue, clock=clock)[-1] == "Blue's clock: bank 4:10."


# -- every event of every game has its sentence -------------------------------------------------------------


def walks(seed: int) -> list[Move]:
    rng = random.Random(seed)
    out: list[Move] = []
    for variant, size in (("standard", 3), ("mindsports", 3), ("bolanos", 3), ("standard", 5)):
        out += random_catchup(rng, variant, size)
    for options in ({}, {"size": 2}, {"variant": "green-meadow"}, {"eaters": "all", "size": 4}):
        out += random_bug(rng, options)
    out += random_crystal(rng, [], seed=f"w{seed}")
    out += random_crystal(rng, ALL_ANOMALIES, seed=f"a{seed}")
    out += random_plur(rng, 3, pie=True) + random_plur(rng, 2)
    out += random_too(rng, 3) + random_too(rng, 2)
    out += random_product(rng, {"size": 3}) + random_product(rng, {"size": 2, "variant": "bentley", "lone_group": "size"})
    out += random_product(rng, {"size": 2, "variant": "abstractplay", "blocked": ["B2"]})
    starts: list[tuple[Any, Any]] = [(CATCHUP, CATCHUP.new({})), (BUG, BUG.new({})), (CRYSTAL, crystal_seed_example())]
    for game, state in starts:
        for end in (game.resign(state, 1), game.timeout(state)):
            out.append((game.dump(state), end[1], game.dump(end[0])))
    return out


HAND_MADE: list[Json] = [  # events the random games may not reach, and those of ends not yet in every engine
    {"type": "resign", "player": 0},
    {"type": "flag", "player": 1},
    {"type": "tie", "scores": [260, 260]},
    {"type": "spikes_vanish"},
    {"type": "flag", "player": 0, "proxy": True, "until": "2026-11-22T12:01:30.000Z"},
    {"type": "illegal", "player": 0, "code": "occupied", "message": "C3 is already occupied."},
    {"type": "end", "winner": None, "end": "aborted"},
    {"type": "eat_refused", "player": 0, "eater": ["A1"], "spared": [["A2"]]},
    {"type": "swap", "player": 1, "cell": "E5"},
    {"type": "adjudicate", "winner": None, "reason": "agreed"},
    {"type": "umpire", "action": "pause"},
    {"type": "umpire", "action": "pause", "reason": "a player's connection dropped"},
    {"type": "umpire", "action": "add_umpire", "link": 1},
    {"type": "takeback", "player": 0, "move": "C3", "ply": 0},
]


@pytest.mark.parametrize("seed", range(3))
def test_every_event_of_random_games_has_a_sentence(seed: int) -> None:
    seen: dict[str, set[str]] = {game: set() for game in ROOMS}
    for before, events, after in walks(seed):
        view = ROOMS[after["game"]].show
        assert views.announcements(before, events, after)
        for e in events:
            assert e["type"] in view.event_types, f"{after['game']} has no sentence for {e['type']!r}"
            said = views.announcements(before, [e], after)
            assert said and not any("no sentence" in s for s in said), e
            seen[after["game"]].add(e["type"])
    for e in HAND_MADE:
        for game, room in ROOMS.items():
            if e["type"] in room.show.event_types:
                state = walks_state(game)
                assert views.announcements(state, [e], state)
                seen[game].add(e["type"])
    for game, room in ROOMS.items():
        assert seen[game] == room.show.event_types, game  # every sentence is exercised, and no event lacks one


def walks_state(game: str) -> Json:
    if game == "crystal":
        return CRYSTAL.dump(crystal_seed_example())
    return {"game": game, "options": {}, "board": {}, "scores": [0, 0], "status": "ongoing", "to_move": 0}


def test_unknown_events_are_said_not_dropped() -> None:
    state = CATCHUP.dump(CATCHUP.new({}))
    assert views.announcements(state, [{"type": "meteor"}], state) == ["(The umpire has no sentence for the event 'meteor'.)"]


@pytest.mark.parametrize(
    ("event", "said"),
    [
        ({"type": "umpire", "action": "start"}, "The umpire started the clocks."),
        ({"type": "umpire", "action": "pause"}, "The umpire paused the clocks."),
        ({"type": "umpire", "action": "resume"}, "The umpire resumed the clocks."),
        ({"type": "umpire", "action": "add_time", "seat": 1, "seconds": 30}, "The umpire gave Bo 30 s."),
        ({"type": "umpire", "action": "add_time", "seat": 0, "seconds": 2.5}, "The umpire gave Al 2.5 s."),
        (
            {"type": "umpire", "action": "token", "seat": 0},
            "The umpire issued a new token for Al's seat: the old one no longer works.",
        ),
        ({"type": "adjudicate", "winner": None, "reason": "agreed"}, "The umpire adjudicated: a draw (agreed)."),
        ({"type": "adjudicate", "winner": 1, "reason": "won ending."}, "The umpire adjudicated: Bo wins (won ending)."),
    ],
)
def test_the_umpires_controls_are_announced_with_the_players_names(event: Json, said: str) -> None:
    """Issue 22: every control over a live match is announced, with the players' names when set."""
    state = walks_state("catchup")
    assert views.announcements(state, [event], state, names=["Al", "Bo"]) == [said]


def test_an_adjudicated_end_says_the_winner_or_the_draw() -> None:
    state = walks_state("catchup")
    won = views.announcements(state, [{"type": "end", "winner": 0, "end": "adjudicated"}], state, names=["Al", "Bo"])
    drawn = views.announcements(state, [{"type": "end", "winner": None, "end": "adjudicated"}], state)
    assert won == ["Al wins by the umpire's decision."]
    assert drawn == ["The umpire adjudicated the game a draw."]


def test_a_before_that_is_no_state_of_a_game_with_a_show_is_refused_and_one_of_the_same_game_is_not_looked_at_twice() -> None:
    """``announcements`` reads ``before`` only when it is a state: a state of after's game needs no second look
    (issue 20, cost per request), and anything else is still refused, naming the games there are."""
    import views
    from engine.registry import get_game

    g = get_game("catchup")
    before = g.dump(g.play(g.new({"size": 5}), "E5").state)
    verdict = g.play(g.load(before), "D4 F6")
    after = g.dump(verdict.state)
    said = views.announcements(before, verdict.events, after)
    assert said[0] == "Blue places D4 and F6." and said == views.announcements(dict(before), verdict.events, after)
    for wrong in ("E5", {"game": "chess"}, {"board": {}}):
        with pytest.raises(ValueError):
            views.announcements(wrong, verdict.events, after)  # type: ignore[arg-type]


def test_a_bonus_near_the_end_counts_the_cells_left() -> None:
    """R-C3 with R-C4: the 3-stone bonus is capped by the cells left on the board.  A side-3 board (19 cells,
    R-H1) filled one stone a turn, row by row; Red's E1 leaves two cells, Blue's E2 one.  Before, the
    announcements said "the 3 allowed" of a bonus worth two stones, and "up to one stones"."""
    state = CATCHUP.new({"size": 3})
    row_by_row = ["A1", "A2", "A3", "B1", "B2", "B3", "B4", "C1", "C2", "C3", "C4", "C5", "D1", "D2", "D3", "D4"]
    state, _ = play(CATCHUP, state, *row_by_row)
    _, (red_e1, blue_e2) = play(CATCHUP, state, "E1", "E2")
    assert red_e1[2]["max_stones"] == 2 and blue_e2[2]["max_stones"] == 1
    assert views.announcements(*red_e1)[-1] == (
        "Red is leading (5 against Blue's 4), so Blue may place up to two stones next turn (R-C3)."
    )
    assert views.announcements(*blue_e2) == [
        "Blue places E2.",
        "Blue placed 1 stone of the 2 allowed: the bonus lapses unused (R-C3).",
        "Blue's score rises from 4 to 5.",
        "Blue is leading (5 against Red's 5), so Red may place up to one stone next turn (R-C3).",
    ]
