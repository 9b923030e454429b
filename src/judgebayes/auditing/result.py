"""What :func:`~judgebayes.auditing` returns: an :class:`Audit` of sections, each a few frames.

Every section says what it found in a few sentences (``summary``), holds its numbers as
frames (``tables``, every number with its interval) and its figures as functions that draw
them (``figures``); a section the data do not allow says what data would (``needs``).
:meth:`Audit.write` writes the report: ``report.html`` (one self-contained file),
``report.json`` (strict JSON) and one CSV per table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from judgebayes.auditing.html import render, slug
from judgebayes.core.io import write_json
from judgebayes.core.results import ResultDisplay

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Audit", "Section"]


@dataclass(frozen=True)
class Section:
    """One section of an audit.

    Attributes
    ----------
    key
        Short name (``"verdict"``, ``"data"``, ``"humans"``, ``"self_preference"``,
        ``"board"``, ``"design"``, ``"budget"``).
    title
        Its heading.
    available
        Whether the data allow it.
    summary
        What it found, in sentences (paragraphs separated by blank lines).
    needs
        What data would make it (fully) available; empty when nothing is missing.
    tables
        ``{name: frame}``.
    figures
        ``{name: function drawing the figure}``.
    notes
        Smaller remarks (fits that failed and why, approximations made).
    details
        ``{title: text}`` the page shows folded (rules, checklists).
    folded
        Tables the page shows folded.
    hidden
        Tables written to CSV only (long lists the page names but does not show).
    """

    key: str
    title: str
    available: bool
    summary: str = ""
    needs: str = ""
    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    figures: Mapping[str, Callable[[], Figure]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    details: Mapping[str, str] = field(default_factory=dict)
    folded: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every table as records."""
        return {
            "key": self.key,
            "title": self.title,
            "available": self.available,
            "summary": self.summary,
            "needs": self.needs,
            "notes": list(self.notes),
            "details": dict(self.details),
            "tables": {name: _records(frame) for name, frame in self.tables.items()},
        }


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    out = frame.reset_index() if not isinstance(frame.index, pd.RangeIndex) else frame
    return out.astype(object).where(out.notna(), None).to_dict("records")


@dataclass(frozen=True, repr=False)
class Audit(ResultDisplay):
    """An audit: can this judge be trusted, and what does it say? (module docstring).

    Attributes
    ----------
    title
        What was audited.
    sections
        The sections in the order of the report.
    verdicts
        One row per judge and use: ``judge, use, verdict, severity, diagnostic, estimate,
        lo, hi, message, fix``.
    findings
        Every finding behind them (the same columns, severity per diagnostic).
    settings
        The audit's options (level, seeds, route).
    results
        The result objects behind the sections (``"board"``, ``"agreement"``, ...), for a
        notebook to dig into.
    """

    title: str
    sections: tuple[Section, ...]
    verdicts: pd.DataFrame
    findings: pd.DataFrame
    settings: Mapping[str, Any]
    results: Mapping[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Section:
        for s in self.sections:
            if s.key == key:
                return s
        raise KeyError(f"no section {key!r}; sections: {[s.key for s in self.sections]}")

    def _headline(self) -> str:
        parts = [f"{r.judge}: {r.use} {r.verdict.upper()}" for r in self.verdicts.itertuples()]
        return f"{self.title}; " + "; ".join(parts)

    def to_frame(self) -> pd.DataFrame:
        """The verdicts."""
        return self.verdicts

    def __str__(self) -> str:
        lines = [self.title, ""]
        for s in self.sections:
            lines.append(f"== {s.title}" + ("" if s.available else " (not available)"))
            if s.key == "verdict":
                for r in self.verdicts.itertuples():
                    lines.append(f"- {r.judge}, {r.use}: {r.verdict.upper()} ({r.diagnostic})")
            if s.summary:
                lines.append(s.summary)
            if s.needs:
                lines.append(f"needs: {s.needs}")
            lines.append("")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The whole report as JSON-ready data."""
        from judgebayes import __version__

        return {
            "judgebayes_version": __version__,
            "title": self.title,
            "settings": dict(self.settings),
            "verdicts": _records(self.verdicts),
            "findings": _records(self.findings),
            "sections": [s.to_dict() for s in self.sections],
        }

    def figure(self, section: str, name: str | None = None) -> Figure:
        """Draw one figure of a section (its first when ``name`` is ``None``)."""
        figures = self[section].figures
        if not figures:
            raise KeyError(f"section {section!r} has no figure")
        return figures[name if name is not None else next(iter(figures))]()

    def plot(self) -> Figure:
        """The board's forest plot (the calibrated board beside each judge's own)."""
        return self.figure("board")

    def to_html(self) -> str:
        """The report as one self-contained HTML page (figures inline)."""
        return render(self)

    def write(self, out: str | Path) -> list[Path]:
        """Write ``report.html``, ``report.json`` and one CSV per table into ``out``."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for s in self.sections:
            for name, frame in s.tables.items():
                path = out / f"{s.key}_{slug(name)}.csv"
                keep_index = not isinstance(frame.index, pd.RangeIndex)
                frame.to_csv(path, index=keep_index)
                written.append(path)
        verdicts = out / "verdicts.csv"
        self.verdicts.to_csv(verdicts, index=False)
        written.append(verdicts)
        written.append(write_json(out / "report.json", self.to_dict()))
        html = out / "report.html"
        html.write_text(self.to_html(), encoding="utf-8")
        written.append(html)
        return written
