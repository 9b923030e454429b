"""Prior and posterior predictive checks of every model in the catalogue.

Every builder's spec (BT hard and soft, Davidson, the temperature model of the
β-posterior Soft-Elo, multi-judge and the consensus model, judge discrimination,
matchup Dirichlet, every calibration design, the anchors' ordered-logistic model, also
padded) goes through ``jb.prior_predictive`` and ``jb.posterior_predictive`` into
``az.plot_ppc``. Then one property per model class that a check must get right:
closed forms of the priors (the Elo spread of a zero-sum Normal, the Beta-binomial
margins of a Dirichlet–multinomial, the judge-positive rate of the calibration designs,
the human-agreement rate of the temperature prior, the mirror symmetry of the verdict
prior) and posterior predictive p-values of MAP fits that stay moderate on well-specified
simulations and are tiny where the model is wrong (an intransitive pair, a shared
calibration for two different judges).

Cost: compilation dominates. The predictive checks compile one program per data set
(``bayes.engine.predict``; here two per spec, the prior and the posterior from the
prior's draws); the MAP fits of the calibration designs and of the anchors model, and
the β-posterior Soft-Elo (NUTS), are marked ``slow``.

Tolerances are Monte Carlo: with D = 500 draws a mean's error is its SD/√D; every bound
is at least 3 such errors (most 4 or more) away from the closed form. All draws are
seeded, so the outcome is deterministic.
"""

from __future__ import annotations

import warnings

import arviz as az
import jax
import matplotlib
import numpy as np
import numpyro
import numpyro.distributions as dist
import pandas as pd
import pytest
from numpyro.infer import Predictive
from scipy import integrate
from scipy import stats as st
from scipy.special import expit, logit

import judgebayes as jb
from _jax_events import compile_events
from judgebayes.anchors import ordered_logistic_spec, simulate_verdicts
from judgebayes.bayes.engine import predict
from judgebayes.bayes.engine.sites import data_sites
from judgebayes.bayes.inference import fit
from judgebayes.bayes.predictive import bayesian_pvalues, plot_statistic, predictive_statistic
from judgebayes.calibration.designs import DESIGNS

matplotlib.use("Agg")
import matplotlib.pyplot as plt

D = 500  # draws everywhere: one data shape per model, so JAX compiles each sampler once
ELO_PER_LOGIT = 400 / np.log(10)
OWN = {"judge-1": "model-2"}


def _consistency_battles() -> jb.Battles:
    models = [f"m{i}" for i in range(4)]
    rng = np.random.default_rng(0)
    rows = [
        (j, a, b, rng.integers(0, 3) / 2, rng.choice(["a", "b"]))
        for j in ("J1", "J2")
        for a in models
        for b in models
        if a != b
        for _ in range(5)
    ]
    return jb.Battles(
        pd.DataFrame(rows, columns=["judge", "model_a", "model_b", "judge_label", "position"])
    )


@pytest.fixture(scope="module")
def bt_battles() -> jb.Battles:
    return jb.simulate_bt(5, 1500, tie_nu=0.6, seed=11).battles


@pytest.fixture(scope="module")
def arena() -> jb.Battles:
    return jb.simulate_arena(n_models=5, n_battles=1500, seed=3).battles


@pytest.fixture(scope="module")
def items() -> jb.JudgedItems:
    """Two models judged by very different judges (q0, q1 = 0.95, 0.9 and 0.6, 0.65)."""
    return jb.calibration.simulate_items(
        [0.7, 0.6], [0.95, 0.6], [0.9, 0.65], n_cal=200, n_test=100, seed=2
    ).items


@pytest.fixture(scope="module")
def verdicts():
    sim = simulate_verdicts(6, 60, seed=7)
    return sim.table(anchor=sim.anchor_at("median"))


SPECS = [
    "bt",
    "soft_bt",
    "davidson",
    "temperature",
    "multi_judge",
    "consensus",
    "judge_discrimination",
    "matchup_dirichlet",
    *[f"calibration_{d}" for d in DESIGNS],
    "anchors",
    "anchors_padded",
]


@pytest.fixture(scope="module")
def specs(bt_battles, arena, items, verdicts) -> dict[str, jb.ModelSpec]:
    judges = jb.simulate_judges(
        5, 3, 600, psi=[0.7, 1.0, 1.4], eta=[0.0, 1.0, 0.0], own_model=OWN, seed=5
    ).battles
    consistency = _consistency_battles()
    out = {
        "bt": jb.models.bt(bt_battles, "human_label"),
        "soft_bt": jb.models.soft_bt(arena),
        "davidson": jb.models.davidson(bt_battles),
        "temperature": jb.models.temperature(arena),
        "multi_judge": jb.models.multi_judge(judges),
        # the consensus model of jb.consensus.fit_consensus: multi-judge BT with η
        "consensus": jb.models.multi_judge(judges, own_model=OWN),
        "judge_discrimination": jb.models.judge_discrimination(consistency),
        "matchup_dirichlet": jb.models.matchup_dirichlet(consistency),
        "anchors": ordered_logistic_spec(verdicts),
        "anchors_padded": ordered_logistic_spec(verdicts, pad_to=len(verdicts.verdict) + 37),
    }
    for design in DESIGNS:
        out[f"calibration_{design}"] = jb.models.calibration(items, design)
    return out


@pytest.fixture(scope="module")
def priors(specs) -> dict[str, az.InferenceData]:
    return {}


def _prior(specs: dict, priors: dict, name: str) -> az.InferenceData:
    if name not in priors:
        priors[name] = jb.prior_predictive(specs[name], draws=D, seed=0)
    return priors[name]


def _draw_means(group: az.InferenceData | object, var: str) -> np.ndarray:
    x = group[var].values.astype(float)
    return x.reshape(x.shape[0] * x.shape[1], -1).mean(axis=1)


# ------------------------------------------------------------------ every model
@pytest.mark.parametrize("name", SPECS)
def test_predictive_groups_feed_plot_ppc(name: str, specs: dict, priors: dict) -> None:
    spec = specs[name]
    prior = _prior(specs, priors, name)
    assert {"prior", "prior_predictive", "observed_data"} <= set(prior.groups())
    for var, obs in prior.observed_data.data_vars.items():
        sim = prior.prior_predictive[var]
        assert sim.dims == ("chain", "draw", *obs.dims) and sim.shape == (1, D, *obs.shape)
    for var, dims in spec.dims.items():
        if var in prior.prior:
            assert prior.prior[var].dims[2:] == tuple(dims)
        elif var in prior.observed_data:
            assert prior.observed_data[var].dims == tuple(dims)

    # The prior's draws taken as a posterior: each draw replicates the data once, so the
    # posterior predictive has the prior predictive's distribution (per-draw data means
    # agree in mean, within 4 Monte Carlo errors of the paired difference, and in SD).
    post = jb.posterior_predictive(spec, az.InferenceData(posterior=prior.prior), seed=1)
    assert {"posterior", "posterior_predictive", "observed_data"} <= set(post.groups())
    for var in prior.observed_data.data_vars:
        assert post.posterior_predictive[var].dims == prior.prior_predictive[var].dims
        a, b = _draw_means(prior.prior_predictive, var), _draw_means(post.posterior_predictive, var)
        assert abs(a.mean() - b.mean()) <= 4 * (a - b).std() / np.sqrt(D) + 1e-12
        assert 0.8 < (b.std() + 1e-12) / (a.std() + 1e-12) < 1.25
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # KDE of near-constant draws
        assert (
            az.plot_ppc(prior, group="prior", observed=True, num_pp_samples=20, random_seed=0)
            is not None
        )
        assert az.plot_ppc(post, num_pp_samples=20, random_seed=0) is not None
    plt.close("all")


# --------------------------------------------------------------- Bradley–Terry
def test_bt_prior_on_the_elo_scale(specs: dict, priors: dict) -> None:
    """Zero-sum Normal(σ = 1/√(2λ)) over m models: each θ has SD σ√((m−1)/m), a gap
    θ_i − θ_j has SD σ√2. With seed 000's λ = 0.01 (σ ≈ 7.1) the Elo SD is ≈ 1,100 and
    only P(|gap| < logit 0.9) ≈ 17 % of prior pairs have a win probability in (0.1, 0.9):
    the default prior is nearly flat on any plausible Elo scale."""
    spec, prior = specs["bt"], _prior(specs, priors, "bt")
    sigma, m = spec.data["prior_sd"], spec.data["n_models"]
    elo = prior.prior["elo"].values.reshape(D, m)
    expected_sd = ELO_PER_LOGIT * sigma * np.sqrt((m - 1) / m)
    # SD of an SD estimate from D draws: ≈ SD/√(2D) = 3.2 % per model; bound 6 % on 5.
    assert np.mean(elo.std(axis=0)) == pytest.approx(expected_sd, rel=0.06)
    theta = prior.prior["theta"].values.reshape(D, m)
    i, j = np.asarray(spec.data["i"]), np.asarray(spec.data["j"])
    p = expit(theta[:, i] - theta[:, j])
    competitive = 2 * st.norm.cdf(logit(0.9) / (sigma * np.sqrt(2))) - 1
    assert competitive == pytest.approx(0.174, abs=0.001)
    assert np.mean((p > 0.1) & (p < 0.9)) == pytest.approx(competitive, abs=0.03)
    # The simulated win rates follow: far more lopsided pairs than the observed ones.
    n = np.asarray(spec.data["n"])
    rate = prior.prior_predictive["y"].values.reshape(D, -1) / n
    observed = prior.observed_data["y"].values / n
    assert np.mean((rate < 0.1) | (rate > 0.9)) > 0.6 > np.mean((observed < 0.1) | (observed > 0.9))


def _win_rate_pvalues(spec: jb.ModelSpec) -> pd.DataFrame:
    fit = jb.fit(spec, method="map", draws=D, seed=1)
    pp = jb.posterior_predictive(spec, fit, seed=2)
    n = np.asarray(spec.data["n"])
    return bayesian_pvalues(
        predictive_statistic(pp, lambda y: y / n, name="win_rate", dims=["pair"])
    )


def test_bt_posterior_reproduces_win_rates_and_flags_an_intransitive_pair(
    specs: dict, bt_battles: jb.Battles
) -> None:
    """Per-pair win rates of a MAP fit (~150 battles a pair): on data from the model no
    two-sided p-value is below 0.01 (10 pairs); with model-0's results against model-1
    flipped (a cycle BT cannot represent) that pair's p-value is < 0.001."""
    good = _win_rate_pvalues(specs["bt"])
    assert len(good) == 10 and good["p_value"].min() > 0.01
    f = bt_battles.frame.copy()
    pair = f["model_a"].isin(["model-0", "model-1"]) & f["model_b"].isin(["model-0", "model-1"])
    f.loc[pair, "human_label"] = 1 - f.loc[pair, "human_label"]
    spec = jb.models.bt(jb.Battles(f), "human_label")
    bad = _win_rate_pvalues(spec)
    worst = bad.loc[bad["p_value"].idxmin()]
    i, j = np.asarray(spec.data["i"]), np.asarray(spec.data["j"])
    assert worst["p_value"] < 0.001
    assert {i[int(worst["pair"])], j[int(worst["pair"])]} == {0, 1}  # the flipped pair


def test_soft_targets_are_less_dispersed_than_binomial_replicates(specs: dict) -> None:
    """Soft-Elo's generalised likelihood replicates Binomial wins, but a pair's summed soft
    targets σ(β s) vary less than n Bernoulli draws: the standardised residuals of the
    per-pair rates have an RMS well below 1 (it would be ≈ 1 for hard labels). A
    posterior predictive check of Soft-Elo shows observed rates too central, p ≈ 1."""
    spec = specs["soft_bt"]
    fit = jb.fit(spec, method="map", draws=D, seed=1)
    pp = jb.posterior_predictive(spec, fit, seed=2)
    n = np.asarray(spec.data["n"])
    rep = pp.posterior_predictive["y"].values.reshape(D, -1) / n
    z = (pp.observed_data["y"].values / n - rep.mean(axis=0)) / rep.std(axis=0)
    assert np.sqrt(np.mean(z**2)) < 0.6


def test_davidson_posterior_reproduces_tie_rates(specs: dict) -> None:
    """Ties are ~20 % of each pair (ν = 0.6): the fitted Davidson model's replicated tie
    rates cover every pair's (p > 0.05) and the overall one (p > 0.1)."""
    spec = specs["davidson"]
    fit = jb.fit(spec, method="map", draws=D, seed=1)
    pp = jb.posterior_predictive(spec, fit, seed=2)
    per_pair = bayesian_pvalues(
        predictive_statistic(pp, lambda c: c[:, 1] / c.sum(axis=1), name="tie_rate", dims=["pair"])
    )
    assert per_pair["p_value"].min() > 0.05
    overall = predictive_statistic(pp, lambda c: c[:, 1].sum() / c.sum(), name="tie_rate")
    assert bayesian_pvalues(overall)["p_value"].item() > 0.1
    assert 0.15 < overall.observed_data["tie_rate"].item() < 0.3


# ------------------------------------------------------------- Soft-Elo's β
def test_temperature_prior_and_posterior_agreement_rates(specs: dict, priors: dict) -> None:
    """P(human label = judge's side) under β ~ HalfNormal(2) is E_β[σ(β|s|)] averaged over
    the battles (½ where s = 0), a one-dimensional integral; the fitted β reproduces the
    observed agreement rate (this is the statistic Soft-Elo's β is fitted to)."""
    spec, prior = specs["temperature"], _prior(specs, priors, "temperature")
    s = np.asarray(spec.data["s"])

    def agree(y: np.ndarray) -> np.ndarray:
        return np.mean(y == (s > 0))

    a = np.abs(s[s != 0])
    closed = (
        integrate.quad(lambda b: np.mean(expit(b * a)) * st.halfnorm(scale=2).pdf(b), 0, np.inf)[0]
        * (s != 0).mean()
        + 0.5 * (s == 0).mean()
    )
    sim = predictive_statistic(prior, agree, name="agreement").prior_predictive["agreement"]
    # SD of the per-draw rate over the prior ≈ 0.13: Monte Carlo error 0.006.
    assert float(sim.mean()) == pytest.approx(closed, abs=0.02)
    fit = jb.fit(spec, method="map", draws=D, seed=1)
    pp = predictive_statistic(jb.posterior_predictive(spec, fit, seed=2), agree, name="agreement")
    assert bayesian_pvalues(pp)["p_value"].item() > 0.1
    assert plot_statistic(pp) is not None
    plt.close("all")


@pytest.mark.slow
def test_beta_posterior_soft_elo_feeds_both_checks(arena: jb.Battles) -> None:
    """``soft_elo_posterior`` (β by NUTS, θ | β by Laplace: the cut posterior) holds the
    latent sites of both of its models, so it is checked as it is: β against the human
    labels through ``jb.models.temperature`` (agreement rate, p > 0.05), θ against the
    soft targets through ``jb.models.soft_bt`` at the posterior median β (the extra
    variables of the other model are ignored)."""
    post = jb.soft_elo_posterior(arena, n_draws=200, chains=1, seed=0)
    temperature = jb.models.temperature(arena)
    s = np.asarray(temperature.data["s"])
    check = predictive_statistic(
        jb.posterior_predictive(temperature, post, seed=1),
        lambda y: np.mean(y == (s > 0)),
        name="agreement",
    )
    assert check.posterior_predictive["agreement"].shape == (1, 200, 1)
    assert bayesian_pvalues(check)["p_value"].item() > 0.05
    soft = jb.models.soft_bt(arena, beta=float(post.posterior["beta"].median()))
    pp = jb.posterior_predictive(soft, post, seed=2)
    assert pp.posterior_predictive["y"].shape == (1, 200, len(soft.data["n"]))


# ------------------------------------------------------- multi-judge, consensus
@pytest.mark.parametrize("name", ["multi_judge", "consensus"])
def test_multi_judge_prior_fixes_the_judges_geometric_mean(
    name: str, specs: dict, priors: dict
) -> None:
    """log ψ is zero-sum (geometric-mean discrimination 1) in every draw; θ ~
    ZeroSumNormal(2) gives an Elo SD of 400/ln 10 · 2 · √(4/5) ≈ 311; the consensus
    spec's self-preference term enters only the self-judging judge's own-model cells."""
    spec, prior = specs[name], _prior(specs, priors, name)
    np.testing.assert_allclose(prior.prior["log_psi"].sum("judge"), 0.0, atol=1e-5)
    np.testing.assert_allclose(np.exp(prior.prior["log_psi"]), prior.prior["psi"], rtol=1e-5)
    elo_sd = prior.prior["elo"].values.reshape(D, -1).std(axis=0).mean()
    assert elo_sd == pytest.approx(ELO_PER_LOGIT * 2 * np.sqrt(4 / 5), rel=0.06)
    own_cells = np.asarray(spec.data["self_pref"]) != 0
    assert own_cells.any() == (name == "consensus")
    if name == "consensus":
        assert set(np.asarray(spec.data["judge"])[own_cells]) == {1}


# ------------------------------------------------------------------ consistency
def test_matchup_dirichlet_prior_has_beta_binomial_margins(specs: dict, priors: dict) -> None:
    """π ~ Dirichlet(1, 1, 1) makes each outcome count of a matchup with n contests
    Beta-binomial(n, 1, 2): mean n/3, variance n(n + 3)/18."""
    spec, prior = specs["matchup_dirichlet"], _prior(specs, priors, "matchup_dirichlet")
    n = np.asarray(spec.data["n"], float)
    counts = prior.prior_predictive["counts"].values.reshape(D, *n.shape, 3)
    np.testing.assert_array_equal(counts.sum(axis=-1), np.broadcast_to(n, (D, *n.shape)))
    z = (counts - n[..., None] / 3) / np.sqrt(n * (n + 3) / 18)[..., None]
    # 12 cells × 500 draws (cells independent): mean z within 4/√6,000.
    assert abs(z.mean()) < 4 / np.sqrt(z[..., 0].size)
    assert np.mean(z**2) == pytest.approx(1.0, abs=0.08)


def test_judge_discrimination_prior_favours_neither_position(specs: dict, priors: dict) -> None:
    """The prior of η = ψ(θ_first − θ_second) + γ + o·δ is symmetric (γ ~ N(0, 1), θ
    exchangeable), so wins of the answer shown first and second balance on average;
    Consistency (Eq. 2) of a judge's probabilities is at most 1."""
    spec, prior = specs["judge_discrimination"], _prior(specs, priors, "judge_discrimination")
    counts = prior.prior_predictive["counts"].values.reshape(D, -1, 3)
    np.testing.assert_array_equal(
        counts.sum(axis=-1), np.broadcast_to(np.asarray(spec.data["n"]), counts.shape[:2])
    )
    diff = (counts[..., 0] - counts[..., 2]).sum(axis=1)
    assert abs(diff.mean()) < 4 * diff.std() / np.sqrt(D)
    assert float(prior.prior["consistency"].max()) <= 1.0


# ------------------------------------------------------------------- calibration
@pytest.mark.parametrize("design", [d for d in DESIGNS if not d.startswith("paired")])
def test_calibration_prior_is_centred(design: str, specs: dict, priors: dict) -> None:
    """θ ~ Beta(1, 1) gives P(Z = 1) = ½; the bias a ~ N(0, 1.5) is symmetric, so
    E[q1] + E[1 − q0] = 1 and P(judge positive) = ½ too (for any log DOR)."""
    prior = _prior(specs, priors, f"calibration_{design}")
    for var in ("human_label", "judge_label"):
        rate = _draw_means(prior.prior_predictive, var)
        assert rate.mean() == pytest.approx(0.5, abs=4 * rate.std() / np.sqrt(D))


def _rates_by_class(spec: jb.ModelSpec):
    d = spec.data
    model, z, n_cal = np.asarray(d["model_idx"]), np.asarray(d["human_label"]), d["n_cal"]
    runs, m = np.asarray(d["n_runs"], float), d["n_models"]
    masks = []
    for cls in (1, 0):
        mask = np.zeros(len(model), bool)
        mask[:n_cal] = z == cls
        masks.append(mask)

    def rates(y: np.ndarray) -> np.ndarray:
        return np.concatenate(
            [np.bincount(model[k], y[k], m) / np.bincount(model[k], runs[k], m) for k in masks]
        )

    return rates


@pytest.mark.slow
def test_calibration_check_flags_a_shared_design_for_two_judges(specs: dict) -> None:
    """Judge-positive rates by human class (q1 on Z = 1, 1 − q0 on Z = 0) per model,
    replicating the judge's verdicts given the human labels (``sites=``). The judges
    differ (q0 = 0.95 vs 0.6): the shared design, which pools them, misses model A's
    false-positive rate (p < 0.001); the model-specific design reproduces all (p > 0.05)."""
    labels = ["A|Z=1", "B|Z=1", "A|Z=0", "B|Z=0"]
    out = {}
    for design in ("shared", "model_specific"):
        spec = specs[f"calibration_{design}"]
        fit = jb.fit(spec, method="map", draws=D, seed=1)
        pp = jb.posterior_predictive(spec, fit, sites=["judge_label"], seed=2)
        assert "human_label" not in pp.posterior_predictive
        check = predictive_statistic(
            pp,
            _rates_by_class(spec),
            var="judge_label",
            name="positive_rate",
            dims=["cls"],
            coords={"cls": labels},
        )
        out[design] = bayesian_pvalues(check).set_index("cls")["p_value"]
    assert out["shared"]["A|Z=0"] < 0.001
    assert out["model_specific"].min() > 0.05


# ---------------------------------------------------------------------- anchors
def _levels(v: np.ndarray) -> np.ndarray:
    return np.bincount(v.astype(int).ravel(), minlength=5) / v.size


def test_anchor_verdict_prior_is_mirror_symmetric_and_padding_is_dropped(
    specs: dict, priors: dict
) -> None:
    """Symmetric cut-points, exchangeable θ and a symmetric position bias make
    P(v = c) = P(v = 4 − c) a priori; a padded spec (37 masked rows) keeps only its real
    rows in every group, so its checks equal the unpadded spec's."""
    prior = _prior(specs, priors, "anchors")
    level = predictive_statistic(prior, _levels, name="share", dims=["level"])
    share = level.prior_predictive["share"].values.reshape(D, 5)
    mirror = share - share[:, ::-1]
    assert np.all(np.abs(mirror.mean(axis=0)) <= 4 * mirror.std(axis=0) / np.sqrt(D) + 1e-12)
    padded = _prior(specs, priors, "anchors_padded")
    assert padded.prior_predictive["verdict"].shape == prior.prior_predictive["verdict"].shape
    np.testing.assert_array_equal(padded.observed_data["verdict"], prior.observed_data["verdict"])
    post = jb.posterior_predictive(
        specs["anchors_padded"], az.InferenceData(posterior=padded.prior)
    )
    assert post.observed_data["verdict"].shape == prior.observed_data["verdict"].shape


@pytest.mark.slow
def test_anchor_posterior_reproduces_the_verdict_levels(specs: dict) -> None:
    """The five verdict levels' shares under a MAP fit: every p-value > 0.01."""
    spec = specs["anchors"]
    fit = jb.fit(spec, method="map", draws=D, seed=1)
    check = predictive_statistic(
        jb.posterior_predictive(spec, fit, seed=2), _levels, name="share", dims=["level"]
    )
    assert bayesian_pvalues(check)["p_value"].min() > 0.01


# ------------------------------------------------------------ compiled route
def prior_both_ways(spec: object, seed: int, draws: int) -> tuple:
    """Prior draws of every site by the engine's program and by ``Predictive`` op by op,
    from the same key; also the free data, the data sites, the latent sites and the key."""
    model, data = spec.model, dict(spec.data)
    sites, latent, deterministic = data_sites(model, data)
    free = {k: (None if k in sites else v) for k, v in data.items()}
    names = [*latent, *deterministic, *sites]
    key = jax.random.PRNGKey(seed)
    ours = predict.draw(model, free, key, names, 0, num_samples=draws)
    theirs = Predictive(model, num_samples=draws, return_sites=names, parallel=True)(key, **free)
    return ours, theirs, free, sites, latent, key


def assert_same_draws(ours: dict, theirs: dict) -> None:
    """The same sites, shapes and dtypes; integers equal, floats to float32 rounding."""
    assert set(ours) == set(theirs)
    for k in ours:
        x, y = np.asarray(ours[k]), np.asarray(theirs[k])
        assert x.shape == y.shape and x.dtype == y.dtype
        if np.issubdtype(x.dtype, np.floating):
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name", ["temperature", "davidson", "calibration_shared"])
def test_compiled_route_draws_as_numpyro_op_by_op(name: str, specs: dict) -> None:
    """The engine's program draws what ``Predictive`` draws op by op, for the prior
    (parameters, deterministic sites and the data) and for replicates given draws:
    integer data equal, floating-point values to rounding. Davidson's Multinomial needs
    its counts concrete and the calibration designs' Binomial draws otherwise when they
    are not: the program has the data as constants, so it follows op by op."""
    model = specs[name].model
    ours, theirs, free, sites, latent, key = prior_both_ways(specs[name], 4, 40)
    given = {k: ours[k] for k in latent}
    ours_rep = predict.draw(model, free, key, list(sites), 0, samples=given)
    theirs_rep = Predictive(
        model, posterior_samples=given, return_sites=list(sites), parallel=True
    )(key, **free)
    for a, b in [(ours, theirs), (ours_rep, theirs_rep)]:
        assert_same_draws(a, b)
        for k in sites:
            assert np.asarray(a[k]).std() > 0  # real draws, not a constant


@pytest.mark.parametrize("name", ["bt", "davidson"])
def test_rerunning_a_check_on_the_same_data_compiles_nothing(name: str, specs: dict) -> None:
    """A predictive check re-run on the same data and fit (a notebook cell run again)
    finds its program: nothing is traced or compiled, and it draws the same numbers."""
    spec = specs[name]
    first = jb.prior_predictive(spec, draws=D, seed=0)
    out: list = []
    events = compile_events(lambda: out.append(jb.prior_predictive(spec, draws=D, seed=0)))
    assert not [e for e in events if "backend_compile" in e], events
    for var in first.prior_predictive.data_vars:
        np.testing.assert_array_equal(out[0].prior_predictive[var], first.prior_predictive[var])


# ---------------------------------------------------------------- edge cases
def penalised_model(x: np.ndarray, y: np.ndarray | None = None) -> None:
    mu = numpyro.sample("mu", dist.Normal(0.0, 1.0))
    numpyro.factor("shrink", -0.5 * mu**2)
    with numpyro.plate("obs", len(x)):
        numpyro.sample("y", dist.Normal(mu * x, 1.0), obs=y)


def test_factor_sites_are_not_data() -> None:
    """``numpyro.factor`` records an observed site; it is neither replicated nor stored
    as observed data (by ``fit`` too)."""
    data = {"x": np.linspace(-1, 1, 8), "y": np.linspace(-1, 1, 8)}
    prior = jb.prior_predictive(penalised_model, data, draws=50)
    assert list(prior.prior_predictive.data_vars) == ["y"] == list(prior.observed_data.data_vars)
    assert list(prior.prior.data_vars) == ["mu"]
    idata = fit(penalised_model, data, method="map", draws=20)
    assert list(idata.observed_data.data_vars) == ["y"]  # fit's observed_data


def test_bad_calls_are_explained(specs: dict) -> None:
    def renamed(y_obs: np.ndarray | None = None) -> None:
        numpyro.sample("y", dist.Normal(0.0, 1.0), obs=y_obs)

    with pytest.raises(ValueError, match="not keyword arguments"):
        jb.prior_predictive(renamed, {"y_obs": np.zeros(3)})
    with pytest.raises(TypeError, match="data"):
        jb.prior_predictive(renamed)
    with pytest.raises(ValueError, match="unknown observed site"):
        jb.posterior_predictive(
            specs["bt"],
            az.InferenceData(
                posterior=az.from_dict(posterior={"theta": np.zeros((1, 2, 5))}).posterior
            ),
            sites=["z"],
        )
    with pytest.raises(ValueError, match="cannot also name"):
        predictive_statistic(
            jb.prior_predictive(specs["bt"], draws=D), lambda y: y, name="pair", dims=["pair"]
        )
