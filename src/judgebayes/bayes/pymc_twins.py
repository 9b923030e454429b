r"""PyMC twins of the Bradley–Terry models of :mod:`judgebayes.bayes.bt_models`.

For a PyMC user, the same generative stories as :func:`~judgebayes.bayes.bt_models.bt_model`
and :func:`~judgebayes.bayes.bt_models.davidson_model`, built from the *same* data
dictionaries (:func:`~judgebayes.bayes.bt_models.bt_data`,
:func:`~judgebayes.bayes.bt_models.davidson_data`), with the same priors and the same
log density, so that NUTS in NumPyro and in PyMC sample the same posterior (tested
in ``tests/test_pymc_twins.py``):

:func:`bt_model_pymc`
    θ ~ ZeroSumNormal(σ) over the ``model`` dimension and, per pair p = (i, j),
    the generalised (soft-target) Bradley–Terry log-likelihood of Kargi & Salinas (*From Uncertain
    Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
    arXiv:2606.13221), Eq. 1,

        ℓ_p(θ) = y_p log σ(θ_i − θ_j) + (n_p − y_p) log σ(θ_j − θ_i),

    written as a :class:`pymc.CustomDist` observed over the ``pair`` dimension, so
    ties counted as ½ and soft targets (non-integer y_p) are allowed and the
    pointwise log-likelihood is available for LOO. Its ``random`` draws Binomial
    counts, as :class:`~judgebayes.bayes.bt_models.SoftBinomial` does.

:func:`davidson_model_pymc`
    Davidson ties: per pair the counts of (i wins, tie, j wins) ~ Multinomial(n_p, π)
    with π ∝ (e^{θ_i}, ν·e^{(θ_i+θ_j)/2}, e^{θ_j}), log ν ~ Normal(0, 2).

Both carry the deterministic ``elo`` = 1500 + (400 / ln 10)·θ. PyMC is an optional
extra, ``pip install "judgebayes[pymc]"``: it is imported inside the functions (its
import takes seconds), so ``import judgebayes`` stays fast and works without it, and
a twin called without PyMC raises :class:`ModuleNotFoundError` saying what to install.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from scipy.special import expit

from judgebayes.core.bt import ELO_BASE, ELO_SCALE

if TYPE_CHECKING:
    import arviz as az
    import pymc as pm

__all__ = ["bt_model_pymc", "davidson_model_pymc", "sample_pymc"]

DAVIDSON_OUTCOMES = ("i wins", "tie", "j wins")
PYMC_MISSING = 'the PyMC twins need PyMC, an optional extra: pip install "judgebayes[pymc]"'


def _pymc() -> tuple[Any, Any]:
    """``pymc`` and ``pytensor.tensor``, imported on first use.

    Raises
    ------
    ModuleNotFoundError
        PyMC (or PyTensor) is not installed; the message says to install the extra.
    """
    try:
        import pymc
        import pytensor.tensor
    except ImportError as err:
        raise ModuleNotFoundError(f"{PYMC_MISSING} ({err})", name="pymc") from err
    return pymc, pytensor.tensor


def _coords(
    data: Mapping[str, Any],
    coords: Mapping[str, Sequence] | None,
) -> dict[str, list]:
    """``model`` and ``pair`` coordinates: given ones, else 0..n−1 and "i-j" labels."""
    out = {k: list(v) for k, v in (coords or {}).items()}
    n_models = int(data["n_models"])
    out.setdefault("model", list(range(n_models)))
    if len(out["model"]) != n_models:
        raise ValueError(f"coords['model'] has {len(out['model'])} names for {n_models} models")
    i, j = np.asarray(data["i"]), np.asarray(data["j"])
    names = out["model"]
    out.setdefault("pair", [f"{names[a]}-{names[b]}" for a, b in zip(i, j, strict=True)])
    if len(out["pair"]) != len(i):
        raise ValueError(f"coords['pair'] has {len(out['pair'])} labels for {len(i)} pairs")
    return out


def _soft_binomial_logp(value: Any, n: Any, d: Any) -> Any:
    """y log σ(d) + (n − y) log σ(−d) (Kargi & Salinas, 2026, Eq. 1), written as y·d −
    n·softplus(d).

    The same algebra as ``SoftBinomial.log_prob``: log σ(d) = d − softplus(d), so one
    softplus per pair instead of two, on either backend.
    """
    _, pt = _pymc()
    return value * d - n * pt.softplus(d)


def _soft_binomial_random(
    n: np.ndarray,
    d: np.ndarray,
    rng: np.random.Generator | None = None,
    size: tuple[int, ...] | None = None,
) -> np.ndarray:
    """Binomial counts with the rounded total weight: what SoftBinomial.sample draws."""
    rng = np.random.default_rng() if rng is None else rng
    return rng.binomial(np.round(n).astype(np.int64), expit(d), size=size).astype(float)


def bt_model_pymc(
    data: Mapping[str, Any],
    coords: Mapping[str, Sequence] | None = None,
) -> pm.Model:
    """PyMC twin of :func:`~judgebayes.bayes.bt_models.bt_model` (generalised BT, Eq. 1).

    Parameters
    ----------
    data
        The dictionary :func:`~judgebayes.bayes.bt_models.bt_data` returns: ``i``, ``j``
        (model indices of each pair), ``n`` (total weight), ``y`` (summed target
        oriented to ``i``, possibly fractional), ``n_models`` and ``prior_sd`` (σ of
        the zero-sum Normal prior, 1/√(2λ)).
    coords
        Optional coordinates; ``model`` (model names) and ``pair`` default to
        indices and ``"i-j"`` labels.

    Returns
    -------
    pymc.Model
        Free variable ``theta`` (dims ``model``), deterministic ``elo`` and the
        observed ``y`` (dims ``pair``) whose log density is Kargi & Salinas (2026), Eq. 1, per pair.

    Raises
    ------
    ModuleNotFoundError
        PyMC is not installed: ``pip install "judgebayes[pymc]"``.
    """
    pm, pt = _pymc()

    i = np.asarray(data["i"], dtype=np.int64)
    j = np.asarray(data["j"], dtype=np.int64)
    n = np.asarray(data["n"], dtype=float)
    y = np.asarray(data["y"], dtype=float)
    if np.any(y < 0) or np.any(y > n):
        raise ValueError("every pair needs 0 <= y <= n (summed targets within the pair weight)")
    with pm.Model(coords=_coords(data, coords)) as model:
        theta = pm.ZeroSumNormal("theta", sigma=float(data["prior_sd"]), dims="model")
        pm.Deterministic("elo", ELO_BASE + ELO_SCALE * theta, dims="model")
        d = theta[i] - theta[j]
        pm.CustomDist(
            "y",
            pt.as_tensor_variable(n),
            d,
            logp=_soft_binomial_logp,
            random=_soft_binomial_random,
            observed=y,
            dims="pair",
        )
    return model


def davidson_model_pymc(
    data: Mapping[str, Any],
    coords: Mapping[str, Sequence] | None = None,
) -> pm.Model:
    """PyMC twin of :func:`~judgebayes.bayes.bt_models.davidson_model` (Davidson 1970 ties).

    Parameters
    ----------
    data
        The dictionary :func:`~judgebayes.bayes.bt_models.davidson_data` returns: ``i``,
        ``j``, ``n`` (battles per pair), ``counts`` (``(n_pairs, 3)``: i wins, ties,
        j wins), ``n_models`` and ``prior_sd``.
    coords
        Optional coordinates (``model``, ``pair``; ``outcome`` is fixed).

    Returns
    -------
    pymc.Model
        Free ``theta`` (dims ``model``) and ``log_nu``; deterministics ``elo`` and
        ``nu``; observed ``counts`` (dims ``pair``, ``outcome``).

    Raises
    ------
    ModuleNotFoundError
        PyMC is not installed: ``pip install "judgebayes[pymc]"``.
    """
    pm, pt = _pymc()

    i = np.asarray(data["i"], dtype=np.int64)
    j = np.asarray(data["j"], dtype=np.int64)
    counts = np.asarray(data["counts"], dtype=float)
    if not np.array_equal(counts, np.round(counts)) or np.any(counts < 0):
        raise ValueError("the Davidson model needs non-negative integer counts")
    counts = counts.astype(np.int64)
    all_coords = {**_coords(data, coords), "outcome": list(DAVIDSON_OUTCOMES)}
    with pm.Model(coords=all_coords) as model:
        theta = pm.ZeroSumNormal("theta", sigma=float(data["prior_sd"]), dims="model")
        log_nu = pm.Normal("log_nu", 0.0, 2.0)
        pm.Deterministic("elo", ELO_BASE + ELO_SCALE * theta, dims="model")
        pm.Deterministic("nu", pt.exp(log_nu))
        ti, tj = theta[i], theta[j]
        logits = pt.stack([ti, log_nu + 0.5 * (ti + tj), tj], axis=-1)
        pm.Multinomial(
            "counts",
            n=counts.sum(axis=1),
            p=pt.special.softmax(logits, axis=-1),
            observed=counts,
            dims=("pair", "outcome"),
        )
    return model


def sample_pymc(
    model: pm.Model,
    *,
    chains: int = 4,
    draws: int = 1000,
    tune: int = 1000,
    seed: int = 0,
    nuts_sampler: Literal["numpyro", "pymc"] = "numpyro",
    target_accept: float = 0.8,
    progress: bool = True,
    cores: int | None = None,
) -> az.InferenceData:
    """NUTS on a PyMC model, returning ``InferenceData`` with the pointwise log-likelihood.

    Parameters
    ----------
    model
        A model from :func:`bt_model_pymc` / :func:`davidson_model_pymc` (or any PyMC model).
    chains, draws, tune
        Chains, draws per chain and tuning (warm-up) iterations.
    seed
        Random seed (``random_seed`` of :func:`pymc.sample`).
    nuts_sampler
        ``"numpyro"``: PyMC's graph compiled to JAX and sampled by NumPyro's NUTS
        (chains in parallel when JAX sees as many devices as chains, see
        :func:`judgebayes.bayes.inference.use_cpu_cores`, vectorised otherwise);
        ``"pymc"``: PyMC's own NUTS (C backend), chains in ``cores`` processes.
    target_accept
        NUTS target acceptance probability.
    progress
        Show a progress bar.
    cores
        Processes for ``nuts_sampler="pymc"`` (default: ``min(chains, CPU count)``).

    Returns
    -------
    arviz.InferenceData
        ``posterior``, ``sample_stats``, ``log_likelihood`` and ``observed_data``.

    Raises
    ------
    ModuleNotFoundError
        PyMC is not installed: ``pip install "judgebayes[pymc]"``.
    """
    import jax

    pm, _ = _pymc()

    kwargs: dict[str, Any] = {}
    if nuts_sampler == "numpyro":
        parallel = jax.local_device_count() >= chains
        kwargs["nuts_sampler_kwargs"] = {"chain_method": "parallel" if parallel else "vectorized"}
    elif nuts_sampler == "pymc":
        kwargs["cores"] = cores or min(chains, os.cpu_count() or 1)
    else:
        raise ValueError(f"nuts_sampler must be 'numpyro' or 'pymc', got {nuts_sampler!r}")
    # Importing PyMC's JAX sampler switches JAX to 64-bit for the whole process
    # (``jax_enable_x64 = True`` at import time); sample in 64-bit as PyMC expects, then
    # put the caller's setting back so later NumPyro work is unaffected.
    x64 = bool(jax.config.jax_enable_x64)
    try:
        idata = pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            random_seed=seed,
            nuts_sampler=nuts_sampler,
            target_accept=target_accept,
            progressbar=progress,
            model=model,
            idata_kwargs={"log_likelihood": True},
            **kwargs,
        )
    finally:
        jax.config.update("jax_enable_x64", x64)
    idata.posterior.attrs["inference"] = f"nuts ({nuts_sampler} via PyMC)"
    return idata
