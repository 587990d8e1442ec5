"""A tournament's games shared by workers on any number of machines, through
Redis Streams consumer groups (``umpire tournament ... --queue URL`` publishes
and gathers, ``umpire worker --queue URL`` plays), as fishtest and OpenBench
share chess games; Redis does the distributing, this module only names keys.

Every run has its own identity (umpire/config.py ``Run``: a new one for every
tournament started, kept by ``--resume`` in the results file), and its keys
carry it as their hash tag, so that a Redis Cluster keeps them on one node and
the scripts below may touch several:

* ``umpire-queue:runs`` - the runs being played (a sorted set, by when they
  were published): a worker serves every one of them, a game at a time from
  each in turn;
* ``umpire-queue:{RUN}:config`` - the run's settings, the server to play on
  (the queue tells workers which server to use), the token that creates
  matches there if the server wants one, grace, limits.  No admin token: a
  worker aborts only matches it has the umpire tokens of;
* ``umpire-queue:{RUN}:games`` - a stream, one entry per scheduled game
  (``key``), read by the consumer group ``workers``: ``XREADGROUP`` gives a
  game to one worker; the worker renews its claim while it plays (``XCLAIM``
  of its own entry, which resets the idle time); a worker that stopped (SIGKILL,
  SIGSTOP, a machine lost) stops renewing, and after ``claim_timeout_s``
  another takes the game over (``XAUTOCLAIM``, which counts one more
  delivery), aborting the match the first one left (``playing`` holds it with
  its umpire token);
* ``umpire-queue:{RUN}:playing`` - for each claimed entry, the match being
  played for it and that match's umpire token;
* ``umpire-queue:{RUN}:results`` - a stream of finished games' results lines;
  ``done`` - the games in it.

**The claim is fenced.** A claim is the pair (worker, delivery count) that
``XPENDING`` shows for the entry.  Renewing it, noting a match for it, and
handing its result in are each one script that first checks the entry is
still pending with that pair: a worker that was stopped and comes back after
its game was taken over finds another pair there, and its result is refused
(and its match was aborted by the taker, and an aborted match is never a
result: umpire/play.py).  The finishing script adds the game's key to
``done`` and, only if it was new, the line to ``results``, then ``XACK``s the
entry, all at once, so no game is counted twice.

**Keys expire.** A run's keys live ``RUN_TTL_S`` (renewed by its coordinator
while it gathers, and given to every key a worker creates); once the run is
complete or its SPRT decides, ``stop`` is set, the run leaves ``runs``, and
every key of it expires after ``FINISHED_TTL_S``, time enough for every worker
to see it stop.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import redis
import redis.cluster

from umpire.bots import BotFactory, BotStartError
from umpire.client import Match, MatchClient, ServiceError
from umpire.config import GameSpec, Run, Settings
from umpire.play import Aborted, InPlay, play_game
from umpire.progress import Progress
from umpire.records import RecordsWriter
from umpire.results import read_results, read_run
from umpire.stats import Sprt
from umpire.tournament import (
    Outcome,
    TournamentError,
    bot_seed,
    check_settings,
    first_bot_result,
    open_results,
    report_text,
    results_line,
    sprt_state,
    tournament_tags,
    wiring_for,
)

Json = dict[str, Any]
PREFIX = "umpire-queue"
RUNS = f"{PREFIX}:runs"
GROUP = "workers"
RUN_TTL_S = 7 * 24 * 3600  # a run nobody gathers any more (its coordinator stopped, never resumed) goes in a week
FINISHED_TTL_S = 600  # a finished run's keys: every worker sees its stop long before they go
REFRESH_S = 60.0  # how often a gathering coordinator renews its run's keys
IDLE_SLEEP_S = 0.2  # a worker with no game to take in any run looks again after this

# KEYS: published, games; ARGV: the games' keys.  At once, so that no worker sees a run half published.
PUBLISH = """
for _, key in ipairs(ARGV) do
  if redis.call('SADD', KEYS[1], key) == 1 then redis.call('XADD', KEYS[2], '*', 'key', key) end
end
return #ARGV
"""
# The claim's fence, checked first by every script that acts for a claim: the entry is
# still pending with this worker (ARGV[2]) and this delivery count (ARGV[3]).
_FENCE = """
local p = redis.call('XPENDING', KEYS[1], 'workers', ARGV[1], ARGV[1], 1)
if #p == 0 or p[1][2] ~= ARGV[2] or tonumber(p[1][4]) ~= tonumber(ARGV[3]) then return -1 end
"""
# KEYS: games; ARGV: entry id, worker, deliveries.  1 renewed, -1 no longer this worker's claim.
RENEW = (
    _FENCE
    + """
redis.call('XCLAIM', KEYS[1], 'workers', ARGV[2], 0, ARGV[1], 'JUSTID')
return 1
"""
)
# KEYS: games, playing, config; ARGV: entry id, worker, deliveries, the match (JSON).
NOTE = (
    _FENCE
    + """
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
local ttl = redis.call('PTTL', KEYS[3])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
"""
)
# KEYS: games, playing, config, done, results; ARGV: entry id, worker, deliveries, game key, results
# line ('' for none).  1 recorded, 0 already done (acknowledged), -1 not this worker's claim, -2 the run is gone.
FINISH = (
    """
if redis.call('EXISTS', KEYS[3]) == 0 then return -2 end
"""
    + _FENCE
    + """
local added = redis.call('SADD', KEYS[4], ARGV[4])
if added == 1 and ARGV[5] ~= '' then redis.call('XADD', KEYS[5], '*', 'line', ARGV[5]) end
redis.call('XACK', KEYS[1], 'workers', ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
local ttl = redis.call('PTTL', KEYS[3])
if ttl > 0 then
  for i = 4, 5 do if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ttl) end end
end
return added
"""
)


def connect(url: str) -> Any:
    """A client of ``redis://HOST:PORT`` or ``unix:///PATH/TO/redis.sock`` (one server: ``make
    run``'s own Redis listens on ``data/redis.sock``) or ``redis+cluster://`` (any node of a Redis
    Cluster)."""
    if url.startswith(("redis+cluster://", "rediss+cluster://")):
        plain = url.replace("+cluster", "", 1)
        return redis.cluster.RedisCluster.from_url(plain, decode_responses=True)
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(
            f"--queue is redis://HOST:PORT[/DB], unix:///PATH/TO/redis.sock (make run's Redis: unix://$PWD/data/redis.sock) "
            f"or redis+cluster://HOST:PORT, not {url!r}"
        )
    return redis.Redis.from_url(url, decode_responses=True)


def check_queue(url: str) -> None:
    """The queue's Redis answers (``PING``), or ValueError naming ``--queue``: checked before a
    tournament writes anything or a worker starts waiting, so a wrong URL is one clear line."""
    try:
        client = connect(url)
        try:
            client.ping()
        finally:
            client.close()
    except redis.RedisError as e:
        raise ValueError(f"--queue {url}: no Redis answers there ({e})") from None


@dataclass(frozen=True)
class Keys:
    run: str

    def _k(self, name: str) -> str:
        return f"{PREFIX}:{{{self.run}}}:{name}"

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

    def every(self) -> list[str]:
        return [self.config, self.games, self.results, self.done, self.published, self.playing, self.stop]


def _expire(r: Any, k: Keys, seconds: int) -> None:
    for key in k.every():
        r.expire(key, seconds)


def publish(r: Any, settings: Settings, run_id: str, config: Json, keys: list[str]) -> Keys:
    """The run's config and every game not published yet; the run joins those workers serve."""
    k = Keys(run_id)
    r.set(k.config, json.dumps({"settings": settings.to_json(), "run": run_id, **config}), ex=RUN_TTL_S)
    try:
        r.xgroup_create(k.games, GROUP, id="0", mkstream=True)
    except redis.ResponseError as e:
        if "BUSYGROUP" not in str(e):
            raise
    r.register_script(PUBLISH)(keys=[k.published, k.games], args=keys)
    r.delete(k.stop)
    _expire(r, k, RUN_TTL_S)
    r.zadd(RUNS, {run_id: time.time()})
    return k


def finish_run(r: Any, run_id: str, why: str) -> None:
    """The run is over (complete, decided, or replaced): every worker stops its games, and its keys go."""
    k = Keys(run_id)
    r.set(k.stop, why)
    _expire(r, k, FINISHED_TTL_S)
    r.zrem(RUNS, run_id)


def coordinate(
    settings: Settings,
    plan: Run,
    server_url: str,
    out: str | Path,
    resume: bool = False,
    sprt: Sprt | None = None,
    token: str | None = None,
    progress: bool = True,
    stream: TextIO | None = None,
    wait_s: float | None = None,
) -> Outcome:
    """Publish the games the results file lacks, and write the workers' results as they come."""
    assert plan.queue is not None
    if len(settings.bots) < 2 or settings.games < 1:
        raise TournamentError("a tournament needs at least two bots and one game")
    if sprt is not None and len(settings.bots) != 2:
        raise TournamentError("--sprt tests a match of exactly two bots")
    check_settings(settings)
    path = Path(out)
    r = connect(plan.queue)
    replaced = _replaced_run(path, plan) if not resume else None
    existing, writer = open_results(path, settings, sprt, plan, resume)
    if replaced is not None:  # a run that stopped before its first result, started afresh: its workers stop
        finish_run(r, replaced, "replaced")
    have = {line["key"] for line in existing}
    schedule = settings.schedule()
    todo = [spec.key for spec in schedule if spec.key not in have]
    outcome = Outcome(list(existing))
    decision, wld = sprt_state(sprt, existing)
    outcome.sprt_decision = decision
    if decision is not None or not todo:
        writer.close()
        finish_run(r, plan.id, "done")
        return outcome
    config = {
        "server": server_url, "token": token, "grace_s": plan.grace_s, "hello_timeout_s": plan.hello_timeout_s,
        "claim_timeout_s": plan.claim_timeout_s, "total": len(schedule), "out": str(path.resolve()),
    }  # fmt: skip
    k = publish(r, settings, plan.id, config, todo)
    bar = Progress(len(schedule), settings.labels[0], len(existing), stream=stream, enabled=progress)
    bar.wld = list(wld)
    records_writer = RecordsWriter(plan.records) if plan.records else None
    last = "0"
    started = refreshed = time.monotonic()
    try:
        while len(have) < len(schedule) and outcome.sprt_decision is None:
            now = time.monotonic()
            if wait_s is not None and now - started > wait_s:
                break
            if now - refreshed > REFRESH_S:
                _expire(r, k, RUN_TTL_S)
                refreshed = now
            answer = r.xread({k.results: last}, count=100, block=1000)
            for _, entries in answer or []:
                for entry_id, fields in entries:
                    last = entry_id
                    line = json.loads(fields["line"])
                    if line["key"] in have or line.get("run") != plan.id:
                        continue
                    have.add(line["key"])
                    writer.write(line)
                    if records_writer is not None:
                        records_writer.write(line)
                    outcome.lines.append(line)
                    outcome.played.append(line)
                    bar.update(first_bot_result(line), f"{line['key']}: {line['reason']} (worker {line.get('worker')})")
                    if plan.report_every and len(outcome.played) % plan.report_every == 0 and len(have) < len(schedule):
                        bar.message(f"-- after {len(have)} of {len(schedule)} games --\n" + report_text(outcome.lines, sprt))
                    decided, _ = sprt_state(sprt, outcome.lines)
                    if decided is not None:  # what workers finish after it is not gathered (as fastchess: tournament.py)
                        outcome.sprt_decision = decided
                        finish_run(r, plan.id, f"SPRT: {decided}")
                        bar.message(f"SPRT: {decided} accepted after {len(outcome.lines)} games; every worker stops")
                        break
        if len(have) >= len(schedule):
            finish_run(r, plan.id, "done")
    except KeyboardInterrupt:
        outcome.interrupted = True  # the workers play on: umpire/cli.py says so, and how to gather their results
    finally:
        writer.close()
        if records_writer is not None:
            records_writer.close()
        bar.close()
    return outcome


def _replaced_run(path: Path, plan: Run) -> str | None:
    """The run of a results file about to be started afresh (it holds no game), when it was
    shared on this same queue: its workers are to stop."""
    try:
        if not path.exists() or read_results(path):
            return None
        old = read_run(path)
    except (OSError, ValueError):
        return None
    if old is None or old.get("queue") != plan.queue or old.get("id") == plan.id:
        return None
    return str(old.get("id"))


# -- the worker ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """A game a worker holds: the stream entry, the game's key, and the fence (the delivery count)."""

    entry_id: str
    key: str
    deliveries: int
    reclaimed: bool  # taken over from a worker that stopped renewing


@dataclass
class Served:
    """A run a worker serves: its keys, settings and config, its bots, its server."""

    keys: Keys
    settings: Settings
    config: Json
    specs: dict[str, GameSpec]
    matches: MatchClient
    factories: list[BotFactory]
    seeded: bool
    explicit: list[str | None]
    claim_ms: int

    def close(self) -> None:
        for f in self.factories:
            f.close()
        self.matches.close()


@dataclass
class WorkerReport:
    """What a worker did: games played, the runs it served, whether it was stopped, and the
    match it aborted then (None: it had no game in play)."""

    played: int = 0
    runs: list[str] = field(default_factory=list)
    interrupted: bool = False
    aborted: list[str] = field(default_factory=list)


class _Scripts:
    def __init__(self, r: Any) -> None:
        self.renew = r.register_script(RENEW)
        self.note = r.register_script(NOTE)
        self.finish = r.register_script(FINISH)


def _active_runs(r: Any) -> list[str]:
    """The runs workers serve, oldest first; runs whose keys are gone leave the list."""
    out = []
    for run_id in r.zrange(RUNS, 0, -1):
        k = Keys(run_id)
        if not r.exists(k.config):
            r.zrem(RUNS, run_id)  # expired: its coordinator never came back
            continue
        if r.exists(k.stop):
            continue
        out.append(run_id)
    return out


def _serve(r: Any, run_id: str, log: Callable[[str, str, str], None] | None) -> Served | None:
    k = Keys(run_id)
    raw = r.get(k.config)
    if raw is None:
        return None
    config = json.loads(raw)
    settings = Settings.from_json(config["settings"])
    from engine.registry import GAMES

    engine = GAMES.get(settings.game)
    hello_s = float(config["hello_timeout_s"])
    return Served(
        keys=k,
        settings=settings,
        config=config,
        specs={spec.key: spec for spec in settings.schedule()},
        matches=MatchClient(config["server"], token=config.get("token")),
        factories=[
            BotFactory(spec, settings.game, settings.engine(i).dir, wiring_for(settings, i, hello_s, log))
            for i, spec in enumerate(settings.bots)
        ],
        seeded=engine is not None and "seed" in engine.describe()["options"],
        explicit=[settings.engine(i).name for i in range(len(settings.bots))],
        claim_ms=round(float(config["claim_timeout_s"]) * 1000),
    )


def _claim(r: Any, s: Served, name: str) -> Claim | None:
    """A game of the run for this worker: one whose worker stopped renewing its claim, else a new one."""
    k = s.keys
    taken = r.xautoclaim(k.games, GROUP, name, min_idle_time=s.claim_ms, start_id="0-0", count=1)
    entries = [e for e in (taken[1] if taken else []) if e and e[1]]
    reclaimed = bool(entries)
    if not entries:
        answer = r.xreadgroup(GROUP, name, {k.games: ">"}, count=1)
        entries = [e for _, found in answer or [] for e in found]
    if not entries:
        return None
    entry_id, fields = entries[0]
    pending = r.xpending_range(k.games, GROUP, min=entry_id, max=entry_id, count=1)
    if not pending or pending[0]["consumer"] != name:
        return None  # taken over already (this worker was stopped in between)
    return Claim(entry_id, fields["key"], int(pending[0]["times_delivered"]), reclaimed)


def work(
    queue_url: str,
    name: str | None = None,
    log: Callable[[str, str, str], None] | None = None,
    idle_exit_s: float | None = None,
    stream: TextIO | None = None,
) -> WorkerReport:
    """Play the games of every run on the queue, a game from each in turn, until every run this
    worker served is over (or ``idle_exit_s`` with nothing to play); stopped (KeyboardInterrupt),
    it aborts its game in play and says so in the report."""
    r = connect(queue_url)
    name = name or f"{socket.gethostname()}-{os.getpid()}"
    scripts = _Scripts(r)
    report = WorkerReport()
    served: dict[str, Served] = {}
    complete: set[str] = set()  # every game done, its coordinator not there to stop it
    idle_since = time.monotonic()
    say = stream.write if stream is not None else (lambda _text: 0)
    turn = 0
    current: list[tuple[Served, InPlay]] = []  # the game in play, if any
    try:
        while True:
            runs = [x for x in _active_runs(r) if x not in complete]
            for run_id in [x for x in served if x not in runs]:
                served.pop(run_id).close()
                say(f"{name}: run {run_id} is over\n")
            if not runs and report.runs:
                return report  # every run it served is over
            took = False
            for n in range(len(runs)):
                run_id = runs[(turn + n) % len(runs)]
                s = served.get(run_id)
                if s is None:
                    s = _serve(r, run_id, log)
                    if s is None:
                        continue
                    served[run_id] = s
                    report.runs.append(run_id)
                    bots = ", ".join(s.settings.labels)
                    say(f"{name}: serving run {run_id}: {s.settings.game}, {bots}; results to {s.config.get('out')}\n")
                claim = _claim(r, s, name)
                if claim is None:
                    if r.scard(s.keys.done) >= r.scard(s.keys.published):
                        complete.add(run_id)  # every game it published is done: nothing more will come
                    continue
                turn += n + 1
                took = True
                watched = _Watched(r, scripts, s, claim, name)
                current.append((s, watched))
                try:
                    _one(r, scripts, s, claim, name, report, watched, say)
                except BotStartError as e:  # its bots cannot start here: another worker takes the game over
                    complete.add(run_id)
                    say(f"{name}: game {claim.key} of run {run_id}: {e}: this worker leaves the run\n")
                current.clear()
                idle_since = time.monotonic()
                break
            if not took:
                if idle_exit_s is not None and time.monotonic() - idle_since > idle_exit_s:
                    return report
                time.sleep(IDLE_SLEEP_S)
    except KeyboardInterrupt:  # stopped (Ctrl-C, SIGTERM): its game in play ends aborted, not on time
        report.interrupted = True
        for s, in_play in current:
            for match in in_play.take():
                with contextlib.suppress(ServiceError, OSError):
                    s.matches.abort(match.match_id, match.umpire)
                report.aborted.append(match.match_id)
        return report
    finally:
        for s in served.values():
            s.close()


def _one(
    r: Any, scripts: _Scripts, s: Served, claim: Claim, name: str, report: WorkerReport, in_play: _Watched,
    say: Callable[[str], Any],
) -> None:  # fmt: skip
    """Play one claimed game and hand its result in (if the claim is still this worker's)."""
    k = s.keys
    fence = [claim.entry_id, name, claim.deliveries]
    finish_keys = [k.games, k.playing, k.config, k.done, k.results]
    if r.sismember(k.done, claim.key):
        scripts.finish(keys=finish_keys, args=[*fence, claim.key, ""])
        return
    if claim.reclaimed:  # a worker stopped in this game: its match must not end on time later
        left = r.hget(k.playing, claim.entry_id)
        if left:
            match = json.loads(left)
            try:
                s.matches.abort(match["match_id"], match["umpire"])
                say(f"{name}: aborted {match['match_id']}, left in play by a worker that stopped\n")
            except ServiceError as e:
                say(f"{name}: could not abort {match['match_id']}, left by a worker that stopped: {e}\n")
    say(f"{name}: game {claim.key} of run {k.run}\n")
    line = _play_one(r, scripts, s, claim, name, in_play, say)
    if line is None:
        return
    line["worker"] = name
    done = scripts.finish(keys=finish_keys, args=[*fence, claim.key, json.dumps(line)])
    if done == -1:
        say(f"{name}: game {claim.key} was taken over by another worker meanwhile: this result is not counted\n")
    elif done == -2:
        say(f"{name}: run {k.run} is gone: this result is not counted\n")
    else:
        report.played += 1


class _Watched(InPlay):
    """The match a worker plays, also noted in Redis with its umpire token (a worker that
    takes the game over aborts it), if the claim is still this worker's; ``lost`` once it is not."""

    def __init__(self, r: Any, scripts: _Scripts, s: Served, claim: Claim, name: str) -> None:
        super().__init__()
        self.r, self.scripts, self.s, self.claim, self.name = r, scripts, s, claim, name
        self.lost = threading.Event()

    def add(self, match: Match) -> None:
        super().add(match)
        k = self.s.keys
        noted = json.dumps({"match_id": match.match_id, "umpire": match.umpire})
        fence = [self.claim.entry_id, self.name, self.claim.deliveries]
        if self.scripts.note(keys=[k.games, k.playing, k.config], args=[*fence, noted]) != 1:
            self.lost.set()


def _play_one(
    r: Any, scripts: _Scripts, s: Served, claim: Claim, name: str, in_play: _Watched, say: Callable[[str], Any]
) -> Json | None:
    """One claimed game, its claim renewed while it is played; None when it is no result (the run
    stopped, the claim was lost, the match was aborted)."""
    k, settings, spec = s.keys, s.settings, s.specs[claim.key]
    abort = threading.Event()
    finished = threading.Event()

    def stop_games() -> None:
        abort.set()
        for match in in_play.take():
            with contextlib.suppress(ServiceError, OSError):
                s.matches.abort(match.match_id, match.umpire)

    def renew() -> None:
        fence = [claim.entry_id, name, claim.deliveries]
        while not finished.wait(max(0.2, s.claim_ms / 4000)):
            try:
                if in_play.lost.is_set() or scripts.renew(keys=[k.games], args=fence) != 1:
                    in_play.lost.set()
                    say(f"{name}: game {claim.key} was taken over by another worker: stopping it\n")
                    stop_games()
                    return
                if r.exists(k.stop):
                    stop_games()
                    return
            except redis.RedisError:
                continue

    bots = (
        s.factories[spec.seats[0]].make(bot_seed(settings, spec, 0)),
        s.factories[spec.seats[1]].make(bot_seed(settings, spec, 1)),
    )
    opening = settings.openings[spec.opening] if spec.opening is not None else []
    keeper = threading.Thread(target=renew, daemon=True)
    keeper.start()
    try:
        result = play_game(
            s.matches, settings.game, settings.game_options(spec, s.seeded), settings.clock, bots,
            (settings.bots[spec.seats[0]], settings.bots[spec.seats[1]]), opening, abort, float(s.config["grace_s"]),
            in_play=in_play, names=(s.explicit[spec.seats[0]], s.explicit[spec.seats[1]]),
            tags=[*tournament_tags(settings), f"run-{k.run}", spec.key],
        )  # fmt: skip
    except Aborted as e:
        if not abort.is_set():
            say(f"{name}: game {claim.key}: {e}\n")
        return None
    finally:
        finished.set()
        keeper.join(5.0)
        for seat in (0, 1):
            s.factories[spec.seats[seat]].done(bots[seat])
    if abort.is_set() or in_play.lost.is_set():
        return None
    return results_line(settings, spec, opening, result, str(s.config["server"]), k.run)
