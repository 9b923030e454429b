"""Battle-level PSIS-LOO from pair statistics (judgebayes.bayes.battle_loo).

One small arena serves every test: 4 simulated models with many ties (Davidson ν = 3)
and a fifth model with a single battle (a win), whose cell is the high-Pareto-k̂ case.
The brute-force reference refits the posterior without each cell's battle (one NUTS run
per cell, the data arrays built here by hand) and averages the predictive probability.
"""

from __future__ import annotations

import warnings

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import numpyro.distributions as dist
import pandas as pd
import pytest
from scipy.special import expit

import judgebayes as jb
from judgebayes.bayes import SoftBinomial
from judgebayes.bayes.battle_loo import (
    battle_loo,
    cell_log_likelihood,
    cell_loo,
    compare_loo,
)

NUTS = {"chains": 2, "draws": 500, "warmup": 500, "progress": False}


@pytest.fixture(scope="module")
def battles() -> jb.Battles:
    frame = jb.simulate_bt(4, 76, tie_nu=3.0, seed=3).battles.frame
    lone = pd.DataFrame({"model_a": ["model-Z"], "model_b": ["model-0"], "human_label": [1.0]})
    return jb.Battles(
        pd.concat([frame[["model_a", "model_b", "human_label"]], lone], ignore_index=True)
    )


@pytest.fixture(scope="module")
def bt_fit(battles: jb.Battles) -> tuple[jb.ModelSpec, az.InferenceData]:
    spec = jb.models.bt(battles, "human_label")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.SamplerWarning)
        return spec, jb.fit(spec, seed=0, **NUTS)


@pytest.fixture(scope="module")
def brute_force(battles: jb.Battles, bt_fit: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Exact log p(y_b | y_−b) per cell (one NUTS refit each) and its Monte Carlo SE."""
    spec, _ = bt_fit
    stats = battles.pair_stats("human_label")
    n0, y0 = (np.asarray(spec.data[k], dtype=float) for k in ("n", "y"))
    values, ses = [], []
    for c in range(len(stats.cell_pair)):
        p, t = stats.cell_pair[c], stats.cell_target[c]
        n, y = n0.copy(), y0.copy()
        n[p] -= 1
        y[p] -= t
        data = {**spec.data, "n": jnp.asarray(n, jnp.float32), "y": jnp.asarray(y, jnp.float32)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jb.SamplerWarning)
            post = jb.fit(spec.model, data, seed=100 + c, **NUTS).posterior["theta"].values
        win = expit(post[..., stats.i[p]] - post[..., stats.j[p]])
        tie = np.sqrt(win * (1 - win))
        # three-way BT predictive: (p, √(p(1−p)), 1 − p) / (1 + √(p(1−p)))
        prob = {1.0: win, 0.5: tie, 0.0: 1 - win}[float(t)] / (1 + tie)
        ess = float(az.ess(prob))
        values.append(np.log(prob.mean()))
        ses.append(prob.std() / prob.mean() / np.sqrt(ess))  # delta method
    return np.array(values), np.array(ses)


def _fake_posterior(n_models: int, *, log_nu: bool = False, seed: int = 0) -> az.InferenceData:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, (2, 40, n_models))
    post = {"theta": theta - theta.mean(-1, keepdims=True)}
    if log_nu:
        post["log_nu"] = rng.normal(0, 0.5, (2, 40))
    return az.from_dict(posterior=post)


def test_battle_level_terms_sum_to_the_pair_level_density(battles: jb.Battles) -> None:
    """Σ_c count_c·ll_c is the model's own pair-level log-likelihood, draw by draw."""
    rng = np.random.default_rng(1)
    frame = battles.frame.assign(weight=rng.choice([0.5, 1.0, 2.0], len(battles)))
    soft = jb.Battles(frame)
    target = rng.uniform(0, 1, len(battles))
    for data, tgt in ((battles, "human_label"), (soft, target)):
        spec = jb.models.bt(data, tgt)
        idata = _fake_posterior(5)
        ll = cell_log_likelihood(spec, data, idata, target=tgt)
        stats = data.pair_stats(tgt)
        by_pair = np.stack(
            [
                (ll * ll["count"]).values[..., stats.cell_pair == p].sum(-1)
                for p in range(stats.n_pairs)
            ],
            axis=-1,
        )
        with jax.enable_x64(True):
            theta = jnp.asarray(idata.posterior["theta"].values, jnp.float64)
            d = theta[..., stats.i] - theta[..., stats.j]
            ref = SoftBinomial(jnp.asarray(stats.n), d).log_prob(jnp.asarray(stats.y))
        np.testing.assert_allclose(by_pair, np.asarray(ref), rtol=1e-9, atol=1e-6)
    # Davidson: the same up to the multinomial coefficient (constant in the parameters)
    spec = jb.models.davidson(battles, "human_label")
    idata = _fake_posterior(5, log_nu=True)
    ll = cell_log_likelihood(spec, battles, idata)
    total = (ll * ll["count"]).sum("cell").values
    with jax.enable_x64(True):
        theta = jnp.asarray(idata.posterior["theta"].values, jnp.float64)
        lnu = jnp.asarray(idata.posterior["log_nu"].values, jnp.float64)[..., None]
        ti, tj = theta[..., spec.data["i"]], theta[..., spec.data["j"]]
        logits = jnp.stack([ti, lnu + 0.5 * (ti + tj), tj], axis=-1)
        counts = jnp.asarray(np.asarray(spec.data["counts"]), jnp.float64)
        ref = dist.Multinomial(counts.sum(-1), logits=logits).log_prob(counts).sum(-1)
        coef = jax.scipy.special.gammaln(counts.sum(-1) + 1) - jax.scipy.special.gammaln(
            counts + 1
        ).sum(-1)
        ref = np.asarray(ref - coef.sum())
    np.testing.assert_allclose(total, ref, rtol=1e-9, atol=1e-6)


def test_three_way_bt_predictive_is_davidson_with_nu_one(battles: jb.Battles) -> None:
    idata = _fake_posterior(5, log_nu=True)
    idata.posterior["log_nu"] = idata.posterior["log_nu"] * 0.0
    bt = cell_log_likelihood(
        jb.models.bt(battles, "human_label"), battles, idata, target="human_label", predictive=True
    )
    dav = cell_log_likelihood(jb.models.davidson(battles, "human_label"), battles, idata)
    np.testing.assert_allclose(bt.values, dav.values, atol=1e-12)
    kernel = cell_log_likelihood(
        jb.models.bt(battles, "human_label"), battles, idata, target="human_label"
    )
    assert np.all(kernel.values > bt.values)  # the kernel is not normalised over 3 outcomes


def test_matches_az_loo_on_the_expanded_battle_log_likelihood(
    battles: jb.Battles, bt_fit: tuple
) -> None:
    """Option (b): az.loo on the per-battle expanded log-lik gives the same numbers."""
    spec, idata = bt_fit
    res = battle_loo(spec, battles, idata, target="human_label", ties="kernel", fallback=None)
    ll = cell_log_likelihood(spec, battles, idata, target="human_label")
    rows = np.repeat(np.arange(ll.sizes["cell"]), ll["count"].values.astype(int))
    expanded = idata.copy()
    del expanded.log_likelihood
    expanded.add_groups(log_likelihood={"y": ll.values[..., rows]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the high-k̂ lone battle
        ref = az.loo(expanded, pointwise=True)
    assert res.elpd_loo == pytest.approx(ref.elpd_loo, abs=1e-8)
    assert res.se == pytest.approx(ref.se, abs=1e-8)
    assert res.p_loo == pytest.approx(ref.p_loo, abs=1e-8)
    np.testing.assert_allclose(res.pointwise(), ref.loo_i.values, atol=1e-10)
    np.testing.assert_allclose(
        np.repeat(res.cells["pareto_k"], res.lengths), ref.pareto_k.values, atol=1e-10
    )
    # cell_loo on the same cells, and on the expanded rows, agrees too
    assert cell_loo(ll, ll["count"].values, r_eff=1.0).elpd_loo == pytest.approx(
        cell_loo(ll.values[..., rows], r_eff=1.0).elpd_loo, abs=1e-8
    )


def test_psis_agrees_with_brute_force_and_the_lone_battle_is_refitted(
    battles: jb.Battles, bt_fit: tuple, brute_force: tuple
) -> None:
    spec, idata = bt_fit
    exact, mc_se = brute_force
    res = battle_loo(spec, battles, idata, target="human_label", fallback="refit", seed=5)
    cells = res.cells
    lone = int(np.flatnonzero(cells["model_j"] == "model-Z")[0])
    # the lone battle's posterior is far from its leave-one-out posterior: PSIS fails
    assert cells["pareto_k"][lone] > 0.7
    assert res.n_high == res.n_high_cells == 1 and res.method == "psis+refit"
    assert list(res.fallback_frame["cell"]) == [lone]
    assert "psis+refit" in repr(res) and not res.warning
    ok = cells["pareto_k"].to_numpy() <= 0.7
    # Pointwise: both estimates carry Monte Carlo error of about the brute force's
    # (delta-method SE from its ESS); allow 4·√2 of it, plus 0.01 for PSIS's small bias.
    tol = 4 * np.sqrt(2) * mc_se + 0.01
    assert np.all(np.abs(cells["elpd"] - exact) <= tol)
    # the sum: refits are independent, so the SEs add in quadrature with multiplicities
    counts = cells["count"].to_numpy()
    total_tol = 4 * np.sqrt(2) * np.sqrt(np.sum((counts * mc_se) ** 2)) + 0.01 * ok.sum()
    assert abs(res.elpd_loo - np.sum(counts * exact)) <= total_tol
    gap = np.abs(cells["elpd"] - exact).to_numpy()
    print(
        f"\nPSIS(+refit) vs brute force: elpd {res.elpd_loo:.3f} vs {np.sum(counts * exact):.3f}"
        f" (tol {total_tol:.3f}); PSIS cells max |Δ| {gap[ok].max():.4f}, max |Δ|/tol "
        f"{np.max(gap[ok] / tol[ok]):.2f}; refitted cell |Δ| {gap[~ok].max():.4f}, "
        f"/tol {np.max(gap[~ok] / tol[~ok]):.2f}; PSIS alone "
        f"{res.elpd_psis:.3f}"
    )


def test_kfold_fallback_runs_automatically_and_is_reported(
    battles: jb.Battles, bt_fit: tuple, brute_force: tuple
) -> None:
    spec, idata = bt_fit
    res = battle_loo(spec, battles, idata, target="human_label", folds=5, max_refits=0, seed=2)
    assert res.fallback == res.method == "kfold" and res.n_high_cells == 1
    assert res.lengths.sum() == res.n_battles == len(battles)
    assert res.fallback_frame["n_battles"].sum() == len(battles)
    assert res.elpd_loo == pytest.approx(res.fallback_frame["elpd"].sum())
    exact = np.sum(res.cells["count"] * brute_force[0])
    assert abs(res.elpd_loo - exact) < res.se  # 5-fold trains on 4/5: close to LOO
    none = battle_loo(spec, battles, idata, target="human_label", fallback=None)
    assert none.warning and none.method == "psis"


def test_compare_picks_davidson_on_data_with_many_ties(battles: jb.Battles, bt_fit: tuple) -> None:
    spec, idata = bt_fit
    dspec = jb.models.davidson(battles, "human_label")
    # MAP + Laplace draws: PSIS needs only draws, and it spares a second NUTS compilation
    didata = jb.fit(dspec, method="map", draws=1000, seed=0)
    fits = {
        "bt": battle_loo(spec, battles, idata, target="human_label", fallback=None),
        "davidson": battle_loo(dspec, battles, didata, fallback=None),
    }
    table = compare_loo(fits)
    assert table.index[0] == "davidson" and table["elpd_diff"]["bt"] > 2 * table["dse"]["bt"]
    ref = az.compare({k: v.to_elpd_data() for k, v in fits.items()})
    assert list(ref.index) == list(table.index)
    np.testing.assert_allclose(ref["dse"], table["dse"], rtol=1e-10)
    np.testing.assert_allclose(ref["elpd_diff"], table["elpd_diff"], rtol=1e-10)
    # the ½-tie kernel would have "won" for free, so compare refuses it beside a density
    kernel = battle_loo(spec, battles, idata, target="human_label", ties="kernel", fallback=None)
    assert kernel.elpd_loo > fits["davidson"].elpd_loo
    with pytest.raises(ValueError, match="normalised density"):
        compare_loo({"kernel": kernel, "davidson": fits["davidson"]})
    with pytest.raises(ValueError, match="different data"):
        compare_loo({"a": fits["bt"], "b": cell_loo(np.zeros((1, 4, 3)))})
    with pytest.raises(ValueError, match="not these battles"):
        battle_loo(spec, battles, idata, target=np.full(len(battles), 0.5))
