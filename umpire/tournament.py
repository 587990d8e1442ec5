"""Running a tournament: the schedule's games, ``concurrency`` at a time (threads:
each game is I/O to the server and the bots' thinking), each written to the
results file as it ends, a progress line on stderr, and an SPRT that may stop
a two-bot match early.  ``--resume`` plays only the games the results file
lacks, as the run the file keeps (umpire/config.py ``Run``).  Every setting is
checked before the first game (:func:`check_settings`); a match aborted under
its game is no result, and an interrupted run aborts its own matches with
their own umpire tokens.
"""

from __future__ import annotations

import os
import queue
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from engine.clock import spec_from
from engine.errors import EngineError
from engine.registry import GAMES, PRESETS
from umpire.bots import BotFactory, BotStartError, Wiring
from umpire.bots.external import HELLO_TIMEOUT_S
from umpire.client import ServiceError
from umpire.config import ENGINE_ONLY_CLOCK, GRACE_S, MOVE_LIMIT_S, GameSpec, Run, Settings
from umpire.local import LocalMatches
from umpire.play import Aborted, InPlay, MatchService, iso_now, play_game
from umpire.progress import Progress
from umpire.records import RecordsWriter
from umpire.report import pair_key, summarize
from umpire.results import RUN, ResultsWriter, read_results, read_run, read_settings
from umpire.stats import Sprt, pentanomial

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
    aborted: list[str] = field(default_factory=list)  # matches in play aborted on the server (interrupted, SPRT decided)
    after_decision: list[str] = field(default_factory=list)  # games that ended after the SPRT decided: not counted
    not_aborted: list[str] = field(default_factory=list)  # and those that could not be (why)


def check_settings(settings: Settings) -> None:
    """Everything about the games, checked before the first one (and before a results file
    is written): the options make a game, the clock is one the service takes for it (as
    ``POST /v1/matches`` reads it: engine/clock.py ``spec_from``, and a flag that ends the
    game only where the game's own rule says so), and every opening replays legally on the
    engine and leaves the game going.  A game this installation's engine does not know is
    left for the ``--server`` to judge."""
    game = GAMES.get(settings.game)
    if game is None:
        return
    try:
        state = game.new(settings.game_options(settings.schedule()[0], "seed" in game.describe()["options"]))
    except EngineError as e:
        raise TournamentError(f"--option: {getattr(e, 'field', 'options')}: {e}") from None
    try:
        spec = spec_from(settings.clock, game.default_preset(game.dump(state)["options"]), PRESETS)
    except EngineError as e:
        raise TournamentError(f"--clock: {e}") from None
    if spec.on_flag == "loses" and game.flag_rule != "loses":
        raise TournamentError(
            f"--clock: its flag loses the game (on_flag loses), but in {settings.game} a flag is handled by the game's "
            f"own rule: add on_flag={game.flag_rule}"
        )
    for n, moves in enumerate(settings.openings):
        opts = settings.options if "seed" not in game.describe()["options"] else {**settings.options, "seed": "check"}
        replay = game.replay(opts, moves)
        if not replay.valid:
            assert replay.first_illegal is not None
            i, err = replay.first_illegal
            raise TournamentError(f"opening {n + 1}: move {i + 1} ({moves[i]!r}) is illegal: {err}")
        if game.is_over(replay.state):
            raise TournamentError(f"opening {n + 1} ends the game")


def bot_dir(settings: Settings, i: int, plan: Run | None) -> str | None:
    """The folder bot ``i``'s program runs in: its engine's ``dir=`` (absolute), else the folder the
    run was started in, so that ``cmd:python bots/mine.py`` resumed from elsewhere is the same program."""
    return settings.engine(i).dir or (plan.cwd if plan is not None else None)


def check_bots(settings: Settings, hello_timeout_s: float = HELLO_TIMEOUT_S, plan: Run | None = None) -> None:
    """Every external bot (a program, an HTTP bot) starts and answers ``hello`` within the hello
    deadline, checked before the first game and before anything is written: one that cannot is
    refused with its name (a typo in a command, a folder that is not there, a URL nobody answers),
    never scored as game after game of ``crash`` losses."""
    engine = GAMES.get(settings.game)
    seeded = engine is not None and "seed" in engine.describe()["options"]
    options = settings.game_options(settings.schedule()[0], seeded)
    for i, spec in enumerate(settings.bots):
        factory = BotFactory(spec, settings.game, bot_dir(settings, i, plan), wiring_for(settings, i, hello_timeout_s, None))
        try:
            factory.check_start(options)
        except BotStartError as e:
            label = settings.labels[i]
            who = spec if label == spec else f"{label!r} ({spec})"
            raise TournamentError(f"bot {who} cannot start: {e}") from None
        finally:
            factory.close()


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


def counts(lines: list[Json]) -> tuple[tuple[int, int, int], tuple[int, int, int, int, int]]:
    """Bot 0's W-L-D in its games, and the pentanomial counts of its complete pairs."""
    wld = [0, 0, 0]
    halves: dict[tuple[Any, ...], list[float]] = {}
    for line in lines:
        r = first_bot_result(line)
        if r is None:
            continue
        wld[0 if r == 1 else 1 if r == 0 else 2] += 1
        halves.setdefault((tuple(line["pairing"]), *pair_key(line)), []).append(r)
    w, lo, d = wld
    return (w, lo, d), pentanomial(sum(r) for r in halves.values() if len(r) == 2)


def sprt_state(sprt: Sprt | None, lines: list[Json]) -> tuple[str | None, tuple[int, int, int]]:
    """The SPRT's decision on the games so far (a two-bot tournament), and bot 0's W-L-D."""
    wld, penta = counts(lines)
    return (sprt.state(wld, penta)[1] if sprt is not None else None), wld


def tournament_tags(settings: Settings) -> list[str]:
    """The tags of the tournament's matches on the server: ``umpire-tournament`` and its fingerprint."""
    return ["umpire-tournament", f"tournament-{settings.fingerprint()}"]


def check_resume(path: Path, settings: Settings, sprt: Sprt | None) -> None:
    """A results file being resumed holds this tournament (and no other)."""
    fingerprint = settings.fingerprint()
    kept = read_settings(path)
    if kept is not None and kept.get("tournament") != fingerprint:
        raise TournamentError(
            f"{path} holds another tournament (other game, options, bots, games, format, clock, openings or seed): "
            "resume it with --resume alone, or choose another --out"
        )
    if kept is not None and sprt is not None and kept.get("sprt") not in (None, sprt.to_json()):
        raise TournamentError(f"{path} was started with another SPRT ({kept['sprt']}): resume it without --sprt")
    alien = [line for line in read_results(path) if line.get("tournament") != fingerprint]
    if alien:
        raise TournamentError(
            f"{path} holds games of another tournament (other game, options, bots, games, format, clock, openings or seed): "
            "resume with the same settings, or choose another --out"
        )


def wiring_for(settings: Settings, i: int, hello_timeout_s: float, log: Callable[[str, str, str], None] | None) -> Wiring:
    engine = settings.engine(i)
    return Wiring(dict(engine.env), engine.stderr, _named(log, engine.label), hello_timeout_s)


def _named(log: Callable[[str, str, str], None] | None, label: str) -> Callable[[str, str, str], None] | None:
    if log is None:
        return None
    return lambda who, way, text: log(f"{label} {who}", way, text)


class BotLog:
    """``--log FILE``: every line exchanged with every bot, one a line:
    ``time  bot (pid N)  >|<|!  text`` (``>`` to the bot, ``<`` from it, ``!`` its stderr)."""

    def __init__(self, path: str | Path) -> None:
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self._lock = threading.Lock()

    def __call__(self, who: str, way: str, text: str) -> None:
        line = f"{iso_now()}  {who}  {way}  {text}\n"
        with self._lock:
            if not self._file.closed:
                self._file.write(line)
                self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()


def new_run_id() -> str:
    """A run's identity: every tournament started gets its own (``--resume`` keeps it)."""
    return secrets.token_hex(8)


def held_games(path: Path, settings: Settings, sprt: Sprt | None, resume: bool) -> list[Json]:
    """The games the results file already holds: none unless resuming (then of this tournament).
    A file that holds no game yet (only its settings: the run stopped before its first game
    ended) never blocks a new run: it is started afresh."""
    existing = read_results(path) if path.exists() and path.stat().st_size > 0 else []
    if existing:
        if not resume:
            raise TournamentError(
                f"--out {path} already holds results: --resume to finish that tournament, or choose another --out"
            )
        check_resume(path, settings, sprt)
    return existing


def check_files(out: Path, plan: Run, settings: Settings, sprt: Sprt | None, resume: bool) -> None:
    """The files a run writes, checked before anything starts or is written: each one's folder
    is there and may be written in, and the results file holds no other games (:func:`held_games`)."""
    for flag, name in (("--out", out), ("--records", plan.records), ("--log", plan.log), ("--plot", plan.plot)):
        if name is None:
            continue
        path = Path(name)
        folder = path.resolve().parent
        if path.is_dir():
            raise TournamentError(f"{flag} {name} is a folder: name a file")
        if not folder.is_dir():
            raise TournamentError(f"{flag} {name}: there is no folder {folder}")
        if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise TournamentError(f"{flag} {name}: it cannot be written here (permissions)")
    held_games(out, settings, sprt, resume)


def open_results(path: Path, settings: Settings, sprt: Sprt | None, plan: Run, resume: bool) -> tuple[list[Json], ResultsWriter]:
    """The games a results file already holds (:func:`held_games`), and a writer appending to it
    (resuming) or starting it: its settings line with the run, and on a resume that changed how
    the run is played a ``run`` line."""
    existing = held_games(path, settings, sprt, resume)
    append = bool(existing) or (resume and path.exists() and read_settings(path) is not None)
    header = {
        "tournament": settings.fingerprint(), "run": plan.to_json(), "settings": settings.to_json(),
        "sprt": None if sprt is None else sprt.to_json(),
    }  # fmt: skip
    writer = ResultsWriter(path, append=append, header=header)
    if append and read_run(path) != plan.to_json():
        writer.write({"type": RUN, **plan.to_json()})
    return existing, writer


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
    hello_timeout_s: float = HELLO_TIMEOUT_S,
    records: str | Path | None = None,
    log: str | Path | None = None,
    report_every: int = 0,
    move_limit_s: float | None = None,
    plan: Run | None = None,
    bots_checked: bool = False,
) -> Outcome:
    """Play the tournament's missing games and return every results line.

    ``plan`` is the run (its identity, and how it is played: umpire/config.py ``Run``, as
    the command line gives it); without it, a new run of the other arguments.

    Interrupted (KeyboardInterrupt in the calling thread: Ctrl-C, or SIGTERM as
    umpire/cli.py turns it into one), it stops starting games, aborts the
    matches in play on the server with their own umpire tokens (they end
    ``aborted``, never won or lost), stops the bots, and returns what was
    played with ``interrupted`` set.

    Every external bot is started once before anything is written (:func:`check_bots`; unless
    ``bots_checked``: the caller did).  A bot that cannot start a game later stops the
    tournament, as fastchess does: that game is not scored, ``--resume`` plays it."""
    if plan is None:
        plan = Run(
            new_run_id(), engine_only=isinstance(matches, LocalMatches), concurrency=concurrency,
            records=None if records is None else str(records),
            log=None if log is None else str(log), report_every=report_every, grace_s=grace_s,
            hello_timeout_s=hello_timeout_s, move_limit_s=MOVE_LIMIT_S if move_limit_s is None else move_limit_s,
        )  # fmt: skip
    if settings.games < 1:
        raise TournamentError("--games must be at least 1")
    if len(settings.bots) < 2:
        raise TournamentError("a tournament needs at least two bots")
    if sprt is not None and len(settings.bots) != 2:
        raise TournamentError("--sprt tests a match of exactly two bots")
    if plan.concurrency < 1:
        raise TournamentError("--concurrency must be at least 1")
    if plan.engine_only and settings.clock is not None:
        raise TournamentError(ENGINE_ONLY_CLOCK)
    check_settings(settings)
    if not bots_checked:
        check_bots(settings, plan.hello_timeout_s, plan)
    path = Path(out)
    existing, writer = open_results(path, settings, sprt, plan, resume)
    done = {line["key"] for line in existing}
    todo = [spec for spec in settings.schedule() if spec.key not in done]
    bot_log = BotLog(plan.log) if plan.log else None
    factories = [
        BotFactory(spec, settings.game, bot_dir(settings, i, plan), wiring_for(settings, i, plan.hello_timeout_s, bot_log))
        for i, spec in enumerate(settings.bots)
    ]
    engine = GAMES.get(settings.game)
    seeded = engine is not None and "seed" in engine.describe()["options"]
    labels = settings.labels
    explicit = [settings.engine(i).name for i in range(len(settings.bots))]
    tags = tournament_tags(settings)
    limit = plan.move_limit_s if plan.engine_only else None  # no clock: each move has this long

    outcome = Outcome(list(existing))
    decision, _ = sprt_state(sprt, existing)
    outcome.sprt_decision = decision
    total = len(existing) + len(todo)
    bar = Progress(total, labels[0], len(existing), stream=stream, enabled=progress)
    _, wld = sprt_state(None, existing)
    bar.wld = list(wld)
    if decision is not None or not todo:
        bar.close()
        writer.close()
        if bot_log is not None:
            bot_log.close()
        return outcome

    work: queue.Queue[GameSpec] = queue.Queue()
    for spec in todo:
        work.put(spec)
    stop = threading.Event()  # no new games (SPRT decided, too many failures, interrupted)
    abort = threading.Event()  # leave running games unfinished (interrupted)
    in_play = InPlay()
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
                plan.grace_s,
                in_play=in_play,
                names=(explicit[spec.seats[0]], explicit[spec.seats[1]]),
                tags=[*tags, spec.key],
                move_limit_s=limit,
            )
        finally:
            for seat in (0, 1):
                factories[spec.seats[seat]].done(bots[seat])
        if abort.is_set():
            return
        record(spec, opening, result)

    def record(spec: GameSpec, opening: list[str], result: Json) -> None:
        line = results_line(settings, spec, opening, result, server_label, plan.id)
        with lock:
            if outcome.sprt_decision is not None:
                # A game that ends after the SPRT decided is not counted, nor written: the report is the
                # one the decision was taken on.  So does fastchess (tournament.cpp playGame: a game that
                # ends once atomic::stop is set is neither written nor passed to the scoreboard).
                outcome.after_decision.append(spec.key)
                return
            writer.write(line)
            if records_writer is not None:
                records_writer.write(line)
            outcome.lines.append(line)
            outcome.played.append(line)
            failures_in_row[0] = 0
            bar.update(first_bot_result(line), f"{spec.key}: {line['reason']}")
            if plan.report_every and len(outcome.played) % plan.report_every == 0 and len(outcome.lines) < total:
                bar.message(f"-- after {len(outcome.lines)} of {total} games --\n" + report_text(outcome.lines, sprt).rstrip())
            if sprt is not None:
                decided, _ = sprt_state(sprt, outcome.lines)
                if decided is not None and outcome.sprt_decision is None:
                    outcome.sprt_decision = decided
                    stop.set()
                    abort.set()  # the games in play stop at their next move, and are aborted on the server below
                    bar.message(
                        f"SPRT: {decided} accepted after {len(outcome.lines)} games; no more games are started, "
                        "and those in play are stopped and not counted (as fastchess)"
                    )

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
            except BotStartError as e:
                with lock:  # as fastchess: an engine that cannot be started stops the tournament; no game is scored
                    outcome.failures.append(f"{spec.key}: {e}; the tournament stopped, no game scored: --resume plays it")
                    stop.set()
            except Aborted as e:
                if abort.is_set():
                    return  # interrupted
                with lock:  # aborted on the server under the game (an umpire): no result, a game to play again
                    outcome.failures.append(f"{spec.key}: {e}; --resume plays it")
                    bar.message(f"game {spec.key}: {e}")
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

    records_writer = RecordsWriter(plan.records) if plan.records else None
    threads = [threading.Thread(target=worker, name=f"game-{i}", daemon=True) for i in range(min(plan.concurrency, len(todo)))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(0.2)
                if outcome.sprt_decision is not None and not outcome.interrupted:
                    _abort_all(matches, in_play, outcome)  # decided: a waiting read returns at once
        _abort_all(matches, in_play, outcome)  # none left, unless the SPRT stopped games meanwhile
    except KeyboardInterrupt:
        outcome.interrupted = True
        stop.set()
        abort.set()
        bar.message("interrupted: aborting the games in play on the server; they are left unrecorded, --resume plays them")
        _abort_all(matches, in_play, outcome)  # a waiting read returns at once: the match is over
        for f in factories:
            f.close()  # stops programs a game is waiting for
        for t in threads:
            t.join(5.0)
        _abort_all(matches, in_play, outcome)  # a match created meanwhile
    finally:
        writer.close()
        if records_writer is not None:
            records_writer.close()
        bar.close()
        for f in factories:
            f.close()
        if bot_log is not None:
            bot_log.close()
    return outcome


def _abort_all(matches: MatchService, in_play: InPlay, outcome: Outcome) -> None:
    for match in in_play.take():
        try:
            matches.abort(match.match_id, match.umpire)
            outcome.aborted.append(match.match_id)
        except (ServiceError, OSError) as e:
            outcome.not_aborted.append(f"{match.match_id}: {e}")
    matches.close()


def results_line(
    settings: Settings, spec: GameSpec, opening: list[str], result: Json, server_label: str, run_id: str | None = None
) -> Json:
    """The results file's line of a game."""
    winner = result["winner"]
    return {
        "tournament": settings.fingerprint(),
        "run": run_id,
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


def report_text(lines: list[Json], sprt: Sprt | None = None) -> str:
    from umpire.report import format_report

    return format_report(summarize(lines, sprt))
