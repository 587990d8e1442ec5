"""The JSON text of managed matches: what is stored in Redis, hashed, compared and answered.

On a move's hot path (bench/bench_http.py) orjson writes the same compact
text as ``json.dumps(separators=(",", ":"), ensure_ascii=False)``, several
times faster.  What it refuses (integers beyond 64 bits, say, in a client's
options) goes the standard library's way, so anything JSON can say is still
written.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def canonical(value: Any) -> str:
    """Canonical JSON (sorted keys, no spaces): the form that is hashed or compared."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def compact(value: Any) -> str:
    """JSON without spaces, keys in the order given: the form stored and answered."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def parse_json(text: str) -> Any:
    """JSON this service wrote (orjson reads integers beyond 64 bits as floats,
    so what only the standard library reads goes its way)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
