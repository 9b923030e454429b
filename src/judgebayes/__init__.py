"""judgebayes: calibrated, uncertainty-aware model evaluation from LLM-judge verdicts."""

from judgebayes.bootstrap import BootstrapElo, bootstrap_bt
from judgebayes.bt import ELO_BASE, ELO_SCALE, EloFit, elo_to_theta, fit_bt, theta_to_elo
from judgebayes.data import Battles, DropReport
from judgebayes.errors import DataError, DisconnectedGraphWarning, JudgeBayesWarning
from judgebayes.graph import GraphCheck, check_graph
from judgebayes.loaders import read_arena, read_battles, read_consistency, read_softelo, read_table
from judgebayes.pairs import PairStats
from judgebayes.simulate import SimulatedArena, simulate_arena, simulate_bt

__version__ = "0.1.0"

__all__ = [
    "ELO_BASE",
    "ELO_SCALE",
    "Battles",
    "BootstrapElo",
    "DataError",
    "DisconnectedGraphWarning",
    "DropReport",
    "EloFit",
    "GraphCheck",
    "JudgeBayesWarning",
    "PairStats",
    "SimulatedArena",
    "__version__",
    "bootstrap_bt",
    "check_graph",
    "elo_to_theta",
    "fit_bt",
    "read_arena",
    "read_battles",
    "read_consistency",
    "read_softelo",
    "read_table",
    "simulate_arena",
    "simulate_bt",
    "theta_to_elo",
]
