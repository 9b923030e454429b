"""Soft-Elo (Kargi & Salinas, *From Uncertain Judgments to Calibrated Rankings: Conformal Elo
Estimation for LLM Evaluation*, 2026, arXiv:2606.13221): soft judge targets σ(β·s), the temperature
β, the held-out protocol,
conformal intervals and the judge probes.

The pipeline: :func:`combine_orders` (both presentation orders into one score) →
:func:`fit_temperature` (β by MLE on human non-ties, Eq. 6) → :func:`held_out_elo`
(Algorithm 1, leave-one-model-out two-step fit, bootstrap SE) → :func:`conformal_comparison`
(normalised split conformal, Eq. 3–4, or jackknife+ over the models when they are few);
:func:`run_softelo` runs all of it. A judge that gives verdicts and no scores gets one soft
target per verdict class (:func:`calibrate_verdicts`, ``held_out_elo(methods=("verdict",))``),
and :func:`label_budget` runs the protocol with only n human-labelled battles.
:func:`soft_elo_posterior` propagates β's uncertainty into the Elo posterior (NumPyro).

Modules: :mod:`~judgebayes.softelo.scores` (judge scores into battles and targets),
:mod:`~judgebayes.softelo.temperature` (β and its calibration),
:mod:`~judgebayes.softelo.held_out` (Algorithm 1, budget curves),
:mod:`~judgebayes.softelo.verdicts` (verdict-class soft targets),
:mod:`~judgebayes.softelo.label_budget` (the protocol with n human labels),
:mod:`~judgebayes.softelo.intervals` (split-conformal and jackknife+ comparison, calibration
pool),
:mod:`~judgebayes.softelo.pipeline` (:func:`run_softelo`),
:mod:`~judgebayes.softelo.by_judge` (:func:`softelo_by_judge`: the cross-judge tables),
:mod:`~judgebayes.softelo.diagnostics` (judge probes on battles),
:mod:`~judgebayes.softelo.probes` (same-family effects, single-order Elo) and
:mod:`~judgebayes.softelo.posterior` (the β-posterior, JAX).
"""

from judgebayes._lazy import lazy_exports
from judgebayes.softelo.by_judge import SoftEloByJudge, softelo_by_judge
from judgebayes.softelo.diagnostics import (
    cohen_kappa,
    position_bias_rates,
    reliability,
    residual_by_quartile,
    verbosity_bias,
    verdict_disagreement,
)
from judgebayes.softelo.held_out import HeldOutElo, budget_curve, held_out_elo
from judgebayes.softelo.intervals import ConformalComparison, ConformalPool, conformal_comparison
from judgebayes.softelo.label_budget import LabelBudget, keep_labels, label_budget
from judgebayes.softelo.pipeline import SoftEloResult, run_softelo
from judgebayes.softelo.probes import (
    SameFamilyExcess,
    SingleOrderElo,
    same_family_excess,
    single_order_elo,
)
from judgebayes.softelo.scores import combine_orders, soft_targets
from judgebayes.softelo.temperature import (
    LowSignalWarning,
    Temperature,
    agreement_by_abs_s,
    fit_temperature,
)

# Bayesian names load JAX, the verdict classes judgebayes.rankings (and with it
# scipy.stats, which `judgebayes softelo` on scores never loads): imported on first use.
_LAZY = {
    "soft_elo_posterior": "judgebayes.softelo.posterior",
    "temperature_model": "judgebayes.softelo.posterior",
    "VerdictCalibration": "judgebayes.softelo.verdicts",
    "VerdictClasses": "judgebayes.softelo.verdicts",
    "calibrate_verdicts": "judgebayes.softelo.verdicts",
}

__all__ = [
    "ConformalComparison",
    "ConformalPool",
    "HeldOutElo",
    "LabelBudget",
    "LowSignalWarning",
    "SameFamilyExcess",
    "SingleOrderElo",
    "SoftEloByJudge",
    "SoftEloResult",
    "Temperature",
    "VerdictCalibration",
    "VerdictClasses",
    "agreement_by_abs_s",
    "budget_curve",
    "calibrate_verdicts",
    "cohen_kappa",
    "combine_orders",
    "conformal_comparison",
    "fit_temperature",
    "held_out_elo",
    "keep_labels",
    "label_budget",
    "position_bias_rates",
    "reliability",
    "residual_by_quartile",
    "run_softelo",
    "same_family_excess",
    "single_order_elo",
    "soft_elo_posterior",
    "soft_targets",
    "softelo_by_judge",
    "temperature_model",
    "verbosity_bias",
    "verdict_disagreement",
]
__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
