"""Prior and posterior predictive checks of every generative model, as ArviZ groups.

A model ``model(**data)`` generates its data when each observed keyword is ``None``.

* :func:`prior_predictive` draws parameters from the prior and data from the model:
  an :class:`arviz.InferenceData` with ``prior`` (parameters and deterministic
  quantities such as ``elo``), ``prior_predictive`` (simulated data sets) and
  ``observed_data``. Are the priors sensible, on the Elo scale or the method's own?
  ``az.plot_ppc(idata, group="prior", observed=True)`` compares simulated and observed
  data.
* :func:`posterior_predictive` draws one replicated data set per posterior draw:
  a copy of a fit with a ``posterior_predictive`` group, for
  ``az.plot_ppc(idata)``. Does the fitted model reproduce the data?
* :func:`predictive_statistic` turns the data of those groups into a statistic
  that matters for a method (win rates per pair, tie rates, judge-positive rates by
  class), again as groups that ``az.plot_ppc`` draws, with :func:`bayesian_pvalues`
  for a table.

Both predictive functions accept a :class:`~judgebayes.bayes.spec.ModelSpec` (from
:mod:`judgebayes.models`) as :func:`~judgebayes.bayes.inference.fit` does. The data
sites take the spec's ``dims`` where it names them, else the names of the plates
they sit in (``pair``, ``cell``, ``row``, ...). ``numpyro.factor`` terms are not data.
A site observed under ``numpyro.handlers.mask`` (padding rows of the anchors model)
keeps only its unmasked entries: masked entries carry no data to compare.

Both draw with NumPyro's ``Predictive``, compiled by the engine into one program per
data set (:mod:`judgebayes.bayes.engine.predict`): the same draws as ``Predictive`` op
by op, in a fraction of the time of a first check (``bench/predictive_speed.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import xarray as xr

from judgebayes.bayes.engine import predict
from judgebayes.bayes.engine.sites import DataSite, data_sites
from judgebayes.bayes.spec import ModelSpec, resolve_spec

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "bayesian_pvalues",
    "plot_statistic",
    "posterior_predictive",
    "predictive_statistic",
    "prior_predictive",
]

_PREDICTIVE = ("prior_predictive", "posterior_predictive")


def _unpack(
    model: Callable | ModelSpec,
    data: Mapping[str, Any] | None,
    coords: Mapping[str, Any] | None,
    dims: Mapping[str, list[str]] | None,
) -> tuple[Callable, Mapping[str, Any], dict, dict]:
    model, data, coords, dims = resolve_spec(model, data, coords, dims, "a predictive check")
    return model, data, dict(coords or {}), dict(dims or {})


def _sites(
    model: Callable,
    data: Mapping[str, Any],
    coords: Mapping[str, Any],
    dims: Mapping[str, list[str]],
) -> tuple[dict[str, DataSite], list[str], list[str]]:
    """The model's data, latent and deterministic sites
    (:func:`~judgebayes.bayes.engine.sites.data_sites`), checked: the model has data
    sites, each a keyword argument."""
    sites, latent, deterministic = data_sites(model, data, coords, dims)
    if not sites:
        raise ValueError("the model has no observed site: nothing to predict")
    missing = [k for k in sites if k not in data]
    if missing:
        raise ValueError(
            f"observed site(s) {missing} are not keyword arguments of the model: "
            f"predictive checks set each observed keyword to None to generate"
        )
    return sites, latent, deterministic


def _site_dims(
    sites: Mapping[str, DataSite], dims: Mapping[str, list[str]], coords: Mapping[str, Any]
) -> tuple[dict, dict]:
    out_dims = {**dims, **{k: s.dims for k, s in sites.items()}}
    out_coords = dict(coords)
    for s in sites.values():
        out_coords.update(s.coords)
    return out_coords, out_dims


def _observed_group(
    sites: Mapping[str, DataSite], coords: Mapping[str, Any], dims: Mapping[str, list[str]]
) -> xr.Dataset:
    return az.from_dict(
        observed_data={k: s.value for k, s in sites.items()}, coords=coords, dims=dims
    ).observed_data


def prior_predictive(
    model: Callable | ModelSpec,
    data: Mapping[str, Any] | None = None,
    coords: Mapping[str, Any] | None = None,
    dims: Mapping[str, list[str]] | None = None,
    *,
    draws: int = 500,
    seed: int = 0,
) -> az.InferenceData:
    """Parameters from the prior and data sets from the model, beside the observed data.

    ``prior_predictive(jb.models.bt(battles))`` and
    ``prior_predictive(*jb.models.bt(battles))`` are the same call.

    Parameters
    ----------
    model
        A NumPyro model called as ``model(**data)`` whose observed sites are keyword
        arguments of the same name, or a :class:`~judgebayes.bayes.spec.ModelSpec`
        (then ``data``, ``coords`` and ``dims`` default to the spec's).
    data
        Keyword arguments of the model: the design (pairs, counts, sizes, priors) and,
        under the observed sites' names, the observed data.
    coords, dims
        ArviZ coordinates and dimensions, as for :func:`~judgebayes.bayes.inference.fit`.
    draws
        Prior draws (each with one simulated data set).
    seed
        Random seed.

    Returns
    -------
    arviz.InferenceData
        ``prior`` (latent and deterministic sites, e.g. ``theta`` and ``elo``),
        ``prior_predictive`` (the observed sites, simulated) and ``observed_data``,
        one chain of ``draws`` draws, named by ``coords``/``dims``;
        ``az.plot_ppc(idata, group="prior", observed=True)`` draws it (ArviZ leaves the
        observed data out of a prior plot unless asked).

    Examples
    --------
    >>> prior = jb.prior_predictive(jb.models.bt(battles), draws=1000)  # doctest: +SKIP
    >>> prior.prior["elo"].std(("chain", "draw"))                      # doctest: +SKIP
    >>> az.plot_ppc(prior, group="prior", observed=True)                # doctest: +SKIP
    """
    model, data, coords, dims = _unpack(model, data, coords, dims)
    if draws < 1:
        raise ValueError(f"draws must be >= 1, got {draws}")
    sites, latent, deterministic = _sites(model, data, coords, dims)
    free = {k: (None if k in sites else v) for k, v in data.items()}
    out = predict.draw(
        model,
        free,
        jax.random.PRNGKey(seed),
        [*latent, *deterministic, *sites],
        draws * sum(s.size for s in sites.values()),
        num_samples=draws,
    )
    prior = {k: np.asarray(out[k])[None] for k in (*latent, *deterministic)}
    simulated = {k: s.restrict(np.asarray(out[k])[None]) for k, s in sites.items()}
    coords, dims = _site_dims(sites, dims, coords)
    idata = az.from_dict(
        prior=prior,
        prior_predictive=simulated,
        observed_data={k: s.value for k, s in sites.items()},
        coords=coords,
        dims=dims,
    )
    idata.prior.attrs["inference"] = "prior"
    return idata


def posterior_predictive(
    model: Callable | ModelSpec,
    data: Mapping[str, Any] | az.InferenceData | None = None,
    idata: az.InferenceData | None = None,
    *,
    coords: Mapping[str, Any] | None = None,
    dims: Mapping[str, list[str]] | None = None,
    sites: Sequence[str] | None = None,
    seed: int = 0,
) -> az.InferenceData:
    """A copy of ``idata`` with a ``posterior_predictive`` group, for ``az.plot_ppc``.

    Every posterior draw generates one replicate of each observed site (the model's
    keyword of the same name set to ``None``). ``posterior_predictive(spec, idata)``
    takes the model, data, coords and dims from a
    :class:`~judgebayes.bayes.spec.ModelSpec`; ``posterior_predictive(model, data,
    idata)`` is the older form.

    Parameters
    ----------
    model
        The model function or its :class:`~judgebayes.bayes.spec.ModelSpec`.
    data
        The data it was fitted to (with a spec: the fit may come here instead of
        ``idata``).
    idata
        A fit (:func:`~judgebayes.bayes.inference.fit`, or any ``posterior`` holding
        the model's latent sites under their names, e.g.
        :func:`~judgebayes.softelo.soft_elo_posterior` for ``jb.models.temperature``).
    coords, dims
        ArviZ names (default: the spec's; the fit's ``observed_data`` dims where it
        has them).
    sites
        The observed sites to replicate (default all); the others stay at their
        observed values, e.g. ``sites=["judge_label"]`` replicates a calibration
        design's judge verdicts given the human labels.
    seed
        Random seed.

    Returns
    -------
    arviz.InferenceData
        ``idata`` plus ``posterior_predictive`` (``(chain, draw, ...)`` like the
        posterior) and an ``observed_data`` group whose dims match it (masked
        entries dropped).
    """
    if isinstance(model, ModelSpec) and isinstance(data, az.InferenceData):
        if idata is not None:
            raise TypeError("pass the fit once: posterior_predictive(spec, idata)")
        data, idata = None, data
    model, data, coords, dims = _unpack(model, data, coords, dims)
    if idata is None or "posterior" not in idata.groups():
        raise TypeError("posterior_predictive needs a fit with a posterior group")
    observed = idata.observed_data if "observed_data" in idata.groups() else None
    # The fit's own names of its observed data take precedence (they name its
    # log_likelihood too), unless a site is masked (its entries are restricted here).
    fit_dims = {k: list(observed[k].dims) for k in (observed.data_vars if observed else ())}
    all_sites, latent, _ = _sites(model, data, coords, {**dims, **fit_dims})
    chosen = list(all_sites) if sites is None else list(sites)
    unknown = [k for k in chosen if k not in all_sites]
    if unknown:
        raise ValueError(f"unknown observed site(s) {unknown}; the model's: {list(all_sites)}")
    post = idata.posterior
    n_chain, n_draw = post.sizes["chain"], post.sizes["draw"]
    samples = {
        k: jnp.asarray(post[k].values.reshape(n_chain * n_draw, *post[k].shape[2:]))
        for k in latent
        if k in post
    }
    absent = [k for k in latent if k not in post]
    if absent:
        raise ValueError(f"the posterior lacks the latent site(s) {absent} of the model")
    free = {k: (None if k in chosen else v) for k, v in data.items()}
    reps = predict.draw(
        model,
        free,
        jax.random.PRNGKey(seed),
        chosen,
        n_chain * n_draw * sum(all_sites[k].size for k in chosen),
        samples=samples,
    )
    chosen_sites = {k: all_sites[k] for k in chosen}
    group = {
        k: s.restrict(np.asarray(reps[k]).reshape(n_chain, n_draw, *np.shape(reps[k])[1:]))
        for k, s in chosen_sites.items()
    }
    coords, dims = _site_dims(chosen_sites, dims, coords)
    if observed is not None:
        coords = {**{c: observed[c].values for c in observed.coords}, **coords}
    out = idata.copy()
    predictive = az.from_dict(posterior_predictive=group, coords=coords, dims=dims)
    for name in ("posterior_predictive", "observed_data"):
        if name in out:
            del out[name]
    out.add_groups(
        {
            "posterior_predictive": predictive.posterior_predictive,
            "observed_data": _observed_group(chosen_sites, coords, dims),
        }
    )
    return out


def predictive_statistic(
    idata: az.InferenceData,
    stat: Callable[..., Any],
    *,
    var: str | Sequence[str] | None = None,
    name: str = "statistic",
    dims: Sequence[str] | None = None,
    coords: Mapping[str, Any] | None = None,
) -> az.InferenceData:
    """A statistic of the data, on every simulated data set and on the observed one.

    Parameters
    ----------
    idata
        Output of :func:`prior_predictive` and/or :func:`posterior_predictive`.
    stat
        Function of one data set's observed-site value(s) (one positional argument
        per entry of ``var``) returning an array (a scalar becomes one entry), e.g.
        ``lambda y: y / n`` (per-pair win rates of ``jb.models.bt``) or
        ``lambda c: c[:, 1].sum() / c.sum()`` (the tie rate of ``jb.models.davidson``).
    var
        The observed site(s) ``stat`` reads (default: the only one).
    name
        Name of the statistic's variable.
    dims, coords
        ArviZ dims of the statistic's own shape (default ``{name}_dim_k``) and their
        coordinates.

    Returns
    -------
    arviz.InferenceData
        ``observed_data`` and each predictive group of ``idata``
        (``prior_predictive``, ``posterior_predictive``) holding ``name``:
        :func:`plot_statistic` draws each entry against its predictive intervals,
        :func:`bayesian_pvalues` tabulates it, ``az.plot_ppc`` (``group="prior",
        observed=True`` for the prior) draws the distribution of its entries and
        ``az.plot_bpv(..., kind="t_stat", t_stat="mean")`` that of a one-entry statistic.
    """
    groups = [g for g in _PREDICTIVE if g in idata.groups()]
    if not groups or "observed_data" not in idata.groups():
        raise ValueError(
            "idata needs observed_data and a prior_predictive or posterior_predictive group"
        )
    names = list(idata.observed_data.data_vars)
    if var is None:
        if len(names) != 1:
            raise ValueError(f"choose the observed site(s) with var=..., from {names}")
        var = names[0]
    keys = [var] if isinstance(var, str) else list(var)

    def apply(values: Sequence[np.ndarray]) -> np.ndarray:
        return np.atleast_1d(np.asarray(stat(*values), dtype=float))  # a scalar: one entry

    observed = apply([idata.observed_data[k].values for k in keys])
    stat_dims = (
        list(dims) if dims is not None else [f"{name}_dim_{k}" for k in range(observed.ndim)]
    )
    if name in stat_dims:  # xarray would take the variable for its own coordinate
        raise ValueError(f"the statistic's name {name!r} cannot also name one of its dims")
    out: dict[str, Any] = {"observed_data": {name: observed}}
    for g in groups:
        arrays = [idata[g][k].values for k in keys]
        lead = arrays[0].shape[:2]
        flat = [a.reshape(-1, *a.shape[2:]) for a in arrays]
        values = np.stack([apply([a[d] for a in flat]) for d in range(len(flat[0]))])
        out[g] = {name: values.reshape(*lead, *values.shape[1:])}
    return az.from_dict(**out, coords=dict(coords or {}), dims={name: stat_dims})


def _observed_and_replicated(
    idata: az.InferenceData,
    var: str | None,
    group: str,
) -> tuple[str, xr.DataArray, xr.DataArray]:
    """The variable's name, its observed values and its replicates ``(sample, ...)``."""
    names = list(idata.observed_data.data_vars)
    var = var if var is not None else (names[0] if len(names) == 1 else None)
    if var is None:
        raise ValueError(f"choose the variable with var=..., from {names}")
    obs = idata.observed_data[var]
    rep = idata[group][var].stack(sample=("chain", "draw")).transpose("sample", *obs.dims)
    return var, obs, rep


def bayesian_pvalues(
    idata: az.InferenceData, var: str | None = None, *, group: str = "posterior_predictive"
) -> pd.DataFrame:
    """Predictive p-values of every entry of an observed variable: one row each.

    Parameters
    ----------
    idata
        With ``observed_data`` and ``group`` (e.g. from :func:`predictive_statistic`).
    var
        The variable (default: the only one of ``observed_data``).
    group
        ``"posterior_predictive"`` or ``"prior_predictive"``.

    Returns
    -------
    pandas.DataFrame
        The entry's coordinates, ``observed``, the predictive ``mean``, 2.5 % and
        97.5 % quantiles ``lo``/``hi``, ``p_greater`` = P(replicated ≥ observed) and
        the two-sided ``p_value`` = min(1, 2·min(P(rep ≥ obs), P(rep ≤ obs))). A check
        fails where ``p_value`` is tiny: the model rarely generates data like these.
    """
    var, obs, rep = _observed_and_replicated(idata, var, group)
    r, o = rep.values.reshape(rep.shape[0], -1), obs.values.reshape(-1)
    ge, le = (r >= o).mean(axis=0), (r <= o).mean(axis=0)
    index = (
        pd.MultiIndex.from_product([obs[d].values for d in obs.dims], names=obs.dims)
        if obs.dims
        else pd.RangeIndex(1)
    )
    return pd.DataFrame(
        {
            "observed": o,
            "mean": r.mean(axis=0),
            "lo": np.quantile(r, 0.025, axis=0),
            "hi": np.quantile(r, 0.975, axis=0),
            "p_greater": ge,
            "p_value": np.minimum(1.0, 2 * np.minimum(ge, le)),
        },
        index=index,
    ).reset_index()


def plot_statistic(
    idata: az.InferenceData,
    var: str | None = None,
    *,
    group: str = "posterior_predictive",
    labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Each entry of an observed statistic against its predictive 50 % and 95 % intervals.

    Parameters
    ----------
    idata
        With ``observed_data`` and ``group``, e.g. from :func:`predictive_statistic`.
    var
        The variable (default: the only one of ``observed_data``).
    group
        ``"posterior_predictive"`` or ``"prior_predictive"``.
    labels
        Names of the entries (default: their coordinates).
    ax
        Axes to draw on (a new figure when ``None``).
    title
        Axes title (default: the variable and the group).

    Returns
    -------
    matplotlib.axes.Axes
        :func:`judgebayes.plots.ppc_plot`'s panel: an observed value outside its 95 %
        band is drawn in red, and the title gives the share inside.
    """
    from judgebayes.plots import ppc_plot

    var, obs, rep = _observed_and_replicated(idata, var, group)
    if labels is None and obs.ndim == 1:
        labels = [str(v) for v in obs[obs.dims[0]].values]
    check = xr.Dataset(
        {
            "replicated": (("draw", "entry"), rep.values.reshape(rep.shape[0], -1)),
            "observed": (("entry",), obs.values.reshape(-1)),
        }
    )
    kind = "prior" if group == "prior_predictive" else "posterior"
    ax = ppc_plot(
        check,
        ax,
        labels=None if labels is None else list(labels),
        title=title or f"{var}, {kind} predictive check",
    )
    if check.sizes["entry"] < 12:  # a narrow panel: the legend in two columns, out of the way
        ax.legend(fontsize=7, frameon=False, ncol=2, loc="best")
    return ax
