"""A simulator of the full quadratic verdict tensor with a known truth (beyond Don-Yehiya, Yehudai,
Choshen & Abend (*Mediocrity is the key for LLM as a Judge Anchor Selection*, ACL 2026,
arXiv:2603.16848)).

The story is the ordered-logistic verdict model of :mod:`judgebayes.anchors.model`,
so every analysis of the paper runs without external data and the Bayesian model can
be checked against the truth that generated the data. For judge k, prompt i and
models a (shown first) and b:

    q_{i,m} = θ_m + u_{i,m},            u_{i,m} ~ Normal(0, σ_u)   (response quality)
    η = ψ_k · exp(δ_i) · (q_{i,a} − q_{i,b}) + γ_k,  δ_i ~ Normal(0, σ_δ)
    P(v ≤ c) = σ(κ_{k,c} − η),   c = −2, …, 1,                     (judge cut-points κ_k)

with symmetric cut-points κ_k = (−h₁−h₂, −h₁, h₁, h₁+h₂)·exp(ε_k) per judge and judge
discrimination ψ_k (1/ψ_k is the judge's noise; geometric mean 1) and position bias
γ_k. δ_i is the prompt's difficulty: on an easy prompt (δ_i < 0) every answer is
good enough and verdicts pile up at ties, on a hard one (δ_i > 0) strength shows and
a strong (weak) anchor wins (loses) clearly against every target — the two kinds of
prompt on which an extreme anchor learns nothing, the saturation of Don-Yehiya et al.'s (2026)
Figure 2. u_{i,A} makes one prompt's verdicts against the same anchor correlated (a
good anchor answer beats every target on that prompt).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes.anchors.verdicts import VerdictTable, verdict_table
from judgebayes.core.results import ResultDisplay

__all__ = ["SimulatedVerdicts", "simulate_verdicts"]

_MISSING = -128


@dataclass(frozen=True, repr=False)
class SimulatedVerdicts(ResultDisplay):
    """Simulated five-point verdicts of every ordered model pair, with the truth.

    Attributes
    ----------
    models, judges
        Names; ``models`` is sorted by name (``m00``, ``m01``, …), not by strength.
    theta
        True strengths θ (logit scale of the latent margin).
    prompt_effects
        True u_{i,m}, shape ``(n_prompts, n_models)``.
    difficulty
        True δ_i, shape ``(n_prompts,)``.
    cutpoints
        True cut-points κ_k, shape ``(n_judges, 4)``.
    psi, gamma
        True judge discrimination and position bias.
    verdicts
        ``int8`` array ``(n_judges, n_prompts, n_models, n_models)``: entry
        ``[k, i, a, b]`` is judge k's margin of a over b with a shown first; −128
        where that order was not judged (``orders="one"`` judges each pair once per
        prompt, in a random order).
    seed
        The seed that produced it.
    """

    models: tuple[str, ...]
    judges: tuple[str, ...]
    theta: np.ndarray
    prompt_effects: np.ndarray
    difficulty: np.ndarray
    cutpoints: np.ndarray
    psi: np.ndarray
    gamma: np.ndarray
    verdicts: np.ndarray
    seed: int

    @property
    def n_prompts(self) -> int:
        return self.verdicts.shape[1]

    @property
    def prompts(self) -> tuple[str, ...]:
        width = len(str(self.n_prompts - 1))
        return tuple(f"p{i:0{width}d}" for i in range(self.n_prompts))

    def truth(self) -> pd.Series:
        """True strengths by model name."""
        return pd.Series(self.theta, index=list(self.models), name="theta")

    def ranked(self) -> tuple[str, ...]:
        """Models from strongest to weakest (the true ranking)."""
        return tuple(np.asarray(self.models)[np.argsort(-self.theta)])

    def anchor_at(self, position: str | int) -> str:
        """The model at a rank: ``"strongest"``, ``"median"``, ``"weakest"`` or a 0-based rank."""
        order = self.ranked()
        named = {"strongest": 0, "median": len(order) // 2, "weakest": len(order) - 1}
        return order[named[position] if isinstance(position, str) else int(position)]

    def table(
        self,
        *,
        anchor: str | None = None,
        judges: Sequence[str] | None = None,
        prompts: int | None = None,
    ) -> VerdictTable:
        """The verdicts as a :class:`VerdictTable`: quadratic, or anchor-based with ``anchor``.

        ``prompts`` keeps the first that many prompts (a smaller benchmark).
        """
        k_sel = [self.judges.index(j) for j in (judges or self.judges)]
        n = self.n_prompts if prompts is None else int(prompts)
        v = self.verdicts[k_sel, :n]
        k, i, a, b = np.nonzero(v != _MISSING)
        if anchor is not None:
            anc = self.models.index(anchor)
            keep = (a == anc) | (b == anc)
            k, i, a, b = k[keep], i[keep], a[keep], b[keep]
        names = np.asarray(self.models, dtype=object)
        prompt_names = np.asarray(self.prompts, dtype=object)
        frame = pd.DataFrame(
            {
                "judge": np.asarray(self.judges, dtype=object)[np.asarray(k_sel)][k],
                "prompt_id": prompt_names[i],
                "model_a": names[a],
                "model_b": names[b],
                "verdict": v[k, i, a, b],
            }
        )
        return verdict_table(frame)

    def verdict(
        self, judge: int, prompt: np.ndarray, a: np.ndarray, b: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Judge ``judge``'s verdicts of (a, b) on ``prompt`` in whichever order was judged.

        Returns ``(first, margin)``: the model shown first and its margin over the other.
        """
        v = self.verdicts[judge]
        forward = v[prompt, a, b]
        use_fwd = forward != _MISSING
        first = np.where(use_fwd, a, b)
        return first, np.where(use_fwd, forward, v[prompt, b, a]).astype(int)

    def to_frame(self) -> pd.DataFrame:
        """``model, theta, rank`` (1 = strongest), strongest first."""
        order = np.argsort(-self.theta)
        return pd.DataFrame(
            {
                "model": np.asarray(self.models)[order],
                "theta": self.theta[order],
                "rank": np.arange(1, len(order) + 1),
            }
        )

    def _headline(self) -> str:
        n_judged = int((self.verdicts != _MISSING).sum())
        return (
            f"{len(self.models)} models × {self.n_prompts:,} prompts × "
            f"{len(self.judges)} judge(s), {n_judged:,} verdicts; θ from "
            f"{self.theta.min():.2f} to {self.theta.max():.2f}, σ_u "
            f"{self.prompt_effects.std():.2f}; seed {self.seed}"
        )


def simulate_verdicts(
    n_models: int = 22,
    n_prompts: int = 750,
    *,
    n_judges: int = 1,
    theta: Sequence[float] | None = None,
    theta_sd: float = 1.5,
    sigma_prompt: float = 0.5,
    difficulty_sd: float = 1.5,
    tie_halfwidth: float = 1.5,
    clear_gap: float = 2.0,
    cut_jitter: float = 0.2,
    judge_noise: float = 0.3,
    position_bias: float = 0.0,
    orders: str = "one",
    seed: int = 0,
) -> SimulatedVerdicts:
    """Simulate the quadratic verdict tensor (prompts × models × models) with known truth.

    The defaults were chosen so that 22 models × 750 prompts look like Don-Yehiya et al.'s (2026)
    data: five-point informativeness from about 0.42 (an extreme anchor) to 0.66
    (Don-Yehiya et al., 2026, Table 9: 0.455 to 0.611), extreme anchors ranking worst (the inverted
    U of Figure 1) and R² ≈ 0.4 of τ on informativeness (Figure 3: 0.594), averaged over six seeds.

    Parameters
    ----------
    n_models, n_prompts, n_judges
        Sizes (Don-Yehiya et al. (2026) use 22 models, 750 prompts, 5 judges).
    theta
        True strengths; default Normal(0, ``theta_sd``) draws.
    sigma_prompt
        σ_u, the spread of a model's answer quality across prompts.
    difficulty_sd
        σ_δ, the spread of the prompts' log-discrimination δ_i.
    tie_halfwidth, clear_gap
        h₁ and h₂ of the cut-points (−h₁−h₂, −h₁, h₁, h₁+h₂).
    cut_jitter
        Each judge's cut-points are scaled by exp(Normal(0, cut_jitter)).
    judge_noise
        log ψ_k ~ Normal(0, judge_noise), centred (one judge: ψ = 1).
    position_bias
        Each judge's γ_k ~ Normal(position_bias, 0.1) (0: no bias, γ = 0).
    orders
        ``"one"``: each pair judged once per prompt, a random model shown first;
        ``"both"``: both orders (for position-debiasing).
    seed
        Random seed.
    """
    if orders not in ("one", "both"):
        raise ValueError(f"orders must be 'one' or 'both', got {orders!r}")
    if n_models < 2 or n_prompts < 1 or n_judges < 1:
        raise ValueError("need at least 2 models, 1 prompt and 1 judge")
    rng = np.random.default_rng(seed)
    th = rng.normal(0.0, theta_sd, n_models) if theta is None else np.asarray(theta, dtype=float)
    if th.shape != (n_models,):
        raise ValueError(f"theta must have {n_models} values, got {th.shape}")
    u = rng.normal(0.0, sigma_prompt, (n_prompts, n_models))
    delta = rng.normal(0.0, difficulty_sd, n_prompts)
    scale = np.exp(rng.normal(0.0, cut_jitter, n_judges)) if n_judges > 1 else np.ones(1)
    h1, h2 = tie_halfwidth * scale, clear_gap * scale
    cut = np.stack([-h1 - h2, -h1, h1, h1 + h2], axis=1)
    log_psi = rng.normal(0.0, judge_noise, n_judges) if n_judges > 1 else np.zeros(1)
    psi = np.exp(log_psi - log_psi.mean())
    gamma = rng.normal(position_bias, 0.1, n_judges) if position_bias else np.zeros(n_judges)
    q = th[None, :] + u  # (prompt, model)
    diff = np.exp(delta)[:, None, None] * (q[:, :, None] - q[:, None, :])  # (prompt, a, b)
    eta = psi[:, None, None, None] * diff[None] + gamma[:, None, None, None]
    # Ordered-logistic draw: v = −2 + #{c : U > σ(κ_c − η)} (inverse CDF, hand-written
    # because NumPy has no ordered-logistic sampler).
    cdf = expit(cut[:, None, None, None, :] - eta[..., None])
    draws = rng.random(eta.shape)
    verdicts = ((draws[..., None] > cdf).sum(axis=-1) - 2).astype(np.int8)
    a_idx, b_idx = np.triu_indices(n_models, k=1)
    diag = np.arange(n_models)
    verdicts[:, :, diag, diag] = _MISSING
    if orders == "one":
        a_first = rng.random((n_judges, n_prompts, a_idx.size)) < 0.5
        drop_a, drop_b = np.where(a_first, b_idx, a_idx), np.where(a_first, a_idx, b_idx)
        kk, ii = np.meshgrid(np.arange(n_judges), np.arange(n_prompts), indexing="ij")
        verdicts[kk[..., None], ii[..., None], drop_a, drop_b] = _MISSING
    width = len(str(n_models - 1))
    judges = ("judge",) if n_judges == 1 else tuple(f"judge{k}" for k in range(n_judges))
    return SimulatedVerdicts(
        models=tuple(f"m{k:0{width}d}" for k in range(n_models)),
        judges=judges,
        theta=th,
        prompt_effects=u,
        difficulty=delta,
        cutpoints=cut,
        psi=psi,
        gamma=gamma,
        verdicts=verdicts,
        seed=int(seed),
    )
