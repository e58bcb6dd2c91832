"""Session history with incremental streaks, so detection never rescans history (04 §4.10).

Records live in one session-wide deque (the `historySize` cap is session-wide, oldest first).
Each run id has a `RunState`: its records as a doubly linked list (newest at the end) and, per
argsHash, a `SigState` with that signature's records as a second linked list. Every streak of
04 §4.5 is kept up to date as records come and go, instead of being recomputed per check:

- recent count: `SigState.count`;
- no-progress streak: `SigState.latest`/`streak`, the last block of equal result hashes among
  the signature's hashed records (pending records are skipped, as 04 §4.5 says). An outcome for
  a record newer than the newest hashed one extends or restarts the block in O(1); one for an
  older pending record can split a block, so the signature's records are rescanned: O(records
  with that run and argsHash);
- unknown-tool streak: consecutive records with the same (tool, unknownTool) form a block in a
  union-find (blocks only ever merge: a pending record gains a key, a forgotten pending record
  disappears), so the newest record's block size is the streak;
- ping-pong: `Record.alt` counts the records since the last one that breaks an alternation
  (h[i] != h[i-2]); the alternating tail is `min(alt + 1, records in the run)`, and the
  no-progress evidence is read from the two signatures' states (`SigState.hashed_suffix`).

Eviction always takes the oldest record of the session, which is the oldest of its run and of
its signature, so it is O(1). Forgetting a pending call (a veto) unlinks it in O(1) plus, rarely,
renumbering its signature's newer records and re-deriving `alt` up to the next alternation break.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from loopcfg.hashing import DeferredDigest, ResultHash, hash_text


class Block:
    """A union-find node: consecutive records with one (tool, unknownTool) key."""

    __slots__ = ("count", "parent")

    def __init__(self) -> None:
        self.parent: Block = self
        self.count = 1

    def root(self) -> Block:
        block = self
        while block.parent is not block:
            block.parent = block.parent.parent  # path halving
            block = block.parent
        return block


# What the blocks of a disposed history point at instead of each other (History.dispose).
_UNLINKED = Block()


def _union(a: Block, b: Block) -> None:
    ra, rb = a.root(), b.root()
    if ra is rb:
        return
    if ra.count < rb.count:
        ra, rb = rb, ra
    rb.parent = ra
    ra.count += rb.count


class Record:
    __slots__ = (
        "alt",
        "args_hash",
        "block",
        "call_id",
        "ordinal",
        "removed",
        "result_hash",
        "run",
        "run_id",
        "run_next",
        "run_prev",
        "seq",
        "sig",
        "sig_next",
        "sig_prev",
        "tool",
        "unknown_tool",
    )

    def __init__(
        self,
        tool: str,
        args_hash: str,
        run_id: str | None,
        call_id: str | None = None,
        result_hash: ResultHash | None = None,
        unknown_tool: str | None = None,
    ) -> None:
        self.tool = tool
        self.args_hash = args_hash
        self.run_id = run_id
        self.call_id = call_id
        self.result_hash = result_hash
        self.unknown_tool = unknown_tool
        self.seq = 0
        self.ordinal = 0  # position among its signature's records (differences are counts)
        self.alt = 1
        self.block: Block | None = None
        self.removed = False
        self.run: RunState | None = None
        self.sig: SigState | None = None
        self.run_prev: Record | None = None
        self.run_next: Record | None = None
        self.sig_prev: Record | None = None
        self.sig_next: Record | None = None

    def __repr__(self) -> str:
        return (
            f"Record({self.tool!r}, {self.args_hash[-8:]!r}, run={self.run_id!r}, "
            f"call={self.call_id!r}, result={(hash_text(self.result_hash) or '')[-8:]!r})"
        )


class SigState:
    """The records of one run with one argsHash, and their no-progress streak."""

    __slots__ = (
        "count",
        "hashed",
        "latest",
        "newest",
        "newest_hashed_seq",
        "next_ordinal",
        "pending",
        "streak",
    )

    def __init__(self) -> None:
        self.count = 0
        self.hashed = 0
        # The outcome hash of the last block (a DeferredDigest is digested when compared).
        self.latest: ResultHash | None = None
        self.streak = 0
        self.newest_hashed_seq = -1
        self.newest: Record | None = None
        self.next_ordinal = 0
        # Records still waiting for an outcome, oldest first (usually zero or one).
        self.pending: list[Record] = []

    def hashed_suffix(self) -> int:
        """How many of the newest records all have an outcome."""
        if not self.pending:
            return self.count
        assert self.newest is not None
        return self.newest.ordinal - self.pending[-1].ordinal

    def rescan(self) -> None:
        """Recompute the no-progress streak: newest→oldest, skipping pending records."""
        self.latest, self.streak, self.newest_hashed_seq = None, 0, -1
        record = self.newest
        while record is not None:
            result = record.result_hash
            if result is not None:
                if self.latest is None:
                    self.latest, self.newest_hashed_seq = result, record.seq
                elif result != self.latest:
                    return
                self.streak += 1
            record = record.sig_prev


class RunState:
    """The records of one run id, newest last, and its signatures."""

    __slots__ = ("count", "newest", "sigs")

    def __init__(self) -> None:
        self.count = 0
        self.newest: Record | None = None
        self.sigs: dict[str, SigState] = {}


# tool, args_hash, run_id, call_id, result_hash, unknown_tool
RecordFields = tuple[str, str, str | None, str | None, str | None, str | None]


class History:
    def __init__(self, size: int) -> None:
        self.size = max(size, 1)
        self.records: deque[Record] = deque()  # session order; forgotten records skipped
        self.live = 0
        self.runs: dict[str | None, RunState] = {}
        self._seq = 0

    def __len__(self) -> int:
        return self.live

    def __iter__(self) -> Iterator[Record]:
        # A generator function: mypyc (docs/performance.md, seventh round) would build a
        # generator expression here as a whole list.
        for record in self.records:
            if not record.removed:
                yield record

    def resize(self, size: int) -> None:
        self.size = max(size, 1)
        while self.live > self.size:
            self._evict()

    def run(self, run_id: str | None) -> RunState | None:
        return self.runs.get(run_id)

    # -- spooling (replay keeps idle sessions on disk) -------------------------------------------

    def snapshot(self) -> tuple[int, list[RecordFields]]:
        """The size and the live records, oldest first, as plain tuples (picklable, no links)."""
        return self.size, [
            (r.tool, r.args_hash, r.run_id, r.call_id, hash_text(r.result_hash), r.unknown_tool)
            for r in self.records
            if not r.removed
        ]

    def dispose(self) -> None:
        """Unlink every record (records, runs, signatures and unknown-tool blocks point at each
        other), so a history dropped from memory is freed at once rather than by the next full
        garbage collection; replay drops one per spooled session. The history is empty after."""
        for record in self.records:
            if type(record.result_hash) is DeferredDigest:
                record.result_hash.release()
            block = record.block
            if block is not None:
                block.root().parent = _UNLINKED
                block.parent = _UNLINKED
            record.block = record.run = record.sig = None
            record.run_prev = record.run_next = record.sig_prev = record.sig_next = None
        self.records.clear()
        self.runs.clear()
        self.live = 0

    @classmethod
    def restore(cls, snapshot: tuple[int, list[RecordFields]]) -> History:
        """A history equal in every streak to the one `snapshot` was taken of.

        Every index is a function of the live records in order (the no-progress blocks, the
        unknown-tool blocks, pending lists, ordinals as differences), so appending them again,
        each with the outcome it has now, rebuilds it; `alt` may come out smaller than the
        original's, but only `min(alt + 1, records in the run)` is ever read, which is equal."""
        size, records = snapshot
        history = cls(size)
        for fields in records:
            history.append(Record(*fields))
        return history

    # -- changes ---------------------------------------------------------------------------------

    def append(self, record: Record) -> None:
        record.seq = self._seq = self._seq + 1
        runs = self.runs
        run = runs.get(record.run_id)
        if run is None:
            run = runs[record.run_id] = RunState()
        record.run = run
        h = record.args_hash
        previous = run.newest
        if previous is not None:
            previous.run_next = record
            record.run_prev = previous
            before = previous.run_prev
            if before is not None and before.args_hash == h:
                record.alt = previous.alt + 1
        run.newest = record
        run.count += 1

        sig = run.sigs.get(h)
        if sig is None:
            sig = run.sigs[h] = SigState()
        record.sig = sig
        record.ordinal = sig.next_ordinal
        sig.next_ordinal += 1
        newest = sig.newest
        if newest is not None:
            newest.sig_next = record
            record.sig_prev = newest
        sig.newest = record
        sig.count += 1
        result = record.result_hash
        if result is None:
            sig.pending.append(record)
        else:
            self._hashed_newest(sig, record, result)
            if record.unknown_tool is not None:
                record.block = Block()
                if previous is not None and _same_key(previous, record):
                    assert previous.block is not None
                    _union(previous.block, record.block)

        self.records.append(record)
        self.live += 1
        while self.live > self.size:
            self._evict()

    def attach(self, record: Record, result_hash: ResultHash, unknown_tool: str | None) -> None:
        """Give a pending record its outcome (04 §4.2)."""
        record.result_hash, record.unknown_tool = result_hash, unknown_tool
        sig = record.sig
        assert sig is not None
        if sig.pending and sig.pending[-1] is record:
            sig.pending.pop()
        else:
            sig.pending.remove(record)
        if record.seq > sig.newest_hashed_seq:
            self._hashed_newest(sig, record, result_hash)
        else:  # an older pending record: it may split the last block
            sig.hashed += 1
            sig.rescan()
        if unknown_tool is not None:
            block = record.block = Block()
            for neighbour in (record.run_prev, record.run_next):
                if neighbour is not None and _same_key(neighbour, record):
                    assert neighbour.block is not None
                    _union(neighbour.block, block)

    @staticmethod
    def _hashed_newest(sig: SigState, record: Record, result_hash: ResultHash) -> None:
        sig.hashed += 1
        sig.newest_hashed_seq = record.seq
        # Compared (so a deferred hash digested) only when the signature has an earlier one.
        latest = sig.latest
        if latest is not None and result_hash == latest:
            sig.streak += 1
        else:
            sig.latest, sig.streak = result_hash, 1

    def find_pending(
        self, run_id: str | None, tool: str, args_hash: str, call_id: str | None
    ) -> Record | None:
        """Newest record of the run with this signature (and call id if given) and no hash."""
        run = self.runs.get(run_id)
        if run is None:
            return None
        sig = run.sigs.get(args_hash)
        if sig is None or not sig.pending:
            return None
        newest = sig.pending[-1]  # nearly always the one (a call's outcome before the next)
        if newest.tool == tool and (call_id is None or newest.call_id == call_id):
            return newest
        for record in reversed(sig.pending):
            if record.tool == tool and (call_id is None or record.call_id == call_id):
                return record
        return None

    def remove(self, record: Record) -> None:
        """Drop one pending record (a vetoed call that never ran)."""
        assert record.result_hash is None and not record.removed
        record.removed = True
        self.live -= 1
        run, sig = record.run, record.sig
        assert run is not None and sig is not None
        # Run list: unlink, merge the unknown-tool blocks around it, re-derive `alt` after it.
        before, after = record.run_prev, record.run_next
        if before is not None:
            before.run_next = after
        if after is None:
            run.newest = before
        else:
            after.run_prev = before
            joined = before is not None and after.block is not None and _same_key(before, after)
            if joined:
                assert before is not None and before.block is not None and after.block is not None
                _union(before.block, after.block)
            _realternate(after)
        run.count -= 1
        # Signature list: unlink, keep ordinals dense for `hashed_suffix`.
        if sig.pending[-1] is record:
            sig.pending.pop()
        else:
            sig.pending.remove(record)
        older, newer = record.sig_prev, record.sig_next
        if older is not None:
            older.sig_next = newer
        if newer is None:
            sig.newest = older
        else:
            newer.sig_prev = older
            while newer is not None:
                newer.ordinal -= 1
                newer = newer.sig_next
        sig.next_ordinal -= 1
        sig.count -= 1
        if sig.count == 0:
            del run.sigs[record.args_hash]
        if run.count == 0:
            del self.runs[record.run_id]
        record.run_prev = record.run_next = record.sig_prev = record.sig_next = None
        # Forgotten records stay in the deque until they reach its front; keep it compact.
        if len(self.records) > 2 * self.live + 32:
            self.records = deque([r for r in self.records if not r.removed])

    def _evict(self) -> None:
        oldest = self.records.popleft()
        while oldest.removed:
            oldest = self.records.popleft()
        self.live -= 1
        run, sig = oldest.run, oldest.sig
        assert run is not None and sig is not None
        after = oldest.run_next
        if after is None:
            run.newest = None
        else:
            after.run_prev = None
        run.count -= 1
        if oldest.block is not None:
            oldest.block.root().count -= 1
            oldest.block = None
        newer = oldest.sig_next
        if newer is None:
            sig.newest = None
        else:
            newer.sig_prev = None
        sig.count -= 1
        result = oldest.result_hash
        if result is None:
            assert sig.pending[0] is oldest
            del sig.pending[0]
        else:
            if type(result) is DeferredDigest:  # never compared: its value goes with the record
                result.release()
            # The oldest hashed record belongs to the last block only if there is one block.
            if sig.streak == sig.hashed:
                sig.streak -= 1
                if sig.streak == 0:
                    sig.latest, sig.newest_hashed_seq = None, -1
            sig.hashed -= 1
        if sig.count == 0:
            del run.sigs[oldest.args_hash]
        if run.count == 0:
            del self.runs[oldest.run_id]
        oldest.run_next = oldest.sig_next = None

    # -- streaks (04 §4.5), all O(1) -----------------------------------------------------------

    @staticmethod
    def unknown_tool_streak(run: RunState, tool: str) -> tuple[str | None, int]:
        newest = run.newest
        if newest is None or newest.tool != tool or newest.block is None:
            return None, 0
        return newest.unknown_tool, newest.block.root().count

    @staticmethod
    def no_progress_streak(run: RunState, args_hash: str) -> tuple[ResultHash | None, int]:
        sig = run.sigs.get(args_hash)
        if sig is None:
            return None, 0
        return sig.latest, sig.streak

    @staticmethod
    def recent_count(run: RunState, args_hash: str) -> int:
        sig = run.sigs.get(args_hash)
        return 0 if sig is None else sig.count

    @staticmethod
    def ping_pong(run: RunState, args_hash: str) -> tuple[int, bool, Record] | None:
        """(count, noProgressEvidence, last record) when this call continues a ping-pong."""
        last = run.newest
        if last is None:
            return None
        previous = last.run_prev
        if previous is None or previous.args_hash != args_hash or args_hash == last.args_hash:
            return None
        tail = min(last.alt + 1, run.count)
        side_last, side_other = last.sig, previous.sig
        assert side_last is not None and side_other is not None
        evidence = _same_outcomes(side_last, (tail + 1) // 2) and _same_outcomes(
            side_other, tail // 2
        )
        return tail + 1, evidence, last


def _same_key(a: Record, b: Record) -> bool:
    return a.unknown_tool is not None and a.unknown_tool == b.unknown_tool and a.tool == b.tool


def _same_outcomes(sig: SigState, n: int) -> bool:
    """The newest `n` records of the signature all have one and the same outcome hash."""
    return sig.hashed_suffix() >= n and sig.streak >= n


def _alt(record: Record) -> int:
    previous = record.run_prev
    if previous is None:
        return 1
    before = previous.run_prev
    if before is None or before.args_hash != record.args_hash:
        return 1
    return previous.alt + 1


def _realternate(first: Record) -> None:
    """Re-derive `alt` after an unlink: the first two records after it have new neighbours
    (recomputed); beyond them `alt` changes only while the one before it changed."""
    record: Record | None = first
    step = 0
    while record is not None:
        alt = _alt(record)
        if step >= 1 and alt == record.alt:
            return
        record.alt = alt
        record = record.run_next
        step += 1
