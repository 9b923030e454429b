"""Judge misclassification (seed 001): naive, Rogan–Gladen (shared / model-specific) and PPI++
accuracies, the J and ΔJ diagnostics, the paired bootstrap, the Section 7 report, the
simulation sweeps, and the Bayesian latent-class designs (shared, model-specific,
hierarchical) with LOO.
"""

from judgebayes._lazy import lazy_exports
from judgebayes.calibration.estimators import (
    ESTIMATORS,
    AccuracyEstimate,
    BootstrapEstimate,
    Calibration,
    CalibrationReport,
    Comparison,
    JudgedItems,
    JudgeRates,
    calibrate,
    judge_rates,
    naive_estimate,
    ppi_mean,
    read_judged_items,
    rg_shared_difference,
    rogan_gladen,
    shared_calibration_bias,
)
from judgebayes.calibration.sweep import (
    SimulatedItems,
    Sweep,
    paper_table6,
    plot_sweep,
    simulate_items,
    simulate_sweep,
)

# Bayesian names load JAX: imported on first use.
_LAZY = {
    "BayesCalibration": "judgebayes.calibration.designs",
    "CalibrationData": "judgebayes.calibration.designs",
    "DESIGNS": "judgebayes.calibration.designs",
    "JudgeMixture": "judgebayes.calibration.designs",
    "PosteriorDifference": "judgebayes.calibration.designs",
    "calibration_data": "judgebayes.calibration.designs",
    "fit_calibration": "judgebayes.calibration.designs",
    "hierarchical_calibration_model": "judgebayes.calibration.designs",
    "shared_calibration_model": "judgebayes.calibration.designs",
    "specific_calibration_model": "judgebayes.calibration.designs",
    "sweep_bayes": "judgebayes.calibration.designs",
}

__all__ = [
    "DESIGNS",
    "ESTIMATORS",
    "AccuracyEstimate",
    "BayesCalibration",
    "BootstrapEstimate",
    "Calibration",
    "CalibrationData",
    "CalibrationReport",
    "Comparison",
    "JudgeMixture",
    "JudgeRates",
    "JudgedItems",
    "PosteriorDifference",
    "SimulatedItems",
    "Sweep",
    "calibrate",
    "calibration_data",
    "fit_calibration",
    "hierarchical_calibration_model",
    "judge_rates",
    "naive_estimate",
    "paper_table6",
    "plot_sweep",
    "ppi_mean",
    "read_judged_items",
    "rg_shared_difference",
    "rogan_gladen",
    "shared_calibration_bias",
    "shared_calibration_model",
    "simulate_items",
    "simulate_sweep",
    "specific_calibration_model",
    "sweep_bayes",
]
__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
