"""What the benchmarks that serve the app share: ports, HTTP calls, processes
and their CPU and memory (from ``/proc``, so Linux only), a Redis of their own
on loopback TCP, and the old design's tree (commit ``ebaaecd``) for before/after
figures in one run."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from service.run import embedded

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OLD_DESIGN = "ebaaecd"  # managed matches before issue 14: answers stored for retries, one global deadline set


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def call(base: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    """The JSON answer of a request that must succeed."""
    status, answer = request(base, method, path, body, headers)
    if status >= 300:
        raise RuntimeError(f"{method} {path}: {status} {answer}")
    return answer


def request(
    base: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None, timeout: float = 30
) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw or b"null")
        except ValueError:  # not the service's answer: a proxy's own error page (nginx's 503 of a rate limit, say)
            return e.code, raw.decode("utf-8", "replace")


def wait_up(base: str, proc: subprocess.Popen[bytes], wait_s: float = 60, path: str = "/v1/health") -> None:
    end = time.monotonic() + wait_s
    while True:
        try:
            if request(base, "GET", path, timeout=2)[0] == 200:
                return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > end:
            raise RuntimeError(f"the server at {base} did not come up")
        time.sleep(0.1)


def _proc_table() -> tuple[dict[int, int], dict[int, float], dict[int, int]]:
    """Every process's parent, CPU seconds so far and resident bytes."""
    parent: dict[int, int] = {}
    used: dict[int, float] = {}
    rss: dict[int, int] = {}
    tick = os.sysconf("SC_CLK_TCK")
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        pid = int(entry.name)
        parent[pid] = int(fields[1])
        used[pid] = (int(fields[11]) + int(fields[12])) / tick
        rss[pid] = int(fields[21]) * page
    return parent, used, rss


def descendants(root: int) -> list[int]:
    parent, _, _ = _proc_table()
    out, frontier = [], [root]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        frontier += kids
    return out


def cpu_s(roots: list[int]) -> float | None:
    """CPU seconds (user + system) used so far by ``roots`` and all their descendants; None without /proc."""
    if not Path("/proc").is_dir():
        return None
    parent, used, _ = _proc_table()
    total = 0.0
    for pid, cpu in used.items():
        p = pid
        while p > 1 and p not in roots:
            p = parent.get(p, 0)
        if p in roots:
            total += cpu
    return total


def rss_bytes(pid: int) -> int:
    return _proc_table()[2].get(pid, 0)


def gunicorn_workers(serve_pid: int) -> list[int]:
    """The gunicorn worker processes under ``python -m service.run.serve`` (the master's children)."""
    parent, _, _ = _proc_table()
    cmdline = {p: _cmdline(p) for p in parent}
    masters = [p for p, pp in parent.items() if pp == serve_pid and "gunicorn" in cmdline[p]]
    return sorted(p for m in masters for p, pp in parent.items() if pp == m)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@dataclass
class TcpRedis:
    """One redis-server (the binary the embedded Redis uses) on a loopback port,
    append-only, started and stopped by the benchmark (a fault can stop it)."""

    folder: Path
    port: int
    appendfsync: str = "everysec"
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self, wait_s: float = 30) -> TcpRedis:
        self.folder.mkdir(parents=True, exist_ok=True)
        args = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder)]
        args += ["--appendonly", "yes", "--appendfsync", self.appendfsync, "--save", "", "--logfile", "redis.log"]
        self.process = embedded.launch(*args)
        end = time.monotonic() + wait_s
        while True:
            client = redis.Redis.from_url(self.url, socket_timeout=0.5, socket_connect_timeout=0.5)
            try:
                if client.ping():
                    return self
            except (redis.RedisError, OSError):
                pass
            finally:
                client.close()
            if self.process.poll() is not None or time.monotonic() > end:
                if self.process.poll() is None:
                    self.process.kill()
                    self.process.wait()
                raise RuntimeError(f"redis-server on {self.port} did not start; see {self.folder / 'redis.log'}")
            time.sleep(0.05)

    def stop(self) -> None:
        """A clean shutdown (the append-only file is flushed)."""
        embedded.shut_down(self.process, self.url, 15)


def serve(env: dict[str, str], cwd: Path = ROOT, log: Path | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """``python -m service.run.serve`` (what ``make run`` starts) on a free port with ``env``; returns it and its
    base URL.  Its output goes to ``log`` (none when None)."""
    port = free_port()
    full = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "ACCESS_LOG": "", **env}
    log = log or (Path(os.environ["BENCH_LOG"]) if os.environ.get("BENCH_LOG") else None)  # BENCH_LOG: keep it there
    with open(log or os.devnull, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "service.run.serve"], cwd=cwd, env=full, stdout=out, stderr=out)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(base, proc)
    except BaseException:
        stop(proc)
        raise
    return proc, base


def stop(proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def old_tree() -> Any:
    """A checkout of the old design (``ebaaecd``) in a temporary git worktree, removed afterwards;
    None when it cannot be made (no git, or not a clone with that commit)."""
    if shutil.which("git") is None:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="umpire-old-")) / "tree"
    made = subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), OLD_DESIGN], capture_output=True, text=True
    )
    if made.returncode != 0:
        shutil.rmtree(folder.parent, ignore_errors=True)
        yield None
        return
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)], capture_output=True)
        shutil.rmtree(folder.parent, ignore_errors=True)


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


@contextlib.contextmanager
def nginx(folder: Path, upstream: str) -> Any:
    """deploy/nginx.conf (its marks filled in) on a free loopback port in front of ``upstream`` (host:port);
    yields its base URL and its process (bench dos --via nginx, tests/test_proxy.py)."""
    if not Path(NGINX).exists():
        raise SystemExit("nginx is not installed (apt-get install nginx)")
    folder.mkdir(parents=True, exist_ok=True)
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / sub).mkdir(exist_ok=True)
    port = free_port()
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    text = text.replace("@PREFIX@", str(folder)).replace("@LISTEN@", f"127.0.0.1:{port}").replace("@UPSTREAM@", upstream)
    if os.geteuid() == 0:
        text = "user root;\n" + text  # as root nginx's workers would be nobody's, who cannot write the folder
    conf = folder / "nginx.conf"
    conf.write_text(text)
    proc = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_up(base, proc, 20)
        except RuntimeError as e:
            log = folder / "error.log"
            raise RuntimeError(f"{e}: {log.read_text(errors='replace') if log.exists() else 'no error.log'}") from None
        yield base, proc
    finally:
        stop(proc, 10)


def load_average() -> str:
    """The machine's load averages (1, 5, 15 minutes), printed beside every figure: these benches share two cores."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"
