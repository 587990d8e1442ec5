"""Redis access for managed matches: keys, the atomic commit, deadlines, waiting.

Everything about a match lives in Redis, nothing in a process, so any number
of app processes and sweepers may serve the same matches.  Per match::

    {P}m:{id}        hash  rev (a counter bumped by every change), meta (fixed
                           at creation: game, options, seat token hashes),
                           live (state, clocks)
    {P}m:{id}:rec    list  the record, one JSON entry per move, flag, pass, resign
    {P}m:{id}:ans    hash  answers remembered for retries (same move and ply,
                           or the same Idempotency-Key)
    {P}deadlines     zset  match id -> the ms at which its next flag is due

``{id}`` is a hash tag, so a match's own keys share a cluster slot.  A change
is read (one round trip: the match, any remembered answers, the time), worked
out in Python (engine and clock), then written by ``commit.lua`` only if the
rev is unchanged: all or nothing, and a lost race is seen as a conflict.

Time: the one clock is the Redis server's (``TIME``, read in the same round
trip as the match), so every app host agrees on it.  Tests may inject a clock.

Failures: the client has short timeouts and retries a broken connection once
(a stale pooled socket after Redis restarted); anything else surfaces as a
``redis.RedisError``, which the app answers with 503.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.retry import Retry

NowFn = Callable[[], int]  # milliseconds


def make_client(url: str, timeout_s: float) -> redis.Redis[str]:
    """A client that fails fast: ``timeout_s`` to connect and to answer, one
    retry on a broken connection, none on a timeout (a slow Redis is a 503)."""
    return redis.Redis.from_url(
        url,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        decode_responses=True,
    )


class Lua:
    """A Lua script run by its SHA-1 (``EVALSHA``, the text is not sent each
    time), loaded again when Redis has forgotten it (a restart, ``SCRIPT FLUSH``).

    Called through ``execute_command`` directly: redis-py's own ``Script``
    does the same with more bookkeeping per call, and a move makes two."""

    def __init__(self, client: redis.Redis[str], name: str) -> None:
        self.client = client
        self.text = resources.files("service").joinpath(name).read_text(encoding="utf-8")
        self.sha = hashlib.sha1(self.text.encode()).hexdigest()

    def __call__(self, keys: Sequence[str], args: Sequence[str | int]) -> Any:
        try:
            return self.client.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:
            self.client.execute_command("SCRIPT", "LOAD", self.text)
            return self.client.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One read of a match: its revision, fixed and live parts (JSON text),
    the remembered answers asked for, and the time of the read."""

    rev: str
    meta: str
    live: str
    answers: list[str | None]
    now_ms: int


class Conflict(Exception):
    """The match changed between read and commit: read again."""


class Gone(Exception):
    """The match does not exist (never created, or expired)."""


class Store:
    def __init__(
        self, client: redis.Redis[str], prefix: str = "umpire:", ttl_s: int = 30 * 86400, now: NowFn | None = None
    ) -> None:
        self.r = client
        self.prefix = prefix
        self.ttl_s = ttl_s
        self._now = now
        self.deadlines = prefix + "deadlines"
        self._commit = Lua(client, "commit.lua")
        self._create = Lua(client, "create.lua")
        self._read = Lua(client, "read.lua")

    # -- keys --------------------------------------------------------------------

    def key(self, match_id: str) -> str:
        return f"{self.prefix}m:{{{match_id}}}"

    def channel(self, match_id: str) -> str:
        return f"{self.prefix}m:{match_id}"

    # -- time --------------------------------------------------------------------

    def now_ms(self) -> int:
        if self._now is not None:
            return self._now()
        secs, micros = self.r.time()
        return int(secs) * 1000 + int(micros) // 1000

    # -- reads -------------------------------------------------------------------

    def read(self, match_id: str, answer_fields: Sequence[str] = ()) -> Snapshot:
        """The match, the remembered answers under ``answer_fields`` and the
        server time, in one round trip (``read.lua``).  Raises Gone."""
        key = self.key(match_id)
        out = self._read([key, key + ":ans"], answer_fields)
        rev, meta, live, secs, micros = out[:5]
        if rev is None or meta is None or live is None:
            raise Gone(match_id)
        now = int(secs) * 1000 + int(micros) // 1000 if self._now is None else self._now()
        return Snapshot(rev, meta, live, list(out[5:]), now)

    def rev(self, match_id: str) -> str | None:
        rev: str | None = self.r.hget(self.key(match_id), "rev")
        return rev

    def record(self, match_id: str) -> list[str]:
        entries: list[str] = self.r.lrange(self.key(match_id) + ":rec", 0, -1)
        return entries

    # -- writes ------------------------------------------------------------------

    def create(self, match_id: str, meta: str, live: str, deadline: int | None) -> bool:
        ttl = "" if deadline is not None else str(self.ttl_s)
        args = [meta, live, match_id, "" if deadline is None else str(deadline), ttl]
        return bool(self._create([self.key(match_id), self.deadlines], args))

    def commit(
        self,
        match_id: str,
        rev: str,
        live: str,
        deadline: int | None,
        entries: Sequence[str],
        answers: Sequence[tuple[str, str]] = (),
    ) -> int:
        """Write one change if the match is still at ``rev``; returns the new rev.
        ``deadline`` None means nobody is on the clock: the match has finished,
        so its keys expire after the configured time.  Raises Conflict, Gone."""
        key = self.key(match_id)
        args: list[str | int] = [
            rev,
            live,
            match_id,
            "" if deadline is None else str(deadline),
            str(self.ttl_s) if deadline is None else "",
            self.channel(match_id),
            len(entries),
            *entries,
        ]
        for field, value in answers:
            args += [field, value]
        out = int(self._commit([key, key + ":rec", key + ":ans", self.deadlines], args))
        if out == 0:
            raise Conflict(match_id)
        if out < 0:
            raise Gone(match_id)
        return out

    # -- deadlines (sweepers) ----------------------------------------------------

    def due(self, now_ms: int, limit: int = 100) -> list[str]:
        """Matches whose deadline has passed (a flag is due after the deadline's last ms)."""
        ids: list[str] = self.r.zrangebyscore(self.deadlines, "-inf", f"({now_ms}", start=0, num=limit)
        return ids

    def next_deadline(self) -> int | None:
        first = self.r.zrange(self.deadlines, 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    def forget_deadline(self, match_id: str) -> None:
        """Drop a deadline whose match no longer exists."""
        self.r.zrem(self.deadlines, match_id)

    def set_deadline(self, match_id: str, deadline: int | None) -> None:
        """Set a match's entry in the deadlines set (none: remove it)."""
        if deadline is None:
            self.r.zrem(self.deadlines, match_id)
        else:
            self.r.zadd(self.deadlines, {match_id: deadline})

    # -- waiting -----------------------------------------------------------------

    def wait_change(self, match_id: str, rev: str, timeout_s: float) -> None:
        """Block until the match's rev differs from ``rev`` or ``timeout_s``
        passes, on a pub/sub wake-up from the commit (no polling)."""
        pubsub = self.r.pubsub(ignore_subscribe_messages=True)
        try:
            pubsub.subscribe(self.channel(match_id))
            if self.rev(match_id) != rev:  # changed before we listened
                return
            end = time.monotonic() + timeout_s
            while (left := end - time.monotonic()) > 0:
                if pubsub.get_message(timeout=left) is not None:
                    return
        finally:
            pubsub.close()

    def ping(self) -> bool:
        return bool(self.r.ping())
