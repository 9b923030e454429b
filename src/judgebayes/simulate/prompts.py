"""A judged leaderboard of prompts: several games per prompt, correlated within the prompt.

Real judge data is not a bag of independent battles: each prompt is answered by a pair of
models and judged several times (several judges, both presentation orders), and a prompt
suits some models more than others. :func:`simulate_prompts` tells that story with a known
truth, so that intervals that treat the games as independent can be seen to under-cover
and clustered ones checked to cover (:func:`judgebayes.bootstrap_bt` with ``cluster=``).

For prompt p, answered by models a and b (a uniform ordered pair of distinct models):

1. prompt effects u_{p,a}, u_{p,b} ~ Normal(0, σ_u²) (how well the prompt suits each model;
   ``prompt_sd`` = σ_u on the logit scale) and, with categories, the category c_p of the
   prompt (uniform) whose offsets δ_{m,c} ~ Normal(0, σ_c²) (``category_sd``) shift each
   model's strength on it;
2. response lengths ℓ = round(exp(Normal(log 400 + v_m, 0.5²))) with a verbosity v_m of each
   model (Normal(0, ``verbosity_sd``²)), and the normalised length difference
   x_p = (ℓ_a − ℓ_b) / (ℓ_a + ℓ_b) (the style feature of arena-hard-auto and FastChat);
3. every judge k = 1..K reads the prompt in each presentation order (both orders, or one
   drawn at random), and its verdict follows the Davidson (1970) model (ties with ν,
   ``tie_nu``) at the gap

       g = θ_a − θ_b + δ_{a,c} − δ_{b,c} + u_{p,a} − u_{p,b} + γ·x_p ± π,

   with γ the judge's style bias (``style_bias``) and +π when A is shown first, −π when B is
   (``position_bias``).

The games of one prompt share u, δ and x; given them they are independent. The estimand of
a pooled Bradley–Terry board is the population Elo: the BT fit (λ = 0) to the expected
verdict E[label | a, b] of every pair, over the prompt effects (Gauss–Hermite), the two
orders and the categories, without the style term (the style-neutral strength); this is the
``elo`` column of the truth. ``generating_elo`` is 1500 + (400 / ln 10)·θ.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.core.bt import fit_bt, theta_to_elo
from judgebayes.core.pairs import PairStats
from judgebayes.simulate.arena import (
    SimulatedArena,
    davidson_probs,
    draw_pairs,
    draw_strengths,
    model_names,
)

__all__ = ["simulate_prompts"]

_N_HERMITE = 40  # Gauss–Hermite nodes for the prompt effect u_a − u_b ~ Normal(0, 2σ_u²)


def _expected_label(
    gap: np.ndarray, prompt_sd: float, position_bias: float, nu: float
) -> np.ndarray:
    """E[label | gap] over u_a − u_b ~ Normal(0, 2σ_u²) and the two orders (ties count ½)."""
    x, w = np.polynomial.hermite.hermgauss(_N_HERMITE)
    shift = np.sqrt(2.0) * np.sqrt(2.0) * prompt_sd * x  # √2·sd of u_a − u_b times the node
    total = np.zeros(np.shape(gap))
    for sign in (1.0, -1.0):
        g = np.asarray(gap, dtype=float)[..., None] + shift + sign * position_bias
        win, tie, _ = davidson_probs(g, nu)
        total += 0.5 * ((win + 0.5 * tie) * w).sum(axis=-1) / np.sqrt(np.pi)
    return total


def _population_elo(theta: np.ndarray, mean_label) -> np.ndarray:
    """BT fit (λ = 0) to the expected label of every unordered pair (uniform pairing)."""
    m = len(theta)
    i, j = np.triu_indices(m, 1)
    stats = PairStats.from_battles(i, j, mean_label(i, j), tuple(str(k) for k in range(m)))
    return fit_bt(stats, lam=0.0).elo


def simulate_prompts(
    n_models: int = 20,
    n_prompts: int = 2000,
    *,
    n_judges: int = 3,
    both_orders: bool = True,
    elo_sd: float = 100.0,
    theta: np.ndarray | None = None,
    prompt_sd: float = 0.0,
    position_bias: float = 0.0,
    style_bias: float = 0.0,
    verbosity_sd: float = 0.3,
    n_categories: int = 1,
    category_sd: float = 0.0,
    tie_nu: float = 0.0,
    seed: int = 0,
) -> SimulatedArena:
    """Prompts answered by pairs of models, each judged several times (module docstring).

    Parameters
    ----------
    n_models, n_prompts
        Models and prompts; each prompt is one pair of models.
    n_judges
        Judges that read every prompt (named ``judge-0``, ``judge-1``, ...).
    both_orders
        Each judge reads both presentation orders (two games), else one order drawn at
        random. Games per prompt: ``n_judges × (2 if both_orders else 1)``.
    elo_sd
        Standard deviation of the true Elo ratings (ignored when ``theta`` is given).
    theta
        True strengths (logit scale); drawn when ``None``.
    prompt_sd
        σ_u: standard deviation (logit scale) of how much a prompt suits each model. The
        source of the correlation between the games of one prompt.
    position_bias
        π: logit bonus of the response shown first.
    style_bias
        γ: logit bonus per unit of normalised length difference (ℓ_a − ℓ_b) / (ℓ_a + ℓ_b).
    verbosity_sd
        Standard deviation of the models' verbosity v_m (log length), which makes style
        a property of the model and so biases a board that ignores it.
    n_categories, category_sd
        Prompt categories (``cat-0``, ...; a ``category`` column when more than one) and
        the standard deviation (logit scale) of each model's offset in each category.
    tie_nu
        Davidson tie parameter ν (0: no ties).
    seed
        Random seed; the same seed gives the same games.

    Returns
    -------
    SimulatedArena
        Games with columns ``model_a, model_b, judge, prompt_id, position, len_a, len_b,
        judge_label`` (and ``category``); the truth holds ``theta``, ``elo`` (population
        Elo of the style-neutral verdicts, module docstring), ``generating_elo``,
        ``verbosity`` and, with categories, ``elo_<category>`` (the population Elo of that
        category's prompts). ``params["games_per_prompt"]`` says how many games a prompt has.
    """
    if n_judges < 1 or n_prompts < 1:
        raise ValueError("n_judges and n_prompts must be at least 1")
    if n_categories < 1:
        raise ValueError("n_categories must be at least 1")
    rng = np.random.default_rng(seed)
    theta = draw_strengths(n_models, elo_sd, rng) if theta is None else np.asarray(theta, float)
    n_models = len(theta)
    names = np.asarray(model_names(n_models))
    verbosity = rng.normal(0.0, verbosity_sd, n_models)
    offsets = rng.normal(0.0, category_sd, (n_categories, n_models))
    offsets -= offsets.mean(axis=1, keepdims=True)

    a, b = draw_pairs(n_models, n_prompts, rng)
    category = rng.integers(0, n_categories, n_prompts)
    u = rng.normal(0.0, prompt_sd, (2, n_prompts))
    len_a = np.round(np.exp(rng.normal(np.log(400.0) + verbosity[a], 0.5)))
    len_b = np.round(np.exp(rng.normal(np.log(400.0) + verbosity[b], 0.5)))
    style = (len_a - len_b) / (len_a + len_b)
    gap = (
        theta[a]
        - theta[b]
        + offsets[category, a]
        - offsets[category, b]
        + u[0]
        - u[1]
        + style_bias * style
    )

    orders = 2 if both_orders else 1
    games = n_judges * orders
    prompt = np.repeat(np.arange(n_prompts), games)
    judge = np.tile(np.repeat(np.arange(n_judges), orders), n_prompts)
    if both_orders:
        a_first = np.tile([True, False], n_prompts * n_judges)
    else:
        a_first = rng.random(n_prompts * n_judges) < 0.5
    g = gap[prompt] + np.where(a_first, position_bias, -position_bias)
    win, tie, _ = davidson_probs(g, tie_nu)
    draw = rng.random(len(g))
    label = np.where(draw < win, 1.0, np.where(draw < win + tie, 0.5, 0.0))

    frame = pd.DataFrame(
        {
            "model_a": names[a][prompt],
            "model_b": names[b][prompt],
            "judge": np.asarray([f"judge-{k}" for k in range(n_judges)])[judge],
            "prompt_id": prompt,
            "position": np.where(a_first, "a", "b"),
            "len_a": len_a[prompt],
            "len_b": len_b[prompt],
            "judge_label": label,
        }
    )
    categories = [f"cat-{c}" for c in range(n_categories)]
    if n_categories > 1:
        frame["category"] = np.asarray(categories)[category][prompt]

    def pooled(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        return np.mean(
            [
                _expected_label(theta[i] - theta[j] + d[i] - d[j], prompt_sd, position_bias, tie_nu)
                for d in offsets
            ],
            axis=0,
        )

    truth = pd.DataFrame(
        {
            "model": names,
            "theta": theta,
            "elo": _population_elo(theta, pooled),
            "generating_elo": theta_to_elo(theta),
            "verbosity": verbosity,
        }
    )
    if n_categories > 1:
        for c, d in zip(categories, offsets, strict=True):
            truth[f"elo_{c}"] = _population_elo(
                theta,
                lambda i, j, d=d: _expected_label(
                    theta[i] - theta[j] + d[i] - d[j], prompt_sd, position_bias, tie_nu
                ),
            )
    params = {
        "n_judges": n_judges,
        "both_orders": both_orders,
        "games_per_prompt": games,
        "prompt_sd": prompt_sd,
        "position_bias": position_bias,
        "style_bias": style_bias,
        "verbosity_sd": verbosity_sd,
        "n_categories": n_categories,
        "category_sd": category_sd,
        "category_offsets": offsets,
        "tie_nu": tie_nu,
        "elo_sd": elo_sd,
        "seed": seed,
    }
    return SimulatedArena(Battles(frame), truth, params)
