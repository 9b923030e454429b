"""Multi-judge consensus (Zhang, Wang, Wu, Yu, Wang, Bao & Tang, *UDA: Unsupervised Debiasing
Alignment for Pair-wise LLM-as-a-Judge*, 2025, arXiv:2508.09724, UDA): per-judge Elo, inter-judge
dispersion, the UDA
adapter trained toward the judges' consensus, and its Bayesian counterpart.

Modules: :mod:`~judgebayes.consensus.ratings` (judge × model rating tables, the paper's
printed matrices), :mod:`~judgebayes.consensus.metrics` (inter-judge SD, correlation with a
reference, self-preference deviations: Tables 1–3, Figures 2, 4, 5),
:mod:`~judgebayes.consensus.elo` (the baseline online Elo of Eq. 1, with an explicit battle
order, and per-judge Bradley–Terry), :mod:`~judgebayes.consensus.features` (Algorithm 1),
:mod:`~judgebayes.consensus.simulate` (judges that favour answers resembling their own,
with known truth), :mod:`~judgebayes.consensus.resample` (the paired battle bootstrap of
several judges and the humans on the same battles),
:mod:`~judgebayes.consensus.balance` (weights that cancel a position bias within pairs),
:mod:`~judgebayes.consensus.self_check` (self-preference measured against the human labels
of the same battles); JAX-based, imported on first use of their names:
:mod:`~judgebayes.consensus.recursion` (Algorithm 2 as a differentiable ``lax.scan``),
:mod:`~judgebayes.consensus.adapter` (the MLP f_θ of Eq. 2, save/load),
:mod:`~judgebayes.consensus.train` (the consensus loss of Eq. 3, AdamW training) and
:mod:`~judgebayes.consensus.bayes` (the hierarchical multi-judge Bradley–Terry as the
principled consensus: consensus Elo with intervals, self-preference η, judge quality ψ)
and :mod:`~judgebayes.consensus.agreement` (every judge's board and the consensus boards
scored against the human board of the same battles, with paired bootstrap intervals).
"""

from judgebayes._lazy import lazy_exports
from judgebayes.consensus.balance import balance_positions
from judgebayes.consensus.elo import battle_order, bt_by_judge, elo_loop, online_elo
from judgebayes.consensus.features import feature_dim, uda_features
from judgebayes.consensus.metrics import (
    ConsensusComparison,
    compare_rating_methods,
    reference_correlation,
    self_preference_deviation,
)
from judgebayes.consensus.ratings import (
    PAPER_TABLES,
    EloTable,
    JudgeRatings,
    paper_table,
    read_elo_table,
)
from judgebayes.consensus.resample import battle_counts, resample_battles
from judgebayes.consensus.self_check import (
    SelfPreferenceCheck,
    human_anchored_eta,
    self_preference_check,
)
from judgebayes.consensus.simulate import SimulatedConsensus, simulate_consensus

# JAX-based names: imported on first use.
_LAZY = {
    "BayesConsensus": "judgebayes.consensus.bayes",
    "HumanComparison": "judgebayes.consensus.agreement",
    "board_metrics": "judgebayes.consensus.agreement",
    "compare_with_humans": "judgebayes.consensus.agreement",
    "UDAAdapter": "judgebayes.consensus.adapter",
    "consensus_loss": "judgebayes.consensus.train",
    "elo_scan": "judgebayes.consensus.recursion",
    "elo_scan_judges": "judgebayes.consensus.recursion",
    "elo_trajectory": "judgebayes.consensus.recursion",
    "fit_consensus": "judgebayes.consensus.bayes",
    "fit_uda": "judgebayes.consensus.train",
    "load_adapter": "judgebayes.consensus.adapter",
}

__all__ = [
    "PAPER_TABLES",
    "BayesConsensus",
    "ConsensusComparison",
    "EloTable",
    "HumanComparison",
    "JudgeRatings",
    "SelfPreferenceCheck",
    "SimulatedConsensus",
    "UDAAdapter",
    "balance_positions",
    "battle_counts",
    "battle_order",
    "board_metrics",
    "bt_by_judge",
    "compare_rating_methods",
    "compare_with_humans",
    "consensus_loss",
    "elo_loop",
    "elo_scan",
    "elo_scan_judges",
    "elo_trajectory",
    "feature_dim",
    "fit_consensus",
    "fit_uda",
    "human_anchored_eta",
    "load_adapter",
    "online_elo",
    "paper_table",
    "read_elo_table",
    "reference_correlation",
    "resample_battles",
    "self_preference_check",
    "self_preference_deviation",
    "simulate_consensus",
    "uda_features",
]
__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
