"""judgebayes: calibrated, uncertainty-aware model evaluation from LLM-judge verdicts.

The frequentist side (loaders, Bradley–Terry with bootstrap intervals, Soft-Elo,
conformal intervals, calibration estimators, Consistency) is imported eagerly and
needs no JAX. The Bayesian side (:func:`fit`, :mod:`models`, :func:`ppc`,
:func:`sbc`, ...) is one attribute away and loads JAX on first use.
"""

from judgebayes._lazy import lazy_exports
from judgebayes.calibration import Calibration, JudgedItems, calibrate, read_judged_items
from judgebayes.conformal import (
    ConformalEvaluation,
    ConformalInterval,
    evaluate_split_conformal,
    loo_conformal,
    split_conformal,
)
from judgebayes.consistency import JudgeConsistency, compare_elo, judge_consistency
from judgebayes.core import (
    ELO_BASE,
    ELO_SCALE,
    Battles,
    BootstrapElo,
    DropReport,
    EloFit,
    GraphCheck,
    PairStats,
    bootstrap_bt,
    check_graph,
    elo_to_theta,
    fit_bt,
    read_arena,
    read_battles,
    read_consistency,
    read_softelo,
    read_table,
    theta_to_elo,
)
from judgebayes.errors import DataError, DisconnectedGraphWarning, JudgeBayesWarning
from judgebayes.simulate import SimulatedArena, simulate_arena, simulate_bt, simulate_judges
from judgebayes.softelo import (
    ConformalPool,
    HeldOutElo,
    SoftEloResult,
    Temperature,
    combine_orders,
    conformal_comparison,
    fit_temperature,
    held_out_elo,
    run_softelo,
)

__version__ = "0.1.0"

# The Bayesian side: imported on first use, so `import judgebayes` does not load JAX.
_LAZY = {
    "bayes": "",
    "anchors": "",
    "consensus": "",
    "datasets": "",
    "parallel": "",
    "models": "",
    "ModelSpec": "judgebayes.bayes",
    "SBCResult": "judgebayes.bayes",
    "SamplerWarning": "judgebayes.bayes",
    "fit": "judgebayes.bayes",
    "map_estimate": "judgebayes.bayes",
    "posterior_predictive": "judgebayes.bayes",
    "ppc": "judgebayes.bayes",
    "sbc": "judgebayes.bayes",
    "use_cpu_cores": "judgebayes.bayes",
    "fit_calibration": "judgebayes.calibration",
    "consistency_posterior": "judgebayes.consistency",
    "fit_judge_discrimination": "judgebayes.consistency",
    "soft_elo_posterior": "judgebayes.softelo",
}

__all__ = [
    "ELO_BASE",
    "ELO_SCALE",
    "Battles",
    "BootstrapElo",
    "Calibration",
    "ConformalEvaluation",
    "ConformalInterval",
    "ConformalPool",
    "DataError",
    "DisconnectedGraphWarning",
    "DropReport",
    "EloFit",
    "GraphCheck",
    "HeldOutElo",
    "JudgeBayesWarning",
    "JudgeConsistency",
    "JudgedItems",
    "ModelSpec",
    "PairStats",
    "SBCResult",
    "SamplerWarning",
    "SimulatedArena",
    "SoftEloResult",
    "Temperature",
    "__version__",
    "bootstrap_bt",
    "calibrate",
    "check_graph",
    "combine_orders",
    "compare_elo",
    "conformal_comparison",
    "consistency_posterior",
    "elo_to_theta",
    "evaluate_split_conformal",
    "fit",
    "fit_bt",
    "fit_calibration",
    "fit_judge_discrimination",
    "fit_temperature",
    "held_out_elo",
    "judge_consistency",
    "loo_conformal",
    "map_estimate",
    "models",
    "posterior_predictive",
    "ppc",
    "read_arena",
    "read_battles",
    "read_consistency",
    "read_judged_items",
    "read_softelo",
    "read_table",
    "run_softelo",
    "sbc",
    "simulate_arena",
    "simulate_bt",
    "simulate_judges",
    "soft_elo_posterior",
    "split_conformal",
    "theta_to_elo",
    "use_cpu_cores",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, [*__all__, "bayes"])
