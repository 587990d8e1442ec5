"""The spec served (``GET /openapi.yaml``) and its readable page (``GET
/docs``): the committed file, every operation and schema on the page, and
nothing on it fetched from the network."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import yaml
from flask.testing import FlaskClient
from openapi_check import METHODS, SPEC_FILE

from service.api import docs

STATIC = Path(docs.__file__).resolve().parent / "static"


def test_the_spec_is_served_as_committed(client: FlaskClient) -> None:
    resp = client.get("/openapi.yaml")
    assert resp.mimetype == "application/yaml"
    assert resp.get_data(as_text=True) == SPEC_FILE.read_text(encoding="utf-8")


class Page(HTMLParser):
    """What a browser would load, and the page's anchors and links."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "a" and a.get("href"):
            self.links.append(str(a["href"]))
        if tag in ("script", "img", "iframe") or (tag == "link" and a.get("rel") == "stylesheet"):
            self.loads.append(f"{tag} {a.get('src') or a.get('href')}")


def test_the_reference_page_lists_every_operation_and_schema(client: FlaskClient) -> None:
    resp = client.get("/docs")
    assert resp.mimetype == "text/html"
    text = resp.get_data(as_text=True)
    page = Page()
    page.feed(text)
    assert page.loads == []  # no script, no picture, no style sheet: nothing fetched, from anywhere
    spec = yaml.safe_load(SPEC_FILE.read_text(encoding="utf-8"))
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                anchor = docs._anchor(method, path)
                assert anchor in page.ids and f"#{anchor}" in page.links, (method, path)
                assert item[method]["operationId"] and docs._inline(item[method]["summary"]) in text
    for name in spec["components"]["schemas"]:
        assert f"schema-{docs._anchor(name)}" in page.ids, name
    internal = [link[1:] for link in page.links if link.startswith("#")]
    assert set(internal) <= page.ids, set(internal) - page.ids  # every link on the page leads somewhere on it
    assert not [link for link in page.links if re.match(r"https?://", link)]
    assert "/openapi.yaml" in page.links and "/" in page.links


def test_the_spec_markdown_is_kept_and_escaped() -> None:
    assert docs.markdown("A `<code>` and **bold**, [a link](/docs).\n\n- one\n- two") == (
        '<p>A <code>&lt;code&gt;</code> and <strong>bold</strong>, <a href="/docs">a link</a>.</p>'
        "<ul><li>one</li><li>two</li></ul>"
    )
    assert docs.type_of({"$ref": "#/components/schemas/State"}) == '<a href="#schema-State">State</a>'
    assert docs.type_of({"type": "array", "items": {"type": ["string", "null"]}}) == "array of string or null"


def test_the_page_and_its_files(client: FlaskClient) -> None:
    """GET / is the static page; its script (an entry module and the modules it
    imports) and style sheet come from the package (service/api/static/, package
    data), and nothing comes from elsewhere."""
    resp = client.get("/")
    assert resp.mimetype == "text/html"
    html = resp.get_data(as_text=True)
    page = Page()
    page.feed(html)
    assert sorted(page.loads) == ["link /static/app.css", "script /static/app.js"]
    assert {"/docs", "/openapi.yaml"} <= set(page.links)
    again = client.get("/", headers={"If-None-Match": resp.headers["ETag"]})
    assert again.status_code == 304
    files = [("app.css", "text/css"), *((p.name, "text/javascript") for p in sorted(STATIC.glob("*.js")))]
    assert ("app.js", "text/javascript") in files and len(files) > 2  # the modules app.js imports (tests/test_page_modules.py)
    for name, mimetype in files:
        file = client.get(f"/static/{name}")
        assert file.mimetype == mimetype
        body = file.get_data(as_text=True)
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", body), f"{name} names an address elsewhere"
    etag = client.get("/static/app.js").headers["ETag"]
    assert client.get("/static/app.js", headers={"If-None-Match": etag}).status_code == 304
