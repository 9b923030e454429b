"""The papers the audit report cites (a module of its own: the report's page and its
sections both name them, and neither imports the other)."""

from __future__ import annotations

__all__ = ["REFERENCES"]

REFERENCES = (
    "Kargi & Salinas, From Uncertain Judgments to Calibrated Rankings: Conformal Elo "
    "Estimation for LLM Evaluation (2026), arXiv:2606.13221: Bradley–Terry Elo, agreement, "
    "κ, position bias, score calibration (ECE).",
    "Fiedler, Bias and Uncertainty in LLM-as-a-Judge Estimation (2026), arXiv:2605.06939: J, "
    "ΔJ, the Section 4.4 diagnostics and the Section 7 checklist.",
    "Ramaswamy, Demeure & Rrapaj, Model Consistency as a Cheap yet Predictive Proxy for LLM "
    "Elo Scores (EMNLP 2025), arXiv:2509.23510: the Consistency score.",
    "Zhang et al., UDA: Unsupervised Debiasing Alignment for Pair-wise LLM-as-a-Judge (2025), "
    "arXiv:2508.09724: self-preference, multi-judge consensus.",
    "Don-Yehiya, Yehudai, Choshen & Abend, Mediocrity is the key for LLM as a Judge Anchor "
    "Selection (2026), arXiv:2603.16848: anchor informativeness, the recommended anchor and "
    "the prompts a +5% edge needs (Table 2).",
    "Chatzi, Straitouri, Thejaswi & Gomez-Rodriguez, Prediction-Powered Ranking of Large "
    "Language Models (NeurIPS 2024), arXiv:2402.17826: rank-sets.",
    "Angelopoulos, Duchi & Zrnic, PPI++: Efficient Prediction-Powered Inference (2023), "
    "arXiv:2311.01453: the calibrated board (prediction-powered Bradley–Terry).",
)
"""The papers the report cites."""
