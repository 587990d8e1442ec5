"""The slash commands as Discord registers them (``PUT /applications/{id}/commands``), and an
interaction read: who sent it, where, which command, with which options.

    /match new game player1 player2 [clock] [options] [first] [start] [illegal] [webhook] [role] [ping]
    /move move [match]          (autocomplete: the legal moves that begin with what is typed)
    /board [match]   /resign [match]
    /umpire start | pause reason | resume | addtime player seconds | takeback
            | adjudicate result reason | abort | seat seat player | ping on | role [role]   (each [match])

Every command works in a server's channels only (``contexts``: GUILD).  The games' choices come
from the registry, the clocks' names from its presets (autocomplete, there are more than 25).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.registry import GAMES
from service.web.schemas import REASON_MOST

Json = dict[str, Any]

# Discord's application command option types ("Application Command Option Type")
SUB_COMMAND, STRING, INTEGER, BOOLEAN, USER, ROLE, NUMBER = 1, 3, 4, 5, 6, 8, 10
CHAT_INPUT = 1
GUILD = 0  # interaction context: a server's channel


def _opt(kind: int, name: str, description: str, required: bool = False, **more: Any) -> Json:
    return {"type": kind, "name": name, "description": description, "required": required, **more}


def _choices(*values: str) -> list[Json]:
    return [{"name": v, "value": v} for v in values]


WHO_WINS = "Who wins: the user you named player1 or player2 at /match new, or a draw"
MATCH = _opt(STRING, "match", "A match of this channel by its id (default: the channel's latest)", max_length=32)


def _sub(name: str, description: str, *options: Json) -> Json:
    return {"type": SUB_COMMAND, "name": name, "description": description, "options": [*options, MATCH]}


def definitions() -> list[Json]:
    """The commands, as ``PUT /applications/{id}/commands`` takes them (discord-api-types'
    ``RESTPutAPIApplicationCommandsJSONBody``)."""
    new = {
        "type": SUB_COMMAND,
        "name": "new",
        "description": "Start a match in this channel: you are its host",
        "options": [
            _opt(STRING, "game", "The game", True, choices=_choices(*GAMES)),
            _opt(USER, "player1", "Who plays seat 0 (the seat that moves first, unless first says otherwise)", True),
            _opt(USER, "player2", "Who plays seat 1", True),
            _opt(STRING, "clock", "A clock preset, or a clock as JSON (as the API takes it)", autocomplete=True, max_length=500),
            _opt(STRING, "options", 'The game\'s options as JSON, e.g. {"size": 5}', max_length=1500),
            _opt(STRING, "first", "Who takes seat 0 (default: player1)", choices=_choices("player1", "player2", "random")),
            _opt(
                STRING,
                "start",
                "When the clocks start (default: at /umpire start)",
                choices=_choices("umpire", "first_move", "created"),
            ),
            _opt(
                STRING,
                "illegal",
                "What an illegal move does (default: refused, clock running)",
                choices=_choices("reject", "forfeit"),
            ),
            _opt(STRING, "webhook", "This channel's webhook URL: what no command answered is posted there", max_length=500),
            _opt(ROLE, "role", "Holders of this role may use /umpire too"),
            _opt(BOOLEAN, "ping", "Ping the player the turn passes to (default: no)"),
        ],
    }
    umpire = [
        _sub("start", "Start the clocks"),
        _sub("pause", "Pause the clocks", _opt(STRING, "reason", "Why (said in the channel)", True, max_length=REASON_MOST)),
        _sub("resume", "Resume the clocks"),
        _sub(
            "addtime",
            "Give a player time in their bank",
            _opt(USER, "player", "The player", True),
            _opt(NUMBER, "seconds", "Seconds (0.001 to 3600)", True, min_value=0.001, max_value=3600),
        ),
        _sub("takeback", "Take back the last move"),
        _sub(
            "adjudicate",
            "Decide the match",
            _opt(STRING, "result", WHO_WINS, True, choices=_choices("player1", "player2", "draw")),
            _opt(STRING, "reason", "Why", True, max_length=REASON_MOST),
        ),
        _sub("abort", "Stop the match with no result"),
        _sub(
            "seat",
            "Hand a seat to another user",
            _opt(INTEGER, "seat", "The seat", True, choices=[{"name": "seat 0", "value": 0}, {"name": "seat 1", "value": 1}]),
            _opt(USER, "player", "Who plays it from now on", True),
        ),
        _sub("ping", "Ping the player the turn passes to, or not", _opt(BOOLEAN, "on", "Ping or not", True)),
        _sub("role", "Name the role whose holders may use /umpire (none: only you)", _opt(ROLE, "role", "The role")),
    ]
    move = _opt(STRING, "move", "Your move, in the rules' notation", True, autocomplete=True, max_length=200)
    top = [
        ("match", "Death matches in this channel", [new]),
        ("move", "Play your move", [move, MATCH]),
        ("board", "The position now", [MATCH]),
        ("resign", "Resign the match", [MATCH]),
        ("umpire", "The host's controls", umpire),
    ]
    return [{"type": CHAT_INPUT, "name": n, "description": d, "options": o, "contexts": [GUILD]} for n, d, o in top]


# -- an interaction, read ----------------------------------------------------------------------


class BadInteraction(ValueError):
    """Signed by Discord, but not an interaction this service reads."""


@dataclass(frozen=True)
class Command:
    """A slash command (or an autocomplete) as sent: ``path`` the command and subcommand names,
    ``options`` by name, ``focused`` the option being typed (autocomplete)."""

    id: str
    token: str
    kind: int
    path: tuple[str, ...]
    options: dict[str, Any]
    user: str
    roles: list[str]
    guild: str | None
    channel: str
    names: dict[str, str] = field(default_factory=dict)  # a USER option's user id -> the name shown
    focused: str | None = None

    def text(self, name: str) -> str | None:
        value = self.options.get(name)
        return value.strip() if isinstance(value, str) else None


def _text(raw: Any, what: str, most: int = 100) -> str:
    if not isinstance(raw, str) or not 0 < len(raw) <= most:
        raise BadInteraction(f"{what} is missing")
    return raw


def shown_name(user: str, resolved: Json) -> str:
    """What the server calls ``user``: their nickname there, else their display name, else their user name."""
    member = (resolved.get("members") or {}).get(user) or {}
    person = (resolved.get("users") or {}).get(user) or {}
    for name in (member.get("nick"), person.get("global_name"), person.get("username")):
        if isinstance(name, str) and name.strip():
            return name.strip()[:64]
    return user


def read(body: Json) -> Command:
    """An APPLICATION_COMMAND or APPLICATION_COMMAND_AUTOCOMPLETE interaction (BadInteraction otherwise)."""
    data = body.get("data")
    if not isinstance(data, dict):
        raise BadInteraction("data is missing")
    member = body.get("member") if isinstance(body.get("member"), dict) else None
    user = (member or {}).get("user") or body.get("user") or {}
    roles = [r for r in (member or {}).get("roles") or [] if isinstance(r, str)]
    path = [_text(data.get("name"), "data.name", 32)]
    options = data.get("options") or []
    while options and isinstance(options[0], dict) and options[0].get("type") == SUB_COMMAND:
        path.append(_text(options[0].get("name"), "a subcommand's name", 32))
        options = options[0].get("options") or []
    values: dict[str, Any] = {}
    focused = None
    for opt in options:
        if isinstance(opt, dict) and isinstance(opt.get("name"), str):
            values[opt["name"]] = opt.get("value")
            if opt.get("focused"):
                focused = opt["name"]
    resolved: Json = data["resolved"] if isinstance(data.get("resolved"), dict) else {}
    users = {str(v): shown_name(str(v), resolved) for v in values.values() if isinstance(v, str) and v.isdigit()}
    me = _text(user.get("id") if isinstance(user, dict) else None, "the user", 32)
    users.setdefault(me, shown_name(me, {"users": {me: user}, "members": {me: member or {}}}))
    guild = body.get("guild_id") if isinstance(body.get("guild_id"), str) else None
    channel = body.get("channel_id") or (body.get("channel") or {}).get("id")
    return Command(
        _text(body.get("id"), "id", 32), _text(body.get("token"), "token", 1000), int(body.get("type") or 0), tuple(path),
        values, me, roles, guild, _text(channel, "channel_id", 32), users, focused,
    )  # fmt: skip
