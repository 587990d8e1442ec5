"""A check of our own for schemathesis (tests/test_schemathesis.py loads it with
``SCHEMATHESIS_HOOKS``): a schema-valid request may be refused only for the
reasons the spec gives for refusing schema-valid data.

schemathesis's own ``positive_data_acceptance`` is told to let 410 and 422
through (a finished match; an impossible position, which no JSON Schema can
rule out); this check then holds those refusals to their documented codes:
``bad_state``/``bad_options`` (the engine judged the position), ``bad_record``
(another site's record whose text cannot be read: no JSON Schema says which texts can), an illegal
move in a match (a verdict, not an error), a reused ``Idempotency-Key``, a
picture's ``ply`` past the record's end (``ply_not_reached``), a record format
the match's game does not write (``unknown_format``); never
``invalid_body``, ``invalid_header``, ``invalid_query``, a 400 or a 415, which
would mean the spec allows what the service refuses.

And the seats of the matches it creates.  A seat's token comes only in
``createMatch``'s answer, and a link cannot carry it to a later call (a link
reaches only the answer just before), so without help the fuzzer's every
move and resignation was a ``401``: the code that judges moves was never
reached.  ``after_call`` keeps each created match's tokens; an auth provider
(:class:`SeatAuth`) gives a move or a resignation on such a match the token
of the seat that may move now, and three in four of its schema-valid moves become
a legal move at the match's ply (asked of the server, ``?legal_moves=true``),
the rest staying the fuzzer's own (mostly illegal, or for a stale ply).  Half
of the schema-valid moves and resignations generated for a match nobody
created go to one of ours instead, so that the fuzzing phases play too.  Each move or
resignation so accepted is written to ``ST_PLAYED`` (one line each), which
tests/test_schemathesis.py counts.
"""

from __future__ import annotations

import json
import os
import random
import threading
from dataclasses import dataclass
from typing import Any

import requests
import schemathesis
from schemathesis import Case, CheckContext, Response

# ``unknown_format``: a match's record asked in a format its game does not write (the path names no
# game, so the spec cannot list them).
# ``game_over``: a finished position sent for a suggestion; ``budget_too_large``: a ``budget_s`` over the
# server's SUGGEST_MAX_BUDGET_S (a setting: the spec's maximum is the setting's own bound); ``bot_unavailable``:
# greedy for a game that declares no evaluation.
SEMANTIC_422 = {
    "bad_state",
    "bad_options",
    "idempotency_key_reused",
    "ply_not_reached",
    "bad_record",
    "unknown_format",
    "game_over",
    "budget_too_large",
    "bot_unavailable",
    "webhook_refused",  # a webhook's host the server's WEBHOOK_ALLOW does not name (a setting, as budget_too_large)
}
# ST_SIGNED=1: the server signs states (STATE_SECRET), so a state the fuzzer made up, schema-valid as it may be, is
# refused for its missing or wrong signature (issue 34, item 11).
if os.environ.get("ST_SIGNED") == "1":
    SEMANTIC_422.add("bad_signature")


@schemathesis.check
def refusals_are_documented(ctx: CheckContext, response: Response, case: Case) -> bool | None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    status = response.status_code
    if status in (400, 415):
        raise AssertionError(f"A schema-valid request was refused with {status}: {response.text[:300]}")
    if status != 422:
        return None
    body = json.loads(response.text)
    if "legal" in body:  # a match's verdict on an illegal move
        return None
    code = body["error"]["code"]
    if code not in SEMANTIC_422:
        raise AssertionError(f"A schema-valid request was refused with 422 {code}: {body['error']['message']}")
    return None


SEATS: dict[str, tuple[str, str]] = {}  # match id -> the seats' tokens, from createMatch's answers
LOCK = threading.Lock()
CHOOSE = random.Random(int(os.environ.get("ST_SEED", "1")))
SEATED = ("POST /v1/matches/{match_id}/moves", "POST /v1/matches/{match_id}/resign")


def _label(case: Case) -> str:
    return f"{case.method.upper()} {case.operation.path}"


@dataclass(frozen=True)
class Seat:
    """The token of the seat that may move now in a match of ours, and its legal moves there."""

    token: str
    ply: int
    moves: list[str]
    shifts: int


@schemathesis.auth(refresh_interval=None).apply_to(method="POST", path_regex=r"^/v1/matches/\{match_id\}/(moves|resign)$")
class SeatAuth:
    """A seat's token for a move or a resignation on a match this run created (an auth provider,
    so that schemathesis knows the token for the real one it is: its ignored_auth check then
    sends the same request without it, and with a wrong one, and expects 401)."""

    def get(self, case: Case, context: Any) -> Seat | None:
        match_id = str((case.path_parameters or {}).get("match_id"))
        positive = case.meta is not None and case.meta.generation.mode.is_positive
        with LOCK:
            if match_id not in SEATS and positive and SEATS and CHOOSE.random() < 0.5:
                # A schema-valid request for a match nobody created: half of them go to one of ours
                # instead (a match id is any string of its pattern), so the fuzzing phases play too.
                match_id = CHOOSE.choice(sorted(SEATS))
                case.path_parameters = {**(case.path_parameters or {}), "match_id": match_id}
            tokens = SEATS.get(match_id)
        if tokens is None:
            return None
        url = f"{os.environ['ST_BASE_URL']}/v1/matches/{match_id}"
        now = requests.get(url, params={"legal_moves": "true"}, timeout=10).json()
        seat = (now.get("clock") or {}).get("may_move")
        if seat is None:
            if now.get("state", {}).get("status") == "finished":
                with LOCK:
                    SEATS.pop(match_id, None)
            return None  # finished, or nobody may move now
        legal = now.get("legal_moves") or {}
        return Seat(tokens[seat], now["ply"], list(legal.get("moves") or []), now["state"].get("shifts_due") or 1)

    def set(self, case: Case, data: Seat, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data.token}"}
        positive = case.meta is not None and case.meta.generation.mode.is_positive
        if not (positive and case.operation.path.endswith("/moves") and data.moves):
            return
        with LOCK:
            play = CHOOSE.random() < 0.75
            move = CHOOSE.choice(data.moves)
        if play:  # Crystal's shift phase: the turn's shifts, one step each
            case.body = {"move": ", ".join([move] * data.shifts), "ply": data.ply}


@schemathesis.hook
def after_call(ctx: Any, case: Case, response: Response) -> None:
    label = _label(case)
    if label == "POST /v1/matches" and response.status_code == 201:
        body = json.loads(response.text)
        with LOCK:
            SEATS[body["match_id"]] = (body["seats"]["0"], body["seats"]["1"])
    elif label in SEATED and response.status_code == 200 and "Idempotent-Replayed" not in response.headers:
        played = os.environ.get("ST_PLAYED")
        if played:
            with LOCK, open(played, "a", encoding="utf-8") as out:
                out.write(f"{label.rsplit('/', 1)[1]}\n")
