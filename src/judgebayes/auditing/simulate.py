"""Judges with known defects on simulated battles: what an audit must find, and only that.

The story is that of :mod:`judgebayes.rankings.simulate` (a Davidson human outcome per
battle, each judge reading it through a 3 × 3 confusion matrix by position), with three
defects a judge may have, each with its size known, and one property that is none:

* **position bias**: a confusion matrix that calls the answer shown first more often than
  the humans do (its column A heavier than its row A);
* **calibration that varies across models** (ΔJ, Fiedler, *Bias and Uncertainty in
  LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939): judge j recognises a win of model m
  with reliability ρ_jm: row h of its confusion matrix on a battle is
  r_h·C_j[h] + (1 − r_h)·N, with r the reliability of the winner's model (ρ_ja for
  "A wins", ρ_jb for "B wins", their mean for a tie) and N the judge's verdict shares (a
  verdict unrelated to the outcome), so its sensitivity to m's wins, and Youden's J of
  model m, fall with ρ_jm;
* **self-preference** η (the multi-judge model's η of :mod:`judgebayes.consensus.bayes`,
  after Zhang et al., *UDA: Unsupervised Debiasing Alignment for Pair-wise
  LLM-as-a-Judge*, 2025, arXiv:2508.09724): the judge adds η to the log-odds of "its own
  model wins" against "the other wins", whatever the human outcome: its verdict logits are
  log C[h, v] + s_v·(η/2)·(o_a − o_b) with s = (1, 0, −1) and o_m = 1 for its own models,
  so that P(A | h, a decisive verdict) has log-odds log(C[h, A]/C[h, B]) + η·(o_a − o_b);
* **quality** ψ (no defect): a judge that also reads the strength gap θ_a − θ_b, adding
  ψ·(θ_a − θ_b) to the same log-odds, as a judge that sees more than one human vote does.

:func:`simulate_audit` draws the battles; :class:`SimulatedAudit` keeps the truth (Elo,
each judge's J per model on this design, its position bias and η) beside them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from judgebayes.core.battles import Battles
from judgebayes.core.bt import ELO_SCALE, theta_to_elo
from judgebayes.core.results import ResultDisplay
from judgebayes.rankings.simulate import SIGNS
from judgebayes.simulate import davidson_probs

__all__ = ["GOOD_CONFUSION", "JudgeSpec", "SimulatedAudit", "default_judges", "simulate_audit"]

GOOD_CONFUSION = np.array([[0.80, 0.10, 0.10], [0.35, 0.30, 0.35], [0.10, 0.10, 0.80]])
"""A sound judge: 80% right on decisive battles, symmetric in position, rarely a tie."""
POSITION_BIASED = np.array([[0.88, 0.06, 0.06], [0.60, 0.20, 0.20], [0.40, 0.06, 0.54]])
"""A judge that calls the answer shown first: P(A) ≈ 0.64 where the humans split evenly."""


@dataclass(frozen=True)
class JudgeSpec:
    """One simulated judge.

    Attributes
    ----------
    confusion
        Row-stochastic 3 × 3 matrix C[h, v], rows the human outcome and columns the verdict,
        both in the order (shown first wins, tie, shown second wins).
    reliability
        ρ_m per model (default 1 for every model): how well the judge reads battles of m.
    own
        The judge's own models (self- or family-preference).
    eta
        Its self-preference η (logit scale).
    quality
        ψ: extra log-odds of "A wins" per unit of the true strength gap θ_a − θ_b (logit),
        whatever the human outcome: a judge that reads the answers' quality better than one
        human vote does (it calls the stronger model the winner where the human saw a tie).
        No defect, but a self-preference measured against the human verdicts alone would
        see one for every strong model (:mod:`judgebayes.auditing.self_preference`).
    """

    confusion: np.ndarray = field(default_factory=lambda: GOOD_CONFUSION.copy())
    reliability: Mapping[str, float] | None = None
    own: tuple[str, ...] = ()
    eta: float = 0.0
    quality: float = 0.0


def default_judges(models: Sequence[str], *, delta_j: float = 0.3, eta: float = 0.8) -> dict:
    """Four judges, each with one known property.

    ``fine`` (sound, no defect); ``position`` (calls the answer shown first,
    :data:`POSITION_BIASED`); ``uneven`` (sound, with a reliability falling linearly from 1
    on the first model to the value that makes the largest and smallest J over the
    models differ by ``delta_j`` on a balanced design, found by bisection); ``self``
    (sound, but adds ``eta`` to the log-odds of the middle model winning).
    """
    models = list(models)
    k = len(models)
    # a balanced design (every ordered pair once) with even models: J depends on the
    # reliabilities, hardly on the strengths
    a, b = (x.ravel() for x in np.meshgrid(np.arange(k), np.arange(k)))
    a, b = a[a != b], b[a != b]
    p_a, p_tie, p_b = davidson_probs(np.zeros(len(a)), 0.6)
    ph = np.column_stack([p_a, p_tie, p_b])

    def spread(low: float) -> float:
        rho = dict(zip(models, np.linspace(1.0, low, k), strict=True))
        j = _truth("", JudgeSpec(reliability=rho), models, a, b, ph)["J"]
        return float(j.max() - j.min()) - delta_j

    if spread(0.0) < 0:
        raise ValueError(f"delta_j={delta_j} is more than reliabilities in [0, 1] can make")
    low = brentq(spread, 0.0, 1.0) if delta_j > 0 else 1.0
    reliability = dict(zip(models, np.linspace(1.0, low, k).tolist(), strict=True))
    return {
        "fine": JudgeSpec(),
        "position": JudgeSpec(confusion=POSITION_BIASED.copy()),
        "uneven": JudgeSpec(reliability=reliability),
        "self": JudgeSpec(own=(models[k // 2],), eta=eta),
    }


@dataclass(frozen=True, repr=False)
class SimulatedAudit(ResultDisplay):
    """Simulated battles and the truth behind them.

    Attributes
    ----------
    battles
        One row per (battle, judge): ``battle_id, prompt_id, model_a`` (shown first),
        ``model_b, position = "a", judge, judge_label, human_label`` (human label on
        ``n_labelled`` battles drawn at random, NaN elsewhere).
    elo
        True Elo of every model (Davidson strengths, mean 1500).
    judges
        The judges' specifications.
    truth
        Per judge and model: ``judge, model, J`` (Youden's J of "this model won" on this
        design, ties as not won), ``eta`` (0 unless its own model) and the judge's
        ``position_bias`` (P(verdict A | decisive verdict) − P(human A | decisive human)).
    human_full
        Every battle's human outcome before hiding.
    """

    battles: Battles
    elo: pd.Series
    judges: Mapping[str, JudgeSpec]
    truth: pd.DataFrame
    human_full: np.ndarray

    def _headline(self) -> str:
        f = self.battles.frame
        return (
            f"{f['battle_id'].nunique():,} battles, {len(self.elo)} models, "
            f"{int(f.drop_duplicates('battle_id')['human_label'].notna().sum()):,} labelled, "
            f"judges {list(self.judges)}"
        )

    def to_frame(self) -> pd.DataFrame:
        return self.truth

    def delta_j(self, judge: str) -> float:
        """True max − min of the judge's J over models."""
        j = self.truth.loc[self.truth["judge"] == judge, "J"]
        return float(j.max() - j.min())


def _battle_probs(
    spec: JudgeSpec,
    models: Sequence[str],
    a: np.ndarray,
    b: np.ndarray,
    theta: np.ndarray | None = None,
) -> np.ndarray:
    """P(v | h) of every battle, shape (n, 3, 3) (module docstring)."""
    c = np.asarray(spec.confusion, float)
    if c.shape != (3, 3) or not np.allclose(c.sum(axis=1), 1.0) or (c < 0).any():
        raise ValueError("a confusion matrix must be 3 × 3, non-negative and row-stochastic")
    rho = np.array([1.0 if spec.reliability is None else spec.reliability[m] for m in models])
    # reliability of each row: the winner's model reads true (a tie: the pair's mean)
    r = np.column_stack([rho[a], (rho[a] + rho[b]) / 2.0, rho[b]])[:, :, None]
    noise = c.sum(axis=0) / 3.0  # the verdict shares, unrelated to the outcome
    base = r * c[None] + (1.0 - r) * noise[None, None, :]
    own = np.isin(np.asarray(models), spec.own).astype(float)
    shift = 0.5 * spec.eta * (own[a] - own[b])
    if spec.quality:
        shift = shift + 0.5 * spec.quality * (theta[a] - theta[b])
    # log C[h, v] + s_v·shift, normalised over v (as rankings.simulate.verdict_probs)
    weight = base * np.exp(np.multiply.outer(shift, SIGNS))[:, None, :]
    return weight / weight.sum(axis=2, keepdims=True)


def _truth(
    name: str,
    spec: JudgeSpec,
    models: Sequence[str],
    a: np.ndarray,
    b: np.ndarray,
    ph: np.ndarray,
    theta: np.ndarray | None = None,
) -> pd.DataFrame:
    """J per model and position bias on this design, from the exact probabilities."""
    pv = _battle_probs(spec, models, a, b, theta)
    joint = ph[:, :, None] * pv  # P(h, v) per battle
    rows = []
    for k, m in enumerate(models):
        sides = []
        for side, idx in (("a", a == k), ("b", b == k)):
            j = joint[idx]
            win = 0 if side == "a" else 2
            sides.append(
                (
                    j[:, win, win].sum(),  # human win, judge win
                    j[:, win, :].sum(),  # human win
                    j.sum() - j[:, win, :].sum() - j[:, :, win].sum() + j[:, win, win].sum(),
                    j.sum() - j[:, win, :].sum(),  # human not win
                )
            )
        tp, pos, tn, neg = (sum(s[i] for s in sides) for i in range(4))
        rows.append(
            {
                "judge": name,
                "model": m,
                "J": tp / pos + tn / neg - 1.0,
                "eta": spec.eta if m in spec.own else 0.0,
            }
        )
    total = joint.sum(axis=0)
    bias = total[:, 0].sum() / (total[:, 0].sum() + total[:, 2].sum()) - total[0].sum() / (
        total[0].sum() + total[2].sum()
    )
    frame = pd.DataFrame(rows)
    frame["position_bias"] = bias
    return frame


def simulate_audit(
    n_models: int = 8,
    n_battles: int = 20_000,
    n_labelled: int = 2_000,
    *,
    judges: Mapping[str, JudgeSpec] | None = None,
    elo_sd: float = 100.0,
    nu: float = 0.6,
    seed: int = 0,
) -> SimulatedAudit:
    """Simulate battles judged by judges with known defects (module docstring).

    Parameters
    ----------
    n_models, n_battles, n_labelled
        Sizes; models are named ``model-00``, ``model-01``, ...; pairs uniform, order random.
    judges
        ``{name: JudgeSpec}``; default :func:`default_judges`.
    elo_sd
        SD of the true Elo ratings.
    nu
        Davidson tie propensity.
    seed
        Random seed of the truth and the draws.
    """
    if not 0 <= n_labelled <= n_battles:
        raise ValueError("need 0 ≤ n_labelled ≤ n_battles")
    rng = np.random.default_rng(seed)
    models = [f"model-{k:02d}" for k in range(n_models)]
    specs = dict(judges) if judges is not None else default_judges(models)
    theta = rng.normal(0.0, elo_sd / ELO_SCALE, n_models)
    theta -= theta.mean()
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    p_a, p_tie, p_b = davidson_probs(theta[a] - theta[b], nu)
    ph = np.column_stack([p_a, p_tie, p_b])
    h = (rng.random(n_battles)[:, None] > ph.cumsum(axis=1)[:, :2]).sum(axis=1)
    label = np.array([1.0, 0.5, 0.0])
    human = label[h]
    keep = np.zeros(n_battles, bool)
    keep[rng.choice(n_battles, n_labelled, replace=False)] = True
    parts, truth = [], []
    names = np.asarray(models, dtype=object)
    for name, spec in specs.items():
        pv = _battle_probs(spec, models, a, b, theta)[np.arange(n_battles), h]
        v = (rng.random(n_battles)[:, None] > pv.cumsum(axis=1)[:, :2]).sum(axis=1)
        parts.append(
            pd.DataFrame(
                {
                    "battle_id": np.arange(n_battles),
                    "prompt_id": np.arange(n_battles),
                    "model_a": names[a],
                    "model_b": names[b],
                    "position": "a",
                    "judge": name,
                    "judge_label": label[v],
                    "human_label": np.where(keep, human, np.nan),
                }
            )
        )
        truth.append(_truth(name, spec, models, a, b, ph, theta))
    elo = pd.Series(np.asarray(theta_to_elo(theta)), index=pd.Index(models, name="model"))
    return SimulatedAudit(
        Battles(pd.concat(parts, ignore_index=True)),
        elo.rename("elo"),
        specs,
        pd.concat(truth, ignore_index=True),
        human,
    )
