"""Self-preference checked against the human labels of the very battles a judge judged.

Zhang, Wang, Wu, Yu, Wang, Bao & Tang (*UDA: Unsupervised Debiasing Alignment for Pair-wise
LLM-as-a-Judge*, 2025, arXiv:2508.09724) measure a judge's self-preference as its Elo of its own
model minus the other judges' mean Elo of it (its Figure 2 and Introduction), and the multi-judge
Bradley–Terry of :mod:`judgebayes.consensus.bayes` measures it as η_k, the judge's extra log-odds
for its own model beyond the judges' consensus. Both measure a judge against *other judges*: if the
consensus itself misjudges a model, a judge that is right about it looks self-preferring (or
self-effacing). When humans labelled the same battles, the judge can be measured against them
instead. :func:`self_preference_check` does it two ways, for each (judge, own models) it is given:

1. **On exactly those battles.** The battles in which exactly one side is one of the
   judge's own models (battles between two of them are left out and counted). The own
   side's score — 1 win, ½ tie, 0 loss — by the judge and by the humans, each
   *position-balanced*: ½ (mean over battles where the own model was shown first + mean
   over those where it was shown second), so that a judge's preference for the first
   answer does not count as a preference for its own model. ``gap`` = judge − humans.
   The other judges' scores on the same battles are given beside (:attr:`scores`).

2. **Human-anchored η.** A fractional logistic regression of the judge's verdicts on
   all its battles,

       logit P_k(A ≻ B) = γ_k f + ψ_k (h_A − h_B) + η_k self_k(A, B),

   f = +1 when A was shown first and −1 when B was, h the Bradley–Terry strengths of
   the human labels of all battles (logit scale; Kargi & Salinas (*From Uncertain Judgments to
   Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221), Eq.
   1), self_k = +1 / −1 / 0 when A / B / neither is an own model (as in the multi-judge model). η_k
   is the judge's extra log-odds for its own side beyond what the humans' ratings of the two models
   predict, on the judge's own slope ψ_k and position bias γ_k: the multi-judge model's η_k with the
   human board in place of the consensus. Ties count ½ (the Bernoulli quasi-likelihood of a
   fractional response).

Intervals come from the paired battle bootstrap of
:func:`~judgebayes.consensus.resample_battles` (stratified by model pair), which refits
the human strengths h in every replicate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from tqdm.auto import tqdm

from judgebayes.consensus.resample import battle_counts, require_paired_labels
from judgebayes.core.battles import Battles
from judgebayes.core.bt import fit_bt
from judgebayes.core.pairs import PairStats
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.plots import interval_bars

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["SelfPreferenceCheck", "human_anchored_eta", "self_preference_check"]

Own = Mapping[str, str | Sequence[str]] | Sequence[tuple[str, str | Sequence[str]]]


def human_anchored_eta(
    label: np.ndarray,
    first: np.ndarray,
    gap: np.ndarray,
    own: np.ndarray,
    *,
    weights: np.ndarray | None = None,
    covariates: np.ndarray | None = None,
) -> np.ndarray:
    """(γ, ψ, η) of the fractional logistic regression of one judge's verdicts.

    Maximises Σ_b w_b [y_b log σ(z_b) + (1 − y_b) log σ(−z_b)], z_b = γ f_b + ψ g_b + η s_b
    (the module docstring's model; y ∈ {0, ½, 1}), plus κᵀc_b where ``covariates`` c_b
    are given (the judge audit adds the human verdict of the battle itself and its
    product with s_b: :mod:`judgebayes.auditing.self_preference`). The problem is convex;
    Newton's method with the exact Hessian (SciPy's trust-region solver) converges in a
    few steps. No GLM library among the dependencies fits a fractional response.

    Parameters
    ----------
    label
        The judge's P(A beats B) per battle (1, ½, 0).
    first
        +1 when A was shown first, −1 when B was.
    gap
        h_A − h_B, the human strengths' difference (logit scale).
    own
        self_k(A, B): +1, −1 or 0.
    weights
        Battle weights w_b (bootstrap counts); 1 when ``None``.
    covariates
        Further columns c_b, shape ``(n_battles, k)``; none when ``None``.

    Returns
    -------
    numpy.ndarray
        ``[gamma, psi, eta]``, then κ (one per column of ``covariates``).
    """
    extra = [] if covariates is None else [np.asarray(covariates, float).reshape(len(gap), -1)]
    x = np.column_stack([first, gap, own, *extra]).astype(float)
    y = np.asarray(label, float)
    c = np.ones(len(y)) if weights is None else np.asarray(weights, float)

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        value = -(c * (y * log_expit(z) + (1 - y) * log_expit(-z))).sum()
        return float(value), -x.T @ (c * (y - expit(z)))

    def hessian(w: np.ndarray) -> np.ndarray:
        p = expit(x @ w)
        return (x * (c * p * (1 - p))[:, None]).T @ x

    result = minimize(
        objective,
        np.zeros(x.shape[1]),
        jac=True,
        hess=hessian,
        method="trust-exact",
        options={"gtol": 1e-8},
    )
    # trust-exact reports failure when a step cannot improve on a point already at the
    # optimum to rounding; the gradient (per battle) says whether it is there.
    if not result.success and np.abs(result.jac).max() > 1e-6 * c.sum():
        raise RuntimeError(f"the fractional logistic fit did not converge: {result.message}")
    return result.x


def _checks(own: Own, battles: Battles) -> list[tuple[str, tuple[str, ...]]]:
    pairs = own.items() if isinstance(own, Mapping) else own
    out = []
    for judge, models in pairs:
        names = (models,) if isinstance(models, str) else tuple(models)
        if judge not in battles.judges:
            raise DataError(
                f"unknown judge {judge!r}", column="judge", expected=f"one of {battles.judges}"
            )
        missing = [m for m in names if m not in battles.models]
        if missing:
            raise DataError(
                f"judge {judge!r}: own model(s) {missing} are not contestants",
                column="model_a/model_b",
                expected=f"models of the battles, e.g. {battles.models[0]!r}",
            )
        out.append((judge, names))
    if not out:
        raise ValueError("own is empty: name at least one (judge, own models)")
    return out


class _OwnBattles:
    """The battle-level arrays every replicate reuses; a replicate is a count per battle.

    Weighting each battle by its bootstrap count (:func:`battle_counts`) is resampling
    it, so every statistic is computed from these fixed arrays and one weight vector.
    """

    def __init__(self, battles: Battles, sets: list[tuple[str, ...]]) -> None:
        if "battle_id" in battles:
            frame, labels = battles.battle_frame(), battles.judge_labels().to_numpy(float)
        elif len(battles.judges) == 1:
            frame = battles.frame
            labels = frame["judge_label"].to_numpy(float)[:, None]
        else:
            raise DataError(
                "several judges' rows need a 'battle_id' naming the battle they share",
                column="battle_id",
                expected="a multi-judge table such as jb.datasets.load_ppr()",
            )
        self.models, self.judges = battles.models, battles.judges
        index = {m: k for k, m in enumerate(self.models)}
        self.a = frame["model_a"].astype(str).map(index).to_numpy(np.int64)
        self.b = frame["model_b"].astype(str).map(index).to_numpy(np.int64)
        self.first = (
            np.where(frame["position"].to_numpy() == "b", -1.0, 1.0)
            if "position" in frame
            else np.ones(len(frame))
        )
        self.human = frame["human_label"].to_numpy(float)
        self.labels = labels
        self.sides, self.both = [], []
        for models in sets:
            own = np.isin(np.arange(len(self.models)), [index[m] for m in models])
            self.sides.append(own[self.a].astype(float) - own[self.b])
            self.both.append(own[self.a] & own[self.b])

    def __len__(self) -> int:
        return len(self.a)

    def human_gap(self, w: np.ndarray) -> np.ndarray:
        """h_A − h_B per battle: the human Bradley–Terry strengths fitted with weights w."""
        keep = np.isfinite(self.human) & (w > 0)
        stats = PairStats.from_battles(
            self.a[keep], self.b[keep], self.human[keep], self.models, weights=w[keep]
        )
        theta = fit_bt(stats).theta
        return theta[self.a] - theta[self.b]

    def regressions(self, w: np.ndarray) -> np.ndarray:
        """(γ, ψ, η) of every judge on every own set: shape (n_sets, n_judges, 3)."""
        gap = self.human_gap(w)
        out = np.empty((len(self.sides), len(self.judges), 3))
        for s, side in enumerate(self.sides):
            for k in range(len(self.judges)):
                label = self.labels[:, k]
                rows = np.isfinite(label) & (w > 0)
                out[s, k] = human_anchored_eta(
                    label[rows], self.first[rows], gap[rows], side[rows], weights=w[rows]
                )
        return out

    def scores(self, w: np.ndarray) -> np.ndarray:
        """Own-side scores on each set's battles, position-balanced: (n_sets, 1 + n_judges),
        the humans first. A battle counts when exactly one side is in the set and both the
        humans and the annotator labelled it."""
        out = np.empty((len(self.sides), 1 + len(self.judges)))
        own_first_of = [(side > 0) == (self.first > 0) for side in self.sides]
        for s, (side, own_first) in enumerate(zip(self.sides, own_first_of, strict=True)):
            for c, values in enumerate([self.human, *self.labels.T]):
                mine = (side != 0) & np.isfinite(self.human) & np.isfinite(values) & (w > 0)
                score = np.where(side > 0, values, 1 - values)
                means = [
                    np.average(score[mine & shown], weights=w[mine & shown])
                    for shown in (own_first, ~own_first)
                ]
                out[s, c] = 0.5 * (means[0] + means[1])
        return out

    def design(self, s: int, k: int) -> tuple[int, int, float]:
        """Battles with exactly one own side, battles between two own models, and the
        share of the first shown with the own model first, for set s and judge k."""
        side = self.sides[s]
        labelled = np.isfinite(self.labels[:, k])
        mine = labelled & (side != 0) & np.isfinite(self.human)
        own_first = (side > 0) == (self.first > 0)
        return int(mine.sum()), int((labelled & self.both[s]).sum()), float(own_first[mine].mean())


@dataclass(frozen=True, repr=False)
class SelfPreferenceCheck(ResultDisplay):
    """Judges' preference for their own models, measured against the humans.

    Attributes
    ----------
    table
        One row per (judge, own models): ``judge, own`` (comma-joined), ``n_battles``
        (battles with exactly one own side), ``n_excluded`` (battles between two own
        models), ``own_first`` (share of them with the own model shown first);
        ``human_score, judge_score`` (position-balanced own-side scores) and ``gap``
        (judge − human) with ``gap_lo, gap_hi``; the human-anchored regression's
        ``eta`` with ``eta_lo, eta_hi``, ``others_eta`` (the other judges' mean η on
        the same models) and ``excess`` = eta − others_eta with ``excess_lo,
        excess_hi``; the regression's ``psi`` and ``gamma`` (logit scale).
    scores
        The position-balanced own-side score of the humans and every judge on each
        row's battles (columns ``human`` and the judges).
    eta_by_judge
        Every judge's human-anchored η on each row's models (columns: the judges).
    placebo
        Every judge's human-anchored η on every single model (rows: models, columns:
        judges; full data): how large a judge's η on models that are not its own is.
        ``None`` when not asked for.
    replicates
        ``(n_boot, n_rows, 3)``: each replicate's ``gap``, ``eta`` and ``excess``.
    n_boot, alpha
        Replicates of the paired battle bootstrap and interval level 1 − α.
    """

    table: pd.DataFrame
    scores: pd.DataFrame
    eta_by_judge: pd.DataFrame
    placebo: pd.DataFrame | None
    replicates: np.ndarray
    n_boot: int
    alpha: float

    def to_frame(self) -> pd.DataFrame:
        """:attr:`table`."""
        return self.table.copy()

    def _headline(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        eta = "; ".join(
            f"η[{r.judge} on {r.own}] {r.eta:+.2f} [{r.eta_lo:+.2f}, {r.eta_hi:+.2f}]"
            for r in self.table.itertuples()
        )
        return (
            f"against the human labels of the same battles, {self.n_boot} replicates "
            f"({level}): {eta}"
        )

    def __str__(self) -> str:
        return (
            repr(self)[1:-1]
            + "\n"
            + self.table.to_string(index=False, float_format=lambda v: f"{v:.3f}")
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Each row's human-anchored η with its bootstrap interval; the other judges' η on
        the same models as crosses."""
        level = f"{100 * (1 - self.alpha):g}%"
        ax = interval_bars(
            [f"{r.judge}\non {r.own}" for r in self.table.itertuples()],
            self.table["eta"],
            self.table["eta_lo"],
            self.table["eta_hi"],
            ax,
            ylabel="η against humans (logit)",
            title=f"preference for own models against the human labels ({level} bootstrap)",
        )
        for n, row in enumerate(self.table.itertuples()):
            others = self.eta_by_judge.iloc[n].drop(["judge", "own", row.judge])
            ax.plot(
                np.full(len(others), n),
                others.to_numpy(float),
                "x",
                color="black",
                label="other judges, same models" if n == 0 else None,
            )
        ax.legend(frameon=False, fontsize=7)
        return ax


def self_preference_check(
    battles: Battles,
    own: Own,
    *,
    n_boot: int = 500,
    alpha: float = 0.05,
    placebo: bool = True,
    seed: int = 0,
    progress: bool = True,
) -> SelfPreferenceCheck:
    """Measure each judge's preference for its own models against the human labels.

    Parameters
    ----------
    battles
        Several judges' battles with the human label of the same battle on every row
        (as :func:`judgebayes.datasets.load_ppr`); ``position`` says which answer was
        shown first (model_a where absent).
    own
        ``{judge: model or [models]}``, or a list of ``(judge, model or [models])``
        pairs to check one judge against several sets (its own model; its family).
    n_boot
        Replicates of the paired battle bootstrap.
    alpha
        Intervals are central 1 − α percentile intervals.
    placebo
        Also fit every judge's η on every single model (:attr:`SelfPreferenceCheck.placebo`).
    seed
        Seed of the replicates.
    progress
        Show a progress bar.

    Returns
    -------
    SelfPreferenceCheck
    """
    require_paired_labels(battles, "self_preference_check")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    checks = _checks(own, battles)
    sets = list(dict.fromkeys(models for _, models in checks))
    arrays = _OwnBattles(battles, sets)
    judges = battles.judges
    where = [(sets.index(models), judges.index(judge)) for judge, models in checks]

    def summary(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per check: gap, η, excess; and the regressions and scores behind them."""
        fits, scores = arrays.regressions(w), arrays.scores(w)
        eta = fits[:, :, 2]
        rows = []
        for s, k in where:
            others = np.delete(eta[s], k).mean() if len(judges) > 1 else np.nan
            rows.append((scores[s, 1 + k] - scores[s, 0], eta[s, k], eta[s, k] - others))
        return np.asarray(rows), fits, scores

    ones = np.ones(len(arrays))
    full, fits, scores = summary(ones)
    replicates = np.full((n_boot, len(checks), 3), np.nan)
    counts = battle_counts(battles, n_boot=n_boot, seed=seed)
    for b, w in enumerate(
        tqdm(counts, total=n_boot, desc="paired battle bootstrap", disable=not progress)
    ):
        replicates[b] = summary(w.astype(float))[0]
    lo, hi = np.nanquantile(replicates, [alpha / 2, 1 - alpha / 2], axis=0)
    design = np.array([arrays.design(s, k) for s, k in where], float)
    table = pd.DataFrame(
        {
            "judge": [j for j, _ in checks],
            "own": [",".join(m) for _, m in checks],
            "n_battles": design[:, 0].astype(int),
            "n_excluded": design[:, 1].astype(int),
            "own_first": design[:, 2],
            "human_score": [scores[s, 0] for s, _ in where],
            "judge_score": [scores[s, 1 + k] for s, k in where],
        }
    )
    for c, name in enumerate(("gap", "eta")):
        table[name], table[f"{name}_lo"], table[f"{name}_hi"] = full[:, c], lo[:, c], hi[:, c]
    table["others_eta"] = full[:, 1] - full[:, 2]
    table["excess"], table["excess_lo"], table["excess_hi"] = full[:, 2], lo[:, 2], hi[:, 2]
    table["psi"] = [fits[s, k, 1] for s, k in where]
    table["gamma"] = [fits[s, k, 0] for s, k in where]
    label = pd.DataFrame({"judge": table["judge"], "own": table["own"]})
    score_frame = pd.concat(
        [label, pd.DataFrame([scores[s] for s, _ in where], columns=["human", *judges])], axis=1
    )
    eta_frame = pd.concat(
        [label, pd.DataFrame([fits[s, :, 2] for s, _ in where], columns=list(judges))], axis=1
    )
    placebo_frame = None
    if placebo:
        singles = _OwnBattles(battles, [(m,) for m in battles.models])
        placebo_frame = pd.DataFrame(
            singles.regressions(np.ones(len(singles)))[:, :, 2],
            index=pd.Index(battles.models, name="model"),
            columns=list(judges),
        )
    return SelfPreferenceCheck(
        table, score_frame, eta_frame, placebo_frame, replicates, n_boot, alpha
    )
