"""A match's webhooks and their outbox in Redis (issue 22, "Post to the channel by itself").

At creation a match may name up to three webhooks (``{"url", "format"}``,
``discord``, ``slack`` or ``json``); each URL must be http(s) on a host the
operator allows (``WEBHOOK_ALLOW``: a comma-separated list of ``host``, which
allows the scheme's default port, or ``host:port``; empty: no webhooks at all).
The deliverer (service/matches/deliverer.py, in a process of its own) posts every
change of the match there; a move never waits for it.

Keys, all under the match's shard hash tag (one cluster slot, as the match's own):

    {P}{sXX}:m:{id}:hooks       hash  ``list`` (the webhooks as JSON: the URLs are secrets,
                                      never answered nor logged; ``skip_via``: the channel
                                      whose changes a webhook skips), and per webhook i:
                                      ``c:i`` the next record entry to post, ``a:i`` tries
                                      made on it, ``n:i`` the entries the post tried covers
                                      (more than one: refused attempts), ``due:i`` when the
                                      next try may start (ms), ``lease:i`` "owner until_ms"
                                      while a deliverer posts, ``ok:i`` / ``bad:i`` changes
                                      posted / given up, ``err:i`` the last failure (JSON),
                                      ``rp:i`` when refused attempts were last posted (ms);
                                      ``end``: the record's length once the match has ended
    {P}{sXX}:m:{id}:hooks:fail  list  the latest failures (JSON), newest first, at most 50
    {P}{sXX}:hooked             set   the shard's matches with something still to post

The cursor ``c:i`` only moves forward, and only by the deliverer that holds
the webhook's lease (``hook_claim.lua``, ``hook_renew.lua``, ``hook_finish.lua``,
Redis time): two deliverers never post to the same webhook at once, and a
webhook gets the changes in the record's order.  A lease lasts ``LEASE_MS``
and is renewed every second while its try runs, so a deliverer that dies holds
its webhooks a few seconds at most.  The outbox keys expire with the match
(refreshed by each delivery).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson
from flask import Flask, current_app

from service.matches.store import Lua, Store, shard_of
from service.web.errors import ApiError, field_details

SETTINGS: dict[str, tuple[Any, Any]] = {
    "WEBHOOK_ALLOW": (str, ""),  # hosts (host or host:port, comma-separated) webhooks may post to; empty: none
    "WEBHOOK_TIMEOUT_S": (float, 5.0),  # one try, whole: connecting, sending, and the answer (service/matches/webhook_send.py)
    "WEBHOOK_TRIES": (int, 8),  # tries per change and webhook before it is given up
    "WEBHOOK_BACKOFF_S": (float, 1.0),  # the wait after the first failed try; doubled after each
    "WEBHOOK_BACKOFF_MAX_S": (float, 60.0),  # the longest wait between tries
    "WEBHOOK_POLL_S": (float, 1.0),  # the longest a deliverer waits between looks (a change wakes it at once)
    "WEBHOOK_PER_HOST": (int, 4),  # tries under way at once to one host (host:port); retries take half of them at most
    "WEBHOOK_THREADS": (int, 4),  # threads per deliverer that read the records, make the posts and talk to Redis
    "WEBHOOK_REFUSALS_S": (float, 10.0),  # while a turn runs, at most one post of refused attempts this often per webhook
    "WEBHOOK_MAX_BYTES": (int, 8 << 20),  # the largest request a deliverer sends (Discord's own cap is 10 MiB)
    "PUBLIC_URL": (str, ""),  # the service's public address (https://umpire.example.org): Slack's picture link
}
FAILURES_KEPT = 50
LEASE_MS = 3_000  # a try holds its webhook this long unless renewed (every second while it runs: deliverer.py)
DEFAULT_PORTS = {"http": 80, "https": 443}


def init_app(app: Flask) -> None:
    """The webhooks' settings (environment, unless the app's config has them), checked now."""
    import os

    for name, (kind, default) in SETTINGS.items():
        if name in app.config:
            continue
        raw = os.environ.get(name)
        try:
            app.config[name] = default if raw is None or raw == "" else kind(raw)
        except ValueError:
            raise ValueError(f"{name}={raw!r} is not a valid setting") from None
    allowed(str(app.config["WEBHOOK_ALLOW"] or ""))  # a malformed list fails at start, not at the first match


def allowed(setting: str) -> frozenset[tuple[str, int | None]]:
    """``WEBHOOK_ALLOW`` as (host, port) pairs; port None: the scheme's default port."""
    out: set[tuple[str, int | None]] = set()
    for raw in setting.split(","):
        entry = raw.strip().lower()
        if not entry:
            continue
        try:
            parts = urlsplit("//" + entry)
            host, port = parts.hostname, parts.port
        except ValueError:
            host, port = None, None
        if not host or parts.path or parts.query or parts.username is not None or "@" in entry:
            raise ValueError(f"WEBHOOK_ALLOW: {raw.strip()!r} is not a host or host:port")
        out.add((host, port))
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class Hook:
    """One webhook of a match.  ``url`` is a secret (a Discord webhook's holds its
    token): only :attr:`host` is ever answered or logged.  ``skip_via``: the changes made
    through that channel (record.py ``Entry.via``) are not posted, the channel having
    answered them itself (a Discord channel's own webhook, given at ``/match new``: it
    posts what no command answered there); never set through the API."""

    url: str
    format: str
    skip_via: str | None = None

    def skips(self, via: str | None) -> bool:
        """A change made through ``via`` is not posted here."""
        return via is not None and via == self.skip_via

    def to_json(self) -> dict[str, str]:
        out = {"url": self.url, "format": self.format}
        return out if self.skip_via is None else {**out, "skip_via": self.skip_via}

    @property
    def host(self) -> str:
        parts = urlsplit(self.url)
        port = parts.port
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        return host if port is None or port == DEFAULT_PORTS.get(parts.scheme) else f"{host}:{port}"


def refusal(url: str, allow: frozenset[tuple[str, int | None]]) -> str | None:
    """Why the server will not post to ``url``, or None when it may.  The URL is read by the
    deliverer's own HTTP client too (httpx): what it would refuse to send is refused here, at
    creation, and both readings must name the same host and port."""
    try:
        parts = urlsplit(url)
        port = parts.port
        sent = httpx.Request("POST", url).url  # as the deliverer builds its request (service/matches/webhook_send.py)
    except Exception:  # the client refuses it: a control character (DEL too), a bad port, a bad IDNA label...
        return "The URL is not a valid http or https URL."
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return "The URL must be an absolute http or https URL."
    if parts.username is not None or parts.password is not None or sent.userinfo:
        return "The URL must not hold a user name or password."
    if parts.fragment or sent.fragment or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return "The URL must not hold a fragment (#...), spaces or control characters."
    host = parts.hostname.lower()
    default = DEFAULT_PORTS[parts.scheme]
    if (sent.scheme, sent.host.lower(), sent.port or default) != (parts.scheme, host, port or default):
        return "The URL is read two ways (its host or port is ambiguous)."
    if (host, port) in allow or (host, default) in allow or ((port is None or port == default) and (host, None) in allow):
        return None
    shown = f"[{host}]" if _is_v6(host) else host
    where = shown if port is None else f"{shown}:{port}"
    return f"This server does not post to {where}: the host is not in its WEBHOOK_ALLOW setting."


def _is_v6(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).version == 6
    except ValueError:
        return False


def check(hooks: Sequence[Mapping[str, str]], app: Flask | None = None) -> list[Hook]:
    """The webhooks of a new match (as the schema loaded them), or 422 ``webhook_refused``
    naming the first one the server will not post to (``webhooks.0.url``)."""
    if not hooks:
        return []
    cfg = (app or current_app).config
    allow = allowed(str(cfg["WEBHOOK_ALLOW"] or ""))
    if not allow:
        message = "This server posts to no webhooks: its operator has not set WEBHOOK_ALLOW."
        raise ApiError("webhook_refused", message, field_details({"webhooks": [message]}))
    problems = {f"webhooks.{i}.url": [why] for i, h in enumerate(hooks) if (why := refusal(h["url"], allow)) is not None}
    if problems:
        raise ApiError("webhook_refused", next(iter(problems.values()))[0], field_details(problems))
    return [Hook(h["url"], h["format"], h.get("skip_via")) for h in hooks]


# -- the outbox in Redis ----------------------------------------------------------------------


def hooks_key(store: Store, match_id: str) -> str:
    return store.hooks(match_id)


def failures_key(store: Store, match_id: str) -> str:
    return store.key(match_id) + ":hooks:fail"


def index_key(store: Store, shard: int) -> str:
    return store.hooked(shard)


def expiry_s(store: Store) -> int:
    """The outbox lives as long as the match can (refreshed by every delivery)."""
    return max(store.ttl_s, store.idle_ttl_s)


class Scripts:
    """The outbox's Lua scripts on a store's client."""

    def __init__(self, store: Store) -> None:
        self.add = Lua(store.r, "hook_add.lua")
        self.claim = Lua(store.r, "hook_claim.lua")
        self.renew = Lua(store.r, "hook_renew.lua")
        self.finish = Lua(store.r, "hook_finish.lua")


def _scripts(store: Store) -> Scripts:
    found: Scripts | None = getattr(store, "_hook_scripts", None)
    if found is None:
        found = Scripts(store)
        store._hook_scripts = found  # type: ignore[attr-defined]  # one set per store (its client)
    return found


def register(store: Store, match_id: str, hooks: Sequence[Hook], finished: bool = False) -> None:
    """Keep a new match's webhooks and put it in its shard's index of matches to post for
    (``finished``: created over, a set-up position that is decided: nothing will come)."""
    listed = orjson.dumps([h.to_json() for h in hooks]).decode()
    keys = [hooks_key(store, match_id), index_key(store, shard_of(match_id))]
    _scripts(store).add(keys, [listed, match_id, expiry_s(store), "0" if finished else ""])


def hooks_of(raw: Mapping[str, str]) -> list[Hook]:
    """The webhooks in an outbox hash as read (none when it has expired)."""
    listed = raw.get("list")
    return [] if not listed else [Hook(h["url"], h["format"], h.get("skip_via")) for h in orjson.loads(listed)]


def read(store: Store, match_id: str) -> dict[str, str]:
    """A match's outbox hash (empty: no webhooks)."""
    found: dict[str, str] = store.r.hgetall(hooks_key(store, match_id))
    return found


def failures(store: Store, match_id: str) -> list[dict[str, Any]]:
    """The latest failures of every webhook of the match, newest first."""
    return [orjson.loads(x) for x in store.r.lrange(failures_key(store, match_id), 0, FAILURES_KEPT - 1)]


def claim(store: Store, match_id: str, webhook: int, cursor: int, entries: int, owner: str) -> tuple[int, int]:
    """Take webhook ``webhook``'s lease to post ``entries`` record entries from ``cursor``:
    ``(try, entries)``, the try's number (1, 2, ...), or ``(0, fixed)`` when it is not to be posted
    now (posted already, leased by another deliverer, its next try not due yet, or a try of it
    covered ``fixed`` entries: the post is made again as it was)."""
    keys = [hooks_key(store, match_id)]
    attempt, fixed = _scripts(store).claim(keys, [webhook, cursor, owner, LEASE_MS, entries])
    return int(attempt), int(fixed)


def renew(store: Store, match_id: str, webhook: int, cursor: int, owner: str) -> bool:
    """Keep a claimed lease ``LEASE_MS`` more; False when it is no longer the caller's."""
    keys = [hooks_key(store, match_id)]
    return bool(_scripts(store).renew(keys, [webhook, cursor, owner, LEASE_MS]))


def finish(
    store: Store,
    match_id: str,
    webhook: int,
    cursor: int,
    owner: str,
    outcome: str,
    wait_ms: int = 0,
    failure: Any = None,
    entries: int = 1,
    refusals: bool = False,
) -> bool:
    """End a claimed try: ``ok`` (the cursor moves on past its ``entries``), ``retry`` (again after
    ``wait_ms``), ``fail`` (given up: the cursor moves on) or ``skip`` (not to be posted to this
    webhook, :meth:`Hook.skips`: the cursor moves on); ``failure`` is recorded; ``refusals``:
    the post was of refused attempts (its time is kept).  False when the lease was lost."""
    keys = [hooks_key(store, match_id), failures_key(store, match_id)]
    text = "" if failure is None else orjson.dumps(failure).decode()
    args: list[str | int] = [webhook, cursor, owner, outcome, wait_ms, text, FAILURES_KEPT, expiry_s(store)]
    args += [entries, int(refusals)]
    return bool(_scripts(store).finish(keys, args))


def mark_end(store: Store, match_id: str, length: int) -> None:
    """The match ended with ``length`` record entries: once each webhook has them, it leaves the index."""
    store.r.hset(hooks_key(store, match_id), "end", length)


def pending(store: Store, client: Any, shards: Sequence[int]) -> list[tuple[str, dict[str, str], int]]:
    """On one master: each indexed match of ``shards`` with its outbox hash and its record's
    length.  Matches with nothing left to post (ended and all posted, or expired) leave the index."""
    pipe = client.pipeline(transaction=False)
    for shard in shards:
        pipe.smembers(index_key(store, shard))
    ids = sorted(m for found in pipe.execute() for m in found)
    if not ids:
        return []
    pipe = client.pipeline(transaction=False)
    for match_id in ids:
        pipe.hgetall(hooks_key(store, match_id))
        pipe.llen(store.keys(match_id)[1])
    rows = pipe.execute()
    out: list[tuple[str, dict[str, str], int]] = []
    done: list[str] = []
    for i, match_id in enumerate(ids):
        raw, length = rows[2 * i], int(rows[2 * i + 1])
        hooks = hooks_of(raw)
        end = raw.get("end")
        cursors = [int(raw.get(f"c:{w}", 0)) for w in range(len(hooks))]
        # Past the end only when the record ends there: a take-back that reopened the game wrote after it.
        if not hooks or (end is not None and length <= int(end) and all(c >= int(end) for c in cursors)):
            done.append(match_id)
            continue
        out.append((match_id, raw, length))
    if done:
        pipe = client.pipeline(transaction=False)
        for match_id in done:
            pipe.srem(index_key(store, shard_of(match_id)), match_id)
        pipe.execute()
    return out
