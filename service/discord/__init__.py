"""A death match run in a Discord channel with slash commands alone (issue 36), over Discord's
HTTP interactions: no gateway connection, no bot process that stays on.

Discord POSTs each slash command to ``POST /v1/discord/interactions`` (the application's
Interactions Endpoint URL), signed with the application's Ed25519 key; the service checks the
signature before it reads anything (:mod:`service.discord.signature`), judges the command on
the managed match bound to the channel, and answers within Discord's 3 seconds.  The board's
picture follows by editing that answer (:mod:`service.discord.courier`).

The modules, by concern:

    signature.py     the Ed25519 check, the timestamp's window, an interaction seen once
    umpire.py        the ONE adapter to the match machinery: every call into service.matches
    binding.py       a match's Discord binding in Redis (channel, seats' users, host, role, ping)
    commands.py      the slash commands as registered, and reading an interaction's options
    messages.py      what a change says in the channel, written from its Description
    interactions.py  the endpoint: verify, route, answer at once or defer
    courier.py       calls out to Discord: one deadline a try, bounded threads and queue
    register.py      ``flask --app service discord-register``: the commands put to Discord

Nothing of it runs unless ``DISCORD_PUBLIC_KEY`` is set: until then the endpoint answers ``404
not_found`` before it reads anything, and no thread is started (docs/DISCORD.md walks a host
through it; docs/SETTINGS.md lists the settings).
"""

from __future__ import annotations

import os
from typing import Any

from flask import Flask

SETTINGS: dict[str, tuple[Any, Any]] = {
    "DISCORD_PUBLIC_KEY": (str, ""),  # the application's public key (hex); unset: the endpoint is off
    "DISCORD_APPLICATION_ID": (str, ""),  # the application's id: follow-ups go to /webhooks/{it}/{token}
    "DISCORD_BOT_TOKEN": (str, ""),  # registering the commands only (follow-ups use the interaction's token)
    "DISCORD_API": (str, "https://discord.com/api/v10"),  # Discord's API base URL (tests: a stand-in on loopback)
    "DISCORD_MAX_AGE_S": (float, 300.0),  # an interaction signed longer ago (or ahead) than this is refused
    "DISCORD_ANSWER_S": (float, 2.0),  # a command not judged within this is deferred (Discord waits 3 s)
    "DISCORD_TIMEOUT_S": (float, 10.0),  # one call out to Discord, from its start to its answer, retries included
    "DISCORD_THREADS": (int, 4),  # commands judged and calls out under way at once, each, per app process
    "DISCORD_QUEUE": (int, 32),  # more that may wait for a thread, each; past it a command is refused at once
}


def init_app(app: Flask) -> None:
    """The Discord settings (environment, unless the app's config has them), checked now: a
    malformed public key fails at start, not at Discord's first request."""
    for name, (kind, default) in SETTINGS.items():
        if name in app.config:
            continue
        raw = os.environ.get(name)
        try:
            app.config[name] = default if raw is None or raw == "" else kind(raw)
        except ValueError:
            raise ValueError(f"{name}={raw!r} is not a valid setting") from None
    if enabled(app):
        from service.discord.signature import public_key

        public_key(str(app.config["DISCORD_PUBLIC_KEY"]))  # ValueError naming the setting
        if not str(app.config["DISCORD_APPLICATION_ID"]).strip().isdigit():
            raise ValueError("DISCORD_APPLICATION_ID must be set (the application's id, digits) with DISCORD_PUBLIC_KEY")
        for name in ("DISCORD_THREADS", "DISCORD_QUEUE"):
            if int(app.config[name]) < 1:
                raise ValueError(f"{name} must be 1 or more")


def enabled(app: Flask) -> bool:
    return bool(str(app.config.get("DISCORD_PUBLIC_KEY") or "").strip())
