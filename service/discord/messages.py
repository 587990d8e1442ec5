"""What a change says in the channel, and the JSON Discord is sent.

A change is written from its one :class:`~service.matches.description.Description` (the one the
HTTP answer, the event stream and the webhooks write; service/discord/umpire.py gets it from the
same operation the HTTP view calls): the umpire's post in Discord's format
(``Description.post("discord")``, views/posts.py ``discord``: the heading, the announcements, the
diagram, whose turn or the result, both clocks; every name and move escaped so that nothing
pings, links or opens markup), the clocks it tells (whom to ping), and whether the board
changed, so that a picture of it follows (``Description.svg``, ``Description.alt_text``).  A
position (``/board``, a new match) is written from the match's
:class:`~service.matches.history.History`, as ``GET .../post`` writes it.

Around the post, a :class:`Message` adds what only Discord has: a note under the post (who plays
which seat, a refusal's reason, with the players as mentions, which never ping), the picture of
the board as an attachment (sent by editing the answer once it is drawn), and, when the host
turned it on, a ping of the player to move: ``allowed_mentions`` names that one user and nobody
else, and is empty otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import views
from service.discord.binding import Binding
from service.matches.description import Description
from service.matches.history import History
from views.posts import DISCORD_LIMIT, md_escape

Json = dict[str, Any]
EPHEMERAL = 1 << 6  # Discord's message flag: only the user who sent the command sees the answer
PICTURE = "board.png"
EMBED_LIMIT = 4096  # characters of an embed's description
ALT_LIMIT = 1024  # characters of an attachment's description

# Discord's interaction callback types (Receiving and Responding: "Interaction Callback Type")
PONG, CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, AUTOCOMPLETE_RESULT = 1, 4, 5, 8


@dataclass(frozen=True, slots=True)
class Message:
    content: str
    note: str | None = None  # under the post, in an embed (mentions there never ping)
    picture: Callable[[], str] | None = None  # draws the board's SVG (on a posting thread, once the answer has gone)
    alt: str = ""  # the picture's description
    ping: str | None = None  # the one user id the content may ping
    ephemeral: bool = False
    told: tuple[str, bool] | None = None  # the match this answer shows, and whether it shows it over (binding.told)

    def quiet(self) -> Message:
        """The message without its ping: what edits a deferred answer in (an edit never notifies, so
        the ping follows as a message of its own, :func:`ping`, and the channel reads the line once)."""
        if self.ping is None:
            return self
        return replace(self, content=self.content.removeprefix(ping_line(self.ping)), ping=None)


def mention(user: str) -> str:
    """A user as Discord shows them (a mention; it pings only when ``allowed_mentions`` names them)."""
    return f"<@{user}>" if user.isdigit() else md_escape(user)


def seat_line(b: Binding, names: Sequence[str] | None) -> str:
    who = [f"{md_escape(names[s])} ({mention(b.seats[s])})" if names else mention(b.seats[s]) for s in (0, 1)]
    return f"Seat 0: {who[0]} · Seat 1: {who[1]} · Host: {mention(b.host)}"


# The changes that give a player the turn (record.py KINDS): only these ping the player to move.  A look
# (/board), a gift of time, a refused attempt, a pause or a seat handed over leave the turn where it was.
TURN_GIVEN = frozenset({"move", "pass", "takeback", "start", "resume"})


def match_line(b: Binding, names: Sequence[str] | None) -> str:
    """The match's id (what ``match:`` and the API take) and who plays which seat."""
    return f"Match `{b.match_id}` · {seat_line(b, names)}"


def to_ping(clock: Json | None, b: Binding | None) -> str | None:
    """The user of the seat to move, when the host turned pings on and that seat's clock runs (or
    starts with that move: ``start:first_move``)."""
    if b is None or not b.ping or clock is None:
        return None
    seat = clock.get("may_move")
    if seat not in (0, 1) or clock.get("paused") or not (clock.get("started") or clock.get("start") == "first_move"):
        return None
    return b.seats[seat]


def ping_line(user: str) -> str:
    return f"{mention(user)}: your move.\n"


def _said(post: str, clock: Json | None, b: Binding | None) -> tuple[str, str | None]:
    """The post, after a ping of the player to move when there is one; the user pinged."""
    ping = to_ping(clock, b)
    return fit(ping_line(ping) if ping else "", post), ping


def message(d: Description, b: Binding | None, note: str | None = None) -> Message:
    """A change, in public: its post, a note, and the picture when the board changed; the player to
    move pinged only when the change gave them the turn (:data:`TURN_GIVEN`)."""
    content, ping = _said(d.post("discord"), d.clock, b if d.kind in TURN_GIVEN else None)
    told = None if b is None else (b.match_id, d.live.finished)
    if not d.board_changed:
        return Message(content, note, ping=ping, told=told)
    return Message(content, note, d.svg, d.alt_text(), ping, told=told)


def position(h: History, b: Binding | None, note: str | None = None, started: bool = False) -> Message:
    """The match as it stands (``/board``, a new match), in public: its post, a note, its picture; the
    player to move pinged only when the match ``started`` with this answer (a new match), never for a look."""
    content, ping = _said(h.post("discord"), h.clock, b if started else None)
    return Message(content, note, h.svg, h.alt_text(), ping, told=None if b is None else (b.match_id, h.finished))


def over(h: History) -> str:
    """A refusal because the match is over, as the channel says it: that, and how it ended."""
    ended = views.result(h.state, events=h.events, names=h.players)
    return "The match is over." if ended is None else f"The match is over. {ended}"


def not_your_turn(b: Binding, may_move: int | None, proxy: bool) -> str:
    """A move out of turn refused, as the channel says it (Markdown, the mention unescaped: it never pings, as
    ``allowed_mentions`` is empty): whose turn it is (R-X6: who moves for the flagged seat)."""
    if may_move not in (0, 1):
        return "It is not your turn."
    if proxy:
        return f"You have run out of time: only {mention(b.seats[may_move])} may move for you now (R-X6)."
    return f"It is not your turn: {mention(b.seats[may_move])} is to move."


def refusal(text: str, ephemeral: bool = True) -> Message:
    """A short answer in words (a refusal, a command's own answer)."""
    return Message(md_escape_lines(text), ephemeral=ephemeral)


def md_escape_lines(text: str) -> str:
    return "\n".join(md_escape(line) for line in text.splitlines())[:DISCORD_LIMIT]


def fit(first: str, post: str) -> str:
    """``first`` then ``post``, within Discord's 2,000 characters: the post's last lines give way
    (a code block left open is closed)."""
    text = first + post
    if len(text) <= DISCORD_LIMIT:
        return text
    kept: list[str] = []
    size = len(first) + 8
    for line in post.splitlines():
        if size + len(line) + 1 > DISCORD_LIMIT:
            break
        kept.append(line)
        size += len(line) + 1
    if sum(line.startswith("```") for line in kept) % 2:
        kept.append("```")
    return first + "\n".join(kept) + "\n"


# -- the JSON sent to Discord ------------------------------------------------------------------


def mentions(m: Message) -> Json:
    """Nothing pings, but the player to move when the host asked for it."""
    return {"parse": [], "users": [m.ping]} if m.ping else {"parse": []}


def embeds(m: Message, with_picture: bool) -> list[Json]:
    embed: Json = {}
    if m.note:
        embed["description"] = m.note[:EMBED_LIMIT]
    if with_picture and m.picture is not None:
        embed["image"] = {"url": f"attachment://{PICTURE}"}
    return [embed] if embed else []


def _data(m: Message) -> Json:
    """The message as Discord creates one: in words, private (``EPHEMERAL``) or not, the picture to follow."""
    data: Json = {"content": m.content, "allowed_mentions": mentions(m)}
    shown = embeds(m, with_picture=False)
    if shown:
        data["embeds"] = shown
    if m.ephemeral:
        data["flags"] = EPHEMERAL
    return data


def response(m: Message) -> Json:
    """The interaction's answer at once (CHANNEL_MESSAGE_WITH_SOURCE), the picture to follow."""
    return {"type": CHANNEL_MESSAGE, "data": _data(m)}


def deferred() -> Json:
    """The interaction acknowledged (DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE): the answer follows by editing it."""
    return {"type": DEFERRED_CHANNEL_MESSAGE}


def edit(m: Message, with_picture: bool) -> Json:
    """The answer as it is edited once known (``PATCH .../messages/@original``'s ``payload_json``): the
    whole message, and the picture as the attachment ``files[0]`` when there is one."""
    out: Json = {"content": m.content, "allowed_mentions": mentions(m), "embeds": embeds(m, with_picture)}
    if with_picture and m.picture is not None:
        out["attachments"] = [{"id": 0, "filename": PICTURE, "description": m.alt[:ALT_LIMIT]}]
    return out


def ping(m: Message) -> Json:
    """The ping of a deferred answer, a message of its own (``POST /webhooks/{application}/{token}``):
    the line that pings the player to move, and nobody else."""
    return {"content": ping_line(m.ping or "").rstrip("\n"), "allowed_mentions": mentions(m)}


def follow_up(m: Message) -> Json:
    """A message of its own after the answer (``POST /webhooks/{application}/{token}``): a deferred
    refusal, ``EPHEMERAL``, once the public "thinking" is deleted."""
    return _data(m)


def choices(moves: list[str]) -> Json:
    """An autocomplete's answer (APPLICATION_COMMAND_AUTOCOMPLETE_RESULT): at most 25 choices of at most 100 characters."""
    shown = [m for m in moves if 0 < len(m) <= 100][:25]
    return {"type": AUTOCOMPLETE_RESULT, "data": {"choices": [{"name": m, "value": m} for m in shown]}}
