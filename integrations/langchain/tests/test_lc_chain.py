"""The retriever and the history inside real LangChain chains with a fake chat model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnablePassthrough
from langchain_zenbrain import ZenBrainChatMessageHistory, ZenBrainRetriever

from zenbrain import MemoryCoordinator

README = Path(__file__).resolve().parents[1] / "README.md"


class PromptRecorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.prompts: list[list[BaseMessage]] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.prompts.extend(messages)


def _format(documents: list[Document]) -> str:
    return "\n".join(f"- ({d.metadata['layer']}) {d.page_content}" for d in documents)


def test_retrieval_chain_puts_memories_into_the_prompt(coordinator: MemoryCoordinator) -> None:
    coordinator.store("Ada is allergic to peanuts.")
    coordinator.store("The team lunch is on Friday at the Thai place.")
    coordinator.set_core_block("user", "The user is Ada, a compiler engineer.")
    recorder = PromptRecorder()
    model = FakeListChatModel(responses=["Avoid the satay: Ada is allergic to peanuts."])
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Known about the user:\n{memories}"), ("human", "{question}")]
    )
    # Three places: the core block is scored as any memory, and "Ada" alone ranks it after
    # the lunch fact (which holds the rarer "lunch").
    retriever = ZenBrainRetriever(coordinator=coordinator, k=3, min_score=0.1)
    chain = (
        {"memories": retriever | _format, "question": RunnablePassthrough()}
        | prompt
        | model
        | StrOutputParser()
    )
    answer = chain.invoke(
        "What should Ada avoid at lunch because of peanuts?", {"callbacks": [recorder]}
    )
    assert answer == "Avoid the satay: Ada is allergic to peanuts."
    system = recorder.prompts[0][0].text
    assert system.index("- (semantic) Ada is allergic to peanuts.") < system.index("Thai place")
    assert "compiler engineer" in system


async def test_async_chain(coordinator: MemoryCoordinator) -> None:
    coordinator.store("The spare key is under the blue flower pot.")
    recorder = PromptRecorder()
    prompt = ChatPromptTemplate.from_template("Context: {memories}\nQ: {question}")
    chain = (
        {
            "memories": ZenBrainRetriever(coordinator=coordinator, k=1) | _format,
            "question": RunnablePassthrough(),
        }
        | prompt
        | FakeListChatModel(responses=["Under the blue flower pot."])
        | StrOutputParser()
    )
    assert await chain.ainvoke("where is the spare key", {"callbacks": [recorder]}) == (
        "Under the blue flower pot."
    )
    assert "blue flower pot" in recorder.prompts[0][0].text


def test_history_feeds_the_next_turn_after_a_reopen(db_path: Path) -> None:
    prompt = ChatPromptTemplate.from_messages(
        [MessagesPlaceholder("history"), ("human", "{question}")]
    )
    with MemoryCoordinator(db_path) as memory:
        history = ZenBrainChatMessageHistory(memory, "chat-1")
        model = FakeListChatModel(responses=["Nice to meet you, Ada."])
        question = "Hi, I am Ada and I live in Kiel."
        reply = (prompt | model).invoke({"history": history.messages, "question": question})
        history.add_user_message(question)
        history.add_message(reply)

    recorder = PromptRecorder()
    with MemoryCoordinator(db_path) as reopened:
        history = ZenBrainChatMessageHistory(reopened, "chat-1")
        model = FakeListChatModel(responses=["You live in Kiel."], callbacks=[recorder])
        (prompt | model).invoke({"history": history.messages, "question": "Where do I live?"})
        assert reopened.recall("Ada Kiel", min_score=0.1)[0].content == question
    sent = recorder.prompts[0]
    assert [m.type for m in sent] == ["human", "ai", "human"]
    assert sent[0].text == question and sent[1].text == "Nice to meet you, Ada."


def test_readme_quickstart_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    match = re.search(r"## Quickstart\s+```python\n(.*?)```", README.read_text(), re.DOTALL)
    assert match is not None, "README lost its quickstart"
    code = match.group(1)
    assert len(code.strip().splitlines()) <= 14
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__readme__"}
    exec(compile(code, str(README), "exec"), namespace)
    assert capsys.readouterr().out.strip() == "Green tea."
    memory = namespace["memory"]
    assert isinstance(memory, MemoryCoordinator)
    assert memory.recall("green tea", min_score=0.1)
    memory.close()
    assert (tmp_path / "memory.db").exists()
