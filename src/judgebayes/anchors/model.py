r"""An ordered-logistic generative model of five-point verdicts (beyond Don-Yehiya, Yehudai, Choshen
& Abend (*Mediocrity is the key for LLM as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848)).

Don-Yehiya et al. (2026) collapse the margins to {−1, 0, 1} for Bradley–Terry and names the loss
(Limitations: "The standard BT method does not take into account the magnitude of
the judgments"). This model keeps them. For a verdict row r — judge k, prompt i,
target t shown first against o —

    η_r = ψ_k · exp(δ_i) · (θ_t − θ_o + u_{i,t} − u_{i,o}) + γ_k,
    P(v_r ≤ c) = σ(κ_{k,c} − η_r),   c = −2, …, 1,    v_r ~ OrderedLogistic(η_r, κ_k),

* θ ~ ZeroSumNormal(σ_θ): model strengths (only differences are identified);
* δ_i = σ_δ · z_i, z ~ ZeroSumNormal(1): prompt difficulty, the log-discrimination
  of prompt i (easy prompts: every answer good enough, verdicts pile up at ties;
  geometric mean fixed at 1 so that θ keeps its scale), σ_δ ~ HalfNormal(1);
* u_{i,m} = σ_u · z_{i,m}, z ~ Normal(0, 1): how much better model m answered
  prompt i than usual, kept for the (prompt, model) answers judged at least twice —
  in an anchor-based table the anchor's answers, shared by all of a prompt's
  verdicts; an answer judged once is indistinguishable from the judge's noise and is
  left to the logistic error; σ_u ~ HalfNormal(1);
* κ_k = (−h₁−h₂, −h₁, h₁, h₁+h₂) with log h ~ Normal(0, 1): judge k's cut-points,
  symmetric so that a verdict and its mirror (b over a) have mirrored probabilities
  (five levels; three levels use (−h₁, h₁));
* log ψ ~ ZeroSumNormal(0.5) over judges: each judge's discrimination (1/ψ its
  noise), geometric mean 1; ψ ≡ 1 with one judge;
* γ_k ~ Normal(0, 0.5): position bias for the answer shown first, included only when
  some pair was judged in both orders (otherwise it is confounded with the anchor's θ).

:func:`ordered_logistic_spec` binds it to a :class:`~judgebayes.anchors.verdicts.VerdictTable`
as a :class:`~judgebayes.bayes.spec.ModelSpec`: ``jb.fit(spec)`` samples it by NUTS,
``jb.fit(spec, method="map")`` finds the mode of the same log density. The model
card is ``models/ordered_logistic/card.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
import pandas as pd

from judgebayes.anchors.verdicts import VerdictTable
from judgebayes.bayes.spec import ModelSpec
from judgebayes.errors import DataError

__all__ = [
    "StableOrderedLogistic",
    "ordered_logistic_data",
    "ordered_logistic_model",
    "ordered_logistic_spec",
    "theta_gaps",
    "theta_means",
]


class StableOrderedLogistic(dist.OrderedLogistic):
    """NumPyro's ordered logistic with a log-probability that does not underflow.

    NumPyro computes P(v = c) = σ(κ_c − η) − σ(κ_{c−1} − η) as a difference of
    probabilities, which is 0 (log-probability −∞) once |η| is large, and an infinite
    potential stops an optimiser's line search. Hand-written here, with the identity
    σ(a) − σ(b) = σ(a)·σ(−b)·(1 − e^{−(a−b)}) for a > b:

        log P(v = c) = log σ(κ_c − η) + log σ(η − κ_{c−1}) + log(−expm1(κ_{c−1} − κ_c)),

    the end categories being log σ(κ_0 − η) and log σ(η − κ_last). Sampling is
    NumPyro's.
    """

    def log_prob(self, value: jnp.ndarray) -> jnp.ndarray:
        cut = self.cutpoints
        eta = self.predictor[..., None]
        big = jnp.full((*cut.shape[:-1], 1), jnp.inf, dtype=cut.dtype)
        upper = jnp.concatenate([cut, big], axis=-1)  # κ_c, +∞ for the last category
        lower = jnp.concatenate([-big, cut], axis=-1)  # κ_{c−1}, −∞ for the first
        width = jnp.concatenate([big, jnp.diff(cut, axis=-1), big], axis=-1)
        logp = (
            jax.nn.log_sigmoid(upper - eta)
            + jax.nn.log_sigmoid(eta - lower)
            + jnp.log(-jnp.expm1(-width))
        )
        logp = jnp.broadcast_to(logp, jnp.shape(value) + logp.shape[-1:])
        return jnp.take_along_axis(logp, jnp.asarray(value)[..., None].astype(jnp.int32), axis=-1)[
            ..., 0
        ]


def ordered_logistic_model(
    target: jnp.ndarray,
    other: jnp.ndarray,
    judge: jnp.ndarray,
    prompt: jnp.ndarray,
    answer_target: jnp.ndarray,
    answer_other: jnp.ndarray,
    n_models: int,
    n_judges: int,
    n_prompts: int,
    n_answers: int,
    n_levels: int = 5,
    position_bias: bool = False,
    theta_sd: float = 2.0,
    verdict: jnp.ndarray | None = None,
    mask: jnp.ndarray | None = None,
) -> None:
    """Ordered-logistic verdicts on θ_target − θ_other (see the module docstring).

    Parameters
    ----------
    target, other, judge, prompt
        Per verdict row: model indices (target shown first), judge and prompt index.
    answer_target, answer_other
        Index of the (prompt, model) answer effect of each side; ``n_answers`` means
        none (the answer was judged once).
    n_models, n_judges, n_prompts, n_answers
        Sizes; ``n_prompts = 0`` leaves out prompt difficulty, ``n_answers = 0`` the
        answer effects.
    n_levels
        5 (margins −2 … 2, coded 0 … 4) or 3 (−1, 0, 1, coded 0 … 2).
    position_bias
        Include γ_k.
    theta_sd
        Prior scale of θ.
    verdict
        Observed categories (``None`` generates).
    mask
        Boolean per row: rows set to ``False`` do not enter the likelihood (padding,
        so that data sets of different sizes share one compiled layout).
    """
    theta = numpyro.sample("theta", dist.ZeroSumNormal(theta_sd, event_shape=(n_models,)))
    diff = theta[target] - theta[other]
    if n_answers:
        sigma_u = numpyro.sample("sigma_answer", dist.HalfNormal(1.0))
        z_u = numpyro.sample("answer_z", dist.Normal(0.0, 1.0).expand([n_answers]).to_event(1))
        u = jnp.concatenate([sigma_u * z_u, jnp.zeros(1)])
        diff = diff + u[answer_target] - u[answer_other]
    if n_prompts:
        sigma_d = numpyro.sample("sigma_difficulty", dist.HalfNormal(1.0))
        z_d = numpyro.sample("difficulty_z", dist.ZeroSumNormal(1.0, event_shape=(n_prompts,)))
        difficulty = numpyro.deterministic("difficulty", sigma_d * z_d)
        # exp of δ clipped at ±10 (a discrimination factor of 22,000, far outside the
        # prior) so that an optimiser's trial step cannot overflow η to ±∞.
        diff = diff * jnp.exp(jnp.clip(difficulty, -10.0, 10.0))[prompt]
    if n_judges > 1:
        log_psi = numpyro.sample("log_psi", dist.ZeroSumNormal(0.5, event_shape=(n_judges,)))
        diff = diff * jnp.exp(log_psi)[judge]
    half = (n_levels - 1) // 2
    with numpyro.plate("judges", n_judges):
        log_gap = numpyro.sample("log_gap", dist.Normal(0.0, 1.0).expand([half]).to_event(1))
        gamma = (
            numpyro.sample("gamma", dist.Normal(0.0, 0.5)) if position_bias else jnp.zeros(n_judges)
        )
    upper = jnp.cumsum(jnp.exp(log_gap), axis=-1)
    cut = numpyro.deterministic("cutpoints", jnp.concatenate([-upper[:, ::-1], upper], axis=-1))
    eta = diff + gamma[judge]
    with (
        numpyro.plate("verdicts", target.shape[0]),
        numpyro.handlers.mask(mask=True if mask is None else mask),
    ):
        numpyro.sample("verdict", StableOrderedLogistic(eta, cut[judge]), obs=verdict)


def _auto(flag: bool | str, default: bool, name: str) -> bool:
    if flag == "auto":
        return default
    if not isinstance(flag, bool):
        raise ValueError(f"{name} must be True, False or 'auto', got {flag!r}")
    return flag


ordered_logistic_model.target_accept = 0.9  # type: ignore[attr-defined]  # hierarchical effects


def ordered_logistic_data(
    table: VerdictTable,
    *,
    levels: int = 5,
    answer_effects: bool | str = "auto",
    difficulty: bool = True,
    position_bias: bool | str = "auto",
    theta_sd: float = 2.0,
    pad_to: int | None = None,
    models: Sequence[str] | None = None,
) -> tuple[dict[str, Any], dict[str, list], dict[str, list[str]]]:
    """Model data, coords and dims of :func:`ordered_logistic_model` for a verdict table.

    Parameters
    ----------
    table
        Verdicts (every judge; each row, both orders included, is one observation).
    levels
        5: the five-point margins; 3: their sign (margins ±2 become ±1).
    answer_effects
        Answer effects u for (prompt, model) answers judged at least twice; ``"auto"``:
        when there are any.
    difficulty
        Include prompt difficulty δ.
    position_bias
        ``"auto"``: when some (judge, pair) was judged in both orders.
    theta_sd
        Prior scale of θ.
    pad_to
        Pad to this many rows (masked out) so that tables of different sizes share a
        compiled layout.
    models
        The models θ is indexed by (default the table's); a superset of the table's
        models keeps the layout fixed while models are still missing from the data.
    """
    if levels not in (3, 5):
        raise ValueError(f"levels must be 3 or 5, got {levels}")
    v = table.verdict.astype(int)
    cat = (np.sign(v) + 1) if levels == 3 else v + 2
    names = list(table.models if models is None else models)
    missing = sorted(set(table.models) - set(names))
    if missing:
        raise DataError(
            f"models {missing} of the table are not in models=",
            column="model_a",
            expected="models= listing every model of the table",
        )
    remap = np.array([names.index(x) for x in table.models])
    a, b = remap[table.a], remap[table.b]
    m, n_p = len(names), len(table.prompts)
    key_t, key_o = table.prompt * m + a, table.prompt * m + b
    keys, counts = np.unique(np.r_[key_t, key_o], return_counts=True)
    shared = keys[counts >= 2] if _auto(answer_effects, True, "answer_effects") else keys[:0]
    n_ans = len(shared)

    def answer(key: np.ndarray) -> np.ndarray:
        at = np.minimum(np.searchsorted(shared, key), max(n_ans - 1, 0))
        return np.where((n_ans > 0) & (shared[at] == key) if n_ans else False, at, n_ans)

    ans_t, ans_o = answer(key_t), answer(key_o)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    pairs = pd.DataFrame({"k": table.judge, "lo": lo, "hi": hi, "first": a == lo})
    both_orders = bool((pairs.groupby(["k", "lo", "hi"])["first"].nunique() > 1).any())
    pos = _auto(position_bias, both_orders, "position_bias")
    arrays = {
        "target": a,
        "other": b,
        "judge": table.judge,
        "prompt": table.prompt,
        "answer_target": ans_t,
        "answer_other": ans_o,
        "verdict": cat,
    }
    rows = len(v)
    mask = None
    if pad_to is not None:
        if pad_to < rows:
            raise ValueError(f"pad_to={pad_to} is smaller than the {rows} rows")
        arrays = {k: np.r_[a, np.zeros(pad_to - rows, dtype=a.dtype)] for k, a in arrays.items()}
        arrays["answer_target"][rows:] = arrays["answer_other"][rows:] = n_ans
        arrays["other"][rows:] = 1
        mask = jnp.asarray(np.arange(pad_to) < rows)
    data: dict[str, Any] = {k: jnp.asarray(a, dtype=jnp.int32) for k, a in arrays.items()}
    data.update(
        n_models=m,
        n_judges=len(table.judges),
        n_prompts=n_p if difficulty else 0,
        n_answers=n_ans,
        n_levels=levels,
        position_bias=pos,
        theta_sd=float(theta_sd),
        mask=mask,
    )
    names_p, names_m = np.asarray(table.prompts), np.asarray(names)
    coords = {
        "model": names,
        "judge": list(table.judges),
        "prompt": list(table.prompts),
        "answer": [f"{names_p[k // m]}|{names_m[k % m]}" for k in shared],
        "cut": [f"{c}|{c + 1}" for c in range(-(levels // 2), levels // 2)],
        "gap": [f"h{k + 1}" for k in range((levels - 1) // 2)],
    }
    dims = {
        "theta": ["model"],
        "difficulty": ["prompt"],
        "difficulty_z": ["prompt"],
        "answer_z": ["answer"],
        "log_psi": ["judge"],
        "gamma": ["judge"],
        "log_gap": ["judge", "gap"],
        "cutpoints": ["judge", "cut"],
    }
    return data, coords, dims


def ordered_logistic_spec(table: VerdictTable, **options: Any) -> ModelSpec:
    """The ordered-logistic verdict model bound to ``table``, ready for ``jb.fit``.

    ``options`` are those of :func:`ordered_logistic_data` (``levels``,
    ``answer_effects``, ``difficulty``, ``position_bias``, ``theta_sd``, ``pad_to``,
    ``models``).
    ``jb.fit(spec)`` runs NUTS; ``jb.fit(spec, method="map")`` the MAP of the same
    density (+ Laplace draws).
    """
    if not isinstance(table, VerdictTable):
        raise TypeError(f"expected a VerdictTable, got {type(table).__name__}")
    return ModelSpec(ordered_logistic_model, *ordered_logistic_data(table, **options))


def _theta_draws(idata: az.InferenceData) -> tuple[np.ndarray, list[str]]:
    theta = idata.posterior["theta"]
    names = (
        [str(x) for x in theta.coords["model"].values]
        if "model" in theta.coords
        else [str(k) for k in range(theta.shape[-1])]
    )
    return theta.values.reshape(-1, theta.shape[-1]), names


def theta_means(idata: az.InferenceData) -> pd.Series:
    """Posterior mean θ by model (the ordinal model's ranking scores)."""
    draws, names = _theta_draws(idata)
    return pd.Series(draws.mean(axis=0), index=names, name="theta")


def theta_gaps(
    idata: az.InferenceData,
    anchor: str,
    *,
    level: float = 0.9,
    truth: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """θ_m − θ_anchor per model: posterior mean and central interval (+ truth, covered).

    Parameters
    ----------
    idata
        A fit of :func:`ordered_logistic_model`.
    anchor
        The reference model.
    level
        Interval level.
    truth
        True θ by model (a simulation): adds ``truth`` and ``covered`` columns.
    """
    draws, names = _theta_draws(idata)
    if anchor not in names:
        raise DataError(f"no model {anchor!r} in the posterior", expected=f"one of {names}")
    gap = draws - draws[:, [names.index(anchor)]]
    q = (1.0 - level) / 2.0
    frame = pd.DataFrame(
        {
            "model": names,
            "mean": gap.mean(axis=0),
            "lo": np.quantile(gap, q, axis=0),
            "hi": np.quantile(gap, 1 - q, axis=0),
        }
    )
    frame = frame[frame["model"] != anchor].reset_index(drop=True)
    if truth is not None:
        true_gap = np.array([truth[m] - truth[anchor] for m in frame["model"]])
        frame["truth"] = true_gap
        frame["covered"] = (frame["lo"] <= true_gap) & (true_gap <= frame["hi"])
    return frame
