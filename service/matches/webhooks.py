"""Posting a match's changes to its webhooks by itself (issue 22), and ``GET /v1/matches/{id}/webhooks``.

The deliverer (``flask --app service deliver``; ``make run`` starts one when
``WEBHOOK_ALLOW`` is set, service/run/serve.py) runs beside the app, never in
a request: a move commits and answers as it always did, and the deliverer
finds the change in the match's record afterwards.  Woken by the commit's
publication on the match's channel (the hub's pub/sub), and at least every
``WEBHOOK_POLL_S``, it reads, on each Redis master, the matches indexed as having webhooks
(service/matches/outbox.py) with each webhook's cursor and the record's length;
for each webhook behind the record it builds the next change's payload - once per
process, for every webhook of the match: the stream's events
(service/matches/events.py ``step_events``), the announcements, the post
(views.post) and the PNG (the bounded renderer pool, service/api/renderer.py) -
claims the webhook's lease, posts, and moves the cursor on.

One post per record entry (a change: a move, a flag, a pass, a resignation,
an illegal attempt, an abort): a move that ends the game is one post whose
events are the move's and the end's, not two posts of the same picture.

Order and failures: a webhook gets the changes in the record's order, one at a
time.  A failed try (a refused or dropped connection, a timeout, 408, 429, a
5xx) is tried again after ``WEBHOOK_BACKOFF_S``, doubling up to
``WEBHOOK_BACKOFF_MAX_S`` (a 429's ``Retry-After`` when longer, within that
cap), at most ``WEBHOOK_TRIES`` times; then that change is given up and the
webhook goes on with the next, so one bad minute does not silence a match for
good.  A redirect (3xx) and any other 4xx are given up at once (trying again
would not help).  Every failure is recorded (time, change, status or error,
try) and readable with ``GET /v1/matches/{id}/webhooks``.

At most once: a change is posted to a webhook only by the deliverer holding
that webhook's lease for it, and never again once the webhook answered 2xx.
A try with no answer (a read timeout, a deliverer killed mid-post) is tried
again, so a receiver that took it without answering in time may see it twice;
each request carries ``X-Umpire-Delivery: <match>:<entry>`` for it to drop.

Outbound requests are a door into the operator's network: only hosts in
``WEBHOOK_ALLOW`` (checked at creation and again before every post), no
redirects, ``WEBHOOK_TIMEOUT_S`` to connect, send and read each, at most
``WEBHOOK_MAX_BYTES`` sent and 4 KiB of an answer read, certificates verified,
no proxy or ``.netrc`` from the environment.  A webhook's URL (a Discord
webhook's holds its token) is never answered nor logged: only its host.
"""

from __future__ import annotations

import base64
import logging
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import click
import httpx
import orjson
import redis
from flask import Blueprint, Flask

import views
from engine.game import RESERVED
from engine.registry import GAMES
from service.api import renderer
from service.api.pictures import render_pool
from service.matches import db, outbox, referee, routes
from service.matches.db import get_store
from service.matches.events import Ids, step_events
from service.matches.history import picture_ply
from service.matches.hub import Hub
from service.matches.outbox import Hook
from service.matches.referee import Meta
from service.matches.store import Gone, Store
from service.web.appref import this_app

log = logging.getLogger(__name__)

bp = Blueprint("webhooks", __name__, url_prefix="/v1")

Json = dict[str, Any]
ANSWER_BYTES = 4096  # of a receiver's answer, at most this much is read
USER_AGENT = "umpire-webhooks/1"
SLACK_SECTION = 3000  # characters of a Slack section block's text
BATCH = 20  # changes one task posts to one webhook before it lets others have the thread
MIN_ROUND_S = 0.02  # a deliverer looks at most this often, however many matches change


# -- who may read a match's webhooks ----------------------------------------------------------


def _umpire_or_admin(meta: Meta) -> None:
    """The match's umpire token or the server's ``ADMIN_TOKEN``, as for the umpire's controls
    (401 otherwise; 403 ``not_umpire`` for a seat's token)."""
    routes._umpire(meta)


@bp.get("/matches/<match_id>/webhooks")
def match_webhooks(match_id: str) -> Any:
    """Each webhook of the match: its format and host (never its URL), the changes posted
    and given up, how many wait, the last error, and its latest failures."""
    store = get_store()
    cur = routes.read(store, match_id)
    _umpire_or_admin(cur.meta)
    raw = outbox.read(store, match_id)
    failures = outbox.failures(store, match_id)
    out = []
    for i, hook in enumerate(outbox.hooks_of(raw)):
        cursor = int(raw.get(f"c:{i}", 0))
        last = raw.get(f"err:{i}")
        out.append(
            {
                "format": hook.format,
                "host": hook.host,
                "delivered": int(raw.get(f"ok:{i}", 0)),
                "failed": int(raw.get(f"bad:{i}", 0)),
                "pending": max(0, cur.length - cursor),
                "last_error": None if last is None else _failure(orjson.loads(last)),
                "failures": [_failure(f) for f in failures if f.get("webhook") == i],
            }
        )
    return {"match_id": match_id, "webhooks": out}


def _failure(recorded: Json) -> Json:
    """A failure as answered (the webhook it belongs to is where it is listed)."""
    return {k: v for k, v in recorded.items() if k != "webhook"}


# -- what is posted ---------------------------------------------------------------------------


@dataclass
class Change:
    """One record entry of a match, walked, with what every format posts of it (built once)."""

    match_id: str
    meta: Meta
    seq: int  # the entry's number in the record, from 1
    ply: int  # the position's own ply (the state's), as board.png?ply=N and the post's heading count
    before: Json
    after: Json
    events: list[Json]  # the engine's
    stream: list[Json]  # the event stream's events of this entry, each with its id
    move: str | None
    ended: bool  # this entry ended the match
    _posts: dict[str, str] = field(default_factory=dict)
    _png: bytes | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def announcements(self) -> list[str]:
        return list(self.stream[0]["announcements"]) if self.stream else []

    @property
    def clock(self) -> Json | None:
        return self.stream[0]["clock"] if self.stream else None

    def post(self, fmt: str, png_url: str | None = None) -> str:
        key = f"{fmt} {png_url}"
        with self.lock:
            found = self._posts.get(key)
            if found is None:
                found = self._posts[key] = views.post(
                    self.after, events=self.events, before=self.before, move=self.move, png_url=png_url,
                    clock=self.clock, names=self.meta.names, ply=self.ply, format=fmt,
                )  # fmt: skip
            return found

    def png(self, app: Flask) -> bytes:
        """The picture after the change (renderer.Busy when the pool is full: tried next round)."""
        with self.lock:
            if self._png is None:
                names = self.meta.names
                try:
                    picture = views.svg(self.after, events=self.events, names=names, clock=self.clock)
                except (KeyError, TypeError, ValueError, IndexError):  # a change the views mark nothing of
                    picture = views.svg(self.after, names=names, clock=self.clock)
                self._png = render_pool(app).render(picture, None)
            return self._png


def picture_url(public: str, change: Change) -> str | None:
    """The change's picture at the service's public address (``PUBLIC_URL``), when it has one."""
    if not public:
        return None
    shown = picture_ply(change.before, change.after)
    query = "" if shown is None else f"?ply={shown}"
    return f"{public.rstrip('/')}/v1/matches/{change.match_id}/board.png{query}"


def discord_request(change: Change, png: bytes) -> dict[str, Any]:
    """Discord's execute-webhook request as multipart/form-data: ``payload_json`` (the post in
    Discord's Markdown, no mentions, an embed showing the attachment) and ``files[0]``, the PNG."""
    payload = {
        "content": change.post("discord"),
        "allowed_mentions": {"parse": []},
        "embeds": [{"image": {"url": "attachment://board.png"}}],
        "attachments": [{"id": 0, "filename": "board.png", "description": f"The board after change {change.seq}"}],
    }
    return {
        "data": {"payload_json": orjson.dumps(payload).decode()},
        "files": {"files[0]": ("board.png", png, "image/png")},
    }


def slack_escape(text: str) -> str:
    """Slack reads ``&``, ``<`` and ``>`` as markup: they are sent escaped, as its docs ask."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def slack_request(change: Change, public: str) -> dict[str, Any]:
    """Slack's incoming-webhook JSON: ``text`` (the notification: the heading and what was
    announced) and ``blocks``: the post as plain text in a code block, and an image block
    when the service knows its public address (an incoming webhook cannot take a file)."""
    url = picture_url(public, change)
    post = change.post("text", url)
    heading = post.split("\n", 1)[0]
    summary = " ".join([heading, *change.announcements])
    body = slack_escape(post.rstrip("\n")).replace("```", "'''")  # nothing a player named closes the block
    if len(body) > SLACK_SECTION - 8:
        body = body[: SLACK_SECTION - 9] + "…"
    blocks: list[Json] = [{"type": "section", "text": {"type": "mrkdwn", "text": f"```\n{body}\n```"}}]
    if url is not None:
        blocks.append({"type": "image", "image_url": url, "alt_text": heading[:2000]})
    return {"json": {"text": slack_escape(summary)[:3000], "blocks": blocks}}


def json_payload(change: Change, png: bytes, public: str) -> Json:
    """The service's own payload (openapi.yaml ``WebhookPayload``)."""
    url = picture_url(public, change)
    return {
        "match_id": change.match_id,
        "game": change.meta.game,
        "seq": change.seq,
        "ply": change.ply,
        "events": change.stream,
        "announcements": change.announcements,
        "post": change.post("markdown", url),
        "picture": base64.b64encode(png).decode(),
        "picture_url": url,
    }


# -- posting ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sent:
    """How a try went: posted, or why not, and whether to try again (after ``wait_s`` at least)."""

    ok: bool
    status: int | None = None
    error: str | None = None
    again: bool = False
    wait_s: float = 0.0


def _retry_after(raw: str | None) -> float:
    if raw is None or not raw.strip().replace(".", "", 1).isdigit():
        return 0.0
    return float(raw)


def send(client: httpx.Client, hook: Hook, request: dict[str, Any], delivery: str, max_bytes: int, answer_s: float) -> Sent:
    """One try of one post: no redirect followed, at most ``max_bytes`` sent, and at most
    ``ANSWER_BYTES`` of the answer read within ``answer_s`` of its headers (a receiver that
    drips its answer is cut off there).  An error never names the URL."""
    headers = {"User-Agent": USER_AGENT, "X-Umpire-Delivery": delivery}
    try:
        built = client.build_request("POST", hook.url, headers=headers, **request)
        size = int(built.headers.get("Content-Length") or 0)
        if size > max_bytes:
            return Sent(False, None, f"the post is {size} bytes, over WEBHOOK_MAX_BYTES ({max_bytes})")
        answer = client.send(built, stream=True)
        try:
            read, until = 0, time.monotonic() + answer_s
            for chunk in answer.iter_raw():
                read += len(chunk)
                if read >= ANSWER_BYTES or time.monotonic() > until:
                    break  # the status is what counts: the rest of the answer is not read
        finally:
            answer.close()
    except httpx.TimeoutException as e:
        return Sent(False, None, f"timed out ({type(e).__name__})", again=True)
    except httpx.HTTPError as e:
        return Sent(False, None, _scrub(f"{type(e).__name__}: {e}", hook.url), again=True)
    status = answer.status_code
    if 200 <= status < 300:
        return Sent(True, status)
    if 300 <= status < 400:
        return Sent(False, status, f"HTTP {status}: a redirect, which is not followed")
    if status in (408, 429) or status >= 500:
        return Sent(False, status, f"HTTP {status}", again=True, wait_s=_retry_after(answer.headers.get("Retry-After")))
    return Sent(False, status, f"HTTP {status}")


def _scrub(message: str, url: str) -> str:
    """An error's text without the webhook's URL or its path (where a token lives)."""
    path = httpx.URL(url).raw_path.decode(errors="replace")
    out = message.replace(url, "<webhook>")
    if len(path) > 1:
        out = out.replace(path, "/<path>")
    return out[:300]


# -- the deliverer ----------------------------------------------------------------------------


class Walker:
    """One match's record walked by the engine in this process, and its changes built so far
    (kept from the earliest entry a webhook still needs)."""

    def __init__(self, match_id: str, meta: Meta) -> None:
        self.match_id, self.meta = match_id, meta
        self.game = GAMES[meta.game]
        self.lock = threading.Lock()
        self.end_marked = False
        self._reset()

    def _reset(self) -> None:
        self.walked = 0
        self.position: Any = None
        self.ids = Ids()
        self.built: dict[int, Change] = {}

    def get(self, store: Store, index: int) -> Change:
        """Record entry ``index`` (from 0) as a change; Gone when the record does not have it."""
        with self.lock:
            found = self.built.get(index)
            if found is not None:
                return found
            if index < self.walked:  # dropped already: walk again from the start
                self._reset()
            raw = store.record(self.match_id, self.walked, index)
            if len(raw) < index - self.walked + 1:
                raise Gone(self.match_id)
            entries = referee.entries_of(raw)
            for step in referee.walk(self.game, self.meta, entries, self.position):
                made = step_events(self.meta.game, self.meta, step, self.ids)
                stream = [{"id": event_id, **data} for _, event_id, data in made]
                before, after = self.game.dump(step.before), self.game.dump(step.after)
                moves = referee.record_moves([step.entry])
                move = moves[0] if moves and moves[0].split()[0] not in RESERVED else None
                ended = after["status"] == "finished" and before["status"] != "finished"
                self.built[self.walked] = Change(
                    self.match_id, self.meta, self.walked + 1, after["ply"], before, after, step.events, stream, move, ended
                )
                self.position = step.after
                self.walked += 1
            return self.built[index]

    def forget_before(self, index: int) -> None:
        with self.lock:
            for k in [k for k in self.built if k < index]:
                del self.built[k]


class Wake(Hub):
    """The hub's one pub/sub connection (service/matches/hub.py), which every commit publishes on:
    here it wakes the deliverer whenever any match changes."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self.changed = threading.Event()

    def notify(self, match_id: str | None = None) -> None:
        self.changed.set()
        super().notify(match_id)


class Deliverer:
    """Posts the changes of every match with webhooks, on every master, from a pool of threads."""

    def __init__(self, app: Flask, store: Store) -> None:
        cfg = app.config
        self.app, self.store = app, store
        self.owner = secrets.token_hex(8)  # this deliverer, in the leases it takes
        self.poll_s = float(cfg["WEBHOOK_POLL_S"])
        self.tries = max(1, int(cfg["WEBHOOK_TRIES"]))
        self.backoff_s, self.backoff_max_s = float(cfg["WEBHOOK_BACKOFF_S"]), float(cfg["WEBHOOK_BACKOFF_MAX_S"])
        self.max_bytes = int(cfg["WEBHOOK_MAX_BYTES"])
        self.public = str(cfg["PUBLIC_URL"] or "")
        self.timeout_s = timeout = float(cfg["WEBHOOK_TIMEOUT_S"])
        self.down: set[str] = set()  # masters whose last look failed (warned once, until they answer)
        # No redirects, no proxy or .netrc from the environment, certificates verified.
        self.client = httpx.Client(
            timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=False, verify=True,
            limits=httpx.Limits(max_connections=int(cfg["WEBHOOK_THREADS"]) * 2, max_keepalive_connections=8),
        )  # fmt: skip
        self.pool = ThreadPoolExecutor(max_workers=max(1, int(cfg["WEBHOOK_THREADS"])), thread_name_prefix="webhook")
        self.lock = threading.Lock()
        self.running: set[tuple[str, int]] = set()
        self.walkers: dict[str, Walker] = {}
        self.wake = Wake(store)
        for name in ("httpx", "httpcore"):  # their INFO and DEBUG lines name the URL, a secret
            logging.getLogger(name).setLevel(logging.WARNING)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.client.close()

    def allow(self) -> frozenset[tuple[str, int | None]]:
        return outbox.allowed(str(self.app.config["WEBHOOK_ALLOW"] or ""))

    def round(self) -> int:
        """Look at every master once and start a post for each webhook with a change due;
        returns how many were started."""
        started = 0
        seen: set[str] = set()
        for name, (client, shards) in self.store.masters().items():
            try:
                secs, micros = client.time()  # the time the outbox's scripts go by (not a test's fake clock)
                now = int(secs) * 1000 + int(micros) // 1000
                rows = outbox.pending(self.store, client, shards)
            except redis.RedisError as e:
                if name not in self.down:
                    log.warning("webhooks: master %s is not answering (%s); posting for the others", name, e)
                    self.down.add(name)
                continue
            self.down.discard(name)
            for match_id, raw, length in rows:
                seen.add(match_id)
                hooks = outbox.hooks_of(raw)
                cursors = [int(raw.get(f"c:{i}", 0)) for i in range(len(hooks))]
                walker = self.walkers.get(match_id)
                if walker is not None:
                    walker.forget_before(min(cursors))
                for i, hook in enumerate(hooks):
                    if cursors[i] >= length or int(raw.get(f"due:{i}", 0)) > now or _leased(raw.get(f"lease:{i}"), now):
                        continue
                    with self.lock:
                        if (match_id, i) in self.running:
                            continue
                        self.running.add((match_id, i))
                    self.pool.submit(self._task, match_id, i, hook, cursors[i], length)
                    started += 1
        with self.lock:
            for gone in set(self.walkers) - seen:
                del self.walkers[gone]
        return started

    def _walker(self, match_id: str) -> Walker:
        with self.lock:
            found = self.walkers.get(match_id)
        if found is None:
            meta = Meta.from_json(self.store.read(match_id).meta)
            with self.lock:
                found = self.walkers.setdefault(match_id, Walker(match_id, meta))
        return found

    def _task(self, match_id: str, webhook: int, hook: Hook, cursor: int, length: int) -> None:
        try:
            walker = self._walker(match_id)
            for _ in range(BATCH):
                if cursor >= length or not self._deliver(walker, webhook, hook, cursor):
                    return
                cursor += 1
                self.wake.changed.set()  # a change made while this one was posted is looked for at once
        except Gone:
            pass  # the match expired: its outbox goes with it
        except renderer.Busy:  # every renderer busy: the next round takes it up (nothing was claimed)
            log.debug("webhooks: match %s waits for a renderer", match_id)
        except redis.RedisError as e:
            log.warning("webhooks: match %s not posted this round (%s)", match_id, e)
        except Exception:  # one match's fault must not stop every other match's posts
            log.exception("webhooks: match %s could not be posted", match_id)
        finally:
            with self.lock:
                self.running.discard((match_id, webhook))

    def _deliver(self, walker: Walker, webhook: int, hook: Hook, cursor: int) -> bool:
        """One try of record entry ``cursor`` to one webhook; True when it moved on (posted or given up)."""
        store, match_id = self.store, walker.match_id
        change = walker.get(store, cursor)
        if change.ended and not walker.end_marked:
            outbox.mark_end(store, match_id, change.seq)
            walker.end_marked = True
        refused = outbox.refusal(hook.url, self.allow())
        request = None if refused is not None else self._request(hook, change)
        attempt = outbox.claim(store, match_id, webhook, cursor, self.owner)
        if not attempt:
            return False  # posted already, another deliverer has it, or not due yet
        if refused is not None or request is None:
            sent = Sent(False, None, refused or "nothing to post")
        else:
            sent = send(self.client, hook, request, f"{match_id}:{change.seq}", self.max_bytes, self.timeout_s)
        if sent.ok:
            return outbox.finish(store, match_id, webhook, cursor, self.owner, "ok")
        again = sent.again and attempt < self.tries
        wait_s = min(self.backoff_max_s, max(self.backoff_s * 2 ** (attempt - 1), sent.wait_s))
        failure = {
            "webhook": webhook,
            "at": referee.iso(int(time.time() * 1000)),
            "seq": change.seq,
            "event": change.stream[0]["id"] if change.stream else None,
            "ply": change.ply,
            "attempt": attempt,
            "status": sent.status,
            "error": sent.error,
            "gave_up": not again,
        }
        log.warning(
            "webhooks: %s post of match %s change %d to %s failed (try %d): %s",
            hook.format, match_id, change.seq, hook.host, attempt, sent.error,
        )  # fmt: skip
        outcome = "retry" if again else "fail"
        moved = outbox.finish(store, match_id, webhook, cursor, self.owner, outcome, round(wait_s * 1000), failure)
        return moved and not again

    def _request(self, hook: Hook, change: Change) -> dict[str, Any]:
        if hook.format == "discord":
            return discord_request(change, change.png(self.app))
        if hook.format == "slack":
            return slack_request(change, self.public)
        return {"json": json_payload(change, change.png(self.app), self.public)}

    def run(self, stop: threading.Event) -> None:
        """Post until ``stop`` is set: a round as soon as any match changes (the hub's pub/sub
        wake), else every ``WEBHOOK_POLL_S`` (retries falling due, a wake-up lost), at most one
        round every ``MIN_ROUND_S``."""
        self.wake._start()
        try:
            while not stop.is_set():
                started = time.monotonic()
                self.wake.changed.clear()
                try:
                    self.round()
                except Exception:  # a round that fails is tried again: the next poll
                    log.exception("webhooks: a round failed")
                until = started + self.poll_s
                while not stop.is_set() and not self.wake.changed.is_set() and time.monotonic() < until:
                    self.wake.changed.wait(min(0.5, max(0.0, until - time.monotonic())))
                stop.wait(max(0.0, started + MIN_ROUND_S - time.monotonic()))
        finally:
            self.wake.stop()


def _leased(lease: str | None, now: int) -> bool:
    return lease is not None and int(lease.rsplit(" ", 1)[-1]) > now


@click.command("deliver")
def deliver_command() -> None:
    """Post every change of matches with webhooks to them (issue 22)."""
    app = this_app()
    for attempt in range(10**9):  # a deliverer started before its Redis waits for it
        try:
            store = get_store(app)
            store.ping()
            break
        except redis.RedisError as e:
            if attempt % 10 == 0:
                log.warning("webhooks: Redis is not reachable yet (%s); waiting for it", e)
            time.sleep(1.0)
    log.info("posting to webhooks every %.2f s at most", float(app.config["WEBHOOK_POLL_S"]))
    stop = threading.Event()
    deliverer = Deliverer(app, store)
    try:
        deliverer.run(stop)
    except KeyboardInterrupt:
        stop.set()
    finally:
        deliverer.close()
        db.close(app)  # the renderer processes, the hub, Redis's connections
