"""One try of one post to a webhook (issue 22): what is sent, what of the answer is read, and
whether to try again.

Outbound requests are a door into the operator's network: no redirects, at most
``WEBHOOK_MAX_BYTES`` sent and ``ANSWER_BYTES`` of an answer read, certificates
verified, no proxy or ``.netrc`` from the environment (:func:`client`).  An error never names the webhook's URL (a
Discord webhook's holds its token): only its host is ever answered or logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import email.utils
import logging
import re
import time
from dataclasses import dataclass
from typing import Any

import httpx

from service.matches.outbox import Hook

log = logging.getLogger(__name__)

ANSWER_BYTES = 4096  # of a receiver's answer, at most this much is read
USER_AGENT = "umpire-webhooks/1"


@dataclass(frozen=True, slots=True)
class Sent:
    """How a try went: posted, or why not, and whether to try again (after ``wait_s`` at least)."""

    ok: bool
    status: int | None = None
    error: str | None = None
    again: bool = False
    wait_s: float = 0.0


DELAY_SECONDS = re.compile(r"[0-9]{1,10}")  # RFC 9110's delay-seconds: ASCII digits only ("²" is a digit to str.isdigit)


def retry_after(raw: str | None) -> float:
    """The seconds a ``Retry-After`` asks for (RFC 9110 10.2.3: delay-seconds or an HTTP-date),
    0 when it asks for none that can be read: whatever a receiver sends, never an error."""
    if raw is None:
        return 0.0
    text = raw.strip()
    if DELAY_SECONDS.fullmatch(text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return 0.0
    if when.tzinfo is None:  # an HTTP-date is always GMT
        when = when.replace(tzinfo=datetime.UTC)
    return max(0.0, when.timestamp() - time.time())


def client(deadline_s: float) -> httpx.AsyncClient:
    """The deliverer's HTTP client: no redirects, no proxy or .netrc from the environment,
    certificates verified, and no cap of its own on connections (the deliverer's lines per
    host bound them), so that a try never waits for one."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(deadline_s), follow_redirects=False, trust_env=False, verify=True,
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=16),
    )  # fmt: skip


async def send(
    client: httpx.AsyncClient, hook: Hook, request: dict[str, Any], delivery: str, max_bytes: int, deadline_s: float
) -> Sent:
    """One try of one post, within one deadline, ``deadline_s`` from its start to its answer's
    headers, whatever the receiver does (httpx bounds each read, not a whole request: a receiver
    that trickles a header byte a second would hold a try for ever; encode/httpx#1450); then at
    most ``ANSWER_BYTES`` of the answer, read until the same deadline (its status is what counts).
    No redirect followed, at most ``max_bytes`` sent.  An error never names the URL."""
    headers = {"User-Agent": USER_AGENT, "X-Umpire-Delivery": delivery}
    try:
        built = client.build_request("POST", hook.url, headers=headers, **request)
        size = int(built.headers.get("Content-Length") or 0)
        if size > max_bytes:
            return Sent(False, None, f"the post is {size} bytes, over WEBHOOK_MAX_BYTES ({max_bytes})")
        async with asyncio.timeout(deadline_s) as deadline:
            answer = await client.send(built, stream=True)
        try:
            async with asyncio.timeout_at(deadline.when()):
                read = 0
                async for chunk in answer.aiter_raw():
                    read += len(chunk)
                    if read >= ANSWER_BYTES:
                        break  # the status is what counts: the rest of the answer is not read
        except TimeoutError:
            pass  # an answer that drips: cut at the deadline, its status stands
        finally:
            await answer.aclose()
    except (TimeoutError, httpx.TimeoutException):
        return Sent(False, None, f"timed out: no answer within WEBHOOK_TIMEOUT_S ({deadline_s:g} s)", again=True)
    except httpx.HTTPError as e:
        return Sent(False, None, _scrub(f"{type(e).__name__}: {e}", hook.url), again=True)
    except Exception as e:  # anything else (a URL the client refuses, a bug) is a failed try too, never a stuck one
        if not isinstance(e, httpx.InvalidURL):
            log.warning("webhooks: a try to %s failed unexpectedly", hook.host, exc_info=True)
        return Sent(False, None, _scrub(f"{type(e).__name__}: {e}", hook.url), again=True)
    status = answer.status_code
    if 200 <= status < 300:
        return Sent(True, status)
    if 300 <= status < 400:
        return Sent(False, status, f"HTTP {status}: a redirect, which is not followed")
    if status in (408, 429) or status >= 500:
        return Sent(False, status, f"HTTP {status}", again=True, wait_s=retry_after(answer.headers.get("Retry-After")))
    return Sent(False, status, f"HTTP {status}")


def _scrub(message: str, url: str) -> str:
    """An error's text without the webhook's URL or its path (where a token lives), as written
    or as the client encodes it."""
    out = message.replace(url, "<webhook>")
    paths = {"/" + url.partition("//")[2].partition("/")[2]}
    with contextlib.suppress(Exception):  # a URL the client refuses: its path as written is all there is
        paths.add(httpx.URL(url).raw_path.decode(errors="replace"))
    for path in sorted(paths, key=len, reverse=True):
        if len(path) > 1:
            out = out.replace(path, "/<path>")
    return out[:300]
