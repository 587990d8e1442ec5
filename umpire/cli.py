"""The ``umpire`` console script.

    umpire tournament --game catchup --option size=4 --bots random greedy --games 10 --out results.jsonl
    umpire tournament --report results.jsonl [--plot summary.png]

See README.md "Tournaments" and docs/BOTS.md; ``umpire tournament --help``
lists every flag.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

from umpire.bots import check_spec
from umpire.config import FORMATS, Settings, option_text, parse_clock, parse_options, read_openings
from umpire.play import GRACE_S
from umpire.results import read_results
from umpire.stats import Sprt

DESCRIPTION = """\
Play games between bots through the umpire service's managed-match API, as
cutechess-cli or fastchess do for chess, and report the results: a table per
pairing (W-L-D, score, Elo difference with its 95% interval) and a rating
list (openskill).  By default an embedded server is started for the run
(python -m service.serve on a free port, with its own Redis in a temporary
folder); --server plays on a running one."""

EPILOG = """\
bot specs:
  random, greedy, mcts, mcts:SECONDS   built-in bots (every game)
  cmd:PROGRAM ARGS...                  a program speaking JSON lines on stdin/stdout (docs/BOTS.md)
  http://HOST:PORT/PATH                a bot behind a URL, same protocol as POST bodies

examples:
  umpire tournament --game catchup --option size=4 --bots random greedy --games 10 --out results.jsonl
  umpire tournament --game bug --bots random greedy mcts:0.1 --games 4 --concurrency 2 --plot bug.png
  umpire tournament --game crystal --bots greedy "cmd:python examples/random_bot.py" --clock turn=5,bank=30,step=1
  umpire tournament --report results.jsonl --plot summary.png
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
    t.add_argument("--game", help="catchup, bug, crystal, plur or too")
    t.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, repeatable; JSON values (size=4, anomalies='[\"rocks\"]') or plain strings (variant=bolanos)",
    )
    t.add_argument("--bots", nargs="+", metavar="SPEC", help="two or more bot specs (below)")
    t.add_argument("--games", type=int, default=2, help="games per pairing (default 2: one pair, each bot once in each seat)")
    t.add_argument(
        "--format", choices=FORMATS, default=None, help="round-robin (default) or gauntlet (the first bot against each other)"
    )
    t.add_argument(
        "--clock",
        help="a preset (catchup, catchup-short-bank, bug, bug-green-meadow, crystal, plur, too) or "
        "turn=S,bank=S,step=S[,increment=S][,on_flag=loses|proxy]; default: the game's preset",
    )
    t.add_argument(
        "--openings", metavar="FILE", help="opening book: one opening a line, a JSON list of moves or moves separated by ';'"
    )
    t.add_argument("--concurrency", type=int, default=1, metavar="K", help="games played at once (default 1)")
    t.add_argument("--out", default="results.jsonl", help="the results file, one JSON line per game (default results.jsonl)")
    t.add_argument("--resume", action="store_true", help="finish the tournament in --out: play only the games it lacks")
    t.add_argument("--server", metavar="URL", help="play on this server instead of starting an embedded one")
    t.add_argument(
        "--token",
        default=os.environ.get("UMPIRE_TOKEN"),
        help="the umpire token to create matches, if the server wants one (default $UMPIRE_TOKEN)",
    )
    t.add_argument(
        "--engine-only",
        action="store_true",
        help="no server at all: the engine judges in this process (no clocks); for quick checks of bots",
    )
    t.add_argument(
        "--sprt",
        nargs=4,
        type=float,
        metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
        help="stop a two-bot match when the SPRT decides",
    )
    t.add_argument("--plot", metavar="FILE", help="write a summary picture (PNG): scores per pairing, ratings")
    t.add_argument(
        "--seed", type=int, help="seeds the built-in bots and dealt positions (default: random, kept in the results for --resume)"
    )
    t.add_argument(
        "--grace",
        type=float,
        default=GRACE_S,
        metavar="S",
        help=f"seconds a bot may overrun its clock before the harness stops waiting (default {GRACE_S:g})",
    )
    t.add_argument("--quiet", action="store_true", help="no progress line")
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
    from umpire.report import by_tournament, format_report, plot_paths, summarize

    lines = []
    for path in args.report:
        try:
            lines.extend(read_results(path))
        except (OSError, ValueError) as e:
            return _fail(str(e))
    if not lines:
        return _fail("the results files hold no games")
    groups = by_tournament(lines)
    if len(groups) > 1:
        games = ", ".join(group[0].get("game", "?") for group in groups)
        print(f"{len(groups)} tournaments in these files ({games}): a report for each\n")
    summaries = [summarize(group, sprt) for group in groups]
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


def tournament(args: argparse.Namespace) -> int:
    sprt = None
    if args.sprt:
        try:
            sprt = Sprt(*args.sprt)
        except ValueError as e:
            return _fail(str(e))
    if args.report:
        return _report(args, sprt)
    if not args.game or not args.bots:
        return _fail("--game and --bots are needed (or --report FILE)")
    if len(args.bots) < 2:
        return _fail("--bots needs two or more bot specs")
    try:
        for spec in args.bots:
            check_spec(spec)
        options = parse_options(args.option)
        clock = parse_clock(args.clock)
        openings = read_openings(args.openings) if args.openings else []
    except (OSError, ValueError) as e:
        return _fail(str(e))
    fmt = args.format or "round-robin"
    seed = args.seed
    out = Path(args.out)
    if seed is None and args.resume and out.exists() and out.stat().st_size > 0:
        try:
            seed = next((line.get("seed") for line in read_results(out)), None)
        except (OSError, ValueError) as e:
            return _fail(str(e))
    if seed is None:
        seed = secrets.randbelow(10**9)
    settings = Settings(args.game, options, list(args.bots), args.games, fmt, clock, openings, int(seed))

    from umpire.client import MatchClient, ServiceError
    from umpire.local import LocalMatches
    from umpire.play import MatchService
    from umpire.server import EmbeddedServer
    from umpire.tournament import TournamentError, run

    server: EmbeddedServer | None = None
    matches: MatchService | None = None
    try:
        if args.engine_only:
            matches, label = LocalMatches(), "engine"
        elif args.server:
            matches, label = MatchClient(args.server, token=args.token), args.server
            matches.health()
        else:
            if not args.quiet:
                print("starting an embedded server (python -m service.serve) ...", file=sys.stderr)
            server = EmbeddedServer(threads=max(8, 2 * args.concurrency)).start()
            matches, label = MatchClient(server.url), "embedded"
        if not args.quiet:
            bots = ", ".join(args.bots)
            print(
                f"{args.game} ({option_text(options)}): {bots}; {fmt}, {args.games} games a pairing, "
                f"{args.concurrency} at a time, on {label}; results to {out}",
                file=sys.stderr,
            )
        outcome = run(
            settings,
            matches,
            out,
            concurrency=args.concurrency,
            resume=args.resume,
            sprt=sprt,
            grace_s=args.grace,
            progress=not args.quiet,
            server_label=label,
        )
    except (TournamentError, ServiceError, RuntimeError, ValueError) as e:
        return _fail(str(e))
    finally:
        if matches is not None:
            matches.close()  # this thread's connection (the games' threads closed theirs)
        if server is not None:
            server.stop()
    if outcome.lines:
        from umpire.report import format_report, summarize

        summary = summarize(outcome.lines, sprt)
        sys.stdout.write(format_report(summary))
        if args.plot:
            from umpire.plot import plot

            plot(summary, args.plot)
            print(f"plot: {args.plot}")
    for failure in outcome.failures:
        print(f"not played: {failure}", file=sys.stderr)
    if outcome.interrupted:
        print(f"interrupted: umpire tournament ... --resume --out {out} plays the missing games", file=sys.stderr)
        return 130
    return 1 if outcome.failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "tournament":
            return tournament(args)
    except BrokenPipeError:  # the report piped into head, say: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 2  # pragma: no cover - argparse requires a command


if __name__ == "__main__":
    sys.exit(main())
