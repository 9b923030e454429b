"""Drop accounting: what happened to the input rows on their way into a table or a fit."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from judgebayes.core.results import ResultDisplay

__all__ = ["DropReport"]


@dataclass(frozen=True, repr=False)
class DropReport(ResultDisplay):
    """What happened to the input rows on their way into a table or a fit.

    Attributes
    ----------
    n_input
        Rows received.
    dropped
        Rows removed, by reason (only with ``on_invalid="drop"``).
    excluded
        Rows kept in the table but not used by a computation, by reason (for
        example battles without the label a fit needs).
    missing
        Values absent in the input whose rows are kept, by reason (a judge's null
        verdict on one battle of a multi-judge table, a battle no human labelled).
        They change no row count: a computation that needs the value counts the rows
        it leaves out under ``excluded``.
    """

    n_input: int
    dropped: Mapping[str, int] = field(default_factory=dict)
    excluded: Mapping[str, int] = field(default_factory=dict)
    missing: Mapping[str, int] = field(default_factory=dict)

    @property
    def n_dropped(self) -> int:
        return int(sum(self.dropped.values()))

    @property
    def n_excluded(self) -> int:
        return int(sum(self.excluded.values()))

    @property
    def n_used(self) -> int:
        return self.n_input - self.n_dropped - self.n_excluded

    def with_excluded(self, reason: str, count: int) -> DropReport:
        """A copy with ``count`` more rows excluded for ``reason``."""
        if count == 0:
            return self
        excluded = dict(self.excluded)
        excluded[reason] = excluded.get(reason, 0) + int(count)
        return DropReport(self.n_input, dict(self.dropped), excluded, dict(self.missing))

    def with_missing(self, counts: Mapping[str, int]) -> DropReport:
        """A copy with the (non-zero) ``counts`` of absent values added to :attr:`missing`."""
        missing = dict(self.missing)
        for reason, count in counts.items():
            if count:
                missing[reason] = missing.get(reason, 0) + int(count)
        return DropReport(self.n_input, dict(self.dropped), dict(self.excluded), missing)

    def to_dict(self) -> dict[str, object]:
        return {
            "n_input": self.n_input,
            "n_used": self.n_used,
            "dropped": dict(self.dropped),
            "excluded": dict(self.excluded),
            "missing": dict(self.missing),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per count: ``status`` (in, used, dropped, not used, missing), ``reason``,
        ``rows``."""
        rows = [("in", "", self.n_input), ("used", "", self.n_used)]
        rows += [("dropped", why, n) for why, n in self.dropped.items()]
        rows += [("not used", why, n) for why, n in self.excluded.items()]
        rows += [("missing", why, n) for why, n in self.missing.items()]
        return pd.DataFrame(rows, columns=["status", "reason", "rows"])

    def _headline(self) -> str:
        text = f"{self.n_input:,} rows in, {self.n_used:,} used"
        if self.dropped:
            text += f", {self.n_dropped:,} dropped"
        if self.excluded:
            text += f", {self.n_excluded:,} not used"
        if self.missing:
            text += f"; {sum(self.missing.values()):,} values missing"
        return text

    def __str__(self) -> str:
        parts = [f"{self.n_input:,} rows in, {self.n_used:,} used"]
        parts += [f"{n:,} dropped: {why}" for why, n in self.dropped.items()]
        parts += [f"{n:,} not used: {why}" for why, n in self.excluded.items()]
        parts += [f"{n:,} missing: {why}" for why, n in self.missing.items()]
        return "; ".join(parts)
