"""bench/movefloor.py, ``bench overhead``'s floor under a managed move (issue 33, "Speed stays honest"), is what
BENCHMARKS.md says it is: the app's plumbing whole, and a move that makes the two Redis round trips every move
makes (the read, the compare-and-set commit of a record entry) and judges nothing.  If it did less, the floor it
measures would be too low; if it judged, too high."""

from __future__ import annotations

from pathlib import Path

from service.matches.db import get_store
from service.web.requestlog import HEADER


def test_the_floor_reads_and_commits_like_a_move_and_judges_nothing(redis_url: str, prefix: str, tmp_path: Path) -> None:
    from bench import movefloor

    app = movefloor.make({"TESTING": True, "REDIS_URL": redis_url, "REDIS_PREFIX": prefix, "DATA_DIR": str(tmp_path)})
    client = app.test_client()
    made = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 5}}).get_json()
    match_id = made["match_id"]
    store = get_store(app)
    before = store.read(match_id)
    # Z99 is no cell of a side-5 board and seat 1's token is nobody's turn: the real move would refuse both (R-H1)
    answer = client.post(
        f"/v1/matches/{match_id}/moves", json={"move": "Z99", "ply": 0}, headers={"Authorization": "Bearer nobody"}
    )
    assert answer.status_code == 200 and answer.get_json() == {"match_id": match_id, "ply": 1}
    assert HEADER in answer.headers and answer.headers["X-Content-Type-Options"] == "nosniff"  # the plumbing's
    after = store.read(match_id)
    assert int(after.rev) == int(before.rev) + 1  # committed through commit.lua's compare-and-set
    assert after.live == before.live  # nothing judged: the match is as it was
    assert after.length == before.length + 1 and '"Z99"' in store.record(match_id)[-1]  # one move's entry, kept as sent
