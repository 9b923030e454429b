"""Speed of the UDA paper's consensus tools, each against a plain reference route in one process.

Zhang, Wang, Wu, Yu, Wang, Bao & Tang, *UDA: Unsupervised Debiasing Alignment for Pair-wise
LLM-as-a-Judge* (2025, arXiv:2508.09724).

What it measures
----------------
(1) **Elo recursion** on the real data (the contests of Ramaswamy, Demeure & Rrapaj,
*Model Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores*, EMNLP 2025,
arXiv:2509.23510: 24 judges, 66,995 verdicts,
    35 models): the per-step Python loop (``consensus.elo_loop``, judge after judge, what
    ``online_elo`` runs) against the scanned recursion ``consensus.elo_scan_judges`` (one
    ``lax.scan`` over the battles, vectorised over the judges with ``vmap``, jit-compiled;
    median of warm calls, its compilation reported separately), and the largest rating
    difference between the two (float32 scan vs float64 loop).
(2) **UDA training** (``consensus.fit_uda``, E epochs, full features, on the notebook's
    real-data-shaped simulation: 24 judges, 5 models, 40 prompts, 30 for training): the
    whole call (compilation included) and its time per epoch (each epoch is one forward and
    backward pass of every judge's recursion and a validation forward pass), against one
    forward pass of the same adaptive recursion (the trained adapter's K_ij and s_i on the
    training battles) by the per-step Python loop.
(3) **The multi-judge BT on the 24-judge data**, fitted component by component (the comparison
    graph has 7 components of 5 models; 2 chains × D draws after W warm-up, target acceptance
    0.95): ``jb.fit`` (judgebayes' compiled NUTS, through ``consensus.fit_consensus``) against
    NumPyro's own ``MCMC(NUTS(model))`` on the same model function and data
    (``chain_method="vectorized"``: this process has one JAX device), component after
    component; total wall time, and the minimum bulk ESS of θ over all components.
    ``jb.fit`` compiles its sampler once for the layout the components share; ``MCMC.run``
    traces and compiles again for every component.

How to run
----------
``python bench/consensus_speed.py`` (a few minutes on 2 cores); ``--epochs``, ``--draws``,
``--warmup`` and ``--components`` (how many of the 7 components route (3) fits) change the run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings
from collections.abc import Callable
from typing import TypeVar

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
from numpyro.infer import MCMC, NUTS

import judgebayes as jb
from judgebayes.consensus import (
    elo_loop,
    elo_scan_judges,
    fit_consensus,
    fit_uda,
    simulate_consensus,
)
from judgebayes.consensus.adapter import adapter_inputs, adaptive_ratings, uda_batch
from judgebayes.consensus.elo import judge_sequences

GAMMA = np.r_[[0.0, 1.0, 2.0, 3.0, 4.0], np.full(19, 1.0)]
T = TypeVar("T")
OWN = ("zephyr-7b-beta", "vicuna-13b", "mistral-7b-instruct", "mixtral-8x7b-instruct-v0.1")


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def recursion(battles: jb.Battles, repeats: int = 5) -> None:
    """(1) Python loop vs scanned recursion on every judge's verdicts."""
    judges, seqs = judge_sequences(battles)
    a, b = battles.codes()
    label = battles.column("judge_label").astype(float)
    m = len(battles.models)

    def loop() -> np.ndarray:
        return np.vstack([elo_loop(a[s], b[s], label[s], m) for s in seqs])

    length = max(len(s) for s in seqs)
    pad = np.zeros((len(judges), length), int)
    i, j, k, r = pad.copy(), pad.copy() + 1, np.zeros(pad.shape), np.full(pad.shape, 0.5)
    for n, s in enumerate(seqs):
        i[n, : len(s)], j[n, : len(s)], k[n, : len(s)], r[n, : len(s)] = a[s], b[s], 32.0, label[s]
    scan = jax.jit(lambda i, j, k, r: elo_scan_judges(i, j, k, r, m))
    args = [jnp.asarray(x) for x in (i, j, k, r)]
    compile_s, _ = timed(lambda: scan(*args).block_until_ready())
    loop_s = statistics.median(timed(loop)[0] for _ in range(repeats))
    scan_s = statistics.median(
        timed(lambda: scan(*args).block_until_ready())[0] for _ in range(repeats)
    )
    gap = float(np.abs(loop() - np.asarray(scan(*args))).max())
    print(f"(1) online Elo, {len(judges)} judges x {length:,} battles (padded), {m} models")
    print(f"    Python loop (elo_loop)          {loop_s * 1e3:9.1f} ms")
    print(
        f"    lax.scan x vmap, warm           {scan_s * 1e3:9.1f} ms   "
        f"(compile + first call {compile_s:.2f} s)"
    )
    print(
        f"    ratio loop / scan               {loop_s / scan_s:9.1f}x   "
        f"max |dElo| = {gap:.1e} (float32 scan)"
    )


def uda(epochs: int) -> None:
    """(2) UDA training: scanned forward vs the Python loop, and autodiff vs finite differences."""
    sim = simulate_consensus(n_models=5, n_judges=24, n_prompts=40, seed=0, self_preference=GAMMA)
    wall, adapter = timed(
        lambda: fit_uda(
            sim.battles,
            sim.answers,
            sim.judge_answers,
            epochs=epochs,
            learning_rate=1e-2,
            hidden=(32, 16),
            weight_decay=1e-2,
            progress=False,
        )
    )
    elapsed = adapter.history["elapsed_s"].to_numpy()
    per_epoch = float(np.median(np.diff(elapsed)))  # epoch 0 includes the compilation
    batch = uda_batch(sim.battles, sim.answers, sim.judge_answers)
    x, _, _ = adapter_inputs(batch, adapter.config, adapter.params["mean"], adapter.params["std"])
    weights = {k: v for k, v in adapter.params.items() if k not in ("mean", "std")}
    n_params = sum(v.size for v in weights.values())
    mask = batch.mask.astype(np.float32)

    def scanned() -> tuple:
        out = adaptive_ratings(
            weights, x, batch.i, batch.j, mask, n_models=5, k0=32.0, scale=400.0, initial=1200.0
        )
        return jax.block_until_ready(out)

    _, kk, ss = scanned()
    kk, ss = np.asarray(kk), np.asarray(ss)

    def loop() -> None:
        for n in range(len(batch.judges)):
            used = batch.mask[n] > 0
            elo_loop(batch.i[n][used], batch.j[n][used], ss[n][used], 5, k=kk[n][used])

    loop_s = statistics.median(timed(loop)[0] for _ in range(5))
    scan_s = statistics.median(timed(scanned)[0] for _ in range(5))
    n_battles = int(batch.mask.sum())
    print(
        f"\n(2) UDA, 24 judges x {n_battles // 24} battles, MLP "
        f"{adapter.config['dim_in']}-32-16-3 ({n_params:,} weights), {epochs} epochs"
    )
    print(
        f"    fit_uda, whole call             {wall:9.2f} s   (first epoch, with compilation: "
        f"{elapsed[0]:.2f} s)"
    )
    print(
        f"    one epoch (fwd + grad + val)    {per_epoch * 1e3:9.1f} ms   "
        "(median over epochs; training battles only)"
    )
    print(
        f"    forward, Python loop            {loop_s * 1e3:9.1f} ms   (all battles; the MLP's "
        "K and s given)"
    )
    print(
        f"    forward, MLP + lax.scan (jit)   {scan_s * 1e3:9.1f} ms   "
        f"ratio loop / scan {loop_s / scan_s:.1f}x"
    )
    fd = (n_params + 1) * loop_s * 0.75  # training battles are 3/4 of all
    print(
        f"    gradient by forward differences through the Python loop (n_weights + 1 passes, "
        f"estimated): {fd:.1f} s per epoch -> autodiff through the scan is "
        f"{fd / per_epoch:,.0f}x faster"
    )


def multi_judge(battles: jb.Battles, draws: int, warmup: int, components: int) -> None:
    """(3) jb.fit (compiled once) vs NumPyro's MCMC, component by component."""
    graph = jb.check_graph(battles.pair_stats(np.full(len(battles), 0.5)))
    groups = sorted(graph.components, key=lambda g: -sum(m in OWN for m in g))[:components]
    mask = np.isin(battles.column("model_a"), [m for g in groups for m in g])
    subset = battles.subset(mask)
    own = {m: m for m in OWN if m in subset.models}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours_s, ours = timed(
            lambda: fit_consensus(
                subset, own_model=own, chains=2, draws=draws, warmup=warmup, progress=False
            )
        )
    ours_ess = min(float(az.ess(i, var_names=["theta"])["theta"].min()) for i in ours.idata)
    theirs_s, theirs_ess = 0.0, np.inf
    for c, group in enumerate(groups):
        sub = battles.subset(np.isin(battles.column("model_a"), list(group)))
        spec = jb.models.multi_judge(sub, own_model={m: m for m in OWN if m in group} or None)
        mcmc = MCMC(
            NUTS(spec.model, target_accept_prob=0.95),
            num_warmup=warmup,
            num_samples=draws,
            num_chains=2,
            chain_method="vectorized",
            progress_bar=False,
        )
        wall, _ = timed(
            lambda mcmc=mcmc, spec=spec, c=c: mcmc.run(jax.random.PRNGKey(c), **spec.data)
        )
        theirs_s += wall
        ess = az.ess(az.from_numpyro(mcmc), var_names=["theta"])["theta"].min()
        theirs_ess = min(theirs_ess, float(ess))
    print(
        f"\n(3) multi-judge BT, 24 judges, {len(groups)} component(s) of 5 models, "
        f"2 chains x {draws} draws after {warmup} warm-up, each component fitted in turn"
    )
    print(
        f"    jb.fit (fit_consensus)          {ours_s:9.1f} s   min bulk ESS(theta) "
        f"{ours_ess:6.0f}   (includes InferenceData, R-hat/ESS checks)"
    )
    print(
        f"    NumPyro MCMC, vectorized chains {theirs_s:9.1f} s   min bulk ESS(theta) "
        f"{theirs_ess:6.0f}   (sampling only)"
    )
    print(
        f"    ratio MCMC / jb.fit             {theirs_s / ours_s:9.1f}x wall, "
        f"{(ours_ess / ours_s) / (theirs_ess / theirs_s):.1f}x ESS/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--components", type=int, default=7, choices=range(1, 8))
    args = parser.parse_args()
    load = os.getloadavg()
    print(
        f"CPU cores: {os.cpu_count()}, load average at start: "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; JAX {jax.__version__}\n"
    )
    battles = jb.datasets.load_consistency()
    recursion(battles)
    uda(args.epochs)
    multi_judge(battles, args.draws, args.warmup, args.components)


if __name__ == "__main__":
    main()
