"""Running a tournament: the schedule's games, ``concurrency`` at a time (threads:
each game is I/O to the server and the bots' thinking), each written to the
results file as it ends, a progress line on stderr, and an SPRT that may stop
a two-bot match early.  ``--resume`` plays only the games the results file
lacks.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from engine.errors import EngineError
from engine.registry import GAMES
from umpire.bots import BotFactory
from umpire.client import ServiceError
from umpire.config import GameSpec, Settings
from umpire.play import GRACE_S, Aborted, MatchService, play_game
from umpire.progress import Progress
from umpire.report import summarize
from umpire.results import ResultsWriter, read_results
from umpire.stats import Sprt

Json = dict[str, Any]

MAX_FAILURES = 3  # games in a row the service failed (not a bot): then the tournament stops


class TournamentError(Exception):
    """Settings or files that do not allow the tournament to run; the message says why."""


@dataclass
class Outcome:
    """What a run did: every results line (old and new), the new ones, and whether it stopped early."""

    lines: list[Json]
    played: list[Json] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    sprt_decision: str | None = None
    interrupted: bool = False


def check_settings(settings: Settings) -> None:
    """The options make a game, and every opening replays legally on the engine
    and leaves the game going (when this installation's engine knows the game;
    the server judges the clock)."""
    game = GAMES.get(settings.game)
    if game is None:
        return
    try:
        game.new(settings.game_options(settings.schedule()[0], "seed" in game.describe()["options"]))
    except EngineError as e:
        raise TournamentError(f"--option: {getattr(e, 'field', 'options')}: {e}") from None
    for n, moves in enumerate(settings.openings):
        opts = settings.options if "seed" not in game.describe()["options"] else {**settings.options, "seed": "check"}
        replay = game.replay(opts, moves)
        if not replay.valid:
            assert replay.first_illegal is not None
            i, err = replay.first_illegal
            raise TournamentError(f"opening {n + 1}: move {i + 1} ({moves[i]!r}) is illegal: {err}")
        if game.is_over(replay.state):
            raise TournamentError(f"opening {n + 1} ends the game")


def bot_seed(settings: Settings, spec: GameSpec, seat: int) -> int:
    return (settings.seed * 1_000_003 + spec.index * 2 + seat) % (1 << 62)


def first_bot_result(line: Json) -> float | None:
    """The result of bot 0 in this game (1, 0, 0.5), or None if bot 0 did not play it."""
    seats = line["seats"]
    if 0 not in seats:
        return None
    if line["winner"] is None:
        return 0.5
    return 1.0 if seats[line["winner"]] == 0 else 0.0


def sprt_state(sprt: Sprt | None, lines: list[Json]) -> tuple[str | None, tuple[int, int, int]]:
    """The SPRT's decision on the games so far (a two-bot tournament), and bot 0's W-L-D."""
    wld = [0, 0, 0]
    for line in lines:
        r = first_bot_result(line)
        if r is not None:
            wld[0 if r == 1 else 1 if r == 0 else 2] += 1
    w, lo, d = wld
    return (sprt.decision(w, lo, d) if sprt is not None else None), (w, lo, d)


def run(
    settings: Settings,
    matches: MatchService,
    out: str | Path,
    concurrency: int = 1,
    resume: bool = False,
    sprt: Sprt | None = None,
    grace_s: float = GRACE_S,
    progress: bool = True,
    stream: TextIO | None = None,
    server_label: str = "",
) -> Outcome:
    """Play the tournament's missing games and return every results line."""
    if settings.games < 1:
        raise TournamentError("--games must be at least 1")
    if len(settings.bots) < 2:
        raise TournamentError("a tournament needs at least two bots")
    if sprt is not None and len(settings.bots) != 2:
        raise TournamentError("--sprt tests a match of exactly two bots")
    if concurrency < 1:
        raise TournamentError("--concurrency must be at least 1")
    check_settings(settings)
    path = Path(out)
    fingerprint = settings.fingerprint()
    existing: list[Json] = []
    if path.exists() and path.stat().st_size > 0:
        if not resume:
            raise TournamentError(f"{path} already holds results: --resume to finish that tournament, or choose another --out")
        existing = read_results(path)
        alien = [line for line in existing if line.get("tournament") != fingerprint]
        if alien:
            raise TournamentError(
                f"{path} holds games of another tournament (other game, options, bots, games, format, clock, openings or seed): "
                "resume with the same settings, or choose another --out"
            )
    done = {line["key"] for line in existing}
    todo = [spec for spec in settings.schedule() if spec.key not in done]
    factories = [BotFactory(spec, settings.game) for spec in settings.bots]
    engine = GAMES.get(settings.game)
    seeded = engine is not None and "seed" in engine.describe()["options"]

    outcome = Outcome(list(existing))
    decision, _ = sprt_state(sprt, existing)
    outcome.sprt_decision = decision
    total = len(existing) + len(todo)
    bar = Progress(total, settings.bots[0], len(existing), stream=stream, enabled=progress)
    _, wld = sprt_state(None, existing)
    bar.wld = list(wld)
    if decision is not None or not todo:
        bar.close()
        return outcome

    work: queue.Queue[GameSpec] = queue.Queue()
    for spec in todo:
        work.put(spec)
    stop = threading.Event()  # no new games (SPRT decided, too many failures, interrupted)
    abort = threading.Event()  # leave running games unfinished (interrupted)
    lock = threading.Lock()
    failures_in_row = [0]

    def one(spec: GameSpec) -> None:
        bots = (
            factories[spec.seats[0]].make(bot_seed(settings, spec, 0)),
            factories[spec.seats[1]].make(bot_seed(settings, spec, 1)),
        )
        opening = settings.openings[spec.opening] if spec.opening is not None else []
        try:
            result = play_game(
                matches,
                settings.game,
                settings.game_options(spec, seeded),
                settings.clock,
                bots,
                (settings.bots[spec.seats[0]], settings.bots[spec.seats[1]]),
                opening,
                abort,
                grace_s,
            )
        finally:
            for seat in (0, 1):
                factories[spec.seats[seat]].done(bots[seat])
        if abort.is_set():
            return
        winner = result["winner"]
        line: Json = {
            "tournament": fingerprint,
            "key": spec.key,
            "index": spec.index,
            "round": spec.round,
            "pairing": list(spec.pairing),
            "number": spec.number,
            "seats": list(spec.seats),
            **{k: result[k] for k in ("game", "options", "players", "clock")},
            "opening": None if spec.opening is None else {"index": spec.opening, "moves": opening},
            **{k: v for k, v in result.items() if k not in ("game", "options", "players", "clock", "opening")},
            "winner_bot": None if winner is None else settings.bots[spec.seats[winner]],
            "seed": settings.seed,
            "server": server_label,
        }
        with lock:
            writer.write(line)
            outcome.lines.append(line)
            outcome.played.append(line)
            failures_in_row[0] = 0
            bar.update(first_bot_result(line), f"{spec.key}: {line['reason']}")
            if sprt is not None:
                decided, _ = sprt_state(sprt, outcome.lines)
                if decided is not None and outcome.sprt_decision is None:
                    outcome.sprt_decision = decided
                    stop.set()
                    bar.message(f"SPRT: {decided} accepted after {len(outcome.lines)} games; no more games are started")

    def worker() -> None:
        try:
            games()
        finally:
            matches.close()  # this thread's keep-alive connection

    def games() -> None:
        while not stop.is_set():
            try:
                spec = work.get_nowait()
            except queue.Empty:
                return
            try:
                one(spec)
            except Aborted:
                return
            except Exception as e:  # a game that cannot be played is reported, never a dead thread
                if abort.is_set():
                    return  # interrupted: its server or its bots are being stopped under it
                with lock:
                    outcome.failures.append(f"{spec.key}: {e}")
                    failures_in_row[0] += 1
                    bar.message(f"game {spec.key} could not be played: {e}")
                    if isinstance(e, ServiceError) and e.status in (400, 401, 403, 404, 415, 422):
                        stop.set()  # the server refuses the tournament's settings (clock, options, token): no game will do
                        bar.message("the server refused the match: stopping")
                    elif failures_in_row[0] >= MAX_FAILURES:
                        stop.set()
                        bar.message(f"{MAX_FAILURES} games in a row could not be played: stopping")

    writer = ResultsWriter(path, append=bool(existing))
    threads = [threading.Thread(target=worker, name=f"game-{i}", daemon=True) for i in range(min(concurrency, len(todo)))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(0.2)
    except KeyboardInterrupt:
        outcome.interrupted = True
        stop.set()
        abort.set()
        bar.message("interrupted: the games being played are left unrecorded; --resume plays them")
        for f in factories:
            f.close()  # stops programs a game is waiting for
        for t in threads:
            t.join(5.0)
    finally:
        writer.close()
        bar.close()
        for f in factories:
            f.close()
    return outcome


def report_text(lines: list[Json], sprt: Sprt | None = None) -> str:
    from umpire.report import format_report

    return format_report(summarize(lines, sprt))
