"""A webhook's far end on loopback, for the tests of webhooks (tests/matches/test_webhooks.py) and
of the page's end-to-end run (tests/browser/test_page_umpire.py): a threaded WSGI server that
checks each format's documented payload as it arrives and keeps what it accepted."""

from __future__ import annotations

import base64
import io
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from openapi_check import SpecChecker
from PIL import Image
from werkzeug.serving import BaseWSGIServer, make_server
from werkzeug.wrappers import Request, Response

from umpire.server import free_port

Json = dict[str, Any]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TOKEN = "s3cr3t-t0ken-of-the-webhook"  # in the path, as a Discord webhook's token is


def until(done: Callable[[], bool], timeout: float = 15.0, what: str = "") -> None:
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, f"timed out waiting for {what or done}"
        time.sleep(0.02)


# The stream's events of a change that leaves the board as it was: an umpire's control of the clocks, the
# seats or the links, a flag that only opened R-X6's window (service/matches/webhook_formats.py ``pictured``).
CONTROL_EVENTS = ("start", "pause", "resume", "add_time", "token", "add_umpire", "remove_umpire")


def unpictured(event: Json) -> bool:
    return bool(event["type"] in CONTROL_EVENTS or (event["type"] == "flag" and event["clock"]["proxy"]))


@dataclass
class Receiver:
    """A webhook's far end: checks each request against ``fmt``'s documented shape, answers as
    ``plan`` says (one word per request: ok, 500, hang, 302, 404; then ok), and keeps what it accepted."""

    fmt: str
    spec: SpecChecker
    port: int = field(default_factory=free_port)
    plan: list[str] = field(default_factory=list)
    accepted: list[Json] = field(default_factory=list)  # each accepted request, parsed
    tries: list[str] = field(default_factory=list)  # X-Umpire-Delivery of every request, accepted or not
    problems: list[str] = field(default_factory=list)
    hang_s: float = 2.0
    gate: threading.Event = field(default_factory=threading.Event)  # cleared: requests wait for it
    server: BaseWSGIServer | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.gate.set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/webhooks/123/{TOKEN}"

    def start(self) -> Receiver:
        self.server = make_server("127.0.0.1", self.port, self.wsgi, threaded=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def wsgi(self, environ: Any, start_response: Any) -> Any:
        request = Request(environ)
        try:
            return self.answer(request)(environ, start_response)
        finally:
            request.close()  # the upload's temporary file

    def answer(self, request: Request) -> Response:
        self.gate.wait(10)
        with self.lock:
            self.tries.append(request.headers.get("X-Umpire-Delivery", ""))
            step = self.plan.pop(0) if self.plan else "ok"
        if step == "hang":
            time.sleep(self.hang_s)  # past the deliverer's read timeout: it has given up on this try
            return Response("late", status=503)
        if step == "302":
            return Response("", status=302, headers={"Location": f"http://127.0.0.1:{self.port}/elsewhere"})
        if step == "drip":  # a 200 whose body never seems to end: a byte every 0.2 s for 30 s

            def drip() -> Iterator[bytes]:
                for _ in range(150):
                    time.sleep(0.2)
                    yield b"."

            with self.lock:
                self.accepted.append({"delivery": request.headers["X-Umpire-Delivery"], "dripped": True})
            return Response(drip(), status=200)
        if step in ("500", "404"):
            return Response("no", status=int(step))
        if request.path != f"/api/webhooks/123/{TOKEN}":
            self.problems.append(f"posted to {request.path}")
        try:
            got = getattr(self, f"check_{self.fmt}")(request)
        except AssertionError as e:
            self.problems.append(f"{self.fmt}: {e}")
            return Response("bad", status=400)
        with self.lock:
            self.accepted.append({"delivery": request.headers["X-Umpire-Delivery"], **got})
        return Response(status=204)

    def check_discord(self, request: Request) -> Json:
        """Discord's Execute Webhook with a file: multipart/form-data, ``payload_json`` and ``files[0]``;
        without one (refused attempts, a control of the clocks: no picture), JSON: ``content`` and
        ``allowed_mentions``."""
        if request.mimetype == "application/json":
            body = request.get_json()
            assert set(body) == {"content", "allowed_mentions"}, body
            assert isinstance(body["content"], str) and 0 < len(body["content"]) <= 2000
            assert body["allowed_mentions"] == {"parse": []}
            return {"text": body["content"], "png": None, "alt": None, "payload": body}
        assert request.mimetype == "multipart/form-data", request.mimetype
        assert set(request.form) == {"payload_json"} and set(request.files) == {"files[0]"}, (request.form, request.files)
        payload = json.loads(request.form["payload_json"])
        assert set(payload) == {"content", "allowed_mentions", "embeds", "attachments"}, payload
        assert isinstance(payload["content"], str) and 0 < len(payload["content"]) <= 2000
        assert payload["allowed_mentions"] == {"parse": []}
        assert payload["embeds"] == [{"image": {"url": "attachment://board.png"}}]
        assert len(payload["attachments"]) == 1
        assert {k: payload["attachments"][0][k] for k in ("id", "filename")} == {"id": 0, "filename": "board.png"}
        upload = request.files["files[0]"]
        assert upload.filename == "board.png" and upload.mimetype == "image/png"
        png = upload.read()
        assert png.startswith(PNG_MAGIC) and Image.open(io.BytesIO(png)).size[0] > 100
        alt = payload["attachments"][0]["description"]
        assert isinstance(alt, str) and 0 < len(alt) <= 1024  # Discord's limit on an attachment's description
        return {"text": payload["content"], "png": png, "alt": alt, "payload": payload}  # payload: for discord-api-types

    def check_slack(self, request: Request) -> Json:
        """Slack's incoming webhook: JSON with ``text`` and ``blocks`` (a section, an image when linked)."""
        assert request.mimetype == "application/json"
        body = request.get_json()
        assert set(body) == {"text", "blocks"} and isinstance(body["text"], str) and body["text"]
        section = body["blocks"][0]
        assert section["type"] == "section" and section["text"]["type"] == "mrkdwn"
        assert len(section["text"]["text"]) <= 3000 and section["text"]["text"].startswith("```")
        for block in body["blocks"][1:]:
            assert block["type"] == "image" and set(block) == {"type", "image_url", "alt_text"}
            assert len(block["image_url"]) <= 3000 and 0 < len(block["alt_text"]) <= 2000
        return {"text": body["text"], "blocks": body["blocks"]}

    def check_json(self, request: Request) -> Json:
        """The service's own payload: openapi.yaml ``WebhookPayload``."""
        assert request.mimetype == "application/json"
        body = request.get_json()
        errors = self.spec.validate("/components/schemas/WebhookPayload", body)
        assert not errors, errors
        assert request.headers["X-Umpire-Delivery"] == f"{body['match_id']}:{body['seq']}"
        refused = [e for e in body["events"] if e["type"] == "illegal" and e["state"]["status"] == "ongoing"]
        if body["picture"] is None:  # refused attempts, or a change that left the board as it was (issue 35 item 11)
            assert body["picture_url"] is None
            assert (refused and len(refused) == len(body["events"])) or all(unpictured(e) for e in body["events"]), body
            return {"body": body}
        assert not refused and body["last_seq"] == body["seq"] and not any(unpictured(e) for e in body["events"])
        png = base64.b64decode(body["picture"])
        assert png.startswith(PNG_MAGIC)
        return {"body": body}
