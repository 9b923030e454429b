"""Tiers from rank-sets: groups of models that the rank-sets cannot order.

Models are taken best first (by their point estimate); the first model leads tier 1, and
a model opens a new tier when its best possible rank (``rank_lo``) lies below the worst
possible rank (``rank_hi``) of the current tier's leader, i.e. when their rank-sets do not
overlap. Every model of tier t + 1 is then surely ranked below tier t's leader.
"""

from __future__ import annotations

import numpy as np

__all__ = ["tiers_from_rank_sets"]


def tiers_from_rank_sets(
    estimate: np.ndarray, rank_lo: np.ndarray, rank_hi: np.ndarray
) -> np.ndarray:
    """Tier of every model (1 = top) from its rank-set ``[rank_lo, rank_hi]``.

    Parameters
    ----------
    estimate
        Point scores (higher is better), fixing the order models are visited in.
    rank_lo, rank_hi
        Simultaneous rank-sets (1 = best).

    Returns
    -------
    np.ndarray
        Integer tiers, shape ``(k,)``.
    """
    order = np.argsort(-np.asarray(estimate, dtype=float), kind="stable")
    tier = np.empty(len(order), dtype=np.int64)
    current, leader = 1, order[0] if len(order) else 0
    for m in order:
        if rank_lo[m] > rank_hi[leader]:
            current, leader = current + 1, m
        tier[m] = current
    return tier
