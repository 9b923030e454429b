"""The UDA paper's metrics on judge × model ratings: dispersion, human agreement, self-preference.

Zhang, Wang, Wu, Yu, Wang, Bao & Tang, *UDA: Unsupervised Debiasing Alignment for Pair-wise
LLM-as-a-Judge* (2025, arXiv:2508.09724).

* **Inter-judge standard deviation** (Tables 1–2): the sample SD (ddof = 1) of each
  model's ratings across judges, and its average over models.
* **Pearson correlation with a reference** (Figure 4, Table 3): each judge's ratings
  against the human ratings, their average, and the consensus's (the mean over
  judges) correlation.
* **Self-preference deviation** (Figure 2, Introduction): a judge's rating of its own
  model minus the other judges' mean rating of it, in Elo and in % of that mean.

When the comparison graph is disconnected (``JudgeRatings.component``), ratings are
comparable only within a component: correlations are then computed on ratings and
reference centred within each component (a pooled within-component Pearson r).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from judgebayes.consensus.ratings import EloTable, JudgeRatings
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "ConsensusComparison",
    "compare_rating_methods",
    "pearson_within_components",
    "reference_correlation",
    "self_preference_deviation",
]

Own = Mapping[str, str] | Literal["diagonal"] | None


def _centred(values: np.ndarray, component: Sequence[int] | None) -> np.ndarray:
    """``values`` minus their mean within each comparison-graph component."""
    values = np.asarray(values, float).copy()
    groups = np.zeros(len(values), int) if component is None else np.asarray(component)
    for g in np.unique(groups):
        mask = (groups == g) & np.isfinite(values)
        values[groups == g] -= values[mask].mean() if mask.any() else 0.0
    return values


def pearson_within_components(
    x: np.ndarray, y: np.ndarray, component: Sequence[int] | None
) -> float:
    """Pearson's r of two ratings of the same models, centred within graph components.

    Each vector is centred by its mean within each component of the comparison graph
    (:func:`~judgebayes.consensus.elo.battle_components`); then r = Σxy / √(Σx² Σy²)
    over the models where both are finite. With one component (``component=None``) this
    is the ordinary Pearson r.

    Parameters
    ----------
    x, y
        Ratings of the same models, in the same order (NaN where absent).
    component
        Each model's component, or ``None`` for a connected graph.

    Returns
    -------
    float
        r; NaN when fewer than 3 models have both ratings or either is constant there.
    """
    x, y = _centred(x, component), _centred(y, component)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3 or np.std(x[ok]) == 0 or np.std(y[ok]) == 0:
        return float("nan")
    # Centred already: r = Σxy / √(Σx² Σy²) is Pearson's r (within components when given).
    return float(x[ok] @ y[ok] / np.sqrt((x[ok] @ x[ok]) * (y[ok] @ y[ok])))


def reference_correlation(ratings: JudgeRatings, reference: pd.Series) -> pd.Series:
    """Pearson r of each judge's ratings, and of the consensus, with a reference (Fig. 4).

    Parameters
    ----------
    ratings
        One method's judge × model ratings.
    reference
        Reference ratings (human Elo) indexed by model; models missing from it are
        left out.

    Returns
    -------
    pandas.Series
        r by judge, plus a last entry ``"consensus"``: the mean over judges against the
        reference (within components when the graph is disconnected).
    """
    ref = reference.reindex(list(ratings.models)).to_numpy(float)
    if np.isfinite(ref).sum() < 3:
        raise DataError(
            "the reference rates fewer than 3 of the models",
            expected=f"ratings of {list(ratings.models)}",
        )
    rows = [pearson_within_components(row, ref, ratings.component) for row in ratings.ratings]
    rows.append(pearson_within_components(ratings.consensus.to_numpy(), ref, ratings.component))
    return pd.Series(
        rows,
        index=pd.Index([*ratings.judges, "consensus"], name="judge"),
        name=f"r_{ratings.method}",
    )


def _own_map(ratings: JudgeRatings, own: Own) -> dict[str, str]:
    if own is None:
        return {}
    if isinstance(own, str):
        if own != "diagonal" or len(ratings.judges) != len(ratings.models):
            raise ValueError(
                "own must be a {judge: model} mapping, or 'diagonal' when judge k "
                "is model k (as in Zhang et al. (2025), Table 4)"
            )
        return dict(zip(ratings.judges, ratings.models, strict=True))
    for judge, model in own.items():
        if judge not in ratings.judges:
            raise DataError(
                f"unknown judge {judge!r}",
                column="judge",
                expected=f"one of {list(ratings.judges)}",
            )
        if model not in ratings.models:
            raise DataError(
                f"unknown model {model!r} for judge {judge!r}",
                column="model",
                expected=f"one of {list(ratings.models)}",
            )
    return dict(own)


def self_preference_deviation(ratings: JudgeRatings, own: Own) -> pd.DataFrame:
    """Each self-judging judge's rating of its own model against the other judges' mean.

    dev = R_own^(k) − mean_{j≠k} R_own^(j), and dev % = 100 · dev / mean_{j≠k} R_own^(j)
    (Zhang et al., 2025, Figure 2 and the Introduction's "−21 % to +56 %").

    Parameters
    ----------
    ratings
        One method's judge × model ratings.
    own
        ``{judge: its own model}``, or ``"diagonal"`` (judge *k* is model *k*).

    Returns
    -------
    pandas.DataFrame
        ``judge, model, own_rating, others_mean, dev_elo, dev_pct``.
    """
    rows = []
    for judge, model in _own_map(ratings, own).items():
        k, m = ratings.judges.index(judge), ratings.models.index(model)
        others = np.delete(ratings.ratings[:, m], k)
        mean = float(np.nanmean(others))
        value = float(ratings.ratings[k, m])
        rows.append((judge, model, value, mean, value - mean, 100.0 * (value - mean) / mean))
    return pd.DataFrame(
        rows, columns=["judge", "model", "own_rating", "others_mean", "dev_elo", "dev_pct"]
    )


@dataclass(frozen=True, repr=False)
class ConsensusComparison(ResultDisplay):
    """Zhang et al.'s (2025) comparison of methods: Tables 1–3, Figure 4 and the self-preference
    range.

    Attributes
    ----------
    ratings
        ``{method: JudgeRatings}``.
    baseline
        The method reductions are measured against.
    reference
        The reference ratings (human Elo, or the truth of a simulation), or ``None``.
    sd
        Per-model inter-judge SD (ddof = 1): one row per model, one column per method.
    correlation
        Pearson r with the reference: one row per judge plus ``consensus``, one column per
        method (``None`` without a reference).
    self_preference
        :func:`self_preference_deviation` of every method, stacked with a ``method``
        column (``None`` without ``own``).
    """

    ratings: Mapping[str, JudgeRatings]
    baseline: str
    reference: pd.Series | None
    sd: pd.DataFrame
    correlation: pd.DataFrame | None
    self_preference: pd.DataFrame | None

    @property
    def mean_sd(self) -> pd.Series:
        """Average inter-judge SD by method (Tables 1–3)."""
        return self.sd.mean(axis=0)

    @property
    def mean_correlation(self) -> pd.Series | None:
        """Average per-judge Pearson r with the reference by method (Figure 4, Table 3)."""
        if self.correlation is None:
            return None
        return self.correlation.drop(index="consensus").mean(axis=0)

    def sd_table(self) -> pd.DataFrame:
        """Tables 1–2: per-model SD by method, and each method's reduction % vs the baseline."""
        table = self.sd.T.copy()
        base = self.sd[self.baseline]
        for method in self.sd.columns:
            if method != self.baseline:
                label = "reduction_pct" if self.sd.shape[1] == 2 else f"reduction_pct_{method}"
                table.loc[label] = 100.0 * (1.0 - self.sd[method] / base)
        table["average"] = table.mean(axis=1)
        return table

    def to_frame(self) -> pd.DataFrame:
        """One row per method: mean SD, its reduction %, mean and consensus r, self-preference."""
        frame = pd.DataFrame({"method": list(self.sd.columns), "mean_sd": self.mean_sd.to_numpy()})
        base = float(self.mean_sd[self.baseline])
        frame["sd_reduction_pct"] = 100.0 * (1.0 - frame["mean_sd"] / base)
        if self.correlation is not None:
            mean_r = self.mean_correlation
            frame["mean_r"] = mean_r.to_numpy()
            frame["r_change_pct"] = 100.0 * (frame["mean_r"] / float(mean_r[self.baseline]) - 1)
            frame["consensus_r"] = self.correlation.loc["consensus"].to_numpy()
        if self.self_preference is not None and len(self.self_preference):
            dev = self.self_preference.groupby("method", sort=False)["dev_pct"]
            frame["self_dev_min_pct"] = frame["method"].map(dev.min())
            frame["self_dev_max_pct"] = frame["method"].map(dev.max())
        return frame

    def _headline(self) -> str:
        first = next(iter(self.ratings.values()))
        sds = " → ".join(f"{m} {v:.2f}" for m, v in self.mean_sd.items())
        text = f"{len(first.judges)} judges × {len(first.models)} models; mean SD {sds}"
        if self.correlation is not None:
            text += "; mean r " + " → ".join(f"{v:.3f}" for v in self.mean_correlation)
        return text

    def __str__(self) -> str:
        return (
            repr(self)[1:-1]
            + "\n"
            + self.to_frame().to_string(index=False, float_format=lambda v: f"{v:.3f}")
        )

    def plot(
        self,
        kind: Literal["heatmap", "correlation"] = "heatmap",
        axes: np.ndarray | Axes | None = None,
    ) -> np.ndarray | Axes:
        """Figure 5 (``"heatmap"``: one panel per method, shared colours, the reference as a
        last row) or Figure 4 (``"correlation"``: each judge's r per method, consensus dashed).

        Returns a numpy array of Axes for ``"heatmap"``, one Axes for ``"correlation"``.
        """
        if kind == "correlation":
            return self._plot_correlation(axes)
        if kind != "heatmap":
            raise ValueError(f"kind must be 'heatmap' or 'correlation', got {kind!r}")
        if axes is None:
            import matplotlib.pyplot as plt

            first = next(iter(self.ratings.values()))
            _, axes = plt.subplots(
                1,
                len(self.ratings),
                squeeze=False,
                figsize=(
                    (0.45 * len(first.models) + 1.8) * len(self.ratings),
                    0.28 * len(first.judges) + 2,
                ),
            )
        axes = np.asarray(axes).ravel()
        values = np.concatenate([r.ratings.ravel() for r in self.ratings.values()])
        vmin, vmax = np.nanpercentile(values, [1, 99])
        for k, (ax, r) in enumerate(zip(axes, self.ratings.values(), strict=True)):
            r.plot(ax, reference=self.reference, vmin=vmin, vmax=vmax, colorbar=k == len(axes) - 1)
        return axes

    def _plot_correlation(self, ax: Axes | None) -> Axes:
        if self.correlation is None:
            raise ValueError("no reference: nothing to correlate with")
        judges = self.correlation.index.drop("consensus")
        ax = panel_axes(ax, (0.5 * len(judges) + 2.5, 3.2))
        colors = ["#1f5fa8", "#e07b00", "#2e7d32", "#c2185b", "#6a1b9a"]
        for k, method in enumerate(self.correlation.columns):
            c = colors[k % len(colors)]
            ax.plot(
                np.arange(len(judges)),
                self.correlation.loc[judges, method],
                "o",
                color=c,
                label=f"{method} (mean {self.mean_correlation[method]:.3f})",
            )
            ax.axhline(self.correlation.loc["consensus", method], color=c, ls="--", lw=1)
        ax.set_xticks(np.arange(len(judges)), list(judges), rotation=45, ha="right", fontsize=7)
        ax.set(
            ylabel=f"Pearson r with {self.reference.name or 'reference'}",
            title="per-judge correlation (dashed: consensus)",
        )
        ax.legend(frameon=False, fontsize=7)
        return ax


def compare_rating_methods(
    ratings: EloTable | Mapping[str, JudgeRatings] | Sequence[JudgeRatings],
    *,
    reference: pd.Series | None = None,
    own: Own = None,
    baseline: str | None = None,
) -> ConsensusComparison:
    """Compare methods' judge × model ratings by Zhang et al.'s (2025) metrics (Tables 1–3, Fig. 2,
    4).

    Parameters
    ----------
    ratings
        An :class:`EloTable`, ``{method: JudgeRatings}``, or a sequence of them (keyed by
        their ``method``). All must have the same judges and models.
    reference
        Reference ratings by model (default: the table's ``human`` row, if any).
    own
        ``{judge: its own model}`` or ``"diagonal"`` for the self-preference deviations.
    baseline
        The method reductions are measured against (default: the first).

    Returns
    -------
    ConsensusComparison
    """
    if isinstance(ratings, EloTable):
        reference = ratings.reference if reference is None else reference
        ratings = ratings.ratings
    if not isinstance(ratings, Mapping):
        ratings = {r.method: r for r in ratings}
    ratings = dict(ratings)
    if not ratings:
        raise ValueError("no ratings to compare")
    first = next(iter(ratings.values()))
    for method, r in ratings.items():
        if r.models != first.models or r.judges != first.judges:
            raise ValueError(
                f"method {method!r} rates other judges or models than "
                f"{first.method!r}; compare matrices of the same shape"
            )
    baseline = next(iter(ratings)) if baseline is None else baseline
    if baseline not in ratings:
        raise ValueError(f"baseline {baseline!r} is not one of {list(ratings)}")
    sd = pd.DataFrame(
        {m: r.sd().to_numpy() for m, r in ratings.items()},
        index=pd.Index(first.models, name="model"),
    )
    correlation = None
    if reference is not None:
        correlation = pd.DataFrame(
            {m: reference_correlation(r, reference) for m, r in ratings.items()}
        )
    self_pref = None
    if own is not None:
        parts = [self_preference_deviation(r, own).assign(method=m) for m, r in ratings.items()]
        self_pref = pd.concat(parts, ignore_index=True)
    return ConsensusComparison(ratings, baseline, reference, sd, correlation, self_pref)
