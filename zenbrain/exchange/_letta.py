"""Letta Agent Files (``.af``) in: both the AgentFileSchema (``{"agents": [...], "blocks":
[...]}``, Letta 0.8 on) and the older single-agent file (``core_memory`` and ``messages`` at
the top), also when the JSON was saved as one JSON string.

- Each memory block becomes a core block under its label (an empty block is skipped); with
  several agents in the file, the label is ``<agent>.<label>``.
- Each agent's messages become one short-term session ``letta:<agent>`` (every message,
  with its role and time), and what the user said and the agent sent (``send_message``)
  also become episodes. Tools, files and the model settings are not memories: left out.
"""

from __future__ import annotations

import json
from typing import Any

from zenbrain.errors import InvalidInputError
from zenbrain.exchange._build import Builder, foreign_time

__all__ = ["looks_like_letta", "read_letta", "unwrap_letta"]

_SKIPPED_USER_TYPES = {"login", "heartbeat", "system_alert"}


def unwrap_letta(data: object) -> object:
    """The agent file's object (some files hold it as one JSON string)."""
    if isinstance(data, str):
        try:
            return json.loads(data)
        except ValueError:
            return data
    return data


def looks_like_letta(data: object) -> bool:
    data = unwrap_letta(data)
    if not isinstance(data, dict):
        return False
    return ("agents" in data and "blocks" in data) or ("core_memory" in data and "messages" in data)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", "")) for part in content if isinstance(part, dict)
        ).strip()
    text = message.get("text")
    return text if isinstance(text, str) else ""


def _sent(message: dict[str, Any]) -> str | None:
    """What an assistant message sent the user (its send_message call), if anything."""
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or function.get("name") != "send_message":
            continue
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except ValueError:
            continue
        if isinstance(arguments, dict) and isinstance(arguments.get("message"), str):
            return str(arguments["message"])
    return None


def _said(text: str) -> str | None:
    """What a user message said: MemGPT wraps it as {"type": "user_message", ...}."""
    try:
        wrapped = json.loads(text)
    except ValueError:
        return text
    if not isinstance(wrapped, dict):
        return text
    if wrapped.get("type") in _SKIPPED_USER_TYPES:
        return None
    message = wrapped.get("message")
    return message if isinstance(message, str) else text


def _agents(data: dict[str, Any], name: str) -> list[tuple[dict[str, Any], list[Any]]]:
    """Each agent with its blocks."""
    if "core_memory" in data:
        return [(data, list(data.get("core_memory") or []))]
    blocks = {b.get("id"): b for b in data.get("blocks") or [] if isinstance(b, dict)}
    found = []
    for position, agent in enumerate(data.get("agents") or []):
        if not isinstance(agent, dict):
            raise InvalidInputError(f"{name} agents[{position}]: expected an object")
        ids = agent.get("block_ids")
        own = [blocks[i] for i in ids if i in blocks] if isinstance(ids, list) else []
        found.append((agent, own or list(agent.get("memory_blocks") or [])))
    return found


def read_letta(data: object, builder: Builder, name: str) -> None:
    data = unwrap_letta(data)
    if not looks_like_letta(data):
        raise InvalidInputError(
            f"{name}: expected a Letta agent file (an object with agents and blocks, or "
            "core_memory and messages)"
        )
    assert isinstance(data, dict)
    agents = _agents(data, name)
    for number, (agent, blocks) in enumerate(agents):
        agent_name = str(agent.get("name") or f"agent{number + 1}")
        for position, block in enumerate(blocks):
            where = f"{name} agent {agent_name!r} block {position}"
            if not isinstance(block, dict):
                raise InvalidInputError(f"{where}: expected an object")
            value = block.get("value")
            if isinstance(value, str) and not value.strip():
                builder.skip("empty blocks")
                continue
            label = block.get("label")
            if len(agents) > 1 and isinstance(label, str):
                label = f"{agent_name}.{label}"
            metadata = {
                f"letta_{key}": block[key] for key in ("description", "limit") if block.get(key)
            }
            builder.memory(where, "core", value, label=label, metadata=metadata, entities=False)
        _messages(agent, agent_name, builder, name)


def _messages(agent: dict[str, Any], agent_name: str, builder: Builder, name: str) -> None:
    messages = agent.get("messages") or []
    if not messages:
        return
    created = foreign_time(agent.get("created_at"), f"{name} agent {agent_name!r}", "created_at")
    session = builder.session(f"letta:{agent_name}", created)
    for position, message in enumerate(messages):
        where = f"{name} agent {agent_name!r} message {position}"
        if not isinstance(message, dict):
            raise InvalidInputError(f"{where}: expected an object")
        role = message.get("role")
        if not isinstance(role, str) or not role:
            raise InvalidInputError(f"{where}: field 'role': expected text, got {role!r}")
        at = foreign_time(message.get("created_at"), where, "created_at")
        text = _text(message)
        sent = _sent(message) if role == "assistant" else None
        calls = [
            c["function"]["name"]
            for c in message.get("tool_calls") or []
            if isinstance(c, dict) and isinstance(c.get("function"), dict)
        ]
        metadata: dict[str, Any] = {"letta_tool_calls": calls} if calls else {}
        builder.interaction(where, session, role, sent or text, at, metadata)
        said = _said(text) if role == "user" else sent
        if said and said.strip():
            builder.memory(
                where,
                "episodic",
                said,
                created_at=at,
                metadata={"letta_agent": agent_name, "letta_role": role},
                conversation=session,
            )
