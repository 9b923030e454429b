"""Every generative model of the package, bound to its data: one builder per model.

Each builder returns a :class:`~judgebayes.bayes.spec.ModelSpec` — the NumPyro model
function, its keyword data, and the ArviZ ``coords``/``dims`` that name its
dimensions — so that one line fits it and the posterior carries model names::

    import judgebayes as jb
    idata = jb.fit(jb.models.bt(battles, target="judge_label"))
    idata.posterior["elo"].sel(model="gpt-4")

The model functions themselves live with their method (the Bradley–Terry
likelihoods in :mod:`judgebayes.bayes`, the calibration designs in
:mod:`judgebayes.calibration`, the consistency models in
:mod:`judgebayes.consistency`); their model cards are in the repository's
``models/`` folder. Importing this module loads JAX.

The papers the builders follow: Kargi & Salinas, *From Uncertain Judgments to Calibrated
Rankings: Conformal Elo Estimation for LLM Evaluation* (2026, arXiv:2606.13221;
Bradley–Terry, Soft-Elo and its temperature); Fiedler, *Bias and Uncertainty in
LLM-as-a-Judge Estimation* (2026, arXiv:2605.06939; the calibration designs); Ramaswamy,
Demeure & Rrapaj, *Model Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores*
(EMNLP 2025, arXiv:2509.23510; Consistency); Zhang et al., *UDA: Unsupervised Debiasing
Alignment for Pair-wise LLM-as-a-Judge* (2025, arXiv:2508.09724; several judges).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import jax.numpy as jnp
import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes.bayes.bt_models import (
    bt_category_model,
    bt_covariate_model,
    bt_data,
    bt_model,
    bt_prompt_model,
    davidson_data,
    davidson_model,
    prior_sd_from_lam,
)
from judgebayes.bayes.multi_judge import multi_judge_data, multi_judge_model
from judgebayes.bayes.spec import ModelSpec
from judgebayes.calibration.designs import DESIGNS
from judgebayes.calibration.items import JudgedItems
from judgebayes.calibration.paired import PAIRED_DESIGNS, paired_data
from judgebayes.calibration.rows import CalibrationData, calibration_data
from judgebayes.consistency.counts import MatchupCounts
from judgebayes.consistency.model import (
    judge_discrimination_data,
    judge_discrimination_model,
    matchup_dirichlet_data,
    matchup_dirichlet_model,
)
from judgebayes.core.battles import Battles
from judgebayes.core.bt import as_pair_stats
from judgebayes.core.pairs import PairStats
from judgebayes.core.style import StyleReference
from judgebayes.errors import DataError
from judgebayes.rankings.data import RankingData
from judgebayes.rankings.latent import latent_outcome_spec
from judgebayes.softelo.posterior import temperature_data, temperature_model

__all__ = [
    "ModelSpec",
    "bt",
    "calibration",
    "davidson",
    "judge_discrimination",
    "latent_outcome",
    "matchup_dirichlet",
    "multi_judge",
    "soft_bt",
    "temperature",
]

_BT_DIMS = {"theta": ["model"], "elo": ["model"]}


def bt(
    data: Battles | PairStats,
    target: str | np.ndarray | None = "judge_label",
    *,
    lam: float = 0.01,
    prompt_effects: bool = False,
    features: Mapping[str, tuple[str, str]] | None = None,
    reference: StyleReference | None = None,
    lam_style: float = 0.01,
    by: str | None = None,
) -> ModelSpec:
    """Bradley–Terry on per-pair statistics (Kargi & Salinas 2026, Eq. 1): hard, tied or soft
    targets.

    With ``prompt_effects``, style features or ``by``, one of the leaderboard's variants
    (model card ``bt_leaderboard``).

    Parameters
    ----------
    data
        Battles, or pair statistics already aggregated (then ``target`` is ignored).
    target
        A label column (ties count ½) or an array of soft targets P(A beats B).
    lam
        L2 penalty λ of Eq. 1, as the prior σ = 1/√(2λ) of the zero-sum Normal on θ.
    prompt_effects
        Add a prompt random effect (:func:`~judgebayes.bayes.bt_models.bt_prompt_model`;
        battles with ``prompt_id``): the games of one prompt are correlated.
    features, reference, lam_style
        Style control on the battles (:func:`~judgebayes.bayes.bt_models.bt_covariate_model`):
        the features and frozen reference of :func:`judgebayes.style_bt`, and the
        penalty λ_β as the prior σ = 1/√(2λ_β) on each coefficient. Used when either
        ``features`` or ``reference`` is given.
    by
        A category column: per-category strengths, partially pooled
        (:func:`~judgebayes.bayes.bt_models.bt_category_model`). At most one of
        ``prompt_effects``, style control and ``by`` at a time.
    """
    style = features is not None or reference is not None
    if prompt_effects + style + (by is not None) > 1:
        raise ValueError("choose one of prompt_effects, features/reference and by")
    if (prompt_effects or style or by is not None) and not isinstance(data, Battles):
        raise TypeError("prompt effects, style control and categories need the battles")
    if prompt_effects:
        return _bt_prompts(data, target, lam)
    if style:
        return _bt_style(data, target, lam, features, reference, lam_style)
    if by is not None:
        return _bt_categories(data, target, lam, by)
    stats = as_pair_stats(data, target, None)[0]
    return ModelSpec(bt_model, bt_data(stats, lam), {"model": list(stats.models)}, _BT_DIMS)


def _bt_prompts(battles: Battles, target: str | np.ndarray | None, lam: float) -> ModelSpec:
    """:func:`bt` with a prompt random effect: one group per (prompt, pair)."""
    clusters = battles.clusters("prompt_id", target)
    stats = clusters.stats
    n_pc, y_pc = clusters.pair_sums()
    groups = n_pc.tocoo()
    y = np.asarray(y_pc[groups.row, groups.col]).ravel()
    data = {
        "i": jnp.asarray(stats.i),
        "j": jnp.asarray(stats.j),
        "group_pair": jnp.asarray(groups.row),
        "n": jnp.asarray(groups.data),
        "n_models": stats.n_models,
        "prior_sd": prior_sd_from_lam(lam),
        "y": jnp.asarray(y),
    }
    return ModelSpec(bt_prompt_model, data, {"model": list(stats.models)}, _BT_DIMS)


def _bt_style(
    battles: Battles,
    target: str | np.ndarray | None,
    lam: float,
    features: Mapping[str, tuple[str, str]] | None,
    reference: StyleReference | None,
    lam_style: float,
) -> ModelSpec:
    """:func:`bt` with battle covariates, the density of :func:`judgebayes.style_bt`."""
    reference = StyleReference.from_battles(battles, features) if reference is None else reference
    used = battles.used(target)
    a, b = (codes[used.rows] for codes in battles.codes())
    w = np.ones(len(a)) if used.weights is None else used.weights
    data = {
        "a": jnp.asarray(a),
        "b": jnp.asarray(b),
        "n": jnp.asarray(w),
        "x": jnp.asarray(reference.transform(battles)[used.rows]),
        "n_models": len(battles.models),
        "prior_sd": prior_sd_from_lam(lam),
        "prior_sd_beta": prior_sd_from_lam(lam_style),
        "y": jnp.asarray(used.values * w),
    }
    coords = {"model": list(battles.models), "feature": list(reference.names)}
    return ModelSpec(bt_covariate_model, data, coords, {**_BT_DIMS, "beta": ["feature"]})


def _bt_categories(
    battles: Battles, target: str | np.ndarray | None, lam: float, by: str
) -> ModelSpec:
    """:func:`bt` with category offsets: one group per (category, pair)."""
    used = battles.used(target)
    labels = pd.Series(battles.column(by)).to_numpy()[used.rows]
    if pd.isna(labels).any():
        row = int(used.rows[np.flatnonzero(pd.isna(labels))[0]])
        raise DataError("missing category", row=row, column=by, expected="a category name")
    labels = labels.astype(str)
    names = sorted(set(labels))
    a, b = (codes[used.rows] for codes in battles.codes())
    parts = []
    for k, name in enumerate(names):
        mask = labels == name
        w = None if used.weights is None else used.weights[mask]
        stats = PairStats.from_battles(
            a[mask], b[mask], used.values[mask], battles.models, weights=w
        )
        parts.append((stats.i, stats.j, np.full(stats.n_pairs, k), stats.n, stats.y))
    i, j, category, n, y = (np.concatenate(col) for col in zip(*parts, strict=True))
    data = {
        "i": jnp.asarray(i),
        "j": jnp.asarray(j),
        "category": jnp.asarray(category),
        "n": jnp.asarray(n),
        "n_models": len(battles.models),
        "n_categories": len(names),
        "prior_sd": prior_sd_from_lam(lam),
        "y": jnp.asarray(y),
    }
    coords = {"model": list(battles.models), "category": names}
    dims = {**_BT_DIMS, "elo_category": ["category", "model"]}
    return ModelSpec(bt_category_model, data, coords, dims)


def soft_bt(
    battles: Battles,
    beta: float | None = None,
    *,
    score: str = "score_diff",
    human: str = "human_label",
    lam: float = 0.01,
) -> ModelSpec:
    """Soft-Elo: Bradley–Terry on the soft targets σ(β·s) (Kargi & Salinas 2026, Eq. 1 with
    Eq. 5).

    Parameters
    ----------
    battles
        Battles with a judge score difference column.
    beta
        The temperature; ``None`` fits it on the human non-ties (Kargi & Salinas 2026, Eq. 6) with
        :func:`judgebayes.softelo.fit_temperature`. For β's own uncertainty use
        :func:`judgebayes.softelo.soft_elo_posterior`.
    score, human
        Columns of s and of the human label.
    lam
        L2 penalty λ of Eq. 1.
    """
    if beta is None:
        from judgebayes.softelo.temperature import fit_temperature

        beta = fit_temperature(battles, score=score, human=human, warn=False).beta
    return bt(battles, expit(float(beta) * np.asarray(battles.column(score), dtype=float)), lam=lam)


def davidson(
    data: Battles | PairStats, target: str | None = "human_label", *, lam: float = 0.01
) -> ModelSpec:
    """Davidson's tie model on (win, tie, loss) counts per pair; ``nu`` is the tie propensity."""
    stats = as_pair_stats(data, target, None)[0]
    return ModelSpec(
        davidson_model, davidson_data(stats, lam), {"model": list(stats.models)}, _BT_DIMS
    )


def temperature(
    battles: Battles,
    *,
    score: str = "score_diff",
    human: str = "human_label",
    prior_scale: float = 2.0,
) -> ModelSpec:
    """The temperature β of Kargi & Salinas (2026, Eq. 5–6): y* ~ Bernoulli(σ(β s)) on human
    non-ties."""
    data = temperature_data(battles, score=score, human=human, prior_scale=prior_scale)
    return ModelSpec(temperature_model, data, {}, {})


def multi_judge(
    battles: Battles,
    *,
    target: str = "judge_label",
    own_model: Mapping[str, str | list[str]] | None = None,
) -> ModelSpec:
    """Hierarchical multi-judge BT: consensus θ, judge discrimination ψ, deviations δ, η."""
    return ModelSpec(
        multi_judge_model, *multi_judge_data(battles, target=target, own_model=own_model)
    )


def judge_discrimination(
    data: Battles | MatchupCounts, *, theta_sd: float = 2.0, log_psi_sd: float = 0.5
) -> ModelSpec:
    """Judge discrimination ψ_k from ordered-matchup counts (the Consistency of Ramaswamy,
    Demeure & Rrapaj 2025, modelled)."""
    return ModelSpec(
        judge_discrimination_model,
        *judge_discrimination_data(data, theta_sd=theta_sd, log_psi_sd=log_psi_sd),
    )


def matchup_dirichlet(data: Battles | MatchupCounts, *, prior: float = 1.0) -> ModelSpec:
    """Dirichlet–multinomial outcome probabilities per (judge, pair): the Consistency of
    Ramaswamy, Demeure & Rrapaj (2025)."""
    return ModelSpec(matchup_dirichlet_model, *matchup_dirichlet_data(data, prior=prior))


def calibration(
    items: JudgedItems | pd.DataFrame | CalibrationData, design: str = "model_specific"
) -> ModelSpec:
    """A latent-class judge-calibration design of Fiedler (2026; Eq. 1 as a generative model).

    Parameters
    ----------
    items
        Judged items (:func:`judgebayes.calibration.read_judged_items`) or their
        model data.
    design
        ``"shared"``, ``"model_specific"`` or ``"hierarchical"`` (one row per model and
        item, correctness independent across models), or ``"paired"`` /
        ``"paired_hierarchical"`` (one row per item: the models' correctness on it
        modelled jointly, :mod:`judgebayes.calibration.paired`; at most six models).
    """
    if design not in DESIGNS:
        raise ValueError(f"unknown design {design!r}; expected one of {list(DESIGNS)}")
    cd = items if isinstance(items, CalibrationData) else calibration_data(items)
    if design in PAIRED_DESIGNS:
        pd_ = paired_data(cd)
        return ModelSpec(DESIGNS[design], dict(pd_.data), pd_.coords, pd_.dims(design))
    return ModelSpec(DESIGNS[design], dict(cd.data), cd.coords, cd.dims(design))


def latent_outcome(
    data: RankingData,
    judges: str | Sequence[str] | None = None,
    *,
    by_model: bool = False,
) -> ModelSpec:
    """The latent-outcome model (Dawid–Skene for pairwise comparisons) bound to battles.

    The human outcome is latent where unlabelled, each judge reads it through its confusion
    matrix by position (better than chance; and, with ``by_model``, its favouritism towards
    the models), the outcomes follow Davidson's Bradley–Terry model
    (:func:`~judgebayes.rankings.latent.latent_outcome_model`; model card
    ``models/latent_outcome/card.md``). See
    :func:`~judgebayes.rankings.latent.latent_outcome_spec` for the arguments.
    """
    return latent_outcome_spec(data, judges, by_model=by_model)
