"""Site discovery: which sites of a model are latent, deterministic or data, and their shapes.

A model ``model(**data)`` names its observed sites after its keyword arguments
(``y=None`` generates). Every part of the engine asks the same questions of it, and
answers them here:

* :func:`is_data_site`: an observed sample site that holds data (``numpyro.factor``
  records an observed site too, with nothing to replicate, compare or score);
* :func:`site_table`: every site's kind, whether it is observed or data, and its shape,
  from an abstract trace (nothing runs; cached per layout), for SBC and ADVI;
* :func:`data_sites`: the data sites with their observed values, masks and dimension
  names, from a trace with the data concrete and the draws abstract, for the
  predictive checks and ``fit``'s ``observed_data``.

A model that needs concrete values where the abstract trace has none (NumPy code on
its data, Python control flow on a draw) is traced again with its data bound, or op by
op with seed 0 (:data:`~judgebayes.bayes.engine.keys.NEEDS_CONCRETE` says when).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import jax
import numpy as np
from numpyro.distributions import Unit
from numpyro.distributions.distribution import MaskedDistribution
from numpyro.handlers import seed, trace

from judgebayes.bayes.engine.cache import cached
from judgebayes.bayes.engine.keys import NEEDS_CONCRETE, Layout

__all__ = ["DataSite", "Site", "data_sites", "is_data_site", "op_by_op", "site_table"]


def op_by_op(model: Callable, data: Mapping[str, Any], key: Any = 0) -> dict[str, dict]:
    """NumPyro's trace of ``model(**data)`` run op by op, seeded with ``key``."""
    return trace(seed(model, key)).get_trace(**data)


def is_data_site(site: Mapping[str, Any]) -> bool:
    """An observed sample site that holds data, not a ``numpyro.factor`` term.

    ``numpyro.factor`` records an observed sample site too (a ``Unit`` distribution,
    marked ``is_auxiliary``, possibly wrapped by ``mask``/``expand``): it adds to the
    log density but has no data to replicate, compare or score pointwise.
    """
    if site["type"] != "sample" or not site.get("is_observed"):
        return False
    if (site.get("infer") or {}).get("is_auxiliary"):
        return False
    fn = site["fn"]
    while hasattr(fn, "base_dist"):
        fn = fn.base_dist
    return not isinstance(fn, Unit)


class Site(NamedTuple):
    """One site of a model: its kind (``"sample"``, ``"deterministic"``, ...), whether it
    is observed, whether it holds data (:func:`is_data_site`) and its shape."""

    kind: str
    observed: bool
    data: bool
    shape: tuple[int, ...]

    @property
    def latent(self) -> bool:
        """A latent sample site or a deterministic one: what a posterior holds."""
        return (self.kind == "sample" and not self.observed) or self.kind == "deterministic"


def _table(tr: Mapping[str, Any]) -> dict[str, Site]:
    return {
        k: Site(s["type"], bool(s.get("is_observed")), is_data_site(s), tuple(np.shape(s["value"])))
        for k, s in tr.items()
    }


def site_table(model: Callable, data: Mapping[str, Any]) -> dict[str, Site]:
    """Every site of ``model(**data)`` (:class:`Site`), from abstract evaluation (nothing
    compiles or runs; cached per layout), with the arrays traced, else bound (a model
    that reads them), else op by op with seed 0."""

    def abstract(bind: tuple[str, ...]) -> dict[str, Site]:
        layout, arrays, static = Layout.of(model, data, bind=bind)
        found: dict[str, Site] = {}

        def record(rng: jax.Array, a: Mapping[str, Any]) -> int:
            found.update(_table(op_by_op(model, {**static, **a}, rng)))
            return 0

        def build() -> dict[str, Site]:
            jax.eval_shape(record, jax.random.PRNGKey(0), arrays)
            return found

        return cached(("sites", layout), build)

    arrays = tuple(k for k, v in data.items() if isinstance(v, np.ndarray | jax.Array))
    for bind in ((), arrays):
        try:
            return abstract(bind)
        except NEEDS_CONCRETE:
            continue
    return _table(op_by_op(model, data))


class DataSite:
    """One data site of a model: its observed value, mask and the names of its dims.

    A site observed under ``numpyro.handlers.mask`` (the padding rows of the anchors
    model) keeps only its unmasked entries: masked entries carry no data to compare.
    The mask is read from NumPyro's ``MaskedDistribution`` (its ``_mask``: NumPyro
    keeps no public name for it).
    """

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


def data_sites(
    model: Callable,
    data: Mapping[str, Any],
    coords: Mapping[str, Any] | None = None,
    dims: Mapping[str, list[str]] | None = None,
) -> tuple[dict[str, DataSite], list[str], list[str]]:
    """Data sites, latent sample sites and deterministic sites of ``model(**data)``, from a
    trace with its draws abstract (only operations on the data alone run), or where that
    fails (a model that needs its draws concrete) one run with seed 0, op by op."""
    coords, dims = coords or {}, dims or {}
    kinds: dict[str, tuple[str, bool]] = {}
    sites: dict[str, DataSite] = {}

    def record(tr: Mapping[str, Any]) -> None:
        kinds.update({k: (s["type"], bool(s.get("is_observed"))) for k, s in tr.items()})
        sites.update({k: DataSite(k, s, coords, dims) for k, s in tr.items() if is_data_site(s)})

    def structure(rng: jax.Array) -> int:
        with jax.ensure_compile_time_eval():
            record(op_by_op(model, data, rng))
        return 0

    try:
        jax.make_jaxpr(structure)(jax.random.PRNGKey(0))
    except NEEDS_CONCRETE:  # a model that needs its draws concrete
        kinds.clear()
        sites.clear()
        record(op_by_op(model, data))
    latent = [k for k, (kind, observed) in kinds.items() if kind == "sample" and not observed]
    deterministic = [k for k, (kind, _) in kinds.items() if kind == "deterministic"]
    return sites, latent, deterministic
