"""Clients generated from openapi.yaml, as a client author would make them.

* a Python client (openapi-python-client) is generated without one warning,
  passes ``mypy --strict``, and plays a short game of every game (stateless)
  and a whole managed match against a real server (tests/conftest.py
  ``live_server``); clients/templates holds the one template of the
  generator's that we correct (its ``__exit__`` fails ``mypy --strict``);
* TypeScript types (openapi-typescript, versions pinned in clients/package.json
  and installed by ``make test`` with ``npm ci``) are generated without one
  warning, and clients/check.ts - a client author's first lines, and mistakes
  the types must catch - compiles with ``tsc --strict``.

Everything generated goes to a temporary folder.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engine.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = ROOT / "clients"
BIN = CLIENTS / "node_modules" / ".bin"
SPEC = ROOT / "openapi.yaml"


def warnings_in(output: str) -> list[str]:
    return [line for line in output.splitlines() if "warn" in line.lower() or "⚠" in line or "skipping" in line.lower()]


@pytest.fixture(scope="module")
def umpire_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("python-client") / "umpire_client"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff hooks
    started = time.monotonic()
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "openapi-python-client"), "generate",
            "--path", str(SPEC), "--output-path", str(out), "--meta", "none",
            "--config", str(CLIENTS / "openapi-python-client.yaml"),
            "--custom-template-path", str(CLIENTS / "templates"),
        ],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    print(f"openapi-python-client: {time.monotonic() - started:.1f} s")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert warnings_in(output) == [], output
    # A client author type-checks what they generate: every model and operation, strictly.
    typed = subprocess.run(
        [str(Path(sys.executable).parent / "mypy"), "--strict", "--no-incremental", "umpire_client"],
        cwd=out.parent, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert typed.returncode == 0, typed.stdout[-5000:] + typed.stderr[-2000:]
    sys.path.insert(0, str(out.parent))
    try:
        yield importlib.import_module("umpire_client")
    finally:
        sys.path.remove(str(out.parent))
        for name in [m for m in sys.modules if m == "umpire_client" or m.startswith("umpire_client.")]:
            del sys.modules[name]


def _op(name: str, what: str) -> Any:
    return importlib.import_module(f"umpire_client.api.{name}.{name}_{what.replace('-', '_')}")


def _model(name: str) -> Any:
    return getattr(importlib.import_module("umpire_client.models"), name)


OPTIONS: dict[str, dict[str, Any]] = {
    "crystal": {"seed": "client"},
    "catchup": {"size": 3},
    "bug": {},
    "plur": {"size": 3},
    "too": {"size": 3},
    "product": {"size": 3},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GAMES))
def test_the_python_client_plays_every_game(umpire_client: ModuleType, live_server: str, name: str) -> None:
    with umpire_client.Client(base_url=live_server, raise_on_unexpected_status=True) as client:
        _play(client, name)


def _play(client: Any, name: str) -> None:
    prefix = name.capitalize()
    options = _model(f"{prefix}Options").from_dict(OPTIONS.get(name, {}))  # a game not listed plays its defaults
    answer = _op(name, "new").sync(client=client, body=_model(f"{prefix}NewRequest")(options=options))
    assert isinstance(answer, _model(f"{prefix}StateAnswer")), answer
    state = answer.state
    assert isinstance(state, _model(f"{prefix}State")) and state.game == name
    record = []
    for _ in range(4):
        listing = _op(name, "legal-moves").sync(client=client, body=_model(f"{prefix}LegalMovesRequest")(state=state, limit=5))
        assert isinstance(listing, _model("LegalMoves")) and listing.count == len(listing.moves) > 0
        move = listing.moves[0]
        if name == "crystal" and state.phase.value == "shift":
            move = ", ".join([move] * state.shifts_due)
        verdict = _op(name, "play").sync(client=client, body=_model(f"{prefix}PlayRequest")(state=state, move=move))
        assert isinstance(verdict, _model(f"{prefix}LegalVerdict")), verdict
        record.append(verdict.move)
        state = verdict.state
        assert state.ply == len(record)
    illegal = _op(name, "play").sync(client=client, body=_model(f"{prefix}PlayRequest")(state=state, move="Z99"))
    assert isinstance(illegal, _model(f"{prefix}IllegalVerdict")) and illegal.error.code and illegal.events == []
    replay = _op(name, "replay").sync(client=client, body=_model(f"{prefix}ReplayRequest")(options=options, moves=record))
    assert isinstance(replay, _model(f"{prefix}Replay")) and replay.valid and replay.plies == len(record)
    assert replay.state.to_dict() == state.to_dict()
    # a refusal comes back as the one error shape
    broken = _model(f"{prefix}State").from_dict({**state.to_dict(), "ply": state.ply + 1})
    refused = _op(name, "legal-moves").sync(client=client, body=_model(f"{prefix}LegalMovesRequest")(state=broken))
    assert isinstance(refused, _model("ErrorAnswer")) and refused.error.code == "bad_state"


@pytest.mark.slow
def test_the_python_client_plays_a_managed_match(umpire_client: ModuleType, live_server: str) -> None:
    with umpire_client.Client(base_url=live_server, raise_on_unexpected_status=True) as client:
        tokens = _match(umpire_client, client, live_server)
    assert len(tokens) == 2


def _match(umpire_client: ModuleType, client: Any, live_server: str) -> list[str]:
    from umpire_client.api.matches import create_match

    body = _model("CatchupMatchCreate").from_dict({"game": "catchup", "options": {"size": 3}, "clock": "catchup"})
    created = create_match.sync(client=client, body=body)
    assert isinstance(created, _model("MatchCreated")), created
    tokens = [created.seats.field_0, created.seats.field_1]
    seats = [umpire_client.AuthenticatedClient(base_url=live_server, token=t) for t in tokens]
    try:
        _moves(created, seats, client)
    finally:
        for seat in seats:
            seat.get_httpx_client().close()
    return tokens


def _moves(created: Any, seats: list[Any], client: Any) -> None:
    from umpire_client.api.matches import get_match, match_move, match_record, resign

    moves = ["C3", "B2 B3", "C2 C4 D3"]
    for ply, move in enumerate(moves):
        answer = match_move.sync(created.match_id, client=seats[ply % 2], body=_model("MatchMoveRequest")(move=move, ply=ply))
        assert isinstance(answer, _model("MatchLegalVerdict")), answer
        assert answer.ply == ply + 1 and answer.state.ply == ply + 1
    again = match_move.sync_detailed(
        created.match_id, client=seats[1], body=_model("MatchMoveRequest")(move="A1 C3", ply=3), idempotency_key="k1"
    )
    assert again.status_code == 422 and isinstance(again.parsed, _model("MatchIllegalVerdict"))
    assert again.parsed.error.code == "occupied"
    stale = match_move.sync(created.match_id, client=seats[1], body=_model("MatchMoveRequest")(move="A1", ply=1))
    assert isinstance(stale, _model("ErrorAnswer")) and stale.error.code == "stale_ply"
    match = get_match.sync(created.match_id, client=client)
    assert isinstance(match, _model("Match")) and match.ply == 3 and isinstance(match.state, _model("CatchupState"))
    done = resign.sync(created.match_id, client=seats[1])
    assert isinstance(done, _model("MatchResigned")) and done.state.winner == 0
    record = match_record.sync(created.match_id, client=client)
    assert isinstance(record, _model("MatchRecord"))
    assert [(e.kind, e.move) for e in record.moves] == [*(("move", m) for m in moves), ("illegal", "A1 C3"), ("resign", None)]
    assert record.replay.moves == [*moves, "resign 1"]  # the illegal attempt changed nothing: not a move to replay


def test_typescript_types_compile_strictly(tmp_path: Path) -> None:
    assert (BIN / "tsc").exists() and (BIN / "openapi-typescript").exists(), (
        "clients/node_modules is missing: `make test` installs it (cd clients && npm ci)"
    )
    started = time.monotonic()
    done = subprocess.run(
        [str(BIN / "openapi-typescript"), str(SPEC), "--default-non-nullable", "false", "-o", str(tmp_path / "umpire.d.ts")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert warnings_in(output) == [], output
    (tmp_path / "check.ts").write_text((CLIENTS / "check.ts").read_text(encoding="utf-8"), encoding="utf-8")
    args = ["--strict", "--noEmit", "--target", "es2020", "--module", "esnext", "--moduleResolution", "bundler", "check.ts"]
    done = subprocess.run([str(BIN / "tsc"), *args], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    print(f"openapi-typescript and tsc: {time.monotonic() - started:.1f} s")
    assert done.returncode == 0, done.stdout + done.stderr
    types = (tmp_path / "umpire.d.ts").read_text(encoding="utf-8")
    assert 'board: components["schemas"]["HexBoardCells"];' in types  # required, not `board?:`


def test_check_ts_fails_on_a_type_error(tmp_path: Path) -> None:
    """tsc is not a formality: a wrong assignment fails it."""
    assert (BIN / "tsc").exists(), "clients/node_modules is missing: `make test` installs it (cd clients && npm ci)"
    (tmp_path / "bad.ts").write_text('const n: number = "three";\nexport { n };\n', encoding="utf-8")
    done = subprocess.run([str(BIN / "tsc"), "--strict", "--noEmit", "bad.ts"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0 and "TS2322" in done.stdout
