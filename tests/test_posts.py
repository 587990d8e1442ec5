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
from test_views_text import CLOCK

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
    result = views.text(after, names=names).splitlines()[-2]  # the last line under the diagram, above its [State] line
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


# -- issue 35: what a Discord post says, and what it keeps --------------------------------------


def test_headings_name_the_variant_and_the_anomalies() -> None:
    """The heading said "Bug" on a Green Meadow match and "Crystal Connector" over rocks and spikes."""
    meadow = GAMES["bug"]
    state = meadow.new({"variant": "green-meadow"})
    verdict = meadow.play(state, "C3")  # R-B2: Green Meadow opens by blackening a cell
    post = views.post(meadow.dump(verdict.state), events=verdict.events, before=meadow.dump(state), format="discord")
    assert post.startswith("**Bug (green-meadow), ply 1: Red blackens C3**")
    crystal = GAMES["crystal"]
    made = crystal.dump(crystal.new({"seed": 7, "anomalies": ["rocks", "spikes"]}))
    assert views.post(made, format="text").startswith("Crystal Connector (rocks, spikes), ply 0\n")


def test_the_picture_s_alt_text_says_the_position_it_shows() -> None:
    """Not "the board after change 43" at ply 38: the game, its ply, the move that led there, whose turn."""
    before, events, after = finished("catchup")
    alt = views.alt_text(after, events=events, names=["Ann", "Bob"])
    ply = after["ply"]
    assert alt.startswith(f"The board of Catchup (standard), side 5, ply {ply}, after ")
    assert (" Ann wins" in alt or " Bob wins" in alt) and alt.endswith("(R-C4).")
    md = views.post(after, events=events, before=before, names=["Ann", "Bob"], png_url=PNG)
    assert f"![{posts.md_escape(alt)}](<" in md


@pytest.mark.parametrize("name", sorted(GAMES))
def test_long_names_never_cost_a_discord_post_its_clocks(name: str) -> None:
    """The clocks once gave way first, silently; now everything else shortens first, and they stay."""
    ongoing, events, _ = finished(name)  # the position before the last move: in play, so the clocks run
    names = ["N" * 64, "M" * 64]  # a match's longest names (service/web/schemas.py NAME)
    for many in (events, events * 60):  # a move with very many announcements
        text = views.post(ongoing, events=many, png_url=PNG + "&names=" + ",".join(names), names=names, clock=CLOCK,
                          move="x" * 300, format="discord")  # fmt: skip
        assert len(text) <= posts.DISCORD_LIMIT, len(text)
        assert f"- {'N' * 64}: turn " in text and f"- {'M' * 64}: bank 5:00" in text, text[-400:]
        assert text.startswith("**") and "board.png" in text


def test_a_legend_explains_hash_only_on_a_board_with_cells_off_it() -> None:
    """Catchup's plain hexhex board has no cell off it; its legend said "# off the board" all the same."""
    game = GAMES["catchup"]
    plain = views.text(game.dump(game.new({"size": 3})))
    assert "# off the board" not in plain and "\n#" not in plain and " # " not in plain
    blocked = views.text(game.dump(game.new({"size": 3, "blocked": ["C3"]})))
    assert "C . . # . ." in blocked and "# off the board" in blocked
    meadow = views.text(GAMES["bug"].dump(GAMES["bug"].new({"variant": "green-meadow"})))
    assert "# off the board" in meadow  # R-H4: its black corners


def test_a_picture_link_is_percent_encoded_in_every_format() -> None:
    """A name in the link's query (``names=@everyone,Bob``) cannot ping, open markup or end the link."""
    before, events, after = finished("too")
    url = "https://umpire.test/v1/matches/m1/board.png?ply=3&names=@everyone,[B*b](x) <y>"
    encoded = "https://umpire.test/v1/matches/m1/board.png?ply=3&names=%40everyone,%5BB%2Ab%5D%28x%29%20%3Cy%3E"
    for fmt in posts.FORMATS:
        text = views.post(after, events=events, before=before, png_url=url, format=fmt)
        assert encoded in text and "@everyone" not in text, fmt
    assert posts.link(encoded) == encoded  # an address already encoded is left as it is
