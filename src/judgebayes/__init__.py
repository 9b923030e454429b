"""judgebayes: calibrated, uncertainty-aware model evaluation from LLM-judge verdicts."""

from judgebayes.bootstrap import BootstrapElo, bootstrap_bt
from judgebayes.bt import ELO_BASE, ELO_SCALE, EloFit, elo_to_theta, fit_bt, theta_to_elo
from judgebayes.calibration import Calibration, JudgedItems, calibrate, read_judged_items
from judgebayes.conformal import (
    ConformalEvaluation,
    ConformalInterval,
    evaluate_split_conformal,
    loo_conformal,
    split_conformal,
)
from judgebayes.consistency import JudgeConsistency, compare_elo, judge_consistency
from judgebayes.data import Battles, DropReport
from judgebayes.errors import DataError, DisconnectedGraphWarning, JudgeBayesWarning
from judgebayes.graph import GraphCheck, check_graph
from judgebayes.loaders import read_arena, read_battles, read_consistency, read_softelo, read_table
from judgebayes.pairs import PairStats
from judgebayes.simulate import SimulatedArena, simulate_arena, simulate_bt, simulate_judges
from judgebayes.softelo import (
    ConformalPool,
    HeldOutElo,
    Temperature,
    combine_orders,
    conformal_comparison,
    fit_temperature,
    held_out_elo,
)

__version__ = "0.1.0"

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
    "PairStats",
    "SimulatedArena",
    "Temperature",
    "__version__",
    "bootstrap_bt",
    "calibrate",
    "check_graph",
    "combine_orders",
    "compare_elo",
    "conformal_comparison",
    "elo_to_theta",
    "evaluate_split_conformal",
    "fit_bt",
    "fit_temperature",
    "held_out_elo",
    "judge_consistency",
    "loo_conformal",
    "read_arena",
    "read_battles",
    "read_consistency",
    "read_judged_items",
    "read_softelo",
    "read_table",
    "simulate_arena",
    "simulate_bt",
    "simulate_judges",
    "split_conformal",
    "theta_to_elo",
]
