r"""Leave-one-battle-out cross-validation from pair statistics, without expanding the data.

The Bradley–Terry models of :mod:`~judgebayes.bayes.bt_models` see the battles only
through per-pair counts, so the ``log_likelihood`` group that :func:`~judgebayes.fit`
stores has one column per *pair*. PSIS-LOO on it (``az.loo``) leaves out a whole pair at
a time, hundreds of battles at once: the leave-one-out posterior is far from the full one
and the Pareto k̂ of the importance ratios reaches ≈ 0.7, where PSIS is no longer reliable
(Vehtari, Gelman & Gabry 2017, Sect. 2.1; Vehtari et al. 2024, Sect. 3). Users think in
battles; so does this module.

Cells, not battles
    Battles that share a pair, a target and a weight (a
    :class:`~judgebayes.core.pairs.PairStats` *cell*) have one log-likelihood value per
    posterior draw, computed from the pair's parameters alone: BT
    ``w·(t log σ(d) + (1 − t) log σ(−d))`` with d = θ_i − θ_j, Davidson ``log π_k``.
    PSIS (``az.psislw``) runs once per cell, and every sum over battles is a sum over cells
    weighted by their multiplicity: ``elpd_loo = Σ_c m_c·elpd_c``, ``p_loo = lpd −
    elpd_loo`` and ``se = √(N·Var_b elpd_b)`` with the battle-level variance (weights
    m_c), the estimators of Vehtari, Gelman & Gabry (2017, Eqs. 4, 10, 23) over N
    battles. Cost: O(draws × cells), never O(draws × battles).
High Pareto k̂
    Cells with k̂ above ``k_threshold`` (0.7: Vehtari et al. 2024, Sect. 3.2.4) are
    re-done by exact refits (the cell's count lowered by one; same array shapes, so the
    compiled sampler of :mod:`~judgebayes.bayes.engine.model` only re-samples) or, when there
    are many, by K-fold cross-validation over battles (Vehtari, Gelman & Gabry 2017,
    Sect. 4.2). What ran is recorded in the result.
Comparable scores
    A BT fit with ties counted ½ uses the *kernel* σ(d)^t σ(−d)^(1−t); over the three
    outcomes {win, tie, loss} it sums to 1 + √(p(1 − p)) > 1, so its elpd would beat
    Davidson's on any data with ties for free. With ``ties="three_way"`` (default) the
    BT posterior (fitted on the kernel) predicts with the normalised three-way
    distribution (p, √(p(1−p)), 1 − p)/(1 + √(p(1−p))), which is Davidson's model with
    ν = 1; importance ratios still use the kernel, so the estimate targets the refit
    posterior. Soft targets and weighted battles have no normalised density:
    their elpd is a score of the generalised likelihood, comparable only with the same
    kind of score on the same targets. :func:`compare_loo` checks both.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import arviz as az
import jax.numpy as jnp
import numpy as np
import pandas as pd
import xarray as xr
from scipy.special import log_expit, logsumexp
from tqdm.auto import tqdm

from judgebayes.bayes.bt_models import bt_model, davidson_model
from judgebayes.bayes.inference import fit
from judgebayes.bayes.spec import ModelSpec
from judgebayes.core.battles import Battles
from judgebayes.core.bt import as_pair_stats
from judgebayes.core.pairs import PairStats
from judgebayes.core.results import ResultDisplay

__all__ = ["BattleLOO", "battle_loo", "cell_log_likelihood", "cell_loo", "compare_loo"]

Fallback = Literal["auto", "refit", "kfold"] | None
Ties = Literal["three_way", "kernel"]
_NORMALISED = {"bernoulli", "three_way", "multinomial", "density"}
_CHUNK = 1 << 22  # draws × cells per block of log-likelihood values held at once


@dataclass(frozen=True, repr=False, eq=False)
class BattleLOO(ResultDisplay):
    """Leave-one-battle-out expected log predictive density of one fitted model.

    Attributes
    ----------
    elpd_loo, se, p_loo
        Σ over battles of log p(y_b | y_−b), its standard error √(N·Var_b) and the
        effective number of parameters ``lpd − elpd_loo``.
    elpd_psis
        The PSIS estimate of ``elpd_loo`` before any fallback.
    n_battles, n_samples
        Battles N and posterior draws S.
    cells
        One row per cell (battles sharing pair, target and weight): ``model_i, model_j,
        target, weight, count, pareto_k, lpd, elpd_psis, elpd`` (per battle; ``elpd`` is
        after the fallback: exact for refitted cells, the K-fold mean for K-fold).
    values, lengths
        Battle-level pointwise elpd, run-length encoded over the battles in cell order
        (a cell is one run, or one run per fold under K-fold); see :meth:`pointwise`.
    k_threshold, n_high, n_high_cells
        Pareto-k̂ threshold, and how many battles and cells exceeded it.
    method, fallback
        ``"psis"``, ``"psis+refit"`` or ``"kfold"``; what ran for the high-k̂ cells
        (``"refit"``, ``"kfold"`` or ``None``).
    fallback_frame
        Per refitted cell (``cell, pareto_k, elpd_psis, elpd_exact``) or per fold
        (``fold, n_battles, elpd``); ``None`` when no fallback ran.
    refit_warnings
        Distinct warnings the refits raised (e.g. ``SamplerWarning``).
    model, density
        The model's name; ``"bernoulli"``, ``"three_way"``, ``"multinomial"`` or
        ``"density"`` (normalised densities) or ``"kernel"`` (a generalised likelihood).
    data_key
        Fingerprint of the observed cells: only fits with equal keys are compared.
    """

    elpd_loo: float
    se: float
    p_loo: float
    elpd_psis: float
    n_battles: int
    n_samples: int
    cells: pd.DataFrame
    values: np.ndarray
    lengths: np.ndarray
    k_threshold: float
    n_high: int
    n_high_cells: int
    method: str
    fallback: str | None
    model: str
    density: str
    data_key: str
    fallback_frame: pd.DataFrame | None = None
    refit_warnings: tuple[str, ...] = ()

    @property
    def max_k(self) -> float:
        """Largest Pareto k̂ over the cells."""
        return float(self.cells["pareto_k"].max())

    @property
    def warning(self) -> bool:
        """True when cells above the threshold were left to PSIS (no fallback)."""
        return self.n_high > 0 and self.fallback is None

    def pointwise(self) -> np.ndarray:
        """The elpd of every battle (length N, cell order): the run-length code expanded."""
        return np.repeat(self.values, self.lengths)

    def _headline(self) -> str:
        note = f"; fallback {self.fallback}" if self.fallback else ""
        return (
            f"{self.model} ({self.method}, {self.density}): elpd_loo {self.elpd_loo:.1f} "
            f"(se {self.se:.1f}), p_loo {self.p_loo:.1f}; {self.n_battles:,} battles in "
            f"{len(self.cells):,} cells; max Pareto k {self.max_k:.2f}, {self.n_high:,} "
            f"battles above {self.k_threshold:g}{note}"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per cell (see :attr:`cells`)."""
        return self.cells

    def to_elpd_data(self) -> az.ELPDData:
        """An ``arviz.ELPDData`` with one ``loo_i`` per battle, for ``az.compare``.

        Only the N pointwise values are expanded (8 bytes per battle), never the data
        or the draws × battles log-likelihood, so ``az.compare`` (stacking weights,
        ``az.plot_compare``) works at the battle level on any arena.
        """
        k = np.repeat(self.cells["pareto_k"].to_numpy(), self.cells["count"].astype(np.int64))
        return az.ELPDData(
            data=[
                self.elpd_loo,
                self.se,
                self.p_loo,
                self.n_samples,
                self.n_battles,
                self.warning,
                xr.DataArray(self.pointwise(), dims="battle", name="loo_i"),
                xr.DataArray(k, dims="battle"),
                "log",
                self.k_threshold,
            ],
            index=[
                "elpd_loo",
                "se",
                "p_loo",
                "n_samples",
                "n_data_points",
                "warning",
                "loo_i",
                "pareto_k",
                "scale",
                "good_k",
            ],
        )


# ------------------------------------------------------------------ the observed cells
@dataclass(frozen=True)
class _Cells:
    kind: str  # "bt" | "davidson"
    spec: ModelSpec
    stats: PairStats
    three_way: bool
    density: str


def _as_spec(spec: Any) -> ModelSpec:
    return spec if isinstance(spec, ModelSpec) else ModelSpec(*spec)


def _resolve(
    spec: Any, data: Battles | PairStats, target: str | np.ndarray | None, ties: Ties
) -> _Cells:
    spec = _as_spec(spec)
    kind = {bt_model: "bt", davidson_model: "davidson"}.get(spec.model)
    if kind is None:
        raise TypeError(
            f"battle_loo knows bt_model and davidson_model (jb.models.bt, soft_bt, "
            f"davidson), not {getattr(spec.model, '__name__', spec.model)}; "
            f"for other per-row log-likelihoods use cell_loo"
        )
    if target is None and isinstance(data, Battles):
        target = "judge_label" if kind == "bt" else "human_label"  # the builders' defaults
    stats = as_pair_stats(data, target, None)[0]
    d = spec.data
    same = (
        len(np.asarray(d["i"])) == stats.n_pairs
        and np.array_equal(np.asarray(d["i"]), stats.i)
        and np.array_equal(np.asarray(d["j"]), stats.j)
    )
    if same and kind == "bt":
        same = np.allclose(np.asarray(d["n"]), stats.n, rtol=1e-5) and np.allclose(
            np.asarray(d["y"]), stats.y, rtol=1e-5, atol=1e-4
        )
    if same and kind == "davidson":
        same = np.allclose(np.asarray(d["counts"]), _davidson_counts(stats, stats.cell_count))
    if not same:
        raise ValueError(
            "the model's data are not these battles' pair statistics: pass the "
            "battles and the target the spec was built from (target=...)"
        )
    hard = bool(np.all(stats.cell_weight == 1) and np.all(np.isin(stats.cell_target, [0, 0.5, 1])))
    tied = hard and bool(np.any(stats.cell_target == 0.5))
    three_way = kind == "bt" and tied and ties == "three_way"
    if kind == "davidson":
        density = "multinomial"
    elif hard and not tied:
        density = "bernoulli"
    else:
        density = "three_way" if three_way else "kernel"
    return _Cells(kind, spec, stats, three_way, density)


def _davidson_counts(stats: PairStats, counts: np.ndarray) -> np.ndarray:
    out = np.zeros((stats.n_pairs, 3))
    np.add.at(out, (stats.cell_pair, (2 - 2 * stats.cell_target).astype(int)), counts)
    return out


def _data_key(stats: PairStats) -> str:
    h = hashlib.sha1()
    for part in (
        np.asarray(stats.models, dtype=str),
        stats.i,
        stats.j,
        stats.cell_pair,
        stats.cell_target,
        stats.cell_weight,
        stats.cell_count,
    ):
        h.update(np.ascontiguousarray(part).tobytes())
    return h.hexdigest()[:16]


def _refit_data(cells: _Cells, counts: np.ndarray) -> dict:
    """The model's keyword data with cell counts ``counts``: same shapes, new values."""
    d = dict(cells.spec.data)

    def like(name: str, x: np.ndarray) -> jnp.ndarray:
        return jnp.asarray(x, dtype=jnp.asarray(d[name]).dtype)

    if cells.kind == "bt":
        n, y = cells.stats.pair_sums(counts)
        d["n"], d["y"] = like("n", n), like("y", np.clip(y, 0.0, n))
    else:
        c3 = _davidson_counts(cells.stats, counts)
        d["n"], d["counts"] = like("n", c3.sum(axis=1)), like("counts", c3)
    return d


# ------------------------------------------------------------ battle-level log-likelihood
def _draws(idata: az.InferenceData, name: str) -> np.ndarray:
    x = np.asarray(idata.posterior[name].values, dtype=float)
    return x.reshape(x.shape[0] * x.shape[1], *x.shape[2:])


def _loglik(
    cells: _Cells,
    idata: az.InferenceData,
    cols: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Kernel (what the fit's density uses) and predictive log-likelihood, ``(S, cols)``."""
    st = cells.stats
    theta = _draws(idata, "theta")
    pair = st.cell_pair[cols]
    ti, tj = theta[:, st.i[pair]], theta[:, st.j[pair]]
    t = st.cell_target[cols]
    if cells.kind == "davidson":
        tie = _draws(idata, "log_nu")[:, None] + 0.5 * (ti + tj)
        chosen = np.where(t == 1, ti, np.where(t == 0, tj, tie))
        ll = chosen - np.logaddexp(np.logaddexp(ti, tj), tie)  # log π_k, Davidson (1970)
        return ll, ll
    pos, neg = log_expit(ti - tj), log_expit(tj - ti)
    kernel = st.cell_weight[cols] * (t * pos + (1 - t) * neg)
    if not cells.three_way:
        return kernel, kernel
    # (p, √(p(1−p)), 1−p) / (1 + √(p(1−p))): Davidson with ν = 1
    return kernel, kernel - np.log1p(np.exp(0.5 * (pos + neg)))


def cell_log_likelihood(
    spec: ModelSpec,
    data: Battles | PairStats,
    idata: az.InferenceData,
    *,
    target: str | np.ndarray | None = None,
    ties: Ties = "three_way",
    predictive: bool = False,
) -> xr.DataArray:
    """Battle-level log-likelihood of every cell at every draw, ``(chain, draw, cell)``.

    One column per cell; the cell's ``count`` (multiplicity) is a coordinate. With
    ``predictive=False`` the values are the terms of the density the model was fitted
    on: ``Σ_c count_c·ll_c`` equals the pair-level log-likelihood summed over pairs (for
    Davidson up to the multinomial coefficient, a constant). ``predictive=True`` gives
    the normalised three-way BT predictive where ``ties="three_way"`` applies (see the
    module docstring). Holds draws × cells numbers: for inspection and small data;
    :func:`battle_loo` works through the cells in blocks.

    Parameters
    ----------
    spec
        The :class:`~judgebayes.bayes.spec.ModelSpec` fitted (``jb.models.bt``,
        ``soft_bt`` or ``davidson``).
    data
        The battles (or pair statistics) the spec was built from.
    idata
        Its fit.
    target
        The target the spec was built with (default: the builder's default,
        ``judge_label`` for BT and ``human_label`` for Davidson); soft BT needs the soft
        targets σ(β·s) themselves.
    ties, predictive
        See above.
    """
    cells = _resolve(spec, data, target, ties)
    st = cells.stats
    kernel, pred = _loglik(cells, idata, np.arange(len(st.cell_pair)))
    post = idata.posterior
    names = np.asarray(st.models, dtype=object)
    values = (pred if predictive else kernel).reshape(post.sizes["chain"], post.sizes["draw"], -1)
    return xr.DataArray(
        values,
        dims=("chain", "draw", "cell"),
        name="log_lik",
        coords={
            "chain": post["chain"].values,
            "draw": post["draw"].values,
            "model_i": ("cell", names[st.i[st.cell_pair]]),
            "model_j": ("cell", names[st.j[st.cell_pair]]),
            "target": ("cell", st.cell_target),
            "weight": ("cell", st.cell_weight),
            "count": ("cell", st.cell_count),
        },
    )


# ------------------------------------------------------------------------------ PSIS
def _psis(
    blocks: Iterator[tuple[np.ndarray, np.ndarray]],
    r_eff: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pareto k̂, lpd and PSIS elpd per column, block by block of ``(kernel, pred)``."""
    ks, lpds, elpds = [], [], []
    for kernel, pred in blocks:
        s = kernel.shape[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # k̂ = inf on a flat tail
            lw, k = az.psislw(-kernel.T, reff=r_eff)  # normalised smoothed log weights
        ks.append(np.asarray(k))
        lpds.append(logsumexp(pred, axis=0) - np.log(s))
        elpds.append(logsumexp(lw + pred.T, axis=1))
    return np.concatenate(ks), np.concatenate(lpds), np.concatenate(elpds)


def _r_eff(idata: az.InferenceData) -> float:
    """Relative efficiency ESS/S, the posterior's mean over parameters (as ``az.loo``)."""
    post = idata.posterior
    if post.sizes["chain"] == 1:
        return 1.0
    ess = az.ess(post, method="mean")
    values = np.concatenate([np.ravel(ess[v].values) for v in ess.data_vars])
    values = values[np.isfinite(values)]
    s = post.sizes["chain"] * post.sizes["draw"]
    return float(np.clip(values.mean() / s, 1e-3, None)) if values.size else 1.0


def _se(values: np.ndarray, lengths: np.ndarray) -> float:
    """√(N·Var_b) of battle-level values given as runs: √(Σ_r len_r (v_r − mean)²)."""
    mean = np.sum(values * lengths) / lengths.sum()
    return float(np.sqrt(np.sum(lengths * (values - mean) ** 2)))


def _summarise(
    values: np.ndarray,
    lengths: np.ndarray,
    lpd: float,
    **fields: Any,
) -> dict[str, Any]:
    lengths = np.asarray(np.round(lengths), dtype=np.int64)
    elpd = float(np.sum(values * lengths))
    return {
        "elpd_loo": elpd,
        "se": _se(values, lengths),
        "p_loo": lpd - elpd,
        "values": np.asarray(values, dtype=float),
        "lengths": lengths,
        **fields,
    }


def cell_loo(
    log_lik: np.ndarray | xr.DataArray,
    counts: np.ndarray | None = None,
    *,
    k_threshold: float = 0.7,
    r_eff: float = 1.0,
    model: str = "cells",
    density: str = "density",
    data_key: str | None = None,
) -> BattleLOO:
    """PSIS-LOO over rows grouped into cells of identical rows, without a model.

    Parameters
    ----------
    log_lik
        Log-likelihood ``(chain, draw, cell)`` of one row of each cell, e.g. a per-item
        ``log_likelihood`` variable (``counts`` all 1) such as the calibration designs'
        ``item``, or a cell-level one with the cells' multiplicities.
    counts
        Rows per cell (default 1).
    k_threshold
        Pareto-k̂ threshold reported (no fallback: there is no model to refit).
    r_eff
        Relative efficiency ESS/S of the draws.
    model, density, data_key
        Labels for :func:`compare_loo` (``data_key`` defaults to a hash of the counts).
    """
    ll = np.asarray(log_lik, dtype=float)
    ll = ll.reshape(ll.shape[0] * ll.shape[1], -1)
    counts = np.ones(ll.shape[1]) if counts is None else np.asarray(counts, dtype=float)
    k, lpd, elpd = _psis(iter([(ll, ll)]), r_eff)
    frame = pd.DataFrame(
        {"count": counts, "pareto_k": k, "lpd": lpd, "elpd_psis": elpd, "elpd": elpd}
    )
    high = k > k_threshold
    key = data_key or hashlib.sha1(counts.tobytes()).hexdigest()[:16]
    return BattleLOO(
        **_summarise(
            elpd, counts, float(np.sum(counts * lpd)), elpd_psis=float(np.sum(counts * elpd))
        ),
        n_battles=int(counts.sum()),
        n_samples=ll.shape[0],
        cells=frame,
        k_threshold=k_threshold,
        n_high=int(counts[high].sum()),
        n_high_cells=int(high.sum()),
        method="psis",
        fallback=None,
        model=model,
        density=density,
        data_key=key,
    )


# ------------------------------------------------------------------------ fallbacks
def _refit_settings(idata: az.InferenceData, refit: Mapping[str, Any] | None) -> dict:
    post = idata.posterior
    method = {"map+laplace": "map"}.get(
        post.attrs.get("inference", "nuts"), post.attrs.get("inference", "nuts")
    )
    kw: dict[str, Any] = {"method": method, "progress": False}
    if method == "nuts":
        kw.update(chains=post.sizes["chain"], draws=post.sizes["draw"], warmup=post.sizes["draw"])
    else:
        kw.update(draws=post.sizes["chain"] * post.sizes["draw"])
    return {**kw, **(refit or {})}


def _refits(
    cells: _Cells, removals: np.ndarray, settings: dict, seed: int, progress: bool, label: str
) -> tuple[list[np.ndarray], tuple[str, ...]]:
    """Refit once per row of ``removals`` (battles removed per cell); per refit the
    log mean predictive density of one battle of every cell, ``(n_cells,)``."""
    spec = cells.spec
    everything = np.arange(len(cells.stats.cell_pair))
    out, caught = [], []
    for r, removed in enumerate(tqdm(removals, desc=label, disable=not progress)):
        data = _refit_data(cells, cells.stats.cell_count - removed)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            post = fit(
                spec.model, data, spec.coords, spec.dims, **{**settings, "seed": seed + 1 + r}
            )
        caught += [f"{x.category.__name__}: {x.message}" for x in w]
        pred = _loglik(cells, post, everything)[1]
        out.append(logsumexp(pred, axis=0) - np.log(pred.shape[0]))
    return out, tuple(dict.fromkeys(caught))


def battle_loo(
    spec: ModelSpec,
    data: Battles | PairStats,
    idata: az.InferenceData,
    *,
    target: str | np.ndarray | None = None,
    k_threshold: float = 0.7,
    fallback: Fallback = "auto",
    folds: int = 10,
    max_refits: int | None = None,
    ties: Ties = "three_way",
    refit: Mapping[str, Any] | None = None,
    seed: int = 0,
    progress: bool = False,
) -> BattleLOO:
    """PSIS-LOO with one battle left out at a time, from the pair statistics.

    PSIS runs once per cell (battles sharing pair, target and weight; see the module
    docstring) on the battle-level log-likelihood, which is computed from the posterior
    draws of θ (and ν) per pair, so memory and time scale with cells, not battles.
    Cells whose Pareto k̂ exceeds ``k_threshold`` are re-done by the ``fallback``:

    * ``"refit"``: exact LOO for each such cell: the posterior refitted without one of
      its battles (its count lowered by one; the compiled sampler is reused because the
      shapes do not change) and log p(y_b | y_−b) = log mean_s p(y_b | θ_s);
    * ``"kfold"``: K-fold CV by battles for the whole data set (``folds`` refits, each
      without a random 1/K of the battles; Vehtari, Gelman & Gabry 2017, Sect. 4.2);
    * ``"auto"``: ``"refit"`` if at most ``max_refits`` (default ``folds``) cells are
      high, else ``"kfold"``; ``None``: report only.

    Brute-force LOO over every battle is ``k_threshold=-inf, fallback="refit"`` (one
    refit per cell, exact for all its battles).

    Parameters
    ----------
    spec
        ``jb.models.bt(...)``, ``jb.models.soft_bt(...)`` or ``jb.models.davidson(...)``.
    data
        The battles (or pair statistics) the spec was built from.
    idata
        Its fit by :func:`judgebayes.fit` (NUTS, MAP/Laplace or ADVI).
    target
        The spec's target (default: the builder's default); for ``soft_bt`` the soft
        targets σ(β·s).
    k_threshold, fallback, folds, max_refits
        See above.
    ties
        BT with ties counted ½: ``"three_way"`` predicts with the normalised
        win/tie/loss distribution (comparable with Davidson), ``"kernel"`` with the
        fitted kernel.
    refit
        Keyword arguments of :func:`judgebayes.fit` for the refits; default: the
        method, chains and draws of ``idata`` and as many warm-up iterations as draws.
    seed
        Seed of the refits (``seed + 1 + r``) and of the K-fold split.
    progress
        Show a progress bar over the refits.

    Returns
    -------
    BattleLOO
    """
    cells = _resolve(spec, data, target, ties)
    st = cells.stats
    counts = st.cell_count
    n_samples = idata.posterior.sizes["chain"] * idata.posterior.sizes["draw"]
    blocks = np.array_split(np.arange(len(counts)), -(-len(counts) * n_samples // _CHUNK))
    k, lpd, elpd = _psis((_loglik(cells, idata, b) for b in blocks), _r_eff(idata))
    high = k > k_threshold
    names = np.asarray(st.models, dtype=object)
    frame = pd.DataFrame(
        {
            "model_i": names[st.i[st.cell_pair]],
            "model_j": names[st.j[st.cell_pair]],
            "target": st.cell_target,
            "weight": st.cell_weight,
            "count": counts,
            "pareto_k": k,
            "lpd": lpd,
            "elpd_psis": elpd,
            "elpd": elpd,
        }
    )
    common = {
        "elpd_psis": float(np.sum(counts * elpd)),
        "n_battles": st.n_battles,
        "n_samples": n_samples,
        "k_threshold": k_threshold,
        "n_high": int(counts[high].sum()),
        "n_high_cells": int(high.sum()),
        "model": cells.spec.model.__name__,
        "density": cells.density,
        "data_key": _data_key(st),
    }
    total_lpd = float(np.sum(counts * lpd))
    if fallback == "auto":
        fallback = (
            "refit" if high.sum() <= (folds if max_refits is None else max_refits) else "kfold"
        )
    if fallback not in ("refit", "kfold", None):
        raise ValueError(f"fallback must be 'auto', 'refit', 'kfold' or None, got {fallback!r}")
    if fallback == "kfold" and not 2 <= folds <= st.n_battles:
        raise ValueError(f"folds must be between 2 and the number of battles, got {folds}")
    if fallback is None or not high.any():
        return BattleLOO(
            cells=frame,
            **common,
            method="psis",
            fallback=None,
            **_summarise(elpd, counts, total_lpd),
        )
    settings = _refit_settings(idata, refit)
    if fallback == "refit":
        idx = np.flatnonzero(high)
        removals = np.zeros((len(idx), len(counts)))
        removals[np.arange(len(idx)), idx] = 1
        preds, caught = _refits(cells, removals, settings, seed, progress, "exact LOO refits")
        exact = np.array([p[c] for p, c in zip(preds, idx, strict=True)])
        final = elpd.copy()
        final[idx] = exact
        frame["elpd"] = final
        extra = pd.DataFrame(
            {"cell": idx, "pareto_k": k[idx], "elpd_psis": elpd[idx], "elpd_exact": exact}
        )
        return BattleLOO(
            cells=frame,
            **common,
            method="psis+refit",
            fallback="refit",
            fallback_frame=extra,
            refit_warnings=caught,
            **_summarise(final, counts, total_lpd),
        )
    # K-fold by battles: battle b (cells in order, count_c battles each) goes to fold f_b
    n = st.n_battles
    cell_of = np.repeat(np.arange(len(counts)), counts.astype(np.int64))
    fold = np.empty(n, dtype=np.int64)
    fold[np.random.default_rng(seed).permutation(n)] = np.arange(n) % folds
    fold_counts = np.zeros((folds, len(counts)))
    np.add.at(fold_counts, (fold, cell_of), 1)
    preds, caught = _refits(cells, fold_counts, settings, seed, progress, "K-fold refits")
    pred = np.stack(preds)  # (fold, cell)
    runs = fold_counts.T > 0  # cell-major: each cell's battles, fold by fold
    values, lengths = pred.T[runs], fold_counts.T[runs]
    frame["elpd"] = np.sum(fold_counts * pred, axis=0) / counts
    extra = pd.DataFrame(
        {
            "fold": np.arange(folds),
            "n_battles": fold_counts.sum(axis=1),
            "elpd": np.sum(fold_counts * pred, axis=1),
        }
    )
    return BattleLOO(
        cells=frame,
        **common,
        method="kfold",
        fallback="kfold",
        fallback_frame=extra,
        refit_warnings=caught,
        **_summarise(values, lengths, total_lpd),
    )


# ----------------------------------------------------------------------- comparison
def compare_loo(fits: Mapping[str, BattleLOO], *, check: bool = True) -> pd.DataFrame:
    """Rank models by battle-level elpd, as ``az.compare`` does, with paired SEs.

    ``elpd_diff`` is each model's elpd below the best one's and ``dse`` the standard error
    of that difference, √(N·Var_b(elpd_b,best − elpd_b,model)) over the N battles
    (Vehtari, Gelman & Gabry 2017, Eq. 24): the battle-level pointwise values are
    aligned run by run (all battles of a cell share one value, or one per fold), so
    nothing is expanded. For stacking weights use ``az.compare({name:
    fit.to_elpd_data()})``.

    Parameters
    ----------
    fits
        Model name -> :class:`BattleLOO` (or :func:`cell_loo`) of the *same* battles.
    check
        Refuse fits of different data (``data_key``) or a generalised-likelihood score
        beside a normalised density (``density="kernel"`` among others): such elpds are
        not on one scale.

    Returns
    -------
    pandas.DataFrame
        ``rank, elpd_loo, p_loo, elpd_diff, se, dse, warning, method, density``, best
        first.
    """
    if not fits:
        raise ValueError("nothing to compare")
    items = list(fits.items())
    if check:
        if len({f.data_key for _, f in items}) > 1:
            raise ValueError(
                "these fits are of different data (battles or targets): their "
                "elpds are not comparable"
            )
        if len({f.density in _NORMALISED for _, f in items}) > 1:
            raise ValueError(
                "a generalised-likelihood score (density='kernel': soft targets, "
                "weights, or BT ties as ½ with ties='kernel') is not on the scale "
                "of a normalised density; use ties='three_way' for BT with ties"
            )
    ends = np.unique(np.concatenate([np.cumsum(f.lengths) for _, f in items]))
    seg = np.diff(np.r_[0.0, ends])
    aligned = {name: f.values[np.searchsorted(np.cumsum(f.lengths), ends)] for name, f in items}
    order = sorted(fits, key=lambda name: -fits[name].elpd_loo)
    best = aligned[order[0]]
    rows = []
    for rank, name in enumerate(order):
        f = fits[name]
        rows.append(
            {
                "rank": rank,
                "elpd_loo": f.elpd_loo,
                "p_loo": f.p_loo,
                "elpd_diff": fits[order[0]].elpd_loo - f.elpd_loo,
                "se": f.se,
                "dse": _se(best - aligned[name], seg) if rank else 0.0,
                "warning": f.warning,
                "method": f.method,
                "density": f.density,
            }
        )
    return pd.DataFrame(rows, index=pd.Index(order, name="model"))
