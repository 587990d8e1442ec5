"""Helpers for the managed-match tests (a module of its own, so test files can
import it: the fixtures themselves live in conftest.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis
from flask.testing import FlaskClient

START_MS = 1_800_000_000_000  # an arbitrary fixed "now" for the fake clock


@dataclass
class FakeClock:
    """Time in ms that moves only when told to."""

    ms: int = START_MS

    def __call__(self) -> int:
        return self.ms

    def advance(self, seconds: float) -> None:
        self.ms += round(seconds * 1000)


def cleanup(url: str, prefix: str, cluster: bool = False) -> None:
    """Delete a test's keys (on a cluster, from every node, one key at a time: they live in many slots)."""
    client: Any = redis.RedisCluster.from_url(url) if cluster else redis.Redis.from_url(url)
    try:
        for key in list(client.scan_iter(match=prefix + "*", count=1000)):
            client.delete(key)
    finally:
        client.close()


@dataclass
class Match:
    """A match created through the API, with its seats' auth headers."""

    client: FlaskClient
    id: str
    tokens: tuple[str, str]
    created: dict[str, Any] = field(repr=False)

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def move(self, seat: int, move: Any, ply: int, **headers: str) -> Any:
        return self.client.post(
            f"/v1/matches/{self.id}/moves", json={"move": move, "ply": ply}, headers={**self.auth(seat), **headers}
        )

    def get(self, **query: Any) -> Any:
        return self.client.get(f"/v1/matches/{self.id}", query_string=query)

    def state(self) -> dict[str, Any]:
        r = self.get()
        assert r.status_code == 200, r.json
        state: dict[str, Any] = r.json["state"]
        return state

    def record(self) -> dict[str, Any]:
        r = self.client.get(f"/v1/matches/{self.id}/moves")
        assert r.status_code == 200, r.json
        rec: dict[str, Any] = r.json
        return rec

    def resign(self, seat: int) -> Any:
        return self.client.post(f"/v1/matches/{self.id}/resign", headers=self.auth(seat))


NewMatch = Callable[..., Match]


def sse_events(text: str) -> list[tuple[str, str, Any]]:
    """The events of a text/event-stream answer: ``(event, id, data)``, comments and ``retry`` left out."""
    out = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            out.append((fields["event"], fields["id"], json.loads(fields["data"])))
    return out
