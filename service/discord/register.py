"""``flask --app service discord-register [--guild ID]``: the slash commands put to Discord.

One ``PUT /applications/{DISCORD_APPLICATION_ID}/commands`` with the bot token
(``Authorization: Bot DISCORD_BOT_TOKEN``) sets the application's whole set of commands at once,
replacing any earlier set, so running it again after an upgrade is safe.  Global commands reach
every server the application is in; ``--guild`` registers them in that one server only, at once
(Discord's docs: global commands may take a while to show).  The only use of the bot token: the
answers to commands use each interaction's own token.
"""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import with_appcontext

from service.discord.commands import definitions
from service.discord.courier import Discord


@click.command("discord-register")
@click.option("--guild", default=None, metavar="ID", help="A server's id: the commands there only (at once).")
@with_appcontext
def register_command(guild: str | None) -> None:
    """Register the slash commands (/match, /move, /board, /resign, /umpire) with Discord."""
    cfg = current_app.config
    application, token = str(cfg["DISCORD_APPLICATION_ID"]).strip(), str(cfg["DISCORD_BOT_TOKEN"]).strip()
    if not application.isdigit():
        raise click.ClickException(
            "Set DISCORD_APPLICATION_ID: the application's id (General Information in the Developer Portal)."
        )
    if not token:
        raise click.ClickException("Set DISCORD_BOT_TOKEN: the application's bot token (its Bot page).")
    if guild is not None and not guild.isdigit():
        raise click.ClickException("--guild is a server's id (digits).")
    path = f"/applications/{application}/guilds/{guild}/commands" if guild else f"/applications/{application}/commands"
    client = Discord(str(cfg["DISCORD_API"]), float(cfg["DISCORD_TIMEOUT_S"]), 1)
    try:
        commands = definitions()
        sent = client.call("PUT", path, json=commands, headers={"Authorization": f"Bot {token}"})
    finally:
        client.close()
    if not sent.ok:
        said = sent.body[:300].decode(errors="replace") if sent.body else sent.error
        raise click.ClickException(f"Discord did not take the commands: {sent.status or 'no answer'} {said}")
    where = f"in server {guild}" if guild else "globally"
    names = ", ".join(f"/{c['name']}" for c in commands)
    click.echo(f"Registered {len(commands)} commands {where}: {names}.")
