r"""Self- and family-preference: does a judge favour its own models beyond what humans see?

The multi-judge model of :mod:`judgebayes.consensus.bayes` (after Zhang et al., *UDA:
Unsupervised Debiasing Alignment for Pair-wise LLM-as-a-Judge*, 2025, arXiv:2508.09724,
whose Figure 2 measures self-preference as a deviation of Elo tables) gives a judge's
self-preference η as the extra log-odds it gives its own model. There it is measured
against the judges' consensus; with human labels it can be measured against the humans on
the same battles, which is the real test — provided the regression also knows *how strong
the two models are*.

Why the strengths must be in it. A judge that reads the answers' quality better than one
human vote does (it calls the better model the winner where the human called a tie, and
more often where the human's vote went against the odds) gives strong models more wins
than the humans' verdicts on those battles explain. Conditioning on the human verdict
alone, that shows up as a "preference" for every strong model, its own or not: on the PPR
data such a regression gave gpt-4-0125-preview η = +1.19 on {gpt-4, gpt-3.5-turbo} with
500 labels, while against the humans' strengths it rates gpt-4 as the other two judges do
(docs/real-data/consensus.md).

The model. On the human-labelled battles judge k judged, with y its verdict P(first wins)
∈ {1, ½, 0} (a tie counts ½), g = θ_a − θ_b the humans' strength gap (logit scale; a shown
first), s = o_a − o_b ∈ {−1, 0, 1} (o_m = 1 for the judge's own models) and d = 2h − 1 ∈
{1, 0, −1} the human verdict of the battle itself,

    logit E[y] = γ + ψ·g + η·s + κ·d + δ·s·d,

the fractional logistic regression of
:func:`judgebayes.consensus.human_anchored_eta` (its γ f + ψ g + η s, with f = +1: the
answer shown first is model a, so γ is the judge's position bias) with the battle's human
verdict and its product with s as further covariates. η is the judge's extra log-odds of
"my model wins" beyond what the position, the two models' strengths and the humans'
verdict on the battle explain. δ raises it where the humans say the own model won and
lowers it where they say it lost: the judge is *more accurate* on battles of its own
models (a ΔJ of Fiedler, *Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026,
arXiv:2605.06939), which without δ would pass for self-preference when the own model wins
(or loses) most of its battles.

The strengths θ are the humans' Bradley–Terry strengths fitted to the labelled battles
(:func:`judgebayes.rankings.ppi_bt` with no judge; Kargi & Salinas, *From Uncertain
Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
arXiv:2606.13221, Eq. 1), not the audit's calibrated board: that board leans on the judges'
verdicts, the regression's response, so its errors would move with η̂'s (on the simulator
of :mod:`judgebayes.auditing.simulate`, with the judge's own model the strongest of eight,
η's intervals from it covered about 88 % for a nominal 95 %, those from the humans' board
about 93 % in 60 runs).

**Excess over the other judges.** Where several judges judged the battles, each one's η on
the *same* models is fitted the same way, and the excess ξ_k = η_k − mean_{j≠k} η_j says
how much more the judge favours its models than the other judges favour them. An η shared
by every judge (all of them misread a model's answers, as all three PPR judges rate gpt-4
below the humans) is a fault of LLM judging, not a self-preference; ξ separates the two.
The verdict (rule 4 of :mod:`judgebayes.auditing.verdict`) decides on ξ where there are
other judges and on η where there are none.

Intervals are Wald's, from the sandwich covariance of the judges' regressions stacked (the
battles are the units, so judges' η on the same battles are correlated, which the excess
needs) plus the strengths' own uncertainty carried through by the delta method:
Var = A⁻¹ B A⁻ᵀ + D Σ_θ Dᵀ, with A the Hessian, B the battles' score outer products,
D = ∂β̂/∂θ = A⁻¹ ∂U/∂θ and Σ_θ the board's covariance. The board and the regressions use
the same human labels (as the response of one, a covariate of the other); their covariance
is left out. Only battles with s ≠ 0 inform η and δ, so
their intervals are as wide as the labels on the judge's own models are few — which the
report says, with their number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes.auditing.estimates import Estimate, normal_p, wald
from judgebayes.consensus.self_check import human_anchored_eta
from judgebayes.core.bt import ELO_BASE, ELO_SCALE
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.rankings.data import RankingData, outcome_codes
from judgebayes.rankings.elo import EloEstimate
from judgebayes.rankings.ppi_bt import ppi_bt

__all__ = ["SelfPreference", "check_own_judges", "self_preference", "self_preferences"]

_ETA, _DELTA = 2, 4  # positions of η and δ in (γ, ψ, η, κ, δ)
_N_COEF = 5


@dataclass(frozen=True, repr=False)
class SelfPreference(ResultDisplay):
    """η of one judge towards its own models (module docstring).

    Attributes
    ----------
    judge
        The judge.
    own
        Its own models (a family when several).
    eta
        η (logit scale): the judge's extra log-odds for its own models beyond the position,
        the humans' strength gap and the humans' verdict, with its Wald interval.
    accuracy
        δ: the extra log-odds of a right verdict on battles of its own models.
    excess
        ξ = η − the other judges' mean η on the same models; ``None`` with one judge.
    others
        The other judges' η on the same models (``{judge: η}``).
    p
        Two-sided p-value of the deciding quantity (:attr:`deciding`) = 0.
    n_own
        Labelled battles it judged where exactly one side is its own model.
    n
        Labelled battles it judged (all inform γ, ψ and κ).
    judge_own_wins, human_own_wins
        On those ``n_own`` battles: the share the judge gives to its own model (decisive
        verdicts) and the share the humans give (decisive labels).
    strengths
        The board whose strengths gave the gap g.
    """

    judge: str
    own: tuple[str, ...]
    eta: Estimate
    accuracy: Estimate
    excess: Estimate | None
    others: Mapping[str, float] = field(default_factory=dict)
    p: float = float("nan")
    n_own: int = 0
    n: int = 0
    judge_own_wins: float = float("nan")
    human_own_wins: float = float("nan")
    strengths: str = ""

    @property
    def deciding(self) -> Estimate:
        """What rule 4 decides on: :attr:`excess` where there are other judges, else η."""
        return self.excess if self.excess is not None else self.eta

    def _headline(self) -> str:
        excess = "" if self.excess is None else f", excess ξ = {self.excess.text(2, signed=True)}"
        return (
            f"{self.judge} on {', '.join(self.own)}: η = {self.eta.text(2, signed=True)} "
            f"(logit){excess}, p = {self.p:.3g}, {self.n_own} labelled battles of its own "
            "models"
        )

    def to_frame(self) -> pd.DataFrame:
        ex = self.excess
        return pd.DataFrame(
            [
                {
                    "judge": self.judge,
                    "own": ", ".join(self.own),
                    "eta": self.eta.estimate,
                    "eta_lo": self.eta.lo,
                    "eta_hi": self.eta.hi,
                    "se": self.eta.se,
                    "others_eta": np.mean(list(self.others.values())) if self.others else np.nan,
                    "excess": np.nan if ex is None else ex.estimate,
                    "excess_lo": np.nan if ex is None else ex.lo,
                    "excess_hi": np.nan if ex is None else ex.hi,
                    "p": self.p,
                    "delta": self.accuracy.estimate,
                    "delta_lo": self.accuracy.lo,
                    "delta_hi": self.accuracy.hi,
                    "n_own": self.n_own,
                    "n": self.n,
                    "judge_own_wins": self.judge_own_wins,
                    "human_own_wins": self.human_own_wins,
                    "strengths": self.strengths,
                }
            ]
        )


@dataclass(frozen=True)
class _Fit:
    """One judge's regression on one set of own models, with its sandwich pieces."""

    beta: np.ndarray  # (γ, ψ, η, κ, δ)
    influence: np.ndarray  # A⁻¹ u_b per labelled battle (0 where it did not judge), (n, 5)
    jac: np.ndarray  # ∂β̂/∂θ, (5, n_models)


def _by_model(values: np.ndarray, a: np.ndarray, b: np.ndarray, n_models: int) -> np.ndarray:
    """Σ_b values_b (e_{a_b} − e_{b_b}): the gap's derivative summed per model, (k, M)."""
    out = np.zeros((values.shape[1], n_models))
    np.add.at(out.T, a, values)
    np.subtract.at(out.T, b, values)
    return out


def _fit(
    y: np.ndarray,
    gap: np.ndarray,
    side: np.ndarray,
    d: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    n_models: int,
    mine: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """β̂ of the module docstring's regression, its per-battle scores, A⁻¹ and ∂β̂/∂θ;
    ``mine`` is the side of the judge's own models where they are not the set measured."""
    extra = [] if mine is None else [mine]
    covariates = np.column_stack([d, side * d, *extra])
    beta = human_anchored_eta(y, np.ones(len(y)), gap, side, covariates=covariates)
    x = np.column_stack([np.ones(len(y)), gap, side, covariates])
    p = expit(x @ beta)
    resid, var = y - p, p * (1 - p)
    bread = np.linalg.inv((x * var[:, None]).T @ x)
    # U(β, θ) = Σ (y − p) x; θ enters through g in z and in x's ψ column
    du = -_by_model(x * (var * beta[1])[:, None], a, b, n_models)
    du[1] += _by_model(resid[:, None], a, b, n_models)[0]
    return beta, x * resid[:, None], bread, bread @ du


def _strengths(data: RankingData, board: EloEstimate | None) -> tuple[np.ndarray, np.ndarray, str]:
    """θ (logit) and its covariance in ``data.models`` order, and the board's name."""
    name = f"{board.method} board" if board is not None else "humans-only Bradley–Terry board"
    if board is None:
        board = ppi_bt(data, [])
    k = [board.models.index(m) for m in data.models]
    theta = (np.asarray(board.elo, float)[k] - ELO_BASE) / ELO_SCALE
    cov = np.asarray(board.cov, float)[np.ix_(k, k)] / ELO_SCALE**2
    return theta, cov, name


def _own_set(data: RankingData, own: tuple[str, ...], where: str) -> None:
    unknown = [m for m in own if m not in data.models]
    if unknown:
        raise DataError(
            f"--own {where}={unknown[0]}: {unknown[0]!r} is not a model of the battles",
            column="model_a/model_b",
            expected=f"one of the {data.n_models} models",
        )


def _fits(
    data: RankingData,
    own: tuple[str, ...],
    theta: np.ndarray,
    sets: Mapping[str, tuple[str, ...]],
) -> dict[str, _Fit]:
    """Every judge's regression on the set ``own``; a judge with no labelled battle of
    ``own``, or whose fit does not converge (its verdicts separate the own battles
    perfectly), is left out. A judge with other own models (``sets``) gets their side as
    one more covariate, so that its preference for them is not read as a dislike of
    ``own`` on the battles between the two."""
    lab = np.flatnonzero(np.isfinite(data.human))
    a, b = data.a[lab], data.b[lab]
    names = np.asarray(data.models)
    mine = np.isin(names, own).astype(float)
    side, gap = mine[a] - mine[b], theta[a] - theta[b]
    d = 2.0 * data.human[lab] - 1.0
    out = {}
    for j in data.judges:
        y = data.verdict(j)[lab]
        rows = np.flatnonzero(np.isfinite(y))
        if not (side[rows] != 0).any():
            continue
        theirs = None
        if set(sets.get(j, own)) != set(own):
            o = np.isin(names, sets[j]).astype(float)
            theirs = (o[a] - o[b])[rows]
            if not theirs.any():
                theirs = None
        try:
            beta, u, bread, jac = _fit(
                y[rows], gap[rows], side[rows], d[rows], a[rows], b[rows], data.n_models, theirs
            )
        except (RuntimeError, np.linalg.LinAlgError):
            continue
        # the extra covariate's coefficient is not reported: keep (γ, ψ, η, κ, δ)
        influence = np.zeros((len(lab), _N_COEF))
        influence[rows] = (u @ bread.T)[:, :_N_COEF]
        out[j] = _Fit(beta[:_N_COEF], influence, jac[:_N_COEF])
    return out


def _covariance(fits: Sequence[_Fit], theta_cov: np.ndarray) -> np.ndarray:
    """The stacked regressions' covariance (module docstring): A⁻¹BA⁻ᵀ + DΣ_θDᵀ."""
    u = np.hstack([f.influence for f in fits])
    jac = np.vstack([f.jac for f in fits])
    return u.T @ u + jac @ theta_cov @ jac.T


def _shares(data: RankingData, judge: str, own: tuple[str, ...]) -> tuple[int, int, float, float]:
    """Battles, own battles, and the own model's share of decisive verdicts and labels."""
    h, v = outcome_codes(data.human), outcome_codes(data.verdict(judge))
    mine = np.isin(np.asarray(data.models), own).astype(float)
    s = mine[data.a] - mine[data.b]
    judged = (h >= 0) & (v >= 0)
    one = judged & (s != 0)
    dec = one & (v != 1)
    judge_own = np.mean(np.where(s[dec] > 0, v[dec] == 0, v[dec] == 2)) if dec.any() else np.nan
    human_dec = one & (h != 1)
    human_own = (
        np.mean(np.where(s[human_dec] > 0, h[human_dec] == 0, h[human_dec] == 2))
        if human_dec.any()
        else np.nan
    )
    return int(judged.sum()), int(one.sum()), float(judge_own), float(human_own)


def self_preference(
    data: RankingData,
    judge: str,
    own: str | Sequence[str],
    *,
    board: EloEstimate | None = None,
    alpha: float = 0.05,
) -> SelfPreference | None:
    """η of ``judge`` towards ``own``, and its excess over the other judges (module
    docstring).

    Parameters
    ----------
    data
        Battles with judge verdicts and human labels on some of them.
    judge
        The judge.
    own
        Its own model or family.
    board
        The strengths whose gap enters the regression; ``None``: the humans-only
        Bradley–Terry board of ``data``'s labelled battles (module docstring).
    alpha
        Intervals have level 1 − α.

    Returns
    -------
    SelfPreference or None
        ``None`` when no labelled battle the judge judged has exactly one of ``own`` in it,
        or the regression has no finite fit (its verdicts on them separate perfectly).

    Raises
    ------
    DataError
        When a model of ``own`` is not in the battles.
    """
    own = (own,) if isinstance(own, str) else tuple(own)
    _own_set(data, own, judge)
    theta, theta_cov, name = _strengths(data, board)
    return _preference(data, judge, {judge: own}, theta, theta_cov, name, alpha)


def _preference(
    data: RankingData,
    judge: str,
    sets: Mapping[str, tuple[str, ...]],
    theta: np.ndarray,
    theta_cov: np.ndarray,
    name: str,
    alpha: float,
) -> SelfPreference | None:
    own = sets[judge]
    fits = _fits(data, own, theta, sets)
    if judge not in fits:
        return None
    order = [judge, *(j for j in fits if j != judge)]
    cov = _covariance([fits[j] for j in order], theta_cov)
    beta = fits[judge].beta
    eta = wald("eta", float(beta[_ETA]), float(np.sqrt(cov[_ETA, _ETA])), alpha=alpha)
    accuracy = wald("delta", float(beta[_DELTA]), float(np.sqrt(cov[_DELTA, _DELTA])), alpha=alpha)
    others = {j: float(fits[j].beta[_ETA]) for j in order[1:]}
    excess = None
    if others:
        c = np.zeros(len(cov))
        c[_ETA] = 1.0
        for k in range(1, len(order)):
            c[k * _N_COEF + _ETA] = -1.0 / len(others)
        value = beta[_ETA] - np.mean(list(others.values()))
        excess = wald("excess", float(value), float(np.sqrt(c @ cov @ c)), alpha=alpha)
    deciding = excess if excess is not None else eta
    n, n_own, judge_own, human_own = _shares(data, judge, own)
    return SelfPreference(
        judge=judge,
        own=own,
        eta=eta,
        accuracy=accuracy,
        excess=excess,
        others=others,
        p=float(normal_p(deciding.estimate, deciding.se)),
        n_own=n_own,
        n=n,
        judge_own_wins=judge_own,
        human_own_wins=human_own,
        strengths=name,
    )


def check_own_judges(own: Mapping[str, object], judges: Sequence[str]) -> None:
    """Raise a :class:`~judgebayes.errors.DataError` unless every judge that ``own`` names
    (``{judge: its models}``, ``--own JUDGE=MODEL``) judged the battles."""
    unknown = [j for j in own if j not in judges]
    if unknown:
        raise DataError(
            f"--own names the judge {unknown[0]!r}, which is not in the data",
            column="judge",
            expected=f"one of {list(judges)}",
        )


def self_preferences(
    data: RankingData,
    own: Mapping[str, Sequence[str]],
    *,
    board: EloEstimate | None = None,
    alpha: float = 0.05,
) -> dict[str, SelfPreference | None]:
    """:func:`self_preference` of every judge named in ``own`` (``{judge: its models}``),
    all on the strengths of one ``board``."""
    check_own_judges(own, data.judges)
    sets = {j: (m,) if isinstance(m, str) else tuple(m) for j, m in own.items()}
    for j, models in sets.items():
        _own_set(data, models, j)
    theta, theta_cov, name = _strengths(data, board)
    return {j: _preference(data, j, sets, theta, theta_cov, name, alpha) for j in sets}
