"""A Redis connection closed by another thread or greenlet while one reads from it (a cluster client reading
the layout again after a failover; a pool disconnecting) is a broken connection, which the clients retry and
the app answers ``503`` at worst: not an ``AttributeError`` from redis-py's hiredis parser, whose reader and
socket were set to None under the read (a CI run's tests/matches/test_cluster.py met it; in a request it
would have been a ``500``).  service/matches/redisclient.py ``ClosedMeanwhileParser``, wired into every client."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import redis
from redis._parsers import _HiredisParser

from service.matches.redisclient import WORKAROUND_FOR, ClosedMeanwhileParser, make_client
from service.matches.store import Store

ROOT = Path(__file__).resolve().parents[2]


def rigged(parser_class: type[_HiredisParser]) -> _HiredisParser:
    """A parser whose next read sees its connection closed by someone else while it reads (the read returns a
    reply's bytes all the same, as a read already under way does)."""
    parser = parser_class(socket_read_size=65536)

    class Socket:
        def recv_into(self, buffer: bytearray) -> int:
            parser.on_disconnect()  # another thread, meanwhile
            buffer[:5] = b"+OK\r\n"
            return 5

        def settimeout(self, timeout: Any) -> None:
            pass

    encoder = SimpleNamespace(encoding_errors="strict", decode_responses=True, encoding="utf-8")
    parser.on_connect(SimpleNamespace(_sock=Socket(), socket_timeout=None, encoder=encoder))
    return parser


@pytest.mark.parametrize("read", ["read_response", "read_from_socket"])
def test_a_connection_closed_under_a_read_is_a_broken_connection(read: str) -> None:
    with pytest.raises(AttributeError):  # redis-py's own parser (below 8.1): what answered 500
        getattr(rigged(_HiredisParser), read)()
    with pytest.raises(redis.ConnectionError):
        getattr(rigged(ClosedMeanwhileParser), read)()


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "unix:///tmp/redis.sock", "rediss://127.0.0.1:6380"])
def test_every_client_reads_with_it(url: str) -> None:
    pool = make_client(url, 0.5).connection_pool
    connection = pool.make_connection()
    assert isinstance(connection._parser, ClosedMeanwhileParser)
    assert pool.connection_class.__mro__[2] is {"unix": redis.UnixDomainSocketConnection, "rediss": redis.SSLConnection}.get(
        url.partition(":")[0], redis.Connection
    )


def test_the_stores_clients_read_with_it(store: Store) -> None:
    """The store's own client, and on a cluster every master's (the sweepers' look): the suite runs this on one
    Redis and on the cluster (MATCH_TESTS_CLUSTER=1)."""
    clients = [store.r, *(client for client, _ in store.masters().values())]
    for client in clients:
        if store.cluster and client is store.r:
            continue  # the cluster client has no pool of its own: its nodes' are the masters' clients
        connection = client.connection_pool.get_connection()
        try:
            assert isinstance(connection._parser, ClosedMeanwhileParser)
        finally:
            client.connection_pool.release(connection)


def test_the_workaround_is_pinned_to_the_redis_py_it_was_written_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33: a subclass of a dependency's private class lives only behind an exact pin of the versions it was
    read for; on any other redis-py (8.1.0 fixes the race itself) the clients read with redis-py's own parser."""
    pinned = re.search(r'"redis==([0-9.]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pinned is not None and (pinned.group(1),) == WORKAROUND_FOR
    assert redis.__version__ in WORKAROUND_FOR  # what is installed is what the lock and the pin say
    monkeypatch.setattr(redis, "__version__", "8.1.0")
    connection = make_client("redis://127.0.0.1:6379/0", 0.5).connection_pool.make_connection()
    assert type(connection._parser) is _HiredisParser
