"""Correlation of Consistency with Elo within clusters of judges (Ramaswamy, Demeure & Rrapaj,
*Model Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores*, EMNLP 2025,
arXiv:2509.23510, Appendix A.3)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes._stats import pearson_r, spearman_rho
from judgebayes.consistency.counts import elo_vector
from judgebayes.consistency.score import JudgeConsistency, judge_values
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["ClusterCorrelations", "cluster_correlations", "rank_clusters"]


def rank_clusters(
    values: Mapping[str, float] | pd.Series,
    sizes: Iterable[int],
    *,
    labels: Iterable[str] | None = None,
) -> dict[str, str]:
    """Cut names into consecutive groups by descending value (e.g. Elo).

    The paper's Appendix A.3 clusters are the 10 / 8 / 6 judges of highest /
    middle / lowest Arena Elo (``sizes=(10, 8, 6)``), as listed in the authors' code.

    Returns
    -------
    dict
        ``{name: cluster label}``.
    """
    series = pd.Series(values, dtype=float).sort_values(ascending=False, kind="stable")
    sizes = [int(s) for s in sizes]
    if sum(sizes) != len(series) or min(sizes) < 1:
        raise DataError(
            f"cluster sizes {sizes} must be positive and sum to the {len(series)} names",
            column="sizes",
        )
    labels = list(labels) if labels is not None else [f"cluster {k + 1}" for k in range(len(sizes))]
    if len(labels) != len(sizes):
        raise DataError(f"{len(labels)} labels for {len(sizes)} clusters", column="labels")
    out, start = {}, 0
    for size, label in zip(sizes, labels, strict=True):
        for name in series.index[start : start + size]:
            out[str(name)] = label
        start += size
    return out


@dataclass(frozen=True, repr=False)
class ClusterCorrelations(ResultDisplay):
    """Correlation of Consistency with Elo within clusters of judges (Appendix A.3).

    Attributes
    ----------
    labels
        Cluster labels, in the order first seen.
    members
        Judges of each cluster.
    pearson, spearman
        Per cluster (NaN for clusters of fewer than 3 judges).
    """

    labels: tuple[str, ...]
    members: tuple[tuple[str, ...], ...]
    pearson: np.ndarray
    spearman: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "cluster": self.labels,
                "n_judges": [len(m) for m in self.members],
                "pearson": self.pearson,
                "spearman": self.spearman,
                "judges": [", ".join(m) for m in self.members],
            }
        )

    def _headline(self) -> str:
        rs = ", ".join(
            f"{label} {r:.2f}" for label, r in zip(self.labels[:6], self.pearson, strict=False)
        )
        more = ", …" if len(self.labels) > 6 else ""
        return (
            f"{len(self.labels)} clusters, {sum(len(m) for m in self.members)} judges; "
            f"Pearson r within clusters: {rs}{more}"
        )

    def __str__(self) -> str:
        frame = self.to_frame().drop(columns="judges")
        return "Consistency vs Elo within clusters of judges\n" + frame.to_string(
            index=False, float_format="{:.3f}".format
        )


def cluster_correlations(
    result: JudgeConsistency | Mapping[str, float] | pd.Series,
    judge_elo: Mapping[str, float] | pd.Series,
    clusters: Mapping[str, str],
) -> ClusterCorrelations:
    """Pearson and Spearman correlation with Elo inside each cluster (Appendix A.3).

    Parameters
    ----------
    result
        Consistency scores.
    judge_elo
        Arena Elo of the judges.
    clusters
        ``{judge: cluster label}`` for every judge of ``result`` (see
        :func:`rank_clusters`).

    Returns
    -------
    ClusterCorrelations
    """
    judges, c = judge_values(result)
    missing = [j for j in judges if j not in clusters]
    unknown = [j for j in clusters if j not in judges]
    if missing or unknown:
        raise DataError(
            f"clusters must assign exactly the scored judges (no cluster for "
            f"{missing[:3]}, unknown judges {unknown[:3]})",
            column="clusters",
        )
    e = elo_vector(judge_elo, judges, "judge")
    labels = tuple(dict.fromkeys(clusters[j] for j in judges))
    members, pearson, spearman = [], [], []
    for label in labels:
        idx = [k for k, j in enumerate(judges) if clusters[j] == label]
        members.append(tuple(judges[k] for k in idx))
        if len(idx) >= 3 and np.ptp(c[idx]) > 0 and np.ptp(e[idx]) > 0:
            pearson.append(pearson_r(c[idx], e[idx]))
            spearman.append(spearman_rho(c[idx], e[idx]))
        else:
            pearson.append(math.nan)
            spearman.append(math.nan)
    return ClusterCorrelations(
        labels=labels,
        members=tuple(members),
        pearson=np.array(pearson),
        spearman=np.array(spearman),
    )
