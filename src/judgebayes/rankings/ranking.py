"""What every estimator of :mod:`judgebayes.rankings` returns: a board with rank-sets.

A rank-set is an interval of ranks ``[rank_lo, rank_hi]`` (1 = best) per model, the
intervals simultaneously valid at level 1 − α: with probability ≥ 1 − α every model's
true rank lies in its set (Chatzi et al., "Prediction-Powered Ranking of Large Language
Models", NeurIPS 2024, arXiv:2402.17826, Section 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.core.ranksets import RankSets
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["Ranking"]


@dataclass(frozen=True, repr=False)
class Ranking(ResultDisplay):
    """A calibrated board: scores with intervals, simultaneous rank-sets and tiers.

    Attributes
    ----------
    models
        Model names.
    method
        The estimator (``"ppr"``, ``"ppi_bt"``, ``"soft_targets"``, ``"latent"``, ...).
    judges
        The judges whose verdicts the estimate used (empty: humans only).
    alpha
        Rank-sets and score intervals have level 1 − α.
    scale
        ``"elo"`` (Bradley–Terry strengths on the Elo scale) or ``"win_rate"`` (PPR's
        mean win rate).
    estimate, lower, upper, se
        Score per model, its marginal 1 − α interval and standard error.
    rank_sets
        Simultaneous rank-sets and tiers
        (:class:`~judgebayes.core.ranksets.RankSets`, 1 = best).
    n_labelled, n_judged
        Battles with a human label, and with a judge verdict only, that the estimate used.
    details
        Estimator-specific numbers (e.g. ``{"lambda": 0.31}``, the power-tuning weight).
    report
        Battles received and left out.
    draws
        Score draws (normal approximation or posterior) behind the rank-sets, shape
        ``(n_draws, n_models)``, or ``None`` (PPR's ellipsoid needs none).
    """

    models: tuple[str, ...]
    method: str
    judges: tuple[str, ...]
    alpha: float
    scale: str
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    se: np.ndarray
    rank_sets: RankSets
    n_labelled: int
    n_judged: int
    details: Mapping[str, float] = field(default_factory=dict)
    report: DropReport = field(default_factory=lambda: DropReport(0))
    draws: np.ndarray | None = None

    @property
    def rank_lo(self) -> np.ndarray:
        return self.rank_sets.rank_lo

    @property
    def rank_hi(self) -> np.ndarray:
        return self.rank_sets.rank_hi

    @property
    def tier(self) -> np.ndarray:
        return self.rank_sets.tier

    @property
    def size(self) -> np.ndarray:
        """Rank-set sizes ``rank_hi − rank_lo + 1``."""
        return self.rank_sets.size

    @property
    def mean_size(self) -> float:
        """Mean rank-set size (Chatzi et al.'s first metric)."""
        return float(self.size.mean())

    def contains(self, ranks: Mapping[str, int]) -> np.ndarray:
        """Whether each model's rank-set holds its rank in ``ranks`` (``{model: rank}``)."""
        return self.rank_sets.contains(np.array([ranks[m] for m in self.models]))

    def _headline(self) -> str:
        who = ", ".join(self.judges) if self.judges else "humans only"
        lam = f", λ = {self.details['lambda']:.2f}" if "lambda" in self.details else ""
        return (
            f"{self.method} ({who}{lam}) on {len(self.models)} models, "
            f"{self.n_labelled:,} human labels + {self.n_judged:,} judge-only battles; "
            f"{1 - self.alpha:.0%} rank-sets, mean size {self.mean_size:.2f}, "
            f"{self.rank_sets.n_tiers} tiers"
        )

    def to_frame(self) -> pd.DataFrame:
        """The board, best first: ``model, elo, elo_lo, elo_hi, se, rank_lo, rank_hi, tier``.

        On PPR's scale the score columns are ``win_rate, win_rate_lo, win_rate_hi``.
        """
        name = self.scale
        frame = pd.DataFrame(
            {
                "model": self.models,
                name: self.estimate,
                f"{name}_lo": self.lower,
                f"{name}_hi": self.upper,
                "se": self.se,
                "rank_lo": self.rank_lo.astype(int),
                "rank_hi": self.rank_hi.astype(int),
                "tier": self.tier.astype(int),
            }
        )
        return frame.sort_values(name, ascending=False, ignore_index=True)

    def __str__(self) -> str:
        digits = "%.1f" if self.scale == "elo" else "%.3f"
        return (
            repr(self)[1:-1]
            + f"; {self.report}\n"
            + self.to_frame().to_string(index=False, float_format=digits)
        )

    def plot(self, ax: Axes | None = None, *, truth: Mapping[str, float] | None = None) -> Axes:
        """Forest plot: scores with their intervals, rank-sets at the right, tiers shaded
        (:func:`judgebayes.plots.forest`)."""
        from judgebayes.plots import forest

        frame = self.to_frame()
        if self.scale != "elo":
            frame = frame.rename(
                columns={
                    self.scale: "elo",
                    f"{self.scale}_lo": "elo_lo",
                    f"{self.scale}_hi": "elo_hi",
                }
            )
        ax = forest(frame, ax=ax, alpha=self.alpha, truth=truth)
        ax.set_xlabel(self.scale.replace("_", " "))
        ax.get_legend().texts[0].set_text(
            f"{self.scale.replace('_', ' ')}, {1 - self.alpha:.0%} interval"
        )
        ax.set_title(self._headline().split(";")[0], fontsize=8)
        return ax
