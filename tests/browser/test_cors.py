"""A page on another origin uses the API from a real browser (issue 13: CORS).

Two servers: the page's (the session's ``server``, origin ``http://127.0.0.1:A``)
and the API's (``http://127.0.0.1:B``, started with ``CORS_ORIGINS`` naming
the page's origin and an ``ADMIN_TOKEN``).  From the page, Chromium's own
``fetch`` and ``EventSource`` call every kind of endpoint of the API: the
game list, each stateless operation of a game (``new``, ``play``,
``legal-moves``, ``replay``, ``render`` as PNG, ``post``), a managed match
(create, read, a move with ``Authorization`` and ``Idempotency-Key`` - headers
that need a preflight -, its retry, whose ``Idempotent-Replayed`` header the
page must be able to read, the record, the board picture, the event stream,
resign), the admin list, ``/openapi.yaml`` and the health check.  The same
calls from ``http://localhost:A`` (another origin, not listed) are blocked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from umpire.server import EmbeddedServer

ADMIN = "cors-admin-token"

# Runs in the page; ``arguments[0]`` is the API's base URL; the last argument is the callback.
SCRIPT = r"""
const api = arguments[0], done = arguments[arguments.length - 1];
const out = {};
async function call(name, method, path, body, headers) {
  try {
    const r = await fetch(api + path, {
      method, headers: {...(body === undefined ? {} : {"Content-Type": "application/json"}), ...(headers || {})},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const type = r.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await r.json() : type.startsWith("image/png") ? (await r.blob()).size : await r.text();
    out[name] = {status: r.status, replayed: r.headers.get("Idempotent-Replayed"), id: r.headers.get("X-Request-ID"), data};
    return data;
  } catch (e) {
    out[name] = {blocked: String(e)};
    return null;
  }
}
(async () => {
  await call("games", "GET", "/v1/games");
  await call("health", "GET", "/v1/health");
  await call("openapi", "GET", "/openapi.yaml");
  const made = await call("new", "POST", "/v1/games/catchup/new", {options: {size: 3}});
  if (made) {
    const state = made.state;
    await call("legal", "POST", "/v1/games/catchup/legal-moves", {state});
    await call("play", "POST", "/v1/games/catchup/play", {state, move: "C3"});
    await call("replay", "POST", "/v1/games/catchup/replay", {options: {size: 3}, moves: ["C3", "B2 B3"]});
    await call("render", "POST", "/v1/games/catchup/render", {state, format: "png"});
    await call("post", "POST", "/v1/games/catchup/post", {state});
  }
  const m = await call("create", "POST", "/v1/matches", {game: "catchup", options: {size: 3}});
  if (m) {
    const seat0 = {"Authorization": "Bearer " + m.seats["0"], "Idempotency-Key": "cors-move-1"};
    await call("move", "POST", `/v1/matches/${m.match_id}/moves`, {move: "C3", ply: 0}, seat0);
    await call("retry", "POST", `/v1/matches/${m.match_id}/moves`, {move: "C3", ply: 0}, seat0);
    await call("read", "GET", `/v1/matches/${m.match_id}?legal_moves=true`);
    await call("record", "GET", `/v1/matches/${m.match_id}/moves`);
    await call("board", "GET", `/v1/matches/${m.match_id}/board.svg`);
    out.events = await new Promise((resolve) => {
      const source = new EventSource(`${api}/v1/matches/${m.match_id}/events`);
      const timer = setTimeout(() => { source.close(); resolve({blocked: "no event in 10 s"}); }, 10000);
      source.addEventListener("state", (e) => { clearTimeout(timer); source.close(); resolve({state: JSON.parse(e.data).ply}); });
      source.onerror = () => { clearTimeout(timer); source.close(); resolve({blocked: "error"}); };
    });
    await call("resign", "POST", `/v1/matches/${m.match_id}/resign`, undefined, {"Authorization": "Bearer " + m.seats["1"]});
  }
  await call("admin", "GET", "/v1/matches?status=finished", undefined, {"Authorization": "Bearer __ADMIN__"});
  done(out);
})();
""".replace("__ADMIN__", ADMIN)


@pytest.fixture(scope="module")
def api(server: str) -> Iterator[str]:
    """The API on another port (another origin), allowing the page's origin only."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CORS_ORIGINS", server)
        mp.setenv("ADMIN_TOKEN", ADMIN)
        with EmbeddedServer(workers=1) as s:
            yield s.url


def run(browser: WebDriver, origin: str, api: str) -> dict[str, Any]:
    # A plain document of the origin, not the page at /: the page's Content-Security-Policy
    # lets it reach its own origin only (service/api/page.py), as a third party's page would not.
    browser.get(f"{origin}/v1/games")
    browser.set_script_timeout(60)
    result: dict[str, Any] = browser.execute_async_script(SCRIPT, api)
    browser.get_log("browser")  # drained: the refusals a blocked page logs are not the next test's errors
    return result


def test_a_page_on_an_allowed_origin_uses_every_kind_of_endpoint(browser: WebDriver, server: str, api: str) -> None:
    out = run(browser, server, api)
    blocked = {name: r for name, r in out.items() if "blocked" in r}
    assert blocked == {}, blocked
    statuses = {name: r["status"] for name, r in out.items() if name != "events"}
    assert statuses == {
        "games": 200, "health": 200, "openapi": 200, "new": 200, "legal": 200, "play": 200, "replay": 200,
        "render": 200, "post": 200, "create": 201, "move": 200, "retry": 200, "read": 200, "record": 200,
        "board": 200, "resign": 200, "admin": 200,
    }  # fmt: skip
    assert out["play"]["data"]["legal"] is True and out["render"]["data"] > 100  # a PNG's bytes, read by the page
    assert out["retry"]["replayed"] == "true" and out["move"]["replayed"] is None  # the exposed header is readable
    assert all(len(r["id"]) == 32 for name, r in out.items() if name != "events")  # X-Request-ID exposed too
    assert out["read"]["data"]["legal_moves"]["count"] > 0 and out["board"]["data"].startswith("<svg")
    assert out["events"] == {"state": 1}
    assert any(m["match_id"] for m in out["admin"]["data"]["matches"])


def test_a_page_on_another_origin_is_blocked(browser: WebDriver, server: str, api: str) -> None:
    other = server.replace("127.0.0.1", "localhost")  # same server, another origin, not listed
    out = run(browser, other, api)
    assert {name for name, r in out.items() if "blocked" in r} >= {"games", "new", "create"}
    assert all("status" not in r for r in out.values())
