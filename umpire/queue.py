"""A tournament's games shared by workers on any number of machines, through
Redis Streams consumer groups (``umpire tournament ... --queue URL`` publishes
and gathers, ``umpire worker --queue URL`` plays), as fishtest and OpenBench
share chess games; Redis does the distributing, this module only names keys.

Keys (one hash tag per tournament, so that a Redis Cluster keeps them on one
node and the finishing script may touch several):

* ``umpire-queue:current`` - the fingerprint of the tournament workers serve;
* ``umpire-queue:{FP}:config`` - its settings, the server to play on (the
  queue tells workers which server to use), tokens, grace, hello limit;
* ``umpire-queue:{FP}:games`` - a stream, one entry per scheduled game
  (``key``), read by the consumer group ``workers``: ``XREADGROUP`` gives a
  game to one worker; the worker renews its claim while it plays (``XCLAIM``
  of its own entry, which resets the idle time); a worker that died (SIGKILL,
  a machine lost) stops renewing, and after ``claim_timeout_s`` another takes
  the game over (``XAUTOCLAIM``), aborting the dead worker's match on the
  server first (``playing`` knows it);
* ``umpire-queue:{FP}:results`` - a stream of finished games' results lines;
  a game is added there at most once: a script adds its key to ``done`` and,
  only if it was new, the line to ``results``, then ``XACK``s the entry, all
  at once (so no game is counted twice, even when a slow worker and the one
  that took its game over both finish it);
* ``umpire-queue:{FP}:stop`` - set when the SPRT decides (every worker
  aborts its game and leaves) or the schedule is complete.

The coordinator reads ``results`` from the start (``XREAD``), so a
coordinator stopped and started again (``--resume``) gathers what the workers
finished meanwhile; the results file stays the one of a local tournament.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import redis
import redis.cluster

from umpire.bots import BotFactory
from umpire.client import MatchClient, ServiceError
from umpire.config import GameSpec, Settings
from umpire.play import Aborted, InPlay, play_game
from umpire.progress import Progress
from umpire.records import RecordsWriter
from umpire.results import ResultsWriter, read_results
from umpire.stats import Sprt
from umpire.tournament import (
    Outcome,
    TournamentError,
    bot_seed,
    check_resume,
    check_settings,
    first_bot_result,
    report_text,
    results_line,
    sprt_state,
    tournament_tags,
    wiring_for,
)

Json = dict[str, Any]
PREFIX = "umpire-queue"
CURRENT = f"{PREFIX}:current"
GROUP = "workers"
CLAIM_TIMEOUT_S = 30.0

# KEYS: done, results, games, playing; ARGV: game key, results line, entry id
FINISH = """
local added = redis.call('SADD', KEYS[1], ARGV[1])
if added == 1 then redis.call('XADD', KEYS[2], '*', 'line', ARGV[2]) end
redis.call('XACK', KEYS[3], 'workers', ARGV[3])
redis.call('HDEL', KEYS[4], ARGV[3])
return added
"""


def connect(url: str) -> Any:
    """A client of ``redis://`` (one server) or ``redis+cluster://`` (any node of a Redis Cluster)."""
    if url.startswith(("redis+cluster://", "rediss+cluster://")):
        plain = url.replace("+cluster", "", 1)
        return redis.cluster.RedisCluster.from_url(plain, decode_responses=True)
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(f"--queue is redis://HOST:PORT[/DB] or redis+cluster://HOST:PORT, not {url!r}")
    return redis.Redis.from_url(url, decode_responses=True)


@dataclass(frozen=True)
class Keys:
    fingerprint: str

    def _k(self, name: str) -> str:
        return f"{PREFIX}:{{{self.fingerprint}}}:{name}"

    @property
    def config(self) -> str:
        return self._k("config")

    @property
    def games(self) -> str:
        return self._k("games")

    @property
    def results(self) -> str:
        return self._k("results")

    @property
    def done(self) -> str:
        return self._k("done")

    @property
    def published(self) -> str:
        return self._k("published")

    @property
    def playing(self) -> str:
        return self._k("playing")

    @property
    def stop(self) -> str:
        return self._k("stop")


def publish(r: Any, settings: Settings, config: Json, keys: list[str]) -> Keys:
    """The tournament's config and every game not published yet; workers are pointed at it."""
    k = Keys(settings.fingerprint())
    r.set(k.config, json.dumps({"settings": settings.to_json(), **config}))
    try:
        r.xgroup_create(k.games, GROUP, id="0", mkstream=True)
    except redis.ResponseError as e:
        if "BUSYGROUP" not in str(e):
            raise
    for key in keys:
        if r.sadd(k.published, key):
            r.xadd(k.games, {"key": key})
    r.delete(k.stop)
    r.set(CURRENT, k.fingerprint)
    return k


def coordinate(
    settings: Settings,
    queue_url: str,
    server_url: str,
    out: str | Path,
    resume: bool = False,
    sprt: Sprt | None = None,
    grace_s: float = 1.0,
    hello_timeout_s: float = 10.0,
    token: str | None = None,
    admin_token: str | None = None,
    progress: bool = True,
    stream: TextIO | None = None,
    records: str | Path | None = None,
    report_every: int = 0,
    claim_timeout_s: float = CLAIM_TIMEOUT_S,
    wait_s: float | None = None,
) -> Outcome:
    """Publish the games the results file lacks, and write the workers' results as they come."""
    if len(settings.bots) < 2 or settings.games < 1:
        raise TournamentError("a tournament needs at least two bots and one game")
    if sprt is not None and len(settings.bots) != 2:
        raise TournamentError("--sprt tests a match of exactly two bots")
    check_settings(settings)
    path = Path(out)
    nonempty = path.exists() and path.stat().st_size > 0
    existing: list[Json] = []
    if nonempty:
        if not resume:
            raise TournamentError(f"{path} already holds results: --resume to finish that tournament, or choose another --out")
        check_resume(path, settings, sprt)
        existing = read_results(path)
    have = {line["key"] for line in existing}
    schedule = settings.schedule()
    todo = [spec.key for spec in schedule if spec.key not in have]
    outcome = Outcome(list(existing))
    r = connect(queue_url)
    config = {
        "server": server_url, "token": token, "admin_token": admin_token, "grace_s": grace_s,
        "hello_timeout_s": hello_timeout_s, "claim_timeout_s": claim_timeout_s, "total": len(schedule),
    }  # fmt: skip
    decision, wld = sprt_state(sprt, existing)
    outcome.sprt_decision = decision
    k = Keys(settings.fingerprint())
    if decision is not None or not todo:
        r.set(k.stop, "done")
        return outcome
    k = publish(r, settings, config, todo)
    bar = Progress(len(schedule), settings.labels[0], len(existing), stream=stream, enabled=progress)
    bar.wld = list(wld)
    header = {"tournament": k.fingerprint, "settings": settings.to_json(), "sprt": None if sprt is None else sprt.to_json()}
    writer = ResultsWriter(path, append=nonempty, header=header)
    records_writer = RecordsWriter(records) if records else None
    last = "0"
    started = time.monotonic()
    try:
        while len(have) < len(schedule) and outcome.sprt_decision is None:
            if wait_s is not None and time.monotonic() - started > wait_s:
                break
            answer = r.xread({k.results: last}, count=100, block=1000)
            for _, entries in answer or []:
                for entry_id, fields in entries:
                    last = entry_id
                    line = json.loads(fields["line"])
                    if line["key"] in have or line.get("tournament") != k.fingerprint:
                        continue
                    have.add(line["key"])
                    writer.write(line)
                    if records_writer is not None:
                        records_writer.write(line)
                    outcome.lines.append(line)
                    outcome.played.append(line)
                    bar.update(first_bot_result(line), f"{line['key']}: {line['reason']} (worker {line.get('worker')})")
                    if report_every and len(outcome.played) % report_every == 0 and len(have) < len(schedule):
                        bar.message(f"-- after {len(have)} of {len(schedule)} games --\n" + report_text(outcome.lines, sprt))
                    decided, _ = sprt_state(sprt, outcome.lines)
                    if decided is not None:
                        outcome.sprt_decision = decided
                        r.set(k.stop, f"SPRT: {decided}")
                        bar.message(f"SPRT: {decided} accepted after {len(outcome.lines)} games; every worker stops")
                        break
        if len(have) >= len(schedule):
            r.set(k.stop, "done")
    except KeyboardInterrupt:
        outcome.interrupted = True
        bar.message("interrupted: the workers play on; --resume gathers what they finish")
    finally:
        writer.close()
        if records_writer is not None:
            records_writer.close()
        bar.close()
    return outcome


class _Watched(InPlay):
    """The match a worker plays, also kept in Redis: a worker that takes a dead worker's
    game over aborts the match that one left."""

    def __init__(self, r: Any, keys: Keys, entry_id: str) -> None:
        super().__init__()
        self.r, self.keys, self.entry_id = r, keys, entry_id

    def add(self, match: Any) -> None:
        super().add(match)
        self.r.hset(self.keys.playing, self.entry_id, match.match_id)


def work(
    queue_url: str,
    name: str | None = None,
    log: Callable[[str, str, str], None] | None = None,
    idle_exit_s: float | None = None,
    stream: TextIO | None = None,
) -> int:
    """Play the current tournament's games until it is complete or stopped; the number of games finished."""
    r = connect(queue_url)
    name = name or f"{socket.gethostname()}-{os.getpid()}"
    fingerprint = None
    waited = time.monotonic()
    while fingerprint is None:  # a tournament still going (one that ended: wait for the next)
        fingerprint = r.get(CURRENT)
        if fingerprint is None or r.exists(Keys(fingerprint).stop):
            fingerprint = None
            if idle_exit_s is not None and time.monotonic() - waited > idle_exit_s:
                return 0
            time.sleep(0.2)
    k = Keys(fingerprint)
    config = json.loads(r.get(k.config))
    settings = Settings.from_json(config["settings"])
    specs: dict[str, GameSpec] = {spec.key: spec for spec in settings.schedule()}
    matches = MatchClient(config["server"], token=config.get("token"), admin_token=config.get("admin_token"))
    claim_ms = round(float(config.get("claim_timeout_s", CLAIM_TIMEOUT_S)) * 1000)
    factories = [
        BotFactory(spec, settings.game, settings.engine(i).dir, wiring_for(settings, i, float(config["hello_timeout_s"]), log))
        for i, spec in enumerate(settings.bots)
    ]
    finish = r.register_script(FINISH)
    from engine.registry import GAMES

    engine = GAMES.get(settings.game)
    seeded = engine is not None and "seed" in engine.describe()["options"]
    explicit = [settings.engine(i).name for i in range(len(settings.bots))]
    played = 0
    idle_since = time.monotonic()
    say = stream.write if stream is not None else (lambda _text: 0)
    try:
        while not r.exists(k.stop):
            taken = r.xautoclaim(k.games, GROUP, name, min_idle_time=claim_ms, start_id="0-0", count=1)
            entries = [e for e in (taken[1] if taken else []) if e and e[1]]
            reclaimed = bool(entries)
            if not entries:
                answer = r.xreadgroup(GROUP, name, {k.games: ">"}, count=1, block=1000)
                entries = [e for _, found in answer or [] for e in found]
            if not entries:
                if r.scard(k.done) >= len(specs):
                    break
                if idle_exit_s is not None and time.monotonic() - idle_since > idle_exit_s:
                    break
                continue
            for entry_id, fields in entries:
                key = fields["key"]
                if r.sismember(k.done, key):
                    finish(keys=[k.done, k.results, k.games, k.playing], args=[key, "{}", entry_id])
                    continue
                if reclaimed:  # a worker died in this game: its match must not end on time later
                    for left in _left_behind(r, k, matches, settings, entry_id, key):
                        try:
                            matches.abort(left)
                            say(f"{name}: aborted {left}, left in play by a worker that stopped\n")
                        except ServiceError as e:
                            say(f"{name}: could not abort {left}, left by a worker that stopped: {e}\n")
                say(f"{name}: game {key}\n")
                line = _play_one(
                    r, k, settings, specs[key], entry_id, matches, factories, config, seeded, explicit, claim_ms, name
                )
                if line is None:
                    return played  # stopped
                line["worker"] = name
                finish(keys=[k.done, k.results, k.games, k.playing], args=[key, json.dumps(line), entry_id])
                played += 1
                idle_since = time.monotonic()
    finally:
        for f in factories:
            f.close()
        matches.close()
    return played


def _left_behind(r: Any, k: Keys, matches: MatchClient, settings: Settings, entry_id: str, key: str) -> set[str]:
    """The matches a dead worker left in play for this game: the one it noted, and any
    ongoing match tagged with the tournament and the game (created just before it died)."""
    found = {m for m in [r.hget(k.playing, entry_id)] if m}
    if matches.admin_token:
        tag = tournament_tags(settings)[1]
        with contextlib.suppress(ServiceError):
            status, listed = matches.request(
                "GET", f"/v1/matches?status=ongoing&tag={tag}&limit=100",
                headers={"Authorization": f"Bearer {matches.admin_token}"},
            )  # fmt: skip
            if status == 200:
                found |= {m["match_id"] for m in listed["matches"] if key in m["tags"]}
    return found


def _play_one(
    r: Any,
    k: Keys,
    settings: Settings,
    spec: GameSpec,
    entry_id: str,
    matches: MatchClient,
    factories: list[BotFactory],
    config: Json,
    seeded: bool,
    explicit: list[str | None],
    claim_ms: int,
    name: str,
) -> Json | None:
    """One claimed game, its claim renewed while it is played; None when the tournament stopped meanwhile."""
    abort = threading.Event()
    finished = threading.Event()
    in_play = _Watched(r, k, entry_id)

    def renew() -> None:
        while not finished.wait(max(0.2, claim_ms / 4000)):
            try:
                r.xclaim(k.games, GROUP, name, 0, [entry_id], justid=True)  # idle time 0: still mine
                if r.exists(k.stop):
                    abort.set()
                    for match_id in in_play.take():
                        with contextlib.suppress(ServiceError):
                            matches.abort(match_id)
                    return
            except redis.RedisError:
                continue

    bots = (
        factories[spec.seats[0]].make(bot_seed(settings, spec, 0)),
        factories[spec.seats[1]].make(bot_seed(settings, spec, 1)),
    )
    opening = settings.openings[spec.opening] if spec.opening is not None else []
    keeper = threading.Thread(target=renew, daemon=True)
    keeper.start()
    try:
        result = play_game(
            matches, settings.game, settings.game_options(spec, seeded), settings.clock, bots,
            (settings.bots[spec.seats[0]], settings.bots[spec.seats[1]]), opening, abort, float(config["grace_s"]),
            in_play=in_play, names=(explicit[spec.seats[0]], explicit[spec.seats[1]]),
            tags=[*tournament_tags(settings), spec.key],
        )  # fmt: skip
    except Aborted:
        return None
    except KeyboardInterrupt:  # the worker is stopped (Ctrl-C, SIGTERM): its game ends aborted, not on time
        abort.set()
        for match_id in in_play.take():
            with contextlib.suppress(ServiceError):
                matches.abort(match_id)
        raise
    finally:
        finished.set()
        keeper.join(5.0)
        for seat in (0, 1):
            factories[spec.seats[seat]].done(bots[seat])
    if abort.is_set():
        return None
    return results_line(settings, spec, opening, result, str(config["server"]))
