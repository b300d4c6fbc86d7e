"""A namespace as an Open Knowledge Format (OKF v0.2) bundle: a folder of Markdown files with
YAML front matter, readable with ``cat``, ``grep`` and ``git``.

- ``<layer>/<id>.md``: one concept per memory (``type``: Fact, Episode, Procedure or Core
  Block). A replaced memory has ``status: deprecated`` and ``replaced_by`` (a link to its
  replacement, also written in the body); a fact made by consolidation lists the episodes
  it came from under ``sources``; ``stale_after`` is a fact's next review (FSRS due date).
  zenbrain's own fields (id, times, validity, confidence, metadata) sit under ``zenbrain``.
- ``conversations/<session>.md``: each short-term session's transcript.
- ``index.md`` (``okf_version: "0.2"``, every concept by layer) and ``log.md`` (what was
  created, and replaced, by day, newest first).

Front matter is written in YAML's JSON-compatible flow style (every value a JSON scalar,
list or mapping), so any YAML parser reads it. OKF is an export only: the archive
(:func:`~zenbrain.exchange.export_archive`) is the format that comes back in.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

import zenbrain
from zenbrain._storage.reads import pages_by_key
from zenbrain._storage.schema import consolidation_links, interactions, sessions
from zenbrain.errors import InvalidInputError
from zenbrain.exchange._archive_export import ExportReport, memory_line, memory_query
from zenbrain.exchange._fields import time_text

if TYPE_CHECKING:
    from zenbrain._coordinator import MemoryCoordinator

__all__ = ["export_okf"]

TYPES = {"semantic": "Fact", "episodic": "Episode", "procedural": "Procedure", "core": "Core Block"}
_HEADINGS = {"core": "Core blocks", "semantic": "Facts", "procedural": "Procedures",
             "episodic": "Episodes"}  # fmt: skip
_PAGE = 1000
_TITLE_CHARS = 80


def _yaml(fields: dict[str, Any]) -> str:
    lines = ["---"]
    for key, value in fields.items():
        if value is None or value == {} or value == []:
            continue
        lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join([*lines, "---", ""])


def _title(line: dict[str, Any]) -> str:
    if line.get("core"):
        return str(line["core"]["label"])
    first = " ".join(str(line["content"]).split())
    return first if len(first) <= _TITLE_CHARS else first[: _TITLE_CHARS - 1].rstrip() + "…"


def _link(line: dict[str, Any]) -> str:
    return f"/{line['layer']}/{line['id']}.md"


def _concept(line: dict[str, Any], lines: dict[str, dict[str, Any]], made_from: list[str],
             namespace: str) -> str:  # fmt: skip
    replaced_by = lines.get(line["superseded_by"] or "")
    deprecated = line["valid_to"] is not None
    fact = line.get("fact")
    own = {key: line.get(key) for key in (
        "id", "layer", "created_at", "updated_at", "valid_from", "valid_to", "superseded_by",
        "confidence", "emotional_weight", "context", "source", "metadata")}  # fmt: skip
    if fact:
        own["reviews"] = fact["reviews"]
    front: dict[str, Any] = {
        "type": TYPES[line["layer"]],
        "title": _title(line),
        "description": _title(line) if line.get("core") else None,
        "resource": f"zenbrain://{namespace}/{line['id']}",
        "tags": [line["context"]] if line.get("context") else [],
        "status": "deprecated" if deprecated else "stable",
        "replaced_by": _link(replaced_by) if replaced_by else line["superseded_by"],
        "generated": {"by": f"zenbrain/{zenbrain.__version__}", "at": line["updated_at"]},
        "stale_after": fact["due"][:10] if fact and not deprecated else None,
        "sources": [
            {"id": f"episode-{i}", "resource": _link(lines[episode]), "title": "episode"}
            for i, episode in enumerate(made_from, start=1)
            if episode in lines
        ],
        "zenbrain": {k: v for k, v in own.items() if v not in (None, {}, [])},
    }
    content = str(line["content"])
    body = [content, ""] if " ".join(content.split()) == _title(line) else [
        f"# {_title(line)}", "", content, ""]  # fmt: skip
    procedure = line.get("procedure")
    if procedure:
        body += ["# Steps", "", *(f"{n}. {s}" for n, s in enumerate(procedure["steps"], 1)), ""]
        if procedure["tools"]:
            body += ["Tools: " + ", ".join(f"`{t}`" for t in procedure["tools"]), ""]
        if procedure["outcome"]:
            body += [f"Outcome: {procedure['outcome']}", ""]
        body += [
            f"Succeeded {procedure['success_rate']:.0%} of {procedure['execution_count']} runs.",
            "",
        ]
    if deprecated:
        until = str(line["valid_to"])[:10]
        if replaced_by:
            body.append(f"Replaced on {until} by [{_title(replaced_by)}]({_link(replaced_by)}).")
        else:
            body.append(f"No longer true from {until}.")
        body.append("")
    notes = [
        f"[^episode-{i}]: [{_title(lines[episode])}]({_link(lines[episode])})"
        for i, episode in enumerate(made_from, start=1)
        if episode in lines
    ]
    if notes:
        marks = "".join(f"[^episode-{i}]" for i in range(1, len(notes) + 1))
        body += [f"Consolidated from what was experienced.{marks}", "", *notes]
    return _yaml(front) + "\n" + "\n".join(body).rstrip() + "\n"


def _slug(session_id: str) -> str:
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", session_id).strip("-.")[:60] or "session"
    digest = hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:8]
    return f"{readable}-{digest}"


def _log(lines: dict[str, dict[str, Any]]) -> str:
    days: dict[str, list[str]] = defaultdict(list)
    for line in lines.values():
        title = _title(line).replace("]", "\\]")
        days[line["created_at"][:10]].append(
            f"* **Creation**: {TYPES[line['layer']]} [{title}]({_link(line)})"
        )
        if line["valid_to"]:
            successor = lines.get(line["superseded_by"] or "")
            text = f"* **Deprecation**: [{title}]({_link(line)})"
            if successor:
                text += f", replaced by [{_title(successor)}]({_link(successor)})"
            days[line["valid_to"][:10]].append(text)
    out = ["# Update log", ""]
    for day in sorted(days, reverse=True):
        out += [f"## {day}", *days[day], ""]
    return "\n".join(out).rstrip() + "\n"


def _index(lines: dict[str, dict[str, Any]], conversations: list[tuple[str, str]]) -> str:
    out = ['---\nokf_version: "0.2"\n---', ""]
    for layer, heading in _HEADINGS.items():
        found = [line for line in lines.values() if line["layer"] == layer]
        if not found:
            continue
        out += [f"# {heading}", ""]
        for line in found:
            status = " (deprecated)" if line["valid_to"] else ""
            title = _title(line).replace("]", "\\]")
            out.append(f"* [{title}]({line['layer']}/{line['id']}.md){status}")
        out.append("")
    if conversations:
        out += ["# Conversations", ""]
        out += [f"* [{sid}](conversations/{slug}.md)" for sid, slug in conversations]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def export_okf(memory: MemoryCoordinator, target: str | os.PathLike[str]) -> ExportReport:
    """Write ``memory``'s namespace as an OKF v0.2 bundle into the new or empty folder
    ``target`` (see the module)."""
    folder = Path(os.path.expanduser(os.fspath(target)))
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InvalidInputError(f"{folder} exists and is not an empty folder")
    if not folder.parent.is_dir():
        raise InvalidInputError(f"the folder {folder.parent} does not exist")
    namespace = memory.namespace
    with memory.database.read() as conn:
        lines: dict[str, dict[str, Any]] = {}
        for page in pages_by_key(conn, memory_query(namespace), _PAGE):
            lines.update((str(row.id), memory_line(row)) for row in page)
        links: dict[str, list[str]] = defaultdict(list)
        query = select(consolidation_links).where(consolidation_links.c.namespace == namespace)
        for link in conn.execute(query.order_by(consolidation_links.c.created_at)):
            links[str(link.fact_id)].append(str(link.episode_id))
        chats = conn.execute(
            select(sessions)
            .where(sessions.c.namespace == namespace)
            .order_by(sessions.c.started_at)
        ).all()
        turns: dict[str, list[Any]] = defaultdict(list)
        query = select(interactions).where(interactions.c.namespace == namespace)
        for turn in conn.execute(query.order_by(interactions.c.pk)):
            turns[str(turn.session_id)].append(turn)
    folder.mkdir(exist_ok=True)
    for layer in {line["layer"] for line in lines.values()}:
        (folder / layer).mkdir()
    for memory_id, line in lines.items():
        text = _concept(line, lines, links.get(memory_id, []), namespace)
        (folder / line["layer"] / f"{memory_id}.md").write_text(text, encoding="utf-8")
    conversations = [(str(chat.session_id), _slug(str(chat.session_id))) for chat in chats]
    if conversations:
        (folder / "conversations").mkdir()
    for chat, (session_id, slug) in zip(chats, conversations, strict=True):
        front = {"type": "Conversation", "title": session_id,
                 "generated": {"by": f"zenbrain/{zenbrain.__version__}",
                               "at": time_text(chat.started_at)}}  # fmt: skip
        body = [f"# {session_id}", ""]
        for turn in turns.get(session_id, []):
            at = time_text(turn.created_at)
            body.append(f"**{turn.role}** ({at}): {turn.content}")
            body.append("")
        (folder / "conversations" / f"{slug}.md").write_text(
            _yaml(front) + "\n" + "\n".join(body).rstrip() + "\n", encoding="utf-8"
        )
    (folder / "index.md").write_text(_index(lines, conversations), encoding="utf-8")
    (folder / "log.md").write_text(_log(lines), encoding="utf-8")
    counts = {"memories": len(lines), "conversations": len(conversations)}
    return ExportReport(str(folder), counts)
