"""Judge Consistency (Ramaswamy, Demeure & Rrapaj, *Model Consistency as a Cheap yet Predictive
Proxy for LLM Elo Scores*, EMNLP 2025, arXiv:2509.23510): 1 − 4·(weighted mean Bernoulli variance)
of a judge's
verdicts per matchup as a proxy for its Arena Elo, with matchup selection, convergence
curves, Elo prediction and clusters; and the Bayesian judge-discrimination (ψ) and
Dirichlet matchup models.

Modules: :mod:`~judgebayes.consistency.counts` (the per judge × ordered matchup
counts every analysis starts from), :mod:`~judgebayes.consistency.score` (the
Consistency score, Eqs. 1–3), :mod:`~judgebayes.consistency.evidence` (its
standard error and the low-evidence flag), :mod:`~judgebayes.consistency.elo` (agreement
with Arena Elo, Section 3.2), :mod:`~judgebayes.consistency.elo_prediction`
(intervals for a new judge's Elo), :mod:`~judgebayes.consistency.matchup_selection`
(Section 3.3, Figures 2–3), :mod:`~judgebayes.consistency.clusters` (Appendix A.3),
:mod:`~judgebayes.consistency.position` (position bias) and
:mod:`~judgebayes.consistency.model` (the Bayesian models; loads JAX, imported on
first use of its names).
"""

from judgebayes._lazy import lazy_exports
from judgebayes.consistency.clusters import (
    ClusterCorrelations,
    cluster_correlations,
    rank_clusters,
)
from judgebayes.consistency.counts import MatchupCounts, matchup_counts
from judgebayes.consistency.elo import EloAgreement, compare_elo, read_elo
from judgebayes.consistency.elo_prediction import (
    EloIntervals,
    EloPrediction,
    elo_intervals_loo,
    predict_elo,
)
from judgebayes.consistency.evidence import (
    MIN_CONTESTS_PER_MATCHUP,
    LowEvidenceWarning,
    consistency_se,
)
from judgebayes.consistency.matchup_selection import (
    ConvergenceCurve,
    MatchupVariance,
    convergence_curve,
    matchup_variance,
)
from judgebayes.consistency.position import PositionBias, position_bias
from judgebayes.consistency.score import (
    JudgeConsistency,
    consistency_from_counts,
    judge_consistency,
)

# Bayesian names load JAX: imported on first use.
_LAZY = {
    "JudgeComparison": "judgebayes.consistency.model",
    "compare_judges": "judgebayes.consistency.model",
    "consistency_posterior": "judgebayes.consistency.model",
    "fit_judge_discrimination": "judgebayes.consistency.model",
    "judge_discrimination_data": "judgebayes.consistency.model",
    "judge_discrimination_model": "judgebayes.consistency.model",
    "matchup_dirichlet_data": "judgebayes.consistency.model",
    "matchup_dirichlet_model": "judgebayes.consistency.model",
}

__all__ = [
    "MIN_CONTESTS_PER_MATCHUP",
    "ClusterCorrelations",
    "ConvergenceCurve",
    "EloAgreement",
    "EloIntervals",
    "EloPrediction",
    "JudgeComparison",
    "JudgeConsistency",
    "LowEvidenceWarning",
    "MatchupCounts",
    "MatchupVariance",
    "PositionBias",
    "cluster_correlations",
    "compare_elo",
    "compare_judges",
    "consistency_from_counts",
    "consistency_posterior",
    "consistency_se",
    "convergence_curve",
    "elo_intervals_loo",
    "fit_judge_discrimination",
    "judge_consistency",
    "judge_discrimination_data",
    "judge_discrimination_model",
    "matchup_counts",
    "matchup_dirichlet_data",
    "matchup_dirichlet_model",
    "matchup_variance",
    "position_bias",
    "predict_elo",
    "rank_clusters",
    "read_elo",
]
__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
