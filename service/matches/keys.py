"""Where a managed match lives in Redis: its shard and the names of its keys.

A match id starts with its shard, two hex digits (256 shards); every key of
a match, and its shard's deadline and index sets, carry the shard's hash tag
``{sXX}``, so each Lua script touches one cluster slot (the key layout:
service/matches/store.py).
"""

from __future__ import annotations

import re
import secrets

SHARDS = 256
MATCH_ID = re.compile(r"^[0-9a-f]{2}[A-Za-z0-9_-]{16}$")


def beat_ms(beat: str) -> int:
    """The time of a shard's beat, ms (service/matches/liveness.py; an older form was ``ms:r``)."""
    return int(beat.split(":")[0])


def new_match_id() -> str:
    """A shard (uniform over the 256) and 96 random bits."""
    return f"{secrets.randbelow(SHARDS):02x}{secrets.token_urlsafe(12)}"


def shard_of(match_id: str) -> int:
    return int(match_id[:2], 16)


def valid_id(match_id: str) -> bool:
    return bool(MATCH_ID.match(match_id))


class Keys:
    """The names of the keys under ``prefix`` (``REDIS_PREFIX``)."""

    def __init__(self, prefix: str) -> None:
        if "{" in prefix or "}" in prefix:
            raise ValueError("REDIS_PREFIX may not hold braces: they would change the keys' hash tags")
        self.prefix = prefix

    def tag(self, shard: int) -> str:
        return f"{self.prefix}{{s{shard:02x}}}"

    def key(self, match_id: str) -> str:
        return f"{self.tag(shard_of(match_id))}:m:{match_id}"

    def keys(self, match_id: str) -> tuple[str, str, str]:
        """The match's hash, record and idempotency keys."""
        key = self.key(match_id)
        return key, key + ":rec", key + ":idem"

    def deadlines(self, shard: int) -> str:
        return f"{self.tag(shard)}:deadlines"

    def beat_key(self, shard: int) -> str:
        return f"{self.tag(shard)}:beat"

    def deadlines_of(self, match_id: str) -> str:
        return self.deadlines(shard_of(match_id))

    def index(self, shard: int, status: str) -> str:
        return f"{self.tag(shard)}:{status}"

    def channel(self, match_id: str) -> str:
        return f"{self.prefix}ch:{match_id}"

    @property
    def channels(self) -> str:
        """The pattern of every match's channel (the hub listens to it)."""
        return f"{self.prefix}ch:*"

    def channel_match(self, channel: str) -> str:
        return channel[len(self.prefix) + 3 :]

    def hooks(self, match_id: str) -> str:
        """The match's webhooks and their outbox (a hash: service/matches/outbox.py)."""
        return self.key(match_id) + ":hooks"

    def hooked(self, shard: int) -> str:
        """The shard's matches with something still to post to a webhook (a set: service/matches/outbox.py)."""
        return f"{self.tag(shard)}:hooked"

    def pictures_key(self, match_id: str) -> str:
        """The match's cached PNG pictures (a hash: digest -> base64), under its hash tag."""
        return self.key(match_id) + ":pics"
