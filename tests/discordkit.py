"""A stand-in Discord on loopback, for the tests of the Discord channel (tests/matches/test_discord.py):
it signs interactions with an Ed25519 key the test makes, as Discord signs them, and it receives
what the service sends Discord - the commands' registration, the edits of an answer and the
follow-ups (``/webhooks/{application}/{token}...``), and a channel webhook's posts - checking each
request's documented shape as it arrives and keeping every JSON body for the TypeScript check
against ``discord-api-types`` (:func:`typecheck`).

An edit of an interaction's answer is refused ``404`` (Discord's "Unknown Message") until the
test has received that answer from the service, as Discord refuses an edit of a message it has
not made yet: a service that edited before answering would fail here.
"""

from __future__ import annotations

import io
import json
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hookkit import until
from PIL import Image
from werkzeug.serving import BaseWSGIServer, make_server
from werkzeug.wrappers import Request, Response

from umpire.server import free_port

Json = dict[str, Any]
ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "clients" / "node_modules"
APPLICATION = "1100000000000000001"
BOT_TOKEN = "bot-token-of-the-test"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class Signer:
    """The application's key pair, made by the test: Discord signs with the private half."""

    def __init__(self) -> None:
        self.key = Ed25519PrivateKey.generate()

    @property
    def public_hex(self) -> str:
        return self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()

    def headers(self, body: bytes, timestamp: int | None = None) -> dict[str, str]:
        stamp = str(int(time.time()) if timestamp is None else timestamp)
        return {
            "X-Signature-Ed25519": self.key.sign(stamp.encode() + body).hex(),
            "X-Signature-Timestamp": stamp,
            "Content-Type": "application/json",
        }


@dataclass
class StandIn:
    """Discord's API as the service calls it, on a free port of 127.0.0.1 (``DISCORD_API``)."""

    port: int = field(default_factory=free_port)
    bot_token: str = BOT_TOKEN
    originals: set[str] = field(default_factory=set)  # interaction tokens whose answer Discord has
    edits: dict[str, list[Json]] = field(default_factory=dict)  # token -> each edit (payload, png)
    follow_ups: dict[str, list[Json]] = field(default_factory=dict)
    registrations: list[Json] = field(default_factory=list)
    webhook_posts: list[Json] = field(default_factory=list)
    sent: list[tuple[str, Any]] = field(default_factory=list)  # (discord-api-types type, JSON) of everything received
    problems: list[str] = field(default_factory=list)
    refused: int = 0  # edits refused for an answer not yet given
    plan: list[int] = field(default_factory=list)  # statuses to answer the next edits with (then 200)
    edit_s: float = 0.0  # how long each edit takes to be answered (a slow Discord)
    calls: list[tuple[str, str]] = field(default_factory=list)  # (method, token) of each call on an interaction's webhook
    deleted: set[str] = field(default_factory=set)  # tokens whose answer was deleted
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: BaseWSGIServer | None = None

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def webhook_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/webhooks/42/channel-webhook-token"

    def start(self) -> StandIn:
        self.server = make_server("127.0.0.1", self.port, self.wsgi, threaded=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def answered(self, token: str) -> None:
        with self.lock:
            self.originals.add(token)

    def wsgi(self, environ: Any, start_response: Any) -> Any:
        request = Request(environ)
        try:
            return self.route(request)(environ, start_response)
        except AssertionError as e:
            with self.lock:
                self.problems.append(f"{request.method} {request.path}: {e}")
            return Response(json.dumps({"message": str(e), "code": 50035}), status=400)(environ, start_response)
        finally:
            request.close()

    def route(self, request: Request) -> Response:
        parts = request.path.strip("/").split("/")
        if parts[:2] == ["api", "webhooks"] and len(parts) == 4:  # a channel webhook (execute webhook)
            if request.mimetype == "application/json":  # a change that left the board as it was: no picture
                payload, png = request.get_json(), None
                assert set(payload) == {"content", "allowed_mentions"}, payload
            else:
                payload, png = self.multipart(request)
            with self.lock:
                self.webhook_posts.append({"payload": payload, "png": png})
                self.sent.append(("RESTPostAPIWebhookWithTokenJSONBody", payload))
            return Response(status=204)
        assert parts[:2] == ["api", "v10"], request.path
        rest = parts[2:]
        assert request.headers.get("User-Agent", "").startswith("DiscordBot ("), "Discord asks for a DiscordBot User-Agent"
        if rest[0] == "applications":
            return self.register(request, rest)
        assert rest[0] == "webhooks" and rest[1] == APPLICATION, rest
        assert "Authorization" not in request.headers, "an interaction's webhook needs no bot token"
        token = rest[2]
        with self.lock:
            self.calls.append((request.method, token))
        if request.method == "PATCH" and rest[3:] == ["messages", "@original"]:
            return self.edit(request, token)
        if request.method == "DELETE" and rest[3:] == ["messages", "@original"]:
            with self.lock:
                if token not in self.originals:
                    self.refused += 1
                    return Response(json.dumps({"message": "Unknown Message", "code": 10008}), status=404)
                self.deleted.add(token)
            return Response(status=204)
        assert request.method == "POST" and len(rest) == 3, (request.method, rest)
        body = request.get_json()
        assert set(body) <= {"content", "allowed_mentions", "embeds", "flags"}, body
        with self.lock:
            self.follow_ups.setdefault(token, []).append(body)
            self.sent.append(("RESTPostAPIWebhookWithTokenJSONBody", body))
        return Response(json.dumps({"id": "1", "content": body.get("content", "")}), mimetype="application/json")

    def register(self, request: Request, rest: list[str]) -> Response:
        assert request.method == "PUT" and rest[1] == APPLICATION and rest[-1] == "commands", rest
        assert request.headers.get("Authorization") == f"Bot {self.bot_token}", "registering needs the bot token"
        body = request.get_json()
        with self.lock:
            self.registrations.append({"guild": rest[3] if len(rest) == 5 else None, "commands": body})
            self.sent.append(("RESTPutAPIApplicationCommandsJSONBody", body))
        return Response(json.dumps([{**c, "id": str(i + 1)} for i, c in enumerate(body)]), mimetype="application/json")

    def edit(self, request: Request, token: str) -> Response:
        time.sleep(self.edit_s)
        with self.lock:
            if self.plan:
                status = self.plan.pop(0)
                return Response(json.dumps({"message": "try later", "retry_after": 0.1}), status=status,
                                headers={"Retry-After": "0.1"}, mimetype="application/json")  # fmt: skip
            if token not in self.originals:
                self.refused += 1
                return Response(json.dumps({"message": "Unknown Message", "code": 10008}), status=404)
        if request.mimetype == "multipart/form-data":
            payload, png = self.multipart(request)
        else:
            payload, png = request.get_json(), None
        assert set(payload) <= {"content", "allowed_mentions", "embeds", "attachments"}, payload
        assert len(payload.get("content", "")) <= 2000
        with self.lock:
            self.edits.setdefault(token, []).append({"payload": payload, "png": png})
            self.sent.append(("RESTPatchAPIWebhookWithTokenMessageJSONBody", payload))
        return Response(json.dumps({"id": "1", "content": payload.get("content", "")}), mimetype="application/json")

    @staticmethod
    def multipart(request: Request) -> tuple[Json, bytes]:
        """Discord's upload: ``payload_json`` and ``files[0]``, a PNG the payload's attachment 0 names."""
        assert request.mimetype == "multipart/form-data", request.mimetype
        assert set(request.form) == {"payload_json"} and set(request.files) == {"files[0]"}, (request.form, request.files)
        payload = json.loads(request.form["payload_json"])
        upload = request.files["files[0]"]
        png = upload.read()
        assert upload.mimetype == "image/png" and png.startswith(PNG_MAGIC)
        assert Image.open(io.BytesIO(png)).size[0] > 100
        attachments = payload.get("attachments") or []
        assert [a["id"] for a in attachments] == [0] and attachments[0]["filename"] == upload.filename
        assert {"image": {"url": f"attachment://{upload.filename}"}}.items() <= payload["embeds"][0].items() or any(
            e.get("image") == {"url": f"attachment://{upload.filename}"} for e in payload["embeds"]
        ), payload["embeds"]
        return payload, png

    def edits_of(self, token: str, count: int = 1, timeout: float = 20.0) -> list[Json]:
        until(lambda: len(self.edits.get(token, [])) >= count, timeout, f"{count} edit(s) of {token}")
        return self.edits[token]


TYPES = {
    "APIInteractionResponse",
    "APIApplicationCommandAutocompleteResponse",
    "RESTPutAPIApplicationCommandsJSONBody",
    "RESTPatchAPIWebhookWithTokenMessageJSONBody",
    "RESTPostAPIWebhookWithTokenJSONBody",
}


def typecheck(payloads: list[tuple[str, Any]], folder: Path) -> None:
    """Every payload compiled as a constant of its discord-api-types (v10) type with ``tsc --strict``:
    no cast, so an unknown field (excess property), a wrong type or a missing field fails."""
    assert payloads, "nothing to check"
    assert {kind for kind, _ in payloads} <= TYPES
    lines = [f'import type {{ {", ".join(sorted(TYPES))} }} from "discord-api-types/v10";']
    names = []
    for i, (kind, value) in enumerate(payloads):
        lines.append(f"const p{i}: {kind} = {json.dumps(value, ensure_ascii=False)};")
        names.append(f"p{i}")
    lines.append(f"export {{ {', '.join(names)} }};")
    (folder / "payloads.ts").write_text("\n".join(lines) + "\n", encoding="utf-8")
    link = folder / "node_modules"
    if not link.exists():
        link.symlink_to(NODE_MODULES, target_is_directory=True)
    tsc = NODE_MODULES / ".bin" / "tsc"
    assert tsc.exists(), "clients/node_modules is missing: `make test` installs it (cd clients && npm ci)"
    args = ["--strict", "--noEmit", "--target", "es2020", "--module", "esnext", "--moduleResolution", "bundler", "payloads.ts"]
    done = subprocess.run([str(tsc), *args], cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
