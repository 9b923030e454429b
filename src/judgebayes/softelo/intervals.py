"""Conformal intervals on the human Elo axis (Kargi & Salinas, *From Uncertain Judgments to
Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221, Eq. 2–4,
Section 5.3, Appendix I).

* :func:`conformal_comparison`: hard and soft (and other) held-out Elo compared on
  the same random calibration/test splits of the models (the paper's split
  conformal), or by jackknife+ over all models (finite with few models);
* :class:`ConformalPool`: a stored calibration pool that gives a new model, judged
  only by the LLM, an interval on the human Elo axis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.conformal import (
    ConformalEvaluation,
    ConformalInterval,
    conformal_quantile,
    conformal_rank,
    evaluate_split_conformal,
    loo_conformal,
    nonconformity_scores,
    split_conformal,
)
from judgebayes.core.battles import Battles
from judgebayes.core.bootstrap import bootstrap_bt
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.softelo.held_out import HeldOutElo
from judgebayes.softelo.scores import method_target, soft_targets

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from judgebayes.softelo.verdicts import VerdictCalibration

__all__ = ["ConformalComparison", "ConformalPool", "conformal_comparison"]


CONFORMAL_METHODS = ("split", "jackknife+")


@dataclass(frozen=True, repr=False)
class ConformalComparison(ResultDisplay):
    """Conformal intervals of each Elo method (hard, soft, ...) on the same models.

    Attributes
    ----------
    table
        Per Elo method: ``conformal`` (``"split"`` or ``"jackknife+"``), ``coverage``
        (split: mean over splits; jackknife+: fraction of models covered by their own
        leave-one-out interval), ``median_width`` (split: mean of the per-split median
        widths, Table 3; jackknife+: median over models), ``width_min``, ``width_max``
        (range of the per-split medians, Table 3's brackets; NaN for jackknife+, which
        has no splits), ``q_hat`` (mean) and ``median_se`` (Appendix I's width
        decomposition, Fig. 17).
    evaluations
        The :class:`~judgebayes.conformal.ConformalEvaluation` of each Elo method.
    conformal
        ``"split"`` or ``"jackknife+"``.
    """

    table: pd.DataFrame
    evaluations: Mapping[str, ConformalEvaluation]
    conformal: str = "split"

    @property
    def note(self) -> str | None:
        """Why the intervals are unbounded (``None`` when they are finite)."""
        return next((ev.note for ev in self.evaluations.values() if ev.note), None)

    @property
    def design(self) -> str:
        """The conformal design in words (split sizes, or jackknife+ over n models)."""
        ev = next(iter(self.evaluations.values()))
        if self.conformal == "jackknife+":
            return (
                f"jackknife+ over {ev.n_calibration + 1} models (each calibrated on the "
                f"{ev.n_calibration} others)"
            )
        return (
            f"split conformal on {ev.n_splits} splits ({ev.n_calibration} calibration / "
            f"{ev.n_test} test models)"
        )

    def _headline(self) -> str:
        ev = next(iter(self.evaluations.values()))
        head = (
            f"{' vs '.join(self.table['method'])}, {self.design}: median width "
            f"{' → '.join(f'{w:.0f}' for w in self.table['median_width'])} Elo, coverage "
            f"{' / '.join(f'{c:.2f}' for c in self.table['coverage'])} "
            f"(target {1 - ev.alpha:.2f})"
        )
        if self.note is not None:
            head += (
                f"; UNBOUNDED: the level needs {conformal_rank(ev.n_calibration, ev.alpha)}"
                f" calibration models, there were {ev.n_calibration}"
            )
        return head

    def to_frame(self) -> pd.DataFrame:
        """The per-method table (see ``table``)."""
        return self.table.copy()

    def plot(
        self,
        held: HeldOutElo | None = None,
        ax: Axes | None = None,
        *,
        methods: tuple[str, ...] = ("hard", "soft"),
        kind: str = "intervals",
    ) -> Axes:
        """``kind="intervals"``: per-model intervals of ``methods`` on ``held``'s models,
        sorted by human Elo (Fig. 1c; :func:`judgebayes.plots.conformal_plot`).
        ``kind="widths"``: the width decomposition of Appendix I (Fig. 17), each method's
        (q̂, median SE) point with an arrow ``methods[0]`` → ``methods[1]`` on contours of
        constant width w = 2 q̂ SE (:func:`judgebayes.plots.width_decomposition_plot`)."""
        from judgebayes.plots import conformal_plot, width_decomposition_plot

        if kind == "widths":
            return width_decomposition_plot(
                width_points(self.table, label=self.conformal),
                ax=ax,
                start=methods[0],
                end=methods[-1],
            )
        if kind != "intervals":
            raise ValueError(f"kind must be 'intervals' or 'widths', got {kind!r}")
        if held is None:
            raise ValueError("kind='intervals' draws the models of a HeldOutElo: pass held")
        return conformal_plot(held.table, self.table, ax=ax, methods=methods)

    def __str__(self) -> str:
        ev = next(iter(self.evaluations.values()))
        text = f"{100 * (1 - ev.alpha):g}% {self.design}\n" + self.table.to_string(
            index=False, float_format="%.3f"
        )
        if self.conformal == "jackknife+":
            text += (
                "\nnote: a model's coverage by its own leave-one-out interval is "
                "⌈(1−α)n⌉/n by construction (a rank identity); the ≥ 1 − α guarantee is "
                "for a new model exchangeable with these"
            )
        if self.note is not None:
            text += f"\nnote: {self.note}"
        return text


def width_points(table: pd.DataFrame, label: str = "") -> pd.DataFrame:
    """One row ``label, q_hat_<method>, median_se_<method>, ...`` from a per-method
    conformal table: the points of Appendix I's width decomposition (Fig. 17)."""
    row: dict[str, object] = {"label": label}
    for r in table.itertuples(index=False):
        row[f"q_hat_{r.method}"] = r.q_hat
        row[f"median_se_{r.method}"] = r.median_se
    return pd.DataFrame([row])


def conformal_comparison(
    held: HeldOutElo,
    *,
    alpha: float = 0.1,
    n_calibration: int | None = None,
    n_splits: int = 5,
    seed: int = 0,
    method: str = "split",
) -> ConformalComparison:
    """Conformal intervals on the human Elo axis for every Elo method, paired on the same models.

    Scores S_i = |ε_i| / SE_i (Kargi & Salinas, 2026, Eqs. 2–3), half-width q̂·SE_i (Eq. 4).

    ``method="split"`` is the protocol of Section 5.3 / Table 3: models are split at
    random into a calibration set (27 of 55 in the paper; default ⌊M/2⌋) and a test
    set, ``n_splits`` times (the paper: 5) with the same seed for every Elo method, so
    the comparison is paired. With few models the level can need more calibration
    models than a split has (90 % needs ⌈0.9(n + 1)⌉ ≤ n, i.e. n ≥ 9): the widths are
    then infinite, the coverage trivially 1, and the result's ``note`` says so.

    ``method="jackknife+"`` is the leave-one-model-out conformal interval over all
    models (Barber, Candès, Ramdas & Tibshirani 2021, "Predictive inference with the
    jackknife+", Ann. Statist.). Jackknife+ refits the predictor without each
    calibration point i and uses the leave-one-out residuals R_i = |y_i − μ̂_{−i}(x_i)|
    and predictions μ̂_{−i}(x_new). Here the held-out Elo of Algorithm 1 already
    leaves each model's own human labels out of its prediction, and a model's
    prediction barely depends on which *other* model is also left out
    (μ̂_{−i}(x_new) ≈ μ̂(x_new)), so jackknife+ reduces to
    :func:`judgebayes.conformal.loo_conformal`: model i gets ŷ_i ± q̂_{−i}·SE_i with
    q̂_{−i} the ⌈(1 − α)n⌉-th smallest of the other n − 1 scores. If the n normalised
    scores are exchangeable each interval covers with probability ≥ 1 − α — stronger
    than jackknife+'s general 1 − 2α, because no refit's prediction differs from the
    one used. Every model serves as calibration, so 90 % intervals are finite from
    n = 10 models on (split conformal with half the models as calibration needs
    n ≥ 18). The in-sample coverage (each model by its own interval) is
    ⌈(1 − α)n⌉/n by construction; the guarantee is for a new exchangeable model.

    Parameters
    ----------
    held
        Held-out Elo with bootstrap SEs (``n_boot > 0``).
    alpha
        Miscoverage level.
    n_calibration, n_splits, seed
        Split design (``method="split"`` only).
    method
        ``"split"`` or ``"jackknife+"``.
    """
    if method not in CONFORMAL_METHODS:
        raise ValueError(f"method must be one of {CONFORMAL_METHODS}, got {method!r}")
    t = held.table
    if t[[f"se_{m}" for m in held.methods]].isna().any().any():
        raise DataError(
            "conformal intervals need the within-model bootstrap SEs: run "
            "held_out_elo with n_boot > 0"
        )
    rows, evals = [], {}
    for m in held.methods:
        args = (t["elo_human"].to_numpy(), t[f"elo_{m}"].to_numpy(), t[f"se_{m}"].to_numpy())
        if method == "split":
            ev = evaluate_split_conformal(
                *args, alpha=alpha, n_calibration=n_calibration, n_splits=n_splits, seed=seed
            )
            width = ev.median_width
            lo, hi = (
                float(np.min(ev.median_width_per_split)),
                float(np.max(ev.median_width_per_split)),
            )
        else:
            ev = loo_conformal(*args, alpha=alpha)
            width, lo, hi = float(np.median(ev.median_width_per_split)), np.nan, np.nan
        evals[m] = ev
        rows.append(
            {
                "method": m,
                "conformal": method,
                "coverage": ev.coverage,
                "median_width": width,
                "width_min": lo,
                "width_max": hi,
                "q_hat": float(np.mean(ev.q_hat_per_split)),
                "median_se": float(np.median(t[f"se_{m}"])),
            }
        )
    return ConformalComparison(table=pd.DataFrame(rows), evaluations=evals, conformal=method)


@dataclass(frozen=True, repr=False)
class ConformalPool(ResultDisplay):
    """A stored calibration pool: conformal intervals on the human Elo axis for new models.

    Attributes
    ----------
    human, elo, se
        Human Elo, judge-derived held-out Elo and its SE of the calibration models.
    alpha
        Miscoverage level.
    method
        The method the pool was built from.
    """

    human: np.ndarray
    elo: np.ndarray
    se: np.ndarray
    alpha: float
    method: str

    @property
    def q_hat(self) -> float:
        """q̂ of the pool (Eq. 4): the interval half-width is q̂ · SE."""
        return conformal_quantile(nonconformity_scores(self.human, self.elo, self.se), self.alpha)

    def _headline(self) -> str:
        return (
            f"{self.method} pool of {len(self.human)} calibration models at "
            f"α = {self.alpha:g}: q̂ {self.q_hat:.2f}, median SE "
            f"{np.median(self.se):.1f} Elo"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per calibration model: ``elo_human, elo, se, score`` (S_i of Eq. 3)."""
        return pd.DataFrame(
            {
                "elo_human": self.human,
                "elo": self.elo,
                "se": self.se,
                "score": nonconformity_scores(self.human, self.elo, self.se),
            }
        )

    @classmethod
    def from_held_out(
        cls,
        held: HeldOutElo,
        *,
        method: str = "soft",
        alpha: float = 0.1,
        exclude: Sequence[str] = (),
    ) -> ConformalPool:
        """Pool of the held-out models (less ``exclude``, e.g. the model to predict)."""
        t = held.table[~held.table["model"].isin(list(exclude))]
        return cls(
            t["elo_human"].to_numpy(),
            t[f"elo_{method}"].to_numpy(),
            t[f"se_{method}"].to_numpy(),
            alpha,
            method,
        )

    def interval(self, elo: float | np.ndarray, se: float | np.ndarray) -> ConformalInterval:
        """Eq. 4 for new models with judge-derived Elo ``elo`` and bootstrap SE ``se``."""
        return split_conformal(
            np.atleast_1d(elo),
            self.human,
            self.elo,
            se=np.atleast_1d(se),
            calib_se=self.se,
            alpha=self.alpha,
        )

    def predict(
        self,
        battles: Battles,
        model: str,
        anchors: Mapping[str, float],
        *,
        beta: float | None = None,
        calibration: VerdictCalibration | None = None,
        lam: float = 0.01,
        n_boot: int = 20,
        score: str = "score_diff",
        judge: str = "judge_label",
        seed: int = 0,
    ) -> ConformalInterval:
        """Human-Elo interval for a new model that has only judge battles.

        Fits the new model's Elo with the anchors held fixed (Algorithm 1, step 7)
        on the pool's kind of targets (σ(β s) for ``soft``, the verdict class's ỹ_c for
        ``verdict``, judge labels for ``hard``), its SE by ``n_boot`` within-model
        bootstrap resamples, and returns Eq. 4's interval.

        Parameters
        ----------
        battles
            The new model's judged battles against anchor models.
        model
            The new model's name.
        anchors
            ``{anchor: Elo}`` of the anchor models (from the same method).
        beta
            Temperature for ``soft`` pools (β* fitted on the calibration data).
        calibration
            Verdict-class table for ``verdict`` pools (fitted on the calibration data,
            :func:`~judgebayes.softelo.verdicts.calibrate_verdicts`).
        """
        if self.method == "soft":
            if beta is None:
                raise ValueError("a soft pool needs the temperature beta")
            target = soft_targets(battles.column(score), beta)
        elif self.method == "verdict":
            if calibration is None:
                raise ValueError("a verdict pool needs the verdict-class calibration")
            from judgebayes.softelo.verdicts import VerdictClasses  # loads rankings

            classes = VerdictClasses.from_battles(battles, judge=judge, human=None)
            target = classes.targets(calibration)
        else:
            target = method_target(
                self.method, np.asarray(battles.column(judge), float), None, np.nan
            )
        boot = bootstrap_bt(
            battles,
            target=target,
            lam=lam,
            fixed=anchors,
            within=model,
            n_boot=n_boot,
            seed=seed,
            progress=False,
        )
        k = boot.models.index(model)
        return self.interval(boot.elo[k], boot.se[k])
