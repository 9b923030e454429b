r"""The Bayesian latent-outcome model: Dawid–Skene for pairwise comparisons.

Every battle i (models a_i shown first, b_i second) has a human outcome h_i ∈ {A, tie, B},
observed on the battles a human labelled and latent on the others. Each judge j reads it
through its own confusion matrix; several judges at once make this Dawid and Skene's model
("Maximum likelihood estimation of observer error-rates using the EM algorithm", 1979) for
pairwise comparisons, with Davidson's Bradley–Terry model (1970) as the outcomes' prior:

    θ ~ ZeroSumNormal(σ_θ),   log ν ~ Normal(0, 2)
    h_i | θ, ν ~ Categorical(π_i),   π_i ∝ (e^{θ_a}, ν e^{(θ_a + θ_b)/2}, e^{θ_b})
    C_j[h, ·] ~ Dirichlet(1 + 2·e_h)                       (row h of judge j's confusion)
    v_ij | h_i ~ Categorical(softmax(log C_j[h_i, ·] + s·(δ_{j a_i} − δ_{j b_i}))),
    s = (1, 0, −1),

with, optionally (``by_model=True``), a hierarchical favouritism of judge j towards model m,
δ_j· = τ_j z_j·, z_j· ~ ZeroSumNormal(1), τ_j ~ HalfNormal(τ_scale) (seed 001's model-specific
calibration, partially pooled, in pairwise form: τ → 0 is the shared confusion matrix);
without it δ = 0. The confusion matrices are by position: their rows and columns are
"the first-shown model wins / tie / the second wins", so a judge that favours position A
(gpt-3.5-turbo calls A in 86% of the PPR battles) has a heavy first column, and its
verdicts are read for what they are worth instead of biasing θ.

The likelihood sums the latent outcome out. Battles are merged into cells of identical
(a, b, human outcome or none, verdicts) with a count; each cell is written as two observed
sites whose sum is its log-likelihood (the pattern of
:func:`~judgebayes.calibration.paired.paired_calibration_model`):

* ``human_label``: log π_{i,h} where labelled (−1 codes "unlabelled": 0);
* ``judge_label``: Σ_j log P(v_ij | h) where the outcome is observed, else
  log Σ_h π_{i,h} Π_j P(v_ij | h) (a judge's −1 codes "not judged": 1).

Fitted by the package's engine (:func:`judgebayes.fit`): NUTS, or MAP with Laplace draws,
on the same density. Model card: ``models/latent_outcome/card.md``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
import pandas as pd
from jax.scipy.special import logsumexp
from numpyro.distributions import constraints
from scipy.special import expit

from judgebayes.bayes.inference import fit
from judgebayes.bayes.spec import ModelSpec
from judgebayes.core.bt import ELO_BASE, ELO_SCALE, theta_to_elo
from judgebayes.core.pairs import PairStats
from judgebayes.core.ranksets import rank_sets
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay
from judgebayes.rankings.data import OUTCOMES, RankingData, outcome_codes
from judgebayes.rankings.ranking import Ranking
from judgebayes.simulate import davidson_probs

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "HumanOutcome",
    "JudgeVerdicts",
    "LatentFit",
    "bt_equivalent_theta",
    "fit_latent_outcome",
    "latent_outcome_data",
    "latent_outcome_model",
    "latent_outcome_spec",
]

_SIGNS = jnp.array([1.0, 0.0, -1.0])  # s_v: A, tie, B


class HumanOutcome(dist.Distribution):
    """The human outcome of a battle where labelled: Categorical(π), −1 where unlabelled.

    ``log_pi`` (…, 3) are the outcome log-probabilities, ``labelled`` (…) marks the
    battles a human labelled; log p(−1) = 0 on the others.
    """

    arg_constraints: ClassVar[dict[str, Any]] = {"log_pi": constraints.real_vector}
    support = constraints.integer_interval(-1, 2)

    def __init__(self, log_pi: Any, labelled: Any, *, validate_args: bool | None = None) -> None:
        self.log_pi = jnp.asarray(log_pi)
        self.labelled = jnp.asarray(labelled, dtype=bool)
        batch = jax.lax.broadcast_shapes(self.log_pi.shape[:-1], self.labelled.shape)
        super().__init__(batch_shape=batch, validate_args=validate_args)

    def sample(self, key: jax.Array, sample_shape: tuple[int, ...] = ()) -> jax.Array:
        logits = jnp.broadcast_to(self.log_pi, (*self.batch_shape, 3))
        h = dist.Categorical(logits=logits).sample(key, sample_shape)
        return jnp.where(self.labelled, h, -1)

    def log_prob(self, value: Any) -> jax.Array:
        h = jnp.clip(value, 0, 2)
        lp = jnp.take_along_axis(self.log_pi, h[..., None], axis=-1)[..., 0]
        return jnp.where(self.labelled, lp, 0.0)


class JudgeVerdicts(dist.Distribution):
    """The verdicts of J judges on a battle given what is known of its human outcome.

    ``log_pi`` (…, 3): outcome log-probabilities; ``log_conf`` (…, J, 3, 3): each judge's
    log P(verdict | outcome) for this battle; ``human`` (…): the observed outcome, −1
    where latent; ``judged`` (…, J): which judges judged. A value holds the verdict codes
    (0 A, 1 tie, 2 B), −1 where not judged. log p = Σ_j log P(v_j | h) with h observed,
    else log Σ_h π_h Π_j P(v_j | h).
    """

    arg_constraints: ClassVar[dict[str, Any]] = {"log_pi": constraints.real_vector}
    support = constraints.integer_interval(-1, 2)

    def __init__(
        self,
        log_pi: Any,
        log_conf: Any,
        human: Any,
        judged: Any,
        *,
        validate_args: bool | None = None,
    ) -> None:
        self.log_pi, self.log_conf = jnp.asarray(log_pi), jnp.asarray(log_conf)
        self.human, self.judged = jnp.asarray(human), jnp.asarray(judged, dtype=bool)
        batch = jax.lax.broadcast_shapes(self.log_pi.shape[:-1], self.human.shape)
        super().__init__(
            batch_shape=batch, event_shape=self.judged.shape[-1:], validate_args=validate_args
        )

    def sample(self, key: jax.Array, sample_shape: tuple[int, ...] = ()) -> jax.Array:
        k1, k2 = jax.random.split(key)
        logits = jnp.broadcast_to(self.log_pi, (*self.batch_shape, 3))
        latent = dist.Categorical(logits=logits).sample(k1, sample_shape)
        h = jnp.where(self.human >= 0, self.human, latent)  # (sample, …)
        conf = jnp.broadcast_to(self.log_conf, self.batch_shape + self.log_conf.shape[-3:])
        rows = jnp.take_along_axis(
            jnp.broadcast_to(conf, h.shape + conf.shape[-3:]),
            h[..., None, None, None],
            axis=-2,
        )[..., 0, :]  # (sample, …, J, 3)
        v = dist.Categorical(logits=rows).sample(k2)
        return jnp.where(self.judged, v, -1)

    def _per_outcome(self, value: Any) -> jax.Array:
        """Σ_j log P(v_j | h) for every h, shape (…, 3)."""
        v = jnp.clip(value, 0, 2)  # (…, J)
        # log P(v_j | h) = log_conf[…, j, h, v_j]
        lp = jnp.take_along_axis(self.log_conf, v[..., None, None], axis=-1)[..., 0]
        lp = jnp.where(self.judged[..., None], lp, 0.0)  # (…, J, 3)
        return lp.sum(axis=-2)

    def log_prob(self, value: Any) -> jax.Array:
        per = self._per_outcome(value)
        h = jnp.clip(self.human, 0, 2)
        observed = jnp.take_along_axis(per, h[..., None], axis=-1)[..., 0]
        latent = logsumexp(self.log_pi + per, axis=-1)
        return jnp.where(self.human >= 0, observed, latent)


@contextlib.contextmanager
def _weighted(weight: Any) -> Iterator[None]:
    """Scale each cell's log-likelihood by its count; count 0 (a padding cell, kept for a
    fixed shape) is masked out, since NumPyro's ``scale`` must be positive."""
    if weight is None:
        yield
        return
    w = jnp.asarray(weight)
    with numpyro.handlers.mask(mask=w > 0), numpyro.handlers.scale(scale=jnp.where(w > 0, w, 1.0)):
        yield


def latent_outcome_model(
    a: Any,
    b: Any,
    labelled: Any,
    judged: Any,
    n_models: int,
    n_judges: int,
    *,
    weight: Any = None,
    by_model: bool = False,
    theta_sd: float = 2.0,
    tau_scale: float = 0.5,
    human_label: Any = None,
    judge_label: Any = None,
) -> None:
    """The latent-outcome model of the module docstring.

    Parameters
    ----------
    a, b
        Models shown first and second, one per cell.
    labelled
        Whether the cell's human outcome is observed.
    judged
        ``(cells, n_judges)``: which judges judged the cell's battles.
    n_models, n_judges
        Sizes.
    weight
        Battles per cell (``None``: one each); 0 pads the cells to a fixed shape.
    by_model
        Add each judge's hierarchical favouritism δ_jm towards the models.
    theta_sd
        Prior SD of the strengths θ.
    tau_scale
        Prior scale of the favouritism SD τ_j.
    human_label
        Outcome codes (0 A, 1 tie, 2 B), −1 where unlabelled (``None`` generates).
    judge_label
        ``(cells, n_judges)`` verdict codes, −1 where not judged (``None`` generates).
    """
    theta = numpyro.sample("theta", dist.ZeroSumNormal(theta_sd, event_shape=(n_models,)))
    numpyro.deterministic("elo", ELO_BASE + ELO_SCALE * theta)
    log_nu = numpyro.sample("log_nu", dist.Normal(0.0, 2.0))
    numpyro.deterministic("nu", jnp.exp(log_nu))
    concentration = jnp.broadcast_to(1.0 + 2.0 * jnp.eye(3), (n_judges, 3, 3))
    confusion = numpyro.sample("confusion", dist.Dirichlet(concentration).to_event(2))
    a, b = jnp.asarray(a), jnp.asarray(b)
    ta, tb = theta[a], theta[b]
    log_pi = jax.nn.log_softmax(jnp.stack([ta, log_nu + (ta + tb) / 2, tb], axis=-1), axis=-1)
    log_conf = jnp.log(jnp.clip(confusion, jnp.finfo(confusion.dtype).tiny))
    log_conf = jnp.broadcast_to(log_conf, (a.shape[0], n_judges, 3, 3))
    if by_model:
        tau = numpyro.sample("tau", dist.HalfNormal(tau_scale).expand([n_judges]).to_event(1))
        with numpyro.plate("judges", n_judges):
            z = numpyro.sample("z", dist.ZeroSumNormal(1.0, event_shape=(n_models,)))
        delta = numpyro.deterministic("delta", tau[:, None] * z)
        shift = (delta[:, a] - delta[:, b]).T  # (cells, J)
        log_conf = jax.nn.log_softmax(log_conf + shift[..., None, None] * _SIGNS, axis=-1)
    with _weighted(weight), numpyro.plate("cell", a.shape[0]):
        human = numpyro.sample("human_label", HumanOutcome(log_pi, labelled), obs=human_label)
        numpyro.sample(
            "judge_label", JudgeVerdicts(log_pi, log_conf, human, judged), obs=judge_label
        )


def latent_outcome_data(
    data: RankingData,
    judges: str | Sequence[str] | None = None,
    *,
    by_model: bool = False,
    pad_to: int | None = None,
    merge: bool = True,
) -> dict[str, Any]:
    """The keyword data of :func:`latent_outcome_model`: battles merged into weighted cells.

    Parameters
    ----------
    data
        Battles (human label on some, verdicts of ``judges``).
    judges
        The judges to read (default: every judge of ``data``).
    by_model
        Passed to the model.
    pad_to
        Pad the cells with zero-count ones up to a multiple of this number, so data sets of
        similar size share one compiled sampler (the engine compiles per array shape).
    merge
        Merge identical battles into weighted cells (the default); ``False`` keeps one cell
        per battle without weights, the layout simulation-based calibration needs (a
        simulated cell is one battle).
    """
    judges = (
        list(data.judges)
        if judges is None
        else ([judges] if isinstance(judges, str) else list(judges))
    )
    verdict = outcome_codes(data.verdicts[:, [data.judge_index(j) for j in judges]])
    human = outcome_codes(data.human)
    keys = np.column_stack([data.a, data.b, human, verdict])
    if not merge:
        cells, count = keys, None
    else:
        cells, count = np.unique(keys, axis=0, return_counts=True)
    if pad_to and merge:
        extra = -len(cells) % pad_to
        cells = np.vstack([cells, np.repeat(cells[:1], extra, axis=0)])
        count = np.concatenate([count, np.zeros(extra, dtype=count.dtype)])
    return {
        "a": cells[:, 0].astype(np.int32),
        "b": cells[:, 1].astype(np.int32),
        "labelled": cells[:, 2] >= 0,
        "judged": cells[:, 3:] >= 0,
        "n_models": data.n_models,
        "n_judges": len(judges),
        "weight": None if count is None else count.astype(np.float64),
        "by_model": by_model,
        "human_label": cells[:, 2].astype(np.int32),
        "judge_label": cells[:, 3:].astype(np.int32),
    }


def latent_outcome_spec(
    data: RankingData,
    judges: str | Sequence[str] | None = None,
    *,
    by_model: bool = False,
    pad_to: int | None = None,
) -> ModelSpec:
    """:func:`latent_outcome_model` bound to battles, with coords and dims, for ``jb.fit``."""
    kwargs = latent_outcome_data(data, judges, by_model=by_model, pad_to=pad_to)
    names = (
        list(data.judges)
        if judges is None
        else ([judges] if isinstance(judges, str) else list(judges))
    )
    coords = {
        "model": list(data.models),
        "judge": names,
        "outcome": list(OUTCOMES),
        "verdict": list(OUTCOMES),
    }
    dims = {
        "theta": ["model"],
        "elo": ["model"],
        "confusion": ["judge", "outcome", "verdict"],
    }
    if by_model:
        dims.update({"tau": ["judge"], "z": ["judge", "model"], "delta": ["judge", "model"]})
    return ModelSpec(latent_outcome_model, kwargs, coords, dims)


# ------------------------------------------------------------------ the fit and its board
def bt_equivalent_theta(
    theta: np.ndarray, nu: np.ndarray, stats: PairStats, *, tol: float = 1e-10
) -> np.ndarray:
    """Bradley–Terry strengths (ties ½) that Davidson's model (θ, ν) implies on a design.

    The human board of the package is Bradley–Terry with ties counted ½ (seed 000, Eq. 1,
    :func:`~judgebayes.core.bt.fit_bt`); Davidson's θ keeps ties apart, so its scale is
    larger. On the pairs of ``stats`` (weights n_p) the expected target is
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
    ones = np.full((k, k), 1.0 / k)
    phi = theta - theta.mean(axis=1, keepdims=True)
    for _ in range(100):
        p = expit(phi[:, i] - phi[:, j])
        grad = (n * (p - target)) @ x
        # + J fixes the common shift; the tiny ridge keeps a draw whose pairs are all
        # decided (σ(1 − σ) = 0 in floating point) solvable
        hess = np.einsum("dp,pa,pb->dab", n * p * (1 - p), x, x) + ones + 1e-12 * np.eye(k)
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
    idata
        The engine's InferenceData (posterior of ``theta``, ``elo`` (Davidson), ``nu``,
        ``confusion`` and, by model, ``tau``, ``delta``).
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
    """

    idata: Any
    models: tuple[str, ...]
    judges: tuple[str, ...]
    by_model: bool
    method: str
    elo_draws: np.ndarray
    elo: np.ndarray
    n_labelled: int
    n_judged: int
    report: DropReport

    def confusion(self) -> pd.DataFrame:
        """Posterior mean of every judge's confusion matrix: one row per (judge, outcome)."""
        mean = self.idata.posterior["confusion"].mean(("chain", "draw")).values
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
    chains: int = 2,
    warmup: int = 1000,
    pad_to: int | None = 1024,
    seed: int = 0,
    progress: bool = True,
) -> LatentFit:
    """Fit the latent-outcome model by ``jb.fit`` and put its posterior on the BT scale.

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
    pad_to
        Cells padded to a multiple of this (data sets of similar size share a compiled
        sampler).
    seed
        Random seed.
    progress
        Show NUTS's progress bar.
    """
    names = _judge_names(data, judges)
    used = ~np.isnan(data.human) | (
        ~np.isnan(data.verdicts[:, [data.judge_index(j) for j in names]])
    ).any(axis=1)
    sub = data.subset(used, reason="no human label and no verdict")
    spec = latent_outcome_spec(sub, names, by_model=by_model, pad_to=pad_to)
    kwargs = {"chains": chains, "warmup": warmup} if method == "nuts" else {}
    idata = fit(spec, method=method, draws=draws, seed=seed, progress=progress, **kwargs)
    post = idata.posterior
    theta = post["theta"].values.reshape(-1, sub.n_models)
    nu = post["nu"].values.reshape(-1)
    stats = PairStats.from_battles(sub.a, sub.b, np.zeros(sub.n_battles), sub.models)
    elo_draws = np.asarray(theta_to_elo(bt_equivalent_theta(theta, nu, stats)))
    if method == "map":
        point = bt_equivalent_theta(idata.map["theta"].values, float(idata.map["nu"]), stats)
        elo = np.asarray(theta_to_elo(point))
    else:
        elo = elo_draws.mean(axis=0)
    labelled = int(sub.labelled.sum())
    return LatentFit(
        idata=idata,
        models=sub.models,
        judges=tuple(names),
        by_model=by_model,
        method=method,
        elo_draws=elo_draws,
        elo=elo,
        n_labelled=labelled,
        n_judged=sub.n_battles - labelled,
        report=sub.report,
    )


def _judge_names(data: RankingData, judges: str | Sequence[str] | None) -> list[str]:
    if judges is None:
        return list(data.judges)
    return [judges] if isinstance(judges, str) else list(judges)
