"""The API reference as one HTML page, written here from the spec (``GET /docs``).

No template engine, no script, nothing fetched from the network: the page is
built once per process from the same spec ``GET /openapi.yaml`` serves
(:func:`service.api.openapi.build`), so it can never disagree with it.  Every
operation by tag - its summary, description, parameters, request body,
answers with their media types and first example - then every schema with
its fields.  Descriptions are the spec's Markdown, of which the few forms it
uses are kept: paragraphs, ``code``, **bold**, list items and links.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from service.api import openapi

Json = dict[str, Any]
METHODS = ("get", "post", "put", "patch", "delete")

STYLE = """
:root{color-scheme:light dark;--ink:#1a1a1a;--muted:#5c5c5c;--bg:#fff;--panel:#f5f2ea;--line:#d8d0bf;--accent:#0b5cad}
@media (prefers-color-scheme:dark){:root{--ink:#eee;--muted:#aaa;--bg:#161616;--panel:#222;--line:#444;--accent:#7db7f0}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--ink);background:var(--bg)}
header,main{max-width:62rem;margin:0 auto;padding:0 1rem}
header{padding-top:1rem}
a{color:var(--accent)}
a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
code,pre{font:0.92em/1.4 ui-monospace,monospace}
pre{background:var(--panel);border:1px solid var(--line);padding:.6rem;overflow:auto;max-height:22rem}
nav ul{columns:2 16rem;padding-left:1.2rem}
section.op{border-top:1px solid var(--line);padding:.5rem 0 1rem}
h2{margin-top:2rem}
h3{margin:.6rem 0 .2rem;font-size:1.05rem;word-break:break-all}
.method{display:inline-block;min-width:4.2rem;text-align:center;border-radius:4px;padding:0 .4rem;margin-right:.4rem;
  font:bold .85rem/1.6 ui-monospace,monospace;color:#fff;background:#555}
.get{background:#1f6f43}.post{background:#0b5cad}.delete{background:#a3262c}
table{border-collapse:collapse;width:100%;margin:.4rem 0}
th,td{border:1px solid var(--line);padding:.25rem .45rem;text-align:left;vertical-align:top}
th{background:var(--panel)}
td p{margin:0 0 .3rem}td p:last-child{margin:0}
.muted{color:var(--muted)}
"""


def _inline(text: str) -> str:
    """One line of the spec's Markdown: code spans, bold, links; the rest escaped."""
    out = []
    for i, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if i % 2:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        part = html.escape(part, quote=False)
        part = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", part)
        part = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', part)
        out.append(part)
    return "".join(out)


def markdown(text: str | None) -> str:
    """Paragraphs and ``- `` lists of the spec's descriptions as HTML."""
    if not text:
        return ""
    blocks = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = [ln.strip() for ln in block.splitlines()]
        if all(ln.startswith(("- ", "* ")) or not ln for ln in lines):
            items = "".join(f"<li>{_inline(ln[2:])}</li>" for ln in lines if ln)
            blocks.append(f"<ul>{items}</ul>")
        else:
            blocks.append(f"<p>{_inline(' '.join(lines))}</p>")
    return "".join(blocks)


def _anchor(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", "-".join(parts)).strip("-")


def type_of(schema: Any) -> str:
    """A schema in a few words of HTML: its type, enum, or the schemas it refers to."""
    if not isinstance(schema, Mapping):
        return "any"
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return f'<a href="#schema-{_anchor(name)}">{html.escape(name)}</a>'
    if "const" in schema:
        return f"<code>{html.escape(json.dumps(schema['const']))}</code>"
    if "enum" in schema:
        return "one of " + ", ".join(f"<code>{html.escape(json.dumps(v))}</code>" for v in schema["enum"])
    for key, word in (("oneOf", "one of"), ("anyOf", "any of"), ("allOf", "all of")):
        if schema.get(key):
            return f"{word} (" + "; ".join(type_of(s) for s in schema[key]) + ")"
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(str(k) for k in kind)
    if kind == "array":
        return f"array of {type_of(schema.get('items'))}"
    if schema.get("format"):
        kind = f"{kind} ({schema['format']})"
    return html.escape(str(kind))


def _parameters(params: list[Json], spec: Json) -> str:
    if not params:
        return ""
    rows = []
    for p in params:
        if "$ref" in p:
            p = _resolve(spec, p["$ref"])
        req = "yes" if p.get("required") else ""
        rows.append(
            f"<tr><td><code>{html.escape(p['name'])}</code></td><td>{html.escape(p.get('in', ''))}</td>"
            f"<td>{type_of(p.get('schema'))}</td><td>{req}</td><td>{markdown(p.get('description'))}</td></tr>"
        )
    head = "<tr><th>parameter</th><th>in</th><th>type</th><th>required</th><th>description</th></tr>"
    return f"<h4>Parameters</h4><table>{head}{''.join(rows)}</table>"


def _resolve(spec: Json, ref: str) -> Json:
    node: Any = spec
    for token in ref.removeprefix("#/").split("/"):
        node = node[token]
    if isinstance(node, Mapping) and "$ref" in node and len(node) == 1:
        return _resolve(spec, node["$ref"])
    return dict(node)


def _example(media: Mapping[str, Any]) -> str:
    value: Any = None
    if "example" in media:
        value = media["example"]
    elif media.get("examples"):
        first = next(iter(media["examples"].values()))
        value = first.get("value")
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    return f'<details><summary class="muted">example</summary><pre>{html.escape(text)}</pre></details>'


def _body(body: Json | None, spec: Json) -> str:
    if not body:
        return ""
    if "$ref" in body:
        body = _resolve(spec, body["$ref"])
    parts = []
    for media, content in body.get("content", {}).items():
        parts.append(f"<p><code>{html.escape(media)}</code>: {type_of(content.get('schema'))}</p>{_example(content)}")
    return f"<h4>Request body</h4>{markdown(body.get('description'))}{''.join(parts)}"


def _responses(responses: Json, spec: Json) -> str:
    rows = []
    for status, answer in responses.items():
        if "$ref" in answer:
            answer = _resolve(spec, answer["$ref"])
        media = []
        for name, content in answer.get("content", {}).items():
            media.append(f"<code>{html.escape(name)}</code> {type_of(content.get('schema'))}{_example(content)}")
        rows.append(
            f"<tr><td><strong>{html.escape(str(status))}</strong></td><td>{markdown(answer.get('description'))}</td>"
            f"<td>{'<br>'.join(media)}</td></tr>"
        )
    return f"<h4>Answers</h4><table><tr><th>status</th><th>when</th><th>body</th></tr>{''.join(rows)}</table>"


def _operation(path: str, method: str, op: Json, shared: list[Json], spec: Json) -> str:
    anchor = _anchor(method, path)
    return (
        f'<section class="op" id="{anchor}"><h3><span class="method {method}">{method.upper()}</span>'
        f'<a href="#{anchor}">{html.escape(path)}</a></h3>'
        f"<p><strong>{_inline(op.get('summary', ''))}</strong></p>{markdown(op.get('description'))}"
        f"{_parameters(shared + op.get('parameters', []), spec)}{_body(op.get('requestBody'), spec)}"
        f"{_responses(op.get('responses', {}), spec)}</section>"
    )


def _schema(name: str, schema: Json) -> str:
    rows = []
    required = set(schema.get("required", []))
    for field, sub in (schema.get("properties") or {}).items():
        desc = sub.get("description") if isinstance(sub, Mapping) else None
        rows.append(
            f"<tr><td><code>{html.escape(field)}</code></td><td>{type_of(sub)}</td>"
            f"<td>{'yes' if field in required else ''}</td><td>{markdown(desc)}</td></tr>"
        )
    table = ""
    if rows:
        head = "<tr><th>field</th><th>type</th><th>required</th><th>description</th></tr>"
        table = f"<table>{head}{''.join(rows)}</table>"
    kind = "" if rows else f"<p>{type_of(schema)}</p>"
    return (
        f'<section class="op" id="schema-{_anchor(name)}"><h3>{html.escape(name)}</h3>'
        f"{markdown(schema.get('description'))}{kind}{table}</section>"
    )


def render(spec: Json) -> str:
    """The whole page."""
    info = spec.get("info", {})
    by_tag: dict[str, list[str]] = {}
    toc: dict[str, list[str]] = {}
    for path, item in spec["paths"].items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            tag = (op.get("tags") or ["other"])[0]
            by_tag.setdefault(tag, []).append(_operation(path, method, op, item.get("parameters", []), spec))
            label = f"{method.upper()} {path}"
            toc.setdefault(tag, []).append(f'<li><a href="#{_anchor(method, path)}">{html.escape(label)}</a></li>')
    tags = {t["name"]: t.get("description", "") for t in spec.get("tags", [])}
    sections = []
    nav = []
    for tag, ops in by_tag.items():
        sections.append(f'<h2 id="tag-{_anchor(tag)}">{html.escape(tag)}</h2>{markdown(tags.get(tag))}{"".join(ops)}')
        nav.append(f"<li><strong>{html.escape(tag)}</strong><ul>{''.join(toc[tag])}</ul></li>")
    schemas = spec.get("components", {}).get("schemas", {})
    schema_html = "".join(_schema(name, s) for name, s in schemas.items())
    title = html.escape(f"{info.get('title', 'API')} {info.get('version', '')} - API reference")
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
        f"<title>{title}</title><style>{STYLE}</style></head><body>"
        f'<header><h1>{title}</h1><p><a href="/">The umpire\'s desk</a> · <a href="/openapi.yaml">openapi.yaml</a></p>'
        f"{markdown(info.get('description'))}</header><main>"
        f'<nav aria-label="Operations"><h2>Operations</h2><ul>{"".join(nav)}</ul>'
        f'<p><a href="#schemas">Schemas</a></p></nav>'
        f'{"".join(sections)}<h2 id="schemas">Schemas</h2>{schema_html}</main></body></html>'
    )


@cache
def page() -> str:
    """The page for this process's spec (built once)."""
    return render(openapi.build())


@cache
def spec_text() -> str:
    """``openapi.yaml`` as ``make openapi`` writes it (the committed file; a test checks they agree)."""
    return openapi.render(openapi.build())
