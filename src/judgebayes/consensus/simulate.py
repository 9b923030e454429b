"""A multi-judge arena with known truth, in which judges favour answers resembling their own.

The story Zhang, Wang, Wu, Yu, Wang, Bao & Tang (*UDA: Unsupervised Debiasing Alignment for
Pair-wise LLM-as-a-Judge*, 2025, arXiv:2508.09724) tells (its Figure 1 and Introduction), made
generative so that a method's output can be checked against the truth:

* Models m = 1..M have true strengths θ_m (Elo = 1500 + 400/ln 10 · θ).
* On prompt p, model m's answer has an embedding e_{p,m} = t_p + u_m + ν ξ_{p,m}
  (+ q θ_m w): a topic shared by all answers to the prompt, the model's style, noise
  and, optionally, a quality direction w. Judge k answers the prompt too: if the judge
  is also a contestant (its own model o_k) its answer *is* e_{p,o_k}; otherwise it has a
  style of its own.
* Resemblance to the judge's own answer is the cosine c_{p,m,k} = cos(e_{p,m}, e_{p,k});
  it is 1 for the judge's own model.
* Judge k prefers answer i to j with probability
  σ(ψ_k (θ_i − θ_j) + γ_k (c_{p,i,k} − c_{p,j,k})): a judge of discrimination ψ_k
  that leans toward answers like its own with strength γ_k (its self-preference).

Every judge judges every pair of models on every prompt (the design of Zhang et al.'s (2025)
datasets), in one shared order, with the presentation order (A/B) random.

What a multi-judge Bradley–Terry model (:mod:`judgebayes.bayes.multi_judge`) calls the
self-preference η_k, the extra logit of judge k's own model over the others, is here
η_k = γ_k (1 − c̄_k), c̄_k the mean resemblance of the other models' answers to
judge k's; the other models' mean resemblances c̄_{m,k} give the judge-specific
deviations δ_{k,m}. ``judges`` reports η_k so that posteriors can be checked against it.
It is a first-order summary: resemblance varies from prompt to prompt, and averaging the
logistic over it attenuates the marginal log-odds of a strong bias (with γ = 4 the
multi-judge posterior mean falls ~0.3 below η on average).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes.core.battles import Battles
from judgebayes.core.bt import ELO_SCALE, theta_to_elo
from judgebayes.core.results import ResultDisplay

__all__ = ["SimulatedConsensus", "simulate_consensus"]


@dataclass(frozen=True, repr=False)
class SimulatedConsensus(ResultDisplay):
    """A simulated multi-judge arena with answer embeddings and the truth behind it.

    Attributes
    ----------
    battles
        ``prompt_id, model_a, model_b, judge, judge_label`` (1: A preferred), in playing order.
    answers
        Answer embeddings, indexed by ``(prompt_id, model)``, one column per dimension.
    judge_answers
        Each judge's own answer embedding, indexed by ``(prompt_id, judge)``.
    truth
        One row per model: ``elo``, ``theta``.
    judges
        One row per judge: ``own_model`` (or ``None``), ``psi``, ``gamma`` (the
        resemblance weight γ_k), ``eta`` (the self-preference η_k on the logit scale,
        NaN when the judge is not a contestant), ``eta_elo`` (η_k · 400/ln 10).
    seed
        The seed it was drawn with.
    """

    battles: Battles
    answers: pd.DataFrame
    judge_answers: pd.DataFrame
    truth: pd.DataFrame
    judges: pd.DataFrame
    seed: int

    @property
    def own_model(self) -> dict[str, str]:
        """``{judge: own model}`` of the judges that are also contestants."""
        own = self.judges["own_model"].dropna()
        return dict(zip(own.index, own, strict=True))

    @property
    def elo(self) -> pd.Series:
        """True Elo by model."""
        return self.truth["elo"].rename("truth")

    def to_frame(self) -> pd.DataFrame:
        """The judges' table (own model, ψ, γ, η)."""
        return self.judges.reset_index()

    def _headline(self) -> str:
        n_prompts = self.answers.index.get_level_values(0).nunique()
        eta = self.judges["eta"].dropna()
        span = f"; η {eta.min():.2f}–{eta.max():.2f}" if len(eta) else ""
        return (
            f"{len(self.judges)} judges ({len(eta)} contestants) × {len(self.truth)} models, "
            f"{n_prompts} prompts, {len(self.battles):,} verdicts, "
            f"{self.answers.shape[1]}-D embeddings{span}"
        )


def _unit_rows(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def simulate_consensus(
    n_models: int = 10,
    n_judges: int = 10,
    n_prompts: int = 40,
    dim: int = 16,
    *,
    elo_sd: float = 150.0,
    self_preference: float | Sequence[float] | None = None,
    own_model: Mapping[str, str] | None = None,
    psi: float | Sequence[float] = 1.0,
    style: float = 1.0,
    topic: float = 1.0,
    noise: float = 0.5,
    quality: float = 0.0,
    seed: int = 0,
) -> SimulatedConsensus:
    """Simulate judges that favour answers resembling their own (see the module docstring).

    Parameters
    ----------
    n_models, n_judges, n_prompts, dim
        Sizes: models, judges, prompts, embedding dimension D.
    elo_sd
        Standard deviation of the true Elo ratings.
    self_preference
        γ_k per judge (or one value for all); default evenly spread over [0, 3].
    own_model
        ``{judge: model}``; default: judge *k* is model *k* for k < min(n_judges, n_models)
        (as in Zhang et al. (2025), where the ten judges are the ten contestants).
    psi
        Judge discrimination ψ_k (one value or one per judge).
    style, topic, noise
        Scales of the model styles u_m, the prompt topics t_p and the per-answer noise
        (each a random vector of that expected norm).
    quality
        Weight q of the quality direction in the embeddings (0: embeddings carry no
        information about θ).
    seed
        Random seed.

    Returns
    -------
    SimulatedConsensus
    """
    rng = np.random.default_rng(seed)
    models = [f"model-{m}" for m in range(n_models)]
    judges = [f"judge-{k}" for k in range(n_judges)]
    if own_model is None:
        own_model = {judges[k]: models[k] for k in range(min(n_judges, n_models))}
    unknown = set(own_model) - set(judges) or set(own_model.values()) - set(models)
    if unknown:
        raise ValueError(f"own_model names unknown judges or models: {sorted(unknown)}")
    gamma = (
        np.linspace(0.0, 3.0, n_judges)
        if self_preference is None
        else np.broadcast_to(np.asarray(self_preference, float), (n_judges,)).copy()
    )
    psi = np.broadcast_to(np.asarray(psi, float), (n_judges,)).copy()

    theta = rng.normal(0.0, elo_sd / ELO_SCALE, n_models)
    theta -= theta.mean()
    scale = 1.0 / np.sqrt(dim)
    styles = rng.normal(0.0, style * scale, (n_models, dim))
    judge_styles = rng.normal(0.0, style * scale, (n_judges, dim))
    topics = rng.normal(0.0, topic * scale, (n_prompts, dim))
    direction = _unit_rows(rng.normal(size=dim))
    answers = (
        topics[:, None, :]
        + styles[None]
        + noise * scale * rng.normal(size=(n_prompts, n_models, dim))
        + quality * theta[None, :, None] * direction
    )
    own_index = np.array([models.index(own_model[j]) if j in own_model else -1 for j in judges])
    judge_theta = rng.normal(0.0, elo_sd / ELO_SCALE, n_judges)
    mine = (
        topics[:, None, :]
        + judge_styles[None]
        + noise * scale * rng.normal(size=(n_prompts, n_judges, dim))
        + quality * judge_theta[None, :, None] * direction
    )
    contestant = own_index >= 0
    mine[:, contestant] = answers[:, own_index[contestant]]
    # resemblance c[p, m, k] of answer (p, m) to judge k's own answer on p
    resemblance = np.einsum("pmd,pkd->pmk", _unit_rows(answers), _unit_rows(mine))
    resemblance[:, own_index[contestant], np.flatnonzero(contestant)] = 1.0

    pairs = np.array([(a, b) for a in range(n_models) for b in range(a + 1, n_models)])
    frames = []
    for p in range(n_prompts):
        sequence = pairs[rng.permutation(len(pairs))]
        swap = rng.random(len(pairs)) < 0.5
        a = np.where(swap, sequence[:, 1], sequence[:, 0])
        b = np.where(swap, sequence[:, 0], sequence[:, 1])
        for k in range(n_judges):
            logit = psi[k] * (theta[a] - theta[b]) + gamma[k] * (
                resemblance[p, a, k] - resemblance[p, b, k]
            )
            label = (rng.random(len(a)) < expit(logit)).astype(float)
            frames.append(
                pd.DataFrame(
                    {
                        "prompt_id": f"p{p:03d}",
                        "model_a": np.take(models, a),
                        "model_b": np.take(models, b),
                        "judge": judges[k],
                        "judge_label": label,
                    }
                )
            )
    battles = Battles(pd.concat(frames, ignore_index=True))

    mean_res = resemblance.mean(axis=0)  # (M, K)
    eta = np.full(n_judges, np.nan)
    for k in np.flatnonzero(contestant):
        others = np.delete(mean_res[:, k], own_index[k])
        eta[k] = gamma[k] * (1.0 - others.mean())
    prompts = [f"p{p:03d}" for p in range(n_prompts)]
    columns = [f"e{d}" for d in range(dim)]
    answer_frame = pd.DataFrame(
        answers.reshape(-1, dim),
        columns=columns,
        index=pd.MultiIndex.from_product([prompts, models], names=["prompt_id", "model"]),
    )
    judge_frame = pd.DataFrame(
        mine.reshape(-1, dim),
        columns=columns,
        index=pd.MultiIndex.from_product([prompts, judges], names=["prompt_id", "judge"]),
    )
    truth = pd.DataFrame(
        {"elo": theta_to_elo(theta), "theta": theta}, index=pd.Index(models, name="model")
    )
    judge_table = pd.DataFrame(
        {
            "own_model": [own_model.get(j) for j in judges],
            "psi": psi,
            "gamma": gamma,
            "eta": eta,
            "eta_elo": eta * ELO_SCALE,
        },
        index=pd.Index(judges, name="judge"),
    )
    return SimulatedConsensus(battles, answer_frame, judge_frame, truth, judge_table, seed)
