"""Coverage of every estimator over random calibration splits of fully labelled items.

When every item of a benchmark carries its human verdict (a re-judged arena, the
debias-llm-as-a-judge battles, the PPR battles), the human labels of a random subset
can stand for a calibration budget and the rest be hidden: each estimator of
:func:`~judgebayes.calibration.analysis.calibrate` (and, optionally, each Bayesian
design of :func:`~judgebayes.calibration.posterior.fit_calibration`) then reports an
interval that either covers the θ of *all* human labels or not. Repeating the split
gives, on real data, what the simulations of :mod:`judgebayes.calibration.sweep` give
on simulated data: coverage, width and bias per estimator and calibration size, with
Monte Carlo standard errors, and how often the Section 7 report's diagnostics (low Ĵ,
ΔĴ interval excluding 0) would have raised their flags.

The randomness is the split alone; the items are fixed. The all-human θ is a
finite-population mean that contains the calibration items, so an interval whose width
is right for the super-population over-covers it, the more so the larger the
calibration fraction f (for the calibration mean alone, by the finite-population
correction √(1 − f): nominal 95% becomes 96.1% at f = 0.1, 97.6% at 0.25, 99.4% at 0.5).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.calibration.analysis import calibrate
from judgebayes.calibration.estimators import ESTIMATOR_LABELS, ESTIMATORS
from judgebayes.calibration.items import JudgedItems
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.parallel import run_units

__all__ = ["SplitStudy", "split_study"]

_BAYES_DESIGNS = ("shared", "model_specific", "hierarchical")


def _row(
    quantity: str, estimator: str, estimate: float, lo: float, hi: float, note: str = ""
) -> dict[str, Any]:
    """One interval of one estimator on one split."""
    return {
        "quantity": quantity,
        "estimator": estimator,
        "estimate": estimate,
        "lo": lo,
        "hi": hi,
        "note": note,
    }


def _label(estimator: str) -> str:
    """Display name of an estimator (``bayes_<design>``, ``bayes_loo`` included)."""
    if estimator in ESTIMATOR_LABELS:
        return ESTIMATOR_LABELS[estimator]
    if estimator == "bayes_loo":
        return "Bayes, LOO's pick"
    return "Bayes " + estimator.removeprefix("bayes_").replace("_", "-")


def _frequentist_rows(
    items: JudgedItems,
    baseline: str,
    others: Sequence[str],
    *,
    n_boot: int,
    alpha: float,
    seed: int,
    low_j: float,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every estimator's θ and Δθ on one split, and the diagnostics the report reads."""
    try:
        cal = calibrate(
            items,
            baseline=baseline,
            n_boot=n_boot,
            n_splits=1,
            alpha=alpha,
            seed=seed,
            progress=False,
        )
    except DataError as err:  # e.g. a model's calibration items all of one class
        quantities = [f"theta[{m}]" for m in items.models]
        quantities += [f"theta[{m}] - theta[{baseline}]" for m in others]
        rows = [
            _row(q, name, np.nan, np.nan, np.nan, f"calibrate refused: {err}")
            for q in quantities
            for name in ESTIMATORS
        ]
        return rows, [{"what": "refused", "quantity": "", "note": str(err)}]
    rows: list[dict[str, Any]] = []
    for m in cal.models:
        for name in ESTIMATORS:
            e = cal.estimate(m, name)
            rows.append(_row(f"theta[{m}]", name, e.estimate, *e.ci, e.remark))
    diag: list[dict[str, Any]] = []
    for m in cal.models:
        j = cal.estimate(m, "J")
        diag.append(
            {
                "what": "J",
                "quantity": f"J[{m}]",
                "estimate": j.plugin,
                "lo": j.ci[0],
                "hi": j.ci[1],
                "flag": bool(j.plugin < low_j),
            }
        )
    for m in others:
        c = cal.compare(m, baseline)
        for r in c.rows:
            rows.append(_row(r.quantity, r.method, r.estimate, *r.ci, r.remark))
        for what, d in (("delta_J", c.delta_j), ("delta_q0", c["q0"]), ("delta_q1", c["q1"])):
            diag.append(
                {
                    "what": what,
                    "quantity": d.quantity,
                    "estimate": d.estimate,
                    "lo": d.ci[0],
                    "hi": d.ci[1],
                    "flag": bool(d.ci[0] > 0 or d.ci[1] < 0),
                }
            )
    report = cal.report(low_j=low_j)
    diag.append(
        {"what": "report", "quantity": "", "flag": not report.ok, "n_flags": len(report.flags)}
    )
    return rows, diag


def _bayes_rows(
    items: JudgedItems,
    baseline: str,
    others: Sequence[str],
    *,
    designs: Sequence[str],
    chains: int,
    draws: int,
    alpha: float,
    seed: int,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """θ and Δθ posteriors of each design on one split, LOO's pick, sampler health."""
    import arviz as az

    from judgebayes.calibration.posterior import fit_calibration

    with warnings.catch_warnings():
        # the sampler's warnings (R-hat, divergences) are counted below, not printed per split
        warnings.simplefilter("ignore")
        bayes = fit_calibration(
            items,
            designs=designs,
            chains=chains,
            draws=draws,
            warmup=draws,
            seed=seed,
            alpha=alpha,
            progress=False,
        )
        loo = bayes.loo() if len(designs) > 1 else None
    pick = str(loo.index[0]) if loo is not None else designs[0]
    rows: list[dict[str, Any]] = []
    for design in designs:
        post = bayes.fits[design].posterior["theta"]
        names = [f"bayes_{design}"] + (["bayes_loo"] if design == pick else [])
        for m in bayes.models:
            v = post.sel(model=m).values.ravel()
            lo, med, hi = np.quantile(v, [alpha / 2, 0.5, 1 - alpha / 2])
            rows += [_row(f"theta[{m}]", n, med, lo, hi) for n in names]
        for m in others:
            d = bayes.difference(m, baseline, design=design)
            rows += [_row(d.quantity, n, d.estimate, *d.ci) for n in names]
    diag = []
    for design in designs:
        idata = bayes.fits[design]
        rhat = az.rhat(idata.posterior[["theta", "J"]]) if chains > 1 else None
        diag.append(
            {
                "what": "bayes",
                "quantity": design,
                "divergences": int(idata.sample_stats["diverging"].sum()),
                "max_rhat": float(max(float(rhat[v].max()) for v in rhat.data_vars))
                if rhat is not None
                else np.nan,
                "loo_rank": int(loo.loc[design, "rank"]) if loo is not None else 0,
                "elpd_diff": float(loo.loc[design, "elpd_diff"]) if loo is not None else 0.0,
                "dse": float(loo.loc[design, "dse"]) if loo is not None else 0.0,
                "flag": design == pick,
            }
        )
    return rows, diag


def _split_unit(
    config: Mapping[str, Any],
    seed: int,
    *,
    items: JudgedItems,
    baseline: str,
    per_model: bool,
    n_boot: int,
    alpha: float,
    low_j: float,
    designs: Sequence[str],
    bayes_splits: int,
    chains: int,
    draws: int,
) -> dict[str, pd.DataFrame]:
    """One calibration split of one size: every estimator's rows and the diagnostics."""
    split = items.calibration_split(config["size"], seed=seed, per_model=per_model)
    others = [m for m in items.models if m != baseline]
    rows, diag = _frequentist_rows(
        split, baseline, others, n_boot=n_boot, alpha=alpha, seed=seed, low_j=low_j
    )
    if designs and config["split"] < bayes_splits:
        b_rows, b_diag = _bayes_rows(
            split,
            baseline,
            others,
            designs=designs,
            chains=chains,
            draws=draws,
            alpha=alpha,
            seed=seed,
        )
        rows, diag = rows + b_rows, diag + b_diag
    n_cal = split.summary().set_index("model")["n_cal"]
    diag += [
        {"what": "n_cal", "quantity": f"n_cal[{m}]", "estimate": float(n_cal[m])}
        for m in n_cal.index
    ]
    return {"estimates": pd.DataFrame(rows), "diagnostics": pd.DataFrame(diag)}


def _no_rows(value: Any) -> None:
    """The units' values are read from ``RunResult.values``, not its tidy frame."""
    return None


@dataclass(frozen=True, repr=False)
class SplitStudy(ResultDisplay):
    """Coverage, width and bias of every estimator over random calibration splits.

    Attributes
    ----------
    frame
        One row per (size, split, quantity, estimator): ``size``, ``split``, ``seed``,
        ``quantity`` (``theta[M]`` or ``theta[A] - theta[B]``), ``estimator`` (a name of
        :data:`~judgebayes.calibration.estimators.ESTIMATORS`, ``bayes_<design>``, or
        ``bayes_loo``: the design that PSIS-LOO ranks first on that split),
        ``estimate``, ``lo``, ``hi``, ``truth`` (from all human labels), ``defined``,
        ``covered`` (an undefined interval is a miss), ``note``.
    diagnostics
        One row per (size, split, diagnostic): ``what`` is ``J`` (per model, ``flag``:
        Ĵ below ``low_j``), ``delta_J`` (per comparison, ``flag``: its interval
        excludes 0), ``delta_q0``, ``delta_q1`` (likewise), ``report`` (``flag``: the
        Section 7 report raised any warning, ``n_flags`` how many), ``bayes`` (per
        design: ``divergences``, ``max_rhat``, ``loo_rank``, ``elpd_diff``, ``dse``;
        ``flag``: LOO's pick), ``n_cal`` (per model) or ``refused`` (calibrate raised;
        ``note`` says why).
    truth
        θ from all human labels per model, and the differences compared.
    settings
        The study's arguments.
    """

    frame: pd.DataFrame
    diagnostics: pd.DataFrame
    truth: pd.Series
    settings: Mapping[str, Any]

    def summary(self) -> pd.DataFrame:
        """Per (size, quantity, estimator): coverage, width, bias with Monte Carlo SEs.

        ``coverage_mcse`` = √(c(1 − c)/n) over the n splits (binomial);
        ``width_mcse`` and ``bias_mcse`` are sd/√n over the splits with a defined
        interval; ``n_undefined`` counts the others (misses in ``coverage``).
        """
        f = self.frame
        g = f.groupby(["size", "quantity", "estimator"], sort=False)
        n = g.size()
        cov = g["covered"].mean()
        defined = f[f["defined"]].assign(
            width=lambda d: d["hi"] - d["lo"], error=lambda d: d["estimate"] - d["truth"]
        )
        gd = defined.groupby(["size", "quantity", "estimator"], sort=False)
        out = pd.DataFrame(
            {
                "truth": g["truth"].first(),
                "coverage": cov,
                "coverage_mcse": np.sqrt(cov * (1 - cov) / n),
                "width": gd["width"].mean(),
                "width_mcse": gd["width"].std(ddof=1) / np.sqrt(gd.size()),
                "bias": gd["error"].mean(),
                "bias_mcse": gd["error"].std(ddof=1) / np.sqrt(gd.size()),
                "n_splits": n,
                "n_undefined": n - gd.size().reindex(n.index, fill_value=0),
            }
        )
        return out.reset_index()

    def to_frame(self) -> pd.DataFrame:
        """:meth:`summary`."""
        return self.summary()

    def flag_rates(self) -> pd.DataFrame:
        """How often each diagnostic flagged, per size: Ĵ < ``low_j`` per model, the ΔĴ
        (Δq̂0, Δq̂1) interval excluding 0 per comparison, any report warning, and LOO's
        pick per design (share of the splits with that diagnostic, with its binomial
        MCSE)."""
        d = self.diagnostics
        d = d[d["what"].isin(["J", "delta_J", "delta_q0", "delta_q1", "report", "bayes"])].copy()
        d["flag"] = d["flag"].astype(float)
        g = d.groupby(["size", "what", "quantity"], sort=False)["flag"]
        rate, n = g.mean(), g.size()
        return pd.DataFrame(
            {"rate": rate, "mcse": np.sqrt(rate * (1 - rate) / n), "n_splits": n}
        ).reset_index()

    def _headline(self) -> str:
        s = self.settings
        sizes = ", ".join(f"{v:g}" for v in s["sizes"])
        ppi = self.summary()
        ppi = ppi[(ppi["estimator"] == "ppi_2x") & ppi["quantity"].str.startswith("theta[")]
        ppi = ppi[~ppi["quantity"].str.contains(" - ")]
        worst = ppi.groupby("size", sort=False)["coverage"].min()
        return (
            f"{s['n_splits']} calibration splits per size (sizes {sizes}) of "
            f"{len(self.truth)} quantities; lowest PPI++ 2× coverage of a model's θ: "
            + ", ".join(f"{v:.2f} at {k:g}" for k, v in worst.items())
            + f" (nominal {1 - s['alpha']:.2f})"
        )

    def __str__(self) -> str:
        s = self.settings
        t = self.summary()
        t["cell"] = [
            f"{c:.2f}±{cm:.2f} w{w:.3f}" if np.isfinite(w) else f"{c:.2f}±{cm:.2f} undefined"
            for c, cm, w in zip(t["coverage"], t["coverage_mcse"], t["width"], strict=True)
        ]
        wide = t.pivot_table(
            index=["size", "quantity"],
            columns="estimator",
            values="cell",
            aggfunc="first",
            sort=False,
        )
        head = (
            f"Coverage (± Monte Carlo SE) and mean width (w) of {100 * (1 - s['alpha']):g}% "
            f"intervals over {s['n_splits']} random calibration splits per size "
            f"(Bayesian designs on the first {s['bayes_splits']}); truth: θ from all "
            f"human labels; RG (shared) uses {s['baseline']}'s calibration"
        )
        return head + "\n" + wide.to_string()

    def plot(
        self,
        quantities: Sequence[str] | None = None,
        *,
        what: str = "coverage",
        estimators: Sequence[str] | None = None,
        axes: Any = None,
    ) -> np.ndarray:
        """Coverage (or width, or bias) against calibration size, one panel per quantity.

        Parameters
        ----------
        quantities
            Which quantities (default: every one, in the order of :attr:`frame`).
        what
            ``"coverage"`` (± 2 Monte Carlo SEs, nominal level dotted), ``"width"``
            or ``"bias"`` (± 2 SEs).
        estimators
            Which estimators (default: all).
        axes
            Axes to draw into, one per quantity (a new row of panels when ``None``).

        Returns
        -------
        numpy.ndarray
            The axes drawn.
        """
        import matplotlib.pyplot as plt

        if what not in ("coverage", "width", "bias"):
            raise ValueError(f"what must be 'coverage', 'width' or 'bias', got {what!r}")
        t = self.summary()
        qs = list(quantities) if quantities is not None else list(dict.fromkeys(t["quantity"]))
        names = list(estimators) if estimators is not None else list(dict.fromkeys(t["estimator"]))
        if axes is None:
            _, axes = plt.subplots(
                1, len(qs), figsize=(3.2 * len(qs), 3.0), sharey=what == "coverage", squeeze=False
            )
        axes = np.asarray(axes).ravel()
        mcse = {"coverage": "coverage_mcse", "width": "width_mcse", "bias": "bias_mcse"}[what]
        for ax, q in zip(axes, qs, strict=True):
            for k, name in enumerate(names):
                r = t[(t["quantity"] == q) & (t["estimator"] == name)]
                if r.empty:
                    continue
                x = np.arange(len(r)) + 0.06 * (k - len(names) / 2)
                ax.errorbar(x, r[what], yerr=2 * r[mcse], fmt="o-", ms=3, lw=1, label=_label(name))
            sizes = list(dict.fromkeys(t["size"]))
            ax.set_xticks(range(len(sizes)), [f"{v:g}" for v in sizes])
            ax.set_xlabel("calibration size")
            ax.set_title(q, fontsize=8)
            if what == "coverage":
                ax.axhline(1 - self.settings["alpha"], ls=":", color="k", lw=1)
            elif what == "bias":
                ax.axhline(0, ls=":", color="k", lw=1)
        axes[0].set_ylabel(what)
        axes[0].legend(fontsize=6, frameon=False)
        return axes


def split_study(
    items: JudgedItems,
    *,
    sizes: Sequence[float | int] = (0.1, 0.25, 0.5),
    n_splits: int = 200,
    per_model: bool = False,
    baseline: str | None = None,
    n_boot: int = 1000,
    alpha: float = 0.05,
    low_j: float = 0.3,
    designs: Sequence[str] = (),
    bayes_splits: int = 20,
    chains: int = 2,
    draws: int = 500,
    seed: int = 0,
    scheduler: Any = "serial",
    n_workers: int = 2,
    progress: bool = True,
) -> SplitStudy:
    """Every estimator over many random calibration splits of fully labelled items.

    For each calibration size and split, :meth:`JudgedItems.calibration_split` keeps
    the human labels of a random calibration set, :func:`calibrate` runs the naive,
    Rogan–Gladen (shared, 2×) and PPI++ (1×, 2×) estimators with the paired bootstrap,
    and, on the first ``bayes_splits`` splits, :func:`fit_calibration` fits the
    Bayesian ``designs`` (NUTS); each interval of each model's θ, and of each model's
    Δθ against ``baseline``, is scored against the θ of all human labels.

    Parameters
    ----------
    items
        Judged items with a human label on (nearly) every item.
    sizes
        Calibration sizes: fractions in (0, 1) or counts
        (:meth:`~judgebayes.calibration.items.JudgedItems.calibration_split`).
    n_splits
        Random splits per size.
    per_model
        Draw each model's calibration set separately (items that belong to one model
        each, e.g. the debias-llm-as-a-judge battles of one target against several
        opponents); otherwise item ids are drawn across models (both sides of a battle
        together).
    baseline
        The model whose calibration RG (shared) reuses and against which Δθ is taken,
        the same on every split. Default: the model with the most human-labelled items.
    n_boot, alpha, low_j
        Bootstrap replicates per split, interval level 1 − alpha, and the Ĵ below
        which the Section 7 report warns. PPI++ 1× uses one random half of each
        split's calibration items (``calibrate(n_splits=1)``: a 1× budget).
    designs
        Bayesian designs to fit (any of ``"shared"``, ``"model_specific"``,
        ``"hierarchical"``; none by default: NUTS costs seconds per split).
    bayes_splits, chains, draws
        The designs run on the first ``bayes_splits`` splits of each size, each with
        ``chains`` × ``draws`` NUTS draws after as many warm-up iterations.
    seed
        Root seed: split k of size s gets its own seed (:func:`judgebayes.parallel.unit_seeds`)
        for the split, the bootstrap and NUTS.
    scheduler, n_workers, progress
        As for :func:`judgebayes.parallel.run_units` (one unit per split; serial by
        default).

    Returns
    -------
    SplitStudy
        :meth:`SplitStudy.summary`: coverage, width and bias with Monte Carlo SEs;
        :meth:`SplitStudy.flag_rates`: how often the diagnostics flagged.

    Raises
    ------
    DataError
        When ``baseline`` is not a model of ``items`` or an item lacks its human label
        (the truth).
    """
    if n_splits < 1:
        raise ValueError(f"n_splits must be at least 1, got {n_splits}")
    unknown = [d for d in designs if d not in _BAYES_DESIGNS]
    if unknown:
        raise ValueError(f"unknown design {unknown[0]!r}; expected some of {_BAYES_DESIGNS}")
    f = items.frame
    if f["human_label"].isna().any():
        row = f[f["human_label"].isna()].iloc[0]
        raise DataError(
            f"item {row['item_id']!r} of {row['model']!r} has no human label, so the truth "
            "(θ from all human labels) is not defined",
            column="human_label",
            expected="a human label on every item (a fully labelled benchmark)",
        )
    labelled = f.groupby("model")["item_id"].size()
    if baseline is None:
        baseline = str(labelled.idxmax())
    elif baseline not in items.models:
        raise DataError(
            f"unknown baseline {baseline!r}",
            column="model",
            expected=f"one of {list(items.models)}",
        )
    theta = items.human_accuracy()
    truth = {f"theta[{m}]": float(theta[m]) for m in items.models}
    truth.update(
        {
            f"theta[{m}] - theta[{baseline}]": float(theta[m] - theta[baseline])
            for m in items.models
            if m != baseline
        }
    )
    grid = [{"size": size, "split": k} for size in sizes for k in range(n_splits)]
    shared = {
        "items": items,
        "baseline": baseline,
        "per_model": per_model,
        "n_boot": n_boot,
        "alpha": alpha,
        "low_j": low_j,
        "designs": tuple(designs),
        "bayes_splits": bayes_splits,
        "chains": chains,
        "draws": draws,
    }
    run = run_units(
        _split_unit,
        grid,
        seed=seed,
        scheduler=scheduler,
        n_workers=n_workers,
        shared=shared,
        tidy=_no_rows,
        progress=progress,
    )
    run.raise_failures()
    est, diag = [], []
    for config, unit_seed, value in zip(run.configs, run.seeds, run.values, strict=True):
        head = {"size": config["size"], "split": config["split"], "seed": int(unit_seed)}
        est.append(value["estimates"].assign(**head))
        diag.append(value["diagnostics"].assign(**head))
    frame = pd.concat(est, ignore_index=True)
    frame["truth"] = frame["quantity"].map(truth)
    frame["defined"] = np.isfinite(frame["estimate"]) & np.isfinite(frame["lo"])
    frame["covered"] = (
        frame["defined"] & (frame["lo"] <= frame["truth"]) & (frame["truth"] <= frame["hi"])
    )
    lead = ["size", "split", "seed"]
    frame = frame[lead + [c for c in frame.columns if c not in lead]]
    diagnostics = pd.concat(diag, ignore_index=True)
    diagnostics = diagnostics[lead + [c for c in diagnostics.columns if c not in lead]]
    settings = {
        "sizes": tuple(sizes),
        "n_splits": n_splits,
        "per_model": per_model,
        "baseline": baseline,
        "n_boot": n_boot,
        "alpha": alpha,
        "low_j": low_j,
        "designs": tuple(designs),
        "bayes_splits": min(bayes_splits, n_splits) if designs else 0,
        "chains": chains,
        "draws": draws,
        "seed": seed,
    }
    return SplitStudy(frame, diagnostics, pd.Series(truth, name="truth"), settings)
