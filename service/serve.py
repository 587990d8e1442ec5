"""What ``make run`` runs: ``python -m service.serve``.

1. Redis: ``REDIS_URL`` when set; otherwise the embedded ``redis-server``
   (service/embedded.py) on ``DATA_DIR`` (default ``./data``), append-only,
   so matches survive restarts.  It is shut down cleanly on exit.
2. A sweeper (``flask --app service sweep``) that applies flags the moment
   they fall due; ``SWEEPER=0`` leaves it out (run sweepers elsewhere).
3. gunicorn on ``$HOST:$PORT`` with ``WEB_CONCURRENCY`` worker processes of
   ``THREADS`` threads each (threads, so that waiting reads do not hold a
   whole process).

Ctrl-C or SIGTERM stops the three in reverse order.  A sweeper that dies is
started again; when gunicorn exits, everything stops.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from types import FrameType

from service import embedded


class _Stop(Exception):
    pass


def _on_signal(signum: int, frame: FrameType | None) -> None:
    raise _Stop


def _end(proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def gunicorn_command(env: dict[str, str]) -> list[str]:
    import gunicorn

    # gunicorn 27 opens a control socket at one fixed path per user; several servers on one
    # machine (tests, benchmarks beside `make run`) would fight over it, and nothing here uses it.
    control = ["--no-control-socket"] if gunicorn.version_info >= (27,) else []
    # ACCESS_LOG: where the access log goes ("-" standard output, the default); empty for none.
    access_log = env.get("ACCESS_LOG", "-")
    logging = ["--access-logfile", access_log] if access_log else []
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        f"{env.get('HOST', '127.0.0.1')}:{env.get('PORT', '8000')}",
        "--workers",
        env.get("WEB_CONCURRENCY") or "2",
        "--worker-class",
        "gthread",
        "--threads",
        env.get("THREADS") or "32",  # a waiting read holds a thread while it waits
        "--timeout",
        "60",  # above the longest waiting read (30 s)
        "--graceful-timeout",
        "10",
        *control,
        *logging,
        "service:create_app()",
    ]


def environment(base: dict[str, str]) -> dict[str, str]:
    """The environment of the processes ``make run`` starts: ``base`` with its defaults."""
    env = dict(base)
    env.setdefault("LOG_FORMAT", "json")  # JSON lines under `make run` (service/requestlog.py)
    return env


def main() -> int:
    env = environment(dict(os.environ))
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    server: embedded.EmbeddedRedis | None = None
    procs: list[subprocess.Popen[bytes]] = []
    code = 0
    try:
        if not env.get("REDIS_URL"):
            server = embedded.start(env.get("DATA_DIR") or "data", appendfsync=env.get("REDIS_APPENDFSYNC") or "everysec")
            env["REDIS_URL"] = server.url
            print(f"serve: embedded Redis at {server.url}, data in {server.data_dir}", flush=True)
        sweep = [sys.executable, "-m", "flask", "--app", "service", "sweep"]
        sweeper = subprocess.Popen(sweep, env=env) if env.get("SWEEPER", "1") != "0" else None
        web = subprocess.Popen(gunicorn_command(env), env=env)
        procs = [web] + ([sweeper] if sweeper else [])
        while web.poll() is None:
            if sweeper is not None and sweeper.poll() is not None:
                print(f"serve: the sweeper exited ({sweeper.returncode}); starting it again", flush=True)
                time.sleep(1)
                sweeper = subprocess.Popen(sweep, env=env)
                procs = [web, sweeper]
            time.sleep(0.5)
        code = web.returncode or 0
    except _Stop:
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the clean shutdown short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for proc in procs:
            _end(proc)
        if server is not None:
            server.stop()
    return code


if __name__ == "__main__":
    sys.exit(main())
