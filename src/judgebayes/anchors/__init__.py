"""Anchor-based evaluation (Don-Yehiya, Yehudai, Choshen & Abend, *Mediocrity is the key for LLM as
a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848): anchor rankings, informativeness, power
analysis,
robustness, the decision framework, and an ordered-logistic model of five-point verdicts.

Modules: ``verdicts`` (the verdict table, position-debiasing, the verdict tensor),
``simulate`` (the quadratic verdict tensor with a known truth), ``rankings`` (win-rate,
Bradley–Terry and quadratic rankings, Kendall τ; Eq. 1, Figure 1), ``informativeness``
(I(p, A), Figures 2–3), ``layout`` (a few anchors × many models, as Arena-Hard,
AlpacaEval and WildBench judge: the anchors found, each one's rankings and τ with humans,
bootstrap intervals over prompts), ``power`` (Table 2, the exact sign test, N_total, the
Wilcoxon simulation of Appendix C), ``robustness`` (Figure 4, Appendix E, Section 5.3),
``recommend`` (Figure 5: :func:`recommend_anchor`; :func:`analyze_anchors`); JAX-based:
``model`` (the ordered-logistic verdict model and its ``ModelSpec`` builder),
``comparison`` (ordinal vs BT vs win-rate at equal budget), ``design`` (anchor-free
adaptive design).
"""

from judgebayes._lazy import lazy_exports
from judgebayes.anchors.informativeness import (
    AnchorInformativeness,
    TauInformativeness,
    WinHistogram,
    discordance,
    informativeness,
    regress_tau,
    tau_vs_informativeness,
    win_histogram,
)
from judgebayes.anchors.layout import (
    AnchorLayout,
    InvertedU,
    TauContrast,
    anchor_layout,
    find_anchors,
)
from judgebayes.anchors.power import (
    PowerCheck,
    PowerTable,
    WilcoxonPower,
    detectable_edge,
    n_total,
    power_check,
    power_table,
    sign_test_n,
    sign_test_power,
    verdict_differences,
    wilcoxon_power,
)
from judgebayes.anchors.rankings import (
    AnchorRankings,
    anchor_bt_scores,
    anchor_rankings,
    bt_scores,
    kendall,
    kendall_rows,
    quadratic_scores,
    win_rate_scores,
)
from judgebayes.anchors.recommend import (
    AnchorAnalysis,
    AnchorRecommendation,
    analyze_anchors,
    recommend_anchor,
)
from judgebayes.anchors.robustness import (
    AnchorCountCurve,
    PilotAccuracy,
    SizeCurve,
    anchor_count_curve,
    pilot_informativeness,
    tau_vs_size,
)
from judgebayes.anchors.simulate import SimulatedVerdicts, simulate_verdicts
from judgebayes.anchors.verdicts import (
    SCALES,
    VERDICT_FORMATS,
    VERDICT_STRINGS,
    VerdictTable,
    read_verdicts,
    verdict_format,
    verdict_table,
    verdicts_from_battles,
)

# Bayesian names load JAX: imported on first use.
_LAZY = {
    "AdaptiveDesign": "judgebayes.anchors.design",
    "RankerComparison": "judgebayes.anchors.comparison",
    "StableOrderedLogistic": "judgebayes.anchors.model",
    "adaptive_design": "judgebayes.anchors.design",
    "compare_rankers": "judgebayes.anchors.comparison",
    "expected_information": "judgebayes.anchors.design",
    "ordered_logistic_data": "judgebayes.anchors.model",
    "ordered_logistic_model": "judgebayes.anchors.model",
    "ordered_logistic_spec": "judgebayes.anchors.model",
    "theta_gaps": "judgebayes.anchors.model",
    "theta_means": "judgebayes.anchors.model",
}

__all__ = [
    "SCALES",
    "VERDICT_FORMATS",
    "VERDICT_STRINGS",
    "AdaptiveDesign",
    "AnchorAnalysis",
    "AnchorCountCurve",
    "AnchorInformativeness",
    "AnchorLayout",
    "AnchorRankings",
    "AnchorRecommendation",
    "InvertedU",
    "PilotAccuracy",
    "PowerCheck",
    "PowerTable",
    "RankerComparison",
    "SimulatedVerdicts",
    "SizeCurve",
    "StableOrderedLogistic",
    "TauContrast",
    "TauInformativeness",
    "VerdictTable",
    "WilcoxonPower",
    "WinHistogram",
    "adaptive_design",
    "analyze_anchors",
    "anchor_bt_scores",
    "anchor_count_curve",
    "anchor_layout",
    "anchor_rankings",
    "bt_scores",
    "compare_rankers",
    "detectable_edge",
    "discordance",
    "expected_information",
    "find_anchors",
    "informativeness",
    "kendall",
    "kendall_rows",
    "n_total",
    "ordered_logistic_data",
    "ordered_logistic_model",
    "ordered_logistic_spec",
    "pilot_informativeness",
    "power_check",
    "power_table",
    "quadratic_scores",
    "read_verdicts",
    "recommend_anchor",
    "regress_tau",
    "sign_test_n",
    "sign_test_power",
    "simulate_verdicts",
    "tau_vs_informativeness",
    "tau_vs_size",
    "theta_gaps",
    "theta_means",
    "verdict_differences",
    "verdict_format",
    "verdict_table",
    "verdicts_from_battles",
    "wilcoxon_power",
    "win_histogram",
    "win_rate_scores",
]
__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
