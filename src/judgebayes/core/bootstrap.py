"""Battle-level bootstrap of Bradley–Terry Elo ratings, vectorised over replicates.

A battle bootstrap resamples battles with replacement. Battles that share a pair,
a target and a weight are interchangeable, so resampling battles is the same as
drawing new *cell counts* (:class:`~judgebayes.core.pairs.PairStats` cells):

* ``scheme="poisson"``: every battle gets an independent Poisson(1) weight, so a
  cell of multiplicity c gets a Poisson(c) count (the Poisson bootstrap);
* ``scheme="multinomial"``: the classical bootstrap, N draws from the N battles,
  i.e. cell counts ~ Multinomial(N, c / N).

Drawing per-cell (hence per-pair) counts instead of per-battle weights is exact for
battle-level resampling whenever battles are exchangeable within a pair — the BT
likelihood sees a battle only through its pair, target and weight — so the statistics
streamed from a file (:func:`~judgebayes.core.stream.scan_pairs`) bootstrap exactly like
the battles themselves, without the battles. The Poisson(c) counts of cells with
c ≤ 1,000 battles are drawn by inversion of the Poisson CDF through a guide table (one
uniform per draw; exact up to the uniforms' 2⁻⁵³ resolution; faster than NumPy's
rejection sampler, ``docs/benchmarks.md``), larger cells by NumPy's sampler.

``within=model`` resamples only that model's battles and keeps the rest as they
are (the within-model bootstrap of Kargi & Salinas (*From Uncertain Judgments to Calibrated
Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221), Section 3.3, used
for SE_i in Eq. 3).

Each replicate's MAP (Eq. 1) is found by a batched chord-Newton iteration that
reuses the Cholesky factor of the full-data Hessian for all replicates: one
triangular solve per iteration for the whole batch instead of one factorisation
per replicate (a JAX-jitted version of the same loop was no faster on 2 CPU
cores: the work is memory-bound gathers over pairs). Replicates that have not
converged after a few dozen iterations are finished by an exact Newton solve.
No library offers this batched solve for pair-aggregated BT, so it is written here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Literal

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse import csr_matrix
from scipy.special import expit, ndtr
from tqdm.auto import tqdm

from judgebayes._stats import poisson_cdf
from judgebayes.core.battles import Battles
from judgebayes.core.board import Differences, EloBoard
from judgebayes.core.bt import (
    EloFit,
    Ties,
    anchor_theta,
    as_clustered_stats,
    bt_objective,
    fit_bt,
    solve_map,
    theta_to_elo,
)
from judgebayes.core.clusters import Clusters
from judgebayes.core.davidson import solve_davidson_columns
from judgebayes.core.pairs import PairStats
from judgebayes.core.pinning import held_models
from judgebayes.core.ranksets import RankSets, rank_sets
from judgebayes.core.sandwich import design_effect
from judgebayes.errors import DataError

if TYPE_CHECKING:
    pass

__all__ = ["BootstrapElo", "CellResampler", "bootstrap_bt", "pair_incidence", "solve_batched"]

Scheme = Literal["poisson", "multinomial"]
_TABLE_MAX = 1000  # Poisson means drawn by table inversion (larger: NumPy's sampler)
_TABLE_BITS = 12  # guide-table bins per mean: 2**12, indexed by a draw's top random bits
_TABLE_BINS = 1 << _TABLE_BITS
# Chord steps stop below 1e-6 (θ): the chord contracts ~20× per step at 10^6 battles, so
# a replicate is then within ~1e-7 of its exact MAP (2e-5 Elo), two steps fewer than 1e-8.
_TOL = 1e-6


@dataclass(frozen=True, repr=False)
class BootstrapElo(EloBoard):
    """Elo ratings with bootstrap percentile intervals.

    Attributes
    ----------
    fit
        The full-data MAP fit (its Elo is the point estimate).
    replicates
        Elo of every model in every replicate, shape ``(n_boot, n_models)``.
    alpha
        Intervals are central ``1 - alpha`` percentile intervals.
    scheme
        ``"poisson"`` or ``"multinomial"``.
    within
        The model whose battles alone were resampled, or ``None``.
    seed
        The seed that produced the replicates.
    n_exact
        Replicates finished by the exact Newton fallback.
    cluster
        The column whose clusters (prompts) were resampled, or ``None`` (battles).
    n_clusters
        Number of clusters (``None`` without clusters).
    design_effect
        Per model, the clustered over the battle-level sandwich variance of its Elo
        (:func:`judgebayes.core.sandwich.design_effect`); ``None`` without clusters.
    stats
        The pair statistics of the fit (observed win rates).

    Notes
    -----
    Comparisons, all pairs, the win-rate matrix and the score against a baseline come
    from :class:`~judgebayes.core.board.EloBoard`, on the replicates: percentile intervals
    of Elo differences, and the share of replicates at or below a value as a p-value.
    """

    fit: EloFit
    replicates: np.ndarray
    alpha: float
    scheme: str
    within: str | None
    seed: int
    n_exact: int
    cluster: str | None = None
    n_clusters: int | None = None
    design_effect: np.ndarray | None = None
    stats: PairStats | None = None

    @property
    def se(self) -> np.ndarray:
        """Bootstrap standard error of each model's Elo."""
        return self.replicates.std(axis=0, ddof=1)

    @property
    def elo_lo(self) -> np.ndarray:
        return np.quantile(self.replicates, self.alpha / 2, axis=0)

    @property
    def elo_hi(self) -> np.ndarray:
        return np.quantile(self.replicates, 1 - self.alpha / 2, axis=0)

    def _resampled(self) -> str:
        """What a replicate resamples, in words."""
        if self.within:
            return f"within-model ({self.within})"
        if self.cluster is None:
            return "battle"
        return (
            f"cluster ({self.n_clusters:,} {self.cluster} clusters, design effect "
            f"{self.median_design_effect:.2f})"
        )

    def _headline(self) -> str:
        top = int(np.argmax(self.elo))
        tiers = self.rank_sets.n_tiers
        return (
            f"{len(self.models)} models, {self.replicates.shape[0]:,} {self.scheme} "
            f"replicates ({self._resampled()}), {1 - self.alpha:.0%} intervals; top "
            f"{self.models[top]} {self.elo[top]:.0f} [{self.elo_lo[top]:.0f}, "
            f"{self.elo_hi[top]:.0f}]; median SE {np.median(self.se):.1f} Elo; "
            f"{tiers} tier{'s' if tiers > 1 else ''}"
        )

    @cached_property
    def rank_sets(self) -> RankSets:
        """Simultaneous ``1 - alpha`` rank-sets and tiers from the replicates (max-|t| on
        Elo differences, :func:`judgebayes.core.ranksets.rank_sets`)."""
        return rank_sets(self.replicates, models=self.models, estimate=self.elo, alpha=self.alpha)

    def _differences(self, i: np.ndarray, j: np.ndarray, rope: float) -> Differences:
        """Elo_i − Elo_j on the replicates: percentile intervals, bootstrap standard errors,
        and p-values from z = (ΔElo − null) / SE (a share of replicates cannot go below
        1 / (n_boot + 1), too coarse for Holm over many pairs)."""
        estimate = self.elo[i] - self.elo[j]
        parts: list[tuple[np.ndarray, ...]] = []
        for start in range(0, len(i), 2048):  # a block of pairs × replicates at a time
            rows = slice(start, start + 2048)
            diff = self.replicates[:, i[rows]] - self.replicates[:, j[rows]]
            parts.append(
                (
                    diff.std(axis=0, ddof=1),
                    np.quantile(diff, self.alpha / 2, axis=0),
                    np.quantile(diff, 1 - self.alpha / 2, axis=0),
                    (diff > 0).mean(axis=0),
                )
            )
        se, lower, upper, ahead = (np.concatenate(c) for c in zip(*parts, strict=True))
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(se > 0, estimate / se, np.sign(estimate) * np.inf)
            z_rope = np.where(se > 0, (estimate - rope) / se, np.sign(estimate - rope) * np.inf)
        return Differences(estimate, se, lower, upper, ndtr(-z_rope), 2 * ndtr(-np.abs(z)), ahead)

    def _pair_stats(self) -> PairStats:
        if self.stats is None:
            raise ValueError("this board keeps no pair statistics")
        return self.stats

    def __str__(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        head = (
            f"{self.fit.model_name} Elo on {self.fit.target!r} (λ = {self.fit.lam:g}) with {level} "
            f"{self._resampled()} bootstrap intervals ({len(self.replicates)} {self.scheme} "
            f"replicates); {self.fit.report}"
        )
        notes = "".join(f"\nnote: {line}" for line in self.fit.graph.describe())
        return head + notes + "\n" + self.to_frame().to_string(index=False, float_format="%.1f")


def pair_incidence(stats: PairStats) -> csr_matrix:
    """Sparse (n_models × n_pairs) matrix with +1 at (i, p) and −1 at (j, p)."""
    p = np.arange(stats.n_pairs)
    data = np.concatenate([np.ones(stats.n_pairs), -np.ones(stats.n_pairs)])
    return csr_matrix(
        (data, (np.concatenate([stats.i, stats.j]), np.concatenate([p, p]))),
        shape=(stats.n_models, stats.n_pairs),
    )


def _chord_factor(
    stats: PairStats,
    lam: float,
    theta_hat: np.ndarray,
    free: np.ndarray,
) -> tuple:
    """Cholesky factor of the full-data Hessian over the free models (the chord matrix)."""
    return cho_factor(bt_objective(theta_hat, stats, lam)[2][np.ix_(free, free)])


def _table_width(c: int) -> int:
    """Support 0..W−1 of the Poisson(c) table: beyond it the CDF is 1.0 in float64."""
    return int(c + 13 * np.sqrt(c) + 40)


_POISSON_ROWS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _poisson_rows(values: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """CDF row (on 0..W_c−1, the last entry set to 1) and guide row of each integer mean.

    Kept between calls (at most ``_TABLE_MAX`` + 1 rows, ≈ 20 MB in all): the held-out
    protocol builds a sampler for every model and method, each with its own few dozen
    means, and ``scipy.stats.poisson.cdf`` costs more than the draws. A row computed at
    its own width W_c equals the row of a wider table (the CDF is exactly 1.0 in float64
    from W_c − 2 on, for every mean up to ``_TABLE_MAX``), so the draws are unchanged.
    """
    missing = sorted({int(c) for c in values} - _POISSON_ROWS.keys())
    if missing:
        means = np.asarray(missing, dtype=float)
        cdf = poisson_cdf(np.arange(_table_width(missing[-1]))[None, :], means[:, None])
        grid = np.arange(_TABLE_BINS + 1) / _TABLE_BINS
        for c, full in zip(missing, cdf, strict=True):
            row = full[: _table_width(c)].copy()
            row[-1] = 1.0
            guide = np.searchsorted(row, grid, side="right")
            guide = np.where(guide[:-1] == guide[1:], guide[:-1], -guide[:-1] - 1)
            _POISSON_ROWS[c] = (row, guide.astype(np.int16))
    return [_POISSON_ROWS[int(c)] for c in values]


class _PoissonCounts:
    """Independent Poisson(c_k) draws for integer means c_k, by guide-table inversion.

    For each distinct c ≤ ``_TABLE_MAX``: the CDF F_c on 0..W−1 (F_c(W − 1) := 1; the
    mass beyond, < 1e-30, is lumped there) and a guide table G_c[k] = min{x : F_c(x) >
    k/K}. A uniform u in bin k = ⌊uK⌋ has its draw min{x : F_c(x) > u} in
    [G_c[k], G_c[k + 1]]: that is G_c[k] when both ends agree (stored as is), else the
    search steps up from G_c[k] while F_c(x) ≤ u (stored as −G_c[k] − 1, a few per cent
    of the bins). Exact up to the uniforms' resolution; larger means use NumPy.
    """

    def __init__(self, lam: np.ndarray) -> None:
        lam = np.asarray(lam, dtype=float)
        self.n = len(lam)
        self.table = np.flatnonzero((lam <= _TABLE_MAX) & (lam == np.round(lam)))
        self.other = np.setdiff1d(np.arange(self.n), self.table)
        self.lam_other = lam[self.other]
        if len(self.table) == 0:
            return
        values, group = np.unique(lam[self.table], return_inverse=True)
        rows = _poisson_rows(values.astype(np.int64))
        width = _table_width(int(values.max()))
        cdf = np.ones((len(values), width))  # each row is exactly 1.0 beyond its own width
        for row, (f, _) in zip(cdf, rows, strict=True):
            row[: len(f)] = f
        self.cdf = cdf.ravel()
        self.guide = np.concatenate([g for _, g in rows])
        self.width = width
        self.group = group.astype(np.intp)
        self.guide_base = self.group * _TABLE_BINS

    def draw(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Counts of shape ``(n, size)`` (one column per replicate).

        The uniform of a draw is u = (b >> 11)·2⁻⁵³ of 64 random bits b (NumPy's
        ``random()``), so its bin ⌊uK⌋ is the top 12 bits, b >> 52; u itself is formed
        only for the few draws that need the search.
        """
        out = np.empty((self.n, size))
        if len(self.table):
            bits = rng.bit_generator.random_raw((len(self.table), size))
            k = (bits >> np.uint64(64 - _TABLE_BITS)).view(np.int64)
            k += self.guide_base[:, None]
            x = self.guide[k].ravel()
            search = np.flatnonzero(x < 0)
            if len(search):
                start = self.group[search // size] * self.width
                xs = -x[search].astype(np.intp) - 1
                us = (bits.ravel()[search] >> np.uint64(11)) * 2.0**-53
                step = np.flatnonzero(self.cdf[start + xs] <= us)
                while len(step):
                    xs[step] += 1
                    step = step[self.cdf[start[step] + xs[step]] <= us[step]]
                x[search] = xs
            if len(self.table) == self.n:
                out[...] = x.reshape(-1, size)
            else:
                out[self.table] = x.reshape(-1, size)
        if len(self.other):
            out[self.other] = rng.poisson(self.lam_other[:, None], size=(len(self.other), size))
        return out


def solve_batched(
    stats: PairStats,
    lam: float,
    theta_hat: np.ndarray,
    free: np.ndarray,
    n: np.ndarray,
    y: np.ndarray,
    *,
    tol: float = 1e-8,
    chord_iter: int = 40,
    chol: tuple | None = None,
    inc: csr_matrix | None = None,
) -> tuple[np.ndarray, int]:
    """MAPs of Eq. 1 for a batch of pair statistics ``n, y`` of shape ``(R, n_pairs)``.

    Chord Newton from ``theta_hat`` with the Hessian fixed at ``theta_hat`` on the
    full data (one Cholesky factor for the whole batch), then an exact Newton
    solve for the replicates that have not converged after ``chord_iter``
    iterations. Models outside ``free`` keep their value in ``theta_hat``.
    Returns the strengths ``(R, n_models)`` and the number of exact solves. ``chol``
    (that factor) and ``inc`` (:func:`pair_incidence`) may be passed in, to share them
    between batches.
    """
    return _solve_columns(
        stats,
        lam,
        theta_hat,
        free,
        np.ascontiguousarray(n.T),
        np.ascontiguousarray(y.T),
        tol=tol,
        chord_iter=chord_iter,
        chol=_chord_factor(stats, lam, theta_hat, free) if chol is None else chol,
        inc=pair_incidence(stats) if inc is None else inc,
    )


def _solve_columns(
    stats: PairStats,
    lam: float,
    theta_hat: np.ndarray,
    free: np.ndarray,
    n: np.ndarray,
    y: np.ndarray,
    *,
    tol: float,
    chord_iter: int,
    chol: tuple,
    inc: csr_matrix,
) -> tuple[np.ndarray, int]:
    """:func:`solve_batched` with ``n, y`` of shape ``(n_pairs, R)``."""
    # Pairs × replicates layout: row gathers and the sparse product need no copies.
    theta = np.tile(np.asarray(theta_hat, dtype=float)[:, None], (1, n.shape[1]))
    n_act, y_act = n, y
    active = np.arange(n.shape[1])
    p_hat = expit(theta_hat[stats.i] - theta_hat[stats.j])[:, None]
    inc_t = inc.T.tocsr()
    for it in range(chord_iter):
        th = theta[:, active]
        if it == 0:  # every replicate starts at theta_hat: one p for all of them
            p = n_act * p_hat
        else:
            p = inc_t @ th  # θ_i − θ_j of every pair (a sparse product beats two gathers)
            expit(p, out=p)
            p *= n_act
        resid = np.subtract(y_act, p, out=p)
        grad = inc @ resid - 2.0 * lam * th  # gradient of the log posterior
        step = cho_solve(chol, grad[free])
        th[free] += step
        theta[:, active] = th
        going = np.abs(step).max(axis=0) > tol
        if not going.all():
            active, n_act, y_act = active[going], n_act[:, going], y_act[:, going]
        if len(active) == 0:
            break
    theta = np.ascontiguousarray(theta.T)
    fixed = {int(k): float(theta_hat[k]) for k in np.setdiff1d(np.arange(stats.n_models), free)}
    for row in active:
        theta[row], _ = solve_map(stats, lam, fixed, n[:, row], y[:, row], theta0=theta[row])
    return theta, len(active)


class CellResampler:
    """Bootstrap pair statistics, chunk by chunk: the draws of :func:`bootstrap_bt`.

    The ``n_boot`` replicates are cut into chunks of ``chunk_size``; chunk ``k`` draws
    its cell counts from its own stream (``default_rng(seed).spawn(n_chunks)[k]``), so
    the replicates do not depend on the order in which chunks are solved. Cells
    outside ``mask`` keep their counts (``within=model`` resamples that model's cells
    only). Every route that needs these replicates draws them here, so the fast
    held-out protocol (:func:`judgebayes.softelo.held_out.held_out_elo`) resamples
    exactly what ``bootstrap_bt(..., within=model)`` does.

    With ``clusters`` the resampled units are clusters, not battles: each cluster that
    holds a cell of ``mask`` gets a Poisson(1) weight (or a Multinomial count), and a
    cell's count in the replicate is Σ_c weight_c · (its battles in cluster c), one sparse
    product per chunk (:class:`~judgebayes.core.clusters.Clusters`). Clusters with the same
    battles are merged first (:meth:`~judgebayes.core.clusters.Clusters.distinct`): k of
    them share one Poisson(k) weight, the same distribution with fewer draws.

    Parameters
    ----------
    stats
        The pair statistics to resample.
    mask
        Cells to resample (boolean over cells).
    n_boot, seed, scheme, chunk_size
        As for :func:`bootstrap_bt`.
    clusters
        Resample these clusters of battles instead of battles.
    """

    def __init__(
        self,
        stats: PairStats,
        mask: np.ndarray,
        *,
        n_boot: int,
        seed: int,
        scheme: Scheme = "poisson",
        chunk_size: int = 50,
        clusters: Clusters | None = None,
    ) -> None:
        self.base = stats.cell_count
        self.mask = np.asarray(mask, dtype=bool)
        self.sizes = [min(chunk_size, n_boot - s) for s in range(0, n_boot, chunk_size)]
        self.rngs = np.random.default_rng(seed).spawn(len(self.sizes))
        self.units: csr_matrix | None = None
        if clusters is None:  # battles: a cell of c battles gets a Poisson(c) count
            self.lam_cells = self.base[self.mask]
        else:  # clusters holding a resampled cell, equal ones merged: Poisson(multiplicity)
            self.units, self.lam_cells = clusters.distinct(self.mask)
        self.total = round(float(self.lam_cells.sum()))
        self.sampler = _PoissonCounts(self.lam_cells) if scheme == "poisson" else None
        # cells -> pairs: n = Σ count·weight and y = Σ count·weight·target per pair. Cells
        # are sorted by pair, so the CSR arrays are written directly (no COO sort).
        cells = np.arange(len(self.base))
        indptr = np.searchsorted(stats.cell_pair, np.arange(stats.n_pairs + 1))
        shape = (stats.n_pairs, len(self.base))
        self.to_n = csr_matrix((stats.cell_weight, cells, indptr), shape=shape)
        self.to_y = csr_matrix((stats.cell_weight * stats.cell_target, cells, indptr), shape=shape)
        # weighted ties per pair (Davidson's T): the cells with target ½
        tie_weight = np.where(stats.cell_target == 0.5, stats.cell_weight, 0.0)
        self.to_t = csr_matrix((tie_weight, cells, indptr), shape=shape)
        if self.units is not None:  # per-pair sums of each unit, and of the cells held fixed
            held = np.where(self.mask, 0.0, self.base)
            self.unit_sums = [(to[:, self.mask] @ self.units).tocsr() for to in self._to]
            self.rest_sums = [(to @ held)[:, None] for to in self._to]

    @property
    def _to(self) -> tuple[csr_matrix, csr_matrix, csr_matrix]:
        return self.to_n, self.to_y, self.to_t

    def _draw(self, k: int) -> np.ndarray:
        """Counts (or cluster weights) of the resampled units of chunk ``k``."""
        rng, r = self.rngs[k], self.sizes[k]
        if self.sampler is not None:
            return self.sampler.draw(rng, r)
        return rng.multinomial(self.total, self.lam_cells / self.lam_cells.sum(), size=r).T

    def counts(self, k: int) -> np.ndarray:
        """Cell counts of chunk ``k``, shape ``(n_cells, sizes[k])``."""
        drawn = self._draw(k)
        if self.units is not None:
            drawn = np.asarray(self.units @ drawn)
        if self.mask.all():
            return drawn
        counts = np.repeat(self.base[:, None], self.sizes[k], axis=1)
        counts[self.mask] = drawn
        return counts

    def _sums(self, k: int, how_many: int) -> list[np.ndarray]:
        """The first ``how_many`` of (n, y, T) per pair for chunk ``k``."""
        if self.units is None:
            counts = self.counts(k)
            return [to @ counts for to in self._to[:how_many]]
        # clusters: straight from the units' per-pair sums (no cell counts in between)
        drawn = self._draw(k)
        return [
            unit @ drawn + rest
            for unit, rest in zip(self.unit_sums[:how_many], self.rest_sums, strict=False)
        ]

    def pair_sums(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(n, y)`` of chunk ``k``'s replicates, each of shape ``(n_pairs, sizes[k])``."""
        n, y = self._sums(k, 2)
        return n, y

    def pair_and_tie_sums(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(n, y, T)`` of chunk ``k``'s replicates: T the weighted ties of every pair
        (Davidson's statistic), from the same draws as :meth:`pair_sums`."""
        n, y, t = self._sums(k, 3)
        return n, y, t

    def all_pair_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """``(n, y)`` of all ``n_boot`` replicates, shape ``(n_pairs, n_boot)``."""
        parts = [self.pair_sums(k) for k in range(len(self.sizes))]
        return (
            np.concatenate([p[0] for p in parts], axis=1),
            np.concatenate([p[1] for p in parts], axis=1),
        )


def one_blas_thread() -> AbstractContextManager:
    """BLAS on one thread while the replicates run on one thread per core.

    A multithreaded BLAS inside each worker thread oversubscribes the cores: the small
    triangular solves then spin (``docs/benchmarks.md``).
    Uses ``threadpoolctl`` when it is installed (scikit-learn brings it), else nothing.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return nullcontext()
    return threadpool_limits(1, user_api="blas")


def bootstrap_bt(
    data: Battles | PairStats,
    *,
    target: str | np.ndarray | None = None,
    lam: float = 0.01,
    weights: str | np.ndarray | None = None,
    fixed: Mapping[str, float] | None = None,
    within: str | None = None,
    cluster: str | np.ndarray | None = "auto",
    ties: Ties = "half",
    n_boot: int = 1000,
    alpha: float = 0.05,
    scheme: Scheme = "poisson",
    seed: int = 0,
    progress: bool = True,
    chunk_size: int = 50,
    n_threads: int | None = None,
) -> BootstrapElo:
    """Bootstrap the Bradley–Terry Elo ratings of :func:`~judgebayes.core.bt.fit_bt`.

    Parameters
    ----------
    data, target, lam, weights, fixed
        As for :func:`~judgebayes.core.bt.fit_bt`.
    within
        Resample only this model's battles (Kargi & Salinas's (2026) within-model bootstrap);
        ``None`` resamples all battles.
    cluster
        Resample clusters of battles, not battles: ``"auto"`` (default) clusters by
        ``prompt_id`` when the battles have that column (the games of one prompt are
        correlated: several judges, both orders), a column name or one label per battle
        clusters by it, ``None`` resamples battles. Pair statistics carry no clusters.
        The result reports the number of clusters and the design effect. Clusters of one
        battle each are resampled as battles (the same distribution).
    ties
        ``"half"`` (default): a tie is half a win; ``"davidson"``: Davidson's tie model,
        every replicate refitted in (θ, log ν) (:mod:`judgebayes.core.davidson`).
    n_boot
        Number of replicates (Kargi & Salinas (2026) use 20 for SE_i; 1000 for intervals).
    alpha
        Percentile intervals have level ``1 - alpha``.
    scheme
        ``"poisson"`` (default) or ``"multinomial"`` resampling of battles.
    seed
        Seed of the replicates. The same ``seed`` and ``chunk_size`` give the same
        replicates whatever ``n_threads`` is (each chunk has its own stream).
    progress
        Show a progress bar.
    chunk_size
        Replicates solved together (memory ~ 3 × chunk_size × n_pairs floats).
    n_threads
        Worker threads (default: the number of CPU cores).

    Returns
    -------
    BootstrapElo
    """
    if scheme not in ("poisson", "multinomial"):
        raise ValueError(f"scheme must be 'poisson' or 'multinomial', got {scheme!r}")
    if n_boot < 2:
        raise ValueError("n_boot must be at least 2")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    stats, name, clusters = as_clustered_stats(data, target, weights, cluster)
    fit = replace(fit_bt(stats, lam=lam, fixed=fixed, ties=ties), target=name)
    fixed_theta = anchor_theta(stats, fixed)
    fitted = np.setdiff1d(np.arange(stats.n_models), sorted(fixed_theta))  # not anchors
    free = np.setdiff1d(np.arange(stats.n_models), held_models(lam, fixed_theta))
    if within is not None:
        if within not in stats.models:
            raise DataError(
                f"unknown model {within!r} for the within-model bootstrap",
                expected=f"one of the {stats.n_models} models",
            )
        mask = stats.involving(stats.models.index(within))
    else:
        mask = np.ones(len(stats.cell_count), dtype=bool)
    resampler = CellResampler(
        stats,
        mask,
        n_boot=n_boot,
        seed=seed,
        scheme=scheme,
        chunk_size=chunk_size,
        clusters=None if clusters is None or clusters.singletons else clusters,
    )
    sizes = resampler.sizes
    shared = {"inc": pair_incidence(stats), "tol": _TOL, "chord_iter": 40}

    def run(k: int) -> tuple[np.ndarray, int]:
        if fit.davidson:
            n, y, t = resampler.pair_and_tie_sums(k)
            theta, _, n_exact = solve_davidson_columns(
                stats, lam, fit.theta, fit.kappa, free, n, y, t, inc=shared["inc"], tol=_TOL
            )
        else:
            n, y = resampler.pair_sums(k)
            theta, n_exact = _solve_columns(stats, lam, fit.theta, free, n, y, **shared)
        if lam == 0 and not fixed_theta:
            theta -= theta.mean(axis=1, keepdims=True)
        return np.asarray(theta_to_elo(theta)), n_exact

    workers = n_threads or min(os.cpu_count() or 1, len(sizes))
    results: list[tuple[np.ndarray, int]] = []
    with (
        tqdm(total=n_boot, desc="bootstrap", unit="rep", disable=not progress) as bar,
        one_blas_thread(),
        ThreadPoolExecutor(max_workers=workers) as pool,
    ):
        if not fit.davidson:
            shared["chol"] = _chord_factor(stats, lam, fit.theta, free)
        for out in pool.map(run, range(len(sizes))):
            results.append(out)
            bar.update(len(out[0]))
    replicates = np.concatenate([r[0] for r in results])
    return BootstrapElo(
        fit=fit,
        replicates=replicates,
        alpha=alpha,
        scheme=scheme,
        within=within,
        seed=seed,
        n_exact=sum(r[1] for r in results),
        cluster=None if clusters is None else clusters.column,
        n_clusters=None if clusters is None else clusters.n_clusters,
        design_effect=None
        if clusters is None
        else design_effect(stats, fit.theta, lam, clusters, free=fitted, kappa=fit.kappa),
        stats=stats,
    )
