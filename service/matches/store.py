"""Redis access for managed matches: reads, the atomic commit, deadlines, indexes.

Everything about a match lives in Redis, nothing in a process, so any number
of app processes and sweepers may serve the same matches, on one Redis or on
a Redis Cluster.  A match id starts with its shard, two hex digits (256
shards); every key of a match, and its shard's deadline and index sets, carry
the shard's hash tag ``{sXX}``, so each Lua script touches one cluster slot::

    {P}{sXX}:m:{id}        hash  rev (bumped by every change), meta (fixed at
                                 creation but for a seat token the umpire
                                 reissues), live (state and clocks)
    {P}{sXX}:m:{id}:rec    list  the record: one compact entry per move, flag,
                                 pass, resignation, illegal attempt, abort, and
                                 umpire's control (service/matches/record.py)
    {P}{sXX}:m:{id}:idem   hash  Idempotency-Key -> its change: "ply seat digest place" (a move and
                                 its place in the record; older ones lack the place), the
                                 take-back's place in the record, the gift's digest (one at
                                 most per committed change; kept as long as the record)
    {P}{sXX}:m:{id}:pics   hash  digest -> a PNG picture of a position that can no longer
                                 change (base64; bounded, expiring: service/matches/pictures.py)
    {P}{sXX}:deadlines     zset  match id -> the ms at which its next flag is due
    {P}{sXX}:ongoing       zset  match id -> created ms   (listing)
    {P}{sXX}:finished      zset  match id -> finished ms  (listing)
    {P}{sXX}:beat          string the shard's last beat, ms: when a serving process last reached it
                                 (RULES R-T3, service/matches/liveness.py; kept, however long the outage)

A finished match's keys expire after ``MATCH_TTL_S`` (an idle one's after
``MATCH_IDLE_TTL_S``), its Idempotency-Key pointers with them (a key's retry
after the end still gets its first answer); its index entry, which cannot
expire on its own, is dropped by the sweepers once the match has expired
(:meth:`Store.prune`).

Lean by design: an answer is never stored.  A retried move is recognised from
the record (same ply, same seat, same move) or from its key's pointer, and its
answer is rebuilt from the record by the engine, byte for byte the first
(service/matches/description.py); events streams and earlier positions come the same way.

A change is read (one round trip: the match, the record's length, a key's
pointer, the time), worked out in Python (engine and clock), then written by
``commit.lua`` only if the rev is unchanged: all or nothing, and a lost race
is seen as a conflict.  The one clock is the Redis server's ``TIME``, read on
the node that holds the match.  Tests may inject a clock.

Failures: the client fails fast (service/matches/redisclient.py) and a
failure surfaces as a ``redis.RedisError``.  A write (``create``,
``commit``, :meth:`Store.confirm`) that fails once it may have been sent is
:class:`Unconfirmed` instead, whatever the error's text: redis-py retries a
broken connection, so the last error seen ("Error connecting") may come from
the retry after the first attempt's commit ran.  The store's failures are
in service/matches/errors.py, the keys' names in service/matches/keys.py, the
scripts' runner in service/matches/lua.py.

Durability (``REDIS_DURABILITY``): with ``replica`` a write is followed, in
the same pipeline and so on the same connection, by ``WAIT 1 timeout``; a
change is confirmed only when a replica has acknowledged it (and so every
earlier write of that master: replication is one ordered stream).  Fewer
acknowledgements in time is :class:`Unconfirmed`: the change is on the master
and may be lost if it dies now.  A master that refuses writes for want of
replicas (``min-replicas-to-write``) is :class:`NoReplicas`: nothing applied.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import redis
from redis.exceptions import AskError, ClusterDownError, MovedError, NoScriptError, SlotNotCoveredError, TryAgainError

from service.matches.errors import Conflict, Gone, NoReplicas, Unconfirmed
from service.matches.keys import SHARDS, Keys, shard_of, valid_id
from service.matches.lua import Lua, Observe
from service.matches.redisclient import AnyRedis, node_name

# The store's failures, shards and script runner, as the store's users (outbox.py, webhooks.py...) read them here.
__all__ = ["SHARDS", "Conflict", "Gone", "Lua", "NoReplicas", "Snapshot", "Store", "Unconfirmed", "shard_of"]

NowFn = Callable[[], int]  # milliseconds

DURABILITY = ("none", "replica")  # REDIS_DURABILITY: what a 2xx change waits for (docs/DURABILITY.md)
NOT_RUN = (MovedError, AskError, ClusterDownError, TryAgainError)  # refusals that come before a command runs


@dataclass(frozen=True, slots=True)
class Credit:
    """An outage credited on one shard (RULES R-T3): the shard, how old its beat was (ms), the turns credited."""

    shard: int
    gap_ms: int
    turns: int


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One read of a match: its revision, fixed and live parts (JSON text),
    the record's length, where the Idempotency-Key asked for points, and the
    time of the read."""

    rev: str
    meta: str
    live: str
    length: int
    pointer: str | None
    now_ms: int
    beat: str | None = None  # the shard's beat as stored (R-T3: :func:`beat_ms`), None when no process ever beat there


class Store(Keys):
    def __init__(
        self,
        client: AnyRedis,
        prefix: str = "umpire:",
        ttl_s: int = 30 * 86400,
        now: NowFn | None = None,
        idle_ttl_s: int = 30 * 86400,
        observe: Observe | None = None,
        durability: str = "none",
        wait_ms: int = 1000,
        outage_ms: int = 3000,
    ) -> None:
        super().__init__(prefix)
        if durability not in DURABILITY:
            raise ValueError(f"REDIS_DURABILITY must be one of {', '.join(DURABILITY)}, not {durability!r}")
        self.durability = durability
        self.wait_ms = wait_ms
        self.outage_ms = outage_ms  # a shard's beat older than this: an outage, credited (R-T3; liveness.py)
        self.cluster = isinstance(client, redis.RedisCluster)
        self.r = client
        self.ttl_s = ttl_s
        self.idle_ttl_s = idle_ttl_s
        self._now = now
        self._commit = Lua(client, "commit.lua", observe)
        self._create = Lua(client, "create.lua", observe)
        self._read = Lua(client, "read.lua", observe)
        self._time = Lua(client, "time.lua", observe)
        self._sync = Lua(client, "sync.lua", observe)
        self._beat = Lua(client, "beat.lua", observe)

    # -- time --------------------------------------------------------------------

    def now_ms(self, match_id: str | None = None) -> int:
        """The server's time, on the node that holds ``match_id`` when given."""
        if self._now is not None:
            return self._now()
        secs, micros = self._time([self.key(match_id or "00" + "0" * 16)], [])
        return int(secs) * 1000 + int(micros) // 1000

    # -- reads -------------------------------------------------------------------

    def read(self, match_id: str, idempotency_key: str | None = None) -> Snapshot:
        """The match, its record's length, the pointer of ``idempotency_key``
        and the server time, in one round trip (``read.lua``).  Raises Gone."""
        if not valid_id(match_id):
            raise Gone(match_id)
        out = self._read([*self.keys(match_id), self.beat_key(shard_of(match_id))], [idempotency_key or ""])
        rev, meta, live, secs, micros, length, pointer, beat = out
        if rev is None or meta is None or live is None:
            raise Gone(match_id)
        now = int(secs) * 1000 + int(micros) // 1000 if self._now is None else self._now()
        return Snapshot(rev, meta, live, int(length), pointer or None, now, beat or None)

    def record(self, match_id: str, start: int = 0, end: int = -1) -> list[str]:
        entries: list[str] = self.r.lrange(self.keys(match_id)[1], start, end)
        return entries

    # -- writes ------------------------------------------------------------------

    def create(self, match_id: str, meta: str, live: str, deadline: int | None, created_ms: int, finished: bool) -> bool:
        shard = shard_of(match_id)
        keys = [self.key(match_id), self.deadlines(shard), self.index(shard, "ongoing"), self.index(shard, "finished")]
        args: list[str | int] = [meta, live, match_id, "" if deadline is None else str(deadline), created_ms]
        return bool(self._write(self._create, keys, [*args, "1" if finished else "", self.ttl_s, self.idle_ttl_s]))

    def commit(
        self,
        match_id: str,
        rev: str,
        live: str,
        deadline: int | None,
        entries: Sequence[str],
        pointers: Sequence[tuple[str, str]] = (),
        finished_ms: int | None = None,
        meta: str | None = None,
        reopened_created_ms: int | None = None,
    ) -> int:
        """Write one change if the match is still at ``rev``; returns the new rev.
        ``deadline`` None means nobody is on the clock (or the clock is paused);
        ``finished_ms`` that this change ends the match (its keys then expire after
        the configured time, and what a finished match no longer needs is
        dropped); ``meta`` the match's new fixed part (a seat's token reissued by
        the umpire: the old one stops working at once); ``reopened_created_ms`` (the
        match's creation) that this change reopened a finished match (a take-back of
        the move that ended it): listed as ongoing again, its webhooks posting again.
        Raises Conflict, Gone."""
        shard = shard_of(match_id)
        keys = [
            *self.keys(match_id), self.deadlines(shard), self.index(shard, "ongoing"), self.index(shard, "finished"),
            self.hooks(match_id), self.hooked(shard),
        ]  # fmt: skip
        ending = "" if finished_ms is None else str(finished_ms)
        args: list[str | int] = [
            rev,
            live,
            match_id,
            "" if deadline is None else str(deadline),
            ending if reopened_created_ms is None else f"reopen:{reopened_created_ms}",
            self.ttl_s,
            self.idle_ttl_s,
            self.channel(match_id),
            meta or "",
            len(entries),
            *entries,
        ]
        for field, value in pointers:
            args += [field, value]
        out = int(self._write(self._commit, keys, args))
        if out == 0:
            raise Conflict(match_id)
        if out < 0:
            raise Gone(match_id)
        return out

    def confirm(self, match_id: str) -> None:
        """Make sure what the match's master holds now is on a replica (REDIS_DURABILITY=replica;
        nothing to do otherwise): a write to the shard's own key and ``WAIT`` after it, on one
        connection.  Replication is one ordered stream per master, so its acknowledgement covers
        every earlier write, a commit whose confirmation was lost included.  An answer rebuilt
        from the record (a retry) is given only after this.  Raises :class:`Unconfirmed`."""
        if self.durability == "none":
            return
        key = f"{self.tag(shard_of(match_id))}:sync"
        self._write(self._sync, [key], [secrets.token_hex(4)])

    def _write(self, script: Lua, keys: Sequence[str], args: Sequence[str | int]) -> Any:
        """Run a script that changes something: with REDIS_DURABILITY=replica followed by WAIT on
        the same connection.  Any failure once it may have been sent is :class:`Unconfirmed`;
        a refusal before it ran (MOVED, CLUSTERDOWN, NOREPLICAS...) is raised as it is."""
        try:
            if self.durability == "none":
                return script(keys, args)
            for attempt in range(3):
                try:
                    return script.waited(self._plain_for(keys[0]), keys, args, 1, self.wait_ms)
                except NOT_RUN:
                    if not self.cluster or attempt == 2:
                        raise
                    self.r.nodes_manager.initialize()  # a slot moved (a failover): read the layout again
        except redis.ResponseError as e:
            if "NOREPLICAS" in str(e):
                raise NoReplicas(str(e)) from e
            raise
        except (redis.TimeoutError, redis.ConnectionError) as e:
            raise Unconfirmed("no_answer", f"{type(e).__name__}: {e}") from e
        raise AssertionError("unreachable")  # pragma: no cover

    def _plain_for(self, key: str) -> redis.Redis:  # type: ignore[type-arg]
        """The plain client of the master holding ``key`` (the one client on one Redis)."""
        if not self.cluster:
            plain: redis.Redis = self.r  # type: ignore[type-arg]
            return plain
        try:
            node = self.r.get_node_from_key(key)
        except SlotNotCoveredError as e:  # no master for the slot now: nothing sent
            raise ClusterDownError(str(e)) from e
        found: redis.Redis = self.r.get_redis_connection(node)  # type: ignore[type-arg]
        return found

    # -- deadlines (sweepers): one sorted set per shard ---------------------------

    def due(self, now_ms: int, limit: int = 100) -> list[str]:
        """Matches whose deadline has passed (a flag is due after the deadline's
        last ms), from every shard: one pipelined round of reads."""
        out: list[str] = []
        for found in self._each_shard(
            lambda pipe, shard: pipe.zrangebyscore(self.deadlines(shard), "-inf", f"({now_ms}", 0, limit)
        ):
            out += found
            if len(out) >= limit:
                break
        return out[:limit]

    def next_deadline(self) -> int | None:
        firsts = self._each_shard(lambda pipe, shard: pipe.zrange(self.deadlines(shard), 0, 0, withscores=True))
        scores = [int(found[0][1]) for found in firsts if found]
        return min(scores) if scores else None

    def deadline(self, match_id: str) -> int | None:
        score = self.r.zscore(self.deadlines_of(match_id), match_id)
        return None if score is None else int(score)

    def forget_deadline(self, match_id: str) -> None:
        """Drop a deadline whose match no longer exists."""
        self.r.zrem(self.deadlines_of(match_id), match_id)

    def set_deadline(self, match_id: str, deadline: int | None) -> None:
        """Set a match's entry in its shard's deadlines (none: remove it)."""
        if deadline is None:
            self.r.zrem(self.deadlines_of(match_id), match_id)
        else:
            self.r.zadd(self.deadlines_of(match_id), {match_id: deadline})

    def _each_shard(self, read: Callable[[Any, int], Any]) -> list[Any]:
        """``read(pipeline, shard)`` for every shard, pipelined (on a cluster
        redis-py splits the pipeline by node: a round trip per node)."""
        pipe = self.r.pipeline(transaction=False)
        for shard in range(SHARDS):
            read(pipe, shard)
        results: list[Any] = pipe.execute()
        return results

    # -- listing (an umpire's admin view) -----------------------------------------

    def listing(self, status: str, limit: int, before_ms: int | None) -> list[tuple[str, int]]:
        """Match ids of ``status`` (``ongoing``, ``finished``) with their index
        time, newest first (ties by id), at or before ``before_ms``: at most
        ``limit`` from each shard, merged."""
        top = "+inf" if before_ms is None else str(before_ms)
        found = self._each_shard(
            lambda pipe, shard: pipe.zrevrangebyscore(self.index(shard, status), top, "-inf", 0, limit, withscores=True)
        )
        merged = sorted(((mid, int(score)) for rows in found for mid, score in rows), key=lambda x: (-x[1], x[0]))
        return merged[:limit]

    def metas(self, match_ids: Iterable[str]) -> list[tuple[str | None, str | None]]:
        """(meta, live) of each match, None for one that has expired."""
        pipe = self.r.pipeline(transaction=False)
        for mid in match_ids:
            pipe.hmget(self.key(mid), "meta", "live")
        return [(row[0], row[1]) for row in pipe.execute()]

    def unlist(self, match_id: str, status: str) -> None:
        """Drop an expired match from an index."""
        self.r.zrem(self.index(shard_of(match_id), status), match_id)

    def prune(self, now_ms: int, limit: int = 100) -> int:
        """Drop from the indexes the matches that have expired: an index entry
        is the one thing of a match that does not expire with its keys.  Only
        entries older than their expiry (finished: ``ttl_s`` after the end;
        ongoing: ``idle_ttl_s`` after creation) are looked at, at most ``limit``
        per shard and index, and only those whose match is gone are dropped.
        Returns how many were dropped."""
        ages = (("finished", self.ttl_s), ("ongoing", self.idle_ttl_s))
        found: list[tuple[str, str]] = []
        for status, age_s in ages:
            top = f"({now_ms - age_s * 1000}"

            def older(pipe: Any, shard: int, status: str = status, top: str = top) -> Any:
                return pipe.zrangebyscore(self.index(shard, status), "-inf", top, 0, limit)

            rows = self._each_shard(older)
            found += [(status, mid) for ids in rows for mid in ids]
        if not found:
            return 0
        pipe = self.r.pipeline(transaction=False)
        for _, mid in found:
            pipe.exists(self.key(mid))
        gone = [row for row, alive in zip(found, pipe.execute(), strict=True) if not alive]
        pipe = self.r.pipeline(transaction=False)
        for status, mid in gone:
            pipe.zrem(self.index(shard_of(mid), status), mid)
        pipe.execute()
        return len(gone)

    def picture(self, match_id: str, digest: str) -> bytes | None:
        """A cached picture of the match (service/matches/pictures.py), None when there is none."""
        raw = self.r.hget(self.pictures_key(match_id), digest)
        return None if raw is None else base64.b64decode(raw)

    def keep_picture(self, match_id: str, digest: str, png: bytes, ttl_s: int, most: int) -> bool:
        """Cache ``png``, unless the match has ``most`` pictures cached already;
        the match's pictures expire ``ttl_s`` after the last one was kept."""
        key = self.pictures_key(match_id)
        if self.r.hlen(key) >= most:
            return False
        self.r.hset(key, digest, base64.b64encode(png).decode())
        self.r.expire(key, ttl_s)
        return True

    # -- per master (sweepers, liveness): deadlines, beats and outage credits (RULES R-T3) ------

    def master_now(self, client: Any) -> int:
        """The time on one master (each sweeps its own shards by its own clock)."""
        if self._now is not None:
            return self._now()
        secs, micros = client.time()
        return int(secs) * 1000 + int(micros) // 1000

    def look(self, client: Any, shards: Sequence[int], now_ms: int, limit: int) -> tuple[list[str], int | None]:
        """The matches of ``shards`` on one master whose flag is due by ``now_ms`` (at most ``limit``) and the
        earliest deadline of them all (None: no clock runs there).  One round trip, each shard's earliest
        deadline; a second only for the shards where that deadline is due (an idle sweeper's rounds cost a
        third fewer commands than asking for the due matches and, apart, for the earliest deadline: issue 20,
        the sweeper's idle CPU)."""
        pipe = client.pipeline(transaction=False)
        for shard in shards:
            pipe.zrange(self.deadlines(shard), 0, 0, withscores=True)
        found = pipe.execute()
        firsts = {shard: int(head[0][1]) for shard, head in zip(shards, found, strict=True) if head}
        due: list[str] = []
        late = [shard for shard, first in firsts.items() if first < now_ms]
        if late:
            pipe = client.pipeline(transaction=False)
            for shard in late:
                pipe.zrangebyscore(self.deadlines(shard), "-inf", f"({now_ms}", 0, limit)
            due = [mid for ids in pipe.execute() for mid in ids][:limit]
        return due, min(firsts.values(), default=None)

    def first_deadline(self, client: Any, shards: Sequence[int]) -> int | None:
        """The earliest deadline of ``shards`` on one master."""
        pipe = client.pipeline(transaction=False)
        for shard in shards:
            pipe.zrange(self.deadlines(shard), 0, 0, withscores=True)
        scores = [int(found[0][1]) for found in pipe.execute() if found]
        return min(scores) if scores else None

    def beat(self, client: Any, shards: Sequence[int], now_ms: int | None = None) -> list[Credit]:
        """Beat ``shards`` of one master (``client``), crediting first the outage of any whose beat is older
        than :attr:`outage_ms` (beat.lua; service/matches/liveness.py).  One round trip: on one Redis one
        script for every shard, on a cluster a pipeline of one a shard (each shard is a slot of its own).
        ``now_ms`` None: the master's own time (or the injected clock).  Returns the credits made."""
        groups = [list(shards)] if not self.cluster else [[shard] for shard in shards]
        calls = [self._beat_call(group, now_ms) for group in groups]
        for attempt in range(2):
            pipe = client.pipeline(transaction=False)
            for keys, args in calls:
                command = ("EVALSHA", self._beat.sha) if attempt == 0 else ("EVAL", self._beat.text)
                pipe.execute_command(*command, len(keys), *keys, *args)
            answers = pipe.execute(raise_on_error=False)
            if attempt == 0 and any(isinstance(a, NoScriptError) for a in answers):
                continue  # the master forgot the script (a restart): send its text
            for answer in answers:
                if isinstance(answer, BaseException):
                    raise answer
            return [c for group, answer in zip(groups, answers, strict=True) for c in self._credits(group, answer)]
        raise AssertionError("unreachable")  # pragma: no cover

    def beat_one(self, shard: int, now_ms: int | None = None) -> list[Credit]:
        """:meth:`beat` for one shard, on whichever node holds it: what a request does when it reads a beat
        older than :attr:`outage_ms`, before it applies any flag (service/matches/cas.py)."""
        keys, args = self._beat_call([shard], now_ms)
        return self._credits([shard], self._beat(keys, args))

    def _beat_call(self, shards: Sequence[int], now_ms: int | None) -> tuple[list[str], list[str | int]]:
        if now_ms is None and self._now is not None:
            now_ms = self._now()
        keys = [key for shard in shards for key in (self.deadlines(shard), self.beat_key(shard))]
        args: list[str | int] = ["" if now_ms is None else now_ms, self.outage_ms, f"{self.prefix}ch:"]
        return keys, args + [self.tag(shard) for shard in shards]

    @staticmethod
    def _credits(shards: Sequence[int], answer: Sequence[Any]) -> list[Credit]:
        flat = [int(x) for x in answer]
        return [Credit(shards[flat[i]], flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)]

    # -- masters (health, sweepers) --------------------------------------------------

    def masters(self) -> dict[str, tuple[Any, list[int]]]:
        """Each master by name (``host:port``), with its plain client and the shards it holds (on
        one Redis: the one server, every shard), as the client last saw the cluster's layout."""
        if not self.cluster:
            return {node_name(self.r): (self.r, list(range(SHARDS)))}
        out: dict[str, tuple[Any, list[int]]] = {}
        slots = self.r.nodes_manager.slots_cache
        for shard in range(SHARDS):
            holders = slots.get(self.r.keyslot(self.tag(shard)))
            if not holders:
                continue  # not covered: the layout will be read again
            node = holders[0]
            if node.name not in out:
                out[node.name] = (self.r.get_redis_connection(node), [])
            out[node.name][1].append(shard)
        return out

    def refresh(self) -> None:
        """Read the cluster's layout again (after a failover); nothing on one Redis."""
        if self.cluster:
            self.r.nodes_manager.initialize()

    # -- health ------------------------------------------------------------------

    def ping(self) -> bool:
        return bool(self.r.ping())

    def check_scripts(self) -> None:
        """What a move needs: the scripts run on the match's node (a read of a
        match that does not exist, through read.lua)."""
        self._read([*self.keys("00" + "0" * 16), self.beat_key(0)], [""])
