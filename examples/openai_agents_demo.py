"""zenbrain with OpenAI function calling and the OpenAI Agents SDK — runs offline.

The agent's model here is the SDK's ScriptedModel, which plays back canned tool calls, so
the demo needs no API key. With a real model, drop ``model=`` (and set OPENAI_API_KEY):
everything else stays the same.

    python examples/openai_agents_demo.py [path/to/memory.db]
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from agents import Agent, Runner, set_tracing_disabled
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call
from zenbrain_openai_agents import ZenBrainSession, core_memory_instructions, memory_tools

from zenbrain import MemoryCoordinator
from zenbrain.tools import dispatch, openai_chat_tools

# Strict tool schemas want every argument present; optional ones are sent as null.
NO_STORE_OPTIONS = dict.fromkeys(
    ("type", "context", "confidence", "emotional_weight", "source", "steps", "tools", "outcome")
)
NO_RECALL_OPTIONS = dict.fromkeys(("layers", "limit", "min_score", "min_confidence", "core"))


def tool_outputs(call: ModelCall) -> list[dict[str, Any]]:
    """The JSON results of the tool calls a model call was shown, oldest first."""
    items: list[Any] = list(call.input)
    return [json.loads(i["output"]) for i in items if i.get("type") == "function_call_output"]


def function_calling(memory: MemoryCoordinator) -> None:
    print("== 1. Plain function calling (chat completions) ==")
    tools = openai_chat_tools()
    print("tools for chat.completions.create(tools=...):", [t["function"]["name"] for t in tools])
    # What a model's tool call carries: a name and a JSON string of arguments.
    arguments = json.dumps({**NO_STORE_OPTIONS, "content": "The team stand-up is at 9:30."})
    print("zenbrain_store ->", dispatch(memory, "zenbrain_store", arguments))
    print("bad call       ->", dispatch(memory, "zenbrain_store", '{"content": ""}'))


def first_conversation(db: Path) -> str:
    print("\n== 2. An agent run that stores a memory ==")
    with MemoryCoordinator(db) as memory:
        memory.set_core_block("name", "The user is called Ada.")
        model = ScriptedModel(
            [
                [
                    function_call(
                        "zenbrain_store",
                        {**NO_STORE_OPTIONS, "content": "Ada's sailing boat is moored in Kiel."},
                        call_id="store-1",
                    )
                ],
                [assistant_message("I'll remember where your boat is.")],
            ]
        )
        agent = Agent(
            name="Assistant",
            model=model,
            instructions=core_memory_instructions(memory, "You are a helpful assistant."),
            tools=memory_tools(memory),
        )
        session = ZenBrainSession("ada-chat", memory)
        result = Runner.run_sync(
            agent, "My boat is moored in Kiel, remember that.", session=session
        )
        print("system prompt the model saw:\n ", model.calls[0].system_instructions)
        print("agent:", result.final_output)
        return json.dumps(tool_outputs(model.calls[1])[-1])


def second_conversation(db: Path) -> None:
    print("\n== 3. After a restart: the session and the memory are still there ==")

    def answer(call: ModelCall) -> list[Any]:
        best = tool_outputs(call)[-1]["results"][0]
        return [assistant_message(f"Your boat: {best['content']} (score {best['score']:.2f})")]

    with MemoryCoordinator(db) as memory:
        session = ZenBrainSession("ada-chat", memory)
        print("history items kept:", len(asyncio.run(session.get_items())))
        model = ScriptedModel(
            [
                [
                    function_call(
                        "zenbrain_recall",
                        {
                            **NO_RECALL_OPTIONS,
                            "query": "where is the boat moored",
                            "min_score": 0.01,
                            "core": "matching",  # core blocks only when they share a word
                        },
                        call_id="recall-1",
                    )
                ],
                ModelStep.respond(answer),
            ]
        )
        agent = Agent(name="Assistant", model=model, tools=memory_tools(memory))
        result = Runner.run_sync(agent, "Where did I leave my boat?", session=session)
        print("agent:", result.final_output)
        print("health:", memory.health().to_dict())


def main() -> None:
    set_tracing_disabled(True)  # offline: no trace export
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(scratch) / "demo.db"
        with MemoryCoordinator(db) as memory:
            function_calling(memory)
        stored = first_conversation(db)
        print("the store tool returned:", stored)
        second_conversation(db)


if __name__ == "__main__":
    main()
