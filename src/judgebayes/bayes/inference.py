"""One ``fit()`` for every generative model: NUTS, MAP (+ Laplace) or ADVI.

A model is a plain NumPyro function of its data (``model(**data)``; observed
sites take ``None`` to generate). :func:`fit` runs

* ``method="nuts"``: NumPyro's NUTS transition and warm-up adaptation (diagonal mass
  matrix and step size), each chain on its own thread, run in chunks of iterations by
  the engine's driver (:mod:`judgebayes.bayes.engine.nuts`); compiled once per model
  and data layout (:mod:`judgebayes.bayes.engine.model`), so a second fit of the same
  shapes, with new data, a new seed or another number of chains, draws or warm-up
  iterations, only samples, and kept in JAX's persistent compilation cache on disk,
  so a new process loads it instead of compiling;
* ``method="map"``: the mode of the *same* log density, found by SciPy's L-BFGS
  on NumPyro's potential function (the negative log joint on the unconstrained
  space, with JAX gradients), and a Laplace approximation from the Hessian at the
  mode (:mod:`judgebayes.bayes.engine.laplace`): the ``posterior`` group holds Laplace
  draws and the ``map`` group the mode itself;
* ``method="advi"``: mean-field ADVI (NumPyro SVI with an ``AutoNormal`` guide).

All three return :class:`arviz.InferenceData` with named coordinates,
``observed_data`` and pointwise ``log_likelihood`` (for LOO).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Collection, Mapping
from typing import Any, Literal

import arviz as az
import jax
import numpy as np
import numpyro
import xarray as xr
from numpyro.diagnostics import effective_sample_size, gelman_rubin
from numpyro.infer import SVI, Predictive, Trace_ELBO
from numpyro.infer.autoguide import AutoNormal
from scipy.stats import norm, rankdata
from tqdm.auto import tqdm

from judgebayes.bayes.engine.keys import NEEDS_CONCRETE
from judgebayes.bayes.engine.laplace import laplace
from judgebayes.bayes.engine.model import CompiledModel, target_accept_for
from judgebayes.bayes.engine.sites import is_data_site, op_by_op, site_table
from judgebayes.bayes.spec import ModelSpec, resolve_spec
from judgebayes.core.bootstrap import one_blas_thread
from judgebayes.errors import JudgeBayesWarning

__all__ = [
    "SamplerWarning",
    "fit",
    "map_estimate",
    "rank_rhat_and_bulk_ess",
    "use_cpu_cores",
]

Method = Literal["nuts", "map", "advi"]


class SamplerWarning(JudgeBayesWarning):
    """NUTS diagnostics (divergences, R-hat, ESS) suggest the posterior is not trustworthy."""


def use_cpu_cores(n: int | None = None) -> None:
    """Let JAX see ``n`` CPU devices (default: all cores).

    :func:`fit` does not need this (it runs its chains on threads); NumPyro's own
    ``MCMC(chain_method="parallel")``, e.g. PyMC's ``nuts_sampler="numpyro"`` route,
    does. Ask for no more devices than cores: with more devices than cores, some
    :func:`fit` calls stall on oversubscribed threads (``bench/bayes_speed.py``). Must be called
    before JAX initialises its backend (before the first JAX computation in the
    process); later calls have no effect.
    """
    numpyro.set_host_device_count(n or os.cpu_count() or 1)


def _to_idata(
    model: Callable,
    data: Mapping[str, Any],
    draws: dict[str, np.ndarray],
    coords: Mapping | None,
    dims: Mapping | None,
    method: str,
    *,
    compiled: CompiledModel | None = None,
    arrays: Mapping | None = None,
    sample_stats: Mapping[str, np.ndarray] | None = None,
) -> az.InferenceData:
    """InferenceData from posterior draws shaped ``(chain, draw, ...)``."""
    if compiled is None:
        compiled, arrays = CompiledModel.of(model, data)
    loglik = compiled.pointwise_log_likelihood(draws, arrays)
    try:  # one compiled trace, not one compiled kernel per operation
        observed = compiled.observed(arrays)
    except NEEDS_CONCRETE:  # a model that needs its draws concrete: op by op
        observed = {
            k: np.asarray(s["value"]) for k, s in op_by_op(model, data).items() if is_data_site(s)
        }
    idata = az.from_dict(
        posterior=draws,
        log_likelihood=loglik,
        sample_stats=sample_stats,
        observed_data=observed,
        coords=coords,
        dims=dims,
    )
    idata.posterior.attrs["inference"] = method
    return idata


def rank_rhat_and_bulk_ess(draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank-normalised split R-hat and bulk ESS of every parameter at once.

    ``draws`` is shaped ``(chain, draw, k)``. The quantities are those of Vehtari et al.
    (2021, Bayesian Analysis 16(2)), which ``arviz.rhat`` and ``arviz.ess``
    (``method="bulk"``) return: R-hat is the larger of the split R-hat of the
    rank-normalised draws and of the rank-normalised folded draws |x − median|; bulk ESS is
    the ESS of the rank-normalised draws; each chain is split in two (the middle draw of an
    odd-length chain dropped) before ranking. Rank-normalisation (``Φ⁻¹((r − 3/8)/(S +
    1/4))`` of the pooled ranks ``r``) is written here because ArviZ applies it one
    parameter at a time, which made these checks a large share of a warm fit
    (``docs/benchmarks.md``); R-hat and the ESS (Geyer's initial monotone sequence) are
    NumPyro's, vectorised over parameters, with ArviZ's bound ESS ≤ S·log10(S) for S pooled
    split draws. R-hat equals ArviZ's to rounding; the ESS agrees within a few per cent. A
    constant parameter gets NaN for both.
    """
    half = draws.shape[1] // 2
    split = np.concatenate([draws[:, :half], draws[:, draws.shape[1] - half :]], axis=0)
    size = split.shape[0] * half

    def z_scale(x: np.ndarray) -> np.ndarray:
        ranks = rankdata(x.reshape(size, -1), axis=0)
        return norm.ppf((ranks - 0.375) / (size + 0.25)).reshape(x.shape)

    with np.errstate(invalid="ignore", divide="ignore"):  # constant parameters: NaN
        z = z_scale(split)
        folded = z_scale(np.abs(split - np.median(split, axis=(0, 1))))
        rhat = np.maximum(gelman_rubin(z), gelman_rubin(folded))
        ess = effective_sample_size(z)
    # ArviZ bounds the autocorrelation time below by 1/log10(S), so the ESS by
    # S·log10(S); NumPyro's estimate has no bound and goes negative on strongly
    # antithetic or very short chains.
    cap = size * np.log10(size)
    return rhat, np.where((ess <= 0) | (ess > cap), cap, ess)


def _check_nuts(idata: az.InferenceData, sampled_sites: Collection[str]) -> None:
    n_div = int(idata.sample_stats["diverging"].sum()) if "diverging" in idata.sample_stats else 0
    if n_div:
        warnings.warn(
            f"{n_div} divergent transitions: the posterior may be biased; raise "
            f"target_accept (e.g. 0.95) or reparametrise the model",
            SamplerWarning,
            stacklevel=3,
        )
    chains, draws = idata.posterior.sizes["chain"], idata.posterior.sizes["draw"]
    if chains < 2 or draws < 4:
        return
    # Sampled sites only: deterministic sites are functions of them (Elo of θ) and
    # would double the cost.
    sampled = [
        idata.posterior[k].values.reshape(chains, draws, -1)
        for k in idata.posterior.data_vars
        if k in sampled_sites
    ]
    if not sampled:
        return
    rhat, ess = rank_rhat_and_bulk_ess(np.concatenate(sampled, axis=2))
    if np.all(np.isnan(rhat)):  # nothing varies (or nothing sampled): nothing to check
        return
    worst_rhat, worst_ess = float(np.nanmax(rhat)), float(np.nanmin(ess))
    if worst_rhat > 1.01:
        warnings.warn(
            f"max R-hat {worst_rhat:.3f} > 1.01: chains disagree; run longer "
            f"(more warm-up and draws)",
            SamplerWarning,
            stacklevel=3,
        )
    if worst_ess < 100 * chains:
        warnings.warn(
            f"min bulk ESS {worst_ess:.0f} < 100 per chain: intervals are noisy; draw more samples",
            SamplerWarning,
            stacklevel=3,
        )


def fit(
    model: Callable | ModelSpec,
    data: Mapping[str, Any] | None = None,
    coords: Mapping[str, Any] | None = None,
    dims: Mapping[str, list[str]] | None = None,
    *,
    method: Method = "nuts",
    chains: int = 4,
    draws: int = 1000,
    warmup: int = 1000,
    seed: int = 0,
    progress: bool = True,
    target_accept: float | None = None,
    advi_steps: int = 5000,
) -> az.InferenceData:
    """Fit a NumPyro model by NUTS, MAP (+ Laplace) or ADVI.

    ``fit(jb.models.bt(battles))`` and ``fit(*jb.models.bt(battles))`` are the same
    call: a :class:`~judgebayes.bayes.spec.ModelSpec` carries the model, its data,
    coords and dims.

    Parameters
    ----------
    model
        A NumPyro model function called as ``model(**data)``, or a
        :class:`~judgebayes.bayes.spec.ModelSpec` (then ``data``, ``coords`` and
        ``dims`` default to the spec's).
    data
        Keyword arguments of the model (arrays, sizes, hyper-parameters).
    method
        ``"nuts"``, ``"map"`` or ``"advi"``.
    chains, draws, warmup
        NUTS chains, draws per chain and warm-up iterations; for ``"map"`` and
        ``"advi"`` the posterior group holds ``draws`` approximate draws in one chain.
    seed
        Random seed.
    coords, dims
        ArviZ coordinates and dimensions, e.g. ``coords={"model": names}``,
        ``dims={"theta": ["model"]}``.
    progress
        Show a progress bar (NUTS, ADVI).
    target_accept
        NUTS target acceptance probability. ``None``: the model function's own
        ``target_accept`` attribute where it sets one (``multi_judge_model``: 0.95,
        for its hierarchical deviations), else 0.8.
    advi_steps
        SVI optimisation steps for ``"advi"``.

    Returns
    -------
    arviz.InferenceData
        ``posterior``, ``log_likelihood``, ``observed_data`` (+ ``sample_stats``
        for NUTS, ``map`` for MAP).

    Notes
    -----
    NUTS is compiled once per model and data layout (the shapes of the data) and
    process; another seed, data set of the same shapes, number of chains, draws or
    warm-up iterations reuses it. The compiled sampler is also written to JAX's
    persistent compilation cache, in ``jax/`` beside the data-set cache
    (``~/.cache/judgebayes/jax`` on Linux), so the first fit of a new process loads it
    instead of compiling. The folder is capped at 512 MiB (JAX drops the least recently
    used entries); delete it to clear it. ``JUDGEBAYES_JAX_CACHE=DIR`` puts it
    elsewhere, ``JUDGEBAYES_JAX_CACHE=off`` turns it off, and a cache folder set in JAX's
    own configuration is left as it is.
    """
    model, data, coords, dims = resolve_spec(model, data, coords, dims, "fit")
    key = jax.random.PRNGKey(seed)
    if method == "nuts":
        target_accept = target_accept_for(model, target_accept)
        compiled, arrays = CompiledModel.of(model, data)
        with tqdm(
            total=chains * (warmup + draws),
            desc=f"NUTS, {chains} chains",
            unit="it",
            disable=not progress,
        ) as bar:
            samples, stats = compiled.nuts(
                key,
                arrays,
                chains=chains,
                draws=draws,
                warmup=warmup,
                target_accept=target_accept,
                progress=bar if progress else None,
            )
        idata = _to_idata(
            model,
            data,
            samples,
            coords,
            dims,
            "nuts",
            compiled=compiled,
            arrays=arrays,
            sample_stats=stats,
        )
        _check_nuts(idata, compiled.z_template)
        return idata
    if method == "map":
        return _fit_map(model, data, draws, key, coords, dims)
    if method == "advi":
        guide = AutoNormal(model)
        svi = SVI(model, guide, numpyro.optim.Adam(0.01), Trace_ELBO())
        result = svi.run(key, advi_steps, progress_bar=progress, **data)
        post = Predictive(guide, params=result.params, num_samples=draws)(
            jax.random.fold_in(key, 1), **data
        )
        full = Predictive(model, posterior_samples=post, return_sites=None)(
            jax.random.fold_in(key, 2), **data
        )
        latent = {k for k, site in site_table(model, data).items() if site.latent}
        samples = {k: np.asarray(v)[None] for k, v in {**post, **full}.items() if k in latent}
        return _to_idata(model, data, samples, coords, dims, "advi")
    raise ValueError(f"method must be 'nuts', 'map' or 'advi', got {method!r}")


def _fit_map(
    model: Callable,
    data: Mapping[str, Any],
    draws: int,
    key: jax.Array,
    coords: Mapping | None,
    dims: Mapping | None,
) -> az.InferenceData:
    """Mode of the potential (negative log joint) by L-BFGS, plus Laplace draws."""
    # One BLAS thread: L-BFGS's small dense algebra beside JAX's own threads otherwise
    # oversubscribes the cores (docs/benchmarks.md).
    with jax.enable_x64(True), one_blas_thread():
        compiled, arrays = CompiledModel.of(model, data)
        point, samples = laplace(compiled, arrays, draws, key)
        idata = _to_idata(
            model, data, samples, coords, dims, "map+laplace", compiled=compiled, arrays=arrays
        )
    map_group = az.from_dict(
        posterior={k: v[None, None] for k, v in point.items()}, coords=coords, dims=dims
    ).posterior.squeeze(("chain", "draw"), drop=True)
    idata.add_groups({"map": map_group})
    return idata


def map_estimate(idata: az.InferenceData) -> xr.Dataset:
    """The mode stored by ``fit(..., method="map")``."""
    if "map" not in idata.groups():
        raise ValueError("this InferenceData has no MAP estimate: fit it with method='map'")
    return idata["map"]
