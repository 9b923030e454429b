"""Battles with a human outcome, judge verdicts read through confusion matrices, few labels.

The generative story of the latent-outcome model (:mod:`judgebayes.rankings.latent`), used
to test every estimator of :mod:`judgebayes.rankings` where the truth is known:

1. battle i pits a uniformly drawn pair of models, in random order: a shown first, b second;
2. the human outcome h_i ∈ {A, tie, B} follows Davidson's model (Davidson 1970) with
   strengths θ and tie propensity ν: P(A) ∝ e^{θ_a}, P(tie) ∝ ν e^{(θ_a + θ_b)/2},
   P(B) ∝ e^{θ_b};
3. judge j's verdict v_ij ∈ {A, tie, B} given h_i is drawn from row h_i of its confusion
   matrix C_j (rows: the human outcome, columns: the verdict, both by position, so a judge
   that favours position A has large C_j[·, A]), its logits shifted by the judge's
   favouritism towards the two models: log C_j[h, v] + s_v·(δ_ja − δ_jb), s = (1, 0, −1);
4. n_labelled battles, drawn at random, keep their human outcome; the others lose it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes.core.bt import ELO_SCALE, solve_map, theta_to_elo
from judgebayes.core.pairs import PairStats
from judgebayes.core.results import ResultDisplay
from judgebayes.rankings.data import RankingData
from judgebayes.simulate import davidson_probs

__all__ = ["SIGNS", "SimulatedJudgedBattles", "simulate_judged_battles", "verdict_probs"]

SIGNS = np.array([1.0, 0.0, -1.0])
"""s_v: how a verdict moves with the judge's favouritism (A: +, tie: 0, B: −)."""

_DEFAULT_JUDGES = {
    # a good judge: 80% right on decisive battles, rarely calls a tie
    "good": [[0.80, 0.10, 0.10], [0.35, 0.30, 0.35], [0.10, 0.10, 0.80]],
    # position-biased: calls A most of the time (as gpt-3.5-turbo does on the PPR data)
    "biased": [[0.90, 0.05, 0.05], [0.70, 0.10, 0.20], [0.60, 0.05, 0.35]],
}


def verdict_probs(confusion: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """P(v | h) with the favouritism shift: softmax(log C[h] + s·shift), shape (..., 3, 3).

    Parameters
    ----------
    confusion
        Row-stochastic 3 × 3 matrix C[h, v].
    shift
        δ_a − δ_b per battle, any shape.
    """
    with np.errstate(divide="ignore"):  # a zero column (a judge that never says tie)
        log_c = np.log(np.asarray(confusion))
    logits = (
        log_c[None]
        + np.multiply.outer(np.asarray(shift, dtype=float).reshape(-1), SIGNS)[:, None, :]
    )
    p = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return p.reshape(*np.shape(shift), 3, 3)


@dataclass(frozen=True, repr=False)
class SimulatedJudgedBattles(ResultDisplay):
    """A simulated data set and the truth behind it.

    Attributes
    ----------
    data
        The battles (human label on ``n_labelled`` of them, every judge's verdict on all).
    theta
        True Davidson strengths (Σθ = 0).
    nu
        True tie propensity ν.
    confusion
        ``{judge: C_j}``, 3 × 3, rows the human outcome (A, tie, B), columns the verdict.
    favouritism
        δ_jm, shape ``(n_judges, n_models)``.
    human_full
        Every battle's human outcome (before hiding), P(A beats B) coding.
    bt_target
        θ*, the Bradley–Terry estimand with ties as ½ on this design: the minimiser of the
        expected BT loss Σ_i E ℓ(θ; y_i) over these battles (it differs from θ when ν > 0).
    """

    data: RankingData
    theta: np.ndarray
    nu: float
    confusion: Mapping[str, np.ndarray]
    favouritism: np.ndarray
    human_full: np.ndarray
    bt_target: np.ndarray

    @property
    def elo(self) -> np.ndarray:
        return np.asarray(theta_to_elo(self.theta))

    @property
    def bt_elo(self) -> np.ndarray:
        """θ* on the Elo scale (mean 1500)."""
        return np.asarray(theta_to_elo(self.bt_target))

    def _headline(self) -> str:
        return (
            f"{self.data.n_battles:,} battles, {self.data.n_models} models, "
            f"{int(self.data.labelled.sum()):,} labelled, judges {list(self.data.judges)}"
        )

    def to_frame(self) -> pd.DataFrame:
        """``model, elo, bt_elo`` (the truth)."""
        return pd.DataFrame({"model": self.data.models, "elo": self.elo, "bt_elo": self.bt_elo})


def simulate_judged_battles(
    n_models: int = 8,
    n_battles: int = 4000,
    n_labelled: int = 400,
    *,
    judges: Mapping[str, np.ndarray] | None = None,
    elo_sd: float = 100.0,
    nu: float = 0.6,
    favouritism_sd: float = 0.0,
    seed: int = 0,
    truth_seed: int | None = None,
) -> SimulatedJudgedBattles:
    """Simulate the latent-outcome story (see the module docstring).

    Parameters
    ----------
    n_models, n_battles, n_labelled
        Sizes; models are named ``model-00``, ``model-01``, ...
    judges
        ``{name: C}``, row-stochastic 3 × 3 confusion matrices (human outcome × verdict,
        order A, tie, B). Default: a good judge and a position-biased one.
    elo_sd
        SD of the true Elo ratings (θ drawn Normal, then centred).
    nu
        Davidson tie propensity (0: no ties).
    favouritism_sd
        SD of each judge's per-model favouritism δ_jm (0: the confusion is shared).
    seed
        Random seed of the battles, outcomes, verdicts and labels.
    truth_seed
        Random seed of the truth (θ and δ); default ``seed``. Fix it and vary ``seed`` to
        draw data sets from one truth.
    """
    if not 0 <= n_labelled <= n_battles:
        raise ValueError("need 0 ≤ n_labelled ≤ n_battles")
    truth = np.random.default_rng(seed if truth_seed is None else truth_seed)
    rng = np.random.default_rng(seed)
    judges = {k: np.asarray(v, float) for k, v in (judges or _DEFAULT_JUDGES).items()}
    for name, c in judges.items():
        if c.shape != (3, 3) or not np.allclose(c.sum(axis=1), 1.0) or (c < 0).any():
            raise ValueError(f"confusion matrix of {name!r} must be 3 × 3 and row-stochastic")
    theta = truth.normal(0.0, elo_sd / ELO_SCALE, n_models)
    theta -= theta.mean()
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models  # b ≠ a, uniform
    d = theta[a] - theta[b]
    p_a, p_tie, _ = davidson_probs(d, nu)
    u = rng.random(n_battles)
    h = np.where(u < p_a, 0, np.where(u < p_a + p_tie, 1, 2))
    label = np.array([1.0, 0.5, 0.0])
    delta = truth.normal(0.0, favouritism_sd, (len(judges), n_models))
    verdicts = {}
    for j, (name, c) in enumerate(judges.items()):
        probs = verdict_probs(c, delta[j, a] - delta[j, b])[np.arange(n_battles), h]
        cum = probs.cumsum(axis=1)
        v = (rng.random(n_battles)[:, None] > cum[:, :2]).sum(axis=1)
        verdicts[name] = label[v]
    keep = np.zeros(n_battles, dtype=bool)
    keep[rng.choice(n_battles, n_labelled, replace=False)] = True
    names = [f"model-{k:02d}" for k in range(n_models)]
    human = label[h]
    data = RankingData.from_arrays(
        np.take(names, a), np.take(names, b), np.where(keep, human, np.nan), verdicts, models=names
    )
    # θ*: BT with the expected targets E[y] = P(A) + P(tie)/2 on this design
    expected = p_a + 0.5 * p_tie
    stats = PairStats.from_battles(a, b, expected, tuple(names))
    target, _ = solve_map(stats, 0.0, {})
    return SimulatedJudgedBattles(
        data, theta, nu, dict(judges), delta, human, target - target.mean()
    )
