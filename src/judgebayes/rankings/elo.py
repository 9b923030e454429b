"""Elo estimates with an asymptotic covariance, and their rank-sets.

The frequentist estimators of :mod:`judgebayes.rankings` (prediction-powered
Bradley–Terry, verdict-class soft targets, the human-only fit) are M-estimators: θ̂ is
asymptotically Normal with a sandwich covariance H⁻¹ V H⁻¹. :class:`EloEstimate` holds θ̂
and that covariance on the Elo scale; :meth:`EloEstimate.ranking` turns them into
simultaneous rank-sets by drawing from the Normal approximation and handing the draws to
the board's rank-set construction (the same one the bootstrap and the posterior use).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes._stats import norm_ppf
from judgebayes.core.ranksets import normal_draws, rank_sets
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay
from judgebayes.rankings.ranking import Ranking

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["EloEstimate"]


@dataclass(frozen=True, repr=False)
class EloEstimate(ResultDisplay):
    """Bradley–Terry strengths on the Elo scale (mean 1500) with their covariance.

    Attributes
    ----------
    models
        Model names.
    elo
        Point estimates, Elo = 1500 + (400 / ln 10)·θ̂ with Σθ̂ = 0.
    cov
        Asymptotic covariance of ``elo`` (Elo²), singular along the common shift.
    method
        The estimator's name.
    judges
        The judges whose verdicts it used.
    lam
        Power-tuning weight of every judge (PPI++), empty where there is none.
    n_labelled, n_judged
        Human-labelled battles and judge-only battles used.
    report
        Battles received and not used.
    """

    models: tuple[str, ...]
    elo: np.ndarray
    cov: np.ndarray
    method: str
    judges: tuple[str, ...]
    lam: tuple[float, ...] = ()
    n_labelled: int = 0
    n_judged: int = 0
    report: DropReport = field(default_factory=lambda: DropReport(0))

    @property
    def se(self) -> np.ndarray:
        """Standard error of every Elo."""
        return np.sqrt(np.clip(np.diag(self.cov), 0.0, None))

    def _headline(self) -> str:
        who = ", ".join(self.judges) if self.judges else "humans only"
        lam = f", λ = {', '.join(f'{x:.2f}' for x in self.lam)}" if self.lam else ""
        top = int(np.argmax(self.elo))
        return (
            f"{self.method} ({who}{lam}): {len(self.models)} models, {self.n_labelled:,} "
            f"human labels + {self.n_judged:,} judge-only battles; top {self.models[top]} "
            f"{self.elo[top]:.0f} ± {self.se[top]:.0f}"
        )

    def to_frame(self) -> pd.DataFrame:
        """``model, elo, se``, best first."""
        frame = pd.DataFrame({"model": self.models, "elo": self.elo, "se": self.se})
        return frame.sort_values("elo", ascending=False, ignore_index=True)

    def draws(self, n_draws: int = 4000, *, seed: int = 0) -> np.ndarray:
        """Draws from the Normal approximation N(elo, cov), shape ``(n_draws, n_models)``."""
        # not Cholesky: the covariance is singular along the common shift (normal_draws)
        return normal_draws(self.elo, self.cov, n_draws, seed)

    def _details(self) -> dict[str, float]:
        """``lambda`` (Σλ_j) and ``lambda[judge]`` for every judge, where there are weights."""
        if not self.lam:
            return {}
        out = {"lambda": float(sum(self.lam))}
        out.update({f"lambda[{j}]": float(x) for j, x in zip(self.judges, self.lam, strict=True)})
        return out

    def plot(self, ax: Axes | None = None, *, alpha: float = 0.1) -> Axes:
        """Forest plot of :meth:`ranking` at level 1 − α (rank-sets and tiers included)."""
        return self.ranking(alpha).plot(ax)

    def ranking(self, alpha: float = 0.1, *, n_draws: int = 4000, seed: int = 0) -> Ranking:
        """Elo intervals and simultaneous rank-sets at level 1 − α.

        The marginal intervals are Elo ± z_{1−α/2}·SE; the rank-sets and tiers come from
        :func:`~judgebayes.core.ranksets.rank_sets` (max-|t| on Elo differences) applied to
        ``n_draws`` draws of the Normal approximation, seeded by ``seed``.
        """
        draws = self.draws(n_draws, seed=seed)
        z = norm_ppf(1 - alpha / 2)
        return Ranking(
            models=self.models,
            method=self.method,
            judges=self.judges,
            alpha=alpha,
            scale="elo",
            estimate=self.elo,
            lower=self.elo - z * self.se,
            upper=self.elo + z * self.se,
            se=self.se,
            rank_sets=rank_sets(draws, models=self.models, estimate=self.elo, alpha=alpha),
            n_labelled=self.n_labelled,
            n_judged=self.n_judged,
            details=self._details(),
            report=self.report,
            draws=draws,
        )
