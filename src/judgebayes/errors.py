"""Errors and warnings raised by judgebayes.

Every user-facing input problem is a :class:`DataError` that names the row, the
column and the expected form, so the message alone tells the user what to fix.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DataError", "DisconnectedGraphWarning", "JudgeBayesWarning"]


class DataError(ValueError):
    """Invalid input data.

    Parameters
    ----------
    message
        What is wrong, in words.
    row
        0-based position of the first offending row in the input table (the
        record number for JSON input, the data line after the header for CSV),
        or ``None`` when the problem is not tied to a row.
    column
        The offending column, or ``None``.
    expected
        The expected form (``"one of 'model_a', 'model_b', 'tie'"``), or ``None``.
    got
        The offending value, if any.
    """

    def __init__(
        self,
        message: str,
        *,
        row: int | None = None,
        column: str | None = None,
        expected: str | None = None,
        got: Any = None,
    ) -> None:
        self.row = row
        self.column = column
        self.expected = expected
        self.got = got
        where = []
        if row is not None:
            where.append(f"row {row}")
        if column is not None:
            where.append(f"column {column!r}")
        text = (", ".join(where) + ": " if where else "") + message
        if got is not None:
            text += f" (got {got!r})"
        if expected is not None:
            text += f"; expected {expected}"
        super().__init__(text)


class JudgeBayesWarning(UserWarning):
    """Base class of the warnings judgebayes emits."""


class DisconnectedGraphWarning(JudgeBayesWarning):
    """The comparison graph has several connected components.

    Ratings are identified only within a component: the L2 penalty centres each
    component at 0 on its own, so Elo differences *across* components carry no
    information from the data.
    """
