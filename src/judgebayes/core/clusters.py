"""Battles grouped in clusters (prompts): the unit that clustered intervals resample.

Real judge data holds several games per prompt (several judges, both presentation orders,
several models against one anchor), and the games of one prompt are correlated: a prompt
suits some models more than others. Intervals that treat the games as independent are
then too narrow (Miller, *Adding Error Bars to Evals: A Statistical Approach to Language
Model Evaluations*, 2024, arXiv:2411.00640; the simulator
:func:`judgebayes.simulate_prompts` shows it). The cure is to resample, or sum scores over,
whole clusters.

Pair statistics (:class:`~judgebayes.core.pairs.PairStats`) forget which prompt a battle
came from; :class:`Clusters` keeps it as a sparse matrix of battle counts per (cell,
cluster). A cluster bootstrap replicate draws one weight per cluster, and the cell counts
of the replicate are that matrix times the weights, so everything downstream (pair sums,
the batched refit) is the battle bootstrap's, unchanged; its cost grows with the distinct
(cell, cluster) combinations, at most the number of battles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix

from judgebayes.core.pairs import PairStats
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

if TYPE_CHECKING:
    from judgebayes.core.battles import Battles

__all__ = ["BattleClusters", "Clusters", "battle_clusters", "resolve_clusters"]


@dataclass(frozen=True, repr=False)
class Clusters(ResultDisplay):
    """Cluster membership of the battles behind pair statistics.

    Attributes
    ----------
    stats
        The pair statistics of the clustered battles.
    column
        Where the labels came from (e.g. ``"prompt_id"``; ``"cluster"`` for an array).
    n_clusters
        Number of clusters.
    cell_counts
        Sparse ``(n_cells, n_clusters)`` matrix: battles of each cell in each cluster
        (its row sums are the statistics' ``cell_count``).
    sizes
        Battles per cluster.
    """

    stats: PairStats
    column: str
    n_clusters: int
    cell_counts: csr_matrix
    sizes: np.ndarray

    @classmethod
    def from_cells(
        cls, stats: PairStats, cell: np.ndarray, cluster: np.ndarray, *, column: str
    ) -> Clusters:
        """Clusters from each battle's cell (:meth:`PairStats.cell_index`) and cluster code.

        ``cluster`` holds integer codes 0..K−1 (e.g. from :func:`pandas.factorize`);
        codes that no battle uses are dropped.
        """
        used, code = np.unique(np.asarray(cluster), return_inverse=True)
        counts = csr_matrix(
            (np.ones(len(cell)), (np.asarray(cell), code)),
            shape=(len(stats.cell_pair), len(used)),
        )
        counts.sum_duplicates()
        sizes = np.bincount(code, minlength=len(used)).astype(np.int64)
        return cls(
            stats=stats, column=column, n_clusters=len(used), cell_counts=counts, sizes=sizes
        )

    @property
    def n_battles(self) -> int:
        return int(self.sizes.sum())

    @property
    def singletons(self) -> bool:
        """Every cluster holds one battle: resampling clusters is resampling battles."""
        return bool(np.all(self.sizes == 1))

    def distinct(self, rows: np.ndarray | None = None) -> tuple[csr_matrix, np.ndarray]:
        """Clusters with the same battles per cell, merged: ``(units, multiplicity)``.

        Two clusters with equal columns of :attr:`cell_counts` are interchangeable in a
        bootstrap: the sum of k independent Poisson(1) weights is one Poisson(k) weight,
        and a Multinomial over clusters sums to one over the merged units. ``units`` is the
        sparse ``(n_rows, n_units)`` matrix of the distinct columns (restricted to cells
        ``rows`` when given, dropping clusters with no battle there) and ``multiplicity``
        how many clusters each stands for. On 6 games per prompt this merges 166,667
        prompts of 200 models into 91,889 units, 2,000 prompts of 20 models into 1,007.
        """
        counts = self.cell_counts if rows is None else self.cell_counts[rows]
        csc = counts.tocsc()
        csc.sort_indices()
        nnz = np.diff(csc.indptr)
        keep = np.flatnonzero(nnz)
        nnz, starts = nnz[keep], csc.indptr[:-1][keep]
        width = int(nnz.max())
        if width <= 16:  # one padded row of (cell, count) per cluster, merged by np.unique
            padded = np.full((len(keep), 2 * width), -1.0)
            for k in range(width):
                has = np.flatnonzero(nnz > k)
                padded[has, 2 * k] = csc.indices[starts[has] + k]
                padded[has, 2 * k + 1] = csc.data[starts[has] + k]
            _, first, group = np.unique(padded, axis=0, return_index=True, return_inverse=True)
        else:  # wide clusters (many models per prompt): a byte key per cluster
            keys = [
                csc.indices[s : s + n].tobytes() + csc.data[s : s + n].tobytes()
                for s, n in zip(starts, nnz, strict=True)
            ]
            group, uniques = pd.factorize(pd.Series(keys))
            first = np.full(len(uniques), len(keys))
            np.minimum.at(first, group, np.arange(len(keys)))
        group = np.asarray(group).ravel()
        multiplicity = np.bincount(group, minlength=len(first)).astype(float)
        return csc[:, keep[first]].tocsr(), multiplicity

    def pair_sums(self) -> tuple[csr_matrix, csr_matrix]:
        """Weight ``n_pc`` and summed target ``y_pc`` of every (pair, cluster), sparse
        ``(n_pairs, n_clusters)``: the per-cluster pair statistics."""
        stats = self.stats
        cells = np.arange(len(stats.cell_pair))
        shape = (stats.n_pairs, len(cells))
        to_n = csr_matrix((stats.cell_weight, (stats.cell_pair, cells)), shape=shape)
        to_y = csr_matrix((stats.cell_weight * stats.cell_target, (stats.cell_pair, cells)), shape)
        return (to_n @ self.cell_counts).tocsr(), (to_y @ self.cell_counts).tocsr()

    def _headline(self) -> str:
        return (
            f"{self.n_clusters:,} clusters ({self.column}) of {self.n_battles:,} battles, "
            f"{self.n_battles / self.n_clusters:.1f} per cluster on average, "
            f"largest {int(self.sizes.max())}"
        )

    def to_frame(self) -> pd.DataFrame:
        """How many clusters have each size: ``size, n_clusters``."""
        size, count = np.unique(self.sizes, return_counts=True)
        return pd.DataFrame({"size": size, "n_clusters": count})


def resolve_clusters(
    data: Battles | PairStats,
    cluster: str | np.ndarray | None,
    target: str | np.ndarray | None,
    weights: str | np.ndarray | None,
) -> Clusters | None:
    """The clusters an interval should respect, or ``None`` for independent battles.

    ``cluster="auto"`` (the default of every board) clusters battles by ``prompt_id``
    when the table has that column, and treats them as independent otherwise (and for
    pair statistics, which carry no prompts). A column name or an array of labels
    clusters by it; ``None`` never clusters.
    """
    if cluster is None:
        return None
    auto = isinstance(cluster, str) and cluster == "auto"
    if isinstance(data, PairStats):
        if auto:
            return None
        raise DataError(
            "pair statistics carry no cluster labels; pass the battles (a Battles table) "
            "to cluster by prompt, or cluster=None",
            column=cluster if isinstance(cluster, str) else "cluster",
        )
    if auto:
        if "prompt_id" not in data:
            return None
        cluster = "prompt_id"
    return data.clusters(cluster, target, weights=weights)


@dataclass(frozen=True)
class BattleClusters:
    """The cluster of every battle a fit uses, for models fitted on battles, not cells.

    Attributes
    ----------
    codes
        Cluster code (0..K−1) of each used battle.
    column
        Where the labels came from.
    n_clusters
        K.
    """

    codes: np.ndarray
    column: str
    n_clusters: int

    def members(self) -> csr_matrix:
        """Sparse ``(n_clusters, n_battles)`` membership matrix (sums scores by cluster)."""
        n = len(self.codes)
        return csr_matrix((np.ones(n), (self.codes, np.arange(n))), shape=(self.n_clusters, n))


def battle_clusters(
    battles: Battles, cluster: str | np.ndarray | None, rows: np.ndarray
) -> BattleClusters | None:
    """The clusters of the battles ``rows`` (``cluster`` as for :func:`resolve_clusters`),
    or ``None`` for independent battles."""
    if cluster is None:
        return None
    if isinstance(cluster, str) and cluster == "auto":
        if "prompt_id" not in battles:
            return None
        cluster = "prompt_id"
    codes, column = battles.cluster_codes(cluster)
    codes = pd.factorize(codes[rows])[0]
    return BattleClusters(codes, column, int(codes.max()) + 1)
