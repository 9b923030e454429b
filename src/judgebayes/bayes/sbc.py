r"""Simulation-based calibration (SBC) for any of our NumPyro models.

If parameters are drawn from the prior, θ̃ ~ p(θ), data from the model,
ỹ ~ p(y | θ̃), and the posterior p(θ | ỹ) is computed correctly, then θ̃ is a draw
from that posterior too (the data-averaged posterior is the prior). Hence the rank
of θ̃ among L independent posterior draws,

    r = #{l : θ_l < θ̃} ∈ {0, …, L},

is uniform on {0, …, L} for every scalar parameter (Talts et al. 2018, Theorem 1).
A sampler or model that is biased, too narrow or too wide bends the rank
histogram: a slope, a ∪ (posterior too narrow) or a ∩ (too wide).

:func:`sbc` draws ``n_sims`` (parameter, data) pairs from the model itself (each
observed site set to ``None``: ``model(**data)`` generates, as for
:class:`numpyro.infer.Predictive`), refits every data set by NUTS, thins the draws
towards independence, computes the ranks and tests their uniformity per parameter
with a chi-square test on ``n_bins`` bins, Bonferroni-corrected over parameters.

The refits run the same NUTS chain as :func:`judgebayes.bayes.inference.fit`
(:func:`judgebayes.bayes.compiled.nuts_chain`: NumPyro's kernel, diagonal mass matrix,
step size and mass matrix adapted during warm-up): the simulated data are arguments
of one compiled function vmapped over a batch of simulations, so JAX compiles once
per call of :func:`sbc` and the simulations then cost only their sampling. The data
shapes, hence the design (pairs, counts), are those of the template ``data``.

References
----------
Talts, Betancourt, Simpson, Vehtari & Gelman (2018), *Validating Bayesian inference
algorithms with simulation-based calibration*, arXiv:1804.06788.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
import pandas as pd
from scipy import stats
from tqdm.auto import tqdm

from judgebayes.bayes.compiled import CompiledModel, nuts_chain, target_accept_for
from judgebayes.core.results import ResultDisplay

if TYPE_CHECKING:
    pass

__all__ = ["SBCResult", "rank_statistics", "sbc"]


def rank_statistics(prior: np.ndarray, posterior: np.ndarray) -> np.ndarray:
    """SBC ranks: how many posterior draws lie below the generating value.

    Parameters
    ----------
    prior
        Generating values, shape ``(n_sims, n_params)``.
    posterior
        Posterior draws, shape ``(n_sims, n_post, n_params)``.

    Returns
    -------
    numpy.ndarray
        Integer ranks in ``0..n_post``, shape ``(n_sims, n_params)``.
    """
    prior = np.asarray(prior)
    posterior = np.asarray(posterior)
    if posterior.ndim != 3 or prior.shape != (posterior.shape[0], posterior.shape[2]):
        raise ValueError(f"expected prior (n_sims, n_params) and posterior (n_sims, n_post, "
                         f"n_params), got {prior.shape} and {posterior.shape}")
    return (posterior < prior[:, None, :]).sum(axis=1)


def _bin_probabilities(n_post: int, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin of every rank value 0..n_post and each bin's probability under uniformity."""
    if not 2 <= n_bins <= n_post + 1:
        raise ValueError(f"n_bins must be between 2 and n_post + 1 = {n_post + 1}, got {n_bins}")
    bin_of = np.arange(n_post + 1) * n_bins // (n_post + 1)
    return bin_of, np.bincount(bin_of, minlength=n_bins) / (n_post + 1)


@dataclass(frozen=True, repr=False)
class SBCResult(ResultDisplay):
    """Ranks of simulation-based calibration and their uniformity tests.

    Attributes
    ----------
    parameters
        Scalar parameter labels, e.g. ``"theta[2]"``.
    prior
        Generating values, ``(n_sims, n_params)``.
    posterior
        Thinned posterior draws, ``(n_sims, n_post, n_params)``.
    ranks
        Rank of each generating value among its posterior draws, ``0..n_post``.
    chi2, pvalues
        Chi-square statistic (``n_bins − 1`` degrees of freedom) and p-value of the
        uniformity test of each parameter's binned ranks.
    n_bins
        Rank bins of the test.
    alpha
        Family-wise false-alarm rate: a parameter is flagged when its p-value is
        below ``alpha / n_params`` (Bonferroni).
    n_divergent
        Divergent transitions of each refit (after warm-up).
    """

    parameters: tuple[str, ...]
    prior: np.ndarray
    posterior: np.ndarray
    ranks: np.ndarray
    chi2: np.ndarray
    pvalues: np.ndarray
    n_bins: int
    alpha: float
    n_divergent: np.ndarray

    @classmethod
    def from_draws(cls, parameters: Sequence[str], prior: np.ndarray, posterior: np.ndarray,
                   *, n_bins: int = 10, alpha: float = 0.01,
                   n_divergent: np.ndarray | None = None) -> SBCResult:
        """Ranks and uniformity tests from generating values and posterior draws.

        Parameters
        ----------
        parameters
            Labels of the ``n_params`` scalar parameters.
        prior, posterior
            As for :func:`rank_statistics`.
        n_bins, alpha
            Rank bins and family-wise level (see the class attributes).
        n_divergent
            Divergences per simulation (default zeros).
        """
        ranks = rank_statistics(prior, posterior)
        n_sims, n_post, n_params = np.shape(posterior)
        if len(parameters) != n_params:
            raise ValueError(f"{len(parameters)} parameter labels for {n_params} parameters")
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        bin_of, p_bin = _bin_probabilities(n_post, n_bins)
        observed = np.stack([np.bincount(bin_of[ranks[:, k]], minlength=n_bins)
                             for k in range(n_params)])
        expected = n_sims * p_bin
        chi2 = ((observed - expected) ** 2 / expected).sum(axis=1)
        pvalues = stats.chi2.sf(chi2, df=n_bins - 1)
        return cls(parameters=tuple(parameters), prior=np.asarray(prior),
                   posterior=np.asarray(posterior), ranks=ranks, chi2=chi2, pvalues=pvalues,
                   n_bins=n_bins, alpha=alpha,
                   n_divergent=(np.zeros(n_sims, dtype=int) if n_divergent is None
                                else np.asarray(n_divergent)))

    @property
    def n_sims(self) -> int:
        return int(self.ranks.shape[0])

    @property
    def n_post(self) -> int:
        """Posterior draws per simulation (ranks run from 0 to ``n_post``)."""
        return int(self.posterior.shape[1])

    @property
    def threshold(self) -> float:
        """Per-parameter p-value threshold, ``alpha / n_params``."""
        return self.alpha / len(self.parameters)

    @property
    def flagged(self) -> tuple[str, ...]:
        """Parameters whose ranks fail the uniformity test."""
        return tuple(p for p, pv in zip(self.parameters, self.pvalues, strict=True)
                     if pv < self.threshold)

    @property
    def passed(self) -> bool:
        """No parameter flagged."""
        return not self.flagged

    def to_frame(self) -> pd.DataFrame:
        """One row per parameter.

        Columns: ``parameter``, ``chi2``, ``pvalue``, ``flagged``, ``rank_mean`` and
        ``rank_sd`` of the normalised ranks r / n_post (uniform: 0.5 and
        1/√12 ≈ 0.289; a larger sd means a too narrow posterior, a smaller one a
        too wide posterior, a shifted mean a biased one).
        """
        u = self.ranks / self.n_post
        return pd.DataFrame({"parameter": self.parameters, "chi2": self.chi2,
                             "pvalue": self.pvalues, "flagged": self.pvalues < self.threshold,
                             "rank_mean": u.mean(axis=0), "rank_sd": u.std(axis=0, ddof=1)})

    def _headline(self) -> str:
        verdict = ("ranks look uniform" if self.passed
                   else f"non-uniform ranks: {', '.join(self.flagged)}")
        return (f"{self.n_sims} simulations × {self.n_post} draws, {len(self.parameters)} "
                f"parameters; {verdict}")

    def __str__(self) -> str:
        verdict = ("ranks look uniform" if self.passed
                   else f"non-uniform ranks: {', '.join(self.flagged)}")
        head = (f"SBC: {self.n_sims} simulations, {self.n_post} posterior draws each, "
                f"{self.n_bins} bins, family-wise alpha = {self.alpha:g} "
                f"(per parameter p < {self.threshold:.2g}); {verdict}; "
                f"{int(np.sum(self.n_divergent))} divergent transitions")
        return head + "\n" + self.to_frame().to_string(index=False, float_format="%.3g")

    def plot(self, *, parameters: Sequence[str] | None = None, band: float = 0.99,
             ncols: int = 4) -> np.ndarray:
        """Rank histograms with the pointwise ``band`` range of uniform bin counts.

        Returns the array of panels (matplotlib ``Axes``), one per parameter.

        Parameters
        ----------
        parameters
            Which parameters to show (default: all).
        band
            Probability of the grey band: the central Binomial(n_sims, p_bin) range.
        ncols
            Panels per row.
        """
        import matplotlib.pyplot as plt

        names = list(parameters or self.parameters)
        nrows = -(-len(names) // ncols)
        fig, axes = plt.subplots(nrows, min(ncols, len(names)), squeeze=False,
                                 figsize=(3 * min(ncols, len(names)), 2.4 * nrows),
                                 sharey=True)
        bin_of, p_bin = _bin_probabilities(self.n_post, self.n_bins)
        lo = stats.binom.ppf((1 - band) / 2, self.n_sims, p_bin)
        hi = stats.binom.ppf((1 + band) / 2, self.n_sims, p_bin)
        edges = np.arange(self.n_bins + 1)
        for ax, name in zip(axes.flat, names, strict=False):
            k = self.parameters.index(name)
            counts = np.bincount(bin_of[self.ranks[:, k]], minlength=self.n_bins)
            ax.fill_between(edges, np.r_[lo, lo[-1]], np.r_[hi, hi[-1]], step="post",
                            color="0.85", label=f"{band:.0%} band")
            ax.stairs(counts, edges, color="C3" if self.pvalues[k] < self.threshold else "C0")
            ax.set_title(f"{name}  (p = {self.pvalues[k]:.2g})", fontsize=9)
            ax.set_xlabel("rank bin")
        for ax in list(axes.flat)[len(names):]:
            ax.set_visible(False)
        axes[0, 0].set_ylabel("simulations")
        fig.tight_layout()
        return axes


def _trace(model: Callable, data: Mapping[str, Any], key: jax.Array) -> dict:
    return numpyro.handlers.trace(numpyro.handlers.seed(model, key)).get_trace(**data)


def _labels(name: str, shape: tuple[int, ...]) -> list[str]:
    if not shape:
        return [name]
    return [f"{name}[{','.join(map(str, idx))}]" for idx in np.ndindex(*shape)]


def sbc(model: Callable, data: Mapping[str, Any], *, n_sims: int = 100,
        params: Sequence[str] | None = None, draws: int = 200, warmup: int = 200,
        thin: int = 2, chains: int = 1, n_bins: int = 10, alpha: float = 0.01,
        target_accept: float | None = None, batch_size: int = 10, seed: int = 0,
        progress: bool = True) -> SBCResult:
    """Simulation-based calibration of a NumPyro model and its NUTS fit.

    For s = 1..``n_sims``: draw θ̃_s and data ỹ_s from the model (observed sites set
    to ``None``), fit ỹ_s by NUTS (``chains`` × ``draws`` after ``warmup``, every
    ``thin``-th draw kept), and rank each scalar parameter's θ̃_s among the kept
    draws; then test the ranks for uniformity (:meth:`SBCResult.from_draws`).

    Parameters
    ----------
    model
        A NumPyro model called as ``model(**data)``.
    data
        Template data: the design (pairs, counts, hyper-parameters) every simulation
        reuses; the values of the observed sites are replaced by simulated ones.
    n_sims
        Number of simulated data sets.
    params
        Sites to check (sample or deterministic; every scalar component is one
        parameter). Default: all latent sample sites.
    draws, warmup, thin, chains
        NUTS settings per refit; ``n_post = chains · ceil(draws / thin)``.
    n_bins
        Rank bins of the chi-square uniformity test.
    alpha
        Family-wise false-alarm rate, split over parameters by Bonferroni.
    target_accept
        NUTS target acceptance probability; ``None``: the model's own
        ``target_accept`` attribute, else 0.8 (as :func:`judgebayes.bayes.inference.fit`).
    batch_size
        Simulations fitted together (vmapped) per compiled call.
    seed
        Random seed: the same seed (and ``batch_size``: batching changes floating-point
        rounding inside NUTS) gives the same simulations, fits and ranks. Simulation s
        depends only on ``seed`` and s, not on ``n_sims``.
    progress
        Show a progress bar over simulations.

    Returns
    -------
    SBCResult
        Ranks, p-values, ``to_frame()`` and ``plot()``.

    Examples
    --------
    >>> from judgebayes.bayes.bt_models import bt_data, bt_model   # doctest: +SKIP
    >>> result = sbc(bt_model, bt_data(stats, lam=0.5), n_sims=50)  # doctest: +SKIP
    >>> result.passed, result.to_frame()                            # doctest: +SKIP
    """
    if n_sims < 2 or draws < 1 or warmup < 1 or thin < 1 or chains < 1 or batch_size < 1:
        raise ValueError("n_sims >= 2 and positive draws, warmup, thin, chains, batch_size "
                         "are required")
    key = jax.random.PRNGKey(seed)
    template = _trace(model, data, key)
    observed = [k for k, s in template.items() if s["type"] == "sample" and s.get("is_observed")
                and not isinstance(s["fn"], dist.Unit)]  # numpyro.factor sites are no data
    missing = [k for k in observed if k not in data]
    if not observed or missing:
        raise ValueError("SBC needs observed sites passed as keyword arguments of the same "
                         f"name (observed: {observed}, not in data: {missing})")
    latent = [k for k, s in template.items()
              if (s["type"] == "sample" and not s.get("is_observed"))
              or s["type"] == "deterministic"]
    params = list(params) if params is not None else [
        k for k in latent if template[k]["type"] == "sample"]
    unknown = [p for p in params if p not in latent]
    if unknown:
        raise ValueError(f"unknown parameter site(s) {unknown}; latent sites: {latent}")

    target_accept = target_accept_for(model, target_accept)

    # 1. Prior draws and simulated data (a Python loop: any model, no tracing).
    gen_data = {**data, **dict.fromkeys(observed)}
    sim_key, fit_key = jax.random.split(key)
    prior_rows, obs_rows = [], []
    for s in range(n_sims):
        tr = _trace(model, gen_data, jax.random.fold_in(sim_key, s))
        prior_rows.append(np.concatenate([np.ravel(tr[p]["value"]) for p in params]))
        obs_rows.append({k: np.asarray(tr[k]["value"]) for k in observed})
    prior = np.stack(prior_rows)
    labels = [lab for p in params for lab in _labels(p, np.shape(template[p]["value"]))]
    sim_obs = {k: np.stack([row[k] for row in obs_rows]) for k in observed}

    # 2. One compiled NUTS refit, vmapped over (simulation, chain).
    compiled, arrays = CompiledModel.of(model, data)
    n_keep = -(-draws // thin)

    def one(rng: jax.Array, obs: dict) -> tuple[jnp.ndarray, jnp.ndarray]:
        kwargs = {**arrays, **obs}
        zs, stats = nuts_chain(compiled.potential_gen, compiled.z_template, warmup=warmup,
                               draws=draws, target_accept=target_accept,
                               model_kwargs=kwargs, rng=rng)
        zs = jax.tree.map(lambda x: x[::thin], zs)
        values = jax.vmap(compiled.postprocess_gen(**kwargs))(zs)
        flat = jnp.concatenate([values[p].reshape(n_keep, -1) for p in params], axis=1)
        return flat, stats["diverging"].sum()

    run_batch = jax.jit(jax.vmap(one))
    posterior = np.empty((n_sims, chains * n_keep, len(labels)))
    n_divergent = np.zeros(n_sims, dtype=int)
    with tqdm(total=n_sims, desc="SBC", unit="sim", disable=not progress) as bar:
        for start in range(0, n_sims, batch_size):
            idx = np.arange(start, start + batch_size)
            real = idx[idx < n_sims]
            idx = np.minimum(idx, n_sims - 1)  # pad the last batch: same shape, one compile
            rows = np.repeat(idx, chains)
            keys = jax.vmap(lambda r: jax.random.fold_in(fit_key, r))(
                jnp.asarray(rows * chains + np.tile(np.arange(chains), len(idx))))
            obs = {k: jnp.asarray(v[rows]) for k, v in sim_obs.items()}
            flat, div = run_batch(keys, obs)
            flat = np.asarray(flat).reshape(len(idx), chains * n_keep, -1)
            div = np.asarray(div).reshape(len(idx), chains).sum(axis=1)
            posterior[real] = flat[: len(real)]
            n_divergent[real] = div[: len(real)]
            bar.update(len(real))
    return SBCResult.from_draws(labels, prior, posterior, n_bins=n_bins, alpha=alpha,
                                n_divergent=n_divergent)
