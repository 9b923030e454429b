"""Calibrated rankings from many judge verdicts and a few human labels.

Every estimator here combines n battles that carry a human label with N battles that
carry only judge verdicts, and returns a :class:`~judgebayes.rankings.ranking.Ranking`:
scores with intervals and rank-sets, simultaneous at level 1 − α. One module per family:

* :mod:`~judgebayes.rankings.ppr`: Prediction-Powered Ranking (Chatzi et al., NeurIPS 2024,
  arXiv:2402.17826): PPI-corrected win rates and χ²(k) ellipsoid rank-sets.

The battles are held as arrays in :class:`~judgebayes.rankings.data.RankingData`.
"""

from judgebayes.rankings.data import OUTCOMES, RankingData, outcome_codes
from judgebayes.rankings.ppr import (
    WinRates,
    ellipsoid_rank_sets,
    human_win_rates,
    judge_win_rates,
    ppr_lambda,
    ppr_win_rates,
    prediction_powered_ranking,
)
from judgebayes.rankings.ranking import Ranking
from judgebayes.rankings.tiers import tiers_from_rank_sets

__all__ = [
    "OUTCOMES",
    "Ranking",
    "RankingData",
    "WinRates",
    "ellipsoid_rank_sets",
    "human_win_rates",
    "judge_win_rates",
    "outcome_codes",
    "ppr_lambda",
    "ppr_win_rates",
    "prediction_powered_ranking",
    "tiers_from_rank_sets",
]
