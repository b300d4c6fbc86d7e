"""``RemoteMemory``: a :class:`~zenbrain.MemoryCoordinator` whose store is behind
``zenbrain serve``, so many agent processes (and every adapter) share one server.

It has the coordinator's methods with the same arguments, each with its ``a``-prefixed async
twin, and raises the same :class:`~zenbrain.errors.ZenbrainError` classes the server
reports (an unknown id gives ``None`` or ``forgotten=False`` as locally)::

    from zenbrain.remote import RemoteMemory

    with RemoteMemory("http://127.0.0.1:8765", api_key="zb_...") as memory:
        memory.store("Anna's staging database is PostgreSQL 17.")
        memory.recall("staging database")

Working memory lives in the server (one per namespace), so it is shared by every client of
that namespace. Needs ``httpx`` (``pip install 'zenbrain[server]'``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Unpack
from urllib.parse import quote

from zenbrain import _remote_wire as wire
from zenbrain import _validation as check
from zenbrain import errors
from zenbrain.errors import InvalidInputError, RemoteError, require
from zenbrain.operations import RecallOptions, RecallQuery, StoreItem, StoreOptions
from zenbrain.stages import MergeCandidate
from zenbrain.types import (
    ConsolidationReport,
    CoreBlock,
    ForgetResult,
    Health,
    Interaction,
    RecallResult,
    ReviewItem,
)

__all__ = ["RemoteMemory"]


class RemoteMemory:
    """The coordinator's API over HTTP (see the module docstring)."""

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        namespace: str | None = None,
        timeout: float = 60.0,
        _shared: tuple[Any, Any] | None = None,
    ) -> None:
        httpx = require("httpx", "server", "RemoteMemory")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise InvalidInputError(f"url must start with http:// or https://, got {url!r}")
        self.url = url.rstrip("/")
        self.api_key = api_key
        self._namespace = namespace
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._owns_clients = _shared is None
        if _shared is None:
            self._client = httpx.Client(base_url=self.url, headers=headers, timeout=timeout)  # type: ignore[attr-defined]
            self._aclient = httpx.AsyncClient(base_url=self.url, headers=headers, timeout=timeout)  # type: ignore[attr-defined]
        else:
            self._client, self._aclient = _shared
        self._transport_error: type[Exception] = httpx.TransportError  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ plumbing
    @property
    def namespace(self) -> str:
        """The namespace this client reads and writes (asked of the server when not given)."""
        if self._namespace is None:
            self._namespace = str(self._run(wire.Call("GET", "/v1/whoami", dict))["namespace"])
        return self._namespace

    @property
    def location(self) -> str | None:
        """None: the store is the server's, opened there, never by this process (an
        adapter that would open the store again with another embedder cannot, and says so)."""
        return None

    @property
    def embedding_model(self) -> str | None:
        """None: the server embeds with the model its own store records."""
        return None

    def _params(self, call: wire.Call) -> dict[str, Any]:
        params = dict(call.params or {})
        if self._namespace is not None:
            params["namespace"] = self._namespace
        return {k: v for k, v in params.items() if v is not None}

    def _request_args(self, call: wire.Call) -> dict[str, Any]:
        args: dict[str, Any] = {"params": self._params(call)}
        if call.body is not None:
            try:
                args["content"] = json.dumps(call.body, allow_nan=True)
            except (TypeError, ValueError) as exc:
                raise InvalidInputError(f"the arguments cannot be sent as JSON: {exc}") from exc
            args["headers"] = {"Content-Type": "application/json"}
        return args

    def _parse(self, call: wire.Call, response: Any) -> Any:
        if response.status_code == 404 and call.missing is not wire.SKIP:
            return wire.when_missing(call)
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = None
            raise wire.error_for(response.status_code, body)
        if call.parse is bytes:
            return response.content
        return call.parse(response.json())

    def _run(self, call: wire.Call) -> Any:
        if not call.method:  # answered without asking: an id no memory can have
            return call.parse(None)
        try:
            response = self._client.request(call.method, call.path, **self._request_args(call))
        except self._transport_error as exc:
            raise RemoteError(f"cannot reach the zenbrain server at {self.url}: {exc}") from exc
        return self._parse(call, response)

    async def _arun(self, call: wire.Call) -> Any:
        if not call.method:
            return call.parse(None)
        try:
            response = await self._aclient.request(
                call.method, call.path, **self._request_args(call)
            )
        except self._transport_error as exc:
            raise RemoteError(f"cannot reach the zenbrain server at {self.url}: {exc}") from exc
        return self._parse(call, response)

    # ------------------------------------------------------------------ lifecycle
    def for_namespace(self, namespace: str) -> RemoteMemory:
        """Another client for ``namespace`` of the same server, sharing connections."""
        return RemoteMemory(
            self.url, api_key=self.api_key, namespace=namespace,
            _shared=(self._client, self._aclient),
        )  # fmt: skip

    def close(self) -> None:
        if self._owns_clients:
            self._client.close()

    async def aclose(self) -> None:
        if self._owns_clients:
            await self._aclient.aclose()
            self._client.close()

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> RemoteMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"RemoteMemory(url={self.url!r}, namespace={self._namespace!r})"

    # ------------------------------------------------------------------ the calls
    @staticmethod
    def _c_store(item: StoreItem) -> wire.Call:
        return wire.Call("POST", "/v1/memories", lambda r: r["id"], item.to_json())

    @staticmethod
    def _c_store_many(items: Iterable[object]) -> wire.Call:
        if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
            raise InvalidInputError(f"items must be a list of strings or dicts, got {items!r:.80}")
        listed: list[Any] = []
        for position, item in enumerate(items):
            try:
                listed.append(StoreItem.from_item(item).to_json())
            except InvalidInputError as exc:
                raise type(exc)(f"item {position}: {exc}") from exc
        return wire.Call("POST", "/v1/memories/batch", lambda r: list(r["ids"]), {"items": listed})

    @staticmethod
    def _c_replace(match: Any, item: StoreItem) -> wire.Call:
        return wire.Call(
            "POST", "/v1/replace", lambda r: r["id"], {**item.to_json(), "match": match}
        )

    @staticmethod
    def _c_recall(query: RecallQuery) -> wire.Call:
        return wire.Call("POST", "/v1/recall", wire.results, query.to_json())

    @staticmethod
    def _c_find(metadata: Any, arguments: Mapping[str, Any]) -> wire.Call:
        # Checked here as the library checks them: JSON would turn a key 1 into "1", and
        # drop a None the library refuses.
        if metadata is not None:
            check.check_match(metadata, "metadata")
        check.check_bool(arguments["subtree"], "subtree")
        body = {"metadata": metadata, **{k: v for k, v in arguments.items() if v is not None}}
        return wire.Call("POST", "/v1/find", wire.results, body)

    @staticmethod
    def _c_get(memory_id: Any) -> wire.Call:
        if not isinstance(memory_id, str) or not memory_id or "/" in memory_id:
            return wire.Call("", "", lambda r: None)
        return wire.Call(
            "GET", f"/v1/memories/{quote(memory_id, safe='')}", wire.result, missing=None
        )

    @staticmethod
    def _c_forget(memory_id: Any, layer: Any) -> wire.Call:
        if not isinstance(layer, str):
            raise errors.UnknownLayerError(f"layer must be a layer name, got {layer!r}")
        if not isinstance(memory_id, str) or not memory_id or "/" in memory_id:
            return wire.Call("", "", lambda r: ForgetResult(forgotten=False))
        path = f"/v1/memories/{quote(memory_id, safe='')}"
        return wire.Call(
            "DELETE", path, wire.forget_result, params={"layer": layer},
            missing=ForgetResult(forgotten=False),
        )  # fmt: skip

    @staticmethod
    def _c_consolidate() -> wire.Call:
        return wire.Call("POST", "/v1/consolidate", lambda r: ConsolidationReport(
            promoted=r["promoted"], decayed=r["decayed"], pruned=r["pruned"]))  # fmt: skip

    @staticmethod
    def _c_health() -> wire.Call:
        return wire.Call("GET", "/v1/health", lambda r: Health(**r))

    @staticmethod
    def _c_namespaces(prefix: Any) -> wire.Call:
        params = {"prefix": check.check_prefix(prefix)}
        return wire.Call("GET", "/v1/namespaces", lambda r: list(r["namespaces"]), params=params)

    @staticmethod
    def _c_review_queue(limit: Any) -> wire.Call:
        params = {"limit": limit}
        return wire.Call("GET", "/v1/review-queue", wire.reviews, params=params)

    @staticmethod
    def _c_record_review(fact_id: Any, grade: Any) -> wire.Call:
        return wire.Call("POST", "/v1/reviews", wire.review, {"fact_id": fact_id, "grade": grade})

    @staticmethod
    def _c_set_core_block(label: Any, content: Any) -> wire.Call:
        if not isinstance(label, str) or not label.strip() or "/" in label:
            raise InvalidInputError(f"label must be a non-empty string without '/', got {label!r}")
        return wire.Call(
            "PUT", f"/v1/core-blocks/{quote(label, safe='')}", wire.block, {"content": content}
        )

    @staticmethod
    def _c_delete_core_block(label: Any) -> wire.Call:
        if not isinstance(label, str) or not label.strip() or "/" in label:
            return wire.Call("", "", lambda r: False)
        return wire.Call(
            "DELETE", f"/v1/core-blocks/{quote(label, safe='')}", lambda r: True, missing=False
        )

    @staticmethod
    def _c_merge_candidates(limit: Any) -> wire.Call:
        return wire.Call(
            "GET", "/v1/merge-candidates", lambda r: [MergeCandidate(**c) for c in r],
            params={"limit": limit},
        )  # fmt: skip

    @staticmethod
    def _c_interactions(turns: Any, session_id: Any, remember: Any) -> wire.Call:
        if isinstance(turns, str | bytes | Mapping) or not isinstance(turns, Sequence):
            raise InvalidInputError(f"turns must be a list of dicts, got {turns!r}")
        body = {"turns": [dict(t) if isinstance(t, Mapping) else t for t in turns],
                "session_id": session_id, "remember": remember}  # fmt: skip
        return wire.Call("POST", "/v1/interactions", wire.turns, body)

    # ------------------------------------------------------------------ long-term memory
    def store(self, content: str | StoreItem, **options: Unpack[StoreOptions]) -> str:
        """``MemoryCoordinator.store``: the same fields, checked here as the library does."""
        return str(self._run(self._c_store(StoreItem.of(content, options))))

    async def astore(self, content: str | StoreItem, **options: Unpack[StoreOptions]) -> str:
        return str(await self._arun(self._c_store(StoreItem.of(content, options))))

    def store_many(
        self, items: Iterable[str | StoreItem | Mapping[str, Any]], *, progress: Any = None
    ) -> list[str]:
        ids: list[str] = self._run(self._c_store_many(items))
        if progress is not None:
            progress(len(ids), len(ids))
        return ids

    async def astore_many(
        self, items: Iterable[str | StoreItem | Mapping[str, Any]], *, progress: Any = None
    ) -> list[str]:
        ids: list[str] = await self._arun(self._c_store_many(items))
        if progress is not None:
            progress(len(ids), len(ids))
        return ids

    def replace(
        self, match: Mapping[str, Any], content: str, **options: Unpack[StoreOptions]
    ) -> str:
        return str(self._run(self._c_replace(match, StoreItem.of(content, options))))

    async def areplace(
        self, match: Mapping[str, Any], content: str, **options: Unpack[StoreOptions]
    ) -> str:
        return str(await self._arun(self._c_replace(match, StoreItem.of(content, options))))

    def recall(
        self, query: str | RecallQuery, **options: Unpack[RecallOptions]
    ) -> list[RecallResult]:
        """``MemoryCoordinator.recall``: the same options, checked here as the library does."""
        results: list[RecallResult] = self._run(self._c_recall(RecallQuery.of(query, options)))
        return results

    async def arecall(
        self, query: str | RecallQuery, **options: Unpack[RecallOptions]
    ) -> list[RecallResult]:
        call = self._c_recall(RecallQuery.of(query, options))
        results: list[RecallResult] = await self._arun(call)
        return results

    def find(
        self, metadata: Mapping[str, Any] | None = None, *,
        layers: Sequence[str] | None = None, limit: int | None = None, offset: int = 0,
        subtree: bool = False,
    ) -> list[RecallResult]:  # fmt: skip
        arguments = dict(layers=layers, limit=limit, offset=offset, subtree=subtree)
        results: list[RecallResult] = self._run(self._c_find(metadata, arguments))
        return results

    async def afind(
        self, metadata: Mapping[str, Any] | None = None, *,
        layers: Sequence[str] | None = None, limit: int | None = None, offset: int = 0,
        subtree: bool = False,
    ) -> list[RecallResult]:  # fmt: skip
        arguments = dict(layers=layers, limit=limit, offset=offset, subtree=subtree)
        results: list[RecallResult] = await self._arun(self._c_find(metadata, arguments))
        return results

    def update(self, id: str, content: str, **options: Unpack[StoreOptions]) -> str:
        call = wire.update_call(id, StoreItem.of(content, options), set(options))
        return str(self._run(call))

    async def aupdate(self, id: str, content: str, **options: Unpack[StoreOptions]) -> str:
        call = wire.update_call(id, StoreItem.of(content, options), set(options))
        return str(await self._arun(call))

    def history(self, id: str) -> list[RecallResult]:
        found: list[RecallResult] = self._run(wire.history_call(id))
        return found

    async def ahistory(self, id: str) -> list[RecallResult]:
        found: list[RecallResult] = await self._arun(wire.history_call(id))
        return found

    def get(self, id: str) -> RecallResult | None:
        found: RecallResult | None = self._run(self._c_get(id))
        return found

    async def aget(self, id: str) -> RecallResult | None:
        found: RecallResult | None = await self._arun(self._c_get(id))
        return found

    def forget(self, id: str, layer: str) -> ForgetResult:
        result: ForgetResult = self._run(self._c_forget(id, layer))
        return result

    async def aforget(self, id: str, layer: str) -> ForgetResult:
        result: ForgetResult = await self._arun(self._c_forget(id, layer))
        return result

    def consolidate(self) -> ConsolidationReport:
        report: ConsolidationReport = self._run(self._c_consolidate())
        return report

    async def aconsolidate(self) -> ConsolidationReport:
        report: ConsolidationReport = await self._arun(self._c_consolidate())
        return report

    def embed_missing(self, batch_size: int = 64, *, progress: Any = None) -> int:
        call = wire.Call(
            "POST", "/v1/embed-missing", lambda r: r["embedded"], {"batch_size": batch_size}
        )
        return int(self._run(call))

    async def aembed_missing(self, batch_size: int = 64, *, progress: Any = None) -> int:
        call = wire.Call(
            "POST", "/v1/embed-missing", lambda r: r["embedded"], {"batch_size": batch_size}
        )
        return int(await self._arun(call))

    def bulk_load(self, *args: Any, **kwargs: Any) -> contextlib.nullcontext[None]:
        """A no-op here: the server's store builds its indexes as it does for each write."""
        return contextlib.nullcontext()

    def health(self) -> Health:
        found: Health = self._run(self._c_health())
        return found

    async def ahealth(self) -> Health:
        found: Health = await self._arun(self._c_health())
        return found

    def namespaces(self, prefix: str = "") -> list[str]:
        found: list[str] = self._run(self._c_namespaces(prefix))
        return found

    async def anamespaces(self, prefix: str = "") -> list[str]:
        found: list[str] = await self._arun(self._c_namespaces(prefix))
        return found

    def drop_namespace(self) -> int:
        return int(self._run(wire.Call("DELETE", "/v1/namespace", lambda r: r["deleted"])))

    async def adrop_namespace(self) -> int:
        return int(await self._arun(wire.Call("DELETE", "/v1/namespace", lambda r: r["deleted"])))

    def backup(self, path: str | Path) -> Path:
        """Download a backup of the server's whole store to ``path``."""
        target = Path(path).expanduser().absolute()
        target.write_bytes(self._run(wire.Call("GET", "/v1/backup", bytes)))
        return target

    async def abackup(self, path: str | Path) -> Path:
        target = Path(path).expanduser().absolute()
        target.write_bytes(await self._arun(wire.Call("GET", "/v1/backup", bytes)))
        return target

    # ------------------------------------------------------------------ review, procedures
    def review_queue(self, limit: int = 10) -> list[ReviewItem]:
        found: list[ReviewItem] = self._run(self._c_review_queue(limit))
        return found

    async def areview_queue(self, limit: int = 10) -> list[ReviewItem]:
        found: list[ReviewItem] = await self._arun(self._c_review_queue(limit))
        return found

    def record_review(self, fact_id: str, grade: int) -> ReviewItem:
        item: ReviewItem = self._run(self._c_record_review(fact_id, grade))
        return item

    async def arecord_review(self, fact_id: str, grade: int) -> ReviewItem:
        item: ReviewItem = await self._arun(self._c_record_review(fact_id, grade))
        return item

    def procedure_feedback(self, id: str, success: bool) -> float:
        call = wire.feedback(id, success)
        return float(self._run(call))

    async def aprocedure_feedback(self, id: str, success: bool) -> float:
        call = wire.feedback(id, success)
        return float(await self._arun(call))

    # ------------------------------------------------------------------ core, cross-context
    def set_core_block(self, label: str, content: str) -> CoreBlock:
        block: CoreBlock = self._run(self._c_set_core_block(label, content))
        return block

    async def aset_core_block(self, label: str, content: str) -> CoreBlock:
        block: CoreBlock = await self._arun(self._c_set_core_block(label, content))
        return block

    def core_blocks(self) -> list[CoreBlock]:
        return list(self._run(wire.Call("GET", "/v1/core-blocks", wire.blocks)))

    async def acore_blocks(self) -> list[CoreBlock]:
        call = wire.Call("GET", "/v1/core-blocks", wire.blocks)
        return list(await self._arun(call))

    def delete_core_block(self, label: str) -> bool:
        return bool(self._run(self._c_delete_core_block(label)))

    async def adelete_core_block(self, label: str) -> bool:
        return bool(await self._arun(self._c_delete_core_block(label)))

    def core_context(self) -> str:
        return str(self._run(wire.Call("GET", "/v1/core-context", lambda r: r["text"])))

    async def acore_context(self) -> str:
        return str(await self._arun(wire.Call("GET", "/v1/core-context", lambda r: r["text"])))

    def merge_candidates(self, limit: int = 20) -> list[MergeCandidate]:
        return list(self._run(self._c_merge_candidates(limit)))

    async def amerge_candidates(self, limit: int = 20) -> list[MergeCandidate]:
        return list(await self._arun(self._c_merge_candidates(limit)))

    # ------------------------------------------------------------------ short-term memory
    def start_session(self, session_id: str | None = None) -> str:
        call = wire.Call(
            "POST", "/v1/sessions", lambda r: r["session_id"], {"session_id": session_id}
        )
        return str(self._run(call))

    async def astart_session(self, session_id: str | None = None) -> str:
        call = wire.Call(
            "POST", "/v1/sessions", lambda r: r["session_id"], {"session_id": session_id}
        )
        return str(await self._arun(call))

    @property
    def session_id(self) -> str | None:
        found = self._run(wire.Call("GET", "/v1/sessions/current", lambda r: r["session_id"]))
        return None if found is None else str(found)

    def add_interaction(
        self, role: str, content: str, metadata: Mapping[str, Any] | None = None, *,
        session_id: str | None = None,
    ) -> None:  # fmt: skip
        turn = {"role": role, "content": content, "metadata": metadata}
        self._run(self._c_interactions([turn], session_id, False))

    async def aadd_interaction(
        self, role: str, content: str, metadata: Mapping[str, Any] | None = None, *,
        session_id: str | None = None,
    ) -> None:  # fmt: skip
        turn = {"role": role, "content": content, "metadata": metadata}
        await self._arun(self._c_interactions([turn], session_id, False))

    def add_interactions(
        self, turns: Sequence[Mapping[str, Any]], *, session_id: str | None = None,
        remember: bool = False,
    ) -> list[Interaction]:  # fmt: skip
        return list(self._run(self._c_interactions(turns, session_id, remember)))

    async def aadd_interactions(
        self, turns: Sequence[Mapping[str, Any]], *, session_id: str | None = None,
        remember: bool = False,
    ) -> list[Interaction]:  # fmt: skip
        return list(await self._arun(self._c_interactions(turns, session_id, remember)))

    @staticmethod
    def _c_conversation(limit: Any, session_id: Any) -> wire.Call:
        params = {"limit": limit, "session_id": session_id}
        return wire.Call("GET", "/v1/interactions", wire.turns, params=params)

    def conversation(
        self, limit: int | None = None, *, session_id: str | None = None
    ) -> list[Interaction]:
        return list(self._run(self._c_conversation(limit, session_id)))

    async def aconversation(
        self, limit: int | None = None, *, session_id: str | None = None
    ) -> list[Interaction]:
        return list(await self._arun(self._c_conversation(limit, session_id)))

    @staticmethod
    def _c_pop(session_id: Any) -> wire.Call:
        return wire.Call(
            "POST", "/v1/interactions/pop", wire.turn,
            {"session_id": session_id},
        )  # fmt: skip

    def pop_interaction(self, *, session_id: str | None = None) -> Interaction | None:
        popped: Interaction | None = self._run(self._c_pop(session_id))
        return popped

    async def apop_interaction(self, *, session_id: str | None = None) -> Interaction | None:
        popped: Interaction | None = await self._arun(self._c_pop(session_id))
        return popped

    @staticmethod
    def _c_clear(session_id: Any) -> wire.Call:
        params = {"session_id": session_id}
        return wire.Call("DELETE", "/v1/interactions", lambda r: r["cleared"], params=params)

    def clear_session(self, session_id: str | None = None) -> int:
        return int(self._run(self._c_clear(session_id)))

    async def aclear_session(self, session_id: str | None = None) -> int:
        return int(await self._arun(self._c_clear(session_id)))
