"""One try of one post to a webhook (issue 22): what is sent, what of the answer is read, and
whether to try again.

Outbound requests are a door into the operator's network: no redirects, at most
``WEBHOOK_MAX_BYTES`` sent and ``ANSWER_BYTES`` of an answer read, certificates
verified, no proxy or ``.netrc`` from the environment (the client is made so in
service/matches/deliverer.py).  An error never names the webhook's URL (a
Discord webhook's holds its token): only its host is ever answered or logged.
"""

from __future__ import annotations

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
