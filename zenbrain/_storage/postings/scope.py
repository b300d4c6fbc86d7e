"""One scope's postings held in memory: lexical candidates without walking the index on disk.

Ranking the rows that hold a query's words on disk (FTS5's ``bm25()``, PostgreSQL's
``ts_rank``) costs about a microsecond per matching row, and at 100k memories a question
matches thousands. :class:`ScopePostings` keeps, for each term of a scope (a namespace and
layer), the positions of the memories holding it and how often, in compact arrays; picking
the best candidates is then a few numpy operations over those arrays. The score is BM25's relevance
as :mod:`zenbrain._ranking` defines it (without proximity, which the ranking adds when it
re-scores the candidates from their stored terms).

Nothing here touches the database: :class:`~zenbrain._storage.sqlite.SqliteLexicalIndex`
(and its PostgreSQL counterpart) fills a :class:`ScopePostings` from each memory's stored
terms and keeps it in step with other processes.
Not thread-safe on its own: callers hold one lock around every method.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from itertools import chain, pairwise

import numpy as np

from zenbrain._ranking import K1, B, EncodedDocuments

__all__ = ["ScopePostings"]

_MAX_TF = 255  # term counts are kept in one byte; BM25's factor is flat long before that


class ScopePostings:
    """Postings of one scope: per term, the positions of the memories holding it (``array``
    of int32) and the term's count in each (uint8). A memory's position is its place in the
    order memories were added; removing one marks its position dead, and its postings stay
    (skipped when searching) until :meth:`scrub` removes them or the scope is loaded again.

    Each memory's terms in order (as term numbers, four bytes a term), the time it was
    stored and the conversation it names are kept too, so ranking the candidates reads
    nothing from disk (:meth:`documents`)."""

    __slots__ = (
        "_alive",
        "_contexts",
        "_conversation_names",
        "_conversations",
        "_lengths",
        "_moved",
        "_pks",
        "_postings",
        "_search",
        "_sequence",
        "_starts",
        "_term_ids",
        "_times",
        "_to_scrub",
        "_vocabulary",
        "changes",
        "context_ids",
        "conversation_ids",
        "dead",
        "live",
        "max_pk",
        "removals_seen",
        "total_length",
        "vacated",
    )

    def __init__(self, changes: int = 0) -> None:
        self.changes = changes
        """The scope's change counter when this copy was last brought up to date."""
        self.removals_seen = 0
        """The last entry of the store's removal log this copy has applied."""
        self.max_pk = 0
        self.live = 0
        self.dead = 0
        """Removed memories whose postings are still held (searches skip them)."""
        self.vacated = 0
        """Removed memories scrubbed (:meth:`scrub`): only their places in the per-memory
        arrays are left, until the scope is loaded again."""
        self.total_length = 0
        self.context_ids: dict[str, int] = {}
        self._pks = array("q")
        self._lengths = array("i")
        self._contexts = array("i")
        self._alive = bytearray()
        self._term_ids: dict[str, int] = {}
        self._vocabulary: list[str] = []
        self._postings: list[tuple[array[int], array[int]]] = []  # by term number
        self._sequence = array("i")  # every memory's term numbers, one after the other
        self._starts = array("q")  # where each position's terms begin in _sequence
        self._times = array("q")  # when each was stored: microseconds since the epoch
        self._conversations = array("i")  # the conversation each names (-1: none)
        self.conversation_ids: dict[str, int] = {}
        self._conversation_names: list[str] = []
        # Positions are found by binary search over the running maximum of the keys: a key
        # added in increasing order (every new memory) first appears there at its own
        # position. A key added again (a memory re-indexed in place) is looked up in
        # ``_moved`` instead.
        self._search = array("q")
        self._moved: dict[int, int] = {}
        self._to_scrub: list[int] = []  # positions removed since the last scrub

    def __len__(self) -> int:
        return self.live

    def __contains__(self, pk: object) -> bool:
        return isinstance(pk, int) and self._position(pk) is not None

    def _position(self, pk: int) -> int | None:
        moved = self._moved.get(pk)
        if moved is not None:
            return moved if self._alive[moved] else None
        at = bisect_left(self._search, pk)
        if at < len(self._pks) and self._pks[at] == pk and self._alive[at]:
            return at
        return None

    def _positions(self, asked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_position` of many keys at once: their positions, and which are live."""
        at = np.zeros(len(asked), dtype=np.int64)
        live = np.zeros(len(asked), dtype=bool)
        if len(self._pks) and len(asked):
            at = np.searchsorted(np.frombuffer(self._search, dtype=np.int64), asked)
            np.minimum(at, len(self._pks) - 1, out=at)
            live = np.frombuffer(self._pks, dtype=np.int64)[at] == asked
            live &= np.frombuffer(self._alive, dtype=np.uint8)[at].astype(bool)
        if self._moved:  # re-indexed keys: only their later position counts
            for i, pk in enumerate(asked.tolist()):
                moved = self._moved.get(pk)
                if moved is not None:
                    at[i], live[i] = moved, bool(self._alive[moved])
        return at, live

    def _conversation_id(self, conversation: str | None) -> int:
        if not conversation:
            return -1
        number = self.conversation_ids.get(conversation)
        if number is None:
            number = self.conversation_ids[conversation] = len(self._conversation_names)
            self._conversation_names.append(conversation)
        return number

    def add(
        self,
        pk: int,
        context: str | None,
        terms: Sequence[str],
        stored_at: int,
        conversation: str | None = None,
    ) -> None:
        """Index a memory (its terms in order, ``stored_at`` in microseconds since the epoch,
        the conversation it names); a memory indexed before is replaced."""
        self.discard(pk)
        position = len(self._pks)
        if pk <= self.max_pk:
            self._moved[pk] = position
        self.max_pk = max(self.max_pk, pk)
        self._pks.append(pk)
        self._search.append(self.max_pk)
        self._lengths.append(len(terms))
        context_id = -1
        if context:
            context_id = self.context_ids.setdefault(context, len(self.context_ids))
        self._contexts.append(context_id)
        self._alive.append(1)
        self._times.append(stored_at)
        self._conversations.append(self._conversation_id(conversation))
        self._starts.append(len(self._sequence))
        self.live += 1
        self.total_length += len(terms)
        term_ids, postings, sequence = self._term_ids, self._postings, self._sequence
        counts: dict[int, int] = {}
        for term in terms:
            number = term_ids.get(term)
            if number is None:
                number = term_ids[term] = len(postings)
                self._vocabulary.append(term)
                postings.append((array("i"), array("B")))
            sequence.append(number)
            counts[number] = counts.get(number, 0) + 1
        for number, count in counts.items():
            found = postings[number]
            found[0].append(position)
            found[1].append(min(count, _MAX_TF))

    def extend(
        self, rows: Sequence[tuple[int, str | None, Sequence[str], int, str | None]]
    ) -> None:
        """Index many memories at once, ``(pk, context, terms, stored_at, conversation)``
        each as for
        :meth:`add`: what loading a scope does. Keys in increasing order above every key
        indexed so far take the bulk path (postings built with numpy); others go through
        :meth:`add` one by one."""
        if not rows:
            return
        keys = [row[0] for row in rows]
        if keys[0] <= self.max_pk or any(b <= a for a, b in pairwise(keys)):
            for row in rows:
                self.add(*row)
            return
        first = len(self._pks)
        term_ids, postings, vocabulary = self._term_ids, self._postings, self._vocabulary
        lengths = array("i", [len(row[2]) for row in rows])
        contexts = array(
            "i",
            [
                self.context_ids.setdefault(row[1], len(self.context_ids)) if row[1] else -1
                for row in rows
            ],
        )
        every = list(chain.from_iterable(row[2] for row in rows))
        for term in dict.fromkeys(every):
            if term not in term_ids:
                term_ids[term] = len(postings)
                vocabulary.append(term)
                postings.append((array("i"), array("B")))
        numbers = array("i", [term_ids[term] for term in every])
        # Term counts per memory, grouped by term: one sort of (term, position) pairs.
        span = first + len(rows)
        term_of = np.frombuffer(numbers, dtype=np.int32).astype(np.int64)
        position_of = np.repeat(
            np.arange(first, span, dtype=np.int64), np.frombuffer(lengths, dtype=np.int32)
        )
        pairs, counts = np.unique(term_of * span + position_of, return_counts=True)
        terms_sorted = pairs // span
        positions = (pairs % span).astype(np.int32)
        tfs = np.minimum(counts, _MAX_TF).astype(np.uint8)
        if len(pairs):  # memories without a single index term add no postings
            bounds = np.flatnonzero(np.diff(terms_sorted)) + 1
            starts = np.concatenate([[0], bounds])
            ends = np.concatenate([bounds, [len(pairs)]])
            for number, begin, end in zip(
                terms_sorted[starts].tolist(), starts.tolist(), ends.tolist(), strict=True
            ):
                found = postings[number]
                found[0].frombytes(positions[begin:end].tobytes())
                found[1].frombytes(tfs[begin:end].tobytes())
        offsets = np.concatenate([[0], np.cumsum(np.frombuffer(lengths, dtype=np.int32))[:-1]])
        self._starts.frombytes((offsets + len(self._sequence)).astype(np.int64).tobytes())
        self._sequence.extend(numbers)
        self._pks.extend(keys)
        self._search.extend(keys)  # increasing and above every earlier key
        self._lengths.extend(lengths)
        self._contexts.extend(contexts)
        self._alive.extend(b"\x01" * len(rows))
        self._times.extend(row[3] for row in rows)
        self._conversations.extend(self._conversation_id(row[4]) for row in rows)
        self.max_pk = keys[-1]
        self.live += len(rows)
        self.total_length += int(sum(lengths))

    def discard(self, pk: int) -> bool:
        """Forget a memory; False when it was not indexed."""
        position = self._position(pk)
        if position is None:
            return False
        self._alive[position] = 0
        self._moved.pop(pk, None)
        self._to_scrub.append(position)
        self.live -= 1
        self.dead += 1
        self.total_length -= self._lengths[position]
        return True

    @property
    def unscrubbed(self) -> int:
        """Removed memories :meth:`scrub` would remove now."""
        return len(self._to_scrub)

    def scrub(self) -> int:
        """Remove what the memories removed since the last scrub still hold: their entries
        in each term's postings, their terms in order, and each word no live memory holds any
        more (from the vocabulary too), so nothing of them stays in memory (a purge). Costs a
        binary search and a shift of one postings array per distinct term of each memory
        scrubbed, nothing per memory of the scope. Returns how many were scrubbed."""
        scrubbed, self._to_scrub = self._to_scrub, []
        postings, sequence = self._postings, self._sequence
        for position in scrubbed:
            begin = self._starts[position]
            end = begin + self._lengths[position]
            for number in set(sequence[begin:end]):
                where, tfs = postings[number]
                at = bisect_left(where, position)  # positions are added in increasing order
                if at < len(where) and where[at] == position:
                    del where[at], tfs[at]
                word = self._vocabulary[number]
                if not where and word:  # a word only removed memories held
                    if self._term_ids.get(word) == number:
                        del self._term_ids[word]
                    self._vocabulary[number] = ""  # its number is never given again
            sequence[begin:end] = array("i", bytes(4 * (end - begin)))
        self.dead -= len(scrubbed)
        self.vacated += len(scrubbed)
        return len(scrubbed)

    def _found(self, term: str) -> tuple[array[int], array[int]] | None:
        number = self._term_ids.get(term)
        return None if number is None else self._postings[number]

    def documents(
        self, pks: Sequence[int]
    ) -> tuple[list[int], EncodedDocuments, np.ndarray, list[str | None]]:
        """The live memories among ``pks`` (in the order asked) at once: their keys, their
        terms as term numbers (:meth:`~zenbrain._ranking.LexicalQuery.score_documents`
        scores them without turning a number back into its word), when each was stored
        (microseconds since the epoch, int64) and the conversation each names."""
        asked = np.asarray(pks, dtype=np.int64).reshape(-1)
        at, live = self._positions(asked)
        keys, at = asked[live].tolist(), at[live]
        starts = np.frombuffer(self._starts, dtype=np.int64)[at]
        lengths = np.frombuffer(self._lengths, dtype=np.int32)[at].astype(np.int64)
        before = np.cumsum(lengths) - lengths  # where each one's terms begin in the result
        gather = np.repeat(starts - before, lengths) + np.arange(int(lengths.sum()))
        terms = np.frombuffer(self._sequence, dtype=np.int32)[gather]
        times = np.frombuffer(self._times, dtype=np.int64)[at]
        names = self._conversation_names
        conversations = [
            names[c] if c >= 0 else None
            for c in np.frombuffer(self._conversations, dtype=np.int32)[at].tolist()
        ]
        # The term mapping is shared, not copied: a term's number never changes once given,
        # and terms added (or scrubbed) later are in none of these documents.
        encoded = EncodedDocuments(terms, lengths, self._term_ids, self._vocabulary)
        return keys, encoded, times, conversations

    def _in_context(self, context: str | None) -> int | None:
        """The id of a context (-1: no context asked); None for a context no memory has."""
        if context is None:
            return -1
        return self.context_ids.get(context)

    def counts(
        self, terms: Sequence[str], context: str | None
    ) -> tuple[int, float, dict[str, int]]:
        """What BM25 needs: the number of live memories (in ``context`` when given), the
        scope's mean length in terms, and each term's document frequency among them."""
        average = self.total_length / self.live if self.live > 0 else 0.0
        context_id = self._in_context(context)
        if context_id is None:
            return 0, average, dict.fromkeys(terms, 0)
        # A view of the live flags, not a copy: copying every memory's flag on each search
        # made the statistics cost grow with the scope. A context needs its own mask.
        alive = np.frombuffer(self._alive, dtype=np.bool_)
        if context_id >= 0:
            alive = alive & (np.frombuffer(self._contexts, dtype=np.int32) == context_id)
        exact = self.dead == 0 and context_id < 0  # every posting counts
        frequencies: dict[str, int] = {}
        for term in dict.fromkeys(terms):
            found = self._found(term)
            if found is None:
                frequencies[term] = 0
            elif exact:
                frequencies[term] = len(found[0])
            else:
                where = np.frombuffer(found[0], dtype=np.int32)
                frequencies[term] = int(np.count_nonzero(alive[where]))
        documents = self.live if context_id < 0 else int(np.count_nonzero(alive))
        return documents, average, frequencies

    def best(
        self,
        terms: Sequence[str],
        context: str | None,
        limit: int,
        *,
        k1: float = K1,
        b: float = B,
    ) -> list[int]:
        """Keys of at most ``limit`` live memories holding any of ``terms`` (in ``context``
        when given), best first by BM25 relevance: each term found adds its IDF times
        ``min(1, tf * (k1 + 1) / (tf + k1 * L))``, as :class:`~zenbrain._ranking.LexicalQuery`
        scores. Equal scores: the newer memory (higher key) first."""
        if limit <= 0 or self.live == 0:
            return []
        context_id = self._in_context(context)
        if context_id is None:
            return []
        lengths = np.frombuffer(self._lengths, dtype=np.int32)
        alive = np.frombuffer(self._alive, dtype=np.uint8)
        average = self.total_length / self.live if self.total_length > 0 else 1.0
        positions: list[np.ndarray] = []
        gains: list[np.ndarray] = []
        for term in dict.fromkeys(terms):
            found = self._found(term)
            if found is None:
                continue
            where = np.frombuffer(found[0], dtype=np.int32)
            tf = np.frombuffer(found[1], dtype=np.uint8).astype(np.float32)
            frequency = len(where) if self.dead == 0 else int(np.count_nonzero(alive[where]))
            weight = math.log1p(self.live / (1 + frequency))
            norm = (1.0 - b) + (b / average) * lengths[where]
            factor = tf * (k1 + 1.0) / (tf + k1 * norm)
            np.minimum(factor, 1.0, out=factor)
            positions.append(where)
            gains.append(factor * weight)
        if not positions:
            return []
        every = np.concatenate(positions)
        unique, inverse = np.unique(every, return_inverse=True)
        scores = np.bincount(inverse, weights=np.concatenate(gains))
        keep = alive[unique].astype(bool)
        if context_id >= 0:
            keep &= np.frombuffer(self._contexts, dtype=np.int32)[unique] == context_id
        unique, scores = unique[keep], scores[keep]
        if len(unique) > limit:
            # Everything scoring at least the limit-th best, ties included, then sorted.
            threshold = np.partition(scores, len(scores) - limit)[len(scores) - limit]
            chosen = scores >= threshold
            unique, scores = unique[chosen], scores[chosen]
        keys = np.frombuffer(self._pks, dtype=np.int64)[unique]
        order = np.lexsort((-keys, -scores))[:limit]
        return [int(k) for k in keys[order]]
