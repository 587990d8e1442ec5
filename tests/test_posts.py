"""The umpire's post in every format (views/posts.py), rendered by the real
renderers where one exists - markdown-it (CommonMark) for Markdown, the
``bbcode`` package for BBCode - for every game, and checked for injection:
a player's name is text in every format."""

from __future__ import annotations

import random
import re
from typing import Any

import bbcode
import pytest
from flask.testing import FlaskClient
from gamekit import random_game
from markdown_it import MarkdownIt

import views
from engine.registry import GAMES
from views import posts

PNG = "https://umpire.test/v1/matches/m1/board.png?ply=7"
EVIL = ("Red\n```\n# Pwned [click](https://evil.test) <b>x</b>", "@everyone [url=https://evil.test]y[/url] www.evil.test")
MD = MarkdownIt("commonmark")


def bb_parser() -> bbcode.Parser:
    parser = bbcode.Parser()
    parser.add_simple_formatter("img", '<img src="%(value)s">', replace_links=False)
    return parser


def finished(name: str) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """A finished game of ``name``: the state before its last move, that move's events, and the end."""
    game = GAMES[name]
    rnd = random.Random(name)
    options, state, moves = random_game(game, {}, 400, rnd)
    assert game.is_over(state)
    replay = game.replay(options, moves)
    assert replay.before is not None
    return game.dump(replay.before), replay.events, game.dump(replay.state)


@pytest.fixture(scope="module", params=sorted(GAMES))
def ending(request: pytest.FixtureRequest) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    return finished(request.param)


def write(ending: Any, fmt: str, names: Any = None, png_url: str | None = PNG) -> str:
    before, events, after = ending
    return views.post(after, events=events, before=before, png_url=png_url, names=names, format=fmt)


def test_markdown_renders_as_a_forum_shows_it(ending: Any) -> None:
    html = MD.render(write(ending, "markdown"))
    said = views.announcements(ending[0], ending[1], ending[2])
    assert html.startswith("<p><strong>") and f'<img src="{PNG.replace("&", "&amp;")}"' in html
    assert html.count("<pre><code") == 1 and len(re.findall(r"<li>", html)) == len(said)
    assert "The board" not in html or "<h" not in html


def test_discord_shows_the_picture_as_a_bare_link_and_fits_a_message(ending: Any) -> None:
    text = write(ending, "discord")
    assert PNG in text.splitlines() and "![" not in text  # Discord does not render Markdown's image
    assert len(text) <= posts.DISCORD_LIMIT and text.count("```") == 2


def test_a_long_discord_post_gives_way_and_keeps_its_heading_picture_and_result(ending: Any) -> None:
    before, events, after = ending
    many = events * 60  # a move with very many announcements (the move itself as played)
    names = ["N" * 60, "M" * 60]
    move = views.post(after, events=events, before=before).splitlines()[0].partition(" plays ")[2].rstrip("*")
    text = views.post(after, events=many, before=before, move=move or None, png_url=PNG, names=names, format="discord")
    assert len(text) <= posts.DISCORD_LIMIT
    assert PNG in text.splitlines() and text.startswith("**")
    result = views.text(after, names=names).splitlines()[-1]
    assert posts.md_escape(result) in text


def test_bbcode_renders_as_a_forum_shows_it(ending: Any) -> None:
    source = write(ending, "bbcode")
    assert "**" not in source and "```" not in source  # nothing of Markdown shows literally
    html = bb_parser().format(source)
    assert html.startswith("<strong>") and f'<img src="{PNG}">' in html.replace("&amp;", "&")
    assert html.count("<code>") == 1 and "<ul>" in html


def test_text_has_no_markup(ending: Any) -> None:
    text = write(ending, "text")
    assert "**" not in text and "```" not in text and "[b]" not in text
    assert PNG in text.splitlines()
    assert views.text(ending[2]).splitlines()[1] in text  # the diagram's first row as it is


@pytest.mark.parametrize("fmt", posts.FORMATS)
def test_names_cannot_inject_markup_mentions_or_links(ending: Any, fmt: str) -> None:
    text = write(ending, fmt, names=list(EVIL), png_url=None)
    assert "@everyone" not in text and "https://evil" not in text and "www.evil" not in text
    assert "\n# Pwned" not in text and "\n```\n#" not in text
    if fmt in ("markdown", "discord"):
        html = MD.render(text)
        assert "<h1>" not in html and "<a " not in html and "<b>" not in html
        assert html.count("<pre><code") == 1  # the diagram's block was not closed early
    elif fmt == "bbcode":
        html = bb_parser().format(text)
        assert "<a " not in html and html.count("<code>") == 1
        assert "[url" not in text  # the name's brackets cannot open a tag


def test_the_name_is_still_there_to_read() -> None:
    before, events, after = finished("catchup")
    text = views.post(after, events=events, before=before, names=["Ann [UK]", "Bo*b"], format="bbcode")
    assert "Ann \uff3bUK\uff3d" in text
    md = views.post(after, events=events, before=before, names=["Ann [UK]", "Bo*b"], format="markdown")
    assert "Bo*b" in MD.render(md)  # escaped as markup, shown as written


# -- over HTTP ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "media"),
    [("markdown", "text/markdown"), ("discord", "text/markdown"), ("bbcode", "text/plain"), ("text", "text/plain")],
)
def test_the_stateless_post_takes_a_format(client: FlaskClient, fmt: str, media: str) -> None:
    before, events, after = finished("too")
    r = client.post(
        "/v1/games/too/post", json={"state": after, "events": events, "before": before, "format": fmt, "png_url": PNG}
    )
    assert r.status_code == 200 and r.mimetype == media
    assert r.get_data(as_text=True) == views.post(after, events=events, before=before, png_url=PNG, format=fmt)


def test_an_unknown_post_format_is_refused(client: FlaskClient) -> None:
    state = client.post("/v1/games/catchup/new", json={}).get_json()["state"]
    r = client.post("/v1/games/catchup/post", json={"state": state, "format": "html"})
    assert r.status_code == 422 and "format" in r.get_json()["error"]["details"]["fields"]
