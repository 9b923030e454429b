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

Both run NumPyro's ``Predictive`` as one compiled program per layout (the model, its
non-array arguments, the shapes and dtypes of its arrays and draws, the sites, the
draws) with the arrays and draws as arguments: a new data set of the same shapes, or a
new fit, compiles nothing (32 kept); sites come from an abstract trace. A model that
reads its data (NumPyro's Multinomial needs concrete counts: Davidson, the consistency
models; the calibration designs' Binomial draws otherwise with abstract counts, which
the random operations of two traces show) gets a program per data set with its arrays
as constants (4 per layout, then op by op). Draws are NumPyro's (floats to rounding).
A CPU program of up to 10^6 drawn entries (2·10^5 with a loop) is built at XLA's quick
level (``_CPU_OPTIONS``): at load 7-8 a first BT prior predictive took 2.9 s of CPU, not
6.4, and ran 0.11 s, not 0.04; NumPyro's Binomial loop runs ~5x slower there (780,000
entries: 11.5 against 2.2 s). Against op by op, at load 3: ``ppc`` of the calibration
designs shared, model-specific, paired 8.9, 3.0, 8.5 -> 4.2, 3.2, 4.6 s of CPU (shared
again 3.8 -> 0.6 s), same draws; tests test_predictive + test_inference 148 -> 110 s.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import xarray as xr
from numpyro.distributions.distribution import MaskedDistribution
from numpyro.handlers import seed, trace
from numpyro.infer import Predictive

from judgebayes.bayes.compiled import _digests, _signature
from judgebayes.bayes.inference import _is_data_site, _trace
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
_CPU_OPTIONS = {"xla_backend_optimization_level": 0}  #: CPU programs of few entries drawn
_QUICK_ELEMENTS, _QUICK_LOOP_ELEMENTS = 1_000_000, 200_000  #: (with a loop) get these
_programs: OrderedDict[tuple, Callable | None] = OrderedDict()  #: by layout or data
_programs_lock = threading.Lock()
_PROGRAMS_SIZE, _CONSTANT_PER_LAYOUT = 32, 4  #: kept; with the data as constants
_constant_programs: dict[tuple, int] = {}
_traced = 0  #: programs traced (a layout or a data set once while it stays cached)


def _layout(
    model: Callable,
    free: Mapping[str, Any],
    samples: Mapping[str, jax.Array] | None,
    sites: Sequence[str],
    num_samples: int | None,
    parallel: bool,
) -> tuple[tuple, dict[str, jax.Array], dict[str, Any]]:
    """A program's key, array arguments (keyed by shape and dtype) and static ones (every
    other value, keyed by itself; TypeError where one is not hashable)."""
    arrays = {k: jnp.asarray(v) for k, v in free.items() if isinstance(v, np.ndarray | jax.Array)}
    static = {k: v for k, v in free.items() if k not in arrays}
    key = (
        model,
        tuple(sorted(static.items(), key=lambda kv: kv[0])),
        _signature(arrays),
        None if samples is None else _signature(samples),
        tuple(sites),
        num_samples,
        parallel,
        bool(jax.config.jax_enable_x64),
    )
    hash(key)
    return key, arrays, static


def _ops(jaxpr: Any, keep: Callable[[str], bool]) -> list:
    """The operations ``keep`` picks by name in a jaxpr, nested ones included, with types."""
    out: list = []
    for eqn in jaxpr.eqns:
        if keep(eqn.primitive.name):
            out.append((eqn.primitive.name, tuple(str(v.aval) for v in eqn.outvars)))
        for p in eqn.params.values():
            for sub in p if isinstance(p, tuple | list) else (p,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns") and (nested := _ops(inner, keep)):
                    out.append(nested)
    return out


def _compile(
    model: Callable,
    arrays: dict,
    raw: dict,
    static: dict,
    rng: jax.Array,
    samples: dict | None,
    sites: Sequence[str],
    num_samples: int | None,
    parallel: bool,
    elements: int,
    *,
    constants: bool = False,
) -> Callable | None:
    """``Predictive`` compiled for one layout, called as ``program(rng, samples, arrays)``;
    ``None`` where it cannot be.

    Kept where, traced with its arrays abstract, it draws its random numbers as the
    program with the arrays as constants (``constants``: that one), as op by op sees them.
    """
    global _traced
    _traced += 1

    def run(rng: jax.Array, samples: dict | None, arrays: dict) -> dict:
        return Predictive(
            model,
            posterior_samples=samples,
            num_samples=num_samples,
            return_sites=list(sites),
            parallel=parallel,
        )(rng, **static, **arrays)

    def bound(rng: jax.Array, samples: dict | None) -> dict:  # as op by op sees them:
        with jax.ensure_compile_time_eval() if parallel else contextlib.nullcontext():
            return run(rng, samples, raw)  # concrete under vmap, staged in lax.map

    def options(jaxpr: Any) -> dict | None:
        loops = bool(_ops(jaxpr, lambda name: name == "while"))
        quick = elements <= (_QUICK_LOOP_ELEMENTS if loops else _QUICK_ELEMENTS)
        return _CPU_OPTIONS if quick and jax.default_backend() == "cpu" else None

    try:
        if constants:
            traced = jax.jit(bound).trace(rng, samples)
            program = traced.lower().compile(options(traced.jaxpr.jaxpr))
            return lambda rng, samples, _: program(rng, samples)
        traced = jax.jit(run).trace(rng, samples, arrays)
        concrete = jax.make_jaxpr(bound)(rng, samples)
    except Exception:  # e.g. a sampler that needs a concrete count
        return None

    def draws(jaxpr: Any) -> list:
        return _ops(jaxpr, lambda name: "random" in name or "threefry" in name)

    if draws(traced.jaxpr.jaxpr) != draws(concrete.jaxpr):
        return None
    return traced.lower().compile(options(traced.jaxpr.jaxpr))


def _cached(key: tuple, build: Callable[[], Callable | None]) -> Callable | None:
    if key in _programs:
        _programs.move_to_end(key)
        return _programs[key]
    program = _programs[key] = build()
    while len(_programs) > _PROGRAMS_SIZE:
        _programs.popitem(last=False)
    return program


def _predict(
    model: Callable,
    free: Mapping[str, Any],
    rng_key: jax.Array,
    sites: Sequence[str],
    elements: int,
    *,
    samples: Mapping[str, jax.Array] | None = None,
    num_samples: int | None = None,
    parallel: bool = True,
) -> dict[str, jax.Array]:
    """``Predictive(model, ...)(rng_key, **free)`` by the program of its layout, or of its
    data set (:func:`_compile`; the first ``_CONSTANT_PER_LAYOUT`` of a layout), else op
    by op. ``elements``: the data entries drawn (draws times entries).
    """

    def eager() -> dict[str, jax.Array]:
        return Predictive(
            model,
            posterior_samples=samples,
            num_samples=num_samples,
            return_sites=list(sites),
            parallel=parallel,
        )(rng_key, **free)

    samples = None if samples is None else {k: jnp.asarray(v) for k, v in samples.items()}
    try:
        key, arrays, static = _layout(model, free, samples, sites, num_samples, parallel)
    except TypeError:  # an unhashable non-array argument (a list): nothing to key on
        return eager()
    raw = {k: free[k] for k in arrays}
    args = (model, arrays, raw, static, rng_key, samples, sites, num_samples, parallel, elements)
    with _programs_lock:  # one tracing at a time: NumPyro's handler stack is global
        program = _cached(key, lambda: _compile(*args))
        if program is None:  # the model reads its data: a program of this data set
            data_key = (key, _digests(arrays))
            if data_key in _programs or _constant_programs.get(key, 0) < _CONSTANT_PER_LAYOUT:
                if data_key not in _programs:
                    _constant_programs[key] = _constant_programs.get(key, 0) + 1
                program = _cached(data_key, lambda: _compile(*args, constants=True))
    if program is None:
        return eager()
    return program(rng_key, samples, arrays)


def _unpack(
    model: Callable | ModelSpec,
    data: Mapping[str, Any] | None,
    coords: Mapping[str, Any] | None,
    dims: Mapping[str, list[str]] | None,
) -> tuple[Callable, Mapping[str, Any], dict, dict]:
    model, data, coords, dims = resolve_spec(model, data, coords, dims, "a predictive check")
    return model, data, dict(coords or {}), dict(dims or {})


class _DataSite:
    """One data site of a model: its observed value, mask and the names of its dims."""

    def __init__(
        self,
        name: str,
        site: Mapping[str, Any],
        coords: Mapping[str, Any],
        dims: Mapping[str, list[str]],
    ) -> None:
        self.name = name
        value = np.asarray(site["value"])
        self.size = value.size  #: entries drawn per replicate (masked ones included)
        self.full = value  #: the observed value, masked entries included
        fn = site["fn"]
        self.mask: np.ndarray | None = None
        if isinstance(fn, MaskedDistribution) and not isinstance(fn._mask, bool):
            mask = np.asarray(fn._mask, dtype=bool)
            if not mask.all():
                self.mask = mask
        n_event = len(fn.event_shape)
        n_batch = value.ndim - n_event
        plates = {f.dim: f.name for f in site.get("cond_indep_stack", ())}
        given = list(dims.get(name, []))
        if len(given) == value.ndim and self.mask is None:
            names = given
        else:
            names = [plates.get(k - n_batch, f"{name}_dim_{k}") for k in range(n_batch)]
            names += [f"{name}_dim_{k}" for k in range(n_batch, value.ndim)]
        self.coords: dict[str, Any] = {}
        if self.mask is not None:
            # The unmasked entries, flattened over the batch dims; their coordinate is
            # their position (or, for one batch dim with coords, its label).
            kept = np.flatnonzero(self.mask.ravel())
            first = names[0] if n_batch == 1 else f"{name}_unmasked"
            if n_batch == 1 and first in coords:
                self.coords[first] = np.asarray(coords[first])[kept]
            else:
                self.coords[first] = kept
            names = [first, *names[n_batch:]]
            value = value[self.mask]
        # A plate-derived name that clashes with a coordinate of another length: default name.
        shape = value.shape
        for k, d in enumerate(names):
            if d in coords and d not in self.coords and len(coords[d]) != shape[k]:
                names[k] = f"{name}_dim_{k}"
                self.coords.pop(d, None)
        self.dims = names
        self.value = value

    def restrict(self, draws: np.ndarray) -> np.ndarray:
        """Draws shaped ``(chain, draw, *site)`` restricted to the unmasked entries."""
        if self.mask is None:
            return draws
        return draws[(slice(None), slice(None), self.mask)]


def _discover(
    model: Callable,
    data: Mapping[str, Any],
    coords: Mapping[str, Any],
    dims: Mapping[str, list[str]],
) -> tuple[dict[str, _DataSite], list[str], list[str]]:
    """Data sites, latent sample sites and deterministic sites of ``model(**data)``, from a
    trace with its draws abstract (only operations on the data alone run), or where that
    fails (a model that needs its draws concrete) one run with seed 0, op by op."""
    types: dict[str, tuple[str, bool]] = {}
    sites: dict[str, _DataSite] = {}

    def record(tr: Mapping[str, Any]) -> None:
        types.update({k: (s["type"], bool(s.get("is_observed"))) for k, s in tr.items()})
        sites.update({k: _DataSite(k, s, coords, dims) for k, s in tr.items() if _is_data_site(s)})

    def structure(rng: jax.Array) -> int:
        with jax.ensure_compile_time_eval():
            record(trace(seed(model, rng)).get_trace(**data))
        return 0

    try:
        jax.make_jaxpr(structure)(jax.random.PRNGKey(0))
    except Exception:  # a model that needs its draws concrete
        types.clear()
        sites.clear()
        record(_trace(model, data))
    latent = [k for k, (kind, observed) in types.items() if kind == "sample" and not observed]
    deterministic = [k for k, (kind, _) in types.items() if kind == "deterministic"]
    return sites, latent, deterministic


def _sites(
    model: Callable,
    data: Mapping[str, Any],
    coords: Mapping[str, Any],
    dims: Mapping[str, list[str]],
) -> tuple[dict[str, _DataSite], list[str], list[str]]:
    """:func:`_discover`, checked: the model has data sites, each a keyword argument."""
    sites, latent, deterministic = _discover(model, data, coords, dims)
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
    sites: Mapping[str, _DataSite], dims: Mapping[str, list[str]], coords: Mapping[str, Any]
) -> tuple[dict, dict]:
    out_dims = {**dims, **{k: s.dims for k, s in sites.items()}}
    out_coords = dict(coords)
    for s in sites.values():
        out_coords.update(s.coords)
    return out_coords, out_dims


def _observed_group(
    sites: Mapping[str, _DataSite], coords: Mapping[str, Any], dims: Mapping[str, list[str]]
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
    out = _predict(
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
    reps = _predict(
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
