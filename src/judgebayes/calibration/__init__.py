"""Judge misclassification (Fiedler, *Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026,
arXiv:2605.06939): naive, Rogan–Gladen (shared / model-specific) and PPI++
accuracies, the J and ΔJ diagnostics, the paired bootstrap, the Section 7 report, the
simulation sweeps, and the Bayesian latent-class designs (shared, model-specific,
hierarchical, and paired: the models' correctness on one item jointly) with LOO.

Modules: ``items`` (judged items), ``readers`` (judged items from files: tables, the
pairwise prevalence layout, Inspect logs in ``inspect_logs``), ``estimators`` (single
estimators, analytic SEs), ``bootstrap`` (sufficient statistics, paired bootstrap, delta
method), ``analysis`` (:func:`calibrate`, :class:`Calibration`, :class:`Comparison`),
``report`` (Section 7 checklist), ``sweep`` (simulations), ``splits`` (every estimator
over random calibration splits of fully labelled real data), ``rows`` (the Bayesian
designs' row data and priors); JAX-based: ``designs`` (latent-class models), ``paired``
(the paired latent class), ``posterior`` (fits, LOO, PPC), ``bayes_sweep`` (designs on
the simulations).
"""

from judgebayes._lazy import lazy_exports
from judgebayes.calibration.analysis import Calibration, Comparison, calibrate
from judgebayes.calibration.bootstrap import BootstrapEstimate
from judgebayes.calibration.estimators import (
    ESTIMATORS,
    AccuracyEstimate,
    JudgeRates,
    judge_rates,
    naive_estimate,
    ppi_mean,
    rg_shared_difference,
    rogan_gladen,
    shared_calibration_bias,
)
from judgebayes.calibration.inspect_logs import read_inspect_logs
from judgebayes.calibration.items import JudgedItems
from judgebayes.calibration.readers import ITEM_FORMATS, read_judged_items, read_prevalence
from judgebayes.calibration.report import CalibrationReport
from judgebayes.calibration.splits import SplitStudy, split_study
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
    "BayesCalibration": "judgebayes.calibration.posterior",
    "CalibrationData": "judgebayes.calibration.rows",
    "DESIGNS": "judgebayes.calibration.designs",
    "JudgeMixture": "judgebayes.calibration.designs",
    "PairedData": "judgebayes.calibration.paired",
    "PosteriorDifference": "judgebayes.calibration.posterior",
    "calibration_data": "judgebayes.calibration.rows",
    "fit_calibration": "judgebayes.calibration.posterior",
    "hierarchical_calibration_model": "judgebayes.calibration.designs",
    "paired_calibration_model": "judgebayes.calibration.paired",
    "paired_data": "judgebayes.calibration.paired",
    "paired_hierarchical_calibration_model": "judgebayes.calibration.paired",
    "shared_calibration_model": "judgebayes.calibration.designs",
    "specific_calibration_model": "judgebayes.calibration.designs",
    "sweep_bayes": "judgebayes.calibration.bayes_sweep",
}

__all__ = [
    "DESIGNS",
    "ESTIMATORS",
    "ITEM_FORMATS",
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
    "PairedData",
    "PosteriorDifference",
    "SimulatedItems",
    "SplitStudy",
    "Sweep",
    "calibrate",
    "calibration_data",
    "fit_calibration",
    "hierarchical_calibration_model",
    "judge_rates",
    "naive_estimate",
    "paired_calibration_model",
    "paired_data",
    "paired_hierarchical_calibration_model",
    "paper_table6",
    "plot_sweep",
    "ppi_mean",
    "read_inspect_logs",
    "read_judged_items",
    "read_prevalence",
    "rg_shared_difference",
    "rogan_gladen",
    "shared_calibration_bias",
    "shared_calibration_model",
    "simulate_items",
    "simulate_sweep",
    "specific_calibration_model",
    "split_study",
    "sweep_bayes",
]
__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
