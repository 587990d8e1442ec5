"""Managed matches on a real three-master Redis Cluster on loopback (issue
"Scale out and operate").  (The whole match suite also runs on a cluster:
``make test`` runs it again with ``MATCH_TESTS_CLUSTER=1``.)  Here, what only
a cluster can show: every script's keys in one slot and matches spread over
the nodes; a race; flags swept from every shard by several sweepers at once;
a master killed and restarted mid-run with nothing acknowledged lost; a wait
woken through the cluster's pub/sub; and misconfiguration reported as such.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from matchkit import FakeClock

from engine.registry import GAMES
from service import create_app
from service.matches import db, sweeper
from service.matches.store import SHARDS, Store
from service.run import embedded


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[embedded.EmbeddedCluster]:
    running = embedded.start_cluster(tmp_path_factory.mktemp("cluster"), appendfsync="always")
    yield running
    running.stop()


@pytest.fixture
def make_client(cluster: embedded.EmbeddedCluster, tmp_path: Path, client: FlaskClient) -> Iterator[Any]:
    apps: list[Flask] = []
    checked = type(client)

    def make(**config: Any) -> FlaskClient:
        settings = {"TESTING": True, "REDIS_URL": cluster.url, "REDIS_CLUSTER": True, "DATA_DIR": str(tmp_path), **config}
        app = create_app({"REDIS_PREFIX": f"c{len(apps)}:{tmp_path.name[-8:]}:", **settings})
        app.test_client_class = checked
        apps.append(app)
        return app.test_client()

    yield make
    for app in apps:
        db.close(app)


def create(client: FlaskClient, game: str = "catchup", **body: Any) -> tuple[str, dict[str, str]]:
    r = client.post("/v1/matches", json={"game": game, "options": {"size": 3} if game == "catchup" else {}, **body})
    assert r.status_code == 201, r.json
    return r.json["match_id"], r.json["seats"]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_every_script_touches_one_slot_and_matches_spread_over_the_nodes(make_client: Any) -> None:
    client = make_client()
    store: Store = db.get_store(client.application)
    nodes = set()
    for _ in range(24):
        match_id, seats = create(client)
        assert (
            client.post(
                f"/v1/matches/{match_id}/moves",
                json={"move": "C3", "ply": 0},
                headers={**auth(seats["0"]), "Idempotency-Key": "k"},
            ).status_code
            == 200
        )
        shard = int(match_id[:2], 16)
        keys = [*store.keys(match_id), store.deadlines(shard), store.index(shard, "ongoing"), store.index(shard, "finished")]
        assert len({store.r.keyslot(k) for k in keys}) == 1, keys  # create.lua, commit.lua, read.lua: one slot (no CROSSSLOT)
        nodes.add(store.r.get_node_from_key(keys[0]).name)
    assert len(nodes) > 1  # 256 shards over three masters: the matches do not all land on one


def test_a_race_on_the_cluster_applies_each_ply_once(make_client: Any) -> None:
    client = make_client()
    match_id, seats = create(client, "plur", options={"size": 2})
    game = GAMES["plur"]
    state = game.new({"size": 2})
    for ply in range(3):
        move = game.legal_moves(state).moves[ply]
        token = seats[str(state.to_move)]
        answers: list[int] = []

        def submit(move: str = move, token: str = token, ply: int = ply, answers: list[int] = answers) -> None:
            other = client.application.test_client()
            answers.append(
                other.post(f"/v1/matches/{match_id}/moves", json={"move": move, "ply": ply}, headers=auth(token)).status_code
            )

        threads = [threading.Thread(target=submit) for _ in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert answers.count(200) == 10  # the winner's answer, and nine retries of the same move given the same answer
        state = game.play(state, move).state
    rec = client.get(f"/v1/matches/{match_id}/moves").json
    assert [e["ply"] for e in rec["moves"]] == [0, 1, 2]  # each ply once, no gap, no duplicate


def test_flags_are_swept_from_every_shard_by_several_sweepers_once(make_client: Any) -> None:
    clock = FakeClock()
    client = make_client(MATCH_CLOCK=clock)
    store: Store = db.get_store(client.application)
    ids = [create(client, clock={"turn_s": 1, "bank_s": 1})[0] for _ in range(20)]
    assert len({int(i[:2], 16) for i in ids}) > 10  # many shards (of 256)
    clock.advance(3)
    done = [sum(sweeper.sweep_once(store, clock(), batch=SHARDS) for _ in range(2)) for _ in range(4)]  # four sweepers
    assert sum(done) >= 20
    for match_id in ids:
        rec = client.get(f"/v1/matches/{match_id}/moves").json
        assert [e["kind"] for e in rec["moves"]] == ["flag"] and rec["end"] == "flag"  # flagged exactly once
        assert store.deadline(match_id) is None
    assert store.due(clock()) == []


def test_a_wait_is_woken_through_the_clusters_pub_sub(make_client: Any) -> None:
    client = make_client()
    match_id, seats = create(client)
    threading.Timer(0.3, lambda: client.application.test_client().post(
        f"/v1/matches/{match_id}/moves", json={"move": "C3", "ply": 0}, headers=auth(seats["0"])
    )).start()  # fmt: skip
    start = time.monotonic()
    r = client.get(f"/v1/matches/{match_id}", query_string={"wait_ply": 0, "timeout_s": 10})
    assert r.json["ply"] == 1 and time.monotonic() - start < 5


def test_rate_limits_are_counted_on_the_cluster_for_every_process(make_client: Any) -> None:
    """RATE_LIMIT on a cluster: the counts live on the cluster (a plain client there would
    be answered MOVED and fall back to each process's memory), so two app processes
    share one budget per client address."""
    one = make_client(RATE_LIMIT="3/minute", REDIS_PREFIX="rl:shared:")
    other = make_client(RATE_LIMIT="3/minute", REDIS_PREFIX="rl:shared:")
    addr = {"REMOTE_ADDR": "10.77.0.1"}
    assert [one.get("/v1/games", environ_base=addr).status_code for _ in range(2)] == [200, 200]
    assert other.get("/v1/games", environ_base=addr).status_code == 200  # the third of the shared three
    refused = other.get("/v1/games", environ_base=addr)
    assert refused.status_code == 429 and refused.json["error"]["code"] == "rate_limited"
    assert one.get("/v1/games", environ_base=addr).status_code == 429
    assert one.get("/v1/games", environ_base={"REMOTE_ADDR": "10.77.0.2"}).status_code == 200  # others are served
    store: Store = db.get_store(one.application)
    counted = [k for node in store.r.get_primaries() for k in store.r.get_redis_connection(node).scan_iter("*rl:shared:*")]
    assert counted, "the counts are on the cluster's nodes"


def test_a_master_killed_mid_run_loses_nothing_acknowledged(cluster: embedded.EmbeddedCluster, make_client: Any) -> None:
    client = make_client(REDIS_TIMEOUT_S=1.0)
    store: Store = db.get_store(client.application)
    matches = [create(client, "plur", options={"size": 3}) for _ in range(12)]
    acknowledged: dict[str, int] = {m: 0 for m, _ in matches}
    failures: list[int] = []
    game = GAMES["plur"]
    victim = next(
        i
        for i, node in enumerate(cluster.nodes)
        if any(store.r.get_node_from_key(store.key(m)).port == node.port for m, _ in matches)
    )

    def play_round() -> None:
        for match_id, seats in matches:
            ply = acknowledged[match_id]
            state = None
            if ply:
                got = client.get(f"/v1/matches/{match_id}")
                if got.status_code != 200:
                    failures.append(got.status_code)
                    continue
                state = got.json["state"]
            if state is not None and state["status"] != "ongoing":
                continue
            position = game.load(state) if state else game.new({"size": 3})
            move = game.legal_moves(position).moves[0]
            r = client.post(
                f"/v1/matches/{match_id}/moves", json={"move": move, "ply": ply}, headers=auth(seats[str(position.to_move)])
            )
            if r.status_code == 200:
                acknowledged[match_id] = ply + 1
            else:
                failures.append(r.status_code)

    play_round()
    cluster.stop_node(victim, kill=True)  # kill -9, appendfsync always
    for _ in range(2):
        play_round()
    assert failures and set(failures) <= {503}  # clients saw the fault as 503, nothing else
    cluster.start_node(victim)
    cluster.wait_ok()
    time.sleep(0.5)
    play_round()
    for match_id, _ in matches:
        got = client.get(f"/v1/matches/{match_id}")
        assert got.status_code == 200
        assert got.json["ply"] >= acknowledged[match_id]  # every acknowledged move is there
        rec = client.get(f"/v1/matches/{match_id}/moves").json
        replayed = client.post("/v1/games/plur/replay", json=rec["replay"]).json
        assert replayed["valid"] and replayed["state"] == got.json["state"]  # and the record replays to the state


def test_a_slow_master_answers_503_within_the_timeout(cluster: embedded.EmbeddedCluster, make_client: Any) -> None:
    # redis-py's cluster client retries a timed-out command three times by default (each after
    # re-reading the cluster's layout): a stuck master held every request on it for four timeouts
    # and more, where one Redis answers 503 after one (test_faults.py).  Found by the soak
    # (bench/soak.py): Redis frozen on the cluster gave no 503 but moves of 4 s.
    client = make_client(REDIS_TIMEOUT_S=0.3)
    store: Store = db.get_store(client.application)
    match_id, _ = create(client)
    node = store.r.get_node_from_key(store.key(match_id))
    url = f"redis://{node.host}:{node.port}"
    sleeper = threading.Thread(target=lambda: redis.Redis.from_url(url).execute_command("DEBUG", "SLEEP", "2"))
    sleeper.start()
    time.sleep(0.1)  # that master is now stuck for 2 s
    try:
        start = time.monotonic()
        r = client.get(f"/v1/matches/{match_id}")
        took = time.monotonic() - start
        assert (r.status_code, r.json["error"]["details"]) == (503, {"redis": "timeout"}), r.json
        assert took < 1.0, took
    finally:
        sleeper.join()
    assert client.get(f"/v1/matches/{match_id}").status_code == 200


def test_misconfiguration_is_reported_as_such(cluster: embedded.EmbeddedCluster, tmp_path: Path) -> None:
    plain = create_app({"TESTING": True, "REDIS_URL": cluster.url, "REDIS_CLUSTER": False, "DATA_DIR": str(tmp_path)})
    single = embedded.start(tmp_path / "single")
    wrong = create_app({"TESTING": True, "REDIS_URL": single.url, "REDIS_CLUSTER": True, "DATA_DIR": str(tmp_path)})
    try:
        for app, why in ((plain, "REDIS_CLUSTER=1"), (wrong, "not a cluster")):
            r = app.test_client().get("/v1/health")
            assert r.status_code == 503 and r.json["error"]["details"] == {"redis": "misconfigured"}, r.json
            assert why in r.json["error"]["message"]
    finally:
        for app in (plain, wrong):
            db.close(app)
        single.stop()
    with pytest.raises(redis.RedisError):
        redis.Redis.from_url(cluster.url).execute_command(
            "EVAL", "return redis.call('SET', KEYS[1], 1, 'PX', 1) and redis.call('GET', KEYS[2])", 2, "{a}x", "{b}y"
        )


def fail_flags(cluster: embedded.EmbeddedCluster, port: int) -> set[str]:
    """How the live nodes flag the node on ``port`` (CLUSTER NODES): ``fail``, ``fail?``, ..."""
    flags: set[str] = set()
    for node in cluster.nodes:
        if node.port == port:
            continue
        client = redis.Redis.from_url(node.url, socket_timeout=1, decode_responses=True)
        try:
            for line in client.execute_command("CLUSTER", "NODES").splitlines():
                fields = line.split()
                if fields[1].startswith(f"127.0.0.1:{port}@"):
                    flags |= set(fields[2].split(","))
        except (redis.RedisError, OSError):
            pass
        finally:
            client.close()
    return flags


def test_healthy_masters_keep_answering_while_one_is_failed_and_health_names_its_shards(
    cluster: embedded.EmbeddedCluster, make_client: Any
) -> None:
    """Issue 21: with `cluster-require-full-coverage yes` a failed master took the whole cluster
    down (CLUSTERDOWN for every match) for as long as it was flagged `fail`; now only its own
    shards are down, and /v1/health says which (it stayed 200 for seconds while a third of the
    matches failed, having asked one node)."""
    client = make_client(REDIS_TIMEOUT_S=0.5, REDIS_CONNECT_TIMEOUT_S=0.5)
    store: Store = db.get_store(client.application)
    assert client.get("/v1/health").status_code == 200
    made = [create(client, "plur", options={"size": 3}) for _ in range(18)]
    victim = 2
    port = cluster.nodes[victim].port
    on_victim = {m for m, _ in made if store.r.get_node_from_key(store.key(m)).port == port}
    healthy = [(m, seats) for m, seats in made if m not in on_victim]
    assert on_victim and healthy
    victim_shards = sorted(s for s in range(SHARDS) if store.r.get_node_from_key(store.tag(s)).port == port)
    game = GAMES["plur"]
    cluster.stop_node(victim, kill=True)
    try:
        r = client.get("/v1/health")
        assert r.status_code == 503 and r.json["error"]["details"]["redis"] == "degraded", r.json
        assert r.json["error"]["details"]["shards"] == victim_shards
        assert r.json["error"]["details"]["masters"][f"127.0.0.1:{port}"] == "down"
        answers: list[int] = []
        seen_failed = False
        plies = dict.fromkeys((m for m, _ in healthy), 0)
        end = time.monotonic() + 6  # past cluster-node-timeout (2 s): the others flag the victim `fail`
        while time.monotonic() < end and not (seen_failed and len(answers) > 60):
            for match_id, seats in healthy:
                state = (
                    game.new({"size": 3})
                    if plies[match_id] == 0
                    else game.load(client.get(f"/v1/matches/{match_id}").json["state"])
                )
                if game.is_over(state):
                    continue
                move = game.legal_moves(state).moves[0]
                r = client.post(
                    f"/v1/matches/{match_id}/moves",
                    json={"move": move, "ply": plies[match_id]},
                    headers=auth(seats[str(state.to_move)]),
                )
                answers.append(r.status_code)
                if r.status_code == 200:
                    plies[match_id] += 1
            seen_failed = seen_failed or "fail" in fail_flags(cluster, port)
        assert seen_failed, "the victim was never flagged fail: the window was not reached"
        assert set(answers) == {200}, answers  # no CLUSTERDOWN on the healthy masters
        for match_id in on_victim:
            assert client.get(f"/v1/matches/{match_id}").status_code == 503
    finally:
        cluster.start_node(victim)
        cluster.wait_ok()
    time.sleep(0.3)
    assert client.get("/v1/health").status_code == 200


def test_flags_on_healthy_masters_fall_on_time_while_one_master_is_down(
    cluster: embedded.EmbeddedCluster, make_client: Any
) -> None:
    """Issue 21: the sweeper read all 256 shards in one pipeline, which failed while any master
    was down: flags on the healthy masters fell 1.5-5.5 s late.  It sweeps master by master now,
    carrying on past the one that fails."""
    client = make_client(REDIS_TIMEOUT_S=0.5, REDIS_CONNECT_TIMEOUT_S=0.5)
    store: Store = db.get_store(client.application)
    victim = 1
    port = cluster.nodes[victim].port
    made = [create(client, clock={"turn_s": 2, "bank_s": 0})[0] for _ in range(15)]
    healthy = [m for m in made if store.r.get_node_from_key(store.key(m)).port != port]
    deadlines = {m: store.deadline(m) for m in healthy}
    assert healthy and len(healthy) < len(made)
    stop = threading.Event()
    running = threading.Thread(target=sweeper.run, args=(store, 0.1, stop), daemon=True)
    running.start()
    cluster.stop_node(victim, kill=True)
    try:
        flagged_at: dict[str, int] = {}
        end = time.monotonic() + 5
        while time.monotonic() < end and len(flagged_at) < len(healthy):
            for m in healthy:
                try:
                    if m not in flagged_at and store.deadline(m) is None:  # the sweeper applied the flag (no read here does)
                        flagged_at[m] = store.now_ms(m)
                except redis.exceptions.ClusterDownError as e:
                    # Seen once in a fresh clone's make test on a busy machine, never since (not reproduced under CPU
                    # or fsync load): a healthy master said CLUSTERDOWN.  How each node saw the cluster then says why.
                    raise AssertionError(f"a healthy master answered {e}; the nodes' views: {cluster.views()}") from e
            time.sleep(0.02)
        late = {m: (flagged_at[m] - deadlines[m]) / 1000 for m in flagged_at if deadlines[m] is not None}
        assert len(flagged_at) == len(healthy), f"{len(healthy) - len(flagged_at)} flags not applied: {late}"
        assert max(late.values()) < 1.0, late  # 0.02-0.10 s late without a fault; was 1.5-5.5 s
    finally:
        stop.set()
        running.join(10)
        cluster.start_node(victim)
        cluster.wait_ok()
