"""The UDA feature vector φ_ij^(k) of Zhang, Wang, Wu, Yu, Wang, Bao & Tang (*UDA: Unsupervised
Debiasing Alignment for Pair-wise LLM-as-a-Judge*, 2025, arXiv:2508.09724), Algorithm 1.

From the embeddings of the two answers, e_i and e_j, and of the judge's own answer to
the same prompt, e_k (all in R^D), Algorithm 1 builds six D-vectors and nine scalars:

* |e_i − e_j|, |e_i − e_k|, |e_j − e_k| (lines 3–5);
* e_i ⊙ e_j / (n_i n_j + ε), e_i ⊙ e_k / (n_i n_k + ε), e_j ⊙ e_k / (n_j n_k + ε) (lines 6–9);
* cos(e_i, e_j), cos(e_i, e_k), cos(e_j, e_k) (line 11);
* KL(p_j ‖ p_i), KL(p_i ‖ p_k), KL(p_j ‖ p_k), p = softmax(e) (lines 12–13);
* |n_i − n_j|, |n_i − n_k|, |n_j − n_k|, n = ‖e‖₂ (line 14);

concatenated in that order (lines 16–19): φ ∈ R^{6D+9}. The ablation of Table 3 drops
every feature that involves e_k, leaving R^{2D+3} (the paper's 4617 → 1539 for D = 768).

The features are not differentiated (only the adapter f_θ is trained), so they are
computed once, in NumPy.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax

__all__ = ["feature_dim", "uda_features"]

EPS = 1e-8


def feature_dim(dim: int, *, self_features: bool = True) -> int:
    """Length of φ: 6D + 9 (Algorithm 1), or 2D + 3 without the judge-self features."""
    return 6 * dim + 9 if self_features else 2 * dim + 3


def uda_features(
    e_i: np.ndarray,
    e_j: np.ndarray,
    e_k: np.ndarray | None = None,
    *,
    self_features: bool = True,
    eps: float = EPS,
) -> np.ndarray:
    """Algorithm 1 of Zhang et al. (2025): the feature vector φ_ij^(k), for any leading batch shape.

    Parameters
    ----------
    e_i, e_j
        Embeddings of the two answers, shape ``(..., D)``.
    e_k
        Embedding of the judge's own answer, ``(..., D)`` (unused without self-features).
    self_features
        ``False``: the Table 3 ablation, without the features of e_k.
    eps
        The ε of lines 7–9 (also guards the cosines).

    Returns
    -------
    np.ndarray
        ``(..., 6D + 9)``, or ``(..., 2D + 3)`` for the ablation.
    """
    e_i, e_j = np.asarray(e_i), np.asarray(e_j)
    n_i, n_j = np.linalg.norm(e_i, axis=-1), np.linalg.norm(e_j, axis=-1)
    logp_i, logp_j = log_softmax(e_i, axis=-1), log_softmax(e_j, axis=-1)

    def prod(a: np.ndarray, b: np.ndarray, na: np.ndarray, nb: np.ndarray) -> np.ndarray:
        return a * b / (na * nb + eps)[..., None]

    def cos(a: np.ndarray, b: np.ndarray, na: np.ndarray, nb: np.ndarray) -> np.ndarray:
        return np.sum(a * b, axis=-1) / (na * nb + eps)

    def kl(logp: np.ndarray, logq: np.ndarray) -> np.ndarray:  # KL(p ‖ q)
        return np.sum(np.exp(logp) * (logp - logq), axis=-1)

    if not self_features:
        return np.concatenate(
            [
                np.abs(e_i - e_j),
                prod(e_i, e_j, n_i, n_j),
                np.stack([cos(e_i, e_j, n_i, n_j), kl(logp_j, logp_i), np.abs(n_i - n_j)], axis=-1),
            ],
            axis=-1,
        )
    if e_k is None:
        raise ValueError("the full feature vector needs the judge's own answer embedding e_k")
    e_k = np.asarray(e_k)
    n_k = np.linalg.norm(e_k, axis=-1)
    logp_k = log_softmax(e_k, axis=-1)
    scalars = np.stack(
        [
            cos(e_i, e_j, n_i, n_j),
            cos(e_i, e_k, n_i, n_k),
            cos(e_j, e_k, n_j, n_k),
            kl(logp_j, logp_i),
            kl(logp_i, logp_k),
            kl(logp_j, logp_k),
            np.abs(n_i - n_j),
            np.abs(n_i - n_k),
            np.abs(n_j - n_k),
        ],
        axis=-1,
    )
    return np.concatenate(
        [
            np.abs(e_i - e_j),
            np.abs(e_i - e_k),
            np.abs(e_j - e_k),
            prod(e_i, e_j, n_i, n_j),
            prod(e_i, e_k, n_i, n_k),
            prod(e_j, e_k, n_j, n_k),
            scalars,
        ],
        axis=-1,
    )
