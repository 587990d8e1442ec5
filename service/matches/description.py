"""One change to a match, described once: :class:`Description`, which every channel writes in
its own format.

A change is decided inside the compare-and-set loop (the operations, ``decide_*`` in
service/matches/moves.py and controls.py, on the referee's decisions: service/matches/referee.py;
the loop: service/matches/changes.py) and committed as one record entry; only then is it
described, from that committed entry, the game's states before and after it and the engine's
events: the announcements, the move, the state, the clocks, the end.  Nothing of it is stored:
the same description is made again from the record by the engine (:func:`describe_step`: a
retried move's answer, an event stream, a webhook), so every channel says the same thing, byte
for byte, whenever it asks.

The channels, each a writer of a :class:`Description`:

* the HTTP answer to the change (service/matches/answers.py ``answer_of``), and to a retry
  of it (rebuilt from the record: the same bytes);
* the event stream (service/matches/events.py ``stream_events``: the change's events and,
  when it ended the game, ``end``);
* a webhook's post (service/matches/deliverer.py describes each record entry with
  :func:`describe_step`; service/matches/webhook_formats.py writes :meth:`Description.post`,
  the announcements, the clocks, :meth:`Description.svg` and :attr:`Description.picture_ply`
  in Discord's, Slack's and its own JSON format);
* Discord's interactions (service/discord/umpire.py gets the description from the same
  operations the HTTP views call; service/discord/messages.py writes it as a message:
  :meth:`Description.post` in Discord's format, the clocks, a picture when
  :attr:`Description.board_changed`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import views
from engine.game import RESERVED, Game, Json, Outcome
from service.matches.match import Live, Meta
from service.matches.record import Entry, Step, iso

AnyGame = Game[Any, Any]


def picture_ply(before: Json | None, after: Json) -> int | None:
    """The ``?ply=`` that names the picture of ``after`` (the position a change
    left, ``before`` the one it found): the state's own ply, or None for an end
    without a move (a resignation, an abort...), which kept the ply of the move
    before it and is a finished match's latest position, one that never changes."""
    if before is not None and after["status"] == "finished" and before["ply"] == after["ply"]:
        return None
    ply: int = after["ply"]
    return ply


def clock_json(live: Live, now: int, start: str) -> Json:
    """The clock object of API.md: each seat's bank and time left, the deadline
    of the seat to move.  ``remaining_s``: for the seat whose turn runs, the
    time until it flags (turn left and bank); for the other, what it will have
    when its turn starts (the turn allowance and its bank).  While the clocks
    are paused or wait for their start (``paused``, ``started``), no deadline:
    the seat to move has what it had at the pause (a whole turn and its bank
    before the start)."""
    clock = live.clock
    deadline = None if clock.deadline is None else iso(clock.deadline)
    seats: dict[str, Json] = {}
    for seat in (0, 1):
        one: Json = {"bank_s": clock.banks[seat] / 1000}
        if clock.mover is None:
            one["remaining_s"] = 0.0
        elif seat == clock.mover and not clock.proxy and clock.paused_at is not None:
            one["remaining_s"] = max(0, clock.spec.turn_ms + clock.banks[seat] - clock.used(now)) / 1000
        elif seat == clock.mover and not clock.proxy:
            one["remaining_s"] = max(0, (clock.deadline or now) - now) / 1000
            one["deadline"] = deadline
        elif seat == clock.mover:  # flagged: R-X6's window is the opponent's to use
            one["remaining_s"] = 0.0
            if deadline is not None:  # not while paused
                one["deadline"] = deadline
        else:
            one["remaining_s"] = (clock.spec.turn_ms + clock.banks[seat]) / 1000
        seats[str(seat)] = one
    return {
        **clock.spec.to_json(),
        "seats": seats,
        "to_move": clock.mover,
        "may_move": live.may_move,
        "turn_started": iso(clock.turn_start) if clock.mover is not None and clock.started else None,
        "deadline": deadline,
        "proxy": clock.proxy,
        "start": start,  # when the clocks start (engine/clock.py STARTS): a page says what a waiting clock waits for
        "started": clock.started,
        "paused": clock.paused,
        **({"pause_reason": clock.paused_for} if clock.paused and clock.paused_for is not None else {}),
        "now": iso(now),
    }


@dataclass(frozen=True, slots=True)
class Description:
    """One committed change to a match, as every channel tells it.

    ``entry`` is the record entry committed (``seq`` its number in the record, from 1, when
    known); ``before`` and ``after`` the game's states around it (the engine's JSON) and
    ``events`` the engine's events of it (an umpire's control, a refused attempt: the
    match's own); ``live`` the match's live part right after it; ``announcements`` the
    umpire's sentences; ``clock`` both clocks as clients see them, at the entry's time.
    ``position`` is the engine's state after it when the describer had it at hand (legal
    moves are listed from it without loading ``after`` again)."""

    meta: Meta
    entry: Entry
    before: Json
    after: Json
    events: list[Json]
    live: Live
    announcements: list[str]
    clock: Json
    seq: int | None = None
    position: Any = field(default=None, compare=False, repr=False)

    @property
    def match_id(self) -> str:
        return self.meta.match_id

    @property
    def kind(self) -> str:
        """The entry's kind (service/matches/record.py KINDS)."""
        return self.entry.kind

    @property
    def ply(self) -> int:
        """The position's own ply after the change (the state's)."""
        ply: int = self.after["ply"]
        return ply

    @property
    def ended(self) -> bool:
        """This change ended the game."""
        return bool(self.after["status"] == "finished" and self.before["status"] != "finished")

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, when this change ended it."""
        return Outcome(self.after["winner"], self.after["end"]) if self.ended else None

    @property
    def post_move(self) -> str | None:
        """The move a post shows as played: the entry's word in the record, unless it is a
        reserved one (a resignation or a time-out is announced, not played)."""
        word = self.entry.replay_word()
        return None if word is None or word.split()[0] in RESERVED else word

    @property
    def board_changed(self) -> bool:
        """The position changed (a move, a pass, an end): a picture of it is news.  An umpire's
        control, a refused attempt or a flag that opened R-X6's window left the board as it was."""
        return self.before != self.after

    @property
    def picture_ply(self) -> int | None:
        """The ``?ply=`` of the picture of the position after the change (:func:`picture_ply`)."""
        return picture_ply(self.before, self.after)

    @property
    def at(self) -> str:
        """When the change was made, as clients see the server's time."""
        return iso(self.entry.at)

    def post(self, fmt: str = "markdown", png_url: str | None = None) -> str:
        """The umpire's post of the change (views.post) in ``fmt``, linking the picture at ``png_url``."""
        return views.post(
            self.after, events=self.events, before=self.before, move=self.post_move, png_url=png_url, clock=self.clock,
            names=self.meta.names, ply=self.ply, format=fmt,
        )  # fmt: skip

    def svg(self) -> str:
        """The picture of the position after the change (views.svg), the change's move marked on it."""
        names = self.meta.names
        try:
            return views.svg(self.after, events=self.events, names=names, clock=self.clock)
        except (KeyError, TypeError, ValueError, IndexError):  # a change the views mark nothing of
            return views.svg(self.after, names=names, clock=self.clock)

    def alt_text(self) -> str:
        """What :meth:`svg` shows, in words: the position by its ply, the move that led to it, whose
        turn it is (views.alt_text; the picture's own fallback when the events mark nothing of it)."""
        names = self.meta.names
        try:
            return views.alt_text(self.after, events=self.events, names=names)
        except (KeyError, TypeError, ValueError, IndexError):
            return views.alt_text(self.after, names=names)


def describe(
    meta: Meta, entry: Entry, before: Json, after: Json, events: list[Json], seq: int | None = None, position: Any = None
) -> Description:
    """The description of ``entry``, committed: ``before`` and ``after`` are the game's JSON states
    around it, ``events`` the engine's events of it."""
    finished = after["status"] == "finished"
    live = Live(after, entry.clock_after(meta.spec, after["to_move"]), entry.at if finished else None)
    said = views.announcements(before, events, after, names=meta.names)
    return Description(meta, entry, before, after, events, live, said, clock_json(live, entry.at, meta.start), seq, position)


def describe_step(game: AnyGame, meta: Meta, step: Step, seq: int | None = None) -> Description:
    """The description of a record entry walked by the engine (service/matches/record.py ``walk``):
    what a retried change's answer, the event stream and a webhook are made from."""
    before, after = game.dump(step.before), game.dump(step.after)
    return describe(meta, step.entry, before, after, step.events, seq, step.after)
