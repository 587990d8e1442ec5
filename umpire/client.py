"""A small HTTP client of the managed-match API (``/v1/matches/...``), for the
tournament harness.

One keep-alive connection per thread and per server (umpire/wire.py: the
request written by hand, the answer parsed by httptools), JSON read with
orjson.  What the harness needs and nothing else:

* :meth:`MatchClient.create_match` - ``POST /v1/matches``;
* :meth:`MatchClient.move` - ``POST /v1/matches/{id}/moves`` with the ply and an
  ``Idempotency-Key``; retried safely (same ply, same key) on a dropped
  connection or a 503, and classified into one :class:`MoveOutcome`;
* :meth:`MatchClient.abort` (the admin token: an interrupted tournament's games);
* :meth:`MatchClient.resign`, :meth:`MatchClient.get` (optionally waiting for
  the ply to pass), :meth:`MatchClient.record`, :meth:`MatchClient.replay`.

What the harness relies on from the service: the ``forfeit`` illegal-move
policy (an illegal move ends the game, the mover losing, and the record
keeps the service's code, sentence and step), the players' names and the
tags given at creation, the legal moves of the seat to move inside every move
answer (``?legal_moves=true``), the clock's ``increment_s``, and the record as
data that ``replay`` takes (``replay.moves``).
"""

from __future__ import annotations

import threading
import time
import urllib.parse
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from umpire.wire import Connection

Json = dict[str, Any]

RETRIES = 6  # attempts after the first, for a dropped connection or a 503
RETRY_SLEEP_S = (
    0.0,
    0.1,
    0.25,
    0.5,
    1.0,
    2.0,
)  # the first retry is at once: most often a keep-alive connection the server closed
CONNECT_TIMEOUT_S = 10.0
WAIT_MAX_S = 30.0  # the server's longest waiting read


class ServiceError(Exception):
    """An answer the harness did not expect: status, the service's error code and message."""

    def __init__(self, status: int, code: str, message: str, body: Any = None) -> None:
        super().__init__(f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body


@dataclass(frozen=True)
class Match:
    """A created match: its id, each seat's token, the first answer's state and clock, and
    its own umpire token (the harness aborts its matches with it: no admin token needed)."""

    match_id: str
    tokens: tuple[str, str]
    state: Json
    clock: Json | None
    umpire: str | None = None


@dataclass(frozen=True)
class MoveOutcome:
    """What became of one submitted move.

    ``kind``:
      * ``"accepted"`` - ``state``, ``clock``, ``events`` are the new ones;
      * ``"illegal"`` - the service refused the move (``error``: code, message,
        step, rule); the seat has lost (resigned by the client, or forfeited by the
        server) and ``state`` is the final one;
      * ``"finished"`` - the match had ended before the move (a flag);
      * ``"stale"`` - the ply moved on meanwhile (a Crystal proxy window lapsed);
      * ``"not_your_turn"`` - this seat may not move now (R-X6: it has flagged
        and only the opponent may move for it).
    """

    kind: str
    state: Json | None = None
    clock: Json | None = None
    events: list[Json] = field(default_factory=list)
    error: Json | None = None
    answer: Json | None = None  # the whole answer, for fields a newer server adds (legal moves)


def parse_time_ms(text: str) -> int:
    """RFC 3339 server time (``2025-01-01T12:00:00.250Z``) as integer milliseconds since the epoch."""
    return round(datetime.fromisoformat(text).timestamp() * 1000)


def remaining_ms(clock: Mapping[str, Any] | None) -> int | None:
    """Time left for the seat to move, from a clock object: ``deadline`` minus ``now``
    (both server times, so the client's clock does not matter); None without a deadline."""
    if not clock or not clock.get("deadline") or not clock.get("now"):
        return None
    return max(0, parse_time_ms(clock["deadline"]) - parse_time_ms(clock["now"]))


LEGAL_LIMIT = 1000  # complete legal moves asked for a bot (docs/BOTS.md): Crystal's turns run to millions


@dataclass(frozen=True)
class Legal:
    """The complete legal moves of the seat to move (``legal_moves`` with ``complete=true``)."""

    moves: list[str]
    truncated: bool
    info: Json


def answer_legal(answer: Mapping[str, Any] | None) -> Legal | None:
    """The complete legal moves a move answer carries for the seat to move next
    (``legal_moves``: the list, whether it was cut, and what the game says
    beside it), or None when it carries none, or not complete ones."""
    legal = (answer or {}).get("legal_moves")
    if not isinstance(legal, dict) or not isinstance(legal.get("moves"), list) or legal.get("complete") is not True:
        return None
    info = {k: v for k, v in legal.items() if k not in ("moves", "count", "truncated", "complete")}
    return Legal(list(legal["moves"]), bool(legal.get("truncated")), info)


def replay_moves(record: Mapping[str, Any]) -> list[str]:
    """A match record as the list ``POST /v1/games/{game}/replay`` takes
    (moves, and ``timeout``/``resign N``/``forfeit N``/``abort``): the service
    says it itself, in ``replay.moves``."""
    moves: list[str] = record["replay"]["moves"]
    return moves


class MatchClient:
    """The managed-match API of one server (``base`` like ``http://127.0.0.1:8000``).

    Thread-safe: every thread gets its own keep-alive connection.  ``calls``
    counts the HTTP requests sent (retries included), for benchmarks and tests."""

    def __init__(self, base: str, token: str | None = None, timeout_s: float = 60.0, admin_token: str | None = None) -> None:
        url = urllib.parse.urlsplit(base)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"a server URL is http://host:port or https://host:port, not {base!r}")
        self.base = base.rstrip("/")
        self._https = url.scheme == "https"
        self._host = url.hostname
        self._port = url.port
        self._prefix = url.path.rstrip("/")
        self.token = token  # the umpire token (UMPIRE_TOKEN), when the server wants one to create matches
        self.admin_token = admin_token  # the server's ADMIN_TOKEN: aborting the games of an interrupted tournament
        self.timeout_s = timeout_s
        self._local = threading.local()
        self._lock = threading.Lock()
        self.calls = 0

    # -- transport ----------------------------------------------------------------

    def _connection(self) -> Connection:
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = Connection(self._host, self._port, self._https, CONNECT_TIMEOUT_S)
            self._local.conn = conn
        return conn

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def close(self) -> None:
        """Close this thread's connection."""
        self._drop()

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
        retry: bool = True,
    ) -> tuple[int, Any]:
        """Send one request; returns (status, JSON body).  A dropped connection or
        a 503 is retried (``retry``) with the very same request."""
        data = None if body is None else orjson.dumps(body)
        head = {"Accept": "application/json"}
        if data is not None:
            head["Content-Type"] = "application/json"
        head.update(headers or {})
        last: Exception | None = None
        for attempt in range(RETRIES + 1 if retry else 1):
            if attempt:
                time.sleep(RETRY_SLEEP_S[min(attempt - 1, len(RETRY_SLEEP_S) - 1)])
            conn = self._connection()
            with self._lock:
                self.calls += 1
            try:
                status, raw = conn.request(method, self._prefix + path, data, head, timeout_s or self.timeout_s)
            except OSError as e:  # WireError, a timeout, a connection refused or reset: sent again on a new one
                self._drop()
                last = e
                continue
            parsed = orjson.loads(raw) if raw else None
            if status == 503 and retry and attempt < RETRIES:
                last = ServiceError(503, "unavailable", str(parsed))
                continue
            return status, parsed
        assert last is not None
        if isinstance(last, ServiceError):
            raise last
        raise ServiceError(0, "unreachable", f"{method} {path}: {last!r}") from last

    @staticmethod
    def _fail(status: int, body: Any) -> ServiceError:
        err = body.get("error") if isinstance(body, dict) else None
        if isinstance(err, dict):
            return ServiceError(status, str(err.get("code")), str(err.get("message")), body)
        return ServiceError(status, "unexpected", repr(body)[:300], body)

    def _ok(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        status, answer = self.request(method, path, body, **kw)
        if not 200 <= status < 300:
            raise self._fail(status, answer)
        return answer

    # -- the API -------------------------------------------------------------------

    def health(self) -> Json:
        status, body = self.request("GET", "/v1/health", retry=False)
        if status != 200:
            raise self._fail(status, body)
        result: Json = body
        return result

    def create_match(
        self,
        game: str,
        options: Mapping[str, Any],
        clock: str | Mapping[str, Any] | None = None,
        names: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
    ) -> Match:
        """``POST /v1/matches`` with the ``forfeit`` policy: an illegal move
        ends the game.  ``names`` name the seats (cut to the service's 64
        characters), ``tags`` label the match."""
        body: Json = {"game": game, "options": dict(options), "illegal": "forfeit"}
        if clock is not None:
            body["clock"] = clock if isinstance(clock, str) else dict(clock)
        if names is not None:
            body["players"] = [name[:64] for name in names]
        if tags is not None:
            body["tags"] = [tag[:64] for tag in tags][:16]
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        answer = self._ok("POST", "/v1/matches", body, headers=headers)
        seats = answer["seats"]
        return Match(answer["match_id"], (seats["0"], seats["1"]), answer["state"], answer.get("clock"), answer.get("umpire"))

    def move(self, match: Match, seat: int, ply: int, text: str, complete: bool = False, book: bool = False) -> MoveOutcome:
        """Submit ``text`` for ``seat`` at ``ply``, and classify the answer.

        An illegal move loses the game for that seat (the ``forfeit`` policy:
        the service ends it); the outcome is ``illegal`` with the service's
        error (code, message, step) and the final state.  The answer carries
        the legal moves of the seat to move next; with ``complete``, the
        complete ones, for a bot that asked for them (:func:`answer_legal`)."""
        key = f"{match.match_id}:{ply}:{uuid.uuid4().hex[:12]}"  # one key for every resend of this submission
        headers = {"Authorization": f"Bearer {match.tokens[seat]}", "Idempotency-Key": key}
        path = f"/v1/matches/{match.match_id}/moves?legal_moves=true"
        if complete:
            path += f"&complete=true&legal_limit={LEGAL_LIMIT}"
        body: Json = {"move": text, "ply": ply, **({"book": True} if book else {})}
        status, answer = self.request("POST", path, body, headers)
        if status == 200:
            return MoveOutcome("accepted", answer["state"], answer.get("clock"), answer.get("events") or [], answer=answer)
        if status == 422 and isinstance(answer, dict) and answer.get("legal") is False:
            return self._illegal(match, seat, answer["error"], answer)
        if status == 422 and isinstance(answer, dict) and answer.get("error", {}).get("code") == "invalid_body":
            # a move the schema refuses (empty, too long): as illegal as any other
            err = answer["error"]
            details = err.get("details") or {}
            fields = details.get("fields") if isinstance(details, dict) else None
            message = err.get("message", "")
            if isinstance(fields, dict) and fields.get("move"):
                message = f"{message} move: {' '.join(map(str, fields['move']))}"
            return self._illegal(match, seat, {"code": err.get("code"), "message": message}, answer)
        if status == 410:
            return MoveOutcome("finished", answer=answer)
        if status == 409 and answer.get("error", {}).get("code") == "stale_ply":
            return MoveOutcome("stale", answer=answer)
        if status == 403:
            return MoveOutcome("not_your_turn", answer=answer)
        raise self._fail(status, answer)

    def _illegal(self, match: Match, seat: int, error: Json, answer: Json) -> MoveOutcome:
        err = {"code": error.get("code"), "message": error.get("message"), "step": error.get("step"), "rule": error.get("rule")}
        state = answer.get("state")
        if not (isinstance(state, dict) and state.get("status") == "finished"):  # a body the schema refused: not judged
            resigned = self.resign(match, seat)
            state = resigned["state"] if resigned is not None else self.get(match.match_id)["state"]
        return MoveOutcome("illegal", state, answer.get("clock"), [], err, answer)

    def resign(self, match: Match, seat: int) -> Json | None:
        """``seat`` resigns; None when the match had already finished (410)."""
        headers = {"Authorization": f"Bearer {match.tokens[seat]}"}
        status, answer = self.request("POST", f"/v1/matches/{match.match_id}/resign", None, headers)
        if status == 410:
            return None
        if status != 200:
            raise self._fail(status, answer)
        result: Json = answer
        return result

    def abort(self, match_id: str, umpire: str | None = None) -> Json | None:
        """``POST /v1/matches/{id}/abort`` with the match's own ``umpire`` token (its
        creation's answer), else the server's admin token: the match ends with no winner
        (``aborted``); None when it had already finished (410)."""
        token = umpire or self.admin_token
        if not token:
            raise ServiceError(0, "no_umpire_token", f"aborting match {match_id} needs its umpire token (or the admin token)")
        headers = {"Authorization": f"Bearer {token}"}
        status, answer = self.request("POST", f"/v1/matches/{match_id}/abort", None, headers, timeout_s=10.0)
        if status == 410:
            return None
        if status != 200:
            raise self._fail(status, answer)
        result: Json = answer
        return result

    def get(self, match_id: str, wait_ply: int | None = None, timeout_s: float | None = None) -> Json:
        """``GET /v1/matches/{id}``; with ``wait_ply`` it answers once the ply passes
        it, the match ends or a flag changes it, or ``timeout_s`` (at most 30) is up."""
        path = f"/v1/matches/{match_id}"
        wait = 0.0
        if wait_ply is not None:
            wait = min(WAIT_MAX_S, max(0.0, timeout_s if timeout_s is not None else WAIT_MAX_S))
            path += f"?wait_ply={wait_ply}&timeout_s={wait:g}"
        result: Json = self._ok("GET", path, timeout_s=wait + self.timeout_s)
        return result

    def record(self, match_id: str) -> Json:
        """``GET /v1/matches/{id}/moves``: entries, ``text``, options, result."""
        result: Json = self._ok("GET", f"/v1/matches/{match_id}/moves")
        return result

    def replay(self, game: str, options: Mapping[str, Any], moves: Sequence[str]) -> Json:
        """``POST /v1/games/{game}/replay``: does the record replay, and to what?"""
        result: Json = self._ok("POST", f"/v1/games/{game}/replay", {"options": dict(options), "moves": list(moves)})
        return result
