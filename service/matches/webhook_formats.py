"""What is posted to a match's webhooks, in each format (issue 22; issue 34 item 6).

One post per record entry (a change: a move, a flag, a pass, a resignation,
an abort, an umpire's control): a move that ends the game is one post whose
events are the move's and the end's, not two posts of the same picture.

Refused attempts (``illegal`` entries that changed nothing: a match's
``illegal: reject``) are posted too, an umpire wants to see them, but bounded: the refused
attempts waiting for a webhook are one post, without a picture (the board has
not changed since the post before), announcing the first ``REFUSALS_SHOWN`` and
counting the rest (``json``: the first ``REFUSALS_LISTED`` events, and
``last_seq``), at most ``REFUSALS_MOST`` of them (service/matches/deliverer.py,
which decides when such a post goes: while the turn runs, one per
``WEBHOOK_REFUSALS_S`` at most).

:func:`payload` is the one door: a change and a format in, the request's body
out (``discord``: Discord's execute-webhook request; ``slack``: Slack's
incoming-webhook JSON; ``json``: openapi.yaml ``WebhookPayload``).
"""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass, field
from typing import Any

import orjson
from flask import Flask

from service.api.pictures import render_pool
from service.matches.description import Description
from views.posts import DISCORD_LIMIT

Json = dict[str, Any]
ALT_MAX = 1024  # characters of a Discord attachment's description
SLACK_SECTION = 3000  # characters of a Slack section block's text
REFUSALS_SHOWN = 3  # refused attempts a post announces one by one; the rest are counted
REFUSALS_LISTED = 20  # refused attempts' events in a json payload; the rest are in the record


@dataclass
class Change:
    """What one post says: the description of one record entry (``d``: service/matches/description.py
    ``describe_step``, the one every channel writes), or of a run of ``refused`` refused attempts
    (entries ``d.seq`` to ``last``) told as one: the first's description with the events and
    announcements of those it announces one by one (REFUSALS_SHOWN) and the clocks after the last
    (service/matches/deliverer.py ``Walker``).  What the webhooks add on top of it: the run, the
    event stream's events with their ids, and the posts and picture made of it, kept and counted."""

    d: Description
    last: int  # the last record entry posted (``d.seq`` but for a run of refused attempts)
    stream: list[Json]  # the event stream's events of the entries, each with its id (at most REFUSALS_LISTED)
    refused: int = 0  # a run of refused attempts: how many
    followed: bool = True  # a run of refused attempts: another change follows it in the record (the turn went on)
    _posts: dict[str, str] = field(default_factory=dict)
    _png: bytes | None = None
    _json_bytes: int | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def match_id(self) -> str:
        return self.d.match_id

    @property
    def seq(self) -> int:
        """The first record entry posted, from 1."""
        assert self.d.seq is not None
        return self.d.seq

    @property
    def entries(self) -> int:
        return self.last - self.seq + 1

    @property
    def pictured(self) -> bool:
        """A post with the board when the position changed (a move, a take-back, an end); not for refused
        attempts nor a control of the clocks or the links, which leave the board as the post before showed
        it (issue 35: a pause, the time given and the resumption posted three identical pictures)."""
        return not self.refused and self.d.board_changed

    def post(self, fmt: str, png_url: str | None = None) -> str:
        key = f"{fmt} {png_url}"
        with self.lock:
            found = self._posts.get(key)
            if found is None:
                found = self._posts[key] = _counted(self.d.post(fmt, png_url), self, fmt)
            return found

    def png(self, app: Flask) -> bytes:
        """The picture after the change (renderer.Busy when the pool is full or it is not drawn in time)."""
        with self.lock:
            if self._png is None:
                self._png = render_pool(app).render(self.d.svg(), None)
            return self._png

    def kept_bytes(self) -> int:
        """What this change holds, in bytes about: its description's states, events, announcements and
        clocks and its stream (as JSON), its posts, its picture."""
        if self._json_bytes is None:
            d = self.d
            self._json_bytes = len(orjson.dumps([d.before, d.after, d.events, d.announcements, d.clock, self.stream]))
        return self._json_bytes + len(self._png or b"") + sum(len(p) for p in self._posts.values())


def _counted(text: str, change: Change, fmt: str) -> str:
    """The post of a run of refused attempts with those it did not announce counted at its end."""
    more = change.refused - min(change.refused, REFUSALS_SHOWN)
    if not more:
        return text
    first = change.seq + REFUSALS_SHOWN
    which = f"change {first}" if first == change.last else f"changes {first} to {change.last}"
    note = f"… and {more} more refused attempt{'s' if more > 1 else ''} ({which})."
    room = DISCORD_LIMIT - len(note) - 2 if fmt == "discord" else len(text)
    body = text.rstrip("\n")
    return (body if len(body) <= room else body[: room - 1] + "…") + "\n\n" + note + "\n"


def picture_url(public: str, change: Change) -> str | None:
    """The change's picture at the service's public address (``PUBLIC_URL``), when it has one and
    the post shows one."""
    if not public or not change.pictured:
        return None
    shown = change.d.picture_ply
    query = "" if shown is None else f"?ply={shown}"
    return f"{public.rstrip('/')}/v1/matches/{change.match_id}/board.png{query}"


def discord_request(change: Change, png: bytes | None) -> dict[str, Any]:
    """Discord's execute-webhook request: with a picture, multipart/form-data: ``payload_json`` (the
    post in Discord's Markdown, no mentions, an embed showing the attachment) and ``files[0]``, the
    PNG; without (refused attempts), JSON: the post, no mentions."""
    content = {"content": change.post("discord"), "allowed_mentions": {"parse": []}}
    if png is None:
        return {"json": content}
    payload = {
        **content,
        "embeds": [{"image": {"url": "attachment://board.png"}}],
        "attachments": [{"id": 0, "filename": "board.png", "description": change.d.alt_text()[:ALT_MAX]}],
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
    summary = " ".join([heading, *change.d.announcements])
    body = slack_escape(post.rstrip("\n")).replace("```", "'''")  # nothing a player named closes the block
    if len(body) > SLACK_SECTION - 8:
        body = body[: SLACK_SECTION - 9] + "…"
    blocks: list[Json] = [{"type": "section", "text": {"type": "mrkdwn", "text": f"```\n{body}\n```"}}]
    if url is not None:
        blocks.append({"type": "image", "image_url": url, "alt_text": heading[:2000]})
    return {"json": {"text": slack_escape(summary)[:3000], "blocks": blocks}}


def json_payload(change: Change, png: bytes | None, public: str) -> Json:
    """The service's own payload (openapi.yaml ``WebhookPayload``)."""
    url = picture_url(public, change)
    return {
        "match_id": change.match_id,
        "game": change.d.meta.game,
        "seq": change.seq,
        "last_seq": change.last,
        "ply": change.d.ply,
        "events": change.stream,
        "announcements": change.d.announcements,
        "post": change.post("markdown", url),
        "picture": None if png is None else base64.b64encode(png).decode(),
        "picture_url": url,
    }


def payload(change: Change, fmt: str, app: Flask, public: str) -> dict[str, Any]:
    """The request's body (``httpx`` keywords: ``json``, or ``data`` and ``files``) posting ``change``
    to a webhook of format ``fmt``; renderer.Busy when its picture is not drawn in time."""
    if fmt == "slack":
        return slack_request(change, public)
    png = change.png(app) if change.pictured else None
    if fmt == "discord":
        return discord_request(change, png)
    return {"json": json_payload(change, png, public)}
