"""Running the match store's Lua scripts (service/matches/*.lua), with ``WAIT`` after a write
when REDIS_DURABILITY asks a replica to have it (service/matches/store.py)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

from redis.exceptions import NoScriptError

from service.matches.errors import Unconfirmed

Observe = Callable[[str, float], None]  # a script's name and how long it took (service/web/metrics.py)
AnyRedis = Any  # redis.Redis or redis.RedisCluster


class Lua:
    """A Lua script run by its SHA-1 (``EVALSHA``: the text is not sent each
    time), sent whole (``EVAL``, which also teaches it to that node) when the
    node has forgotten it (a restart, ``SCRIPT FLUSH``, a new cluster node).

    Called through ``execute_command`` directly: redis-py's own ``Script``
    does the same with more bookkeeping per call, and a move makes two.  On a
    cluster, redis-py routes EVALSHA and EVAL by their keys' slot."""

    def __init__(self, client: AnyRedis, name: str, observe: Observe | None = None) -> None:
        self.client = client
        self.name = name.removesuffix(".lua")
        self.text = resources.files("service.matches").joinpath(name).read_text(encoding="utf-8")
        self.sha = hashlib.sha1(self.text.encode()).hexdigest()
        self.observe = observe

    def __call__(self, keys: Sequence[str], args: Sequence[str | int]) -> Any:
        start = time.perf_counter()
        try:
            return self.client.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return self.client.execute_command("EVAL", self.text, len(keys), *keys, *args)
        finally:
            if self.observe is not None:
                self.observe(self.name, time.perf_counter() - start)

    def waited(self, client: Any, keys: Sequence[str], args: Sequence[str | int], replicas: int, wait_ms: int) -> Any:
        """The script and ``WAIT replicas wait_ms`` in one pipeline on ``client`` (a plain client:
        one connection), so that the WAIT covers this very write.  Returns the script's answer;
        raises :class:`Unconfirmed` when fewer replicas than ``replicas`` acknowledged in time."""
        start = time.perf_counter()
        try:
            for attempt in range(2):
                pipe = client.pipeline(transaction=False)
                if attempt == 0:
                    pipe.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)
                else:
                    pipe.execute_command("EVAL", self.text, len(keys), *keys, *args)
                pipe.execute_command("WAIT", replicas, wait_ms)
                answer, acks = pipe.execute(raise_on_error=False)
                if isinstance(answer, NoScriptError) and attempt == 0:
                    continue  # nothing ran: send the text
                if isinstance(answer, BaseException):
                    raise answer
                if isinstance(acks, BaseException):
                    raise acks
                if int(acks) < replicas:
                    raise Unconfirmed("no_replica", f"{acks} of {replicas} replica(s) acknowledged the write within {wait_ms} ms")
                return answer
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            if self.observe is not None:
                self.observe(self.name, time.perf_counter() - start)
