"""Generative simulators with known truth: the package's embedded default data.

Two stories:

:func:`simulate_bt`
    Pure Bradley–Terry battles (optionally with Davidson ties): the model that
    :func:`~judgebayes.core.bt.fit_bt` assumes, for recovery and coverage checks.

:func:`simulate_arena`
    An LLM-judged arena in the shape of Kargi & Salinas's (*From Uncertain Judgments to Calibrated
    Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221) LMArena set-up.
    For battle b between models A and B with strength gap d = θ_A − θ_B:

    1. a latent, judge-visible preference margin ``z ~ Normal(c·d, τ²)``;
    2. the human label: a tie with the Davidson probability ν / (2 cosh(d/2) + ν),
       otherwise ``y* ~ Bernoulli(σ(β z))`` — the calibration model of Kargi & Salinas (2026),
       Eq. 5, with c = √(1 + πβ²τ²/8) / β so that P(y* = 1 | d, no tie) ≈ σ(d)
       (the probit approximation to the logistic-normal integral);
    3. the judge scores each response on ``n_criteria`` rubric criteria (1–10
       integers) in both presentation orders; the model-oriented criterion-mean
       difference of each order is z plus the judge's biases (position: a bonus
       to the response shown first; length: ``length_bias·log(len_A/len_B)``;
       self-preference: a bonus to the judge's own model) plus rounding noise;
    4. the battle score s is the mean of both orders (Kargi & Salinas, 2026, Appendix A) and
       the judge's hard label is sign(s), a tie when the sign flips between
       the orders.

    With the defaults the implied temperature β* = 0.5 and mean |s| ≈ 1.7 lie in
    the ranges Kargi & Salinas (2026) report (β* 0.36–0.60, mean |s| 1.3–2.1), and the judge's
    hard labels are more decisive than the humans', which stretches Hard-Elo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes.core.battles import Battles
from judgebayes.core.bt import ELO_SCALE, fit_bt, theta_to_elo
from judgebayes.core.pairs import PairStats
from judgebayes.core.results import ResultDisplay

__all__ = [
    "SimulatedArena",
    "davidson_probs",
    "draw_pairs",
    "draw_strengths",
    "model_names",
    "simulate_arena",
    "simulate_bt",
]


def model_names(n_models: int) -> list[str]:
    """The simulators' model names: ``model-0`` … ``model-{n-1}``, zero-padded to sort.

    Parameters
    ----------
    n_models
        How many models.

    Returns
    -------
    list of str
        ``model-k`` with ``k`` padded to the width of ``n_models - 1`` (``model-07`` when
        there are 11 to 100 models), so the names sort in their numeric order.
    """
    width = len(str(n_models - 1))
    return [f"model-{k:0{width}d}" for k in range(n_models)]


def draw_strengths(n_models: int, elo_sd: float, rng: np.random.Generator) -> np.ndarray:
    """True strengths θ of simulated models: normal with Elo sd ``elo_sd``, centred.

    Parameters
    ----------
    n_models
        How many models.
    elo_sd
        Standard deviation of the strengths on the Elo scale (θ = Elo / ``ELO_SCALE``).
    rng
        The simulation's generator (draws ``n_models`` normals from it).

    Returns
    -------
    numpy.ndarray
        θ on the logit scale, shifted to mean exactly 0 (the identifiability constraint
        of the fitted Bradley-Terry model).
    """
    theta = rng.normal(0.0, elo_sd / ELO_SCALE, n_models)
    return theta - theta.mean()


def draw_pairs(
    n_models: int,
    n_battles: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Random matchups: model A uniform over the models, B uniform over the others.

    Parameters
    ----------
    n_models
        How many models (at least 2).
    n_battles
        How many matchups.
    rng
        The simulation's generator (draws two integer vectors of length ``n_battles``).

    Returns
    -------
    a, b : numpy.ndarray
        Model indices of each battle's two sides, ``a != b`` always.
    """
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models  # uniform over b != a
    return a, b


def davidson_probs(d: np.ndarray, nu: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Davidson (1970) probabilities (A wins, tie, B wins) for strength gap d = θ_A − θ_B.

    P(tie) = ν / (2 cosh(d/2) + ν); among non-ties A wins with probability σ(d),
    so ν = 0 is plain Bradley–Terry.
    """
    d = np.asarray(d, dtype=float)
    tie = nu / (2.0 * np.cosh(d / 2.0) + nu)
    win = (1.0 - tie) * expit(d)
    return win, tie, 1.0 - tie - win


def _human_mean(d: np.ndarray, beta: float, c: float, tau: float, nu: float) -> np.ndarray:
    """E[y* | d] of the arena story: ties count ½, z ~ Normal(c·d, τ²) integrated out
    by 40-point Gauss–Hermite quadrature."""
    x, w = np.polynomial.hermite.hermgauss(40)
    z = c * np.asarray(d)[..., None] + np.sqrt(2.0) * tau * x
    p_win = (expit(beta * z) * w).sum(axis=-1) / np.sqrt(np.pi)
    _, tie, _ = davidson_probs(d, nu)
    return (1.0 - tie) * p_win + 0.5 * tie


HumanModel = Literal["logistic", "misspecified"]
_SHARED_NOISE = 0.5  # correlation of the humans' prompt-level noise with the judge's
_PROMPT_SCALE_SD = 0.5  # sd of the log noise scale across prompts
_INDIFFERENCE = 0.58  # half-width of the humans' tie zone, in units of τ (≈ 36 % ties)
_LAPSE = 0.1  # share of decisive human clicks that are random
_N_QUADRATURE = 20_000  # common random numbers for the population Elo of that story
_QUADRATURE_SEED = 20_261_123


def _misspecified_labels(
    mean: np.ndarray,
    judge_noise: np.ndarray,
    beta: float,
    tau: float,
    normals: np.ndarray,
    uniform: np.ndarray,
) -> np.ndarray:
    """Human labels of the misspecified story from standard normals (2, n) and uniforms (n).

    z_h = c·d + ρ·(z − c·d) + √(1 − ρ²)·τ_p·ε with τ_p = τ·exp(0.5·ξ); a tie when
    |z_h| < 0.58·τ; otherwise A with probability 0.05 + 0.9·σ(β z_h).
    """
    tau_p = tau * np.exp(_PROMPT_SCALE_SD * normals[0])
    z_h = mean + _SHARED_NOISE * judge_noise + np.sqrt(1.0 - _SHARED_NOISE**2) * tau_p * normals[1]
    label = (uniform < _LAPSE / 2 + (1.0 - _LAPSE) * expit(beta * z_h)).astype(float)
    return np.where(np.abs(z_h) < _INDIFFERENCE * tau, 0.5, label)


def _misspecified_mean(
    d: np.ndarray, c: float, beta: float, tau: float, common: np.ndarray, ties: bool
) -> np.ndarray:
    """E[label | d] of the misspecified story by common random numbers (ties count ½)."""
    mean = c * np.asarray(d, dtype=float)[:, None]
    judge_noise = tau * common[3][None, :]
    tau_p = tau * np.exp(_PROMPT_SCALE_SD * common[0])[None, :]
    z_h = (
        mean
        + _SHARED_NOISE * judge_noise
        + np.sqrt(1.0 - _SHARED_NOISE**2) * tau_p * common[1][None, :]
    )
    p_a = _LAPSE / 2 + (1.0 - _LAPSE) * expit(beta * z_h)
    if not ties:
        return p_a.mean(axis=1)
    tie = np.abs(z_h) < _INDIFFERENCE * tau
    return np.where(tie, 0.5, p_a).mean(axis=1)


def _population_elo(theta: np.ndarray, mean_label) -> np.ndarray:
    """The Elo that Hard-Elo on infinitely many uniformly paired battles converges to.

    The BT fit (λ = 0) to the expected label of every pair: the estimand of a
    human-label leaderboard, which ties and the calibration noise pull towards
    1500 relative to the generating strengths.
    """
    m = len(theta)
    i, j = np.triu_indices(m, 1)
    stats = PairStats.from_battles(
        i, j, mean_label(theta[i] - theta[j]), tuple(str(k) for k in range(m))
    )
    return fit_bt(stats, lam=0.0).elo


@dataclass(frozen=True, repr=False)
class SimulatedArena(ResultDisplay):
    """Simulated battles and the truth that generated them.

    Attributes
    ----------
    battles
        The simulated :class:`~judgebayes.core.battles.Battles`.
    truth
        One row per model: ``model``, ``theta`` (generating strength, centred),
        ``elo`` (the Elo that human labels identify: for :func:`simulate_bt` the
        generating Elo; for :func:`simulate_arena` the population limit of
        human-label Hard-Elo, ties counted ½) and, for the arena, ``elo_decisive``
        (the same limit for decisive human preferences, no ties: the scale that
        Soft-Elo's β, fitted on human non-ties, targets; ties pull ``elo``
        towards 1500 by the tie rate) and ``generating_elo``.
    params
        The generating parameters (``beta``, ``c``, ``tau``, biases, ...).
    """

    battles: Battles
    truth: pd.DataFrame
    params: dict = field(default_factory=dict)

    @property
    def elo(self) -> pd.Series:
        """True Elo by model."""
        return self.truth.set_index("model")["elo"]

    def _headline(self) -> str:
        elo = self.truth["elo"]
        return (
            f"{len(self.truth)} models, {len(self.battles):,} battles, true Elo "
            f"{elo.min():.0f}–{elo.max():.0f}; seed {self.params.get('seed')}"
        )

    def to_frame(self) -> pd.DataFrame:
        """The truth: one row per model."""
        return self.truth


def simulate_bt(
    n_models: int = 10,
    n_battles: int = 2000,
    *,
    elo_sd: float = 100.0,
    theta: np.ndarray | None = None,
    tie_nu: float = 0.0,
    seed: int = 0,
) -> SimulatedArena:
    """Battles from the Bradley–Terry (Davidson) model, labels in ``human_label``.

    Parameters
    ----------
    n_models, n_battles
        Models and battles; pairs are uniform over ordered pairs of distinct models.
    elo_sd
        Standard deviation of the true Elo ratings (ignored when ``theta`` is given).
    theta
        True strengths (logit scale); drawn when ``None``.
    tie_nu
        Davidson tie parameter ν (0: no ties).
    seed
        Random seed.
    """
    rng = np.random.default_rng(seed)
    theta = draw_strengths(n_models, elo_sd, rng) if theta is None else np.asarray(theta, float)
    n_models = len(theta)
    names = model_names(n_models)
    a, b = draw_pairs(n_models, n_battles, rng)
    win, tie, _ = davidson_probs(theta[a] - theta[b], tie_nu)
    u = rng.random(n_battles)
    label = np.where(u < win, 1.0, np.where(u < win + tie, 0.5, 0.0))
    frame = pd.DataFrame(
        {"model_a": np.asarray(names)[a], "model_b": np.asarray(names)[b], "human_label": label}
    )
    truth = pd.DataFrame({"model": names, "theta": theta, "elo": theta_to_elo(theta)})
    return SimulatedArena(Battles(frame), truth, {"tie_nu": tie_nu, "seed": seed})


def simulate_arena(
    n_models: int = 55,
    n_battles: int = 25_000,
    *,
    elo_sd: float = 75.0,
    beta: float = 0.5,
    tau: float = 2.0,
    tie_nu: float = 0.5,
    n_criteria: int = 6,
    criterion_noise: float = 0.6,
    position_bias: float = 0.0,
    length_bias: float = 0.0,
    self_bias: float = 0.0,
    judge_model: str | None = None,
    judge: str = "sim-judge",
    human_model: HumanModel = "logistic",
    seed: int = 0,
) -> SimulatedArena:
    """A simulated LLM-judged arena with human labels (see the module docstring).

    Parameters
    ----------
    n_models, n_battles
        Models and battles (Kargi & Salinas (2026): 55 models, ~25,000 battles).
    elo_sd
        Standard deviation of the true (human-scale) Elo ratings.
    beta
        Temperature β of the human calibration model y* ~ Bernoulli(σ(β z)).
    tau
        Standard deviation of the judge-visible margin z around c·d.
    tie_nu
        Davidson tie parameter ν of the human labels.
    n_criteria, criterion_noise
        Rubric criteria per response and the noise of each criterion score
        before rounding to an integer in 1–10.
    position_bias
        Score bonus (rubric points) to the response shown first.
    length_bias
        Score bonus per unit of log length ratio log(len_A / len_B).
    self_bias, judge_model
        Score bonus to ``judge_model`` (one of the simulated model names) when
        it takes part: the judge's self-preference.
    judge
        Name written in the ``judge`` column.
    human_model
        ``"logistic"``: the human labels follow Kargi & Salinas's (2026) calibration model (Eq. 5)
        and Davidson ties, so Soft-Elo's assumption holds by construction. ``"misspecified"``: the
        humans see a margin of their own that shares only part of the judge's prompt-level noise
        (correlation ½) and whose noise scale varies by prompt (log-normal, sd 0.5); they tie when
        the margin is within an indifference zone (≈ 36 % ties, the rate of real arena data) and
        otherwise prefer A with probability 0.05 + 0.9·σ(β z_h) (a ceiling: 10 % of decisive clicks
        are random). Neither σ(β s) nor Davidson ties is then the true model.
    seed
        Random seed; the same seed gives the same arena.

    Returns
    -------
    SimulatedArena
        Battles with columns ``model_a, model_b, judge, prompt_id, position,
        len_a, len_b, score_a, score_b, score_diff, judge_label, human_label``
        and the model-oriented score difference of each presentation order,
        ``s_a_first`` (A shown first) and ``s_b_first`` (B shown first).
    """
    rng = np.random.default_rng(seed)
    names = np.asarray(model_names(n_models))
    if judge_model is not None and judge_model not in names:
        raise ValueError(f"judge_model {judge_model!r} is not one of the simulated models")
    theta = draw_strengths(n_models, elo_sd, rng)
    a, b = draw_pairs(n_models, n_battles, rng)
    d = theta[a] - theta[b]
    c = np.sqrt(1.0 + np.pi * beta**2 * tau**2 / 8.0) / beta
    z = rng.normal(c * d, tau)

    if human_model == "logistic":  # Davidson tie, else the calibration model of Eq. 5
        _, tie, _ = davidson_probs(d, tie_nu)
        human = np.where(
            rng.random(n_battles) < tie,
            0.5,
            (rng.random(n_battles) < expit(beta * z)).astype(float),
        )
        mean_label = lambda gap, nu: _human_mean(gap, beta, c, tau, nu)  # noqa: E731
    elif human_model == "misspecified":
        human = _misspecified_labels(
            c * d, z - c * d, beta, tau, rng.standard_normal((2, n_battles)), rng.random(n_battles)
        )
        common = np.random.default_rng(_QUADRATURE_SEED).standard_normal((4, _N_QUADRATURE))
        mean_label = lambda gap, nu: _misspecified_mean(  # noqa: E731
            gap, c, beta, tau, common, ties=nu > 0
        )
    else:
        raise ValueError(f"human_model must be 'logistic' or 'misspecified', got {human_model!r}")

    # Judge: rubric scores in both presentation orders.
    len_a = np.round(np.exp(rng.normal(np.log(400.0), 0.6, n_battles)))
    len_b = np.round(np.exp(rng.normal(np.log(400.0), 0.6, n_battles)))
    bias = length_bias * np.log(len_a / len_b)
    if judge_model is not None:
        bias += self_bias * (
            (names[a] == judge_model).astype(float) - (names[b] == judge_model).astype(float)
        )
    first_is_a = rng.random(n_battles) < 0.5

    def order_scores(a_first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        margin = z + bias + np.where(a_first, position_bias, -position_bias)
        shape = (n_battles, n_criteria)
        sa = np.clip(
            np.round(6.5 + margin[:, None] / 2 + rng.normal(0, criterion_noise, shape)), 1, 10
        ).mean(axis=1)
        sb = np.clip(
            np.round(6.5 - margin[:, None] / 2 + rng.normal(0, criterion_noise, shape)), 1, 10
        ).mean(axis=1)
        return sa, sb

    sa1, sb1 = order_scores(first_is_a)
    sa2, sb2 = order_scores(~first_is_a)
    score_a, score_b = (sa1 + sa2) / 2, (sb1 + sb2) / 2
    s = score_a - score_b
    flip = np.sign(sa1 - sb1) != np.sign(sa2 - sb2)
    judge_label = np.where(flip | (s == 0), 0.5, (s > 0).astype(float))

    frame = pd.DataFrame(
        {
            "model_a": names[a],
            "model_b": names[b],
            "judge": judge,
            "prompt_id": np.arange(n_battles),
            "position": np.where(first_is_a, "a", "b"),
            "len_a": len_a,
            "len_b": len_b,
            "score_a": score_a,
            "score_b": score_b,
            "s_a_first": np.where(first_is_a, sa1 - sb1, sa2 - sb2),
            "s_b_first": np.where(first_is_a, sa2 - sb2, sa1 - sb1),
            "judge_label": judge_label,
            "human_label": human,
        }
    )
    human_elo = _population_elo(theta, lambda gap: mean_label(gap, tie_nu))
    decisive_elo = _population_elo(theta, lambda gap: mean_label(gap, 0.0))
    truth = pd.DataFrame(
        {
            "model": names,
            "theta": theta,
            "elo": human_elo,
            "elo_decisive": decisive_elo,
            "generating_elo": theta_to_elo(theta),
        }
    )
    params = {
        "beta": beta,
        "c": c,
        "tau": tau,
        "tie_nu": tie_nu,
        "elo_sd": elo_sd,
        "position_bias": position_bias,
        "length_bias": length_bias,
        "self_bias": self_bias,
        "judge_model": judge_model,
        "human_model": human_model,
        "human_tie_rate": float(np.mean(human == 0.5)),
        "seed": seed,
    }
    return SimulatedArena(Battles(frame), truth, params)
