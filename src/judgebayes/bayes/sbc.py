r"""Simulation-based calibration (SBC) for any of our NumPyro models.

If parameters are drawn from the prior, θ̃ ~ p(θ), data from the model,
ỹ ~ p(y | θ̃), and the posterior p(θ | ỹ) is computed correctly, then θ̃ is a draw
from that posterior too (the data-averaged posterior is the prior). Hence the rank
of θ̃ among L independent posterior draws,

    r = #{l : θ_l < θ̃} ∈ {0, …, L},

is uniform on {0, …, L} for every scalar parameter (Talts et al. 2018, Theorem 1).
A sampler or model that is biased, too narrow or too wide bends the ranks: a slope,
a ∪ (posterior too narrow) or a ∩ (too wide).

The test (Säilynoja, Bürkner & Vehtari 2022) is the empirical CDF of the N ranks,
F̂(k) = #{s : r_s ≤ k} / N, at K rank values (default K = min(N, L + 1)), against the
uniform F(k) = (k + 1) / (L + 1) with a *simultaneous* band: N·F̂(k) ~ Binomial(N, F(k)),
and the pointwise Binomial level is raised until the whole ECDF stays inside with
probability 1 − α' (the paper's optimisation method: ArviZ's
:func:`arviz.stats.ecdf_utils.ecdf_confidence_band`). A parameter fails when its ECDF
leaves the band anywhere; :meth:`SBCResult.plot` draws F̂ − F with the band. The exact
p-value (:attr:`SBCResult.ecdf_pvalues`) is the probability under uniformity that some
ECDF value lies as far in a Binomial tail as the most extreme observed one.

The χ² test of Talts et al. on ``n_bins`` rank bins is kept beside it because it adds
power where the ECDF test is weakest: a ∩ (too *wide* posterior), whose deviation sits
mid-range where the band is widest. Per-parameter rejection rates, 50 simulations ×
100 draws, conjugate Normal model, 4,000 replicates, level 0.002 (α = 0.01, 5 parameters):

=================  =========  ===========  ======================
posterior          ECDF band  χ², 10 bins  either, each at 0.001
=================  =========  ===========  ======================
exact              0.18 %     0.28 %       0.15 %
half as wide       91 %       83 %         91 %
twice as wide      49 %       74 %         70 %
bias 0.25 / 0.5 sd 16 / 88 %  7 / 72 %     13 / 84 %
=================  =========  ===========  ======================

So a parameter is flagged when its ECDF leaves the band *or* its χ² p-value is small,
each test at α / (2k) for k parameters (Bonferroni over parameters and the two tests:
family-wise false alarms ≤ α). The χ² on few simulations per bin is slightly liberal
(0.28 % at nominal 0.2 %); the ECDF test needs neither bins nor asymptotics.

:func:`sbc` draws ``n_sims`` (parameter, data) pairs from the model itself (each
observed site set to ``None``: ``model(**data)`` generates, as for
:class:`numpyro.infer.Predictive`), refits every data set by NUTS, thins the draws
towards independence and computes the ranks and tests.

The refits run the NUTS chain of :func:`judgebayes.bayes.inference.fit` as one program
vmapped over a batch of simulations, with data, design arrays and seeds as arguments,
cached by the engine under the model's layout and the settings
(:meth:`~judgebayes.bayes.engine.model.CompiledModel.batched_nuts`): a second call of the
same layout (another seed, another template of the same shapes) traces and compiles it
no more. The simulations run op by op (:func:`_simulate` says why). The design is the
template's.

References
----------
Talts, Betancourt, Simpson, Vehtari & Gelman (2018), *Validating Bayesian inference
algorithms with simulation-based calibration*, arXiv:1804.06788.

Säilynoja, Bürkner & Vehtari (2022), *Graphical test for discrete uniformity and its
applications in goodness-of-fit evaluation and multiple sample comparison*,
Statistics and Computing 32, 32.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
from arviz.stats.ecdf_utils import ecdf_confidence_band
from scipy import stats
from tqdm.auto import tqdm

from judgebayes.bayes.engine.model import CompiledModel, target_accept_for
from judgebayes.bayes.engine.sites import op_by_op, site_table
from judgebayes.bayes.spec import ModelSpec
from judgebayes.core.results import ResultDisplay

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
        raise ValueError(
            f"expected prior (n_sims, n_params) and posterior (n_sims, n_post, "
            f"n_params), got {prior.shape} and {posterior.shape}"
        )
    return (posterior < prior[:, None, :]).sum(axis=1)


def _bin_probabilities(n_post: int, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin of every rank value 0..n_post and each bin's probability under uniformity."""
    if not 2 <= n_bins <= n_post + 1:
        raise ValueError(f"n_bins must be between 2 and n_post + 1 = {n_post + 1}, got {n_bins}")
    bin_of = np.arange(n_post + 1) * n_bins // (n_post + 1)
    return bin_of, np.bincount(bin_of, minlength=n_bins) / (n_post + 1)


def _eval_ranks(n_post: int, n_sims: int, n_eval: int | None) -> np.ndarray:
    """K rank values spread over 0..n_post − 1 (at n_post the ECDF is always 1)."""
    n_eval = min(n_sims, n_post + 1) if n_eval is None else int(n_eval)
    if not 2 <= n_eval <= n_post + 1:
        raise ValueError(f"n_eval must be between 2 and n_post + 1 = {n_post + 1}, got {n_eval}")
    k = np.unique(np.arange(1, n_eval + 1) * (n_post + 1) // n_eval - 1)
    return k[(k >= 0) & (k < n_post)]


def _ecdf_counts(ranks: np.ndarray, eval_ranks: np.ndarray) -> np.ndarray:
    """N·F̂(k): simulations with rank ≤ k, shape ``(K, n_params)``."""
    return (ranks[None, :, :] <= eval_ranks[:, None, None]).sum(axis=1)


def _ecdf_band(
    n_sims: int,
    n_post: int,
    eval_ranks: np.ndarray,
    prob: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest N·F̂(k) inside the simultaneous ``prob`` band (ArviZ, optimised)."""
    cdf = (eval_ranks + 1) / (n_post + 1)
    lower, upper = ecdf_confidence_band(n_sims, eval_ranks, cdf, prob=prob, method="optimized")
    return np.rint(lower * n_sims).astype(int), np.rint(upper * n_sims).astype(int)


def _inside_probability(cdf: np.ndarray, n: int, inside: np.ndarray) -> float:
    """P(every N·F̂(k_i) in ``inside[i]``) under uniform ranks: a chain of Binomials.

    Given c_{i−1}, c_i − c_{i−1} ~ Binomial(N − c_{i−1}, (F_i − F_{i−1}) / (1 − F_{i−1})).
    """
    prob, left, previous = np.ones(1), np.zeros(1, dtype=int), 0.0
    for f, allowed in zip(cdf, inside, strict=True):
        right = np.flatnonzero(allowed)
        step = stats.binom.pmf(
            right[None, :] - left[:, None], n - left[:, None], (f - previous) / (1 - previous)
        )
        prob, left, previous = prob @ step, right, f
    return float(prob.sum())


def _ecdf_pvalues(counts: np.ndarray, cdf: np.ndarray, n: int) -> np.ndarray:
    """Exact ECDF-test p-values: P(min over k of the Binomial tail ≤ the observed one)."""
    c = np.arange(n + 1)
    tail = np.minimum(
        stats.binom.cdf(c[None, :], n, cdf[:, None]),
        stats.binom.sf(c[None, :] - 1, n, cdf[:, None]),
    )
    rows = np.arange(len(cdf))
    observed = [tail[rows, col].min() for col in counts.T]
    return np.array([1.0 - _inside_probability(cdf, n, tail > t) for t in observed]).clip(0, 1)


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
    eval_ranks
        The K rank values k at which the ECDF is tested.
    band_lower, band_upper
        Simultaneous band of the ECDF *counts* N·F̂(k) at ``eval_ranks``, at level
        1 − :attr:`threshold` (inclusive bounds).
    ecdf_outside, ecdf_pvalues
        Whether each parameter's ECDF leaves the band (the test rejects); its exact p-value.
    chi2, chi2_pvalues
        Chi-square statistic (``n_bins − 1`` degrees of freedom) and its p-value.
    n_bins
        Rank bins of the chi-square test.
    alpha
        Family-wise false-alarm rate, split by Bonferroni over the parameters and the two
        tests: each rejects at :attr:`threshold` = ``alpha / (2 n_params)``.
    n_divergent
        Divergent transitions of each refit (after warm-up).
    """

    parameters: tuple[str, ...]
    prior: np.ndarray
    posterior: np.ndarray
    ranks: np.ndarray
    eval_ranks: np.ndarray
    band_lower: np.ndarray
    band_upper: np.ndarray
    ecdf_outside: np.ndarray
    ecdf_pvalues: np.ndarray
    chi2: np.ndarray
    chi2_pvalues: np.ndarray
    n_bins: int
    alpha: float
    n_divergent: np.ndarray

    @classmethod
    def from_draws(
        cls,
        parameters: Sequence[str],
        prior: np.ndarray,
        posterior: np.ndarray,
        *,
        n_bins: int = 10,
        n_eval: int | None = None,
        alpha: float = 0.01,
        n_divergent: np.ndarray | None = None,
    ) -> SBCResult:
        """Ranks and uniformity tests from generating values and posterior draws.

        Parameters
        ----------
        parameters
            Labels of the ``n_params`` scalar parameters.
        prior, posterior
            As for :func:`rank_statistics`.
        n_bins
            Rank bins of the chi-square test.
        n_eval
            Rank values at which the ECDF is tested; default ``min(n_sims, n_post + 1)``
            (one per possible rank when there are enough simulations).
        alpha
            Family-wise level (see the class attributes).
        n_divergent
            Divergences per simulation (default zeros).

        Returns
        -------
        SBCResult
            The ranks, both tests and the ECDF band.
        """
        ranks = rank_statistics(prior, posterior)
        n_sims, n_post, n_params = np.shape(posterior)
        if len(parameters) != n_params:
            raise ValueError(f"{len(parameters)} parameter labels for {n_params} parameters")
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        bin_of, p_bin = _bin_probabilities(n_post, n_bins)
        eval_ranks = _eval_ranks(n_post, n_sims, n_eval)
        threshold = alpha / (2 * n_params)

        observed = np.stack(
            [np.bincount(bin_of[ranks[:, k]], minlength=n_bins) for k in range(n_params)]
        )
        expected = n_sims * p_bin
        chi2 = ((observed - expected) ** 2 / expected).sum(axis=1)

        counts = _ecdf_counts(ranks, eval_ranks)
        lower, upper = _ecdf_band(n_sims, n_post, eval_ranks, 1 - threshold)
        outside = ((counts < lower[:, None]) | (counts > upper[:, None])).any(axis=0)
        return cls(
            parameters=tuple(parameters),
            prior=np.asarray(prior),
            posterior=np.asarray(posterior),
            ranks=ranks,
            eval_ranks=eval_ranks,
            band_lower=lower,
            band_upper=upper,
            ecdf_outside=outside,
            ecdf_pvalues=_ecdf_pvalues(counts, (eval_ranks + 1) / (n_post + 1), n_sims),
            chi2=chi2,
            chi2_pvalues=stats.chi2.sf(chi2, df=n_bins - 1),
            n_bins=n_bins,
            alpha=alpha,
            n_divergent=(
                np.zeros(n_sims, dtype=int) if n_divergent is None else np.asarray(n_divergent)
            ),
        )

    @property
    def n_sims(self) -> int:
        """Simulations (the sample size of each parameter's ranks)."""
        return int(self.ranks.shape[0])

    @property
    def n_post(self) -> int:
        """Posterior draws per simulation (ranks run from 0 to ``n_post``)."""
        return int(self.posterior.shape[1])

    @property
    def threshold(self) -> float:
        """Level of each test for each parameter, ``alpha / (2 n_params)``."""
        return self.alpha / (2 * len(self.parameters))

    @property
    def flagged(self) -> tuple[str, ...]:
        """Parameters whose ECDF leaves the band or whose χ² p-value is below the threshold."""
        bad = self.ecdf_outside | (self.chi2_pvalues < self.threshold)
        return tuple(p for p, b in zip(self.parameters, bad, strict=True) if b)

    @property
    def passed(self) -> bool:
        """No parameter flagged."""
        return not self.flagged

    def to_frame(self) -> pd.DataFrame:
        """One row per parameter.

        Returns
        -------
        pandas.DataFrame
            ``parameter``; ``ecdf_pvalue`` (the ECDF test), ``chi2`` and ``chi2_pvalue``;
            ``flagged`` (either test below :attr:`threshold`); ``rank_mean`` and
            ``rank_sd`` of the normalised ranks r / n_post (uniform: 0.5 and
            1/√12 ≈ 0.289; a larger sd means a too narrow posterior, a smaller one a
            too wide posterior, a shifted mean a biased one).
        """
        u = self.ranks / self.n_post
        return pd.DataFrame(
            {
                "parameter": self.parameters,
                "ecdf_pvalue": self.ecdf_pvalues,
                "chi2": self.chi2,
                "chi2_pvalue": self.chi2_pvalues,
                "flagged": [p in self.flagged for p in self.parameters],
                "rank_mean": u.mean(axis=0),
                "rank_sd": u.std(axis=0, ddof=1),
            }
        )

    def _verdict(self) -> str:
        return (
            "ranks look uniform" if self.passed else f"non-uniform ranks: {', '.join(self.flagged)}"
        )

    def _headline(self) -> str:
        return (
            f"{self.n_sims} simulations × {self.n_post} draws, {len(self.parameters)} "
            f"parameters; {self._verdict()}"
        )

    def __str__(self) -> str:
        head = (
            f"SBC: {self.n_sims} simulations, {self.n_post} posterior draws each; "
            f"rank ECDF at {len(self.eval_ranks)} points with a simultaneous band and "
            f"chi-square on {self.n_bins} bins, family-wise alpha = {self.alpha:g} "
            f"(each test p < {self.threshold:.2g}); {self._verdict()}; "
            f"{int(np.sum(self.n_divergent))} divergent transitions"
        )
        return head + "\n" + self.to_frame().to_string(index=False, float_format="%.3g")

    def plot(
        self, *, parameters: Sequence[str] | None = None, band: float | None = None, ncols: int = 4
    ) -> np.ndarray:
        """ECDF-difference panels: F̂(k) − F(k) against the fractional rank, with the band.

        Parameters
        ----------
        parameters
            Which parameters to show (default: all).
        band
            Simultaneous coverage of the grey band; default the test's own,
            1 − :attr:`threshold`, so a curve leaving it is an ECDF rejection.
        ncols
            Panels per row.

        Returns
        -------
        numpy.ndarray
            The panels (matplotlib ``Axes``), one per parameter; a flagged parameter's
            curve is red.
        """
        import matplotlib.pyplot as plt

        names = list(parameters or self.parameters)
        nrows = -(-len(names) // ncols)
        fig, axes = plt.subplots(
            nrows,
            min(ncols, len(names)),
            squeeze=False,
            figsize=(3 * min(ncols, len(names)), 2.4 * nrows),
            sharey=True,
        )
        prob = 1 - self.threshold if band is None else band
        lower, upper = (
            (self.band_lower, self.band_upper)
            if band is None
            else _ecdf_band(self.n_sims, self.n_post, self.eval_ranks, band)
        )
        cdf = (self.eval_ranks + 1) / (self.n_post + 1)
        x = np.r_[0.0, cdf]
        counts = _ecdf_counts(self.ranks, self.eval_ranks)
        for ax, name in zip(axes.flat, names, strict=False):
            k = self.parameters.index(name)
            ax.fill_between(
                x,
                np.r_[0.0, lower / self.n_sims - cdf],
                np.r_[0.0, upper / self.n_sims - cdf],
                step="post",
                color="0.85",
                label=f"{prob:.3g} simultaneous band",
            )
            ax.step(
                x,
                np.r_[0.0, counts[:, k] / self.n_sims - cdf],
                where="post",
                color="C3" if name in self.flagged else "C0",
            )
            ax.axhline(0.0, color="0.5", lw=0.6)
            ax.set_title(f"{name}  (p = {self.ecdf_pvalues[k]:.2g})", fontsize=9)
            ax.set_xlabel("fractional rank")
        for ax in list(axes.flat)[len(names) :]:
            ax.set_visible(False)
        axes[0, 0].set_ylabel("ECDF − uniform CDF")
        fig.tight_layout()
        return axes


def _labels(name: str, shape: tuple[int, ...]) -> list[str]:
    return [f"{name}[{','.join(map(str, idx))}]" for idx in np.ndindex(*shape)] if shape else [name]


def _simulate(
    model: Callable,
    gen_data: Mapping[str, Any],
    params: Sequence[str],
    observed: Sequence[str],
    sim_key: jax.Array,
    n_sims: int,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Prior draws (``(n_sims, n_params)``, flattened as the labels) and simulated data.

    Simulation s runs ``model(**gen_data)`` op by op, seeded with ``fold_in(sim_key, s)``.
    Not jitted, on purpose: one jitted program per layout (tried) saved about a second of a
    first call (``docs/benchmarks.md``) but XLA's fused code put some draws 1–2 float32 ulps
    away, which changed simulated data sets and so the refits: the paired calibration SBC of
    ``tests/test_calibration_paired.py`` then had 5 divergences where it allows 3.
    """
    rows, obs_rows = [], []
    for s in range(n_sims):
        tr = op_by_op(model, gen_data, jax.random.fold_in(sim_key, s))
        rows.append(np.concatenate([np.ravel(tr[p]["value"]) for p in params]))
        obs_rows.append({k: np.asarray(tr[k]["value"]) for k in observed})
    return np.stack(rows), {k: np.stack([row[k] for row in obs_rows]) for k in observed}


def _compile_for_sbc(
    model: Callable,
    data: Mapping[str, Any],
    observed: Sequence[str],
) -> tuple[CompiledModel, dict[str, jax.Array]]:
    """The compiled model with (at least) the observed sites as traced array arguments.

    :meth:`CompiledModel.of` binds every argument when the model reads one of its
    arrays (NumPy code or Python control flow on a design array), and then the
    simulated data could not be passed in. Here the design is bound instead (one
    compiled model per design content) and the observed sites traced.
    """
    data = {**data, **{k: jnp.asarray(data[k]) for k in observed}}
    compiled, arrays = CompiledModel.of(model, data)
    if not all(k in arrays for k in observed):
        design = [k for k in data if k not in observed]
        compiled, arrays = CompiledModel.of(model, data, bind=design)
    if not all(k in arrays for k in observed):
        raise ValueError(
            "SBC refits every simulated data set with one compiled NUTS, so the "
            "model must take its observed sites as traced arrays (it needs "
            f"concrete values of {list(observed)})"
        )
    return compiled, arrays


def sbc(
    model: Callable | ModelSpec,
    data: Mapping[str, Any] | None = None,
    *,
    n_sims: int = 100,
    params: Sequence[str] | None = None,
    draws: int = 200,
    warmup: int = 200,
    thin: int = 2,
    chains: int = 1,
    n_bins: int = 10,
    n_eval: int | None = None,
    alpha: float = 0.01,
    target_accept: float | None = None,
    batch_size: int = 10,
    seed: int = 0,
    progress: bool = True,
) -> SBCResult:
    """Simulation-based calibration of a NumPyro model and its NUTS fit.

    For s = 1..``n_sims``: draw θ̃_s and data ỹ_s from the model (observed sites set
    to ``None``), fit ỹ_s by NUTS (``chains`` × ``draws`` after ``warmup``, every
    ``thin``-th draw kept), and rank each scalar parameter's θ̃_s among the kept
    draws; then test the ranks for uniformity (:meth:`SBCResult.from_draws`: the rank
    ECDF against its simultaneous band, and the binned χ²).

    Parameters
    ----------
    model
        A NumPyro model called as ``model(**data)``, or a
        :class:`~judgebayes.bayes.spec.ModelSpec` (``data`` then defaults to its own).
    data
        Template data: the design (pairs, counts, hyper-parameters) every simulation
        reuses; the values of the observed sites (concrete arrays, as the builders of
        :mod:`judgebayes.models` give them) are replaced by simulated ones. Design
        arrays the model needs as concrete values (NumPy code on them) are bound once.
    n_sims
        Number of simulated data sets.
    params
        Sites to check (sample or deterministic; every scalar component is one
        parameter). Default: all latent sample sites.
    draws, warmup, thin, chains
        NUTS settings per refit; ``n_post = chains · ceil(draws / thin)``.
    n_bins, n_eval
        Rank bins of the chi-square test; rank values at which the ECDF is tested
        (default ``min(n_sims, n_post + 1)``).
    alpha
        Family-wise false-alarm rate, split by Bonferroni over parameters and the two
        tests.
    target_accept
        NUTS target acceptance probability; ``None``: the model's own
        ``target_accept`` attribute, else 0.8 (as :func:`judgebayes.bayes.inference.fit`).
    batch_size
        Simulations fitted together (vmapped) per call of the compiled NUTS program.
    seed
        Random seed: the same seed (and ``batch_size``: batching changes floating-point
        rounding inside NUTS) gives the same simulations, fits and ranks. Simulation s
        depends only on ``seed`` and s, not on ``n_sims``.
    progress
        Show a progress bar over simulations.

    Returns
    -------
    SBCResult
        Ranks, both tests, ``to_frame()`` and ``plot()`` (ECDF-difference panels).

    Examples
    --------
    >>> from judgebayes.bayes.bt_models import bt_data, bt_model   # doctest: +SKIP
    >>> result = sbc(bt_model, bt_data(stats, lam=0.5), n_sims=50)  # doctest: +SKIP
    >>> result.passed, result.to_frame()                            # doctest: +SKIP
    >>> sbc(jb.models.calibration(items, "shared"), n_sims=50)      # doctest: +SKIP
    """
    if isinstance(model, ModelSpec):
        model, data = model.model, model.data if data is None else data
    if data is None:
        raise TypeError("sbc needs the model's template data (or a ModelSpec)")
    if n_sims < 2 or draws < 1 or warmup < 1 or thin < 1 or chains < 1 or batch_size < 1:
        raise ValueError(
            "n_sims >= 2 and positive draws, warmup, thin, chains, batch_size are required"
        )
    key = jax.random.PRNGKey(seed)
    template = site_table(model, data)
    observed = [k for k, site in template.items() if site.data]  # no factors
    missing = [k for k in observed if k not in data]
    if not observed or missing:
        raise ValueError(
            "SBC needs observed sites passed as keyword arguments of the same "
            f"name (observed: {observed}, not in data: {missing})"
        )
    latent = [k for k, site in template.items() if site.latent]
    params = (
        list(params) if params is not None else [k for k in latent if template[k].kind == "sample"]
    )
    unknown = [p for p in params if p not in latent]
    if unknown:
        raise ValueError(f"unknown parameter site(s) {unknown}; latent sites: {latent}")

    target_accept = target_accept_for(model, target_accept)

    # 1. Prior draws and simulated data (op by op: bit-identical draws, see _simulate).
    sim_key, fit_key = jax.random.split(key)
    prior, sim_obs = _simulate(
        model, {**data, **dict.fromkeys(observed)}, params, observed, sim_key, n_sims
    )
    labels = [lab for p in params for lab in _labels(p, template[p].shape)]

    # 2. One compiled NUTS refit, vmapped over (simulation, chain), reused by later calls.
    compiled, arrays = _compile_for_sbc(model, data, observed)
    arrays = {k: v for k, v in arrays.items() if k not in sim_obs}  # replaced per row
    run_batch = compiled.batched_nuts(
        params, warmup=warmup, draws=draws, thin=thin, target_accept=target_accept
    )
    n_keep = -(-draws // thin)
    posterior = np.empty((n_sims, chains * n_keep, len(labels)))
    n_divergent = np.zeros(n_sims, dtype=int)
    with tqdm(total=n_sims, desc="SBC", unit="sim", disable=not progress) as bar:
        for start in range(0, n_sims, batch_size):
            idx = np.arange(start, start + batch_size)
            real = idx[idx < n_sims]
            idx = np.minimum(idx, n_sims - 1)  # pad the last batch: same shape, one compile
            rows = np.repeat(idx, chains)
            seeds = (rows * chains + np.tile(np.arange(chains), len(idx))).astype(np.int32)
            obs = {k: v[rows] for k, v in sim_obs.items()}
            flat, div = run_batch(fit_key, seeds, arrays, obs)
            flat = np.asarray(flat).reshape(len(idx), chains * n_keep, -1)
            div = np.asarray(div).reshape(len(idx), chains).sum(axis=1)
            posterior[real] = flat[: len(real)]
            n_divergent[real] = div[: len(real)]
            bar.update(len(real))
    return SBCResult.from_draws(
        labels, prior, posterior, n_bins=n_bins, n_eval=n_eval, alpha=alpha, n_divergent=n_divergent
    )
