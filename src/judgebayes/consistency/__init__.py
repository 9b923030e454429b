"""Judge Consistency (seed 002): 1 − 4·(weighted mean Bernoulli variance) of a judge's
verdicts per matchup as a proxy for its Arena Elo, with matchup selection, convergence
curves, Elo prediction and clusters; and the Bayesian judge-discrimination (ψ) and
Dirichlet matchup models.
"""

from judgebayes._lazy import lazy_exports
from judgebayes.consistency.score import (
    ClusterCorrelations,
    ConvergenceCurve,
    EloAgreement,
    EloIntervals,
    EloPrediction,
    JudgeConsistency,
    MatchupCounts,
    MatchupVariance,
    PositionBias,
    cluster_correlations,
    compare_elo,
    consistency_from_counts,
    convergence_curve,
    elo_intervals_loo,
    judge_consistency,
    matchup_counts,
    matchup_variance,
    position_bias,
    predict_elo,
    rank_clusters,
    read_elo,
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
    "ClusterCorrelations",
    "ConvergenceCurve",
    "EloAgreement",
    "EloIntervals",
    "EloPrediction",
    "JudgeComparison",
    "JudgeConsistency",
    "MatchupCounts",
    "MatchupVariance",
    "PositionBias",
    "cluster_correlations",
    "compare_elo",
    "compare_judges",
    "consistency_from_counts",
    "consistency_posterior",
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
