"""The umpire's post in each format umpires post in: ``markdown`` (forums that
read CommonMark), ``discord`` (Discord's own Markdown: the picture as a bare
link on its own line, which Discord shows, and under its 2,000 characters),
``bbcode`` (phpBB-style forums) and plain ``text``.

A post is built once as data (:class:`Post`: a heading, the announcements,
the picture's address, the text diagram, the lines under it, the clocks) and
written by one small writer per format.  Everything a player or a client
chose - names, tags, a move's text - is *text*: each writer escapes it for
its format, so a name cannot open markup, close the diagram's block, ping a
channel (``@everyone``) or become a link.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import quote, urlsplit, urlunsplit

FORMATS = ("markdown", "discord", "bbcode", "text")
DISCORD_LIMIT = 2000  # characters of one Discord message

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_MD_SPECIAL = "\\`*_[]<>|#~"
_ZWSP = "\u200b"  # a zero-width space: breaks a mention or a link without showing
# What a link's path, query and fragment keep as written: RFC 3986's unreserved characters, the
# delimiters of a query and an escape already made.  Everything else - ``@`` of a name like
# ``@everyone``, brackets, parentheses, quotes, ``*``, ``!``, spaces - is percent-encoded.
_URL_SAFE = "/:?=&,;+%#~-._"


@dataclass(frozen=True)
class Post:
    """What a post says, before it is written in a format.  ``status``: each
    line under the diagram and whether it is said strongly (whose turn, the result)."""

    heading: str
    said: tuple[str, ...]
    picture_url: str | None
    picture_alt: str
    diagram: tuple[str, ...]  # the board as monospace lines (the legend last)
    status: tuple[tuple[str, bool], ...]
    clock: tuple[str, ...]


def one_line(text: str) -> str:
    """Text a client chose, on one line: control characters and line breaks become one space."""
    return _CONTROL.sub(" ", text).strip()


def defuse(text: str) -> str:
    """No mention and no link: ``@everyone`` and ``<@123>`` stop pinging, ``https://``
    and ``www.`` stop being read as addresses (a zero-width space inside each)."""
    text = text.replace("@", "@" + _ZWSP)
    text = re.sub(r"(?i)(\w)(://)", lambda m: m.group(1) + _ZWSP + m.group(2), text)
    return re.sub(r"(?i)\b(www)\.", "\\1" + _ZWSP + ".", text)


def link(url: str) -> str:
    """A picture's address as a post writes it: its path, query and fragment percent-encoded
    but for :data:`_URL_SAFE`, so nothing a client chose (the ``names`` of a picture's query)
    reads as a mention, markup or the end of the link; the address means the same."""
    parts = urlsplit(one_line(url))
    path, query, fragment = (quote(part, safe=_URL_SAFE) for part in (parts.path, parts.query, parts.fragment))
    return urlunsplit((parts.scheme, parts.netloc, path, query, fragment))


def md_escape(text: str) -> str:
    """Text inside a Markdown paragraph or list item: no character is read as markup."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in defuse(one_line(text)))


def bb_escape(text: str) -> str:
    """Text inside BBCode: its brackets cannot open a tag (BBCode has no escape: they become
    the full-width brackets, which read the same)."""
    return defuse(one_line(text)).replace("[", "\uff3b").replace("]", "\uff3d")


def block_line(text: str, fence: str) -> str:
    """A line inside a code block: on one line, and without the fence that would close it."""
    line = _CONTROL.sub(" ", text)
    return defuse(line.replace(fence, "'" * len(fence)) if fence else line)


def _markdown(post: Post, discord: bool) -> str:
    out = [f"**{md_escape(post.heading)}**", ""]
    if post.said:
        out += [f"- {md_escape(s)}" for s in post.said]
        out.append("")
    if post.picture_url:
        url = link(post.picture_url)
        # Discord shows a bare link's picture and not Markdown's image syntax; forums the other way round
        out += [url if discord else f"![{md_escape(post.picture_alt)}](<{url}>)", ""]
    fence = "```"
    if post.diagram:
        out += [f"{fence}text", *(block_line(d, fence) for d in post.diagram), fence, ""]
    for i, (text, strong) in enumerate(post.status):
        body = f"**{md_escape(text)}**" if strong else md_escape(text)
        out.append(body + ("" if discord or i == len(post.status) - 1 else "  "))
    if post.clock:
        out += ["", "Clock:", *(f"- {md_escape(c)}" for c in post.clock)]
    return "\n".join(out).rstrip() + "\n"


def markdown(post: Post) -> str:
    return _markdown(post, discord=False)


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[: max(0, most - 1)] + "…"


def discord(post: Post) -> str:
    """Discord's Markdown, cut to fit one message.  The announcements after the
    first give way first, then the diagram, the scores, the first announcement,
    and last the heading and whose turn it is (or the result) are shortened; the
    picture and both clocks always stay (issue 35: a long name once cost the clocks).  What the
    result line says (the end) is not announced above it too: a channel reads each sentence once."""
    post = replace(post, said=tuple(said for said in post.said if (said, True) not in post.status))
    short = replace(post, said=(*post.said[:1], "…")) if len(post.said) > 1 else post
    bare = replace(short, diagram=(), status=tuple(line for line in post.status if line[1]))  # whose turn, or the result
    cuts = (post, short, replace(short, diagram=()), bare, replace(bare, said=()))
    for shorter in cuts:
        text = _markdown(shorter, discord=True)
        if len(text) <= DISCORD_LIMIT:
            return text
    # What is left is the heading, the picture, the turn or result and the clocks: the words give way,
    # each to an equal share of the room the picture and the clocks leave.
    last = cuts[-1]
    fixed = len(_markdown(replace(last, heading="", status=tuple(("", strong) for _, strong in last.status)), discord=True))
    share = max(1, (DISCORD_LIMIT - fixed) // (1 + len(last.status)))
    while True:  # escaping may lengthen a text: the share shrinks until the post fits
        heading, status = _cut(last.heading, share), tuple((_cut(t, share), s) for t, s in last.status)
        text = _markdown(replace(last, heading=heading, status=status), discord=True)
        if len(text) <= DISCORD_LIMIT or share == 1:
            break
        share = max(1, share * 3 // 4)
    return text if len(text) <= DISCORD_LIMIT else text[: DISCORD_LIMIT - 2] + "…\n"


def bbcode(post: Post) -> str:
    out = [f"[b]{bb_escape(post.heading)}[/b]", ""]
    if post.said:
        out += ["[list]", *(f"[*]{bb_escape(s)}" for s in post.said), "[/list]", ""]
    if post.picture_url:
        url = link(post.picture_url)
        out += [f"[img]{url}[/img]", ""]
    out += ["[code]", *(block_line(d, "").replace("[", "\uff3b").replace("]", "\uff3d") for d in post.diagram), "[/code]", ""]
    out += [f"[b]{bb_escape(t)}[/b]" if strong else bb_escape(t) for t, strong in post.status]
    if post.clock:
        out += ["", "Clock:", "[list]", *(f"[*]{bb_escape(c)}" for c in post.clock), "[/list]"]
    return "\n".join(out).rstrip() + "\n"


def text(post: Post) -> str:
    out = [defuse(one_line(post.heading)), ""]
    if post.said:
        out += [f"- {defuse(one_line(s))}" for s in post.said]
        out.append("")
    if post.picture_url:
        out += [link(post.picture_url), ""]
    out += [*(block_line(d, "") for d in post.diagram), ""]
    out += [defuse(one_line(t)) for t, _ in post.status]
    if post.clock:
        out += ["", "Clock:", *(f"- {defuse(one_line(c))}" for c in post.clock)]
    return "\n".join(out).rstrip() + "\n"


WRITERS: dict[str, Callable[[Post], str]] = {"markdown": markdown, "discord": discord, "bbcode": bbcode, "text": text}
MEDIA_TYPES = {"markdown": "text/markdown", "discord": "text/markdown", "bbcode": "text/plain", "text": "text/plain"}


def write(post: Post, fmt: str) -> str:
    """``post`` in ``fmt`` (one of :data:`FORMATS`; ValueError naming them otherwise)."""
    writer = WRITERS.get(fmt)
    if writer is None:
        raise ValueError(f"A post's format is one of {', '.join(FORMATS)}, not {fmt!r}.")
    return writer(post)


def check_format(fmt: object) -> str:
    if not isinstance(fmt, str) or fmt not in WRITERS:
        raise ValueError(f"A post's format is one of {', '.join(FORMATS)}, not {fmt!r}.")
    return fmt
