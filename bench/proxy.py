"""A TCP proxy on loopback that misbehaves on cue, for tests and the soak of what one host
cannot show by itself: a reply lost after Redis applied the command, a replication link that
stalls (and whose stalled bytes die with the master), an address that moves to a promoted
replica.

``Proxy(port)`` listens on 127.0.0.1 (a free port) and forwards every connection to
127.0.0.1:``port``.  Its controls, all safe to call from any thread:

* :meth:`drop_reply_after` - the next time a client sends bytes containing a pattern, they go
  to the server, the server's answer is thrown away, the client's connection is closed and new
  connections are refused (:meth:`refuse`) until :meth:`accept` is called;
* :meth:`hold` / :meth:`release` - bytes from the server are kept in the proxy instead of
  being passed on (a stalled link); :meth:`cut` closes every connection, and what was held
  is lost;
* :meth:`retarget` - new connections go to another port (a failover's new master).

Threads are daemons; :meth:`close` stops everything.  Only 127.0.0.1 is used.
"""

from __future__ import annotations

import contextlib
import socket
import threading


class Proxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream = upstream_port
        self.lock = threading.Lock()
        self.links: list[tuple[socket.socket, socket.socket]] = []
        self.held: dict[socket.socket, list[bytes]] = {}
        self.holding = False
        self.refusing = False
        self.pattern: bytes | None = None
        self.dropped = threading.Event()  # set once a reply was dropped
        self.forwarded = 0  # bytes from the servers passed on
        self.listener = self._listen(0)
        self.port = self.listener.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept_loop, daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    # -- controls ------------------------------------------------------------------------

    def drop_reply_after(self, pattern: bytes) -> None:
        self.dropped.clear()
        with self.lock:
            self.pattern = pattern

    def refuse(self) -> None:
        """New connections are refused (the port is closed) until :meth:`accept`."""
        with self.lock:
            self.refusing = True
            with contextlib.suppress(OSError):
                self.listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
            self.listener.close()

    def accept(self) -> None:
        with self.lock:
            if not self.refusing:
                return
            self.listener = self._listen(self.port)
            self.refusing = False
        threading.Thread(target=self._accept_loop, daemon=True).start()

    def hold(self) -> None:
        with self.lock:
            self.holding = True

    def release(self) -> None:
        with self.lock:  # under the lock: nothing newer overtakes what was held
            self.holding = False
            held, self.held = self.held, {}
            for client, chunks in held.items():
                with contextlib.suppress(OSError):
                    client.sendall(b"".join(chunks))

    def held_bytes(self) -> int:
        with self.lock:
            return sum(len(c) for chunks in self.held.values() for c in chunks)

    def cut(self) -> None:
        """Close every connection; bytes held are lost."""
        with self.lock:
            links, self.links = self.links, []
            self.held = {}
        for client, server in links:
            for s in (client, server):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    s.close()

    def retarget(self, port: int) -> None:
        with self.lock:
            self.upstream = port

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.listener.close()
        self.cut()

    # -- the works ------------------------------------------------------------------------

    def _listen(self, port: int) -> socket.socket:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
        return sock

    def _accept_loop(self) -> None:
        listener = self.listener
        while not self.closed:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed: refusing, or the end
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream), timeout=5)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.links.append((client, server))
            threading.Thread(target=self._up, args=(client, server), daemon=True).start()
            threading.Thread(target=self._down, args=(client, server), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket) -> None:
        """Client to server; watches for the pattern."""
        while True:
            try:
                data = client.recv(65536)
            except OSError:
                data = b""
            if not data:
                self._close(client, server)
                return
            with self.lock:
                armed = self.pattern is not None and self.pattern in data
                if armed:
                    self.pattern = None
                    self.held[client] = []  # the answer to this goes nowhere
            try:
                server.sendall(data)
            except OSError:
                self._close(client, server)
                return
            if armed:
                threading.Thread(target=self._drop, args=(client, server), daemon=True).start()

    def _drop(self, client: socket.socket, server: socket.socket) -> None:
        """Wait for the server's answer to reach the proxy, then close the client and refuse others."""
        for _ in range(500):  # up to 5 s
            with self.lock:
                got = sum(len(c) for c in self.held.get(client, []))
            if got:
                break
            threading.Event().wait(0.01)
        self.refuse()
        self.dropped.set()
        self._close(client, server)

    def _down(self, client: socket.socket, server: socket.socket) -> None:
        """Server to client, unless held."""
        while True:
            try:
                data = server.recv(65536)
            except OSError:
                data = b""
            if not data:
                self._close(client, server)
                return
            with self.lock:
                if self.holding or client in self.held:
                    self.held.setdefault(client, []).append(data)
                    continue
                self.forwarded += len(data)
            try:
                client.sendall(data)
            except OSError:
                self._close(client, server)
                return

    def _close(self, client: socket.socket, server: socket.socket) -> None:
        with self.lock:
            if (client, server) in self.links:
                self.links.remove((client, server))
            self.held.pop(client, None)
        for s in (client, server):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                s.close()
