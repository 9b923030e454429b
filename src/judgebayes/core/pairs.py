"""Per-pair sufficient statistics for Bradley–Terry-type likelihoods.

The BT log-likelihood of Kargi & Salinas (*From Uncertain Judgments to Calibrated Rankings:
Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221), Eq. 1, depends on the battles
only through, for every unordered model pair (i, j), the total weight ``n_ij`` and the summed target
``y_ij = Σ w·P(i beats j)``:

    ℓ(θ) = Σ_pairs y_ij log σ(θ_i − θ_j) + (n_ij − y_ij) log σ(θ_j − θ_i).

Battles are aggregated once; every fit, bootstrap replicate and posterior then
costs O(pairs), not O(battles). For resampling we also keep the *cells*: the
distinct (pair, target, weight) combinations with their multiplicities. A
battle-level bootstrap is then a draw of cell counts, exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay

__all__ = ["PairStats", "oriented_target"]

_SNAP = 1e9  # grid of the oriented targets (see from_battles)

# Dense pair-key tables (bincount over n_models**2 bins) up to this size;
# beyond it keys are compressed with np.unique.
_DENSE_KEYS = 1 << 22


def oriented_target(a: np.ndarray, b: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Targets P(a beats b) turned into P(i beats j) of the pair (i, j) = (min, max), snapped.

    Snapped to a 1e-9 grid: a battle and its A/B swap (target 1 − t, equal to t only up
    to rounding in the last bits, e.g. σ(−βs) vs 1 − σ(βs)) fall into the same cell, so
    everything that draws per cell (the bootstraps) gives the same numbers whatever the
    row order or orientation. The snap moves an Elo by < 1e-6. Every route that sums
    targets per pair uses this, so they all see the same numbers.
    """
    target = np.asarray(target, dtype=float)
    return np.round(np.where(np.asarray(a) > np.asarray(b), 1.0 - target, target) * _SNAP) / _SNAP


@dataclass(frozen=True, repr=False)
class PairStats(ResultDisplay):
    """Sufficient statistics of one target over the model pairs.

    Attributes
    ----------
    models
        Model names; indices below refer to this tuple.
    i, j
        Model indices of each pair, ``i < j``.
    n
        Total battle weight of each pair.
    y
        Summed target of each pair, oriented to ``i``: Σ w·P(i beats j).
    cell_pair, cell_target, cell_weight, cell_count
        Distinct battles: pair index, target (oriented to ``i``), weight, and how
        many battles share them. ``n`` and ``y`` are their weighted sums.
    report
        Rows received and rows not used (e.g. missing target).

    Notes
    -----
    Cells are sorted by pair index and every pair has at least one cell (invariants
    :meth:`pair_sums` relies on).
    """

    models: tuple[str, ...]
    i: np.ndarray
    j: np.ndarray
    n: np.ndarray
    y: np.ndarray
    cell_pair: np.ndarray
    cell_target: np.ndarray
    cell_weight: np.ndarray
    cell_count: np.ndarray
    report: DropReport

    def _headline(self) -> str:
        return (
            f"{self.n_models} models, {self.n_pairs:,} pairs, {self.n_battles:,} battles "
            f"in {len(self.cell_pair):,} distinct cells; {self.report}"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: ``model_i, model_j, n, y, rate`` (rate = y / n, P(i beats j))."""
        names = np.asarray(self.models, dtype=object)
        return pd.DataFrame(
            {
                "model_i": names[self.i],
                "model_j": names[self.j],
                "n": self.n,
                "y": self.y,
                "rate": self.y / self.n,
            }
        )

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_pairs(self) -> int:
        return len(self.i)

    @property
    def n_battles(self) -> int:
        return int(self.cell_count.sum())

    def battles_per_model(self) -> np.ndarray:
        """Number of battles (not weight) each model took part in."""
        per_pair = np.bincount(self.cell_pair, self.cell_count, minlength=self.n_pairs)
        return (
            np.bincount(self.i, per_pair, minlength=self.n_models)
            + np.bincount(self.j, per_pair, minlength=self.n_models)
        ).astype(np.int64)

    def pair_sums(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(n, y)`` for cell counts ``counts`` of shape ``(..., n_cells)``.

        This is how a resampled data set (new cell counts) becomes new pair
        statistics; with ``counts = cell_count`` it gives back ``(n, y)``.
        """
        wn = np.array(counts, dtype=float)  # a fresh buffer, multiplied in place below
        if np.any(self.cell_weight != 1.0):
            wn *= self.cell_weight
        # Cells are sorted by pair and every pair has at least one cell, so each
        # pair's cells are one contiguous run starting at `starts`.
        starts = np.flatnonzero(np.r_[True, self.cell_pair[1:] != self.cell_pair[:-1]])
        n = np.add.reduceat(wn, starts, axis=-1)
        wn *= self.cell_target
        return n, np.add.reduceat(wn, starts, axis=-1)

    def locate(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pair index of each battle (a, b) and whether ``a`` is the pair's model ``i``.

        Every (a, b) must be a pair of these statistics; a target oriented to ``a``
        is oriented to ``i`` where the second array is true, else it is ``1 − target``.
        """
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        lo = np.minimum(a, b)
        key = lo * self.n_models + np.maximum(a, b)
        keys = self.i * self.n_models + self.j  # sorted, as built by from_battles
        idx = np.searchsorted(keys, key)
        if np.any(idx >= len(keys)) or np.any(keys[np.minimum(idx, len(keys) - 1)] != key):
            raise ValueError("some battles are between models that form no pair here")
        return idx, a == lo

    def cell_index(
        self,
        a: np.ndarray,
        b: np.ndarray,
        target: np.ndarray,
        weights: np.ndarray | None = None,
    ) -> np.ndarray:
        """The cell of each battle (a, b, target P(a beats b), weight) of these statistics.

        The battles must be the ones the statistics were built from (or some of them):
        every battle's (pair, oriented target, weight) is one cell. Cells and battles are
        sorted together by that key, cells first among equals; a battle's cell is then the
        last cell before it. This is how battles keep their membership of a cluster (a
        prompt) once aggregated (:mod:`judgebayes.core.clusters`).
        """
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        pair, _ = self.locate(a, b)
        t = oriented_target(a, b, target)
        codes, cell_codes = 2.0 * t, 2.0 * self.cell_target
        if (
            weights is None
            and np.all(self.cell_weight == 1.0)
            and np.all(codes == np.round(codes))
            and np.all(cell_codes == np.round(cell_codes))
        ):  # hard labels: the cells are sorted by the integer key pair·3 + 2t
            key = pair * 3 + codes.astype(np.int64)
            cell_keys = self.cell_pair * 3 + cell_codes.astype(np.int64)
            cell = np.minimum(np.searchsorted(cell_keys, key), len(cell_keys) - 1)
            if np.any(cell_keys[cell] != key):
                raise ValueError("some battles match no cell of these pair statistics")
            return cell
        w = np.ones(len(t)) if weights is None else np.asarray(weights, dtype=float)
        n_cells = len(self.cell_pair)
        keys_p = np.concatenate([self.cell_pair, pair])
        keys_t = np.concatenate([self.cell_target, t])
        keys_w = np.concatenate([self.cell_weight, w])
        is_battle = np.concatenate([np.zeros(n_cells, bool), np.ones(len(t), bool)])
        order = np.lexsort((is_battle, keys_w, keys_t, keys_p))
        last_cell = np.maximum.accumulate(np.where(order < n_cells, order, -1))
        battle = order >= n_cells
        cell = np.empty(len(t), dtype=np.int64)
        cell[order[battle] - n_cells] = last_cell[battle]
        found = cell >= 0
        found[found] = (
            (self.cell_pair[cell[found]] == pair[found])
            & (self.cell_target[cell[found]] == t[found])
            & (self.cell_weight[cell[found]] == w[found])
        )
        if not found.all():
            raise ValueError("some battles match no cell of these pair statistics")
        return cell

    def involving(self, model: int) -> np.ndarray:
        """Boolean mask over cells whose pair includes model index ``model``."""
        pair_mask = (self.i == model) | (self.j == model)
        return pair_mask[self.cell_pair]

    @classmethod
    def from_battles(
        cls,
        a: np.ndarray,
        b: np.ndarray,
        target: np.ndarray,
        models: tuple[str, ...],
        *,
        weights: np.ndarray | None = None,
        report: DropReport | None = None,
    ) -> PairStats:
        """Aggregate battles given as model-index arrays and targets P(a beats b)."""
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        target = np.asarray(target, dtype=float)
        m = len(models)
        swap = a > b
        lo = np.where(swap, b, a)
        hi = np.where(swap, a, b)
        t = oriented_target(a, b, target)
        key = lo * m + hi
        if m * m <= _DENSE_KEYS:
            used = np.bincount(key, minlength=m * m) > 0
            pair_keys = np.flatnonzero(used)
            lookup = np.cumsum(used) - 1
            pair_of = lookup[key]
        else:
            pair_keys, pair_of = np.unique(key, return_inverse=True)
        n_pairs = len(pair_keys)

        codes = t * 2.0
        hard = weights is None and np.all(codes == np.round(codes))
        if hard:
            # Hard labels (0, 0.5, 1) without weights: at most 3 cells per pair.
            cell_key = pair_of * 3 + codes.astype(np.int64)
            counts = np.bincount(cell_key, minlength=3 * n_pairs)
            cells = np.flatnonzero(counts)
            cell_pair = cells // 3
            cell_target = (cells % 3) / 2.0
            cell_weight = np.ones(len(cells))
            cell_count = counts[cells].astype(float)
        else:
            w = np.ones_like(t) if weights is None else np.asarray(weights, dtype=float)
            order = np.lexsort((w, t, pair_of))
            p_s, t_s, w_s = pair_of[order], t[order], w[order]
            new = np.ones(len(order), dtype=bool)
            new[1:] = (p_s[1:] != p_s[:-1]) | (t_s[1:] != t_s[:-1]) | (w_s[1:] != w_s[:-1])
            starts = np.flatnonzero(new)
            cell_pair, cell_target, cell_weight = p_s[starts], t_s[starts], w_s[starts]
            cell_count = np.diff(np.append(starts, len(order))).astype(float)
        n = np.bincount(cell_pair, cell_count * cell_weight, minlength=n_pairs)
        y = np.bincount(cell_pair, cell_count * cell_weight * cell_target, minlength=n_pairs)
        return cls(
            models=tuple(models),
            i=pair_keys // m,
            j=pair_keys % m,
            n=n,
            y=y,
            cell_pair=cell_pair,
            cell_target=cell_target,
            cell_weight=cell_weight,
            cell_count=cell_count,
            report=report if report is not None else DropReport(len(a)),
        )
