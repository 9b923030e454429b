"""One ``fit()`` for every generative model: NUTS, MAP (+ Laplace) or ADVI.

A model is a plain NumPyro function of its data (``model(**data)``; observed
sites take ``None`` to generate). :func:`fit` runs

* ``method="nuts"``: NumPyro's NUTS, chains in parallel over CPU devices when
  JAX has as many devices as chains (see :func:`use_cpu_cores`), vectorised
  otherwise;
* ``method="map"``: the mode of the *same* log density, found by SciPy's L-BFGS
  on NumPyro's potential function (the negative log joint on the unconstrained
  space, with JAX gradients), and a Laplace approximation from the JAX Hessian
  at the mode: the ``posterior`` group holds Laplace draws and the ``map`` group
  the mode itself;
* ``method="advi"``: mean-field ADVI (NumPyro SVI with an ``AutoNormal`` guide).

All three return :class:`arviz.InferenceData` with named coordinates,
``observed_data`` and pointwise ``log_likelihood`` (for LOO).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping
from typing import Any, Literal

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import xarray as xr
from jax.flatten_util import ravel_pytree
from numpyro.infer import MCMC, NUTS, SVI, Predictive, Trace_ELBO
from numpyro.infer.autoguide import AutoNormal
from numpyro.infer.util import initialize_model, log_likelihood
from scipy.optimize import minimize

from judgebayes.errors import JudgeBayesWarning

__all__ = ["SamplerWarning", "fit", "map_estimate", "posterior_predictive", "ppc",
           "use_cpu_cores"]

Method = Literal["nuts", "map", "advi"]


class SamplerWarning(JudgeBayesWarning):
    """NUTS diagnostics (divergences, R-hat, ESS) suggest the posterior is not trustworthy."""


def use_cpu_cores(n: int | None = None) -> None:
    """Let JAX see ``n`` CPU devices (default: all cores) so NUTS chains run in parallel.

    Must be called before JAX initialises its backend (i.e. before the first JAX
    computation in the process); later calls have no effect.
    """
    numpyro.set_host_device_count(n or os.cpu_count() or 1)


def _trace(model: Callable, data: Mapping[str, Any]) -> dict[str, dict]:
    return numpyro.handlers.trace(numpyro.handlers.seed(model, 0)).get_trace(**data)


def _observed(model: Callable, data: Mapping[str, Any]) -> dict[str, np.ndarray]:
    return {k: np.asarray(s["value"]) for k, s in _trace(model, data).items()
            if s["type"] == "sample" and s.get("is_observed")}


def _to_idata(model: Callable, data: Mapping[str, Any], draws: dict[str, np.ndarray],
              coords: Mapping | None, dims: Mapping | None, method: str) -> az.InferenceData:
    """InferenceData from posterior draws shaped ``(chain, draw, ...)``."""
    flat = {k: v.reshape(-1, *v.shape[2:]) for k, v in draws.items()}
    loglik = log_likelihood(model, flat, **data)
    n_chain, n_draw = next(iter(draws.values())).shape[:2]
    loglik = {k: np.asarray(v).reshape(n_chain, n_draw, *np.shape(v)[1:])
              for k, v in loglik.items()}
    idata = az.from_dict(posterior=draws, log_likelihood=loglik,
                         observed_data=_observed(model, data), coords=coords, dims=dims)
    idata.posterior.attrs["inference"] = method
    return idata


def _check_nuts(idata: az.InferenceData) -> None:
    n_div = int(idata.sample_stats["diverging"].sum()) if "diverging" in idata.sample_stats else 0
    if n_div:
        warnings.warn(f"{n_div} divergent transitions: the posterior may be biased; raise "
                      f"target_accept (e.g. 0.95) or reparametrise the model", SamplerWarning,
                      stacklevel=3)
    if idata.posterior.sizes["chain"] < 2:
        return
    # Per variable first: to_array() would broadcast unrelated dims against each other.
    worst_rhat = max(float(v.max()) for v in az.rhat(idata).data_vars.values())
    worst_ess = min(float(v.min()) for v in az.ess(idata).data_vars.values())
    if worst_rhat > 1.01:
        warnings.warn(f"max R-hat {worst_rhat:.3f} > 1.01: chains disagree; run longer "
                      f"(more warm-up and draws)", SamplerWarning, stacklevel=3)
    if worst_ess < 100 * idata.posterior.sizes["chain"]:
        warnings.warn(f"min bulk ESS {worst_ess:.0f} < 100 per chain: intervals are noisy; "
                      f"draw more samples", SamplerWarning, stacklevel=3)


def fit(model: Callable, data: Mapping[str, Any], *, method: Method = "nuts",
        chains: int = 4, draws: int = 1000, warmup: int = 1000, seed: int = 0,
        coords: Mapping[str, Any] | None = None, dims: Mapping[str, list[str]] | None = None,
        progress: bool = True, target_accept: float = 0.8, advi_steps: int = 5000,
        ) -> az.InferenceData:
    """Fit a NumPyro model by NUTS, MAP (+ Laplace) or ADVI.

    Parameters
    ----------
    model
        A NumPyro model function called as ``model(**data)``.
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
        NUTS target acceptance probability.
    advi_steps
        SVI optimisation steps for ``"advi"``.

    Returns
    -------
    arviz.InferenceData
        ``posterior``, ``log_likelihood``, ``observed_data`` (+ ``sample_stats``
        for NUTS, ``map`` for MAP).
    """
    key = jax.random.PRNGKey(seed)
    if method == "nuts":
        parallel = jax.local_device_count() >= chains
        mcmc = MCMC(NUTS(model, target_accept_prob=target_accept), num_warmup=warmup,
                    num_samples=draws, num_chains=chains,
                    chain_method="parallel" if parallel else "vectorized",
                    progress_bar=progress)
        mcmc.run(key, **data)
        idata = az.from_numpyro(mcmc, coords=coords, dims=dims, log_likelihood=True)
        idata.posterior.attrs["inference"] = "nuts"
        _check_nuts(idata)
        return idata
    if method == "map":
        return _fit_map(model, data, draws, key, coords, dims)
    if method == "advi":
        guide = AutoNormal(model)
        svi = SVI(model, guide, numpyro.optim.Adam(0.01), Trace_ELBO())
        result = svi.run(key, advi_steps, progress_bar=progress, **data)
        post = Predictive(guide, params=result.params, num_samples=draws)(
            jax.random.fold_in(key, 1), **data)
        full = Predictive(model, posterior_samples=post, return_sites=None)(
            jax.random.fold_in(key, 2), **data)
        latent = _latent_sites(model, data)
        samples = {k: np.asarray(v)[None] for k, v in {**post, **full}.items()
                   if k in latent}
        return _to_idata(model, data, samples, coords, dims, "advi")
    raise ValueError(f"method must be 'nuts', 'map' or 'advi', got {method!r}")


def _latent_sites(model: Callable, data: Mapping[str, Any]) -> set[str]:
    return {k for k, s in _trace(model, data).items()
            if (s["type"] == "sample" and not s.get("is_observed"))
            or s["type"] == "deterministic"}


def _fit_map(model: Callable, data: Mapping[str, Any], draws: int, key: jax.Array,
             coords: Mapping | None, dims: Mapping | None) -> az.InferenceData:
    """Mode of the potential (negative log joint) by L-BFGS, plus Laplace draws."""
    with jax.enable_x64(True):
        info = initialize_model(key, model, model_kwargs=dict(data),
                                init_strategy=numpyro.infer.init_to_median)
        flat0, unravel = ravel_pytree(info.param_info.z)
        value_and_grad = jax.jit(jax.value_and_grad(lambda x: info.potential_fn(unravel(x))))

        def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
            v, g = value_and_grad(jnp.asarray(x))
            return float(v), np.asarray(g, dtype=float)

        res = minimize(fun, np.asarray(flat0, dtype=float), jac=True, method="L-BFGS-B",
                       options={"maxiter": 10_000, "gtol": 1e-9, "ftol": 1e-15})
        if not res.success and np.abs(res.jac).max() > 1e-3:
            warnings.warn(f"MAP optimiser stopped early ({res.message}); the largest gradient "
                          f"component is {np.abs(res.jac).max():.2g}", JudgeBayesWarning,
                          stacklevel=3)
        mode = jnp.asarray(res.x)
        hess = np.asarray(jax.hessian(lambda x: info.potential_fn(unravel(x)))(mode))
        try:
            cov = np.linalg.inv(np.linalg.cholesky(0.5 * (hess + hess.T)))
            cov = cov.T @ cov
        except np.linalg.LinAlgError:
            raise ValueError("the log density has no proper mode here (its Hessian is not "
                             "positive definite, as for a hierarchical scale that collapses to "
                             "zero), so MAP and Laplace are undefined: use method='nuts'"
                             ) from None
        rng = np.random.default_rng(np.asarray(jax.random.key_data(key)).ravel()[-1])
        z = rng.multivariate_normal(np.asarray(mode), cov, size=draws, method="cholesky")
        constrain = jax.jit(jax.vmap(lambda x: info.postprocess_fn(unravel(x))))
        samples = {k: np.asarray(v)[None] for k, v in constrain(jnp.asarray(z)).items()}
        point = {k: np.asarray(v) for k, v in info.postprocess_fn(unravel(mode)).items()}
        idata = _to_idata(model, data, samples, coords, dims, "map+laplace")
    map_group = az.from_dict(posterior={k: v[None, None] for k, v in point.items()},
                             coords=coords, dims=dims).posterior.squeeze(("chain", "draw"),
                                                                         drop=True)
    idata.add_groups({"map": map_group})
    return idata


def map_estimate(idata: az.InferenceData) -> xr.Dataset:
    """The mode stored by ``fit(..., method="map")``."""
    if "map" not in idata.groups():
        raise ValueError("this InferenceData has no MAP estimate: fit it with method='map'")
    return idata["map"]


def ppc(model: Callable, data: Mapping[str, Any], idata: az.InferenceData, *,
        stat: Callable[[np.ndarray], np.ndarray] | None = None, site: str | None = None,
        seed: int = 0, max_draws: int = 500) -> xr.Dataset:
    """Posterior predictive draws of the observed site(s), optionally through ``stat``.

    Parameters
    ----------
    model, data
        The model and the data it was fitted to.
    idata
        A fit from :func:`fit`.
    stat
        A function of one replicated observation array (and, for comparison, of
        the observed one) returning a statistic, e.g. per-model win rates.
    site
        The observed site (default: the only one).
    seed, max_draws
        Seed and number of posterior draws used.

    Returns
    -------
    xarray.Dataset
        ``replicated`` (draw × statistic) and ``observed`` (statistic).
    """
    obs = _observed(model, data)
    site = site or (next(iter(obs)) if len(obs) == 1 else None)
    if site is None or site not in obs:
        raise ValueError(f"choose one observed site with site=..., one of {list(obs)}")
    post = az.extract(idata, group="posterior", num_samples=min(max_draws, _n_draws(idata)),
                      rng=seed)
    latent = _latent_sites(model, data)
    samples = {k: jnp.asarray(post[k].transpose("sample", ...).values) for k in post.data_vars
               if k in latent}
    free = {k: v for k, v in data.items() if k != site}
    rep = np.asarray(Predictive(model, posterior_samples=samples, return_sites=[site])(
        jax.random.PRNGKey(seed), **free, **{site: None})[site])
    f = stat or (lambda x: x)
    replicated = np.stack([np.asarray(f(r)) for r in rep])
    observed = np.asarray(f(obs[site]))
    return xr.Dataset({"replicated": (("draw", *[f"stat_{k}" for k in range(observed.ndim)]),
                                      replicated),
                       "observed": ([f"stat_{k}" for k in range(observed.ndim)], observed)})


def posterior_predictive(model: Callable, data: Mapping[str, Any], idata: az.InferenceData,
                         *, seed: int = 0) -> az.InferenceData:
    """A copy of ``idata`` with a ``posterior_predictive`` group, for ``arviz.plot_ppc``.

    Every posterior draw generates one replicate of each observed site (the
    model's keyword of the same name set to ``None``).
    """
    obs = _observed(model, data)
    latent = _latent_sites(model, data)
    post = idata.posterior
    n_chain, n_draw = post.sizes["chain"], post.sizes["draw"]
    samples = {k: jnp.asarray(post[k].values.reshape(n_chain * n_draw, *post[k].shape[2:]))
               for k in post.data_vars if k in latent}
    free = {k: (None if k in obs else v) for k, v in data.items()}
    reps = Predictive(model, posterior_samples=samples, return_sites=list(obs))(
        jax.random.PRNGKey(seed), **free)
    group = {k: np.asarray(v).reshape(n_chain, n_draw, *np.shape(v)[1:]) for k, v in reps.items()}
    out = idata.copy()
    out.add_groups({"posterior_predictive": az.from_dict(posterior_predictive=group)
                    .posterior_predictive})
    return out


def _n_draws(idata: az.InferenceData) -> int:
    return int(idata.posterior.sizes["chain"] * idata.posterior.sizes["draw"])
