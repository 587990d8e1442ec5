"""A match's Discord binding in Redis: the channel it was made in, the Discord user of each seat,
the host (who made it) and the role the host names, and whether the player to move is pinged.

Keys (``{P}`` is ``REDIS_PREFIX``; the binding lives under the match's own hash tag, so it sits
in the match's cluster slot and expires with it)::

    {P}{sXX}:m:{id}:discord      hash    g guild, c channel, s0 / s1 the seats' user ids, h the
                                         host's user id, r the host role's id, p "1": ping,
                                         f the seat of the user named player1 ("1" after first:player2),
                                         w "1": the match posts to the channel's webhook, e "1": the
                                         channel has been told the match's end
    {P}discord:ch:{channel}      string  the channel's match (the latest made there)
    {P}discord:seen:{interaction} string an interaction id already let through (signature.py)

The binding and the channel's key take the match's own time to live each time a command touches
them (a finished match is kept ``MATCH_TTL_S``, an idle one ``MATCH_IDLE_TTL_S``), so they never
outlive it by more than the time between two commands.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.matches.keys import valid_id
from service.matches.store import Store


@dataclass(frozen=True, slots=True)
class Binding:
    match_id: str
    guild: str | None
    channel: str
    seats: tuple[str, str]  # the Discord user id of seat 0, seat 1
    host: str  # the user who made the match
    role: str | None = None  # holders of this role may use the host's commands too
    ping: bool = False  # the player to move is pinged by each answer
    first: int = 0  # the seat of the user the host named player1 (first:player2 or random may give them seat 1)
    webhook: bool = False  # the match posts its changes (a flag) to the channel's webhook too

    def seat_of(self, user: str) -> int | None:
        """The seat ``user`` plays (seat 0 when one user has both: a host testing alone)."""
        return 0 if self.seats[0] == user else 1 if self.seats[1] == user else None

    def named(self, choice: str) -> int | None:
        """The seat of the user the host named ``choice`` (``player1``, ``player2``) at /match new:
        what the host means by it, whichever seat ``first`` gave that user; None for anything else."""
        return {"player1": self.first, "player2": 1 - self.first}.get(choice)

    def is_host(self, user: str, roles: list[str]) -> bool:
        return user == self.host or (self.role is not None and self.role in roles)


def key(store: Store, match_id: str) -> str:
    return f"{store.key(match_id)}:discord"


def channel_key(store: Store, channel: str) -> str:
    return f"{store.prefix}discord:ch:{channel}"


def seen_key(store: Store, interaction: str) -> str:
    return f"{store.prefix}discord:seen:{interaction}"


def save(store: Store, b: Binding) -> None:
    """Write the whole binding, make it the channel's match, and give both the match's time to live."""
    fields = {"g": b.guild or "", "c": b.channel, "s0": b.seats[0], "s1": b.seats[1], "h": b.host, "r": b.role or ""}
    flags = {"p": "1" if b.ping else "", "f": str(b.first), "w": "1" if b.webhook else ""}
    store.r.hset(key(store, b.match_id), mapping={**fields, **flags})
    store.r.set(channel_key(store, b.channel), b.match_id)
    keep(store, b)


def load(store: Store, match_id: str) -> Binding | None:
    """The match's binding; None for none, and for a ``match_id`` that is no match id (a
    ``match:`` option is typed by anyone: it names no key until it is one)."""
    if not valid_id(match_id):
        return None
    raw: dict[str, str] = store.r.hgetall(key(store, match_id))
    if not raw or "c" not in raw:
        return None
    return Binding(
        match_id, raw.get("g") or None, raw["c"], (raw["s0"], raw["s1"]), raw["h"], raw.get("r") or None, raw.get("p") == "1",
        1 if raw.get("f") == "1" else 0, raw.get("w") == "1",
    )  # fmt: skip


def update(store: Store, b: Binding) -> None:
    """A binding changed by the host (a seat handed over, the role, the ping): its fields, kept as long as the match."""
    save_fields = {"s0": b.seats[0], "s1": b.seats[1], "r": b.role or "", "p": "1" if b.ping else ""}
    store.r.hset(key(store, b.match_id), mapping=save_fields)
    keep(store, b)


def told(store: Store, match_id: str, over: bool) -> bool:
    """Note what a public answer told the channel of the match: that it is over (True the first
    time), or that it is on again (a take-back reopened it: its next end is news again)."""
    where = key(store, match_id)
    if not over:
        store.r.hdel(where, "e")
        return False
    return bool(store.r.exists(where)) and bool(store.r.hsetnx(where, "e", "1"))  # never a binding without its fields


def of_channel(store: Store, channel: str) -> str | None:
    found: str | None = store.r.get(channel_key(store, channel))
    return found


def keep(store: Store, b: Binding) -> None:
    """The binding and the channel's key expire when the match does (its time to live now)."""
    ttl = int(store.r.pttl(store.key(b.match_id)))
    if ttl > 0:
        store.r.pexpire(key(store, b.match_id), ttl)
        if of_channel(store, b.channel) == b.match_id:
            store.r.pexpire(channel_key(store, b.channel), ttl)


def first_time(store: Store, interaction: str, keep_s: float) -> bool:
    """True the first time ``interaction`` is seen (then remembered ``keep_s``), False after."""
    return bool(store.r.set(seen_key(store, interaction), "1", nx=True, px=max(1, round(keep_s * 1000))))
