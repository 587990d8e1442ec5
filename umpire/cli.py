"""The ``umpire`` console script.

    umpire tournament --game catchup --option size=4 --bots random greedy --games 10 --out results.jsonl
    umpire tournament --report results.jsonl [--plot summary.png] [--json]
    umpire tournament --resume results.jsonl
    umpire tournament ... --queue redis://HOST:PORT      umpire worker --queue redis://HOST:PORT

See docs/TOURNAMENTS.md and docs/BOTS.md; ``umpire tournament --help``
lists every flag.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import secrets
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.registry import GAMES, PRESETS
from umpire.bots import check_spec
from umpire.bots.external import HELLO_TIMEOUT_S
from umpire.config import (
    CLAIM_TIMEOUT_S,
    ENGINE_ONLY_CLOCK,
    FORMATS,
    GRACE_S,
    MOVE_LIMIT_S,
    OPENINGS_ORDERS,
    Engine,
    Run,
    Settings,
    load_openings,
    option_text,
    parse_clock,
    parse_engine,
    parse_options,
)
from umpire.results import read_results, read_run, read_settings
from umpire.stats import SPRT_COUNTS, SPRT_MODELS, Sprt

DESCRIPTION = """\
Play games between bots through the umpire service's managed-match API, as
cutechess-cli or fastchess do for chess, and report the results: a table per
pairing (W-L-D, score, Elo difference with its 95% interval; the pentanomial
counts of its pairs of games with their Elo and normalized Elo) and a rating
list (openskill), and each pairing's lines as fastchess prints them
(Ptnml(0-2), LLR).  By default an embedded server is started for the run
(python -m service.run.serve on a free port, with its own Redis in a temporary
folder); --server plays on a running one.  Every setting is checked before
the first game; the results file keeps them all, so that --resume FILE alone
plays on exactly as the run started."""

EPILOG = """\
bot specs:
  random, greedy, mcts, mcts:SECONDS   built-in bots (every game)
  strong, strong:SECONDS               built-in: step-level search guided by each game's value and priors
  cmd:PROGRAM ARGS...                  a program speaking JSON lines on stdin/stdout (docs/BOTS.md)
  http://HOST:PORT/PATH                a bot behind a URL, same protocol as POST bodies

examples:
  umpire tournament --game catchup --option size=4 --bots random greedy --games 10 --out results.jsonl
  umpire tournament --game bug --bots random greedy mcts:0.1 --games 4 --concurrency 2 --plot bug.png
  umpire tournament --game crystal --bots greedy "cmd:python examples/random_bot.py" --clock turn=5,bank=30,step=1
  umpire tournament --report results.jsonl --plot summary.png
  umpire tournament --game catchup --engine name=mine cmd=./mybot args="--depth 3" dir=bots env=MODEL=m.bin \\
      stderr=mine.err --engine name=greedy bot=greedy --games 20 --records games.txt --log bots.log
  umpire tournament --resume results.jsonl          (after Ctrl-C: the file keeps the settings)
  umpire tournament --game bug --bots greedy mcts --games 2000 --sprt 0 5 0.05 0.05 --sprt-counts pentanomial \\
      --server http://umpire:8000 --queue redis://umpire:6379/0     (and on each machine: umpire worker --queue ...)
  umpire tournament --report results.jsonl --json   (one JSON object per pairing: every figure)
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="umpire", description="The umpire service's command-line tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser(
        "tournament",
        help="play bots against each other through the match API",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    t.add_argument("--game", help=", ".join(GAMES) + " (the engine's games)")
    t.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, repeatable; JSON values (size=4, anomalies='[\"rocks\"]') or plain strings (variant=bolanos)",
    )
    t.add_argument("--bots", nargs="+", metavar="SPEC", help="bot specs (below); with --engine, two or more bots in all")
    t.add_argument(
        "--engine",
        nargs="+",
        action="append",
        metavar="KEY=VALUE",
        help='a named bot, repeatable (fastchess/cutechess style): name=NAME cmd=PROGRAM [args="..."] [arg=A]... '
        "[dir=DIR] [env=VAR=VALUE]... [stderr=FILE], or name=NAME bot=SPEC; after the --bots",
    )
    t.add_argument("--games", type=int, help="games per pairing (default 2: one pair, each bot once in each seat)")
    t.add_argument(
        "--format", choices=FORMATS, default=None, help="round-robin (default) or gauntlet (the first bot against each other)"
    )
    t.add_argument(
        "--clock",
        help=f"a preset ({', '.join(PRESETS)}), BASE+INCREMENT (10+0.1: a bank of 10 s, 0.1 s added after each move, "
        "no turn allowance) or turn=S,bank=S,step=S[,increment=S][,on_flag=loses|proxy]; default: the game's preset",
    )
    t.add_argument(
        "--openings",
        metavar="FILE",
        help="openings: a book (one a line, a JSON list of moves or moves separated by ';'), a --records file or a results file",
    )
    t.add_argument(
        "--openings-order", choices=OPENINGS_ORDERS, help="the openings in the file's order (default) or shuffled by --seed"
    )
    t.add_argument("--opening-plies", type=int, metavar="N", help="play at most the first N moves of each opening")
    t.add_argument("--concurrency", type=int, metavar="K", help="games played at once (default 1)")
    t.add_argument("--out", help="the results file, one JSON line per game (default results.jsonl)")
    t.add_argument(
        "--resume",
        nargs="?",
        const=True,
        metavar="FILE",
        help="finish the tournament in FILE (or --out) exactly as it was being played (server, concurrency, files, "
        "limits, queue: the file keeps them; a flag given here changes that one); play only the games it lacks",
    )
    t.add_argument("--records", metavar="FILE", help="append each game's readable record (the seeds' notation) as it ends")
    t.add_argument("--log", metavar="FILE", help="append every line exchanged with every bot (and their stderr)")
    t.add_argument("--report-every", type=int, metavar="N", help="print the report every N games (on stderr)")
    t.add_argument(
        "--hello-timeout",
        type=float,
        metavar="S",
        help=f"seconds a program may take to start and answer hello (default {HELLO_TIMEOUT_S:g}); "
        "no clock runs meanwhile: the match is created after the hellos",
    )
    t.add_argument("--admin-token", help=argparse.SUPPRESS)  # no longer needed: each match is aborted with its own token
    t.add_argument("--server", metavar="URL", help="play on this server instead of starting an embedded one")
    t.add_argument(
        "--token",
        default=os.environ.get("UMPIRE_TOKEN"),
        help="the umpire token to create matches, if the server wants one (default $UMPIRE_TOKEN)",
    )
    t.add_argument(
        "--engine-only",
        action="store_true",
        help="no server at all: the engine judges in this process (no clocks: each move has --move-limit); "
        "for quick checks of bots",
    )
    t.add_argument(
        "--move-limit",
        type=float,
        metavar="S",
        help=f"with --engine-only, the seconds a bot has for each move (default {MOVE_LIMIT_S:g}; then --grace more, "
        "and it loses by timeout)",
    )
    t.add_argument(
        "--sprt",
        nargs=4,
        type=float,
        metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
        help="stop a two-bot match when the SPRT decides",
    )
    t.add_argument(
        "--sprt-model",
        metavar="MODEL",
        help="what ELO0 and ELO1 are: normalized (the default, as fastchess's model=normalized) or logistic Elo",
    )
    t.add_argument(
        "--sprt-counts",
        choices=SPRT_COUNTS,
        help="what the SPRT counts: trinomial (games W-L-D; the default) or pentanomial (pairs of games, as fastchess and "
        "fishtest; was --sprt-model pentanomial)",
    )
    t.add_argument("--plot", metavar="FILE", help="write a summary picture (PNG): scores per pairing, ratings")
    t.add_argument(
        "--json",
        action="store_true",
        help="print the report as JSON lines, one object per pairing with every figure (wdl, pentanomial, elo, "
        "elo_interval, los, nelo, and with an SPRT llr, llr_bounds, sprt_model...)",
    )
    t.add_argument(
        "--seed", type=int, help="seeds the built-in bots and dealt positions (default: random, kept in the results for --resume)"
    )
    t.add_argument(
        "--grace",
        type=float,
        metavar="S",
        help=f"seconds a bot may overrun its clock before the harness stops waiting (default {GRACE_S:g})",
    )
    t.add_argument("--quiet", action="store_true", help="no progress line")
    t.add_argument(
        "--queue",
        metavar="URL",
        help="share the games with `umpire worker`s through Redis Streams (redis://HOST:PORT, "
        "unix:///PATH/TO/redis.sock - make run's Redis is unix://$PWD/data/redis.sock - or redis+cluster://HOST:PORT): "
        "this process publishes the schedule and gathers the results",
    )
    t.add_argument(
        "--claim-timeout",
        type=float,
        metavar="S",
        help=f"with --queue: a game whose worker stopped renewing its claim this long is played by another "
        f"(default {CLAIM_TIMEOUT_S:g})",
    )
    w = sub.add_parser(
        "worker",
        help="play the games of a tournament shared through a queue (umpire tournament --queue)",
        description="Take games from the queue (Redis Streams consumer groups), play them with the bots on this "
        "machine through the server the queue names, and hand the results back: the games of every tournament "
        "run on the queue, one from each in turn, until every run it served is complete or decided by its SPRT.",
    )
    w.add_argument(
        "--queue",
        required=True,
        metavar="URL",
        help="redis://HOST:PORT, unix:///PATH/TO/redis.sock (make run's: unix://$PWD/data/redis.sock) or "
        "redis+cluster://HOST:PORT",
    )
    w.add_argument("--name", help="this worker's name in the consumer group (default host-pid)")
    w.add_argument("--log", metavar="FILE", help="append every line exchanged with every bot")
    w.add_argument("--idle-exit", type=float, metavar="S", help="leave after S seconds with no game to play")
    t.add_argument(
        "--report",
        metavar="FILE",
        nargs="+",
        help="print the report of results files, one for each tournament in them (no games are played)",
    )
    return parser


def _fail(message: str) -> int:
    print(f"umpire tournament: {message}", file=sys.stderr)
    return 2


def _report(args: argparse.Namespace, sprt: Sprt | None) -> int:
    from umpire.report import by_tournament, format_report, plot_paths, summarize, summary_json, unique_games

    lines = []
    for path in args.report:
        try:
            lines.extend(read_results(path))
        except (OSError, ValueError) as e:
            return _fail(str(e))
    if not lines:
        return _fail("the results files hold no games")
    lines, twice = unique_games(lines)
    if twice:
        print(f"umpire tournament: {twice} games are in these files more than once (the same run and game): "
              "each counted once", file=sys.stderr)  # fmt: skip
    kept: dict[str, Sprt] = {}  # each tournament's SPRT, as its results file keeps it
    for path in args.report:
        header = read_settings(path)
        if header and header.get("sprt"):
            kept[str(header.get("tournament"))] = Sprt.from_json(header["sprt"])
    groups = by_tournament(lines)
    summaries = [summarize(group, sprt or kept.get(str(group[0].get("tournament")))) for group in groups]
    if args.json:
        for group, summary in zip(groups, summaries, strict=True):
            for item in summary_json(summary, group):
                print(json.dumps(item))
        return 0
    if len(groups) > 1:
        games = ", ".join(group[0].get("game", "?") for group in groups)
        print(f"{len(groups)} tournaments in these files ({games}): a report for each\n")
    paths = plot_paths(args.plot, [s.game for s in summaries]) if args.plot else []
    for n, summary in enumerate(summaries):
        if n:
            print()
        sys.stdout.write(format_report(summary))
        if paths:
            from umpire.plot import plot

            plot(summary, paths[n])
            print(f"plot: {paths[n]}")
    return 0


class Interrupted:
    """Ctrl-C (SIGINT) and SIGTERM, both as a KeyboardInterrupt in the main thread,
    once: the run then aborts its games, stops its bots and its server, and prints
    its summary; a second signal meanwhile is noted, not obeyed mid-way."""

    def __init__(self) -> None:
        self.signal: int | None = None
        self._old: dict[int, Any] = {}

    def _handle(self, signum: int, frame: object) -> None:
        if self.signal is None:
            self.signal = signum
            raise KeyboardInterrupt

    def __enter__(self) -> Interrupted:
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)

    @property
    def code(self) -> int:
        return 128 + (self.signal or signal.SIGINT)


def _engines(args: argparse.Namespace) -> list[Engine]:
    """The bots of ``--bots`` and ``--engine``; an engine's ``dir=`` and ``stderr=`` made absolute
    (as the run's files are), so that ``--resume`` from another folder runs the same programs."""
    engines = [Engine(spec) for spec in args.bots or []]
    for items in args.engine or []:
        e = parse_engine(items)
        absolute = [None if path is None else str(Path(path).resolve()) for path in (e.dir, e.stderr)]
        engines.append(dataclasses.replace(e, dir=absolute[0], stderr=absolute[1]))
    for e in engines:
        check_spec(e.spec)
    return engines


def _resume_path(args: argparse.Namespace) -> Path | None:
    if args.resume is None:
        return None
    if isinstance(args.resume, str):
        if args.out is not None and Path(args.out) != Path(args.resume):
            raise ValueError(f"--resume {args.resume} and --out {args.out} name two files: give one")
        return Path(args.resume)
    return Path(args.out or "results.jsonl")


def _contradictions(args: argparse.Namespace, kept: Settings, kept_sprt: Sprt | None, sprt: Sprt | None) -> list[str]:
    """The flags given to a resume that say something else than the tournament being resumed."""
    out = []
    if args.game is not None and args.game != kept.game:
        out.append(f"--game {args.game} (the tournament plays {kept.game})")
    if args.option and parse_options(args.option) != kept.options:
        out.append(f"--option {' '.join(args.option)} (the tournament's: {option_text(kept.options)})")
    if args.bots or args.engine:
        given = _engines(args)
        if [e.spec for e in given] != kept.bots or any(
            (e.dir, e.env) != (kept.engine(i).dir, kept.engine(i).env) for i, e in enumerate(given)
        ):
            out.append(f"--bots/--engine (the tournament's bots: {', '.join(kept.bots)})")
    if args.games is not None and args.games != kept.games:
        out.append(f"--games {args.games} (the tournament plays {kept.games})")
    if args.format is not None and args.format != kept.fmt:
        out.append(f"--format {args.format} (the tournament is {kept.fmt})")
    if args.clock is not None and parse_clock(args.clock) != kept.clock:
        out.append(f"--clock {args.clock} (the tournament's: {kept.clock})")
    if args.seed is not None and args.seed != kept.seed:
        out.append(f"--seed {args.seed} (the tournament's: {kept.seed})")
    if args.openings is not None:
        order = args.openings_order or "sequential"
        book = load_openings(args.openings, args.opening_plies, order, kept.seed, kept.game)
        if book != kept.openings:
            out.append(f"--openings {args.openings} (other openings than the tournament's)")
    if sprt is not None and sprt != kept_sprt:
        out.append(f"--sprt (the tournament's: {kept_sprt.title() if kept_sprt else 'none'})")
    return out


def _plan(args: argparse.Namespace, kept: dict[str, Any] | None) -> Run:
    """The run: kept by the results file (resuming), each flag given changing its part; or a new one."""
    from umpire.tournament import new_run_id

    plan = Run.from_json(kept) if kept else Run(new_run_id(), cwd=os.getcwd())
    changes: dict[str, Any] = {}
    if args.engine_only:
        changes.update(engine_only=True, server=None)
    elif args.server:
        changes.update(engine_only=False, server=args.server)
    paths = {"records": args.records, "log": args.log, "plot": args.plot}
    changes.update({k: str(Path(v).resolve()) for k, v in paths.items() if v is not None})
    given = {
        "concurrency": args.concurrency, "report_every": args.report_every, "grace_s": args.grace,
        "hello_timeout_s": args.hello_timeout, "move_limit_s": args.move_limit, "queue": args.queue,
        "claim_timeout_s": args.claim_timeout,
    }  # fmt: skip
    changes.update({k: v for k, v in given.items() if v is not None})
    plan = dataclasses.replace(plan, **changes)
    wrong = [
        f"{flag} must be {what}"
        for flag, bad, what in (
            ("--concurrency", plan.concurrency < 1, "at least 1"),
            ("--report-every", plan.report_every < 0, "0 (never) or more"),
            ("--grace", plan.grace_s < 0, "0 or more seconds"),
            ("--hello-timeout", plan.hello_timeout_s <= 0, "more than 0 seconds"),
            ("--move-limit", plan.move_limit_s <= 0, "more than 0 seconds"),
            ("--claim-timeout", plan.claim_timeout_s <= 0, "more than 0 seconds"),
        )
        if bad
    ]
    if plan.queue is not None and plan.engine_only:
        wrong.append("--queue plays through a server: leave out --engine-only")
    if wrong:
        raise ValueError("; ".join(wrong))
    if plan.queue is not None:
        from umpire.queue import check_queue

        check_queue(plan.queue)  # a URL it takes, and a Redis that answers there
    return plan


def _settings(args: argparse.Namespace, sprt: Sprt | None) -> tuple[Settings, Sprt | None, Path, bool, Run]:
    """The tournament's settings and its run: from the flags, or, resuming, from the results file
    (and the flags agree with its settings; those given about the run change it)."""
    resume = _resume_path(args)
    out = resume if resume is not None else Path(args.out or "results.jsonl")
    header = read_settings(out) if resume is not None and out.exists() and out.stat().st_size > 0 else None
    if header is not None:
        kept = Settings.from_json(header["settings"])
        kept_sprt = Sprt.from_json(header["sprt"]) if header.get("sprt") else None
        wrong = _contradictions(args, kept, kept_sprt, sprt)
        if wrong:
            raise ValueError(f"--resume {out}: " + "; ".join(wrong) + ": leave these out, the file keeps the settings")
        return kept, sprt or kept_sprt, out, True, _plan(args, read_run(out))
    if not args.game or not (args.bots or args.engine):
        if resume is not None:
            raise ValueError(f"--resume {out}: the file keeps no settings (or does not exist): give --game and --bots too")
        raise ValueError("--game and --bots (or --engine) are needed (or --report FILE, or --resume FILE)")
    if args.game not in GAMES and not args.server:  # a --server knows its own games, and says so
        raise ValueError(f"--game: there is no game {args.game!r} here; the games are {', '.join(GAMES)}")
    engines = _engines(args)
    if len(engines) < 2:
        raise ValueError("--bots needs two or more bot specs")
    if args.games is not None and args.games < 1:
        raise ValueError("--games must be at least 1")
    options = parse_options(args.option)
    clock = parse_clock(args.clock)
    seed = args.seed
    if seed is None and resume is not None and out.exists() and out.stat().st_size > 0:
        seed = next((line.get("seed") for line in read_results(out)), None)
    if seed is None:
        seed = secrets.randbelow(10**9)
    openings = (
        load_openings(args.openings, args.opening_plies, args.openings_order or "sequential", int(seed), args.game)
        if args.openings
        else []
    )
    plain = all(e == Engine(e.spec) for e in engines)
    settings = Settings(
        args.game,
        options,
        [e.spec for e in engines],
        args.games if args.games is not None else 2,
        args.format or "round-robin",
        clock,
        openings,
        int(seed),
        [] if plain else engines,
    )
    return settings, sprt, out, resume is not None, _plan(args, None)


def _sprt(args: argparse.Namespace) -> Sprt | None:
    """``--sprt`` with ``--sprt-model`` and ``--sprt-counts``.  ``--sprt-model trinomial|pentanomial``,
    its meaning before the Elo models, still means what it meant (those counts, bounds in logistic
    Elo), with a word on stderr naming the new spelling."""
    model, counts = args.sprt_model, args.sprt_counts
    if model in SPRT_COUNTS:
        print(
            f"umpire tournament: --sprt-model {model} is now --sprt-model logistic --sprt-counts {model} "
            f"(--sprt-model chooses what ELO0 and ELO1 are: {' or '.join(SPRT_MODELS)})",
            file=sys.stderr,
        )
        if counts is not None and counts != model:
            raise ValueError(f"--sprt-model {model} and --sprt-counts {counts} say two things: give --sprt-counts alone")
        model, counts = "logistic", model
    if model is not None and model not in SPRT_MODELS:
        raise ValueError(f"--sprt-model is {' or '.join(SPRT_MODELS)} (what ELO0 and ELO1 are), not {model!r}")
    if not args.sprt:
        if model is not None or counts is not None:
            raise ValueError("--sprt-model and --sprt-counts go with --sprt ELO0 ELO1 ALPHA BETA")
        return None
    elo0, elo1, alpha, beta = args.sprt
    return Sprt(elo0, elo1, alpha, beta, model or SPRT_MODELS[0], counts or SPRT_COUNTS[0])


def tournament(args: argparse.Namespace) -> int:
    if args.admin_token is not None:
        print("umpire tournament: --admin-token is no longer needed (each match is aborted with its own umpire token)",
              file=sys.stderr)  # fmt: skip
    try:
        sprt = _sprt(args)
    except ValueError as e:
        return _fail(str(e))
    if args.report:
        return _report(args, sprt)
    with Interrupted() as interrupted:
        return _play(args, sprt, interrupted)


def _play(args: argparse.Namespace, sprt: Sprt | None, interrupted: Interrupted) -> int:
    from umpire.client import MatchClient, ServiceError
    from umpire.local import LocalMatches
    from umpire.play import MatchService
    from umpire.server import EmbeddedServer
    from umpire.tournament import Outcome, TournamentError, check_bots, check_files, check_settings, run

    try:
        settings, sprt, out, resume, plan = _settings(args, sprt)
        # every setting before the first game, and before anything is started or written
        if sprt is not None and len(settings.bots) != 2:
            raise ValueError(f"--sprt tests a match of exactly two bots, not {len(settings.bots)}")
        if plan.engine_only and settings.clock is not None:
            raise ValueError(ENGINE_ONLY_CLOCK)
        check_settings(settings)
        check_files(out, plan, settings, sprt, resume)
        if not plan.queue:  # with a queue the workers run the bots, on their machines
            check_bots(settings, plan.hello_timeout_s, plan)
    except (OSError, ValueError, TournamentError) as e:
        return _fail(str(e))

    server: EmbeddedServer | None = None
    matches: MatchService | None = None
    outcome: Outcome | None = None
    try:
        if plan.engine_only:
            matches, label = LocalMatches(), "engine"
        elif plan.server:
            matches, label = MatchClient(plan.server, token=args.token), plan.server
            matches.health()
        else:
            if not args.quiet:
                print("starting an embedded server (python -m service.run.serve) ...", file=sys.stderr)
            server = EmbeddedServer(threads=max(8, 2 * plan.concurrency)).start()
            matches, label = MatchClient(server.url), "embedded"
        if not args.quiet:
            bots = ", ".join(settings.labels)
            at_once = "shared through the queue" if plan.queue else f"{plan.concurrency} at a time"
            print(
                f"{settings.game} ({option_text(settings.options)}): {bots}; {settings.fmt}, {settings.games} games a "
                f"pairing, {at_once}, on {label}; run {plan.id}, results to {out}",
                file=sys.stderr,
            )
        if plan.queue:
            from umpire.queue import coordinate

            assert isinstance(matches, MatchClient)
            outcome = coordinate(
                settings, plan, matches.base, out, resume=resume, sprt=sprt, token=args.token, progress=not args.quiet
            )
        else:
            outcome = run(settings, matches, out, resume=resume, sprt=sprt, progress=not args.quiet, server_label=label,
                          plan=plan, bots_checked=True)  # fmt: skip
    except KeyboardInterrupt:  # before the games began (the server starting, say): nothing to abort
        pass
    except (TournamentError, ServiceError, RuntimeError, ValueError, OSError) as e:
        return _fail(str(e))
    finally:
        if matches is not None:
            matches.close()  # this thread's connection (the games' threads closed theirs)
        if server is not None:
            server.stop()
    if outcome is None:
        print(f"interrupted before the games began: umpire tournament --resume {out} starts them", file=sys.stderr)
        return interrupted.code
    if outcome.lines:
        from umpire.report import format_report, summarize, summary_json

        summary = summarize(outcome.lines, sprt)
        if args.json:
            for item in summary_json(summary, outcome.lines):
                print(json.dumps(item))
        else:
            sys.stdout.write(format_report(summary))
        if plan.plot:
            from umpire.plot import plot

            plot(summary, plan.plot)
            print(f"plot: {plan.plot}", file=sys.stderr if args.json else sys.stdout)
    for failure in outcome.failures:
        print(f"not played: {failure}", file=sys.stderr)
    if outcome.interrupted or interrupted.signal is not None:
        if plan.queue:
            print(f"interrupted: the workers play on; umpire tournament --resume {out} gathers what they finish",
                  file=sys.stderr)  # fmt: skip
            return interrupted.code
        if outcome.aborted:
            print(f"aborted on the server: {len(outcome.aborted)} games in play ({', '.join(outcome.aborted)})", file=sys.stderr)
        for failure in outcome.not_aborted:
            print(f"could not abort: {failure}", file=sys.stderr)
        print(f"interrupted: umpire tournament --resume {out} plays the missing games", file=sys.stderr)
        return interrupted.code
    return 1 if outcome.failures else 0


def worker(args: argparse.Namespace) -> int:
    from umpire.queue import check_queue, work
    from umpire.tournament import BotLog

    try:
        check_queue(args.queue)
        log = BotLog(args.log) if args.log else None
    except (OSError, ValueError) as e:
        print(f"umpire worker: {e}", file=sys.stderr)
        return 2
    with Interrupted() as interrupted:
        try:
            report = work(args.queue, args.name, log, args.idle_exit, sys.stderr)
        except (OSError, ValueError) as e:
            print(f"umpire worker: {e}", file=sys.stderr)
            return 2
        finally:
            if log is not None:
                log.close()
    served = f" for run{'s' if len(report.runs) != 1 else ''} {', '.join(report.runs)}" if report.runs else ""
    if report.interrupted:
        if report.aborted:
            print(
                f"umpire worker: stopped after {report.played} games{served}; its game in play was aborted "
                f"({', '.join(report.aborted)}): another worker plays it",
                file=sys.stderr,
            )
        else:
            print(f"umpire worker: stopped after {report.played} games{served}; it had no game in play", file=sys.stderr)
        return interrupted.code
    print(f"umpire worker: {report.played} games played{served}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "tournament":
            return tournament(args)
        if args.command == "worker":
            return worker(args)
    except BrokenPipeError:  # the report piped into head, say: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 2  # pragma: no cover - argparse requires a command


if __name__ == "__main__":
    sys.exit(main())
