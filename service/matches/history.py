"""A managed match's positions, now and at any earlier ply: the one function
the match pictures and posts are built on (service/matches/pictures.py).

``history(store, match_id, ply)`` reads the match (applying any due flag,
as every read does) and its record, and walks the record through the engine
(``walk``) from the options the match was created with to the
position after ``ply`` of its changes.  Everything the pictures and posts
need from a match goes through here, so the match storage can change behind it.

``ply`` counts the record's entries that changed the game - moves, and the
reserved ``timeout``, ``resign N``, ``forfeit N``, ``abort``, ``adjudicate
N|draw`` - that is, the
numbered lines of the record's text (and the entries of its ``replay``
list); a flag that only opened an R-X6 proxy window, an illegal attempt
that was refused, or an umpire's control of the clocks or the seats changed
nothing and is no ply here.  It is the state's own ``ply`` except after a
time-out, a resignation, a forfeit, an abort or an adjudication, and in a
match set up from a position (whose first state's ply is not 0).

The positions are those of the game as it stands: a take-back (service/matches/controls.py decide_takeback)
removes the move it undid from them, so ``ply`` N is the position the game went through
last at N (the one a move made again after the take-back reached).  Only the last move
may be taken back, once, so a position before the latest one never changes.

``by_state_ply=True`` reads ``ply`` as the pictures' query means it (issue 22:
one numbering everywhere): the state's own ``ply``, the first position that
has it (an end without a move - a resignation, a flag that loses, a forfeit,
an abort, an adjudication - keeps the ply of the move before it; it is the
match's latest position, shown without ``ply``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import views
from engine.game import RESERVED
from engine.registry import GAMES
from service.matches.cas import settled
from service.matches.description import clock_json
from service.matches.record import TAKEBACK, Step, entries_of, walk
from service.matches.referee import may_reopen
from service.matches.store import Store
from service.matches.transcript import record_moves
from service.web.errors import ApiError

Json = dict[str, Any]


@dataclass(frozen=True)
class History:
    """One position of a match, with the move that reached it."""

    game: str
    options: Json  # as the match was created: what `replay` takes
    players: tuple[str, str] | None  # the players' names, when the match has them
    ply: int  # the position shown: after this many record entries
    last_ply: int  # the match's latest position
    state: Json  # the game's JSON state at `ply`
    before: Json | None  # the state before the entry that reached `ply` (None at 0)
    move: str | None  # that entry in the record's notation (a move, `timeout`, `resign 1`)
    events: list[Json]  # that entry's events
    clock: Json | None  # the match's clock now, for the latest position; None for earlier ones
    finished: bool  # the match has ended (for good: ``reopenable`` says whether a take-back may reopen it)
    reopenable: bool = False

    @property
    def settled(self) -> bool:
        """The position can never change: an earlier ply, or the end of a finished match that no take-back
        may reopen any more."""
        return (self.finished and not self.reopenable) or self.ply < self.last_ply

    @property
    def post_move(self) -> str | None:
        """The move a post shows as played: a resignation or a time-out is announced, not played."""
        return self.move if self.move is not None and self.move.split()[0] not in RESERVED else None

    def post(self, fmt: str = "markdown", png_url: str | None = None, names: tuple[str, str] | None = None) -> str:
        """The umpire's post of this position (views.post) in ``fmt``, linking its picture at ``png_url``
        (``names``: the players' names to show instead of the match's)."""
        return views.post(
            self.state, events=self.events, before=self.before, move=self.post_move, png_url=png_url, clock=self.clock,
            names=names or self.players, format=fmt,
        )  # fmt: skip

    def svg(self, palette: str = "default", coords: bool = False, names: tuple[str, str] | None = None) -> str:
        """The picture of this position (views.svg), the move that reached it marked."""
        return views.svg(
            self.state, events=self.events, palette=palette, coords=coords, names=names or self.players, clock=self.clock
        )

    def alt_text(self) -> str:
        """What :meth:`svg` shows, in words (views.alt_text)."""
        return views.alt_text(self.state, events=self.events, names=self.players)


def history(store: Store, match_id: str, ply: int | None, *, by_state_ply: bool = False) -> History:
    """The match's position after ``ply`` record entries (the latest when
    None; with ``by_state_ply``, the first position whose state's ply is
    ``ply``): 404 ``match_not_found``, 422 ``ply_not_reached`` for a ply the
    record does not reach."""
    cur = settled(store, match_id)  # Gone: 404 (service/matches/failures.py)
    game = GAMES[cur.meta.game]
    entries = entries_of(store.record(match_id))
    changes: list[Step] = []  # the steps that made the game as it stands
    for step in walk(game, cur.meta, entries):
        if step.entry.kind == TAKEBACK:
            changes.pop()  # the move it took back is no position of the game any more
        elif step.after is not step.before:
            changes.append(step)
    last = len(changes)
    shown = last if ply is None else ply
    if by_state_ply and ply is not None:
        plies = [game.new(cur.meta.options).ply, *(step.after.ply for step in changes)]
        if ply not in plies:
            raise ApiError(
                "ply_not_reached",
                f"ply must be a whole number from {plies[0]} to {plies[-1]}, the plies of the match's positions.",
                {"parameter": "ply", "last": plies[-1]},
            )
        shown = plies.index(ply)
    if not 0 <= shown <= last:
        raise ApiError(
            "ply_not_reached",
            f"ply must be a whole number from 0 to {last}, the record's length.",
            {"parameter": "ply", "last": last},
        )
    reached: Step | None = changes[shown - 1] if shown else None
    if reached is None:
        state = game.dump(game.new(cur.meta.options)) if last else cur.live.state
    else:
        state = cur.live.state if shown == last else game.dump(reached.after)
    names = cur.meta.names
    return History(
        game=game.name,
        options=dict(cur.meta.options),
        players=None if names is None else (names[0], names[1]),
        ply=shown,
        last_ply=last,
        state=state,
        before=None if reached is None else game.dump(reached.before),
        move=None if reached is None else record_moves([reached.entry])[0],
        events=[] if reached is None else list(reached.events),
        clock=clock_json(cur.live, cur.now, cur.meta.start) if shown == last else None,
        finished=cur.live.finished,
        reopenable=may_reopen(cur.live, cur.now),
    )
