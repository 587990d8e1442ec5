"""A check of our own for schemathesis (tests/test_schemathesis.py loads it with
``SCHEMATHESIS_HOOKS``): a schema-valid request may be refused only for the
reasons the spec gives for refusing schema-valid data.

schemathesis's own ``positive_data_acceptance`` is told to let 410 and 422
through (a finished match; an impossible position, which no JSON Schema can
rule out); this check then holds those refusals to their documented codes:
``bad_state``/``bad_options`` (the engine judged the position), ``bad_record``
(another site's record whose text cannot be read: no JSON Schema says which texts can), an illegal
move in a match (a verdict, not an error), a reused ``Idempotency-Key``, a
picture's ``ply`` past the record's end (``ply_not_reached``); never
``invalid_body``, ``invalid_header``, ``invalid_query``, a 400 or a 415, which
would mean the spec allows what the service refuses.
"""

from __future__ import annotations

import json

import schemathesis
from schemathesis import Case, CheckContext, Response

# game_over: a finished position sent for a suggestion; budget_too_large: a budget_s over the server's
# SUGGEST_MAX_BUDGET_S (a setting, so the spec's maximum is the setting's own bound).
SEMANTIC_422 = {
    "bad_state",
    "bad_options",
    "idempotency_key_reused",
    "ply_not_reached",
    "bad_record",
    "game_over",
    "budget_too_large",
    "bot_unavailable",
}


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
