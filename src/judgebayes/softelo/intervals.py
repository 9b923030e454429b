"""Split-conformal intervals on the human Elo axis (seed 000, Eq. 2–4, Section 5.3).

* :func:`conformal_comparison`: hard and soft (and other) held-out Elo compared on
  the same random calibration/test splits of the models;
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
    evaluate_split_conformal,
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

__all__ = ["ConformalComparison", "ConformalPool", "conformal_comparison"]


@dataclass(frozen=True, repr=False)
class ConformalComparison(ResultDisplay):
    """Split-conformal intervals of each method on the same random model splits.

    Attributes
    ----------
    table
        Per method: ``coverage`` (mean over splits), ``median_width`` (mean of
        the per-split median width), ``width_min``, ``width_max``, ``q_hat``
        (mean), ``median_se`` (Appendix I's width decomposition).
    evaluations
        The :class:`~judgebayes.conformal.ConformalEvaluation` of each method.
    """

    table: pd.DataFrame
    evaluations: Mapping[str, ConformalEvaluation]

    def _headline(self) -> str:
        ev = next(iter(self.evaluations.values()))
        return (f"{' vs '.join(self.table['method'])} on {ev.n_splits} splits "
                f"({ev.n_calibration} calibration / {ev.n_test} test models): median width "
                f"{' → '.join(f'{w:.0f}' for w in self.table['median_width'])} Elo, coverage "
                f"{' / '.join(f'{c:.2f}' for c in self.table['coverage'])} "
                f"(target {1 - ev.alpha:.2f})")

    def to_frame(self) -> pd.DataFrame:
        """The per-method table (see ``table``)."""
        return self.table.copy()

    def plot(self, held: HeldOutElo, ax: Axes | None = None, *,
             methods: tuple[str, ...] = ("hard", "soft")) -> Axes:
        """Per-model intervals of ``methods`` on ``held``'s models, sorted by human Elo
        (see :func:`judgebayes.plots.conformal_plot`)."""
        from judgebayes.plots import conformal_plot

        return conformal_plot(held.table, self.table, ax=ax, methods=methods)

    def __str__(self) -> str:
        return self.table.to_string(index=False, float_format="%.3f")


def conformal_comparison(held: HeldOutElo, *, alpha: float = 0.1,
                         n_calibration: int | None = None, n_splits: int = 5,
                         seed: int = 0) -> ConformalComparison:
    """Hard vs soft (vs others) split-conformal intervals, paired on the same splits.

    Seed 000, Section 5.3: models are split at random into a calibration set
    (27 of 55 in the paper; default ⌊M/2⌋) and a test set, scores
    S_i = |ε_i| / SE_i (Eq. 3), half-width q̂·SE (Eq. 4); ``n_splits`` splits
    (the paper: 5) with the same seed for every method, so the comparison is
    paired.
    """
    t = held.table
    if t[[f"se_{m}" for m in held.methods]].isna().any().any():
        raise DataError("conformal intervals need the within-model bootstrap SEs: run "
                        "held_out_elo with n_boot > 0")
    rows, evals = [], {}
    for m in held.methods:
        ev = evaluate_split_conformal(t["elo_human"].to_numpy(), t[f"elo_{m}"].to_numpy(),
                                      t[f"se_{m}"].to_numpy(), alpha=alpha,
                                      n_calibration=n_calibration, n_splits=n_splits, seed=seed)
        evals[m] = ev
        rows.append({"method": m, "coverage": ev.coverage, "median_width": ev.median_width,
                     "width_min": float(np.min(ev.median_width_per_split)),
                     "width_max": float(np.max(ev.median_width_per_split)),
                     "q_hat": float(np.mean(ev.q_hat_per_split)),
                     "median_se": float(np.median(t[f"se_{m}"]))})
    return ConformalComparison(table=pd.DataFrame(rows), evaluations=evals)


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
        return conformal_quantile(nonconformity_scores(self.human, self.elo, self.se),
                                  self.alpha)

    def _headline(self) -> str:
        return (f"{self.method} pool of {len(self.human)} calibration models at "
                f"α = {self.alpha:g}: q̂ {self.q_hat:.2f}, median SE "
                f"{np.median(self.se):.1f} Elo")

    def to_frame(self) -> pd.DataFrame:
        """One row per calibration model: ``elo_human, elo, se, score`` (S_i of Eq. 3)."""
        return pd.DataFrame({"elo_human": self.human, "elo": self.elo, "se": self.se,
                             "score": nonconformity_scores(self.human, self.elo, self.se)})

    @classmethod
    def from_held_out(cls, held: HeldOutElo, *, method: str = "soft", alpha: float = 0.1,
                      exclude: Sequence[str] = ()) -> ConformalPool:
        """Pool of the held-out models (less ``exclude``, e.g. the model to predict)."""
        t = held.table[~held.table["model"].isin(list(exclude))]
        return cls(t["elo_human"].to_numpy(), t[f"elo_{method}"].to_numpy(),
                   t[f"se_{method}"].to_numpy(), alpha, method)

    def interval(self, elo: float | np.ndarray, se: float | np.ndarray) -> ConformalInterval:
        """Eq. 4 for new models with judge-derived Elo ``elo`` and bootstrap SE ``se``."""
        return split_conformal(np.atleast_1d(elo), self.human, self.elo,
                               se=np.atleast_1d(se), calib_se=self.se, alpha=self.alpha)

    def predict(self, battles: Battles, model: str, anchors: Mapping[str, float], *,
                beta: float | None = None, lam: float = 0.01, n_boot: int = 20,
                score: str = "score_diff", judge: str = "judge_label",
                seed: int = 0) -> ConformalInterval:
        """Human-Elo interval for a new model that has only judge battles.

        Fits the new model's Elo with the anchors held fixed (Algorithm 1, step 7)
        on the pool's kind of targets (σ(β s) for ``soft``, judge labels for
        ``hard``), its SE by ``n_boot`` within-model bootstrap resamples, and
        returns Eq. 4's interval.

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
        """
        if self.method == "soft":
            if beta is None:
                raise ValueError("a soft pool needs the temperature beta")
            target = soft_targets(battles.column(score), beta)
        else:
            target = method_target(self.method, np.asarray(battles.column(judge), float),
                                    None, np.nan)
        boot = bootstrap_bt(battles, target=target, lam=lam, fixed=anchors, within=model,
                            n_boot=n_boot, seed=seed, progress=False)
        k = boot.models.index(model)
        return self.interval(boot.elo[k], boot.se[k])

