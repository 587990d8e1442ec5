"""The ONE adapter between the Discord channel and the match machinery: every call the channel
makes into service.matches is here, and nowhere else in service/discord/.

A change calls the very operation the HTTP view calls - ``moves.decide_move``,
``decide_resign``, ``controls.decide_start``... (plain functions of the match as read and
explicit arguments) - through the same loop (service/matches/changes.py ``described``:
decide -> commit -> describe), and gets the committed change's
:class:`~service.matches.description.Description`, which service/discord/messages.py writes as
a Discord message.  So a check, a rule, a replay or the loop is never said twice: where the view
reads the seat from a token and the body from the request, this reads them from the channel's
binding and the command's options, and that is all it does.  A new control is one line here.

A position (``/board``, a new match) is the match's :class:`~service.matches.history.History`,
as ``GET .../post`` tells it.

A refusal is raised as the operations raise it: an :class:`~service.web.errors.ApiError` with the
operation's code and sentence (``not_your_turn``, ``paused``, ``match_finished``...), a store
failure as the store raises it (``Gone``, ``Unconfirmed``, ``redis.RedisError``).
"""

from __future__ import annotations

import secrets
from typing import Any

from engine.errors import MoveError
from engine.game import Json
from engine.registry import GAMES
from service.matches import controls, moves, routes
from service.matches.changes import Committed, Decide, described, read
from service.matches.db import get_positions, get_store
from service.matches.description import Description
from service.matches.history import History, history
from service.matches.match import token_hash
from service.matches.store import Gone
from service.web import schemas

VIA = "discord"  # a change a command made, answered in its channel (record.py Entry.via)


def _change(match_id: str, key: str | None, what: str, decide: Decide) -> Description | None:
    """``decide`` on the match through the loop: the description of the change it made (or of the
    first, for a repeat); None for a repeat that tells nothing anew (a gift of time given before).
    The change is marked as the channel's own (:data:`VIA`): its answer tells it there, so the
    channel's webhook does not post it again."""
    done = described(get_store(), match_id, key, decide, what, VIA)
    return done.d if isinstance(done, Committed) else None


def _made(match_id: str, key: str | None, what: str, decide: Decide) -> Description:
    """:func:`_change` of an operation that always tells a change (all but a gift of time)."""
    d = _change(match_id, key, what, decide)
    assert d is not None, what  # only decide_add_time tells a repeat as the match is (AsIs)
    return d


# -- a new match, and reading one -----------------------------------------------------------------


def create(
    game_name: str, options: Json, clock: Any, start: str, names: tuple[str, str], illegal: str, webhook: str | None
) -> str:
    """A new managed match, made as ``POST /v1/matches`` makes one (the same schema reads it, the same
    operation makes it): its id.  Its seats' and umpire's tokens are told to nobody: the channel's
    users play it through the binding, and its umpire is the host.  ``webhook``, the channel's own,
    posts what no command answered there: the changes made :data:`VIA` the channel are skipped."""
    timed = clock if isinstance(clock, dict) else {} if clock is None else {"preset": clock}
    body = schemas.match_create_request.load(
        {"game": game_name, "options": options, "clock": {**timed, "start": start}, "players": list(names),
         "illegal": illegal, "tags": ["discord"], "webhooks": [{"url": webhook, "format": "discord"}] if webhook else []}
    )  # fmt: skip
    body["webhooks"] = [{**hook, "skip_via": VIA} for hook in body["webhooks"]]  # not the API's to ask: set once read
    return routes.create(body).match_id


def look(match_id: str) -> History:
    """The match now, with the change that led to it (``GET .../post``'s position)."""
    return history(get_store(), match_id, None)


def ongoing(match_id: str) -> bool:
    """Whether the match is there (not expired) and not over."""
    try:
        return not read(get_store(), match_id).live.finished
    except Gone:
        return False


def may_move(match_id: str) -> int | None:
    """The seat that may move now (None once the match is over)."""
    return read(get_store(), match_id).live.may_move


def next_moves(match_id: str, typed: str, most: int) -> list[str]:
    """Up to ``most`` whole or partial moves that begin with what was ``typed``: the legal steps
    after its whole steps (``POST .../legal-moves`` with a ``prefix``), its last step completed."""
    cur = read(get_store(), match_id)
    if cur.live.finished:
        return []
    game = GAMES[cur.meta.game]
    position = get_positions().get(match_id, cur.rev) or game.load(cur.live.state)
    words = game.split_move(typed) if typed.strip() else []
    partial = ""
    try:
        found = game.next_steps(position, words)
    except MoveError:
        if not words:
            return []
        words, partial = words[:-1], words[-1]
        try:
            found = game.next_steps(position, words)
        except MoveError:
            return []
    out = [game.join_steps(found.prefix)] if found.complete and found.prefix and not partial else []
    for step in found.steps:
        if step.lower().startswith(partial.lower()):
            out.append(game.join_steps([*found.prefix, step]))
        if len(out) >= most:
            break
    return out


# -- the changes: each the operation the HTTP view calls, with what the channel gives it ------------


def move(match_id: str, seat: int, text: str, key: str) -> Description:
    """``seat`` plays ``text`` for the match's ply as it is (a command names none), under the
    idempotency key ``key`` (the interaction's id): ``POST .../moves``."""
    pointer = f"k:{key}"
    return _made(match_id, pointer, "this move", lambda cur: moves.decide_move(cur, seat, text, None, pointer))


def resign(match_id: str, seat: int) -> Description:
    """``seat`` resigns: ``POST .../resign``."""
    return _made(match_id, None, "the resignation", lambda cur: moves.decide_resign(cur, seat))


def start(match_id: str) -> Description:
    return _made(match_id, None, "the start", controls.decide_start)


def pause(match_id: str, reason: str) -> Description:
    """``POST .../pause`` with ``reason``: kept in the record, announced in the post as the API's is."""
    said = schemas.pause_request.load({"reason": reason})["reason"]
    return _made(match_id, None, "the pause", lambda cur: controls.decide_pause(cur, said))


def resume(match_id: str) -> Description:
    return _made(match_id, None, "the resumption", controls.decide_resume)


def add_time(match_id: str, seat: int, seconds: float, key: str) -> Description | None:
    """``POST .../add-time`` (``key`` its Idempotency-Key); None: given already under that key."""
    gift = schemas.add_time_request.load({"seat": seat, "seconds": seconds})
    pointer = f"a:{key}"
    return _change(match_id, pointer, "the time given", lambda cur: controls.decide_add_time(cur, seat, gift["seconds"], pointer))


def hand_seat(match_id: str, seat: int, name: str) -> Description:
    """The seat handed to another player, named ``name``: ``POST .../seats/{seat}/token`` (a new
    token, which nobody holds) with the seat's name changed too, so that the posts name who plays it."""
    schemas.match_create_request.load({"game": "x", "players": [name, name]})  # a name as the API takes it
    digest = token_hash(secrets.token_urlsafe(routes.TOKEN_BYTES))
    return _made(match_id, None, "the seat handed over", lambda cur: controls.decide_reissue(cur, seat, digest, name))


def abort(match_id: str) -> Description:
    return _made(match_id, None, "the abort", controls.decide_abort)


def adjudicate(match_id: str, winner: int | None, reason: str) -> Description:
    body = schemas.adjudicate_request.load({"winner": winner, "reason": reason})
    return _made(match_id, None, "the adjudication", lambda cur: controls.decide_adjudicate(cur, body["winner"], body["reason"]))


def take_back(match_id: str, key: str) -> Description:
    """The host takes back the last move: ``POST .../takeback`` (``key`` its Idempotency-Key, the
    interaction's id: a retried interaction answers the first take-back and never undoes a second move)."""
    pointer = f"{controls.TAKEBACK_KEY}{key}"
    return _made(match_id, pointer, "the take-back", lambda cur: controls.decide_takeback(cur, None, pointer))
