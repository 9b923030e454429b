r"""The Bayesian latent-outcome model: Dawid–Skene for pairwise comparisons.

Every battle i (models a_i shown first, b_i second) has a human outcome h_i ∈ {A, tie, B},
observed on the battles a human labelled and latent on the others. Each judge j reads it
through its own confusion matrix; several judges at once make this Dawid and Skene's model
("Maximum likelihood estimation of observer error-rates using the EM algorithm", 1979) for
pairwise comparisons, with Davidson's Bradley–Terry model (1970) as the outcomes' prior:

    θ ~ ZeroSumNormal(σ_θ),   log ν ~ Normal(0, 2)
    h_i | θ, ν ~ Categorical(π_i),   π_i ∝ (e^{θ_a}, ν e^{(θ_a + θ_b)/2}, e^{θ_b})
    (C_j[A, ·], C_j[B, ·]) ~ Dirichlet(3, 1, 1) × Dirichlet(1, 1, 3) restricted to
        C_j[A, A] > C_j[B, A] and C_j[A, B] < C_j[B, B]        (the judge beats chance)
    C_j[tie, ·] ~ Dirichlet(1, 3, 1)
    v_ij | h_i ~ Categorical(softmax(log C_j[h_i, ·] + s·(δ_{j a_i} − δ_{j b_i}))),
    s = (1, 0, −1),

with, optionally (``by_model=True``), a hierarchical favouritism of judge j towards model m,
δ_j· = τ_j z_j·, z_j· ~ ZeroSumNormal(1), τ_j ~ HalfNormal(τ_scale) (the model-specific
calibration of Fiedler, *Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026,
arXiv:2605.06939, partially pooled, in pairwise form: τ → 0 is the shared confusion matrix);
without it δ = 0. The confusion matrices are by position: their rows and columns are "the
first-shown model wins / tie / the second wins", so a judge that favours position A (gpt-3.5-turbo
calls A in 86% of the PPR battles) has a heavy first column, and its verdicts are read for what they
are worth instead of biasing θ.

Identification. Reversing every strength (θ → −θ) and swapping rows A and B of every
judge's matrix leaves the likelihood of every judge-only battle unchanged: Dawid–Skene's
label switching, a mirror mode in which every judge reads the outcome worse than chance.
Only the labelled battles tell the two apart, and NUTS chains did settle in the mirror
(R-hat 1.83 on the PPR data). The restriction on rows A and B — row A stochastically above
row B in the order A ≻ tie ≻ B, i.e. the judge says "A" more often when the humans say A
than when they say B, and "B" less often — holds for every judge that is better than
chance and fails for every judge's mirror image, so it removes the mirror mode; it is a
bijective parametrisation
(:class:`~judgebayes.rankings.decisive_rows.BetterThanChanceTransform`), not a rejection.

The likelihood sums the latent outcome out. It depends on the battles only through the
counts of (ordered pair, judges that judged, human outcome or none, verdicts), so the model
reads those counts (:func:`latent_outcome_data`): per ordered pair and set of judges, the
labelled battles' (outcome, verdicts) counts are Multinomial with probabilities
π_h Π_j P(v_j | h) and the unlabelled battles' verdict counts Multinomial with probabilities
Σ_h π_h Π_j P(v_j | h) — the product of the battles' likelihoods up to multinomial
coefficients — computed for every pair, outcome and verdict tuple as dense arrays.

Fitted by the package's engine (:func:`judgebayes.fit`, NUTS) or by MAP with Laplace draws
on the same density, one data set (:func:`fit_latent_outcome`) or many at once
(:func:`fit_latent_outcome_many`). Model card: ``models/latent_outcome/card.md``.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
import optax
import pandas as pd
from jax.flatten_util import ravel_pytree
from jax.scipy.special import logsumexp
from numpyro.infer.util import constrain_fn, initialize_model, potential_energy
from scipy.linalg import solve_triangular
from scipy.special import expit
from tqdm.auto import tqdm

from judgebayes.bayes import fit
from judgebayes.bayes.spec import ModelSpec
from judgebayes.core.bt import ELO_BASE, ELO_SCALE, theta_to_elo
from judgebayes.core.pairs import PairStats
from judgebayes.core.ranksets import rank_sets
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import JudgeBayesWarning
from judgebayes.rankings.data import OUTCOMES, RankingData, outcome_codes
from judgebayes.rankings.decisive_rows import ROW_CONCENTRATION, DecisiveRows
from judgebayes.rankings.ranking import Ranking
from judgebayes.simulate import davidson_probs

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "LatentFit",
    "bt_equivalent_theta",
    "fit_latent_outcome",
    "fit_latent_outcome_many",
    "judged_patterns",
    "latent_outcome_data",
    "latent_outcome_model",
    "latent_outcome_spec",
    "ordered_pairs",
]

_SIGNS = jnp.array([1.0, 0.0, -1.0])  # s_v: A, tie, B

_MASKED = -1e30
"""Log-probability of a verdict tuple that a pattern's missing judges cannot produce (finite,
so that a zero count times it is 0)."""


def _tuple_log_probs(table: jax.Array, patterns: jax.Array) -> jax.Array:
    """log P(verdict tuple t | h) for every judged pattern, shape ``(T, Q, 3, 3^J)``.

    ``table`` (T, J, 3, 3) holds log C_j[h, v] (T = 1 shared, or one per ordered pair);
    ``patterns`` (Q, J) which judges judged. t = Σ_j 3^j·v_j with v_j = 0 for a judge that did
    not judge (its factor is then 1, and every other v_j of it impossible): the sum over the
    judges of their log P(v_j | h), broadcast over the other judges' verdicts, no gather.
    """
    n_tables, n_judges = table.shape[0], table.shape[1]
    n_patterns = patterns.shape[0]
    missing = jnp.array([0.0, _MASKED, _MASKED])
    per_judge = jnp.where(patterns[None, :, :, None, None], table[:, None], missing)
    out = jnp.zeros((n_tables, n_patterns, 3) + (1,) * n_judges)
    for j in range(n_judges):  # judge j is axis J − 1 − j of the tuple (C order of t)
        shape = [n_tables, n_patterns, 3] + [1] * n_judges
        shape[3 + n_judges - 1 - j] = 3
        out = out + per_judge[:, :, j].reshape(shape)
    return out.reshape(n_tables, n_patterns, 3, 3**n_judges)


def latent_outcome_model(
    pair_a: Any,
    pair_b: Any,
    patterns: Any,
    n_labelled: Any,
    n_unlabelled: Any,
    n_models: int,
    n_judges: int,
    *,
    by_model: bool = False,
    theta_sd: float = 2.0,
    tau_scale: float = 0.5,
    labelled_counts: Any = None,
    unlabelled_counts: Any = None,
) -> None:
    """The latent-outcome model of the module docstring, on its sufficient statistics.

    The battles of ordered pair p whose judges are those of pattern q form two groups: the
    n_labelled[p, q] labelled ones, whose (human outcome, verdict tuple) counts are
    Multinomial over the 3·3^J cells with probabilities π_ph Π_j P(v_j | h), and the
    n_unlabelled[p, q] others, whose verdict-tuple counts are Multinomial over the 3^J tuples
    with probabilities Σ_h π_ph Π_j P(v_j | h): the product of the battles' likelihoods
    times multinomial coefficients that do not depend on the parameters.

    Parameters
    ----------
    pair_a, pair_b
        The ordered pairs (model shown first, model shown second), shape ``(P,)``.
    patterns
        ``(Q, n_judges)`` booleans: the sets of judges that judged a battle.
    n_labelled, n_unlabelled
        ``(P, Q)`` battles of each pair and pattern with and without a human label.
    n_models, n_judges
        Sizes.
    by_model
        Add each judge's hierarchical favouritism δ_jm towards the models.
    theta_sd
        Prior SD of the strengths θ.
    tau_scale
        Prior scale of the favouritism SD τ_j.
    labelled_counts
        ``(P, Q, 3·3^J)`` counts of (human outcome h, verdict tuple t) at h·3^J + t, with
        t = Σ_j 3^j·v_j (v_j = 0 for a judge not in the pattern; ``None`` generates).
    unlabelled_counts
        ``(P, Q, 3^J)`` counts of the verdict tuples (``None`` generates).
    """
    theta = numpyro.sample("theta", dist.ZeroSumNormal(theta_sd, event_shape=(n_models,)))
    numpyro.deterministic("elo", ELO_BASE + ELO_SCALE * theta)
    log_nu = numpyro.sample("log_nu", dist.Normal(0.0, 2.0))
    numpyro.deterministic("nu", jnp.exp(log_nu))
    with numpyro.plate("judges", n_judges):
        decisive = numpyro.sample("decisive", DecisiveRows())
        tie_row = numpyro.sample("tie_row", dist.Dirichlet(jnp.asarray(ROW_CONCENTRATION[1])))
    confusion = numpyro.deterministic(
        "confusion", jnp.stack([decisive[:, 0], tie_row, decisive[:, 1]], axis=1)
    )
    pair_a, pair_b = jnp.asarray(pair_a), jnp.asarray(pair_b)
    ta, tb = theta[pair_a], theta[pair_b]
    log_pi = jax.nn.log_softmax(jnp.stack([ta, log_nu + (ta + tb) / 2, tb], axis=-1), axis=-1)
    table = jnp.log(jnp.clip(confusion, jnp.finfo(confusion.dtype).tiny))[None]
    if by_model:
        tau = numpyro.sample("tau", dist.HalfNormal(tau_scale).expand([n_judges]).to_event(1))
        with numpyro.plate("judges", n_judges):
            z = numpyro.sample("z", dist.ZeroSumNormal(1.0, event_shape=(n_models,)))
        delta = numpyro.deterministic("delta", tau[:, None] * z)
        shift = (delta[:, pair_a] - delta[:, pair_b]).T  # (P, J)
        table = jax.nn.log_softmax(table + shift[..., None, None] * _SIGNS, axis=-1)
    # log π_ph + log P(t | h) for every pair, pattern, outcome and tuple: (P, Q, 3, 3^J)
    joint = log_pi[:, None, :, None] + _tuple_log_probs(table, jnp.asarray(patterns))
    n_cells = joint.shape[-1]
    with numpyro.plate("pair", pair_a.shape[0], dim=-2), numpyro.plate("pattern", joint.shape[1]):
        numpyro.sample(
            "labelled_counts",
            dist.Multinomial(n_labelled, logits=joint.reshape(*joint.shape[:2], 3 * n_cells)),
            obs=labelled_counts,
        )
        numpyro.sample(
            "unlabelled_counts",
            dist.Multinomial(n_unlabelled, logits=logsumexp(joint, axis=-2)),
            obs=unlabelled_counts,
        )


def ordered_pairs(n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair (a, b), a ≠ b, of ``n_models`` models, in the order of
    :func:`latent_outcome_data` (pair of (a, b): a·(k − 1) + b − [b > a])."""
    a, b = np.nonzero(~np.eye(n_models, dtype=bool))
    return a.astype(np.int32), b.astype(np.int32)


def judged_patterns(data: RankingData, judges: str | Sequence[str] | None = None) -> np.ndarray:
    """The sets of ``judges`` that judged some battle of ``data``: ``(Q, J)`` booleans, sorted."""
    names = _judge_names(data, judges)
    judged = ~np.isnan(data.verdicts[:, [data.judge_index(j) for j in names]])
    return np.unique(judged, axis=0)


def latent_outcome_data(
    data: RankingData,
    judges: str | Sequence[str] | None = None,
    *,
    by_model: bool = False,
    patterns: np.ndarray | None = None,
) -> dict[str, Any]:
    """The keyword data of :func:`latent_outcome_model`: the battles' sufficient statistics.

    The likelihood depends on the battles only through the counts of (ordered pair, judges
    that judged, human outcome or "unlabelled", verdicts of the judges that judged), so the
    battles are counted into those cells once. The pairs are every ordered pair of ``data``'s
    models (:func:`ordered_pairs`), so data sets of the same models, judges and patterns have
    the same layout (one compiled program serves them all).

    Parameters
    ----------
    data
        Battles (human label on some, verdicts of ``judges``).
    judges
        The judges to read (default: every judge of ``data``).
    by_model
        Passed to the model.
    patterns
        ``(Q, J)`` booleans, the sets of judges that judged a battle (default: those of
        ``data``, :func:`judged_patterns`); several data sets fitted together share theirs.
    """
    judges = _judge_names(data, judges)
    verdict = outcome_codes(data.verdicts[:, [data.judge_index(j) for j in judges]])
    judged = verdict >= 0
    patterns = judged_patterns(data, judges) if patterns is None else np.asarray(patterns, bool)
    match = (judged[:, None, :] == patterns[None]).all(axis=2)
    if not match.any(axis=1).all():
        raise ValueError("a battle's judges are not among the patterns given")
    q = match.argmax(axis=1)
    n_judges, k = len(judges), data.n_models
    t = (np.where(judged, verdict, 0) * 3 ** np.arange(n_judges)).sum(axis=1)
    pair = data.a * (k - 1) + data.b - (data.b > data.a)
    n_pairs, n_patterns, n_tuples = k * (k - 1), len(patterns), 3**n_judges
    group = pair * n_patterns + q
    h = outcome_codes(data.human)
    lab = h >= 0

    def counts(index: np.ndarray, size: int) -> np.ndarray:
        # whole numbers held as floats: the Multinomial's log-probability takes gammaln of
        # them, which JAX computes in float32 for an integer array (gammaln(1) = 5e-7 there),
        # a constant that would swamp the potential's last digits in a float64 MAP
        return np.bincount(index, minlength=size).astype(np.float64)

    pair_a, pair_b = ordered_pairs(k)
    shape = (n_pairs, n_patterns)
    return {
        "pair_a": pair_a,
        "pair_b": pair_b,
        "patterns": patterns,
        "n_labelled": counts(group[lab], n_pairs * n_patterns).reshape(shape),
        "n_unlabelled": counts(group[~lab], n_pairs * n_patterns).reshape(shape),
        "n_models": k,
        "n_judges": n_judges,
        "by_model": by_model,
        "labelled_counts": counts(
            (group[lab] * 3 + h[lab]) * n_tuples + t[lab], n_pairs * n_patterns * 3 * n_tuples
        ).reshape(*shape, 3 * n_tuples),
        "unlabelled_counts": counts(
            group[~lab] * n_tuples + t[~lab], n_pairs * n_patterns * n_tuples
        ).reshape(*shape, n_tuples),
    }


def latent_outcome_spec(
    data: RankingData,
    judges: str | Sequence[str] | None = None,
    *,
    by_model: bool = False,
) -> ModelSpec:
    """:func:`latent_outcome_model` bound to battles, with coords and dims, for ``jb.fit``."""
    kwargs = latent_outcome_data(data, judges, by_model=by_model)
    return ModelSpec(latent_outcome_model, kwargs, *_coords_dims(data, judges, by_model))


def _coords_dims(
    data: RankingData, judges: str | Sequence[str] | None, by_model: bool
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    coords = {
        "model": list(data.models),
        "judge": _judge_names(data, judges),
        "outcome": list(OUTCOMES),
        "verdict": list(OUTCOMES),
        "decisive_row": [OUTCOMES[0], OUTCOMES[2]],
    }
    dims = {
        "theta": ["model"],
        "elo": ["model"],
        "decisive": ["judge", "decisive_row", "verdict"],
        "tie_row": ["judge", "verdict"],
        "confusion": ["judge", "outcome", "verdict"],
    }
    if by_model:
        dims.update({"tau": ["judge"], "z": ["judge", "model"], "delta": ["judge", "model"]})
    return coords, dims


# ------------------------------------------------------------------ the fit and its board
def bt_equivalent_theta(
    theta: np.ndarray, nu: np.ndarray, stats: PairStats, *, tol: float = 1e-10
) -> np.ndarray:
    """Bradley–Terry strengths (ties ½) that Davidson's model (θ, ν) implies on a design.

    The human board of the package is Bradley–Terry with ties counted ½ (Kargi & Salinas, *From
    Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
    arXiv:2606.13221, Eq. 1, :func:`~judgebayes.core.bt.fit_bt`); Davidson's θ keeps ties apart, so
    its scale is larger. On the pairs of ``stats`` (weights n_p) the expected target is
    t_p = P(i wins) + P(tie)/2, and θ^BT solves Σ_p n_p (t_p − σ(θ^BT_i − θ^BT_j))(e_i − e_j)
    = 0 with Σθ^BT = 0: the estimand of a BT fit on unlimited human labels. Solved by
    Newton's method for every draw at once (a batched k × k solve per step).

    Parameters
    ----------
    theta
        Davidson strengths, shape ``(n_draws, k)`` (or ``(k,)``).
    nu
        Tie propensities, shape ``(n_draws,)`` (or scalar).
    stats
        The design: pairs ``i, j`` and their battle counts ``n``.

    Returns
    -------
    np.ndarray
        θ^BT, the shape of ``theta``, centred.
    """
    single = np.ndim(theta) == 1
    theta = np.atleast_2d(np.asarray(theta, dtype=float))
    nu = np.broadcast_to(np.asarray(nu, dtype=float), theta.shape[:1])
    i, j, n = stats.i, stats.j, stats.n
    p_a, p_tie, _ = davidson_probs(theta[:, i] - theta[:, j], nu[:, None])
    target = p_a + 0.5 * p_tie
    k = theta.shape[1]
    x = np.zeros((len(i), k))
    x[np.arange(len(i)), i] = 1.0
    x[np.arange(len(i)), j] = -1.0
    # the Hessian Σ_p w_p x_p x_pᵀ of every draw as one product: row p of `outer` is x_p x_pᵀ
    outer = (x[:, :, None] * x[:, None, :]).reshape(len(i), k * k)
    ones = np.full((k, k), 1.0 / k)
    phi = theta - theta.mean(axis=1, keepdims=True)
    for _ in range(100):
        p = expit(phi[:, i] - phi[:, j])
        grad = (n * (p - target)) @ x
        # + J fixes the common shift; the tiny ridge keeps a draw whose pairs are all
        # decided (σ(1 − σ) = 0 in floating point) solvable
        hess = ((n * p * (1 - p)) @ outer).reshape(-1, k, k) + ones + 1e-12 * np.eye(k)
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        # damped: a step of at most 1 per strength (the objective is convex; far from the
        # solution a full Newton step can overshoot)
        step *= np.minimum(1.0, 1.0 / np.maximum(np.abs(step).max(axis=1, keepdims=True), 1e-300))
        phi -= step
        if np.abs(step).max() < tol:
            break
    phi -= phi.mean(axis=1, keepdims=True)
    return phi[0] if single else phi


@dataclass(frozen=True, repr=False)
class LatentFit(ResultDisplay):
    """The latent-outcome model fitted to battles, and its board on the BT scale.

    Attributes
    ----------
    models, judges
        Names.
    by_model
        Whether each judge's favouritism towards the models was modelled.
    method
        ``"nuts"`` or ``"map"`` (mode + Laplace draws).
    elo_draws
        Posterior draws of the Bradley–Terry-equivalent Elo (ties ½, mean 1500;
        :func:`bt_equivalent_theta`), shape ``(n_draws, n_models)``.
    elo
        Its point estimate: the BT-equivalent of the MAP (``"map"``) or the posterior mean.
    n_labelled, n_judged
        Battles with a human label, and with verdicts alone.
    report
        Battles received and not used.
    posterior
        Every site's draws (``theta``, ``elo`` (Davidson), ``nu``, ``confusion``, and by
        model ``tau``, ``delta``), shaped ``(chain, draw, …)``.
    point
        The mode of every site (``"map"``), else ``None``.
    coords, dims
        Names of the sites' dimensions, for :attr:`idata`.
    engine_idata
        NUTS: the engine's InferenceData (``jb.fit``); ``None`` for MAP.
    """

    models: tuple[str, ...]
    judges: tuple[str, ...]
    by_model: bool
    method: str
    elo_draws: np.ndarray
    elo: np.ndarray
    n_labelled: int
    n_judged: int
    report: DropReport
    posterior: Mapping[str, np.ndarray]
    point: Mapping[str, np.ndarray] | None
    coords: Mapping[str, list[str]]
    dims: Mapping[str, list[str]]
    engine_idata: Any = field(default=None, repr=False)

    @functools.cached_property
    def idata(self) -> Any:
        """The posterior as ArviZ InferenceData: NUTS's from ``jb.fit`` (sampler statistics
        and pointwise log-likelihood included); for MAP the Laplace draws and the mode
        (group ``map``), built on first access."""
        if self.engine_idata is not None:
            return self.engine_idata
        import arviz as az

        idata = az.from_dict(posterior=dict(self.posterior), coords=self.coords, dims=self.dims)
        idata.posterior.attrs["inference"] = "map+laplace"
        point = {k: np.asarray(v)[None, None] for k, v in (self.point or {}).items()}
        mode = az.from_dict(posterior=point, coords=self.coords, dims=self.dims).posterior
        idata.add_groups({"map": mode.squeeze(("chain", "draw"), drop=True)})
        return idata

    def confusion(self) -> pd.DataFrame:
        """Posterior mean of every judge's confusion matrix: one row per (judge, outcome)."""
        mean = np.asarray(self.posterior["confusion"]).mean(axis=(0, 1))
        rows = [
            {"judge": j, "outcome": h, **dict(zip(OUTCOMES, mean[a, b], strict=True))}
            for a, j in enumerate(self.judges)
            for b, h in enumerate(OUTCOMES)
        ]
        return pd.DataFrame(rows)

    def _headline(self) -> str:
        top = int(np.argmax(self.elo))
        how = "by-model favouritism" if self.by_model else "shared confusion"
        return (
            f"latent outcome ({how}, {self.method}) on {len(self.models)} models, judges "
            f"{list(self.judges)}, {self.n_labelled:,} human labels + {self.n_judged:,} "
            f"judge-only battles; top {self.models[top]} {self.elo[top]:.0f}"
        )

    def to_frame(self) -> pd.DataFrame:
        """``model, elo, sd`` (Bradley–Terry-equivalent Elo), best first."""
        frame = pd.DataFrame(
            {"model": self.models, "elo": self.elo, "sd": self.elo_draws.std(axis=0, ddof=1)}
        )
        return frame.sort_values("elo", ascending=False, ignore_index=True)

    def plot(self, ax: Axes | None = None, *, alpha: float = 0.1) -> Axes:
        """Forest plot of :meth:`ranking` at level 1 − α (rank-sets and tiers included)."""
        return self.ranking(alpha).plot(ax)

    def ranking(self, alpha: float = 0.1) -> Ranking:
        """Equal-tailed 1 − α credible intervals and simultaneous rank-sets of the joint
        posterior of the ranks (:func:`~judgebayes.core.ranksets.rank_sets`, ``"joint"``)."""
        draws = self.elo_draws
        sets = rank_sets(draws, models=self.models, estimate=self.elo, alpha=alpha, method="joint")
        return Ranking(
            models=self.models,
            method="latent+favouritism" if self.by_model else "latent",
            judges=self.judges,
            alpha=alpha,
            scale="elo",
            estimate=self.elo,
            lower=np.quantile(draws, alpha / 2, axis=0),
            upper=np.quantile(draws, 1 - alpha / 2, axis=0),
            se=draws.std(axis=0, ddof=1),
            rank_sets=sets,
            n_labelled=self.n_labelled,
            n_judged=self.n_judged,
            report=self.report,
            draws=draws,
        )


def fit_latent_outcome(
    data: RankingData,
    judges: str | Sequence[str] | None = None,
    *,
    by_model: bool = False,
    method: str = "map",
    draws: int = 1000,
    chains: int = 4,
    warmup: int = 1000,
    seed: int = 0,
    progress: bool = True,
) -> LatentFit:
    """Fit the latent-outcome model and put its posterior on the BT scale.

    ``method="nuts"`` runs the engine's NUTS (``jb.fit``); ``method="map"`` is
    :func:`fit_latent_outcome_many` on one data set: the mode of the same density and
    Laplace draws around it.

    Parameters
    ----------
    data
        Battles: human labels on some, verdicts of ``judges``.
    judges
        The judges (default: all of ``data``'s).
    by_model
        Model each judge's hierarchical favouritism towards the models.
    method
        ``"map"`` (mode and ``draws`` Laplace draws) or ``"nuts"``.
    draws, chains, warmup
        Posterior draws (per chain for NUTS), NUTS chains and warm-up.
    seed
        Random seed.
    progress
        Show a progress bar.
    """
    if method == "map":
        return fit_latent_outcome_many(
            [data],
            judges,
            by_model=by_model,
            draws=draws,
            seed=seed,
            progress=progress,
        )[0]
    if method != "nuts":
        raise ValueError(f"method must be 'map' or 'nuts', got {method!r}")
    names, sub = _used(data, judges)
    spec = latent_outcome_spec(sub, names, by_model=by_model)
    idata = fit(
        spec,
        method="nuts",
        draws=draws,
        chains=chains,
        warmup=warmup,
        seed=seed,
        progress=progress,
    )
    posterior = {k: idata.posterior[k].values for k in idata.posterior.data_vars}
    theta = posterior["theta"].reshape(-1, sub.n_models)
    elo_draws = _bt_elo(sub, np.vstack([theta]), posterior["nu"].reshape(-1))
    return _latent_fit(
        sub,
        names,
        by_model,
        "nuts",
        elo_draws,
        elo_draws.mean(axis=0),
        posterior,
        None,
        engine_idata=idata,
    )


_MAX_ITER = 2000
"""L-BFGS iterations at most per MAP fit."""
_GTOL = 1e-6
"""The MAP is reached when every component of the potential's gradient is below this."""


def fit_latent_outcome_many(
    datasets: Sequence[RankingData],
    judges: str | Sequence[str] | None = None,
    *,
    by_model: bool = False,
    draws: int = 1000,
    batch_size: int = 16,
    seed: int = 0,
    progress: bool = True,
) -> list[LatentFit]:
    r"""MAP fits of the latent-outcome model to many data sets of the same models at once.

    For a simulation study, a benchmark's label draws or a bootstrap: every data set's
    battles are counted into the model's sufficient statistics (:func:`latent_outcome_data`;
    data sets of the same models and judges have one layout), and ``batch_size`` data sets
    at a time go through one compiled program, vectorised over them (``jax.vmap``):
    L-BFGS (optax's, with its zoom line search) from the origin of the
    unconstrained space (the engine's start) to the mode of the potential (the negative log
    joint NumPyro's :class:`~judgebayes.bayes.CompiledModel` gives the engine), stopped when
    every gradient component is below 10⁻⁶, in float64; the exact Hessian H there
    (``jax.hessian``); ``draws`` Laplace draws mode + L⁻ᵀe, H = LLᵀ, e ~ N(0, I) — the
    computation of ``jb.fit(..., method="map")`` without its pointwise log-likelihood. A
    layout (models, judges, their patterns, batch size) compiles once, and JAX's persistent
    compilation cache (the engine's) keeps it for the next process.

    Parameters
    ----------
    datasets
        Battles, all between the same models, each with human labels on some and the
        verdicts of ``judges``.
    judges
        The judges (default: all of the first data set's).
    by_model
        Model each judge's hierarchical favouritism towards the models.
    draws
        Laplace draws per data set.
    batch_size
        Data sets per call of the compiled program (the last batch is padded).
    seed
        Random seed: data set d's draws come from ``(seed, d)``.
    progress
        Show a progress bar over the data sets.

    Returns
    -------
    list of LatentFit
        One per data set, in order.

    Raises
    ------
    ValueError
        When the data sets' models differ, or a data set's posterior has no proper mode (its
        Hessian is not positive definite: use ``method="nuts"``).
    """
    if not datasets:
        return []
    models = datasets[0].models
    if any(d.models != models for d in datasets):
        raise ValueError("fit_latent_outcome_many needs data sets of the same models")
    used = [_used(d, judges) for d in datasets]
    names = used[0][0]
    patterns = np.unique(np.vstack([judged_patterns(sub, names) for _, sub in used]), axis=0)
    stats = [
        latent_outcome_data(sub, names, by_model=by_model, patterns=patterns) for _, sub in used
    ]
    programs = _map_programs(stats[0])
    out: list[LatentFit] = []
    with tqdm(total=len(datasets), desc="MAP", unit="fit", disable=not progress) as bar:
        for start in range(0, len(datasets), batch_size):
            rows = np.minimum(np.arange(start, start + batch_size), len(datasets) - 1)
            real = rows[: min(batch_size, len(datasets) - start)]
            arrays = {
                k: np.stack([stats[r][k] for r in rows])
                for k, v in stats[0].items()
                if isinstance(v, np.ndarray)
            }
            samples = _map_batch(programs, arrays, rows, draws, seed)
            for b, d in enumerate(real):
                sub = used[d][1]
                point = {k: v[b, 0] for k, v in samples.items()}
                posterior = {k: v[b, 1:][None] for k, v in samples.items()}
                theta = np.vstack([point["theta"][None], posterior["theta"][0]])
                nu = np.concatenate([[point["nu"]], posterior["nu"][0]])
                elo = _bt_elo(sub, theta, nu)
                out.append(
                    _latent_fit(sub, names, by_model, "map", elo[1:], elo[0], posterior, point)
                )
            bar.update(len(real))
    return out


def _used(data: RankingData, judges: str | Sequence[str] | None) -> tuple[list[str], RankingData]:
    """The judges' names and the battles that carry a human label or one of their verdicts."""
    names = _judge_names(data, judges)
    used = ~np.isnan(data.human) | (
        ~np.isnan(data.verdicts[:, [data.judge_index(j) for j in names]])
    ).any(axis=1)
    return names, data.subset(used, reason="no human label and no verdict")


_PROGRAMS: OrderedDict[tuple, tuple] = OrderedDict()
"""Compiled batched MAP programs by layout (static arguments, array shapes), most recent last."""


def _map_programs(kwargs: Mapping[str, Any]) -> tuple:
    """(solve, hessian, constrain, size) for the layout of ``kwargs``, each jitted and vmapped
    over a leading data-set axis; built once per layout and process.

    The potential and the map to the constrained sites are NumPyro's own
    (:func:`~numpyro.infer.util.potential_energy`, :func:`~numpyro.infer.util.constrain_fn`:
    what the engine's NUTS and MAP evaluate), with the arrays as traced arguments and the
    sizes and flags bound, so that one program serves every data set of a layout."""
    arrays = {k: v for k, v in kwargs.items() if isinstance(v, np.ndarray)}
    static = {k: v for k, v in kwargs.items() if not isinstance(v, np.ndarray)}
    key = (
        tuple(sorted(static.items())),
        tuple((k, v.shape, str(v.dtype)) for k, v in sorted(arrays.items())),
    )
    if key in _PROGRAMS:
        _PROGRAMS.move_to_end(key)
        return _PROGRAMS[key]
    model = functools.partial(latent_outcome_model, **static)
    with jax.enable_x64(True):
        init = initialize_model(jax.random.PRNGKey(0), model, model_kwargs=arrays)
        flat0, unravel = ravel_pytree(
            jax.tree.map(lambda z: jnp.zeros(jnp.shape(z), dtype=jnp.float64), init.param_info.z)
        )

    def potential(x: jax.Array, a: dict) -> jax.Array:
        return potential_energy(model, (), a, unravel(x))

    def mode(a: dict) -> tuple[jax.Array, jax.Array, jax.Array]:
        def fun(x: jax.Array) -> jax.Array:
            return potential(x, a)

        opt = optax.lbfgs()
        value_and_grad = optax.value_and_grad_from_state(fun)

        def step(carry: tuple) -> tuple:
            x, state = carry
            value, grad = value_and_grad(x, state=state)
            updates, state = opt.update(grad, state, x, value=value, grad=grad, value_fn=fun)
            return optax.apply_updates(x, updates), state

        def going(carry: tuple) -> jax.Array:
            _, state = carry
            count = optax.tree.get(state, "count")
            worst = jnp.max(jnp.abs(optax.tree.get(state, "grad")))
            return (count == 0) | ((count < _MAX_ITER) & (worst > _GTOL))

        x, state = jax.lax.while_loop(going, step, (jnp.asarray(flat0), opt.init(flat0)))
        return x, optax.tree.get(state, "count"), jnp.max(jnp.abs(optax.tree.get(state, "grad")))

    def constrain(xs: jax.Array, a: dict) -> dict:
        return jax.vmap(
            lambda x: constrain_fn(model, (), a, unravel(x), return_deterministic=True)
        )(xs)

    programs = (
        jax.jit(jax.vmap(mode)),
        jax.jit(jax.vmap(jax.hessian(potential))),
        jax.jit(jax.vmap(constrain)),
        int(flat0.size),
    )
    _PROGRAMS[key] = programs
    while len(_PROGRAMS) > 16:
        _PROGRAMS.popitem(last=False)
    return programs


def _map_batch(
    programs: tuple, arrays: Mapping[str, np.ndarray], rows: np.ndarray, draws: int, seed: int
) -> dict[str, np.ndarray]:
    """Every site at the mode and the Laplace draws of a batch of data sets, shaped
    ``(batch, 1 + draws, …)``, the mode first."""
    solve, hessian, constrain, n = programs
    with jax.enable_x64(True):
        batch = {k: jnp.asarray(v) for k, v in arrays.items()}
        modes, iters, worst = (np.asarray(v) for v in solve(batch))
        hess = np.asarray(hessian(jnp.asarray(modes), batch))
        points = np.empty((len(rows), draws + 1, n))
        for b, d in enumerate(rows):
            if worst[b] > 1e-3:
                warnings.warn(
                    f"MAP of data set {d}: L-BFGS stopped after {iters[b]} iterations with a "
                    f"gradient component of {worst[b]:.2g}",
                    JudgeBayesWarning,
                    stacklevel=4,
                )
            try:
                chol = np.linalg.cholesky(0.5 * (hess[b] + hess[b].T))
            except np.linalg.LinAlgError:
                raise ValueError(
                    f"the log density of data set {d} has no proper mode (its Hessian is not "
                    "positive definite), so MAP and Laplace are undefined: use method='nuts'"
                ) from None
            e = np.random.default_rng([seed, int(d)]).standard_normal((draws, n))
            points[b, 0] = modes[b]
            points[b, 1:] = modes[b] + solve_triangular(chol, e.T, lower=True, trans="T").T
        samples = constrain(jnp.asarray(points), batch)
        return {k: np.asarray(v) for k, v in samples.items()}


def _bt_elo(sub: RankingData, theta: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """BT-equivalent Elo (:func:`bt_equivalent_theta`) of Davidson draws on ``sub``'s design."""
    stats = PairStats.from_battles(sub.a, sub.b, np.zeros(sub.n_battles), sub.models)
    return np.asarray(theta_to_elo(bt_equivalent_theta(theta, nu, stats)))


def _latent_fit(
    sub: RankingData,
    names: list[str],
    by_model: bool,
    method: str,
    elo_draws: np.ndarray,
    elo: np.ndarray,
    posterior: Mapping[str, np.ndarray],
    point: Mapping[str, np.ndarray] | None,
    *,
    engine_idata: Any = None,
) -> LatentFit:
    labelled = int(sub.labelled.sum())
    coords, dims = _coords_dims(sub, names, by_model)
    return LatentFit(
        models=sub.models,
        judges=tuple(names),
        by_model=by_model,
        method=method,
        elo_draws=elo_draws,
        elo=np.asarray(elo),
        n_labelled=labelled,
        n_judged=sub.n_battles - labelled,
        report=sub.report,
        posterior=posterior,
        point=point,
        coords=coords,
        dims=dims,
        engine_idata=engine_idata,
    )


def _judge_names(data: RankingData, judges: str | Sequence[str] | None) -> list[str]:
    if judges is None:
        return list(data.judges)
    return [judges] if isinstance(judges, str) else list(judges)
