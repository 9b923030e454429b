"""The Bayesian counterpart of UDA: the hierarchical multi-judge Bradley–Terry as the consensus.

UDA (Zhang, Wang, Wu, Yu, Wang, Bao & Tang, *UDA: Unsupervised Debiasing Alignment for Pair-wise
LLM-as-a-Judge*, 2025, arXiv:2508.09724) pulls every judge's Elo toward the judges' mean. The
generative route says instead what each judge's verdicts are made of (model card
``models/multi_judge/card.md``, :func:`judgebayes.bayes.multi_judge.multi_judge_model`):

    P(i ≻ j | k) = σ(ψ_k (θ_i − θ_j) + δ_{k,i} − δ_{k,j} + η_k · self_k(i, j)),

a consensus strength θ (the consensus Elo, with a posterior interval), each judge's
discrimination ψ_k (its quality: how sharply it separates the models), its
idiosyncratic deviations δ_k (partially pooled, scale τ) and its self-preference η_k
(logit scale: the extra log-odds a judge gives its own model) — the quantity Zhang et al. (2025)
measure only as a deviation of Elo tables (its Figure 2). Each judge's *view* of the
models, ψ_k θ + δ_k on the Elo scale, is the model's debiased analogue of a row of
Zhang et al.'s (2025) judge × model tables (self-preference removed).

When the comparison graph is disconnected, differences across components are not
identified; :func:`fit_consensus` then fits the model on each component separately
(the real 24-judge data of Ramaswamy, Demeure & Rrapaj (*Model Consistency as a Cheap yet Predictive
Proxy for LLM Elo Scores*, EMNLP 2025, arXiv:2509.23510) has 7 components of 5 models).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import arviz as az
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.bayes.inference import fit
from judgebayes.consensus.elo import battle_components
from judgebayes.consensus.metrics import pearson_within_components
from judgebayes.consensus.ratings import JudgeRatings
from judgebayes.core.battles import Battles
from judgebayes.core.bt import ELO_BASE, ELO_SCALE
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.models import multi_judge
from judgebayes.plots import forest, interval_bars

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["BayesConsensus", "fit_consensus"]


def _interval(draws: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Posterior mean and central 1 − α interval over the leading (draw) axis."""
    lo, hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
    return draws.mean(axis=0), lo, hi


@dataclass(frozen=True, repr=False)
class BayesConsensus(ResultDisplay):
    """The multi-judge BT posterior: consensus Elo, self-preference η, judge quality ψ.

    Attributes
    ----------
    elo
        One row per model: ``model, component, elo, elo_lo, elo_hi, sd`` (posterior mean,
        central 1 − α interval and SD of the consensus Elo), best first.
    eta
        One row per self-judging judge: ``judge, model, eta, eta_lo, eta_hi, p_positive``
        (η on the logit scale), and ``eta_elo`` (η · 400/ln 10).
    psi
        One row per judge and component: ``judge, component, psi, psi_lo, psi_hi``.
    tau
        One row per component: ``component, tau, tau_lo, tau_hi``.
    views
        Posterior-mean judge views 1500 + 400/ln 10 · (ψ_k θ_m + δ_{k,m}), judges × models
        (NaN where a judge rated no pair of the model's component).
    judges, models
        Names of the rows and columns of ``views``.
    diagnostics
        One row per component: ``component, max_rhat, min_ess, divergences``.
    idata
        The :class:`arviz.InferenceData` of each component's fit.
    alpha
        1 − the interval level.
    """

    elo: pd.DataFrame
    eta: pd.DataFrame
    psi: pd.DataFrame
    tau: pd.DataFrame
    views: np.ndarray
    judges: tuple[str, ...]
    models: tuple[str, ...]
    diagnostics: pd.DataFrame
    idata: tuple
    alpha: float

    def to_frame(self) -> pd.DataFrame:
        """The consensus leaderboard (``model, component, elo, elo_lo, elo_hi, sd``)."""
        return self.elo.copy()

    def _headline(self) -> str:
        comps = self.elo["component"].nunique()
        draws = self.idata[0].posterior.sizes
        eta = "; ".join(
            f"η[{r.judge}] {r.eta:+.2f} [{r.eta_lo:+.2f}, {r.eta_hi:+.2f}]"
            for r in self.eta.itertuples()
        )
        return (
            f"multi-judge BT, {len(self.judges)} judges × {len(self.models)} models in "
            f"{comps} component(s), {draws['chain']} chains × {draws['draw']} draws; "
            f"max R-hat {self.diagnostics['max_rhat'].max():.3f}" + (f"; {eta}" if eta else "")
        )

    def judge_ratings(self, method: str = "bayes") -> JudgeRatings:
        """The judges' views as a judge × model table (comparable to Zhang et al.'s (2025)
        tables)."""
        component = self.elo.set_index("model").loc[list(self.models), "component"]
        comp = tuple(int(c) for c in component) if component.nunique() > 1 else None
        return JudgeRatings(method, self.judges, self.models, self.views, comp)

    def correlation(self, reference: pd.Series) -> float:
        """Pearson r of the consensus Elo with a reference, within components."""
        frame = self.elo.set_index("model")
        ref = reference.reindex(frame.index).to_numpy(float)
        return pearson_within_components(
            frame["elo"].to_numpy(), ref, frame["component"].to_numpy()
        )

    def eta_coverage(self, truth: pd.Series) -> pd.DataFrame:
        """:attr:`eta` beside the true η by judge (simulations), with ``covered``."""
        frame = self.eta.copy()
        frame["truth"] = frame["judge"].map(truth)
        frame["covered"] = (frame["eta_lo"] <= frame["truth"]) & (frame["truth"] <= frame["eta_hi"])
        return frame

    def plot(
        self,
        kind: Literal["elo", "eta", "psi"] = "elo",
        ax: Axes | None = None,
        *,
        truth: Mapping[str, float] | None = None,
    ) -> Axes:
        """``"elo"``: forest of the consensus Elo; ``"eta"``: each self-judging judge's η with
        its interval; ``"psi"``: judge discrimination ψ (first component)."""
        level = f"{100 * (1 - self.alpha):g}%"
        if kind == "elo":
            ax = forest(self.elo, ax, alpha=self.alpha, truth=truth)
            ax.set_xlabel(f"consensus Elo ({level} posterior interval)")
            for text in ax.get_legend().get_texts():  # forest() names bootstrap intervals
                text.set_text(text.get_text().replace("bootstrap", "posterior"))
            return ax
        if kind == "eta":
            ax = interval_bars(
                self.eta["judge"],
                self.eta["eta"],
                self.eta["eta_lo"],
                self.eta["eta_hi"],
                ax,
                ylabel="self-preference η (logit)",
                title=f"self-preference, {level} posterior interval",
            )
            if truth is not None:
                ax.plot(
                    np.arange(len(self.eta)),
                    self.eta["judge"].map(truth),
                    "x",
                    color="black",
                    label="truth",
                )
                ax.legend(frameon=False, fontsize=7)
            return ax
        if kind == "psi":
            first = self.psi[self.psi["component"] == self.psi["component"].iloc[0]]
            return interval_bars(
                first["judge"],
                np.log(first["psi"]),
                np.log(first["psi_lo"]),
                np.log(first["psi_hi"]),
                ax,
                ylabel="log ψ (discrimination)",
                title="judge quality ψ (log scale)",
            )
        raise ValueError(f"kind must be 'elo', 'eta' or 'psi', got {kind!r}")


def _own_in(own: Mapping[str, str | list[str]], models: Sequence[str]) -> dict:
    out = {}
    for judge, mine in own.items():
        names = [mine] if isinstance(mine, str) else list(mine)
        kept = [m for m in names if m in models]
        if kept:
            out[judge] = kept[0] if isinstance(mine, str) else kept
    return out


def fit_consensus(
    battles: Battles,
    *,
    own_model: Mapping[str, str | list[str]] | None = None,
    target: str = "judge_label",
    chains: int = 2,
    draws: int = 500,
    warmup: int = 500,
    alpha: float = 0.05,
    seed: int = 0,
    progress: bool = True,
) -> BayesConsensus:
    """Fit the hierarchical multi-judge BT (``jb.models.multi_judge`` + ``jb.fit``, NUTS).

    Parameters
    ----------
    battles
        Battles of several judges (a ``judge`` column).
    own_model
        ``{judge: its own model (or family list)}`` for the self-preference term η.
    target
        The label column (ties count ½).
    chains, draws, warmup
        NUTS settings of each component's fit.
    alpha
        Intervals are central 1 − α posterior intervals.
    seed
        Random seed (component *c* uses ``seed + c``).
    progress
        Show a progress bar.

    Returns
    -------
    BayesConsensus
        Fitted on each component of the comparison graph separately when it is
        disconnected (differences across components are not identified).
    """
    if not battles.judges:
        raise DataError("battles need a 'judge' column for the multi-judge model", column="judge")
    own_model = dict(own_model or {})
    unknown = sorted(set(own_model) - set(battles.judges))
    if unknown:
        raise DataError(
            f"--own names judge(s) not in the data: {unknown}",
            column="judge",
            expected=f"one of {list(battles.judges)}",
        )
    for judge, mine in own_model.items():
        names = [mine] if isinstance(mine, str) else list(mine)
        if not set(names) & set(battles.models):
            raise DataError(
                f"judge {judge!r}: own model {mine!r} is not a contestant",
                column="model",
                expected="a model that appears in the battles",
            )
    component = battle_components(battles) or (0,) * len(battles.models)
    groups = [
        [m for m, c in zip(battles.models, component, strict=True) if c == g]
        for g in sorted(set(component))
    ]
    judges, models = battles.judges, battles.models
    views = np.full((len(judges), len(models)), np.nan)
    elo_rows, eta_rows, psi_rows, tau_rows, diag_rows, fits = [], [], [], [], [], []
    a = battles.column("model_a")
    for c, names in enumerate(
        tqdm(groups, desc="multi-judge BT by component", disable=not progress or len(groups) == 1)
    ):
        sub = battles.subset(np.isin(a, names), reason="other components")
        own_c = _own_in(own_model, sub.models)
        idata = fit(
            multi_judge(sub, target=target, own_model=own_c or None),
            chains=chains,
            draws=draws,
            warmup=warmup,
            seed=seed + c,
            progress=progress and len(groups) == 1,
        )
        fits.append(idata)
        post = idata.posterior.stack(sample=("chain", "draw")).transpose("sample", ...)
        elo = post["elo"].values
        mean, lo, hi = _interval(elo, alpha)
        elo_rows += [
            (m, c, mean[n], lo[n], hi[n], elo[:, n].std()) for n, m in enumerate(sub.models)
        ]
        psi = post["psi"].values
        pm, plo, phi = _interval(psi, alpha)
        psi_rows += [(k, c, pm[n], plo[n], phi[n]) for n, k in enumerate(sub.judges)]
        tm, tlo, thi = _interval(post["tau"].values, alpha)
        tau_rows.append((c, float(tm), float(tlo), float(thi)))
        eta = post["eta"].values
        for judge, mine in own_c.items():
            n = sub.judges.index(judge)
            em, elo_, ehi = _interval(eta[:, n], alpha)
            eta_rows.append(
                (
                    judge,
                    mine if isinstance(mine, str) else ",".join(mine),
                    float(em),
                    float(elo_),
                    float(ehi),
                    float((eta[:, n] > 0).mean()),
                )
            )
        view = ELO_BASE + ELO_SCALE * (
            psi[:, :, None] * post["theta"].values[:, None, :] + post["delta"].values
        )
        rows = [judges.index(k) for k in sub.judges]
        cols = [models.index(m) for m in sub.models]
        views[np.ix_(rows, cols)] = view.mean(axis=0)
        diag_rows.append(_diagnostics(idata, c))
    elo_frame = pd.DataFrame(
        elo_rows, columns=["model", "component", "elo", "elo_lo", "elo_hi", "sd"]
    ).sort_values("elo", ascending=False, ignore_index=True)
    eta_frame = pd.DataFrame(
        eta_rows, columns=["judge", "model", "eta", "eta_lo", "eta_hi", "p_positive"]
    )
    eta_frame["eta_elo"] = eta_frame["eta"] * ELO_SCALE
    return BayesConsensus(
        elo_frame,
        eta_frame,
        pd.DataFrame(psi_rows, columns=["judge", "component", "psi", "psi_lo", "psi_hi"]),
        pd.DataFrame(tau_rows, columns=["component", "tau", "tau_lo", "tau_hi"]),
        views,
        judges,
        models,
        pd.DataFrame(diag_rows),
        tuple(fits),
        alpha,
    )


def _diagnostics(idata: az.InferenceData, component: int) -> dict[str, float]:
    names = ["theta", "log_psi", "tau", "eta"]
    rhat = az.rhat(idata, var_names=names)
    ess = az.ess(idata, var_names=names)
    divergent = idata.sample_stats.get("diverging")
    return {
        "component": component,
        "max_rhat": float(max(float(rhat[v].max()) for v in names)),
        "min_ess": float(min(float(ess[v].min()) for v in names)),
        "divergences": int(divergent.sum()) if divergent is not None else 0,
    }
