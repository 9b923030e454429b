"""Training the UDA adapter toward the judges' consensus (Zhang, Wang, Wu, Yu, Wang, Bao & Tang,
*UDA: Unsupervised Debiasing Alignment for Pair-wise LLM-as-a-Judge*, 2025, arXiv:2508.09724, Eq.
3).

One training step runs the adaptive Elo recursion (Algorithm 2) over *all* battles of
every judge, one judge-homogeneous batch 𝓑_b per judge, giving ratings R^(b), and
minimises

    L(θ) = α Σ_b ‖R^(b) − G‖² + σ ‖R̄ − G‖² + β Σ_b (1 − ρ_p(R^(b), G)),       (Eq. 3)

where G is the consensus of the *baseline* (each model's mean over judges of the
online Elo with K = 32), R̄ the mean of the R^(b) and ρ_p Pearson's r. The squared
norms are divided by N·(100 Elo)², i.e. measured as mean squares in units of
100 Elo, so that α, σ and β are of comparable size (this only rescales α and σ).

Training uses optax's AdamW with a warm-up + cosine learning-rate schedule and
gradient clipping; the prompts are split into a training and a validation set, each
with its own consensus G, and the weights of the epoch with the lowest validation
loss are kept (the paper's "select the best model based on validation loss").
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.consensus.adapter import (
    Embeddings,
    UDAAdapter,
    UDABatch,
    adapter_inputs,
    adaptive_ratings,
    init_mlp,
    uda_batch,
)
from judgebayes.consensus.elo import (
    DEFAULT_INITIAL,
    DEFAULT_K,
    DEFAULT_SCALE,
    Order,
    elo_loop,
    judge_sequences,
)
from judgebayes.core.battles import Battles
from judgebayes.errors import DataError

__all__ = ["consensus_loss", "fit_uda"]

UNIT = 100.0  # Elo unit of the squared-error terms of Eq. 3


def consensus_loss(
    ratings: jax.Array,
    anchor: jax.Array,
    *,
    alpha: float = 1.0,
    sigma: float = 1.0,
    beta: float = 1.0,
) -> jax.Array:
    """The consensus loss of Zhang et al. (2025), Eq. 3.

    Parameters
    ----------
    ratings
        R^(b): one row of ratings per judge batch, ``(B, N)``.
    anchor
        The baseline consensus G, ``(N,)``.
    alpha, sigma, beta
        Weights of the anchor MSE, the global (mean-rating) MSE and the Pearson term.
        Squared errors are mean squares in units of (100 Elo)².
    """
    n = anchor.shape[-1]
    anchor_term = jnp.sum((ratings - anchor) ** 2) / (n * UNIT**2)
    global_term = jnp.sum((ratings.mean(axis=0) - anchor) ** 2) / (n * UNIT**2)
    rc = ratings - ratings.mean(axis=1, keepdims=True)
    gc = anchor - anchor.mean()
    rho = (rc @ gc) / jnp.sqrt(jnp.sum(rc**2, axis=1) * jnp.sum(gc**2) + 1e-12)
    return alpha * anchor_term + sigma * global_term + beta * jnp.sum(1.0 - rho)


def _split(
    battles: Battles,
    seqs: Sequence[np.ndarray],
    val_fraction: float,
    seed: int,
) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """Each judge's sequence cut into training and validation prompts."""
    prompts = pd.unique(battles.column("prompt_id"))
    n_val = round(val_fraction * len(prompts))
    if not 1 <= n_val < len(prompts):
        raise DataError(
            f"{len(prompts)} prompts cannot be split {1 - val_fraction:.0%} / {val_fraction:.0%}",
            column="prompt_id",
            expected="at least one training and one validation prompt",
        )
    val_prompts = set(np.random.default_rng(seed).permutation(prompts)[:n_val].tolist())
    is_val = np.array([p in val_prompts for p in battles.column("prompt_id")])
    return [s[~is_val[s]] for s in seqs], [s[is_val[s]] for s in seqs], n_val


def fit_uda(
    battles: Battles,
    answers: Embeddings,
    judge_answers: Embeddings,
    *,
    hidden: Sequence[int] = (64, 32),
    self_features: bool = True,
    verdict_input: bool = True,
    k: float = DEFAULT_K,
    scale: float = DEFAULT_SCALE,
    initial: float = DEFAULT_INITIAL,
    alpha: float = 1.0,
    sigma: float = 1.0,
    beta: float = 1.0,
    epochs: int = 200,
    learning_rate: float = 3e-3,
    weight_decay: float = 1e-4,
    warmup: float = 0.1,
    val_fraction: float = 0.25,
    order: Order = None,
    seed: int = 0,
    target: str = "judge_label",
    progress: bool = True,
) -> UDAAdapter:
    """Train the UDA adapter (Zhang et al., 2025, Eqs. 2–3, Algorithms 1–2) on several judges'
    verdicts.

    Parameters
    ----------
    battles
        Battles with ``judge`` and ``prompt_id`` columns.
    answers, judge_answers
        Embeddings of every answer, indexed by ``(prompt_id, model)``, and of every judge's
        own answer, indexed by ``(prompt_id, judge)`` (user-supplied arrays).
    hidden
        Hidden layer widths of f_θ (two: the paper's 3-layer MLP).
    self_features
        ``False``: the Table 3 ablation without the features of the judge's own answer.
    verdict_input
        Feed the verdict r_ij to f_θ as well (see :mod:`judgebayes.consensus.adapter`).
    k, scale, initial
        Baseline K (the anchor G's Elo and the adapter's K₀), logistic scale, initial rating.
    alpha, sigma, beta
        Weights of Eq. 3.
    epochs
        Full-batch optimisation steps (each runs every judge's recursion once).
    learning_rate, weight_decay, warmup
        AdamW's peak learning rate and decoupled weight decay; the schedule warms up
        linearly over the first ``warmup`` fraction of epochs, then decays by a cosine to
        5 % of the peak.
    val_fraction
        Fraction of prompts held out for validation (best-checkpoint selection).
    order, seed
        Playing order (as :func:`~judgebayes.consensus.elo.online_elo`); ``seed`` also
        draws the split and the initial weights.
    progress
        Show a progress bar.

    Returns
    -------
    UDAAdapter
    """
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    _, seqs = judge_sequences(battles, target=target, order=order, seed=seed)
    train_seqs, val_seqs, n_val = _split(battles, seqs, val_fraction, seed)
    config: dict[str, Any] = {
        "hidden": tuple(int(h) for h in hidden),
        "self_features": bool(self_features),
        "verdict_input": bool(verdict_input),
        "k": float(k),
        "scale": float(scale),
        "initial": float(initial),
        "weights": [alpha, sigma, beta],
        "epochs": int(epochs),
        "learning_rate": learning_rate,
        "weight_decay": weight_decay,
        "seed": int(seed),
        "val_prompts": n_val,
    }
    batches = [
        uda_batch(battles, answers, judge_answers, sequences=s, target=target)
        for s in (train_seqs, val_seqs)
    ]
    x_train, mean, std = adapter_inputs(batches[0], config)
    x_val, _, _ = adapter_inputs(batches[1], config, mean, std)
    config["dim"], config["dim_in"] = int(batches[0].e_i.shape[-1]), int(x_train.shape[-1])
    data = [_device(b, x, config) for b, x in zip(batches, (x_train, x_val), strict=True)]

    step, optimiser, schedule = _training(
        len(batches[0].models),
        config["k"],
        config["scale"],
        config["initial"],
        float(alpha),
        float(sigma),
        float(beta),
        float(learning_rate),
        float(weight_decay),
        max(1, int(warmup * epochs)),
        max(2, epochs),
    )
    params = {
        k: jnp.asarray(v)
        for k, v in init_mlp(seed, [config["dim_in"], *config["hidden"], 3]).items()
    }
    state = optimiser.init(params)
    rates = np.asarray(jax.vmap(schedule)(jnp.arange(epochs)))

    rows, best, best_loss, start = [], params, np.inf, time.perf_counter()
    for epoch in tqdm(
        range(epochs),
        desc=f"UDA ({'full' if self_features else 'ablated'})",
        disable=not progress,
        unit="epoch",
    ):
        new, state, train_loss, val_loss = step(params, state, data[0], data[1])
        val = float(val_loss)  # of the weights *before* this step
        if val < best_loss:
            best, best_loss, best_epoch = params, val, epoch
        rows.append(
            (epoch, float(rates[epoch]), float(train_loss), val, time.perf_counter() - start)
        )
        params = new
    history = pd.DataFrame(
        rows, columns=["epoch", "learning_rate", "train_loss", "val_loss", "elapsed_s"]
    )
    kept = {name: np.asarray(v) for name, v in best.items()}
    kept.update(mean=np.asarray(mean), std=np.asarray(std))
    return UDAAdapter(kept, config, history, int(best_epoch))


@functools.lru_cache(maxsize=16)
def _training(
    n_models: int,
    k0: float,
    scale: float,
    initial: float,
    alpha: float,
    sigma: float,
    beta: float,
    learning_rate: float,
    weight_decay: float,
    warmup_steps: int,
    decay_steps: int,
) -> tuple[Callable[..., Any], optax.GradientTransformation, optax.Schedule]:
    """The jitted training step of :func:`fit_uda`, its optimiser and learning-rate schedule.

    One step function per setting (cached), with the training and validation data
    as its arguments: ``jax.jit`` compiles it once per shape of the weights and the
    data, so a second :func:`fit_uda` with the same settings on other data of the same
    shapes compiles nothing, and the compiled code holds no data (the persistent
    compilation cache keeps a small entry that any data of these shapes reuses).
    Where the data were constants of the step, XLA folded some of the arithmetic on
    them at compile time; as arguments they are computed at run time, which rounds
    differently in float32 (trained weights within about 1e-5).

    Returns
    -------
    step
        ``step(params, state, train, val) -> (params, state, train_loss, val_loss)``:
        one AdamW update on the training data, the training loss before it and the
        validation loss of the weights before it.
    optimiser, schedule
        The optax optimiser (clipping, AdamW) and its warm-up + cosine schedule.
    """

    def loss_fn(params: Mapping[str, jax.Array], d: Mapping[str, jax.Array]) -> jax.Array:
        final, _, _ = adaptive_ratings(
            params,
            d["x"],
            d["i"],
            d["j"],
            d["mask"],
            n_models=n_models,
            k0=k0,
            scale=scale,
            initial=initial,
        )
        return consensus_loss(final, d["anchor"], alpha=alpha, sigma=sigma, beta=beta)

    schedule = optax.warmup_cosine_decay_schedule(
        0.0, learning_rate, warmup_steps, decay_steps, end_value=0.05 * learning_rate
    )
    optimiser = optax.chain(
        optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=weight_decay)
    )

    @jax.jit
    def step(
        params: Any, state: Any, train: Mapping[str, jax.Array], val: Mapping[str, jax.Array]
    ) -> tuple[Any, Any, jax.Array, jax.Array]:
        loss, grads = jax.value_and_grad(loss_fn)(params, train)
        updates, state = optimiser.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss, loss_fn(params, val)

    return step, optimiser, schedule


def _device(batch: UDABatch, x: np.ndarray, config: Mapping[str, Any]) -> dict[str, jax.Array]:
    """The arrays one loss evaluation needs, with the split's baseline consensus G: each
    model's mean over judges of the online Elo with K = K₀ (Eq. 1, the plain loop)."""
    base = [
        elo_loop(
            i[m > 0],
            j[m > 0],
            r[m > 0],
            len(batch.models),
            k=config["k"],
            scale=config["scale"],
            initial=config["initial"],
        )
        for i, j, r, m in zip(batch.i, batch.j, batch.r, batch.mask, strict=True)
    ]
    return {
        "x": jnp.asarray(x),
        "i": jnp.asarray(batch.i),
        "j": jnp.asarray(batch.j),
        "mask": jnp.asarray(batch.mask, jnp.float32),
        "anchor": jnp.asarray(np.mean(base, axis=0), jnp.float32),
    }
