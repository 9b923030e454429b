"""Paired latent-class calibration: the models' correctness on one item modelled jointly.

Fiedler's (*Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939) measurement
model (Eq. 1, p = θ q1 + (1 − θ)(1 − q0)) holds per model; its comparisons are *paired*: both models
answer the same items, and the paper resamples paired item indices because "the dependence induced
by paired items" matters (Sections 4.2 and Appendix B: paired per-input differences "capture model
correlation directly"). The designs of :mod:`judgebayes.calibration.designs` give each model's
correctness Z_mi its own Bernoulli(θ_m), independent across models given θ, so a hard item that both
models fail is two unrelated events and the Δθ posterior is ≈ 20% wider than PPI++ 2× with the
paired bootstrap when the models are correlated.

This design keeps Eq. 1 per model and replaces the independent Z_mi by a joint latent
class over the *correctness pattern* of the S models that answered item i,
z_i = (Z_1i, …, Z_Si) ∈ {0, 1}^S:

    z_i ~ Categorical(π),  π ∈ simplex over the 2^S patterns      (joint latent class)
    Ẑ_mi | z_i ~ Binomial(k_mi, q1_m)      if Z_mi = 1             (Eq. 1 per model,
                 Binomial(k_mi, 1 − q0_m)  if Z_mi = 0              judges independent given z)

so θ_m = Σ_{z: z_m = 1} π_z (deterministic ``theta``). For two models π is the 2 × 2
table of (Z_A, Z_B): θ_A, θ_B and one dependence parameter, reported as the log odds
ratio ``log_odds_ratio`` = log(π₀₀ π₁₁ / π₁₀ π₀₁) (0 = independent; the simulations'
latent correlation 0.5 at θ ≈ 0.7 is ≈ 1.5). The table is saturated: any dependence
between the two models' correctness (item difficulty, shared knowledge, one model
being a fine-tune of the other) is representable, unlike a one-factor random effect.

Observed and latent parts. A model's Z is observed on its calibration items (human
label) and latent elsewhere; an item may be labelled for one model and not the other.
For every item the patterns consistent with the observed labels are summed out:

    p(ẑ_i, z_i^obs) = Σ_{z ⊇ z_i^obs} π_z Π_m Binomial(ẑ_mi; k_mi, q_{z_m, m}),

split into two observed sites as in the other designs: ``human_label`` (the observed
part of the pattern, −1 where unlabelled; log p = log Σ_{z ⊇ z^obs} π_z) and
``judge_label`` (the judge counts given it). Their sum is the item's log-likelihood for
LOO, now per *item* (question) rather than per (model, item) row; the other designs'
rows are summed per item for a like-for-like comparison
(:meth:`~judgebayes.calibration.posterior.BayesCalibration.loo`). A model absent from
an item has k = 0 runs and contributes nothing. Judge calibration is the HSROC
parametrisation of the other designs (logit q1 = a + d/2, logit q0 = d/2 − a, d > 0,
so J > 0): model-specific (a_m, ℓ_m) (:func:`paired_calibration_model`) or
partially pooled (:func:`paired_hierarchical_calibration_model`).

Prior: π ~ Dirichlet(2^{1−S}, …, 2^{1−S}). Its marginals are θ_m ~ Beta(1, 1), the
prior of the other designs, so the designs differ in the dependence alone; for S = 2
it is Dirichlet(½, ½, ½, ½), under which θ_A and θ_B are uncorrelated a priori.
(a, ℓ, τ) priors are those of :mod:`~judgebayes.calibration.designs`.

More than two models. The pattern table generalises directly: 2^S patterns, cost
O(cells · 2^S · S). It is capped at :data:`MAX_MODELS` = 6 (64 patterns; with the
Dirichlet(2^{1−S}) prior and a few hundred labelled items the table of more models is
mostly empty cells); beyond that :func:`paired_data` raises and the row designs (or
pairs of models) are the fallback. ``item_group`` lets many independent analyses
(simulation replications of S models each) share one NUTS run, with one π per group
and the models of group g numbered g·S + s.

Items enter as weighted cells, so NUTS costs O(cells), whatever the number of items: every
combination of human labels and judge counts that the design allows, given the groups
and the item types (which models answered an item, with how many runs, and which a
human labelled), empty ones with weight 0: 20 cells for two labelled models with one
judge run per item (16 for calibration items, 4 for test items). Their number depends
on the design, not on the labels, so the data sets of one design share one compiled
sampler; beyond 256 combinations (many models or runs) the cells are the data's own
unique combinations.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
import pandas as pd
from jax.scipy.special import gammaln, logsumexp
from numpyro.distributions import constraints
from numpyro.util import not_jax_tracer

from judgebayes.calibration.items import JudgedItems
from judgebayes.calibration.rows import (
    A_SD,
    LOG_DOR_MEAN,
    LOG_DOR_SD,
    TAU_SD,
    CalibrationData,
    calibration_data,
)
from judgebayes.errors import DataError

__all__ = [
    "MAX_MODELS",
    "PAIRED_DESIGNS",
    "CorrectnessPattern",
    "PairedData",
    "PairedJudge",
    "item_index",
    "paired_calibration_model",
    "paired_data",
    "paired_hierarchical_calibration_model",
    "pattern_labels",
]

MAX_MODELS = 6
"""Most models the paired design joins (2^6 = 64 correctness patterns)."""
PAIRED_DESIGNS = ("paired", "paired_hierarchical")
"""Names of the paired designs in :data:`~judgebayes.calibration.designs.DESIGNS`."""


_NEVER = -1e30  # log-weight of a pattern ruled out by an observed label (as in designs)


def _bits(n_slots: int) -> np.ndarray:
    """Pattern c's correctness of slot s, ``(2^S, S)``: bit s of c (slot 0 is the low bit)."""
    return (np.arange(2**n_slots)[:, None] >> np.arange(n_slots)[None, :]) & 1


def pattern_labels(n_slots: int) -> list[str]:
    """Pattern names in model order: ``"10"`` = first model correct, second wrong."""
    return ["".join(str(b) for b in row) for row in _bits(n_slots)]


def _consistent_log_weights(log_pi: Any, human: Any) -> jax.Array:
    """log π_z where pattern z agrees with the observed labels (−1 = unlabelled), else ≈ −∞."""
    n_slots = jnp.shape(human)[-1]
    bits = jnp.asarray(_bits(n_slots), dtype=jnp.result_type(float))
    h = jnp.asarray(human, dtype=bits.dtype)
    seen = (h >= 0).astype(bits.dtype)
    hz = seen * h
    # Mismatches Σ_s seen_s |h_s − b_cs| = Σ seen·h + Σ seen·b − 2 Σ seen·h·b (h, b ∈ {0, 1}).
    mismatch = hz.sum(-1, keepdims=True) + seen @ bits.T - 2 * hz @ bits.T
    return jnp.asarray(log_pi) + jnp.where(mismatch < 0.5, 0.0, _NEVER)


class CorrectnessPattern(dist.Distribution):
    """The human labels of one item: the observed part of its correctness pattern.

    ``log_pi`` (…, 2^S) are the pattern log-probabilities and ``labelled`` (…, S)
    marks the models whose Z a human labelled. A value holds Z_m where labelled and
    −1 elsewhere; log p(value) = log Σ_{z consistent} π_z.
    """

    arg_constraints: ClassVar[dict[str, Any]] = {"log_pi": constraints.real_vector}
    support = constraints.integer_interval(-1, 1)

    def __init__(self, log_pi: Any, labelled: Any, *, validate_args: bool | None = None) -> None:
        self.log_pi, self.labelled = jnp.asarray(log_pi), jnp.asarray(labelled, dtype=bool)
        n_slots = self.labelled.shape[-1]
        batch = jax.lax.broadcast_shapes(self.log_pi.shape[:-1], self.labelled.shape[:-1])
        super().__init__(batch_shape=batch, event_shape=(n_slots,), validate_args=validate_args)

    def sample(self, key: jax.Array, sample_shape: tuple[int, ...] = ()) -> jax.Array:
        logits = jnp.broadcast_to(self.log_pi, self.batch_shape + self.log_pi.shape[-1:])
        c = dist.Categorical(logits=logits).sample(key, sample_shape)
        z = jnp.asarray(_bits(self.event_shape[0]))[c]
        return jnp.where(self.labelled, z, -1)

    def log_prob(self, value: Any) -> jax.Array:
        return logsumexp(_consistent_log_weights(self.log_pi, value), axis=-1)


class PairedJudge(dist.Distribution):
    """Judge-positive runs of the S models on one item, given its observed human labels.

    log p(ẑ | z^obs) = log Σ_{z ⊇ z^obs} π_z Π_m Binomial(ẑ_m; k_m, σ(logit_{z_m, m}))
    − log Σ_{z ⊇ z^obs} π_z, with ``logit1`` = logit q1 and ``logit0`` = logit(1 − q0)
    per slot (…, S) and ``total_count`` k (k = 0: the model did not answer the item).
    Written here, like :class:`~judgebayes.calibration.designs.JudgeMixture`, because
    Binomial's support depends on k.
    """

    arg_constraints: ClassVar[dict[str, Any]] = {
        "log_pi": constraints.real_vector,
        "logit1": constraints.real_vector,
        "logit0": constraints.real_vector,
    }
    support = constraints.nonnegative_integer

    def __init__(
        self,
        log_pi: Any,
        human: Any,
        logit1: Any,
        logit0: Any,
        total_count: Any,
        *,
        validate_args: bool | None = None,
    ) -> None:
        self.log_pi, self.human = jnp.asarray(log_pi), jnp.asarray(human)
        self.logit1, self.logit0 = jnp.asarray(logit1), jnp.asarray(logit0)
        self.total_count = jnp.asarray(total_count)
        shape = jax.lax.broadcast_shapes(
            *(jnp.shape(x) for x in (self.human, self.logit1, self.logit0, self.total_count))
        )
        super().__init__(
            batch_shape=shape[:-1], event_shape=shape[-1:], validate_args=validate_args
        )

    def sample(self, key: jax.Array, sample_shape: tuple[int, ...] = ()) -> jax.Array:
        k1, k2 = jax.random.split(key)
        lw = _consistent_log_weights(self.log_pi, self.human)
        lw = jnp.broadcast_to(lw, self.batch_shape + lw.shape[-1:])
        c = dist.Categorical(logits=lw).sample(k1, sample_shape)
        z = jnp.asarray(_bits(self.event_shape[0]))[c]
        logits = jnp.where(z == 1, self.logit1, self.logit0)
        return binomial_sample(k2, jnp.broadcast_to(self.total_count, logits.shape), logits)

    def log_prob(self, value: Any) -> jax.Array:
        k = jnp.asarray(self.total_count, dtype=jnp.result_type(float))
        y = jnp.asarray(value, dtype=k.dtype)
        log_choose = (gammaln(k + 1) - gammaln(y + 1) - gammaln(k - y + 1)).sum(-1)
        lf1 = y * self.logit1 - k * jax.nn.softplus(self.logit1)  # (…, S)
        lf0 = y * self.logit0 - k * jax.nn.softplus(self.logit0)
        bits = jnp.asarray(_bits(self.event_shape[0]), dtype=k.dtype)
        comp = lf0.sum(-1, keepdims=True) + (lf1 - lf0) @ bits.T  # (…, 2^S)
        lw = _consistent_log_weights(self.log_pi, self.human)
        return log_choose + logsumexp(lw + comp, axis=-1) - logsumexp(lw, axis=-1)


def binomial_sample(key: jax.Array, total_count: Any, logits: Any) -> jax.Array:
    """Binomial(k, σ(logits)) draws, as integers of ``logits``' shape.

    With concrete counts (data passed to ``Predictive``, the usual case of prior and
    posterior predictive checks) a sum of max(k) Bernoulli draws masked at k: one
    vectorised comparison, where NumPyro's Binomial sampler loops over the elements
    (``docs/benchmarks.md``). Traced counts fall back to
    ``jax.random.binomial``.
    """
    p = jax.nn.sigmoid(jnp.asarray(logits))
    if not_jax_tracer(total_count):
        k = np.asarray(total_count)
        k_max = int(k.max()) if k.size else 0
        u = jax.random.uniform(key, (k_max, *p.shape), dtype=p.dtype)
        runs = jnp.arange(k_max).reshape(-1, *([1] * p.ndim))
        return ((u < p) & (runs < jnp.asarray(k))).sum(0).astype(jnp.result_type(int))
    count = jnp.asarray(total_count, dtype=p.dtype)
    return jax.random.binomial(key, count, p).astype(jnp.result_type(int))


# ----------------------------------------------------------------------- models
def _patterns(n_groups: int, n_slots: int) -> jax.Array:
    """π per group (Dirichlet with Beta(1, 1) marginals), θ and (S = 2) the log odds ratio."""
    with numpyro.plate("group", n_groups):
        pi = numpyro.sample("pi", dist.Dirichlet(jnp.full(2**n_slots, 2.0 ** (1 - n_slots))))
    bits = jnp.asarray(_bits(n_slots), dtype=pi.dtype)
    numpyro.deterministic("theta", (pi @ bits).reshape(-1))
    log_pi = jnp.log(jnp.clip(pi, jnp.finfo(pi.dtype).tiny))
    if n_slots == 2:
        numpyro.deterministic(
            "log_odds_ratio", log_pi[:, 0] + log_pi[:, 3] - log_pi[:, 1] - log_pi[:, 2]
        )
    return log_pi


@contextlib.contextmanager
def _weighted(weight: Any) -> Any:
    """Scale each item's log-likelihood by its multiplicity; weight 0 (an empty cell kept
    for a fixed shape) is masked out, since NumPyro's ``scale`` must be positive."""
    if weight is None:
        yield
        return
    w = jnp.asarray(weight)
    with numpyro.handlers.mask(mask=w > 0), numpyro.handlers.scale(scale=jnp.where(w > 0, w, 1.0)):
        yield


def _observe_items(
    log_pi: Any,
    a: Any,
    log_dor: Any,
    n_runs: Any,
    item_group: Any,
    weight: Any,
    labelled: Any,
    human_label: Any,
    judge_label: Any,
) -> None:
    d = jnp.exp(log_dor)
    q1 = numpyro.deterministic("q1", jax.nn.sigmoid(a + d / 2))
    q0 = numpyro.deterministic("q0", jax.nn.sigmoid(d / 2 - a))
    numpyro.deterministic("J", q0 + q1 - 1)
    runs = jnp.asarray(n_runs)
    n_items, n_slots = runs.shape
    grp = jnp.zeros(n_items, jnp.int32) if item_group is None else jnp.asarray(item_group)
    model = grp[:, None] * n_slots + jnp.arange(n_slots)[None, :]
    am, dm = a[model], d[model]
    lp = log_pi[grp]
    with _weighted(weight), numpyro.plate("item", n_items):
        z = numpyro.sample("human_label", CorrectnessPattern(lp, labelled), obs=human_label)
        numpyro.sample(
            "judge_label", PairedJudge(lp, z, am + dm / 2, am - dm / 2, runs), obs=judge_label
        )


def paired_calibration_model(
    n_runs: Any,
    labelled: Any,
    *,
    item_group: Any = None,
    n_groups: int = 1,
    weight: Any = None,
    human_label: Any = None,
    judge_label: Any = None,
) -> None:
    """Joint latent class over the models' correctness on each item, (a_m, ℓ_m) per model.

    Parameters
    ----------
    n_runs
        Judge runs k of every (item, model slot), ``(n_items, S)``; 0 where the model
        did not answer the item.
    labelled
        Whether a human labelled Z of every (item, slot), ``(n_items, S)``.
    item_group, n_groups
        Group of every item (default: one group) and number of groups; group g has
        its own π and the models g·S + s.
    weight
        Optional item multiplicities (cells standing for several identical items).
    human_label
        Z where labelled, −1 elsewhere, ``(n_items, S)`` (``None`` generates).
    judge_label
        Judge-positive runs, ``(n_items, S)`` (``None`` generates).
    """
    n_slots = jnp.shape(n_runs)[1]
    log_pi = _patterns(n_groups, n_slots)
    with numpyro.plate("model", n_groups * n_slots):
        a = numpyro.sample("a", dist.Normal(0.0, A_SD))
        log_dor = numpyro.sample("log_dor", dist.Normal(LOG_DOR_MEAN, LOG_DOR_SD))
    _observe_items(
        log_pi, a, log_dor, n_runs, item_group, weight, labelled, human_label, judge_label
    )


def paired_hierarchical_calibration_model(
    n_runs: Any,
    labelled: Any,
    *,
    item_group: Any = None,
    n_groups: int = 1,
    weight: Any = None,
    human_label: Any = None,
    judge_label: Any = None,
) -> None:
    """The paired latent class with a_m ~ N(μ_a, τ_a), ℓ_m ~ N(μ_ℓ, τ_ℓ) within a group.

    Same arguments as :func:`paired_calibration_model`; non-centred as
    :func:`~judgebayes.calibration.designs.hierarchical_calibration_model`.
    """
    n_slots = jnp.shape(n_runs)[1]
    log_pi = _patterns(n_groups, n_slots)
    with numpyro.plate("group", n_groups):
        mu_a = numpyro.sample("mu_a", dist.Normal(0.0, A_SD))
        mu_l = numpyro.sample("mu_log_dor", dist.Normal(LOG_DOR_MEAN, LOG_DOR_SD))
        tau_a = numpyro.sample("tau_a", dist.HalfNormal(TAU_SD))
        tau_l = numpyro.sample("tau_log_dor", dist.HalfNormal(TAU_SD))
    with numpyro.plate("model", n_groups * n_slots):
        a_raw = numpyro.sample("a_raw", dist.Normal(0.0, 1.0))
        l_raw = numpyro.sample("log_dor_raw", dist.Normal(0.0, 1.0))
    g = jnp.repeat(jnp.arange(n_groups), n_slots)
    a = numpyro.deterministic("a", mu_a[g] + tau_a[g] * a_raw)
    log_dor = numpyro.deterministic("log_dor", mu_l[g] + tau_l[g] * l_raw)
    _observe_items(
        log_pi, a, log_dor, n_runs, item_group, weight, labelled, human_label, judge_label
    )


def paired_dims(design: str, n_slots: int = 2) -> dict[str, list[str]]:
    """ArviZ dims of the parameters of a paired design."""
    out = {k: ["model"] for k in ("theta", "q0", "q1", "J", "a", "log_dor")}
    out["pi"] = ["group", "pattern"]
    if n_slots == 2:
        out["log_odds_ratio"] = ["group"]
    if design == "paired_hierarchical":
        out.update({k: ["model"] for k in ("a_raw", "log_dor_raw")})
        out.update({k: ["group"] for k in ("mu_a", "mu_log_dor", "tau_a", "tau_log_dor")})
    elif design != "paired":
        raise ValueError(f"unknown paired design {design!r}; expected one of {PAIRED_DESIGNS}")
    return out


# ------------------------------------------------------------------------- data
@dataclass(frozen=True)
class PairedData:
    """Arguments of the paired designs for one table of judged items: one row per item.

    ``data`` holds the keyword arguments (``n_runs``, ``labelled``, ``human_label``,
    ``judge_label``, each ``(n_items, S)`` in the order of ``models``); ``item_ids``
    the item of every row; ``row_of[i, s]`` the row of
    :class:`~judgebayes.calibration.designs.CalibrationData` holding (item i, model s),
    −1 where the model did not answer the item.
    """

    data: Mapping[str, Any]
    models: tuple[str, ...]
    item_ids: np.ndarray
    row_of: np.ndarray

    @property
    def item_of_row(self) -> np.ndarray:
        """The item (index into ``item_ids``) of every row of the calibration data."""
        present = self.row_of >= 0
        out = np.empty(int(present.sum()), dtype=np.int64)
        out[self.row_of[present]] = np.nonzero(present)[0]
        return out

    @property
    def coords(self) -> dict[str, Any]:
        return {
            "model": list(self.models),
            "group": ["all"],
            "pattern": pattern_labels(len(self.models)),
            "item": np.arange(len(self.item_ids)),
        }

    def dims(self, design: str) -> dict[str, list[str]]:
        """ArviZ dims of every site of ``design``."""
        return {
            **paired_dims(design, len(self.models)),
            "human_label": ["item", "model"],
            "judge_label": ["item", "model"],
        }


def paired_data(items: JudgedItems | pd.DataFrame | CalibrationData) -> PairedData:
    """Item-level arguments of the paired designs: the models' rows of one item side by side.

    Raises
    ------
    DataError
        With more than :data:`MAX_MODELS` models, or no human label.
    """
    cd = items if isinstance(items, CalibrationData) else calibration_data(items)
    n_models = len(cd.models)
    if n_models > MAX_MODELS:
        raise DataError(
            f"the paired design joins at most {MAX_MODELS} models "
            f"(2^{MAX_MODELS} correctness patterns), got {n_models}",
            column="model",
            expected="fewer models, or the row designs (shared, model_specific, hierarchical)",
        )
    d = cd.data
    index = item_index(cd)
    item, slot = index.item_of_row, np.asarray(d["model_idx"])
    shape = index.row_of.shape
    runs = np.zeros(shape, np.int32)
    runs[item, slot] = d["n_runs"]
    judge = np.zeros(shape, np.int32)
    judge[item, slot] = d["judge_label"]
    human = np.full(shape, -1, np.int32)
    human[item[: cd.n_cal], slot[: cd.n_cal]] = d["human_label"]
    data = {"n_runs": runs, "labelled": human >= 0, "human_label": human, "judge_label": judge}
    return PairedData(data, cd.models, index.item_ids, index.row_of)


def item_index(cd: CalibrationData) -> PairedData:
    """The items of ``cd`` (in order of first appearance) and the row of each (item, model).

    A :class:`PairedData` without model arguments (``data`` is empty), for any number of
    models: what the row designs need to sum their rows per item for LOO.
    """
    ids = pd.Index(pd.unique(pd.Series(cd.item_ids, dtype=object)))
    item = ids.get_indexer(pd.Series(cd.item_ids, dtype=object))
    row_of = np.full((len(ids), len(cd.models)), -1, dtype=np.int64)
    row_of[item, np.asarray(cd.data["model_idx"])] = np.arange(len(item))
    return PairedData({}, cd.models, ids.to_numpy(), row_of)


_MAX_LAYOUT_CELLS = 256
"""Most cells of the fixed layout of :func:`paired_cells` (more: the data's own cells).

Every cell adds to the cost of each NUTS gradient, while a fixed layout saves each
later fit a compilation; at 256 cells the cells cost a fit less than the compilation
saves (``docs/benchmarks.md``).
"""


def _cell_layout(n_groups: int, runs: np.ndarray, labelled: np.ndarray) -> np.ndarray | None:
    """Every cell key the design allows, or ``None`` beyond :data:`_MAX_LAYOUT_CELLS`.

    Keys are rows (group, runs of the S slots, human labels, judge labels). The design
    is the set of item types, the (runs, labelled) of every slot, that the items have;
    a type with k_s runs on slot s, labelled or not, allows a human label 0 or 1 where
    labelled (−1 elsewhere) and 0 … k_s judge-positive runs on every slot, so
    Π_s (k_s + 1)(1 + labelled_s) keys, for every group. Two labelled models with one
    run: 16 keys of calibration items and 4 of test items. Sorted as
    ``np.unique(keys, axis=0)`` sorts them (lexicographically).
    """
    types = np.unique(np.column_stack([runs, labelled]).astype(np.int64), axis=0)
    n_slots = runs.shape[1]
    sizes = [
        np.prod(
            [(k + 1) * (1 + lab) for k, lab in zip(t[:n_slots], t[n_slots:], strict=True)],
            dtype=float,
        )
        for t in types
    ]
    if n_groups * sum(sizes) > _MAX_LAYOUT_CELLS:
        return None
    rows = []
    for t in types:
        k, lab = t[:n_slots], t[n_slots:]
        slots = [
            [(h, y) for h in ((0, 1) if lab[m] else (-1,)) for y in range(k[m] + 1)]
            for m in range(n_slots)
        ]
        for combo in itertools.product(*slots):
            rows.append([*k, *(h for h, _ in combo), *(y for _, y in combo)])
    keys = np.asarray(rows, dtype=np.int64).reshape(-1, 3 * n_slots)
    keys = np.column_stack(
        [np.repeat(np.arange(n_groups), len(keys)), np.tile(keys, (n_groups, 1))]
    )
    return keys[np.lexsort(keys.T[::-1])]


def _layout_cells(key: np.ndarray, layout: np.ndarray) -> np.ndarray | None:
    """Row of ``layout`` of every item key, or ``None`` when a key is not in it.

    Keys are coded in mixed radix (the human label shifted by 1 to be non-negative),
    which orders them as ``layout`` is sorted, so one ``searchsorted`` finds them. A
    key outside the layout (a judge count above the runs, a human label other than
    0 or 1, a group beyond ``n_groups``) leaves the caller to the data's own cells.
    """
    n_slots = (key.shape[1] - 1) // 3
    shift = np.r_[
        0, np.zeros(n_slots, np.int64), np.ones(n_slots, np.int64), np.zeros(n_slots, np.int64)
    ]
    digits, layout_digits = key + shift, layout + shift
    top = layout_digits.max(axis=0)
    if ((digits < 0) | (digits > top)).any():
        return None
    radix = top + 1
    place = np.cumprod(np.r_[radix[1:], 1][::-1])[::-1]  # weight of every column
    codes, item_codes = layout_digits @ place, digits @ place
    cell = np.minimum(np.searchsorted(codes, item_codes), len(codes) - 1)
    return cell if (codes[cell] == item_codes).all() else None


def paired_cells(data: Mapping[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
    """Items merged into weighted cells; returns the cells and every item's cell.

    The cells are every combination of outcomes (human labels, judge counts) that the
    design allows (:func:`_cell_layout`: for every group and item type), empty ones
    with weight 0. Their number and order depend on the design, not on the labels, so
    the data sets of one design share one compiled NUTS kernel (two labelled models
    with one judge run per item: 20 cells, which a few hundred items fill, and a small
    data set leaves partly empty). Cells of weight 0 are masked out of the log
    density, so they change it by exactly 0 (its sums may round differently); the
    non-empty cells come in the order of the data's own unique cells, and where every
    cell is used the cells are those of the data. Beyond :data:`_MAX_LAYOUT_CELLS`
    combinations (a product over the models: 4^4 + 2^4 = 272 for four labelled models
    with one run) the cells are the data's unique combinations instead, and their
    number depends on the data.
    """
    n, s = np.shape(data["n_runs"])
    grouped = data.get("item_group") is not None
    group = np.asarray(data["item_group"]) if grouped else np.zeros(n, np.int64)
    runs, human = np.asarray(data["n_runs"]), np.asarray(data["human_label"])
    key = np.column_stack([group, runs, human, data["judge_label"]]).astype(np.int64)
    n_groups = int(data.get("n_groups") or group.max(initial=0) + 1) if grouped else 1
    layout = _cell_layout(n_groups, runs, human >= 0)
    cell = None if layout is None else _layout_cells(key, layout)
    if cell is None:  # the data's own cells
        layout, cell = np.unique(key, axis=0, return_inverse=True)
        cell = cell.ravel()
    w = data.get("weight")
    counts = np.bincount(
        cell, weights=None if w is None else np.asarray(w, float), minlength=len(layout)
    )
    cells = {
        k: v
        for k, v in data.items()
        if k not in ("human_label", "judge_label", "n_runs", "labelled", "item_group")
    }
    human_c = layout[:, 1 + s : 1 + 2 * s].astype(np.int32)
    cells.update(
        n_runs=layout[:, 1 : 1 + s].astype(np.int32),
        labelled=human_c >= 0,
        human_label=human_c,
        judge_label=layout[:, 1 + 2 * s :].astype(np.int32),
        weight=counts.astype(float),
    )
    if grouped:
        cells["item_group"] = layout[:, 0].astype(np.int32)
    return cells, cell
