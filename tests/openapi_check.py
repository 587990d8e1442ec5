"""Checks answers against ``openapi.yaml`` (JSON Schema 2020-12, the dialect of
OpenAPI 3.1): the machinery behind the ``client`` fixture of tests/conftest.py.

An answer's media type must be one the spec gives for its status: JSON is
validated against its schema; a text type (SVG, Markdown, plain text, HTML,
YAML, script, style) against its string schema; a PNG must be a PNG.  A
``304`` has no body, and must be documented.  Errors are JSON, always.

A module of its own (not conftest.py) so that tests anywhere under tests/ can
import it by a name no other file shares.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from werkzeug.test import TestResponse

ROOT = Path(__file__).resolve().parent.parent
SPEC_FILE = ROOT / "openapi.yaml"
SPEC_URI = "urn:umpire:openapi"
JSON = "application/json"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
METHODS = ("get", "put", "post", "delete", "patch")


def escape(token: str) -> str:
    """One JSON-pointer token (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


def flask_rule_to_template(rule: str) -> str:
    """``/v1/games/<game>/new`` -> ``/v1/games/{game}/new`` (converters dropped)."""
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)


@cache
def load_spec() -> dict[str, Any]:
    spec: dict[str, Any] = yaml.safe_load(SPEC_FILE.read_text(encoding="utf-8"))
    return spec


class SpecChecker:
    """Validates answers against the spec; remembers what it checked."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = spec
        self.registry: Registry[Any] = Registry().with_resource(SPEC_URI, Resource.from_contents(spec, DRAFT202012))
        # Literal segments before templated ones, so /v1/games beats /v1/{x} if both ever exist.
        self.paths = sorted(spec["paths"], key=lambda p: (p.count("{"), p))
        self.patterns = {p: re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(p)) + "$") for p in self.paths}
        self.checked: set[tuple[str, str, str]] = set()  # (path template, method, status)

    def resolve(self, pointer: str) -> tuple[str, Any]:
        """Follow local ``$ref``s from ``pointer``; returns the final pointer and node."""
        node: Any = self.spec
        for token in pointer.lstrip("/").split("/"):
            node = node[token.replace("~1", "/").replace("~0", "~")]
        while isinstance(node, Mapping) and "$ref" in node and len(node) == 1:
            pointer = node["$ref"].removeprefix("#")
            node = self.resolve(pointer)[1]
        return pointer, node

    def template_for(self, path: str) -> str | None:
        for p in self.paths:
            if self.patterns[p].match(path):
                return p
        return None

    def documented(self) -> set[tuple[str, str, str]]:
        """Every (path, method, status) the spec describes."""
        out = set()
        for p, item in self.spec["paths"].items():
            for m in METHODS:
                for status in item.get(m, {}).get("responses", {}):
                    out.add((p, m.upper(), str(status)))
        return out

    def validate(self, schema_pointer: str, body: Any) -> list[str]:
        """Errors of ``body`` against the schema at ``schema_pointer`` (empty when valid)."""
        validator = Draft202012Validator(
            {"$ref": f"{SPEC_URI}#{schema_pointer}"},
            registry=self.registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
        return [f"at {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors]

    def check(self, method: str, path: str, status: int, content_type: str | None, body: Any) -> None:
        """Raise AssertionError unless the spec describes this answer."""
        method = method.upper()
        if method in ("HEAD", "OPTIONS"):
            return
        where = f"{method} {path} -> {status}"
        media_type = None if content_type is None else content_type.split(";")[0].strip()
        if status not in (204, 304) and (status >= 400 or media_type == JSON):
            assert media_type == JSON, f"{where}: content type {content_type!r}, the spec promises application/json"
        template = self.template_for(path)
        if template is None:
            # No such address: still the one error shape.
            assert status >= 400, f"{where}: an answer from a path the spec does not describe"
            problems = self.validate("/components/schemas/Error", body)
            assert not problems, f"{where}: not the error shape: {problems}"
            return
        op = self.spec["paths"][template].get(method.lower())
        if op is None:
            assert status == 405, f"{where}: {template} has no {method} in the spec"
            problems = self.validate("/components/schemas/Error", body)
            assert not problems, f"{where}: not the error shape: {problems}"
            self.checked.add((template, method, str(status)))
            # Each operation of the address declares the 405 the address answers to other methods.
            for other in METHODS:
                if other in self.spec["paths"][template]:
                    assert "405" in self.spec["paths"][template][other]["responses"], f"{where}: {other} {template} lacks 405"
                    self.checked.add((template, other.upper(), "405"))
            return
        responses = op["responses"]
        key = str(status) if str(status) in responses else "default" if "default" in responses else None
        assert key is not None, f"{where}: status {status} is not documented for {method} {template}"
        base = f"/paths/{escape(template)}/{method.lower()}/responses/{escape(key)}"
        ptr, response = self.resolve(base)
        if status in (204, 304):
            assert "content" not in response, f"{where}: the spec gives a {status} a body"
            assert not body, f"{where}: a {status} with a body"
            self.checked.add((template, method, key))
            return
        content = response.get("content", {})
        media = content.get(media_type)
        assert media is not None and "schema" in media, (
            f"{where}: content type {content_type!r}: the spec gives no schema for it (only {', '.join(content) or 'none'})"
        )
        schema_ptr = f"{ptr}/content/{escape(str(media_type))}/schema"
        if media_type == "image/png":
            assert isinstance(body, bytes) and body.startswith(PNG_SIGNATURE), f"{where}: not a PNG"
            problems = []
        elif media_type == "text/event-stream":  # the schema is each event's (tests/matches/test_events.py reads them)
            assert isinstance(body, str) and body.startswith("retry: "), f"{where}: not an event stream"
            problems = []
        else:
            if media_type != JSON:
                assert isinstance(body, str), f"{where}: a {media_type} answer that is not text"
            if media_type == "application/yaml":  # the schema is the document's, as a client reads it
                body = yaml.safe_load(body)
            problems = self.validate(schema_ptr, body)
        assert not problems, f"{where}: the answer does not match {template} {method} {key} in openapi.yaml:\n" + "\n".join(
            problems[:10]
        )
        self.checked.add((template, method, key))


_checker: SpecChecker | None = None


def current_checker() -> SpecChecker | None:
    """The session's checker, if any test has used it."""
    return _checker


def spec_checker_instance() -> SpecChecker:
    global _checker
    if _checker is None:
        _checker = SpecChecker(load_spec())
    return _checker


class SpecCheckedClient(FlaskClient):
    """Flask's test client; every answer must match openapi.yaml."""

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        response = super().open(*args, **kwargs)
        if response.is_json:
            body = response.get_json(silent=True)
        elif response.mimetype == "image/png":
            body = response.get_data()
        else:
            body = response.get_data(as_text=True)
        response.close()  # the body is read: a static file's handle is closed now, not at garbage collection
        req = response.request
        spec_checker_instance().check(req.method, req.path, response.status_code, response.content_type, body)
        return response
