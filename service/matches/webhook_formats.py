"""What is posted to a match's webhooks for one change, in each format (issue 22).

One post per record entry (a change: a move, a flag, a pass, a resignation,
an illegal attempt, an abort, an umpire's control): a move that ends the game
is one post whose events are the move's and the end's, not two posts of the
same picture.  :func:`payload` is the one door: a change and a format in, the
request's body out (``discord``: Discord's execute-webhook multipart request;
``slack``: Slack's incoming-webhook JSON; ``json``: openapi.yaml ``WebhookPayload``).
"""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass, field
from typing import Any

import orjson
from flask import Flask

import views
from service.api.pictures import render_pool
from service.matches.history import picture_ply
from service.matches.referee import Meta

Json = dict[str, Any]
SLACK_SECTION = 3000  # characters of a Slack section block's text


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


def payload(change: Change, fmt: str, app: Flask, public: str) -> dict[str, Any]:
    """The request's body (``httpx`` keywords: ``json``, or ``data`` and ``files``) posting ``change``
    to a webhook of format ``fmt``; renderer.Busy when every renderer is busy (tried next round)."""
    if fmt == "discord":
        return discord_request(change, change.png(app))
    if fmt == "slack":
        return slack_request(change, public)
    return {"json": json_payload(change, change.png(app), public)}
