"""Judge × model rating matrices: one judge's Elo of every model, for several judges.

The UDA paper (Zhang, Wang, Wu, Yu, Wang, Bao & Tang, *UDA: Unsupervised Debiasing Alignment for
Pair-wise LLM-as-a-Judge*, 2025, arXiv:2508.09724) reports every result as such a matrix:
row *k* is judge *k*'s Elo of each answer model, computed from that judge's verdicts alone (its
Tables 5–7), and compares the matrices of two methods (baseline Elo with K = 32, UDA) by their
per-model spread across judges (Tables 1–2) and by each row's correlation with a human reference
(Figure 4). :class:`JudgeRatings` holds one method's matrix; :class:`EloTable` holds a file of them
in the paper's layout (``row, method, <model…>``, one row per judge and method, optionally a
``human`` row); :func:`paper_table` returns the matrices printed in the seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.core.io import read_frame, reading
from judgebayes.core.results import ResultDisplay
from judgebayes.datasets import load_uda_elo
from judgebayes.errors import DataError
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "PAPER_TABLES",
    "EloTable",
    "JudgeRatings",
    "elo_table_from_frame",
    "paper_table",
    "read_elo_table",
]

#: The matrices printed in Zhang et al. (2025), by name: ``arenahard`` (Table 5: baseline and UDA),
#: ``transfer`` (Table 6: baseline, UDA and the human row), ``transfer_table7`` (Table 7:
#: its "UDA (Full)" and "UDA (Ablated)" blocks, with Table 6's baseline and human rows).
PAPER_TABLES = ("arenahard", "transfer", "transfer_table7")
REFERENCE_METHODS = ("human", "reference", "truth")


@dataclass(frozen=True, repr=False)
class JudgeRatings(ResultDisplay):
    """One method's ratings of every model by every judge (a row of Zhang et al. (2025), Tables
    5–7).

    Attributes
    ----------
    method
        What produced the ratings (``"baseline"``: online Elo with K = 32, Eq. 1;
        ``"uda"``: Algorithm 2; ``"bt"``; ...).
    judges, models
        Row and column names.
    ratings
        ``(n_judges, n_models)`` Elo ratings; NaN where a judge never rated a model.
    component
        Comparison-graph component of each model, or ``None`` when the graph is
        connected. Ratings are comparable only within a component (an online Elo keeps
        each component's mean at the initial rating; a penalised BT centres each at 1500).
    n_battles
        Battles each judge's ratings used (``None`` for a printed table).
    """

    method: str
    judges: tuple[str, ...]
    models: tuple[str, ...]
    ratings: np.ndarray
    component: tuple[int, ...] | None = None
    n_battles: tuple[int, ...] | None = field(default=None)

    def __post_init__(self) -> None:
        r = np.asarray(self.ratings, dtype=float)
        if r.shape != (len(self.judges), len(self.models)):
            raise ValueError(
                f"ratings have shape {r.shape}, expected ({len(self.judges)}, {len(self.models)})"
            )
        object.__setattr__(self, "ratings", r)

    @property
    def consensus(self) -> pd.Series:
        """The consensus G: each model's mean rating over the judges (Zhang et al., 2025, Eq. 3's
        anchor)."""
        return pd.Series(
            np.nanmean(self.ratings, axis=0), index=pd.Index(self.models, name="model")
        )

    def sd(self) -> pd.Series:
        """Per-model inter-judge standard deviation, ddof = 1 (Zhang et al., 2025, Tables 1–2)."""
        return pd.Series(
            np.nanstd(self.ratings, axis=0, ddof=1),
            index=pd.Index(self.models, name="model"),
            name=f"sd_{self.method}",
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per judge, one column per model (the paper's matrix layout)."""
        frame = pd.DataFrame(self.ratings, columns=list(self.models))
        frame.insert(0, "judge", list(self.judges))
        return frame

    def _headline(self) -> str:
        comps = "" if self.component is None else f", {len(set(self.component))} components"
        return (
            f"{self.method}: {len(self.judges)} judges × {len(self.models)} models"
            f"{comps}; mean inter-judge SD {float(self.sd().mean()):.2f}"
        )

    def subset(self, models: Sequence[str]) -> JudgeRatings:
        """The same judges' ratings of ``models`` only."""
        index = [self.models.index(m) for m in models]
        comp = None if self.component is None else tuple(self.component[k] for k in index)
        return JudgeRatings(
            self.method, self.judges, tuple(models), self.ratings[:, index], comp, self.n_battles
        )

    def plot(
        self,
        ax: Axes | None = None,
        *,
        reference: pd.Series | None = None,
        vmin: float | None = None,
        vmax: float | None = None,
        cmap: str = "viridis",
        colorbar: bool = True,
    ) -> Axes:
        """Heat map of the judge × model ratings (Zhang et al., 2025, Figure 5).

        Parameters
        ----------
        ax
            Axes to draw on (a new figure when ``None``).
        reference
            A reference rating per model (human Elo) drawn as a last row below a line.
        vmin, vmax
            Colour limits (share them between methods to compare them).
        """
        rows = self.ratings
        labels = list(self.judges)
        if reference is not None:
            rows = np.vstack([rows, reference.reindex(list(self.models)).to_numpy(float)])
            labels.append(str(reference.name or "reference"))
        ax = panel_axes(ax, (0.55 * len(self.models) + 2.5, 0.3 * len(labels) + 1.6))
        image = ax.imshow(
            rows, aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest"
        )
        if reference is not None:
            ax.axhline(len(self.judges) - 0.5, color="white", lw=2)
        ax.set_xticks(
            np.arange(len(self.models)), list(self.models), rotation=45, ha="right", fontsize=7
        )
        ax.set_yticks(np.arange(len(labels)), labels, fontsize=7)
        ax.set_title(f"{self.method} (mean SD {float(self.sd().mean()):.1f})", fontsize=9)
        if colorbar:
            ax.figure.colorbar(image, ax=ax, label="Elo", shrink=0.8)
        return ax


@dataclass(frozen=True, repr=False)
class EloTable(ResultDisplay):
    """Judge × model matrices of several methods, and a reference row (Zhang et al., 2025, Tables
    5–7).

    Attributes
    ----------
    ratings
        ``{method: JudgeRatings}``, in file order.
    reference
        The reference ratings per model (the ``human`` row), or ``None``.
    source
        Where the table came from.
    """

    ratings: Mapping[str, JudgeRatings]
    reference: pd.Series | None = None
    source: str = ""

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(self.ratings)

    @property
    def models(self) -> tuple[str, ...]:
        return next(iter(self.ratings.values())).models

    def __getitem__(self, method: str) -> JudgeRatings:
        if method not in self.ratings:
            raise KeyError(f"no method {method!r}; methods: {list(self.ratings)}")
        return self.ratings[method]

    def to_frame(self) -> pd.DataFrame:
        """The file layout: ``row, method, <models…>`` (the reference as method ``human``)."""
        parts = []
        for method, r in self.ratings.items():
            frame = r.to_frame().rename(columns={"judge": "row"})
            frame.insert(1, "method", method)
            parts.append(frame)
        if self.reference is not None:
            name = str(self.reference.name or "human")
            parts.append(
                pd.DataFrame(
                    [[name, name, *self.reference.reindex(list(self.models)).to_numpy(float)]],
                    columns=["row", "method", *self.models],
                )
            )
        return pd.concat(parts, ignore_index=True)

    def _headline(self) -> str:
        first = next(iter(self.ratings.values()))
        sds = ", ".join(f"{m} {float(r.sd().mean()):.2f}" for m, r in self.ratings.items())
        ref = "" if self.reference is None else f"; reference row {self.reference.name!r}"
        return (
            f"{len(self.ratings)} methods × {len(first.judges)} judges × "
            f"{len(first.models)} models; mean inter-judge SD {sds}{ref}"
        )


def elo_table_from_frame(frame: pd.DataFrame, source: str) -> EloTable:
    """An :class:`EloTable` from a frame ``row, method, <models…>`` (errors name the row)."""
    frame = frame.reset_index(drop=True)
    if frame.shape[1] < 4 or list(frame.columns[:2]) != ["row", "method"]:
        raise DataError(
            f"columns {list(frame.columns)[:4]}...",
            column="row",
            expected="a judge × model Elo table: row,method,<model>,<model>,...",
        )
    models = tuple(str(c) for c in frame.columns[2:])
    values = frame.iloc[:, 2:].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = (int(v[0]) for v in np.nonzero(bad))
        raise DataError(
            "rating is not a finite number",
            row=row,
            column=models[col],
            got=frame.iloc[row, 2 + col],
            expected="an Elo rating",
        )
    ratings: dict[str, JudgeRatings] = {}
    reference = None
    for k, method in enumerate(frame["method"].astype(str)):
        if not method or method == "nan":
            raise DataError(
                "missing method", row=k, column="method", expected="e.g. baseline_elo, uda or human"
            )
    for method, rows in frame.groupby("method", sort=False).groups.items():
        rows = np.asarray(rows)
        if str(method).lower() in REFERENCE_METHODS:
            if len(rows) != 1:
                raise DataError(
                    f"{len(rows)} rows of method {method!r}",
                    row=int(rows[1]),
                    column="method",
                    expected="one reference row",
                )
            reference = pd.Series(
                values[rows[0]], index=pd.Index(models, name="model"), name=str(method)
            )
            continue
        judges = tuple(frame["row"].astype(str).iloc[rows])
        dup = pd.Index(judges).duplicated()
        if dup.any():
            row = int(rows[np.flatnonzero(dup)[0]])
            raise DataError(
                f"judge listed twice for method {method!r}",
                row=row,
                column="row",
                got=judges[int(np.flatnonzero(dup)[0])],
                expected="one row per judge",
            )
        ratings[str(method)] = JudgeRatings(str(method), judges, models, values[rows])
    if not ratings:
        raise DataError(
            "no judge rows, only a reference row",
            column="method",
            expected="rows of at least one method (e.g. baseline_elo)",
        )
    judge_sets = {m: r.judges for m, r in ratings.items()}
    first = next(iter(judge_sets.values()))
    for method, judges in judge_sets.items():
        if judges != first:
            raise DataError(
                f"method {method!r} lists judges {list(judges)}, the first method {list(first)}",
                column="row",
                expected="the same judges, in the same order, for every method",
            )
    return EloTable(ratings, reference, source)


def read_elo_table(path: str | Path) -> EloTable:
    """Read a judge × model Elo table (Zhang et al., 2025, Tables 5–7 as CSV).

    Parameters
    ----------
    path
        A CSV (or any format :func:`~judgebayes.core.io.read_frame` reads) with columns
        ``row, method, <model…>``: one row per judge and method (``baseline_elo``,
        ``uda``, ...), and optionally one reference row whose method is ``human``.

    Returns
    -------
    EloTable
    """
    path = Path(path)
    frame = read_frame(path, text_columns=("row", "method"), default="csv")
    with reading(path):
        return elo_table_from_frame(frame, str(path))


def paper_table(name: str = "transfer") -> EloTable:
    """A judge × model matrix printed in Zhang et al. (2025) (shipped with the package).

    Parameters
    ----------
    name
        ``"arenahard"`` (Table 5), ``"transfer"`` (Table 6, with the human row; both from
        :func:`judgebayes.datasets.load_uda_elo`) or ``"transfer_table7"`` (Table 7's
        "UDA (Full)" and "UDA (Ablated)" blocks, with Table 6's baseline and human rows).
        Rows ``J1``…``J10`` are judges; Table 4 names them after the models, in column
        order, so judge ``Jk`` is model *k*.
    """
    if name not in PAPER_TABLES:
        raise ValueError(f"name must be one of {PAPER_TABLES}, got {name!r}")
    frame = load_uda_elo("transfer" if name == "transfer_table7" else name).rename(
        columns={"judge": "row"}
    )
    if name == "transfer_table7":
        text = resources.files("judgebayes.consensus").joinpath("data/uda_table7.csv")
        with resources.as_file(text) as path:
            table7 = pd.read_csv(path, comment="#", dtype={"row": str, "method": str})
        frame = pd.concat(
            [frame[frame["method"] == "baseline_elo"], table7, frame[frame["method"] == "human"]],
            ignore_index=True,
        )
    return elo_table_from_frame(frame, f"Zhang et al. (2025), {name}")
