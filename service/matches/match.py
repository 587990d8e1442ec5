"""A managed match's two stored parts: :class:`Meta`, fixed when it is created (game,
options, clock, seats, names, tags, illegal-move policy), and :class:`Live`, which every
change replaces (the game's JSON state and the clocks).  Its record is a list of
:class:`~service.matches.record.Entry` (service/matches/record.py)."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from engine.clock import ClockSpec, MatchClock
from engine.game import Json
from service.matches.jsontext import canonical, compact, parse_json

POLICIES = ("reject", "forfeit")  # what an illegal move does to a match
CO_UMPIRES = 3  # co-umpire links a match has at once, at most (issue 35: a second device, a co-umpire)
CO_UMPIRES_MADE = 10  # co-umpire links made over a match's life, at most (each is a record entry)
# The umpire's controls that add to the record on their own (issue 34's bound, for the umpire's token: anyone who creates
# a match holds one): a pause, a gift of time, a seat's new token, a co-umpire link, a take-back.  The start comes
# once; a resumption closes a pause and a withdrawn link one made, and neither is ever refused: no match is left
# paused, or with a link it cannot withdraw, by the bound.
# A human umpire pauses for a dropped connection or a break, gives time after a dispute, replaces a lost link, takes
# back a slip: a handful in a game.  The longest games here run to some 270 plies (Plur, Too on a side-10 board,
# played out at random): 100 is a pause every third ply of those, some twenty times an umpire's handful; past it is a
# loop.  A bound per match, not per turn: what it bounds is the record's size, and a turn may last (paused) as long as
# the umpire likes, so no Retry-After would be true.
CONTROLS_PER_MATCH = 100
REPLACED_KEPT = 4  # a seat's replaced tokens remembered (as their SHA-256), the latest: told "replaced", not "unknown"


def token_hash(token: str) -> str:
    """Seat tokens are stored only as their SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


def move_digest(move: Any) -> str:
    """What a retry's move must equal, in an Idempotency-Key's pointer."""
    return hashlib.sha256(canonical(move).encode()).hexdigest()[:32]


def _held(pairs: tuple[tuple[int, str], ...], token: str | None) -> int | None:
    """The number paired with ``token``'s SHA-256 in ``pairs``, or None (constant time over them, no early exit)."""
    if not token:
        return None
    digest, found = token_hash(token), None
    for number, stored in pairs:
        if hmac.compare_digest(digest, stored):
            found = number
    return found


@dataclass(frozen=True, slots=True)
class Meta:
    """What is fixed when a match is created (but for a seat's token, which the umpire may reissue, the
    co-umpire links the umpire makes and withdraws, and the count of the umpire's controls)."""

    match_id: str
    game: str
    options: Json  # with the moves of the record, what `replay` needs (Crystal: the seed drawn)
    created_ms: int
    tokens: tuple[str, str]  # SHA-256 of each seat's token
    spec: ClockSpec
    players: tuple[str | None, str | None] = (None, None)
    tags: tuple[str, ...] = ()
    illegal: str = "reject"  # POLICIES
    umpire: str | None = None  # SHA-256 of the match's umpire token (None: a match made before there were any)
    start: str = "created"  # when the clock starts: engine.clock.STARTS
    co_umpires: tuple[tuple[int, str], ...] = ()  # the co-umpire links: (number, SHA-256 of the token), at most CO_UMPIRES
    co_made: int = 0  # co-umpire links made so far (the next one is number co_made + 1)
    replaced: tuple[tuple[int, str], ...] = ()  # (seat, SHA-256) of seat tokens the umpire replaced, the latest last
    controls: int = 0  # the umpire's counted controls so far, at most CONTROLS_PER_MATCH

    def is_umpire(self, token: str | None) -> bool:
        """Whether ``token`` is this match's umpire token (constant time)."""
        return bool(token and self.umpire and hmac.compare_digest(token_hash(token), self.umpire))

    def co_umpire(self, token: str | None) -> int | None:
        """The number of the co-umpire link ``token`` is, or None."""
        return _held(self.co_umpires, token)

    def replaced_seat(self, token: str | None) -> int | None:
        """The seat whose replaced token ``token`` is (the umpire gave the seat a new one), or None."""
        return _held(self.replaced, token)

    def with_token(self, seat: int, digest: str) -> Meta:
        """The meta with ``seat``'s token replaced by the one whose SHA-256 is ``digest`` (the old one
        remembered as replaced: the latest :data:`REPLACED_KEPT` of each seat)."""
        tokens = (digest, self.tokens[1]) if seat == 0 else (self.tokens[0], digest)
        kept = [*self.replaced, (seat, self.tokens[seat])]
        mine = [k for k in kept if k[0] == seat]
        kept = [k for k in kept if k[0] != seat or k in mine[-REPLACED_KEPT:]]
        return replace(self, tokens=tokens, replaced=tuple(kept))

    def with_co_umpire(self, digest: str) -> Meta:
        """The meta with one more co-umpire link, numbered ``co_made + 1`` (the caller checked the bounds)."""
        number = self.co_made + 1
        return replace(self, co_umpires=(*self.co_umpires, (number, digest)), co_made=number)

    def with_control(self) -> Meta:
        """The meta with one more of the umpire's counted controls (the caller checked the bound)."""
        return replace(self, controls=self.controls + 1)

    def without_co_umpire(self, number: int) -> Meta:
        """The meta without co-umpire link ``number``."""
        return replace(self, co_umpires=tuple(c for c in self.co_umpires if c[0] != number))

    def seat_of(self, token: str | None) -> int | None:
        """The seat ``token`` belongs to, or None."""
        if not token:
            return None
        digest = token_hash(token)
        found = None
        for seat, stored in enumerate(self.tokens):
            if hmac.compare_digest(digest, stored):  # constant time, no early exit
                found = seat
        return found

    @property
    def names(self) -> list[str] | None:
        """The players' names for sentences, when both were given."""
        a, b = self.players
        return [a, b] if a and b else None

    def to_json(self) -> str:
        s = self.spec
        return canonical(
            {
                "match_id": self.match_id,
                "game": self.game,
                "options": self.options,
                "created": self.created_ms,
                "tokens": self.tokens,
                "clock": [s.turn_ms, s.bank_ms, s.step_ms, s.on_flag, s.increment_ms],
                "players": self.players,
                "tags": self.tags,
                "illegal": self.illegal,
                "umpire": self.umpire,
                "start": self.start,
                **({"co_umpires": self.co_umpires, "co_made": self.co_made} if self.co_made else {}),
                **({"replaced": self.replaced} if self.replaced else {}),
                **({"controls": self.controls} if self.controls else {}),
            }
        )  # the fields written only when set: a meta is as it always was otherwise

    @classmethod
    @lru_cache(maxsize=4096)  # fixed for a match's life, read by every request: parsed once per process
    def from_json(cls, text: str) -> Meta:
        d = json.loads(text)  # json, not orjson: a client's options may hold integers beyond 64 bits
        t0, t1 = d["tokens"]
        p0, p1 = d["players"]
        return cls(
            d["match_id"], d["game"], d["options"], d["created"], (t0, t1), ClockSpec(*d["clock"]),
            (p0, p1), tuple(d["tags"]), d["illegal"], d.get("umpire"), d.get("start", "created"),
            tuple((n, h) for n, h in d.get("co_umpires", ())), int(d.get("co_made", 0)),
            tuple((seat, h) for seat, h in d.get("replaced", ())), int(d.get("controls", 0)),
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Live:
    """What every change replaces: the game's state, the clocks, when it ended, and how many
    illegal attempts the running turn has had refused (issue 34: they are bounded per turn,
    service/matches/referee.py ``REFUSED_PER_TURN``; any change but a refusal starts again at 0,
    but an umpire's control, which leaves the turn as it is)."""

    state: Json
    clock: MatchClock
    finished_ms: int | None = None
    refused: int = 0

    @property
    def finished(self) -> bool:
        return bool(self.state["status"] == "finished")

    @property
    def ply(self) -> int:
        ply: int = self.state["ply"]
        return ply

    @property
    def may_move(self) -> int | None:
        """The seat whose token may submit the next move: the mover, or in an
        R-X6 proxy window the mover's opponent."""
        mover = self.clock.mover
        if mover is None:
            return None
        return 1 - mover if self.clock.proxy else mover

    def to_json(self) -> str:
        out: Json = {"state": self.state, "clock": self.clock.to_json(), "finished": self.finished_ms}
        if self.refused:  # written only when there are some: a live part is as it always was otherwise
            out["refused"] = self.refused
        return compact(out)

    @classmethod
    def from_json(cls, text: str) -> Live:
        d = parse_json(text)
        return cls(d["state"], MatchClock.from_json(d["clock"]), d["finished"], int(d.get("refused", 0)))
