"""The match API as a state machine (issue 13): hypothesis drives matches of
every game through creation, moves by the seat to move and by the wrong seat,
stale plies, illegal moves under both policies, retries with the same key,
another key or none, a key reused for another move, resignations, waits,
flags forced with the fake clock, and an umpire's aborts; a model kept here
says what each answer must be.

The model is a client's view of the rules: the engine (GAMES[...]: new,
play, timeout, resign, forfeit, abort, as a client may call them) for the
game, and the clock rules restated (R-T1: a turn allowance, then the bank in
whole steps rounded up, a flag when both are spent, dated at the deadline;
R-X6: the flagged seat's opponent may move for it for one turn timer, then
the game's timeout applies: Crystal's turn passes, the others' flagged seat
loses).  After every step, for every match:
* the server and the model agree on the match (the whole state, the clock:
  banks, remaining time, deadline, who may move) and on the record, entry by
  entry, events included;
* the record's replay replays through POST /v1/games/{game}/replay to the
  state the match holds (valid: true);
* no clock value is ever negative, in any answer or record entry;
* exactly one answer per ply: the record's entries come in ply order, one
  move (or pass) made each ply, at most one entry ended the game, and every
  retry of a ply gets the bytes first answered for it (Idempotent-Replayed).
Only the announcements (views/, tested on their own) are not compared.

The fake clock drives all time (the app reads it instead of Redis TIME, and
each example starts it afresh) and waits are only asked when they are due at
once, so nothing depends on real time; the run is derandomized (no example
database), so a failure in CI is the same failure here.
test_a_broken_service_is_caught breaks the service in a few ways and checks
that the machine notices each.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Response
from flask.testing import FlaskClient
from gamekit import random_move
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from matchkit import START_MS, FakeClock, Match

from engine.errors import MoveError
from engine.game import Outcome
from engine.registry import GAMES
from service.matches import changes, referee
from service.matches.match import Live
from service.matches.record import Entry
from service.matches.referee import REFUSED_PER_TURN
from service.matches.store import Store

GRID = ["GRGRRR", "BGRYBY", "GGYRGB", "YYRGYB", "GYBBRB", "RGYYBB"]
SETUPS = [("catchup", {"size": 3}), ("catchup", {"size": 3, "variant": "mindsports"}), ("bug", {"size": 2}),
          ("plur", {"size": 2}), ("plur", {"size": 2, "pie": True}), ("too", {"size": 2}),
          ("crystal", {"seed": "machine"}),
          ("crystal", {"grid": GRID, "colors": [["red", "green"], ["blue", "yellow"]], "first": 1})]  # fmt: skip
ILLEGAL = ("pass", "Z9", "A1 A1", "B Q7")
# None: the game's preset (no flag within a run); else a 1 s turn and a small bank, and what a flag does
# (Crystal's is always R-X6's proxy window)
CLOCKS: list[dict[str, Any] | None] = [None] + [
    {"turn_s": 1, "bank_s": bank, "step_s": 1, "on_flag": on_flag} for bank in (0, 2) for on_flag in ("loses", "proxy")
]
POLICIES = ("reject", "reject", "reject", "forfeit")  # a forfeit ends a match: one in four
ADMIN = "machine-admin"
pytestmark = pytest.mark.app_config(ADMIN_TOKEN=ADMIN)


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def nonnegative(value: Any, where: str) -> None:
    """Every number under a key in seconds (``*_s``) is 0 or more."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k.endswith("_s") and isinstance(v, int | float):
                assert v >= 0, f"{where}: {k} is negative ({v})"
            nonnegative(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            nonnegative(v, f"{where}[{i}]")


@dataclass
class First:
    """What was first answered for a ply: by whom, a move or a forfeit, the move (as written back, and as
    sent), the position before it, the bytes."""

    by: int
    kind: str
    move: str
    text: str
    before: Any
    answer: bytes = b""


class Model:
    """One match as a client sees it: the engine's state, R-T1/R-X6's clocks, the record expected."""

    def __init__(self, m: Match, game: str, policy: str, now: int) -> None:
        self.m, self.game, self.policy = m, GAMES[game], policy
        c = m.created["clock"]
        self.spec = {k: c[k] for k in ("turn_s", "bank_s", "step_s", "increment_s", "on_flag")}
        self.turn: int = round(c["turn_s"] * 1000)
        self.step: int = round(c["step_s"] * 1000)
        self.state = self.game.load(m.created["state"])
        self.banks: list[int] = [round(c["bank_s"] * 1000)] * 2
        self.mover: int | None = m.created["state"]["to_move"]
        self.start, self.proxy = now, False
        self.refused = 0  # the running turn's refused attempts (issue 34: REFUSED_PER_TURN, then 429)
        self.record: list[dict[str, Any]] = []
        self.firsts: dict[int, First] = {}
        self.keys: dict[str, tuple[int, int, str]] = {}  # Idempotency-Key -> (ply, seat, move), kept after the end
        self.ended: tuple[str, int | None, bytes] | None = None  # a resignation's or abort's kind, seat, answer

    @property
    def dumped(self) -> dict[str, Any]:
        out: dict[str, Any] = self.game.dump(self.state)
        return out

    @property
    def ply(self) -> int:
        return int(self.dumped["ply"])

    @property
    def finished(self) -> bool:
        return self.mover is None

    @property
    def may_move(self) -> int | None:
        if self.mover is None:
            return None
        return 1 - self.mover if self.proxy else self.mover

    @property
    def deadline(self) -> int | None:
        if self.mover is None:
            return None
        return self.start + self.turn + (0 if self.proxy else self.banks[self.mover])

    def entry(self, kind: str, seat: int, by: int | None, move: str | None, at: int, events: list[Any], **more: Any) -> None:
        used, charged, left = more.pop("used", 0), more.pop("charged", 0), more.pop("left", self.banks[seat])
        self.record.append(
            {"kind": kind, "ply": self.ply, "ply_after": more.pop("ply_after", self.ply), "seat": seat, "by": by,
             "move": move, "proxy": more.pop("proxy", False),
             "turn_started": iso(self.start), "at": iso(at), "used_s": used / 1000, "bank_charged_s": charged / 1000,
             "bank_left_s": left / 1000, "events": events, **more}
        )  # fmt: skip

    def end(self, state: Any, at: int) -> None:
        self.state, self.mover, self.start, self.proxy = state, None, at, False

    def settle(self, now: int) -> None:
        """Every flag due by ``now``, dated at its deadline (R-T1), and R-X6's window."""
        while self.mover is not None and now > (at := self.deadline or 0):
            seat = self.mover
            if not self.proxy:
                bank, self.banks[seat] = self.banks[seat], 0
                if self.spec["on_flag"] == "proxy":  # R-X6: the opponent may move for the flagged seat
                    until = iso(at + self.turn)
                    flag = [{"type": "flag", "player": seat, "proxy": True, "until": until}]
                    self.entry("flag", seat, None, None, at, flag, used=at - self.start, charged=bank, proxy=True)
                    self.start, self.proxy, self.refused = at, True, 0
                else:  # R-T1: the flagged seat loses
                    after, events = self.game.timeout(self.state)
                    self.entry("flag", seat, None, None, at, events, used=at - self.start, charged=bank)
                    self.end(after, at)
            else:  # the window lapsed unused: the game's timeout (Crystal: the turn passes, a draft's default made)
                after, events = self.game.timeout(self.state)
                default = next((e["default"] for e in events if e.get("type") == "flag" and "default" in e), None)
                self.entry("pass", seat, None, default, at, events, used=at - self.start, proxy=True,
                           ply_after=self.game.dump(after)["ply"])  # fmt: skip
                self.state, self.mover, self.start, self.proxy = after, self.game.dump(after)["to_move"], at, False
                self.refused = 0
                if self.mover is None:
                    self.end(after, at)

    def clock(self, now: int) -> dict[str, Any]:
        seats: dict[str, Any] = {}
        for seat in (0, 1):
            one: dict[str, Any] = {"bank_s": self.banks[seat] / 1000}
            if self.mover is None:
                one["remaining_s"] = 0.0
            elif seat == self.mover:
                one["remaining_s"] = 0.0 if self.proxy else ((self.deadline or 0) - now) / 1000
                one["deadline"] = iso(self.deadline or 0)
            else:
                one["remaining_s"] = (self.turn + self.banks[seat]) / 1000
            seats[str(seat)] = one
        deadline = None if self.deadline is None else iso(self.deadline)
        return {**self.spec, "seats": seats, "to_move": self.mover, "may_move": self.may_move,
                "turn_started": None if self.mover is None else iso(self.start), "deadline": deadline,
                "proxy": self.proxy, "start": "created", "started": True, "paused": False, "now": iso(now)}  # fmt: skip

    def view(self, now: int) -> dict[str, Any]:
        """The match as GET answers it."""
        return {"match_id": self.m.id, "game": self.game.name, "players": [None, None], "state": self.dumped,
                "clock": self.clock(now), "ply": self.ply, "tags": [], "illegal": self.policy}  # fmt: skip

    def verdict(self, legal: bool, now: int, events: list[Any], **what: Any) -> dict[str, Any]:
        match = {k: v for k, v in self.view(now).items() if k not in ("state", "tags", "illegal")}
        return {"legal": legal, **what, "state": self.dumped, "events": events, **match}

    def submit(self, seat: int, ply: int, text: str, key: str | None, now: int) -> tuple[int, Any, First | None]:
        """What sending ``text`` for ``ply`` as ``seat`` must answer (API.md's order), applied to the model:
        the status, then the first answer's bytes (a retry), an error's (code, details) or the body; and the
        :class:`First` to remember the answer in, when it is a ply's first."""
        if key is not None and key in self.keys and self.keys[key] != (ply, seat, text):
            return 422, ("idempotency_key_reused", {"header": "Idempotency-Key"}), None
        first = self.firsts.get(ply)
        if (ply < self.ply or (self.finished and ply == self.ply)) and first is not None and first.by == seat:
            if first.kind == "move" and self.game.play(first.before, text).move == first.move:
                return 200, first.answer, None
            if first.kind == "forfeit" and text == first.move:
                return 422, first.answer, None
        if self.finished:
            return 410, ("match_finished", {"end": self.dumped["end"], "winner": self.dumped["winner"]}), None
        if ply != self.ply:
            return 409, ("stale_ply", {"ply": self.ply}), None
        if seat != self.may_move:
            return 403, ("not_your_turn", {"may_move": self.may_move, "proxy": self.proxy}), None
        mover, before, verdict = self.mover, self.state, self.game.play(self.state, text)
        assert mover is not None
        if verdict.legal:
            used, bank = now - self.start, self.banks[mover]
            charged = 0 if self.proxy else min(bank, -(-max(0, used - self.turn) // self.step) * self.step)
            self.entry("move", mover, seat, verdict.move, now, verdict.events, used=used, charged=charged,
                       left=bank - charged, proxy=self.proxy, ply_after=self.game.dump(verdict.state)["ply"])  # fmt: skip
            self.banks[mover] -= charged
            self.state, self.start, self.proxy, self.refused = verdict.state, now, False, 0
            self.mover = self.dumped["to_move"]
            if key is not None:
                self.keys[key] = (ply, seat, text)
            if self.mover is None:
                self.end(verdict.state, now)
            answer, written = self.verdict(True, now, verdict.events, move=verdict.move), str(verdict.move)
            return 200, answer, First(seat, "move", written, text, before)
        assert isinstance(verdict.error, MoveError) and verdict.move is None
        err = verdict.error.to_json()
        if self.policy == "reject" or seat != mover:  # kept; nothing else changes (a proxy's never forfeits)
            if self.refused >= REFUSED_PER_TURN:  # past the turn's few: refused, recorded nowhere
                return 429, ("too_many_attempts", {"limit": REFUSED_PER_TURN, "ply": self.ply}), None
            self.refused += 1
            attempt = [{"type": "illegal", "player": seat, "move": text, **err}]  # the attempt of the seat that sent it
            self.entry("illegal", mover, seat, text, now, attempt, error=err, forfeit=False, proxy=self.proxy)
            return 422, self.verdict(False, now, [], error=err), None
        after, events = self.game.forfeit(self.state, mover, verdict.error)
        self.entry("illegal", mover, seat, text, now, events, error=err, forfeit=True)
        if key is not None:
            self.keys[key] = (ply, seat, text)
        self.end(after, now)
        return 422, self.verdict(False, now, events, error=err), First(seat, "forfeit", text, text, before)

    def finish(self, kind: str, seat: int | None, now: int) -> tuple[int, Any]:
        """A resignation (``seat``) or an umpire's abort (None)."""
        if self.finished:
            if self.ended is not None and self.ended[:2] == (kind, seat):
                return 200, self.ended[2]
            return 410, ("match_finished", {"end": self.dumped["end"], "winner": self.dumped["winner"]})
        mover = self.mover
        if seat is not None:
            after, events = self.game.resign(self.state, seat)
            used = now - self.start if mover == seat and not self.proxy else 0
            self.entry("resign", seat, seat, None, now, events, used=used)
        else:
            after, events = self.game.abort(self.state)
            self.entry("abort", mover or 0, None, None, now, events)
        self.end(after, now)
        return 200, {**self.view(now), "events": events}


def check_answer(r: Any, status: int, expected: Any) -> None:
    """``r`` is what the model says: the first answer's bytes again, an error, or the body (less announcements)."""
    assert r.status_code == status, (status, r.get_data(as_text=True))
    nonnegative(r.json, "answer")
    if isinstance(expected, bytes):
        assert r.headers.get("Idempotent-Replayed") == "true", "a retry is not marked as one"
        assert r.get_data() == expected, "a retry's answer differs from the first"
        return
    assert "Idempotent-Replayed" not in r.headers
    if isinstance(expected, tuple):
        assert (r.json["error"]["code"], r.json["error"]["details"]) == expected
        return
    body = dict(r.json)
    if "legal" in expected:
        assert isinstance(body.pop("announcements"), list)
    assert body == expected


class MatchMachine(RuleBasedStateMachine):
    client: FlaskClient
    clock: FakeClock

    def __init__(self) -> None:
        super().__init__()
        self.clock.ms = START_MS  # every example (and its replay while shrinking) starts at the same time
        self.models: list[Model] = []
        self.keys = 0

    def pick(self, i: int) -> Model:
        return self.models[i % len(self.models)]

    def key(self) -> str:
        self.keys += 1
        return f"machine-{self.keys}"

    @precondition(lambda self: len(self.models) < 3)
    @rule(setup=st.integers(0, len(SETUPS) - 1), clock=st.sampled_from(CLOCKS), policy=st.sampled_from(POLICIES))
    def create(self, setup: int, clock: dict[str, Any] | None, policy: str) -> None:
        game, options = SETUPS[setup]
        if clock is not None and game == "crystal":
            clock = {**clock, "on_flag": "proxy"}
        body = {"game": game, "options": options, "clock": clock, "illegal": policy}
        r = self.client.post("/v1/matches", json=body)
        made: dict[str, Any] = r.get_json()
        assert r.status_code == 201, made
        m = Match(self.client, made["match_id"], (made["seats"]["0"], made["seats"]["1"]), made)
        model = Model(m, game, policy, self.clock())
        nonnegative(made, "created")
        assert {k: v for k, v in made.items() if k not in ("seats", "umpire")} == {"match_id": m.id, **model.view(self.clock())}
        self.models.append(model)

    def send(self, model: Model, seat: int, ply: int, text: str, key: str | None) -> Any:
        status, expected, first = model.submit(seat, ply, text, key, self.clock())
        r = model.m.move(seat, text, ply, **({} if key is None else {"Idempotency-Key": key}))
        check_answer(r, status, expected)
        if first is not None:
            first.answer = r.get_data()
            model.firsts[ply] = first
        return r

    def a_move(self, model: Model, seed: int) -> str:
        if model.finished:
            return "A1"
        return str(random_move(model.game, model.state, random.Random(seed)))

    @precondition(lambda self: self.models)
    @rule(i=st.integers(0, 2), seed=st.integers(0, 2**16), wrong=st.booleans(), keyed=st.booleans())
    def move(self, i: int, seed: int, wrong: bool, keyed: bool) -> None:
        model = self.pick(i)
        seat = model.may_move if model.may_move is not None else 0
        self.send(model, 1 - seat if wrong else seat, model.ply, self.a_move(model, seed), self.key() if keyed else None)

    @precondition(lambda self: self.models)
    @rule(i=st.integers(0, 2), seed=st.integers(0, 2**16))
    def move_on(self, i: int, seed: int) -> None:
        """The seat that may move moves, with a key (a second rule, so that matches get somewhere)."""
        self.move(i, seed, False, True)

    @precondition(lambda self: self.models)
    @rule(i=st.integers(0, 2), seed=st.integers(0, 2**16), later=st.booleans())
    def stale(self, i: int, seed: int, later: bool) -> None:
        model = self.pick(i)
        ply = model.ply + 1 if later or model.ply == 0 else model.ply - 1
        self.send(model, model.may_move or 0, ply, self.a_move(model, seed), None)

    @precondition(lambda self: self.models)
    @rule(i=st.integers(0, 2), text=st.sampled_from(ILLEGAL), keyed=st.booleans())
    def illegal(self, i: int, text: str, keyed: bool) -> None:
        model = self.pick(i)
        self.send(model, model.may_move or 0, model.ply, text, self.key() if keyed else None)

    @precondition(lambda self: any(model.firsts for model in self.models))
    @rule(i=st.integers(0, 2), j=st.integers(0, 1000), how=st.sampled_from(["same", "another", "none"]))
    def retry(self, i: int, j: int, how: str) -> None:
        model = next(m for m in self.models[i % len(self.models) :] + self.models if m.firsts)
        ply = sorted(model.firsts)[j % len(model.firsts)]
        first = model.firsts[ply]
        same = next((k for k, v in model.keys.items() if v[:2] == (ply, first.by)), None)
        key = {"same": same, "another": self.key(), "none": None}[how]
        self.send(model, first.by, ply, first.text, key)

    @precondition(lambda self: any(model.keys for model in self.models))
    @rule(i=st.integers(0, 2), seed=st.integers(0, 2**16))
    def reuse_key(self, i: int, seed: int) -> None:
        model = next(m for m in self.models[i % len(self.models) :] + self.models if m.keys)
        key = sorted(model.keys)[seed % len(model.keys)]
        self.send(model, model.may_move or 0, model.ply, self.a_move(model, seed), key)

    def ripe(self, i: int) -> Model:
        """A match that is over, or some plies in: resigning or aborting at once would end most matches young."""
        return next(m for m in self.models[i % len(self.models) :] + self.models if m.finished or m.ply >= 3)

    @precondition(lambda self: any(m.finished or m.ply >= 3 for m in self.models))
    @rule(i=st.integers(0, 2), seat=st.integers(0, 1))
    def resign(self, i: int, seat: int) -> None:
        model = self.ripe(i)
        status, expected = model.finish("resign", seat, self.clock())
        r = model.m.resign(seat)
        check_answer(r, status, expected)
        if model.ended is None and status == 200:
            model.ended = ("resign", seat, r.get_data())

    @precondition(lambda self: any(m.finished or m.ply >= 3 for m in self.models))
    @rule(i=st.integers(0, 2))
    def abort(self, i: int) -> None:
        model = self.ripe(i)
        status, expected = model.finish("abort", None, self.clock())
        r = self.client.post(f"/v1/matches/{model.m.id}/abort", headers={"Authorization": f"Bearer {ADMIN}"})
        check_answer(r, status, expected)
        if model.ended is None and status == 200:
            model.ended = ("abort", None, r.get_data())

    @precondition(lambda self: self.models)
    @rule(i=st.integers(0, 2), seconds=st.sampled_from([0.4, 0.7, 1.3, 2.6]), turn=st.booleans())
    def wait(self, i: int, seconds: float, turn: bool) -> None:
        """Time passes (flags fall due, R-X6 windows lapse), then a wait that is due at once
        (the seat that may move waits for its turn, or a client for a ply already passed)."""
        self.clock.advance(seconds)
        for each in self.models:
            each.settle(self.clock())
        model = self.pick(i)
        query = {"wait_turn": model.may_move or 0} if turn or model.ply == 0 else {"wait_ply": model.ply - 1}
        r = model.m.get(**query, timeout_s=5)
        assert r.status_code == 200 and r.json == model.view(self.clock())

    @invariant()
    def agree(self) -> None:
        now = self.clock()
        for model in self.models:
            r = model.m.get()
            assert r.status_code == 200
            nonnegative(r.json, "match")
            assert r.json == model.view(now)
            rec = model.m.record()
            nonnegative(rec, "record")
            moves = rec["moves"]
            for n, (got, want) in enumerate(zip(moves, model.record, strict=False)):
                assert got == want, f"record entry {n}"
            assert len(moves) == len(model.record), "the record has entries missing or extra"
            one_answer_per_ply(moves, model.ply, model.finished)
            state = model.dumped
            result = "*" if state["end"] is None else Outcome(state["winner"], state["end"]).result
            assert (rec["status"], rec["winner"], rec["end"], rec["result"]) == (
                state["status"], state["winner"], state["end"], result,
            )  # fmt: skip
            r = self.client.post(f"/v1/games/{model.game.name}/replay", json=rec["replay"])
            replay: dict[str, Any] = r.get_json()
            assert r.status_code == 200 and replay["valid"] is True
            assert replay["state"] == state


def one_answer_per_ply(moves: list[dict[str, Any]], ply: int, finished: bool) -> None:
    """In ply order, one move or pass made each ply before ``ply``, and at most one entry that ended the game, last.
    (A pass that ended the game - a lapsed R-X6 window where the flag loses - made no ply: it sits at ``ply``.)"""
    assert [e["ply"] for e in moves] == sorted(e["ply"] for e in moves)
    turns = [e for e in moves if e["kind"] in ("move", "pass") and e["ply"] < ply]
    assert [e["ply"] for e in turns] == list(range(ply))
    enders = [
        e for e in moves
        if e["kind"] in ("resign", "abort") or (e["kind"] == "flag" and not e["proxy"]) or e.get("forfeit")
        or (e["kind"] == "pass" and e["ply"] == ply)
    ]  # fmt: skip
    assert len(enders) <= (1 if finished else 0) and (not enders or enders[0] is moves[-1])


def run(client: FlaskClient, clock: FakeClock, examples: int, steps: int, phases: tuple[Phase, ...]) -> None:
    machine = type("Machine", (MatchMachine,), {"client": client, "clock": clock})
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=examples, stateful_step_count=steps, derandomize=True, database=None, deadline=None,
            phases=phases, report_multiple_bugs=False,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        ),
    )  # fmt: skip


@pytest.fixture(autouse=True)
def quiet() -> Iterator[None]:
    """Thousands of requests: keep their access-log lines out of a failure's report."""
    access = logging.getLogger("service.access")
    level = access.level
    access.setLevel(logging.WARNING)
    yield
    access.setLevel(level)


@pytest.mark.slow
def test_the_match_api_against_its_model(client: FlaskClient, fake_clock: FakeClock) -> None:
    run(client, fake_clock, examples=40, steps=30, phases=(Phase.explicit, Phase.generate, Phase.shrink))


def _negative_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    real = referee.settle

    def settle(*args: Any) -> tuple[Live, list[Entry]]:
        live, entries = real(*args)
        # a sign slip: the flag's time used below zero
        return live, [replace(e, used=-(e.used or 0)) if e.kind == "flag" else e for e in entries]

    monkeypatch.setattr(referee, "settle", settle)


def _retry_answers_differently(monkeypatch: pytest.MonkeyPatch) -> None:
    real = changes.json_text

    def json_text(status: int, value: Any, replayed: bool = False) -> Response:
        out = real(status, value, replayed)
        if replayed:
            out.set_data(json.dumps(out.get_json()))  # the same JSON, other bytes
        return out

    monkeypatch.setattr(changes, "json_text", json_text)


def _entry_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Store.record

    def record(self: Store, match_id: str, start: int = 0, end: int = -1) -> list[str]:
        return [e for e in real(self, match_id, start, end) if '"k":"illegal"' not in e]  # attempts not kept

    monkeypatch.setattr(Store, "record", record)


BREAKAGES = [
    (_negative_clock, "is negative|less than the minimum of 0"),  # the spec-checked client may see it first
    (_retry_answers_differently, "a retry's answer differs"),
    (_entry_dropped, "record"),
]


@pytest.mark.parametrize(("breakage", "noticed"), BREAKAGES, ids=["negative-clock", "retry-differs", "entry-dropped"])
def test_a_broken_service_is_caught(
    client: FlaskClient, fake_clock: FakeClock, monkeypatch: pytest.MonkeyPatch, breakage: Any, noticed: str
) -> None:
    breakage(monkeypatch)
    with pytest.raises(AssertionError, match=noticed):
        run(client, fake_clock, examples=30, steps=30, phases=(Phase.explicit, Phase.generate))
