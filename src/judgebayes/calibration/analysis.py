"""One calibration analysis: every estimator per model, paired comparisons, the report.

:func:`calibrate` runs the naive, Rogan–Gladen (shared and model-specific) and PPI++
(1× and 2×) estimators of :mod:`judgebayes.calibration.estimators` on judged items
with the paired bootstrap of :mod:`judgebayes.calibration.bootstrap`, and returns a
:class:`Calibration`: per-model θ̂ and judge diagnostics (q̂0, q̂1, Ĵ), comparisons
Δθ = θ_a − θ_b with ΔJ (:class:`Comparison`, Tables 1–2), the Section 7 report
(:mod:`judgebayes.calibration.report`) and the paper's Figure 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from judgebayes.calibration.bootstrap import BootstrapEstimate, format_interval, paired_bootstrap
from judgebayes.calibration.estimators import ESTIMATOR_LABELS, ESTIMATORS, two_sided_z
from judgebayes.calibration.items import JudgedItems
from judgebayes.calibration.report import CalibrationReport, section7_report
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["Calibration", "Comparison", "calibrate"]


def _se(var: float) -> float:
    """√var of a delta-method variance; a variance of 0 computed as −1e-18 (an exact
    q̂ = 1, say) is 0, a clearly negative or undefined one NaN."""
    if not np.isfinite(var) or var < -1e-12:
        return np.nan
    return float(np.sqrt(max(var, 0.0)))


@dataclass(frozen=True, repr=False)
class Comparison(ResultDisplay):
    """Δθ = θ_a − θ_b under every estimator, with ΔJ, Δq0 and Δq1 (Tables 1–2).

    ``rows`` holds one :class:`~judgebayes.calibration.bootstrap.BootstrapEstimate` per
    estimator (in :data:`~judgebayes.calibration.estimators.ESTIMATORS` order),
    ``diagnostics`` those of ΔJ, Δq0, Δq1. Shared RG uses the calibration of ``baseline``.
    When ``a`` or ``b`` has no calibration labels, ΔJ cannot be estimated and the shared
    RG row has ``verified=False`` with the reason in its ``note`` (:attr:`verified`);
    RG rows whose replicates had Ĵ* ≤ 0 are conditional on Ĵ* > 0
    (``conditional_on_J_positive`` in :meth:`to_frame`).
    """

    a: str
    b: str
    baseline: str
    rows: tuple[BootstrapEstimate, ...]
    diagnostics: tuple[BootstrapEstimate, ...]
    alpha: float

    def __getitem__(self, method: str) -> BootstrapEstimate:
        for row in (*self.rows, *self.diagnostics):
            if row.method == method or row.quantity.startswith(method):
                return row
        raise KeyError(method)

    @property
    def delta_j(self) -> BootstrapEstimate:
        return self.diagnostics[0]

    @property
    def verified(self) -> bool:
        """False when the shared-calibration RG Δθ cannot be checked (ΔJ not estimable)."""
        return all(r.verified for r in self.rows)

    @property
    def estimate(self) -> dict[str, float]:
        return {r.method: r.estimate for r in self.rows}

    @property
    def se(self) -> dict[str, float]:
        return {r.method: r.se for r in self.rows}

    @property
    def ci(self) -> dict[str, tuple[float, float]]:
        return {r.method: r.ci for r in self.rows}

    def _headline(self) -> str:
        best = ", ".join(
            f"{ESTIMATOR_LABELS[r.method]} {format_interval(r.estimate, *r.ci, signed=True)}"
            + ("" if r.verified else " (unverified)")
            for r in self.rows
            if r.method in ("rg", "ppi_2x")
        )
        dj = self.delta_j
        dj_text = (
            format_interval(dj.estimate, *dj.ci, signed=True)
            if np.isfinite(dj.estimate)
            else "not estimable: shared calibration unverifiable"
        )
        return (
            f"Δθ = θ[{self.a}] − θ[{self.b}], {len(self.rows)} estimators, "
            f"{dj.n_boot:,} paired replicates; {best}; ΔĴ {dj_text}"
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([r._row() for r in (*self.rows, *self.diagnostics)]).assign(
            a=self.a, b=self.b
        )

    def __str__(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        lines = [
            f"Δθ = θ[{self.a}] − θ[{self.b}] (bootstrap median, {level} percentile "
            f"interval; shared RG uses {self.baseline}'s calibration):"
        ]
        for r in self.rows:
            se = f"  delta-method se {r.se_delta:.3f}" if np.isfinite(r.se_delta) else ""
            lines.append(
                f"  {ESTIMATOR_LABELS[r.method]:<12} "
                f"{format_interval(r.estimate, *r.ci, signed=True)}"
                f"{se}" + (f"  [{r.remark}]" if r.remark else "")
            )
        for r in self.diagnostics:
            lines.append(
                f"  {r.quantity:<12} {format_interval(r.estimate, *r.ci, signed=True)}"
                + (f"  [{r.remark}]" if r.remark else "")
            )
        return "\n".join(lines)


@dataclass(frozen=True, repr=False)
class Calibration(ResultDisplay):
    """Per-model accuracy under every estimator, judge diagnostics, and comparisons.

    Built by :func:`calibrate`. ``replicates[name]`` has shape ``(n_rep, n_models)``
    (paired across models: each replicate resamples all models' items together);
    ``plugin[name]`` holds the full-data values; ``delta_cov[name]`` the delta-method
    covariance between models.
    """

    models: tuple[str, ...]
    baseline: str
    replicates: Mapping[str, np.ndarray]
    plugin: Mapping[str, np.ndarray]
    delta_cov: Mapping[str, np.ndarray]
    sizes: pd.DataFrame
    alpha: float
    n_boot: int
    n_splits: int
    seed: int
    truth: pd.Series | None = field(default=None)

    def _k(self, model: str) -> int:
        if model not in self.models:
            raise DataError(
                f"unknown model {model!r}", column="model", expected=f"one of {list(self.models)}"
            )
        return self.models.index(model)

    def _delta_key(self, name: str) -> str:
        return {
            "naive": "naive",
            "rg": "rg",
            "rg_2x": "rg_2x",
            "ppi_1x": "ppi_1x",
            "ppi_2x": "ppi",
            "q0": "q0",
            "q1": "q1",
            "J": "J",
        }[name]

    def estimate(self, model: str, method: str) -> BootstrapEstimate:
        """Accuracy of ``model`` under ``method`` (or q0/q1/J diagnostics)."""
        k = self._k(model)
        cov = self.delta_cov.get(self._delta_key(method))
        se = _se(cov[k, k]) if cov is not None else np.nan
        what = f"theta[{model}]" if method in ESTIMATORS else f"{method}[{model}]"
        return self._caveat(
            BootstrapEstimate.from_replicates(
                what,
                method if method in ESTIMATORS else "diagnostic",
                self.replicates[method][:, k],
                self.plugin[method][k],
                se,
                self.alpha,
            ),
            method,
            (model,),
            f"ΔĴ[{model} − {self.baseline}]",
        )

    @cached_property  # read for every estimate and comparison; the sizes never change
    def unlabelled(self) -> tuple[str, ...]:
        """Models without calibration labels (naive and RG (shared) only)."""
        n_cal = self.sizes.set_index("model")["n_cal"]
        return tuple(m for m in self.models if n_cal[m] == 0)

    def _caveat(
        self, e: BootstrapEstimate, method: str, models: tuple[str, ...], delta: str
    ) -> BootstrapEstimate:
        """Mark ``e`` when a model in ``models`` has no calibration labels.

        RG (shared) then rests on an assumption the data cannot check (``delta``, the
        ΔĴ that would check it, cannot be estimated): ``verified=False``. Estimators
        that need the model's own labels are undefined; the note says why.
        """
        missing = [m for m in models if m in self.unlabelled]
        if not missing:
            return e
        who = (
            f"{' and '.join(missing)} {'has' if len(missing) == 1 else 'have'} no "
            "calibration labels"
        )
        if method == "rg":
            return replace(
                e,
                verified=False,
                note=f"{who}, so {delta} cannot be estimated "
                f"and shared calibration cannot be checked",
            )
        return e if np.isfinite(e.estimate) else replace(e, note=who)

    def _headline(self) -> str:
        s = self.sizes
        n_cal, n_items = int(s["n_cal"].sum()), int((s["n_cal"] + s["n_test"]).sum())
        theta = ", ".join(
            f"{m} {e.estimate:.3f} ± {e.se:.3f}"
            for m in self.models[:4]
            for e in (self.estimate(m, "ppi_2x"),)
        )
        more = ", …" if len(self.models) > 4 else ""
        others = [m for m in self.models if m != self.baseline]
        dj = ""
        if others:
            d = self.compare(others[0], self.baseline).delta_j
            dj = f"; ΔĴ[{others[0]} − {self.baseline}] " + (
                f"{d.estimate:+.3f}" if np.isfinite(d.estimate) else "not estimable"
            )
        return (
            f"{len(self.models)} models, {n_items:,} judged items ({n_cal:,} labelled), "
            f"{self.n_boot:,} replicates; θ̂ {ESTIMATOR_LABELS['ppi_2x']}: {theta}{more}{dj}"
        )

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per model and estimator (+ q0, q1, J)."""
        rows = []
        for m in self.models:
            for name in (*ESTIMATORS, "q0", "q1", "J"):
                row = self.estimate(m, name)._row()
                row.update(model=m, method=name)
                rows.append(row)
        out = pd.DataFrame(rows)
        raw = dict(zip(self.models, self.plugin["rg_raw"], strict=True))
        raw2 = dict(zip(self.models, self.plugin["rg_2x_raw"], strict=True))
        out["raw"] = np.where(
            out["method"] == "rg",
            out["model"].map(raw),
            np.where(out["method"] == "rg_2x", out["model"].map(raw2), np.nan),
        )
        cols = [
            "model",
            "method",
            "estimate",
            "lo",
            "hi",
            "se",
            "se_delta",
            "plugin",
            "raw",
            "n_boot",
            "n_undefined",
            "conditional_on_J_positive",
            "verified",
            "note",
        ]
        return out[cols]

    def diagnostics(self) -> pd.DataFrame:
        """Per model q̂0, q̂1, Ĵ with intervals (Tables 1 and 6) and calibration sizes."""
        rows = []
        for m in self.models:
            row: dict[str, Any] = {"model": m}
            for name in ("q0", "q1", "J"):
                e = self.estimate(m, name)
                row.update({name: e.estimate, f"{name}_lo": e.ci[0], f"{name}_hi": e.ci[1]})
            rows.append(row)
        return pd.DataFrame(rows).merge(self.sizes, on="model")

    def compare(self, a: str, b: str) -> Comparison:
        """Δθ = θ_a − θ_b under every estimator and ΔJ, Δq0, Δq1, all paired."""
        ka, kb = self._k(a), self._k(b)

        def diff(name: str, quantity: str, method: str) -> BootstrapEstimate:
            reps, cov = self.replicates[name], self.delta_cov.get(self._delta_key(name))
            var = np.nan if cov is None else cov[ka, ka] + cov[kb, kb] - 2 * cov[ka, kb]
            return self._caveat(
                BootstrapEstimate.from_replicates(
                    quantity,
                    method,
                    reps[:, ka] - reps[:, kb],
                    self.plugin[name][ka] - self.plugin[name][kb],
                    _se(var),
                    self.alpha,
                ),
                name,
                (a, b),
                f"ΔĴ[{a} − {b}]",
            )

        rows = tuple(diff(n, f"theta[{a}] - theta[{b}]", n) for n in ESTIMATORS)
        diags = tuple(diff(n, f"{n}[{a}] - {n}[{b}]", "diagnostic") for n in ("J", "q0", "q1"))
        return Comparison(a, b, self.baseline, rows, diags, self.alpha)

    def comparisons(self) -> list[Comparison]:
        """Every other model against the baseline."""
        return [self.compare(m, self.baseline) for m in self.models if m != self.baseline]

    def report(
        self,
        a: str | None = None,
        b: str | None = None,
        *,
        low_j: float = 0.3,
    ) -> CalibrationReport:
        """The Section 7 checklist for this analysis, with warnings.

        Parameters
        ----------
        a, b
            The comparison to report (default: each model against the baseline).
        low_j
            Ĵ below this flags unstable corrected estimates (Section 4.4; the
            paper's simulations call J_A = 0.3 low).
        """
        comps = [self.compare(a, b)] if a is not None and b is not None else self.comparisons()
        return section7_report(self, comps, low_j=low_j)

    def __str__(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        head = (
            f"Judge-corrected accuracy, bootstrap medians with {level} intervals "
            f"({self.n_boot} replicates; RG (shared) uses {self.baseline}'s calibration)"
        )
        est = {
            (m, n): self.estimate(m, n) for m in self.models for n in (*ESTIMATORS, "q0", "q1", "J")
        }
        marks = {
            k: ("†" if e.conditional_on_j_positive else "") + ("" if e.verified else "‡")
            for k, e in est.items()
        }

        def cell(m: str, n: str) -> str:
            e = est[m, n]
            return format_interval(e.estimate, *e.ci) + marks[m, n]

        frame = pd.DataFrame(
            {m: {ESTIMATOR_LABELS[n]: cell(m, n) for n in ESTIMATORS} for m in self.models}
        ).T
        diag = pd.DataFrame({m: {n: cell(m, n) for n in ("q0", "q1", "J")} for m in self.models}).T
        if self.truth is not None and self.truth.notna().any():
            frame.insert(
                0,
                "true θ (test)",
                self.truth.reindex(self.models).map(lambda v: f"{v:.3f}").to_numpy(),
            )
        parts = [head, frame.rename_axis("model").to_string()]
        cond = [
            f"{ESTIMATOR_LABELS[n]} for {m} in {est[m, n].n_undefined / self.n_boot:.1%}"
            for (m, n), mk in marks.items()
            if "†" in mk
        ]
        if cond:
            parts.append(
                "† interval conditional on Ĵ* > 0 (RG is undefined where a "
                f"replicate's Ĵ* ≤ 0: {', '.join(cond)} of replicates)"
            )
        if self.unlabelled:
            parts.append(
                f"‡ unverified: {', '.join(self.unlabelled)} without calibration "
                f"labels, so ΔĴ cannot be estimated and RG (shared) rests on "
                f"{self.baseline}'s calibration unchecked"
            )
        parts += [
            "",
            "Judge diagnostics (each model's own calibration labels):",
            diag.rename_axis("model").to_string(),
        ]
        parts += ["", *(str(c) for c in self.comparisons())]
        return "\n".join(parts)

    def plot(
        self,
        ax: Axes | None = None,
        *,
        truth: Mapping[str, float] | None = None,
    ) -> Axes:
        """Per-model θ̂ with intervals for each estimator (the paper's Figure 2).

        Parameters
        ----------
        ax
            Axes to draw into (a new figure when ``None``).
        truth
            ``{model: true θ}`` drawn as dotted lines (default: the true test
            accuracy when the items carry it).

        Returns
        -------
        matplotlib.axes.Axes
            The single panel drawn.
        """
        import matplotlib.pyplot as plt

        frame = self.to_frame()
        frame = frame[frame["method"].isin(ESTIMATORS)]
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 0.9 + 1.1 * len(self.models)))
        truth = (
            dict(truth)
            if truth is not None
            else (self.truth.dropna().to_dict() if self.truth is not None else {})
        )
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for k, m in enumerate(self.models):
            for e, name in enumerate(ESTIMATORS):
                row = frame[(frame["model"] == m) & (frame["method"] == name)].iloc[0]
                y = k + 0.8 * (e - 2) / len(ESTIMATORS)
                if np.isfinite(row["estimate"]):
                    ax.errorbar(
                        row["estimate"],
                        y,
                        xerr=[[row["estimate"] - row["lo"]], [row["hi"] - row["estimate"]]],
                        fmt="o",
                        ms=4,
                        color=colors[e % len(colors)],
                        label=ESTIMATOR_LABELS[name] if k == 0 else None,
                    )
            if m in truth:
                ax.plot(
                    [truth[m]] * 2,
                    [k - 0.45, k + 0.45],
                    ":",
                    color="k",
                    label="true θ" if k == 0 else None,
                )
        ax.set_yticks(range(len(self.models)), self.models)
        ax.set_xlabel("accuracy θ")
        ax.legend(fontsize=7, frameon=False, loc="best")
        return ax


def calibrate(
    items: JudgedItems | pd.DataFrame,
    *,
    baseline: str | None = None,
    n_boot: int = 2000,
    n_splits: int = 20,
    alpha: float = 0.05,
    seed: int = 0,
    progress: bool = True,
    chunk_size: int = 500,
) -> Calibration:
    """Naive, RG (shared and model-specific) and PPI++ (1× and 2×) with paired bootstrap.

    Parameters
    ----------
    items
        Judged items (a :class:`JudgedItems` or a DataFrame it accepts).
    baseline
        The model whose calibration the shared RG reuses (the incumbent with
        pre-existing labels, Appendix E.3). Default: the model with the most
        calibration items.
    n_boot
        Bootstrap replicates (the paper uses 10,000; at least 2,000 recommended).
    n_splits
        PPI++ 1× draws this many random halves of the calibration items and pools
        ``n_boot`` replicates of each (Appendix E.4 uses 20). Pooling adds the
        half-selection variance on top of the half's own sampling variance, so the
        pooled interval is conservative for a fixed half; ``n_splits=1`` gives the
        interval of one fixed half (a true 1× labelling budget).
    alpha
        Intervals have level 1 − alpha.
    seed
        Seed of the resampling and of the half selections.
    progress
        Show a progress bar.
    chunk_size
        Replicates computed together.

    Returns
    -------
    Calibration
        Per-model estimates (:meth:`Calibration.to_frame`), diagnostics,
        comparisons (:meth:`Calibration.compare`) and the Section 7 report.

    Raises
    ------
    DataError
        When no model (or not the baseline) has calibration labels, or a model's
        calibration items are all positive or all negative (q̂ undefined).
    """
    if not isinstance(items, JudgedItems):
        items = JudgedItems(items)
    if n_boot < 100:
        raise ValueError(f"n_boot must be at least 100, got {n_boot}")
    if n_splits < 1:
        raise ValueError(f"n_splits must be at least 1, got {n_splits}")
    two_sided_z(alpha)
    models = items.models
    sizes = items.summary()
    s = sizes.set_index("model")
    if (s["n_cal"] == 0).all():
        raise DataError(
            "no item has a human label, so nothing can be calibrated",
            column="human_label",
            expected="human labels on a calibration subset",
        )
    for m in models:
        if s.loc[m, "n_cal"] and (s.loc[m, "n_pos"] == 0 or s.loc[m, "n_neg"] == 0):
            raise DataError(
                f"model {m!r}: its {s.loc[m, 'n_cal']} calibration items are all "
                f"{'negative' if s.loc[m, 'n_pos'] == 0 else 'positive'}, so "
                f"q̂{1 if s.loc[m, 'n_pos'] == 0 else 0} and J are undefined",
                column="human_label",
                expected="calibration items with both human labels 0 and 1",
            )
        if s.loc[m, "n_test"] == 0:
            raise DataError(
                f"model {m!r} has no test items (every item has a human label)",
                column="split",
                expected="test items without human labels, a 'split' column marking the "
                "test set, or JudgedItems.calibration_split (the CLI: --calibration-size)",
            )
    if baseline is None:
        baseline = str(s["n_cal"].idxmax())
    elif baseline not in models:
        raise DataError(
            f"unknown baseline {baseline!r}", column="model", expected=f"one of {list(models)}"
        )
    if s.loc[baseline, "n_cal"] == 0:
        raise DataError(
            f"baseline {baseline!r} has no calibration labels to share",
            column="human_label",
            expected="a baseline with human labels",
        )
    replicates, plugin, delta = paired_bootstrap(
        items,
        models.index(baseline),
        n_boot=n_boot,
        n_splits=n_splits,
        seed=seed,
        progress=progress,
        chunk_size=chunk_size,
    )
    truth = items.true_test_accuracy()
    return Calibration(
        models=models,
        baseline=baseline,
        replicates=replicates,
        plugin=plugin,
        delta_cov=delta,
        sizes=sizes,
        alpha=alpha,
        n_boot=n_boot,
        n_splits=n_splits,
        seed=seed,
        truth=truth if truth.notna().any() else None,
    )
