"""forget() with its cascade over consolidation links; consolidate() once per episode."""

from __future__ import annotations

from collections.abc import Sequence

from zenbrain import MemoryCoordinator

EPISODE = "I am absolutely thrilled — we shipped the new search engine!"


class RecordingSummarizer:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def summarize(self, texts: Sequence[str]) -> str:
        self.calls.append(list(texts))
        return f"Summary: {texts[0][:20]}"


class BrokenSummarizer:
    def summarize(self, texts: Sequence[str]) -> str:
        raise RuntimeError("model offline")


def fact_ids(memory: MemoryCoordinator) -> list[str]:
    return [r.id for r in memory.recall("zzz", layers=["semantic"], limit=100)]


def test_consolidate_promotes_each_episode_once_verbatim(memory: MemoryCoordinator) -> None:
    episode = memory.store(EPISODE)
    memory.store("A calm note about the weather", layer="episodic", emotional_weight=0.2)
    report = memory.consolidate()
    assert (report.promoted, report.pruned) == (1, 0)
    facts = memory.recall("search engine shipped", layers=["semantic"])
    assert facts[0].content == EPISODE and facts[0].source == "consolidation"
    assert facts[0].metadata == {}  # the link is kept beside it, not in the caller's metadata
    assert memory.consolidate().promoted == 0
    assert memory.health().semantic["count"] == 1
    assert memory.health().episodic["count"] == 2  # nothing deleted from long-term memory
    gone = memory.forget(episode, "episodic").also_forgotten
    assert {"id": facts[0].id, "layer": "semantic"} in gone


def test_consolidate_uses_the_summariser(store_location: str) -> None:
    summarizer = RecordingSummarizer()
    with MemoryCoordinator(store_location, summarizer=summarizer) as memory:
        memory.store(EPISODE)
        assert memory.consolidate().promoted == 1
        assert summarizer.calls == [[EPISODE]]
        assert memory.recall("Summary", layers=["semantic"])[0].content.startswith("Summary:")


def test_failing_summariser_falls_back_to_verbatim(store_location: str) -> None:
    with MemoryCoordinator(store_location, summarizer=BrokenSummarizer()) as memory:
        memory.store(EPISODE)
        assert memory.consolidate().promoted == 1
        assert memory.recall("search engine", layers=["semantic"])[0].content == EPISODE


def test_consolidation_decays_working_memory(memory: MemoryCoordinator) -> None:
    from datetime import UTC, datetime, timedelta

    memory.working.add("stale", datetime.now(UTC) - timedelta(hours=3))
    memory.working.add("fresh", datetime.now(UTC))
    assert memory.consolidate().decayed == 1
    assert [s.content for s in memory.working.slots()] == ["fresh"]


def test_forgetting_an_episode_deletes_its_fact_and_working_copies(
    memory: MemoryCoordinator,
) -> None:
    episode = memory.store(EPISODE)
    memory.consolidate()
    [fact] = fact_ids(memory)
    assert any(s.content == EPISODE for s in memory.working.slots())
    result = memory.forget(episode, "episodic")
    assert result.forgotten
    gone = {(item["id"], item["layer"]) for item in result.also_forgotten}
    assert (fact, "semantic") in gone
    assert any(layer == "working" for _, layer in gone)
    assert memory.get(fact) is None and memory.get(episode) is None
    assert not any(s.content == EPISODE for s in memory.working.slots())


def test_forgetting_a_fact_deletes_every_episode_consolidated_into_it(
    memory: MemoryCoordinator,
) -> None:
    first = memory.store(EPISODE)
    second = memory.store(EPISODE)  # same content: consolidates into the same fact
    memory.consolidate()
    [fact] = fact_ids(memory)
    result = memory.forget(fact, "semantic")
    assert {item["id"] for item in result.also_forgotten if item["layer"] == "episodic"} == {
        first,
        second,
    }
    assert memory.health().episodic["count"] == 0


def test_stand_alone_duplicates_are_kept_and_listed(memory: MemoryCoordinator) -> None:
    one = memory.store("Berlin is the capital of Germany")
    two = memory.store("Berlin is the capital of Germany")
    result = memory.forget(one, "semantic")
    assert result.forgotten
    assert result.duplicates == [{"id": two, "layer": "semantic"}]
    assert memory.get(two) is not None


def test_a_core_block_given_new_content_is_found_as_a_duplicate_by_it(
    memory: MemoryCoordinator,
) -> None:
    """Exact content is looked up by its hash: rewriting a core block must rehash it."""
    memory.set_core_block("home", "I live in Hamburg")
    memory.set_core_block("home", "I live in Kiel")
    [block] = memory.find({}, layers=["core"])
    moved = memory.store("I live in Kiel", layer="episodic")
    stale = memory.store("I live in Hamburg", layer="episodic")
    assert memory.forget(moved, "episodic").duplicates == [{"id": block.id, "layer": "core"}]
    assert memory.forget(stale, "episodic").duplicates == []


def test_unknown_id_is_not_an_error(memory: MemoryCoordinator) -> None:
    assert not memory.forget("no-such-id", "semantic").forgotten
    fid = memory.store("a fact")
    assert not memory.forget(fid, "episodic").forgotten  # wrong layer: nothing deleted
    assert memory.get(fid) is not None


def test_forgetting_a_working_slot_removes_only_the_copy(memory: MemoryCoordinator) -> None:
    fid = memory.store("copy me")
    slot = memory.recall("copy", layers=["working"])[0]
    assert memory.forget(slot.id, "working").forgotten
    assert memory.get(fid) is not None


def test_forgotten_memories_leave_the_index(memory: MemoryCoordinator) -> None:
    fid = memory.store("Unique zebra crossing fact")
    memory.forget(fid, "semantic")
    assert memory.recall("zebra crossing", min_score=0.01) == []


def test_forget_core_and_procedure(memory: MemoryCoordinator) -> None:
    block = memory.set_core_block("persona", "I am a bot")
    proc = memory.store("How to x: do y")
    assert memory.forget(block.id, "core").forgotten
    assert memory.forget(proc, "procedural").forgotten
    assert memory.core_blocks() == []
    assert memory.health().procedural["count"] == 0


def test_the_preview_is_the_plan_forget_carries_out(memory: MemoryCoordinator) -> None:
    """forget_preview and forget read one plan: what the preview lists is what goes."""
    from zenbrain import inspection

    episode = memory.store(EPISODE)
    memory.store(EPISODE, layer="semantic")  # a stand-alone copy: reported, kept
    memory.consolidate()
    before = {r.id for r in memory.find()}
    preview = inspection.forget_preview(memory, episode, "episodic")
    assert preview.also_forgotten and preview.duplicates
    assert {r.id for r in memory.find()} == before  # the preview deleted nothing
    assert memory.forget(episode, "episodic") == preview
    gone = {episode, *(item["id"] for item in preview.also_forgotten)}
    assert {r.id for r in memory.find()} == before - gone
