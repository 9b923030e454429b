"""Generative simulators: the embedded default data every method runs on without downloads.

Each simulator tells the same story as a model the package fits, with a known truth:
:func:`simulate_bt` (Bradley–Terry/Davidson battles), :func:`simulate_arena` (Kargi & Salinas's
(*From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*,
2026, arXiv:2606.13221) judged arena with human labels), :func:`simulate_judges` (several judges,
the multi-judge story), :func:`simulate_prompts` (prompts judged several times, with prompt effects,
position and style bias and categories: the leaderboard story). Method-specific simulators live
beside their method (e.g. :func:`judgebayes.calibration.simulate_items`).
"""

from judgebayes.simulate.arena import SimulatedArena, davidson_probs, simulate_arena, simulate_bt
from judgebayes.simulate.judges import simulate_judges
from judgebayes.simulate.prompts import simulate_prompts

__all__ = [
    "SimulatedArena",
    "davidson_probs",
    "simulate_arena",
    "simulate_bt",
    "simulate_judges",
    "simulate_prompts",
]
