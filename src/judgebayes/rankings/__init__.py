"""Calibrated rankings from many judge verdicts and a few human labels.

Every estimator here combines n battles that carry a human label with N battles that
carry only judge verdicts, and returns a :class:`~judgebayes.rankings.ranking.Ranking`:
scores with intervals and rank-sets, simultaneous at level 1 − α. One module per family:

* :mod:`~judgebayes.rankings.ppr`: Prediction-Powered Ranking (Chatzi et al., NeurIPS 2024,
  arXiv:2402.17826): PPI-corrected win rates and χ²(k) ellipsoid rank-sets;
* :mod:`~judgebayes.rankings.ppi_bt`: prediction-powered Bradley–Terry (PPI++,
  Angelopoulos et al. 2023, arXiv:2311.01453, for the BT M-estimator): Elo, not win rate;
* :mod:`~judgebayes.rankings.soft_targets`: P(humans prefer A | the judges' verdicts)
  from the labelled battles, Bradley–Terry on those soft targets;
* :mod:`~judgebayes.rankings.latent`: the Bayesian latent-outcome model (Dawid–Skene for
  pairwise comparisons: the human outcome latent where unlabelled, every judge reading it
  through its confusion matrix by position, optionally by model), fitted by ``jb.fit``
  (NUTS) or by MAP, one data set or many at once.
  Its names load JAX on first use; the rest of the subpackage does not.

:mod:`~judgebayes.rankings.simulate` simulates the story of all of them (a latent human
outcome, judges reading it through confusion matrices).

The battles are held as arrays in :class:`~judgebayes.rankings.data.RankingData`.
"""

from judgebayes._lazy import lazy_exports
from judgebayes.rankings.data import OUTCOMES, RankingData, outcome_codes
from judgebayes.rankings.elo import EloEstimate
from judgebayes.rankings.ppi_bt import ppi_bt, ppi_bt_lambda
from judgebayes.rankings.ppr import (
    WinRates,
    ellipsoid_rank_sets,
    human_win_rates,
    judge_win_rates,
    ppr_lambda,
    ppr_win_rates,
    prediction_powered_ranking,
)
from judgebayes.rankings.rank import METHODS, judge_report, rank_battles
from judgebayes.rankings.ranking import Ranking
from judgebayes.rankings.simulate import (
    SimulatedJudgedBattles,
    simulate_judged_battles,
    verdict_probs,
)
from judgebayes.rankings.soft_targets import soft_target_bt, verdict_calibration

# the Bayesian model: imported (with JAX) on first use
_LAZY = {
    "DecisiveRows": "judgebayes.rankings.decisive_rows",
    "LatentFit": "judgebayes.rankings.latent",
    "bt_equivalent_theta": "judgebayes.rankings.latent",
    "fit_latent_outcome": "judgebayes.rankings.latent",
    "fit_latent_outcome_many": "judgebayes.rankings.latent",
    "latent_outcome_data": "judgebayes.rankings.latent",
    "latent_outcome_model": "judgebayes.rankings.latent",
    "latent_outcome_spec": "judgebayes.rankings.latent",
}

__all__ = [
    "METHODS",
    "OUTCOMES",
    "DecisiveRows",
    "EloEstimate",
    "LatentFit",
    "Ranking",
    "RankingData",
    "SimulatedJudgedBattles",
    "WinRates",
    "bt_equivalent_theta",
    "ellipsoid_rank_sets",
    "fit_latent_outcome",
    "fit_latent_outcome_many",
    "human_win_rates",
    "judge_report",
    "judge_win_rates",
    "latent_outcome_data",
    "latent_outcome_model",
    "latent_outcome_spec",
    "outcome_codes",
    "ppi_bt",
    "ppi_bt_lambda",
    "ppr_lambda",
    "ppr_win_rates",
    "prediction_powered_ranking",
    "rank_battles",
    "simulate_judged_battles",
    "soft_target_bt",
    "verdict_calibration",
    "verdict_probs",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
