"""The reporting checklist of Section 7, filled in from a calibration analysis.

:meth:`Calibration.report <judgebayes.calibration.analysis.Calibration.report>`
returns a :class:`CalibrationReport`: the seven checklist items (estimand, single
model vs comparison, calibration design, intervals, judge diagnostics, ΔJ, and
when to weaken a claim) written out for the data at hand, and the warnings the
diagnostics raise (low Ĵ, ΔĴ interval excluding zero, undefined or clipped RG, RG
intervals conditional on Ĵ* > 0, shared calibration unverifiable because a model has
no calibration labels, confident estimators of opposite sign) and, beyond the paper's
checklist, a Δq̂0 or Δq̂1 interval excluding zero while ΔĴ's does not: Appendix C's bias
of borrowed calibration, [θ Δq1 − (1 − θ) Δq0]/J, grows when the two error rates move in
opposite directions, which ΔJ = Δq0 + Δq1 cannot see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from judgebayes.calibration.bootstrap import format_interval
from judgebayes.calibration.estimators import ESTIMATOR_LABELS
from judgebayes.core.results import ResultDisplay

if TYPE_CHECKING:
    from judgebayes.calibration.analysis import Calibration, Comparison

__all__ = ["CalibrationReport"]


@dataclass(frozen=True, repr=False)
class CalibrationReport(ResultDisplay):
    """The seven-point reporting checklist of Section 7, filled in, with warnings.

    ``checklist`` is a tuple of ``(title, text)`` for items 1–7; ``flags`` the
    warnings (low Ĵ, ΔĴ interval excluding zero, or Δq̂0 / Δq̂1 excluding zero while ΔĴ
    does not, undefined or clipped RG, RG intervals conditional on Ĵ* > 0, shared
    calibration unverifiable because a compared model has no calibration labels so ΔĴ
    cannot be estimated, estimators disagreeing in sign);
    ``ok`` is true when there are none.
    """

    checklist: tuple[tuple[str, str], ...]
    flags: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.flags

    def to_dict(self) -> dict[str, Any]:
        return {
            "checklist": [
                {"item": k + 1, "title": t, "text": x} for k, (t, x) in enumerate(self.checklist)
            ],
            "flags": list(self.flags),
        }

    def _headline(self) -> str:
        head = f"Section 7 checklist, {len(self.checklist)} items; "
        if not self.flags:
            return head + "no warnings"
        first = self.flags[0] if len(self.flags[0]) <= 100 else self.flags[0][:99] + "…"
        return head + f"{len(self.flags)} warning(s), first: {first}"

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.to_dict()["checklist"])

    def __str__(self) -> str:
        lines = [f"{k + 1}. {t}: {x}" for k, (t, x) in enumerate(self.checklist)]
        lines += [f"WARNING: {f}" for f in self.flags] or ["no warnings"]
        return "\n".join(lines)


def section7_report(
    cal: Calibration,
    comps: Sequence[Comparison],
    *,
    low_j: float = 0.3,
) -> CalibrationReport:
    """The Section 7 checklist of ``cal`` for the comparisons ``comps``, with warnings.

    ``low_j``: Ĵ below this flags unstable corrected estimates (Section 4.4).
    """
    s = cal.sizes.set_index("model")
    level = f"{100 * (1 - cal.alpha):g}%"
    flags: list[str] = []
    for m in cal.models:
        j = cal.estimate(m, "J")  # NaN without calibration labels: no J flag
        if np.isfinite(j.plugin) and j.plugin <= 0:
            flags.append(
                f"{m}: Ĵ = {j.plugin:.3f} ≤ 0, the judge is no better than chance; "
                f"RG is undefined and every corrected estimate is unreliable"
            )
        elif j.plugin < low_j:
            flags.append(
                f"{m}: low judge quality Ĵ = {j.plugin:.3f} [{j.ci[0]:.3f}, "
                f"{j.ci[1]:.3f}] < {low_j}: corrected estimates are unstable "
                f"(RG scales as 1/J); weaken claims"
            )
        for name in ("rg", "rg_2x"):
            raw = cal.plugin[f"{name}_raw"][cal._k(m)]
            if np.isfinite(raw) and not 0 <= raw <= 1:
                flags.append(f"{m}: {ESTIMATOR_LABELS[name]} = {raw:.3f} outside [0, 1], clipped")
    # Intervals over the replicates with Ĵ* > 0 only (RG divides by Ĵ*).
    conditional = [
        (f"{ESTIMATOR_LABELS['rg_2x']} for {m}", cal.estimate(m, "rg_2x"))
        for m in cal.models
        if m not in cal.unlabelled
    ]
    conditional.insert(
        0,
        (
            f"{ESTIMATOR_LABELS['rg']} (every model, {cal.baseline}'s calibration)",
            cal.estimate(cal.baseline, "rg"),
        ),
    )
    conditional = [(who, e) for who, e in conditional if e.conditional_on_j_positive]
    flags += [
        f"{who}: undefined (Ĵ* ≤ 0) in {e.n_undefined / e.n_boot:.1%} of bootstrap "
        f"replicates; its interval is conditional on Ĵ* > 0 (the other replicates), "
        f"so it understates the uncertainty"
        for who, e in conditional
    ]
    compared = set()
    for c in comps:
        missing = [m for m in (c.a, c.b) if m in cal.unlabelled]
        compared.update(missing)
        if not c.verified:
            who = " and ".join(missing)
            rg = c["rg"]
            flags.append(
                f"{c.a} vs {c.b}: shared calibration is unverifiable: {who} "
                f"{'has' if len(missing) == 1 else 'have'} no calibration labels, "
                f"so ΔĴ cannot be estimated and RG (shared) Δθ = "
                f"{format_interval(rg.estimate, *rg.ci, True)} rests on {cal.baseline}'s "
                f"calibration unchecked. Shared calibration cannot be a default "
                f"(Section 7): label a calibration sample of {who}'s items, or "
                f"state the assumption and weaken the claim"
            )
        dj = c.delta_j
        dj_excludes = np.isfinite(dj.estimate) and (dj.ci[0] > 0 or dj.ci[1] < 0)
        if dj_excludes:
            flags.append(
                f"ΔĴ = J[{c.a}] − J[{c.b}] = {dj.estimate:+.3f} "
                f"[{dj.ci[0]:+.3f}, {dj.ci[1]:+.3f}] excludes 0: shared "
                f"calibration is not defensible for {c.a} vs {c.b}"
            )
        else:
            # Beyond Section 7: Appendix C's bias of borrowed calibration is
            # [θ Δq1 − (1 − θ) Δq0]/J, so error rates that move in opposite directions (a
            # judge that leans towards one side against one model) bias RG (shared) while
            # ΔJ = Δq0 + Δq1 stays near 0.
            shifted = [
                (q, d)
                for q, d in ((q, c[q]) for q in ("q0", "q1"))
                if np.isfinite(d.estimate) and (d.ci[0] > 0 or d.ci[1] < 0)
            ]
            if shifted:
                what = ", ".join(
                    f"Δq̂{q[1]} = {d.estimate:+.3f} [{d.ci[0]:+.3f}, {d.ci[1]:+.3f}]"
                    for q, d in shifted
                )
                flags.append(
                    f"{c.a} vs {c.b}: {what} excludes 0 although ΔĴ does not: the judge's "
                    f"error rates differ between the two models, which biases RG (shared) "
                    f"by [θ Δq1 − (1 − θ) Δq0]/J (Appendix C) even at ΔJ ≈ 0; shared "
                    f"calibration is not defensible"
                )
        signs = {r.method: np.sign(r.ci) for r in c.rows if np.isfinite(r.estimate)}
        pos = [k for k, v in signs.items() if (v > 0).all()]
        neg = [k for k, v in signs.items() if (v < 0).all()]
        if pos and neg:
            flags.append(
                f"{c.a} vs {c.b}: confident comparisons of opposite sign "
                f"({', '.join(ESTIMATOR_LABELS[k] for k in pos)} > 0; "
                f"{', '.join(ESTIMATOR_LABELS[k] for k in neg)} < 0): a wrong-sign claim "
                f"is likely; prefer model-specific PPI++ and weaken the claim"
            )
    flags += [
        f"{m} has no calibration labels: its RG (shared) θ̂ rests on "
        f"{cal.baseline}'s calibration unchecked (ΔĴ cannot be estimated)"
        for m in cal.unlabelled
        if m not in compared
    ]
    sizes = "; ".join(
        f"{m}: {s.loc[m, 'n_cal']} calibration items ({s.loc[m, 'n_pos']} "
        f"positive, {s.loc[m, 'n_neg']} negative), {s.loc[m, 'n_test']} test "
        f"items"
        for m in cal.models
    )
    diag = "; ".join(
        f"{m}: "
        + ", ".join(
            f"{n} {format_interval(e.estimate, *e.ci)}"
            for n, e in ((n, cal.estimate(m, n)) for n in ("q0", "q1", "J"))
        )
        if s.loc[m, "n_cal"] > 0
        else f"{m}: no calibration labels"
        for m in cal.models
    )
    dj_text = (
        "; ".join(
            f"ΔĴ[{c.a} − {c.b}] "
            + (
                format_interval(c.delta_j.estimate, *c.delta_j.ci, True)
                if c.verified
                else "not estimable (no calibration labels), shared calibration unverifiable"
            )
            for c in comps
        )
        or "no comparison"
    )
    unlabelled = (
        f" {', '.join(cal.unlabelled)} {'has' if len(cal.unlabelled) == 1 else 'have'}"
        f" no calibration labels: only naive and RG (shared) are defined for "
        f"{'it' if len(cal.unlabelled) == 1 else 'them'}, and the shared-"
        f"calibration assumption is unverifiable."
        if cal.unlabelled
        else ""
    )
    cond_text = (
        " RG intervals conditional on Ĵ* > 0 (undefined replicates dropped): "
        + "; ".join(f"{who} {e.n_undefined / e.n_boot:.1%}" for who, e in conditional)
        + "."
        if conditional
        else ""
    )
    checklist = (
        (
            "Estimand and correction",
            "θ = P(Z = 1), the true accuracy. Reported: naive p̂ (uncorrected, estimates p of "
            "Eq. 1) and bias-corrected Rogan–Gladen (RG) and PPI++ estimates.",
        ),
        (
            "Single-model estimation vs comparison",
            f"per-model θ for {len(cal.models)} models, and comparisons Δθ = θ_a − θ_b "
            f"({', '.join(f'{c.a} − {c.b}' for c in comps) or 'none'}).",
        ),
        (
            "Calibration design",
            f"RG (shared) reuses the calibration of {cal.baseline} for every model; RG 2× and "
            f"PPI++ use model-specific calibration (PPI++ 1× on a random half of the "
            f"calibration items). {sizes}.{unlabelled}",
        ),
        (
            "Confidence intervals and their randomness",
            f"{level} percentile bootstrap intervals, {cal.n_boot} replicates resampling "
            f"calibration and test items separately and keeping items paired across models; "
            f"PPI++ 1× pools {cal.n_splits} random half selections. Point estimates are "
            f"bootstrap medians. Judge runs are averaged per item.{cond_text}",
        ),
        ("Judge-quality diagnostics", diag),
        ("ΔJ for comparisons", dj_text),
        (
            "Weaken the claim when diagnostics indicate trouble",
            "diagnostics flag: " + " | ".join(flags)
            if flags
            else "no diagnostic flags; model-specific PPI++ remains the most robust choice",
        ),
    )
    return CalibrationReport(checklist, tuple(flags))
