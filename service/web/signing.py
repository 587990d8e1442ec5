"""Signed states: the stateless endpoints accept back only states they gave out.

With ``STATE_SECRET`` set, every state ``/v1/games/...`` returns carries
``sig``: HMAC-SHA256, in lower-case hex, of the state's canonical JSON
(every field but ``sig``, keys sorted, no spaces, UTF-8: docs/DESIGN.md
"Canonical JSON").  A state sent back must carry a ``sig`` made with
``STATE_SECRET``, or with ``STATE_SECRET_PREVIOUS`` during a rotation; else
``422 bad_signature`` naming ``state.sig``.  The signature is checked before
the state is read, and the state is still checked field by field after it:
a signature proves where a state came from, not that the engine would have
produced it (the secret may have signed an older, laxer server's states).

Nor does it prove that the position was reached by play: ``new`` with a
set-up option (``options.position``, ``blocked``, ``to_move``, Crystal's
``grid``...: every option a game declares ``setup``) signs whatever position
it sets up, and ``replay`` from such options too.  So a signed state also
carries ``origin``, covered by the signature: ``start`` when it is the
game's own starting position or was reached from one by legal moves on this
server, ``setup`` when a set-up position is among its forebears (or it was
signed before ``origin`` existed, so nobody can tell).  ``play`` passes the
origin on.

``render`` and ``post`` judge nothing, so they draw any state, a managed
match's unsigned ones included; a ``sig`` sent to them is checked all the
same, and a wrong one refused.

Unset, nothing is signed, and a well-formed ``sig`` a client sends is
ignored (states signed before the secret was removed still read).  A managed match's states
are held by the server and never read back from a client, so its answers are
not signed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from typing import Any

from flask import Flask, current_app

from service.web.errors import ApiError, field_details

FIELD = "sig"
SIG = re.compile("[0-9a-f]{64}")
ORIGIN = "origin"  # signed with the state: how its position arose
START, SETUP = "start", "setup"
ORIGINS = (START, SETUP)


def canonical(state: Mapping[str, Any]) -> bytes:
    """The signed bytes: the state without ``sig``, keys sorted, no spaces, UTF-8."""
    body = {k: v for k, v in state.items() if k != FIELD}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def signature(state: Mapping[str, Any], secret: str) -> str:
    return hmac.new(secret.encode(), canonical(state), hashlib.sha256).hexdigest()


def secrets_in_use(app: Flask | None = None) -> tuple[str, ...]:
    """The secret that signs, then the previous one (accepted, never used to sign)."""
    cfg = (app if app is not None else current_app).config
    return tuple(s for s in (cfg.get("STATE_SECRET"), cfg.get("STATE_SECRET_PREVIOUS")) if s) if cfg.get("STATE_SECRET") else ()


def signed(state: dict[str, Any], origin: str) -> dict[str, Any]:
    """``state`` with its ``origin`` and ``sig`` when signing is on (unchanged otherwise)."""
    keys = secrets_in_use()
    if not keys:
        return state
    out = {**state, ORIGIN: origin}
    out[FIELD] = signature(out, keys[0])
    return out


def origin_of(options: Mapping[str, Any], declared: Any) -> str:
    """``setup`` when ``options`` (a request's) give an option the game declares a set-up one, else ``start``."""
    setup = {opt.name for opt in declared if opt.setup}
    return SETUP if any(name in setup for name in options) else START


def verified(state: Any, field: str = "state", required: bool = True) -> Any:
    """A client's ``state`` without its ``sig`` and ``origin``, after checking the
    signature (when signing is on; ``required=False``: only when one is sent)."""
    return read(state, field, required)[0]


def read(state: Any, field: str = "state", required: bool = True) -> tuple[Any, str]:
    """:func:`verified`, and the state's origin (``setup`` when it is not signed, or signed without one)."""
    if not isinstance(state, Mapping):
        return state, SETUP  # not a state at all: the engine names what is wrong
    keys = secrets_in_use()
    if not keys and FIELD not in state and ORIGIN not in state:
        return state, SETUP  # nothing to check and nothing to take out: no copy (issue 20, cost per request)
    sig = state.get(FIELD)
    origin = state.get(ORIGIN, SETUP)
    if FIELD in state and not (isinstance(sig, str) and SIG.fullmatch(sig)):
        message = "sig is a signature the server gave: 64 lower-case hex digits."
        raise ApiError("bad_signature", message, field_details({f"{field}.{FIELD}": [message]}))
    if origin not in ORIGINS:
        message = f"origin is the server's word on how the position arose: {' or '.join(ORIGINS)}."
        raise ApiError("bad_signature", message, field_details({f"{field}.{ORIGIN}": [message]}))
    rest = {k: v for k, v in state.items() if k not in (FIELD, ORIGIN)}
    if not keys or (sig is None and not required):
        return rest, SETUP
    if not isinstance(sig, str):
        message = "This server signs its states: send the state back with its sig, exactly as it was given."
        raise ApiError("bad_signature", message, field_details({f"{field}.{FIELD}": [message]}))
    unsigned = {k: v for k, v in state.items() if k != FIELD}
    if not any(hmac.compare_digest(sig, signature(unsigned, key)) for key in keys):
        message = "The state's sig does not match it: send the state back exactly as the server gave it."
        raise ApiError("bad_signature", message, field_details({f"{field}.{FIELD}": [message]}))
    return rest, origin


def init_app(app: Flask) -> None:
    if app.config.get("STATE_SECRET_PREVIOUS") and not app.config.get("STATE_SECRET"):
        raise ValueError("STATE_SECRET_PREVIOUS is set without STATE_SECRET: set the new secret too, or neither")
