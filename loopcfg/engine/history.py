"""Session history with per-run indexes, so detection never rescans the whole history (04 §4.10).

Records live in one session-wide deque (the `historySize` cap is session-wide); each run id has
its own deque of records and, per argsHash, a deque of that signature's records. The oldest
record of the session is always the oldest of its run and of its signature, so eviction is O(1).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass(slots=True, eq=False)
class Record:
    tool: str
    args_hash: str
    run_id: str | None
    call_id: str | None = None
    result_hash: str | None = None
    unknown_tool: str | None = None
    # Length of the alternating (A, B, A, ...) suffix of the run that ends at this record.
    alternation: int = 1
    # The newest earlier record of the run whose argsHash differs from this one's.
    previous_other: Record | None = None
    evicted: bool = False


@dataclass(slots=True)
class RunHistory:
    records: deque[Record] = field(default_factory=deque)
    by_signature: dict[str, deque[Record]] = field(default_factory=dict)


class History:
    def __init__(self, size: int) -> None:
        self.size = max(size, 1)
        self.records: deque[Record] = deque()
        self.runs: dict[str | None, RunHistory] = {}

    def resize(self, size: int) -> None:
        self.size = max(size, 1)
        while len(self.records) > self.size:
            self._evict()

    def run(self, run_id: str | None) -> RunHistory | None:
        return self.runs.get(run_id)

    def append(self, record: Record) -> None:
        run = self.runs.get(record.run_id)
        if run is None:
            run = self.runs[record.run_id] = RunHistory()
        if run.records:
            self._link(record, run.records[-1])
        run.records.append(record)
        run.by_signature.setdefault(record.args_hash, deque()).append(record)
        self.records.append(record)
        while len(self.records) > self.size:
            self._evict()

    @staticmethod
    def _link(record: Record, previous: Record) -> None:
        if previous.args_hash == record.args_hash:
            record.previous_other = previous.previous_other
            record.alternation = 1
            return
        record.previous_other = previous
        before = previous.previous_other
        if (
            previous.alternation >= 2
            and before is not None
            and before.args_hash == record.args_hash
        ):
            record.alternation = previous.alternation + 1
        else:
            record.alternation = 2

    def _evict(self) -> None:
        oldest = self.records.popleft()
        # Cut the chain so evicted records are freed: memory stays bounded by historySize.
        oldest.evicted = True
        oldest.previous_other = None
        run = self.runs[oldest.run_id]
        run.records.popleft()
        same = run.by_signature[oldest.args_hash]
        same.popleft()
        if not same:
            del run.by_signature[oldest.args_hash]
        if not run.records:
            del self.runs[oldest.run_id]

    def find_pending(
        self, run_id: str | None, tool: str, args_hash: str, call_id: str | None
    ) -> Record | None:
        """Newest record of the run with this signature (and call id if given) and no hash."""
        run = self.runs.get(run_id)
        if run is None:
            return None
        for record in reversed(run.by_signature.get(args_hash, ())):
            if record.result_hash is not None or record.tool != tool:
                continue
            if call_id is not None and record.call_id != call_id:
                continue
            return record
        return None

    def remove(self, record: Record) -> None:
        """Drop one record (a vetoed call); rebuilds the run's links, O(run length)."""
        self.records.remove(record)
        run = self.runs[record.run_id]
        kept = [r for r in run.records if r is not record]
        run.records.clear()
        run.by_signature.clear()
        for item in kept:
            if run.records:
                self._link(item, run.records[-1])
            else:
                item.previous_other, item.alternation = None, 1
            run.records.append(item)
            run.by_signature.setdefault(item.args_hash, deque()).append(item)
        if not run.records:
            del self.runs[record.run_id]
