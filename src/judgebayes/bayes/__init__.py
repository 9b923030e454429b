"""The Bayesian engine: fit any model by NUTS, MAP (+ Laplace) or ADVI, check it, calibrate it.

Each generative model is a plain NumPyro function ``model(**data)`` whose observed
sites carry the names of their keyword arguments (``y=None`` generates). The shared
pieces live here: the Bradley–Terry likelihoods on pair statistics
(:mod:`~judgebayes.bayes.bt_models`), the multi-judge model, the PyMC twins,
:func:`fit`, prior and posterior predictive checks (:mod:`~judgebayes.bayes.predictive`),
simulation-based calibration and leave-one-battle-out. They are written on the engine
(:mod:`judgebayes.bayes.engine`: compiled kernels, the NUTS driver, the cache; private).
Method-specific models live in their method's subpackage; :mod:`judgebayes.models`
gathers a builder for each. Importing this package loads JAX.
"""

from judgebayes.bayes.battle_loo import (
    BattleLOO,
    battle_loo,
    cell_log_likelihood,
    cell_loo,
    compare_loo,
)
from judgebayes.bayes.bt_models import (
    SoftBinomial,
    bt_data,
    bt_model,
    davidson_data,
    davidson_model,
    prior_sd_from_lam,
)
from judgebayes.bayes.inference import (
    SamplerWarning,
    fit,
    map_estimate,
    rank_rhat_and_bulk_ess,
    use_cpu_cores,
)
from judgebayes.bayes.multi_judge import multi_judge_data, multi_judge_model
from judgebayes.bayes.predictive import (
    bayesian_pvalues,
    plot_statistic,
    posterior_predictive,
    predictive_statistic,
    prior_predictive,
)
from judgebayes.bayes.sbc import SBCResult, rank_statistics, sbc
from judgebayes.bayes.spec import ModelSpec

__all__ = [
    "BattleLOO",
    "ModelSpec",
    "SBCResult",
    "SamplerWarning",
    "SoftBinomial",
    "battle_loo",
    "bayesian_pvalues",
    "bt_data",
    "bt_model",
    "cell_log_likelihood",
    "cell_loo",
    "compare_loo",
    "davidson_data",
    "davidson_model",
    "fit",
    "map_estimate",
    "multi_judge_data",
    "multi_judge_model",
    "plot_statistic",
    "posterior_predictive",
    "predictive_statistic",
    "prior_predictive",
    "prior_sd_from_lam",
    "rank_rhat_and_bulk_ess",
    "rank_statistics",
    "sbc",
    "use_cpu_cores",
]
