"""Bytes Redis holds per managed match: ``python -m bench storage``.

Plays complete managed matches through the served app (``python -m
service.run.serve``: gunicorn and a sweeper) - a long side-10 Catchup match of
one-stone turns (271 plies, like the 265-ply match of issue 14) and one
random match of each other game - each move sent with an ``Idempotency-Key``
(as ``umpire tournament`` sends them).  For every key of each match it prints
Redis's ``MEMORY USAGE`` (``SAMPLES 0``: every field counted) halfway
through and once finished, and the bytes per ply and per finished match.

The same moves are played, in the same run and on the same Redis (another
key prefix), by the old design (commit ``ebaaecd``, checked out in a
temporary git worktree), which stored every answer for retries; when that
checkout cannot be made, the issue's figure is the baseline.

Index entries (the shard's ``deadlines``, ``ongoing`` and ``finished`` sorted
sets; the old design's one ``deadlines`` set) are shared keys: a match's part
of them is one member each, measured as the marginal bytes of a member in a
sorted set of 100 (listpack) and of 1,000 (skiplist) match ids.
"""

from __future__ import annotations

import random
import shutil
import statistics
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from bench.common import ROOT, TcpRedis, call, free_port, old_tree, request, serve, stop
from engine.registry import GAMES
from umpire.bots.moves import random_move

MATCHES: list[tuple[str, dict[str, Any]]] = [
    ("catchup", {"size": 10}),
    ("bug", {}),
    ("crystal", {"seed": 14}),
    ("plur", {}),
    ("too", {}),
]
CLOCK = {"turn_s": 3600, "bank_s": 0}  # nobody flags while the bench plays
ISSUE_BASELINE = "issue 14: a 265-ply side-10 Catchup match held 1.21 MB of answers against 82 KB of record"


def moves_of(game_name: str, options: dict[str, Any], seed: int = 14) -> list[str]:
    """A complete random game, the same for both designs.  Catchup: one stone a turn (the longest game)."""
    game, rng = GAMES[game_name], random.Random(seed)
    position, out = game.new(options), []
    while not game.is_over(position):
        if game_name == "catchup":
            move = rng.choice(game.legal_moves(position).moves)
        else:
            move = random_move(GAMES[game_name], position, rng)
        verdict = game.play(position, move)
        assert verdict.legal, (game_name, move, verdict.error)
        position, _ = verdict.state, out.append(move)
    return out


@dataclass
class Measure:
    game: str
    plies: int
    halfway: dict[str, int] = field(default_factory=dict)  # key kind -> bytes
    finished: dict[str, int] = field(default_factory=dict)
    ttl_s: dict[str, int] = field(default_factory=dict)


def _kind(key: str, match_id: str) -> str:
    tail = key.split(match_id, 1)[1].lstrip("}")  # the old design wrote {id} as the hash tag
    return {"": "match", ":rec": "record", ":idem": "idem keys", ":ans": "answers"}.get(tail, tail)


def match_keys(r: redis.Redis, prefix: str, match_id: str) -> dict[str, int]:
    """MEMORY USAGE of every key of the match (by kind), found by scanning the prefix."""
    out: dict[str, int] = {}
    for key in r.scan_iter(match=f"{prefix}*{match_id}*", count=1000):
        name = key.decode()
        out[_kind(name, match_id)] = int(r.memory_usage(name, samples=0) or 0)
    return out


def ttls(r: redis.Redis, prefix: str, match_id: str) -> dict[str, int]:
    return {_kind(k.decode(), match_id): int(r.ttl(k)) for k in r.scan_iter(match=f"{prefix}*{match_id}*", count=1000)}


def play(base: str, r: redis.Redis, prefix: str, game: str, options: dict[str, Any], moves: list[str]) -> Measure | None:
    """The match played through, measured; None when the server does not have the game (the old design: Plur, Too)."""
    status, created = request(base, "POST", "/v1/matches", {"game": game, "options": options, "clock": CLOCK})
    if status == 404:
        return None
    assert status == 201, created
    match_id, seats = created["match_id"], created["seats"]
    found = Measure(game, len(moves))
    state = created["state"]
    for ply, move in enumerate(moves):
        if ply == len(moves) // 2:
            found.halfway = match_keys(r, prefix, match_id)
        headers = {"Authorization": f"Bearer {seats[str(state['to_move'])]}", "Idempotency-Key": uuid.uuid4().hex}
        answer = call(base, "POST", f"/v1/matches/{match_id}/moves", {"move": move, "ply": ply}, headers)
        assert answer["legal"], answer
        state = answer["state"]
    assert state["status"] == "finished", state
    found.finished = match_keys(r, prefix, match_id)
    found.ttl_s = ttls(r, prefix, match_id)
    return found


def index_member_bytes(r: redis.Redis, count: int) -> float:
    """Marginal bytes of one more match id in a sorted set of ``count`` of them."""
    key = f"bench-storage-scratch:{uuid.uuid4().hex}"
    ids = [f"{i % 256:02x}{uuid.uuid4().hex[:16]}" for i in range(count + 20)]
    try:
        r.zadd(key, {m: 1_700_000_000_000 + i for i, m in enumerate(ids[:count])})
        before = int(r.memory_usage(key, samples=0) or 0)
        r.zadd(key, {m: 1_700_000_000_000 + i for i, m in enumerate(ids[count:], count)})
        after = int(r.memory_usage(key, samples=0) or 0)
    finally:
        r.delete(key)
    return (after - before) / 20


def run_design(tree: Path, redis_url: str, label: str, plan: list[tuple[str, dict[str, Any], list[str]]]) -> list[Measure | None]:
    prefix = f"st{label}{free_port()}:"
    env = {"REDIS_URL": redis_url, "REDIS_PREFIX": prefix, "WEB_CONCURRENCY": "1", "PYTHONPATH": str(tree)}
    proc, base = serve(env, cwd=tree)
    r = redis.Redis.from_url(redis_url)
    try:
        return [play(base, r, prefix, game, options, moves) for game, options, moves in plan]
    finally:
        stop(proc)
        r.close()


def _kb(n: float) -> str:
    return f"{n / 1000:,.1f}"


def report(label: str, results: list[Measure | None], index_entry: float) -> None:
    print(f"\n{label}: MEMORY USAGE by key, bytes (halfway -> finished); index entries {index_entry:.0f} B each")
    print(f"{'match':<10} {'plies':>5}  {'keys halfway':<46} {'keys finished':<40} {'B/ply':>6} {'finished B':>10}")
    for m in results:
        if m is None:
            continue
        half = ", ".join(f"{k} {v:,}" for k, v in sorted(m.halfway.items()))
        done = ", ".join(f"{k} {v:,}" for k, v in sorted(m.finished.items()))
        total = sum(m.finished.values()) + index_entry  # a finished match is in one index (finished)
        print(f"{m.game:<10} {m.plies:>5}  {half:<46} {done:<40} {total / m.plies:>6.0f} {total:>10,.0f}")
    ttl = {k: round(v / 86400, 1) for k, v in (results[0].ttl_s if results[0] else {}).items()}
    print(f"expiry of a finished match's keys (days): {ttl}")


def main() -> None:
    plan = [(game, options, moves_of(game, options)) for game, options in MATCHES]
    work = Path(tempfile.mkdtemp(prefix="bench-storage-"))
    server = TcpRedis(work / "redis", free_port()).start()
    r = redis.Redis.from_url(server.url)
    try:
        entry_100, entry_1000 = index_member_bytes(r, 100), index_member_bytes(r, 1000)
        print(f"redis-server {r.info('server')['redis_version']}; an index entry: {entry_100:.0f} B (in a set of 100),")
        print(f"{entry_1000:.0f} B (of 1,000); figures below count one entry at {entry_100:.0f} B")
        new = run_design(ROOT, server.url, "new", plan)
        report("now", new, entry_100)
        with old_tree() as tree:
            old = None if tree is None else run_design(tree, server.url, "old", plan)
        if old is None:
            print(f"\nthe old design could not be checked out; the baseline is {ISSUE_BASELINE}")
            return
        report("before (ebaaecd)", old, entry_100)
        print("\nfinished match, now vs before (all its keys and one index entry):")
        ratios = []
        for a, b in zip(new, old, strict=True):
            if a is None or b is None:
                print(f"  {(a or b).game if (a or b) else '?':<8} not served by the old design")
                continue
            now_total, old_total = sum(a.finished.values()) + entry_100, sum(b.finished.values()) + entry_100
            ratios.append(old_total / now_total)
            print(f"  {a.game:<8} {_kb(old_total):>8} kB -> {_kb(now_total):>6} kB  ({old_total / now_total:.1f}x less)")
        print(f"  median {statistics.median(ratios):.1f}x less; aim (issue 14) at least 5x")
    finally:
        r.close()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
