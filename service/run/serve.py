"""What ``make run`` runs: ``python -m service.run.serve``.

1. Redis: ``REDIS_URL`` when set; otherwise the embedded ``redis-server``
   (service/run/embedded.py) on ``DATA_DIR`` (default ``./data``), append-only,
   so matches survive restarts.  This process owns it: it is shut down cleanly
   on exit, after everything else; one left running by a ``make run`` that
   crashed is taken over, and then stopped the same way.
2. A sweeper (``flask --app service sweep``) that applies flags the moment
   they fall due; ``SWEEPER=0`` leaves it out (run sweepers elsewhere).
   With ``WEBHOOK_ALLOW`` set, a deliverer too (``flask --app service
   deliver``) that posts matches' changes to their webhooks
   (service/matches/deliverer.py); ``DELIVERER=0`` leaves it out.
3. gunicorn on ``$HOST:$PORT`` with ``WEB_CONCURRENCY`` worker processes of
   gunicorn's ``gevent`` worker class (``WORKER_CLASS``; ``gthread`` with
   ``THREADS`` threads also works): each request is a greenlet, so a waiting
   listener (an event stream, a long-poll) holds no thread and no worker, and
   a thousand of them wait on one process (``WORKER_CONNECTIONS`` each).

Ctrl-C or SIGTERM stops them all.  A sweeper (or deliverer) that dies is
started again; when gunicorn exits, everything stops.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

from service.run import embedded


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
    # ACCESS_LOG: where gunicorn's access log goes ("-" standard output); unset or empty, none: the service's
    # request log (service/web/requestlog.py) already writes one line per answer, with its request id, so a second
    # line per request from gunicorn only cost time (issue 20, cost per request).
    access_log = env.get("ACCESS_LOG", "")
    worker_class = env.get("WORKER_CLASS") or "gevent"
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
        worker_class,
        *(["--threads", env.get("THREADS") or "32"] if worker_class == "gthread" else []),
        "--worker-connections",
        env.get("WORKER_CONNECTIONS") or "4000",  # gevent: requests (waiting listeners included) at once per worker
        # How long an idle keep-alive connection is kept (gunicorn's default); 0: one request a connection, which
        # trades throughput for the latency tail (a kept connection belongs to one worker: BENCHMARKS.md
        # "Cost per request").
        "--keep-alive",
        env.get("KEEP_ALIVE_S") or "2",
        "--timeout",
        "60",  # above the longest waiting read (30 s); an event stream keeps its worker alive by its heartbeats
        "--graceful-timeout",
        "10",
        "--config",
        "python:service.run.gunicorn_conf",
        *control,
        *logging,
        "service:create_app()",
    ]


def _raise_open_files() -> None:
    """Each waiting listener holds a socket: allow as many files as the system lets this user."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))


def environment(base: dict[str, str]) -> dict[str, str]:
    """The environment of the processes ``make run`` starts: ``base`` with its defaults."""
    env = dict(base)
    env.setdefault("LOG_FORMAT", "json")  # JSON lines under `make run` (service/web/requestlog.py)
    return env


def arguments(argv: list[str]) -> None:
    """``--help`` says what this is and where its settings are; it takes no other argument (every setting is an
    environment variable), and refuses any with a usage line rather than starting a server regardless."""
    parser = argparse.ArgumentParser(
        prog="python -m service.run.serve",
        description=__doc__,
        epilog="Every setting is an environment variable (HOST, PORT, REDIS_URL, DATA_DIR ...): docs/SETTINGS.md.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    arguments(sys.argv[1:] if argv is None else argv)
    _raise_open_files()
    env = environment(dict(os.environ))
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    server: embedded.EmbeddedRedis | None = None
    procs: list[subprocess.Popen[bytes]] = []
    code = 0
    try:
        if not env.get("REDIS_URL"):
            fsync = env.get("REDIS_APPENDFSYNC") or "everysec"
            server = embedded.start(env.get("DATA_DIR") or "data", appendfsync=fsync, own=True)
            env["REDIS_URL"] = server.url
            how = "started" if server.process else "taken over (its owner died)" if server.owned else "shared (another owns it)"
            print(f"serve: embedded Redis at {server.url} {how}, data in {server.data_dir}", flush=True)
        # Every process (workers and sweeper) writes its metrics here; any worker answers /metrics with their sum.
        if not env.get("PROMETHEUS_MULTIPROC_DIR"):
            metrics_dir = Path(env.get("DATA_DIR") or "data").resolve() / "metrics"
            shutil.rmtree(metrics_dir, ignore_errors=True)  # the figures of a previous run's processes
            metrics_dir.mkdir(parents=True)
            env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
        sweep = [sys.executable, "-m", "flask", "--app", "service", "sweep"]
        sweeper = subprocess.Popen(sweep, env=env) if env.get("SWEEPER", "1") != "0" else None
        deliver = [sys.executable, "-m", "flask", "--app", "service", "deliver"]
        wanted = env.get("WEBHOOK_ALLOW", "").strip() and env.get("DELIVERER", "1") != "0"
        deliverer = subprocess.Popen(deliver, env=env) if wanted else None
        web = subprocess.Popen(gunicorn_command(env), env=env)
        procs = [p for p in (web, sweeper, deliverer) if p is not None]
        while web.poll() is None:
            if sweeper is not None and sweeper.poll() is not None:
                print(f"serve: the sweeper exited ({sweeper.returncode}); starting it again", flush=True)
                time.sleep(1)
                sweeper = subprocess.Popen(sweep, env=env)
            if deliverer is not None and deliverer.poll() is not None:
                print(f"serve: the webhooks' deliverer exited ({deliverer.returncode}); starting it again", flush=True)
                time.sleep(1)
                deliverer = subprocess.Popen(deliver, env=env)
            procs = [p for p in (web, sweeper, deliverer) if p is not None]
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
