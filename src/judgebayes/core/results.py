"""How every result reads as a notebook cell's last line: a one-line repr and an HTML table.

A result class inherits :class:`ResultDisplay`, defines ``_headline()`` (what it
holds: sizes and the headline numbers, one line) and ``to_frame()``; it gets

* ``repr(result)``: ``<ClassName: headline>``, never a dump of arrays;
* ``result._repr_html_()``: the headline as a caption above ``to_frame()`` as an HTML
  table (long tables are truncated the way pandas truncates them).

Frozen dataclasses must be declared with ``repr=False`` so that the dataclass
machinery does not replace this ``__repr__``. ``__str__`` stays the class's own
(a plain-text table where it has one).
"""

from __future__ import annotations

import html

import pandas as pd

__all__ = ["ResultDisplay"]


class ResultDisplay:
    """Mixin: a one-line ``__repr__`` and a ``_repr_html_`` from ``_headline()``, ``to_frame()``."""

    __slots__ = ()

    def _headline(self) -> str:
        """One line: what the result is, its size and its headline numbers."""
        raise NotImplementedError

    def to_frame(self) -> pd.DataFrame:  # pragma: no cover - every result defines it
        raise NotImplementedError

    def __repr__(self) -> str:
        try:
            headline = self._headline()
        except Exception as exc:  # a repr must never raise
            headline = f"(headline unavailable: {type(exc).__name__})"
        return f"<{type(self).__name__}: {headline}>"

    def _repr_html_(self) -> str:
        caption = html.escape(repr(self)[1:-1])
        table = self.to_frame().to_html(
            max_rows=30, max_cols=12, float_format=_float_html, border=0
        )
        return f'<div class="judgebayes-result"><p><b>{caption}</b></p>{table}</div>'


def _float_html(x: float) -> str:
    return f"{x:.4g}"
