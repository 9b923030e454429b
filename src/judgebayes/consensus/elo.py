"""Per-judge ratings: the UDA paper's baseline online Elo (Eq. 1) and Bradley–Terry beside it.

Zhang, Wang, Wu, Yu, Wang, Bao & Tang, *UDA: Unsupervised Debiasing Alignment for Pair-wise
LLM-as-a-Judge* (2025, arXiv:2508.09724).

The baseline of Zhang et al. (2025) runs the classic online Elo update once per judge over that
judge's verdicts,

    R_i ← R_i + K (r_ij − p̂_ij),  R_j ← R_j − K (r_ij − p̂_ij),
    p̂_ij = 1 / (1 + 10^{−(R_i − R_j)/scale}),

with K = 32 (Eq. 1; the paper writes p̂ = σ(R_i − R_j), which is ``scale = ln 10``; its
ratings around 1200 are those of the usual ``scale = 400``). The result depends on the
order of the battles, so the order is an explicit argument. Every update moves the
two ratings by opposite amounts, so each judge's mean rating stays at ``initial`` in
every component of the comparison graph.

:func:`online_elo` is a plain Python loop on purpose: it is the reference the
differentiable ``lax.scan`` of :mod:`judgebayes.consensus.recursion` is tested against
(to 1e-9). :func:`bt_by_judge` fits the order-free Bradley–Terry MAP per judge
(:func:`judgebayes.core.bt.fit_bt`, Eq. 1 of Kargi & Salinas, *From Uncertain Judgments
to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Literal

import numpy as np

from judgebayes.consensus.ratings import JudgeRatings
from judgebayes.core.battles import Battles
from judgebayes.core.bt import fit_bt
from judgebayes.core.graph import check_graph
from judgebayes.errors import DataError, DisconnectedGraphWarning

__all__ = [
    "battle_components",
    "battle_order",
    "bt_by_judge",
    "elo_loop",
    "judge_sequences",
    "online_elo",
]

Order = Literal["given", "shuffle"] | Sequence[int] | np.ndarray | None

#: Zhang et al.'s (2025) baseline: K = 32; the rows of its Tables 5–7 average 1200.00 (to
#: rounding), the initial rating Algorithm 2's zero-sum updates preserve.
DEFAULT_K, DEFAULT_SCALE, DEFAULT_INITIAL = 32.0, 400.0, 1200.0


def battle_order(n: int, order: Order = None, seed: int = 0) -> np.ndarray:
    """The order in which ``n`` battles are played.

    Parameters
    ----------
    n
        Number of battles.
    order
        ``None`` or ``"given"``: as they are (file order); ``"shuffle"``: a random
        permutation drawn with ``seed``; or an explicit permutation of ``range(n)``.
    seed
        Seed of ``"shuffle"``.
    """
    if order is None or (isinstance(order, str) and order == "given"):
        return np.arange(n)
    if isinstance(order, str):
        if order != "shuffle":
            raise ValueError(f"order must be 'given', 'shuffle' or a permutation, got {order!r}")
        return np.random.default_rng(seed).permutation(n)
    perm = np.asarray(order)
    if (
        perm.shape != (n,)
        or not np.issubdtype(perm.dtype, np.integer)
        or not np.array_equal(np.sort(perm), np.arange(n))
    ):
        raise DataError(
            f"order is not a permutation of the {n} battles",
            expected=f"each of 0..{n - 1} exactly once",
        )
    return perm


def judge_sequences(
    battles: Battles, *, target: str = "judge_label", order: Order = None, seed: int = 0
) -> tuple[tuple[str, ...], list[np.ndarray]]:
    """Each judge's battles (row indices into ``battles``) in playing order.

    Battles whose ``target`` is missing are left out. Returns the judges and, per
    judge, the row indices of its battles in the order given by :func:`battle_order`.
    """
    judges = battles.judges
    if not judges:
        raise DataError(
            "battles need a 'judge' column: ratings are per judge",
            column="judge",
            expected="one judge name per battle (map one with --map THEIRS=judge)",
        )
    perm = battle_order(len(battles), order, seed)
    labels = battles.column(target).astype(float)[perm]
    judge_of = battles.column("judge")[perm]
    keep = np.isfinite(labels)
    return judges, [perm[keep & (judge_of == name)] for name in judges]


def elo_loop(
    i: Sequence[int],
    j: Sequence[int],
    r: Sequence[float],
    n_models: int,
    *,
    k: float | Sequence[float] = DEFAULT_K,
    scale: float = DEFAULT_SCALE,
    initial: float = DEFAULT_INITIAL,
) -> np.ndarray:
    """Online Elo (Zhang et al., 2025, Eq. 1; Algorithm 2 with per-battle K and soft label r) in
    Python.

    Parameters
    ----------
    i, j
        Model indices of each battle, in playing order.
    r
        Outcome for i: 1 win, 0 loss, ½ tie, or a soft label s_i ∈ [0, 1].
    n_models
        Number of models.
    k
        K-factor: one number, or one per battle (Algorithm 2's K_ij).
    scale, initial
        Logistic scale (400: p̂ = 1/(1 + 10^{−ΔR/400})) and starting rating.

    Returns
    -------
    numpy.ndarray
        Final ratings, shape ``(n_models,)``.
    """
    ratings = [float(initial)] * n_models
    ks = [float(k)] * len(r) if np.ndim(k) == 0 else [float(v) for v in k]
    for a, b, y, kk in zip(
        np.asarray(i).tolist(),
        np.asarray(j).tolist(),
        np.asarray(r, float).tolist(),
        ks,
        strict=True,
    ):
        p = 1.0 / (1.0 + math.pow(10.0, (ratings[b] - ratings[a]) / scale))
        step = kk * (y - p)
        ratings[a] += step
        ratings[b] -= step
    return np.asarray(ratings)


def battle_components(battles: Battles) -> tuple[int, ...] | None:
    """Each model's component of the comparison graph, or ``None`` when it is connected.

    Ratings of models in different components are not on a common scale (each
    component's mean is arbitrary), so comparisons with a reference centre within
    components (:func:`~judgebayes.consensus.metrics.pearson_within_components`).

    Parameters
    ----------
    battles
        The battles whose graph (an edge per pair of models that met) is checked.

    Returns
    -------
    tuple of int or None
        The component of each of ``battles.models``, in their order; ``None`` when the
        graph is connected.
    """
    graph = check_graph(battles.pair_stats(np.full(len(battles), 0.5)))
    if graph.connected:
        return None
    comp = graph.component_of()
    return tuple(comp[m] for m in battles.models)


def online_elo(
    battles: Battles,
    *,
    k: float = DEFAULT_K,
    scale: float = DEFAULT_SCALE,
    initial: float = DEFAULT_INITIAL,
    order: Order = None,
    seed: int = 0,
    target: str = "judge_label",
    method: str = "baseline",
) -> JudgeRatings:
    """Zhang et al.'s (2025) baseline: online Elo with a fixed K, run separately for every judge
    (Eq. 1).

    Parameters
    ----------
    battles
        Battles with a ``judge`` column; labels P(A beats B) (ties count ½).
    k, scale, initial
        K-factor (the paper's 32), logistic scale and starting rating of every model.
    order
        Playing order (:func:`battle_order`): ``None`` = file order, ``"shuffle"``, or a
        permutation of the rows. Each judge plays its own battles in this order.
    seed
        Seed of ``order="shuffle"``.
    target
        The label column.
    method
        The name the ratings carry.

    Returns
    -------
    JudgeRatings
        One row per judge; models a judge never rated stay at ``initial``.
    """
    judges, seqs = judge_sequences(battles, target=target, order=order, seed=seed)
    a, b = battles.codes()
    labels = battles.column(target).astype(float)
    rows = [
        elo_loop(a[s], b[s], labels[s], len(battles.models), k=k, scale=scale, initial=initial)
        for s in seqs
    ]
    return JudgeRatings(
        method,
        judges,
        battles.models,
        np.vstack(rows),
        battle_components(battles),
        tuple(len(s) for s in seqs),
    )


def bt_by_judge(
    battles: Battles, *, target: str = "judge_label", lam: float = 0.01, method: str = "bt"
) -> JudgeRatings:
    """Bradley–Terry MAP (Kargi & Salinas, 2026, Eq. 1, penalty λ) fitted separately for every
    judge.

    Order-free, unlike :func:`online_elo`. Each component of a judge's comparison graph
    is centred at 1500 by the penalty; models a judge never rated are NaN.
    """
    judges = battles.judges
    if not judges:
        raise DataError("battles need a 'judge' column: ratings are per judge", column="judge")
    rows, counts = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisconnectedGraphWarning)  # reported once, below
        for name in judges:
            sub = battles.for_judge(name)
            fit = fit_bt(sub, target=target, lam=lam)
            row = np.full(len(battles.models), np.nan)
            row[[battles.models.index(m) for m in fit.models]] = fit.elo
            rows.append(row)
            counts.append(len(sub))
    component = battle_components(battles)
    if component is not None:
        warnings.warn(
            f"the comparison graph has {len(set(component))} disconnected components: "
            "ratings are comparable only within a component",
            DisconnectedGraphWarning,
            stacklevel=2,
        )
    return JudgeRatings(method, judges, battles.models, np.vstack(rows), component, tuple(counts))
