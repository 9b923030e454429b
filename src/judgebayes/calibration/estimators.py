"""Judge misclassification: naive, Rogan–Gladen, PPI++, and the J / ΔJ diagnostics.

Implements seed ``001_627fe5a0e5e077bc`` (Fiedler 2026, *Bias and uncertainty in
LLM-as-a-judge estimation*). A judge emits Ẑ ∈ {0, 1} ("this answer is correct")
for a base model's response whose true correctness is Z. With sensitivity
q1 = P(Ẑ=1 | Z=1) and specificity q0 = P(Ẑ=0 | Z=0), the judge-positive rate is
(Eq. 1) ``p = θ q1 + (1 − θ)(1 − q0) = θ J + (1 − q0)`` with Youden's
``J = q0 + q1 − 1``, so the naive p̂ estimates p, not the accuracy θ = P(Z=1).

Estimators (Sections 3–4, Appendices A–C)
    ``naive``   p̂ on the test set;
    ``rg``      Rogan–Gladen θ̂ = (p̂ + q̂0 − 1)/Ĵ with *shared* calibration: q̂0, q̂1
                from the baseline model's labels, reused for every model;
    ``rg_2x``   Rogan–Gladen with model-specific calibration (each model's own labels);
    ``ppi_1x``  PPI++ θ̂ = Ȳ_cal + λ(p̂_test − p̂_cal), model-specific calibration on a
                random half of the calibration items (the labelling budget of ``rg``);
    ``ppi_2x``  PPI++ on all calibration items (the budget of ``rg_2x``).

Comparisons are Δθ = θ_a − θ_b; ΔJ = J_a − J_b. Intervals are percentile bootstrap
intervals that resample calibration and test items separately and keep items paired
across models (Appendix E.4); point estimates are bootstrap medians. Every statistic
is a function of a handful of per-model sums (``n, ΣY, ΣẐ, ΣẐ², ΣYẐ`` on calibration
items, ``N, ΣẐ, ΣẐ²`` on test items), so a bootstrap replicate is one matrix product
of multinomial item weights with the distinct item rows.

Data: :class:`JudgedItems`, one row per judged response (``model, item_id,
judge_label`` plus optional ``human_label``, ``split``, ``run``). Rows with a human
label form the calibration set unless a ``split`` column says otherwise; repeated
judge runs of one item are collapsed to the item's mean judge label (Appendix E.4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.differentiate import jacobian
from scipy.stats import norm
from tqdm.auto import tqdm

from judgebayes.errors import DataError

__all__ = [
    "ESTIMATORS",
    "AccuracyEstimate",
    "BootstrapEstimate",
    "Calibration",
    "CalibrationReport",
    "Comparison",
    "JudgeRates",
    "JudgedItems",
    "calibrate",
    "judge_rates",
    "naive_estimate",
    "ppi_mean",
    "read_judged_items",
    "rg_shared_difference",
    "rogan_gladen",
    "shared_calibration_bias",
]

ESTIMATORS: tuple[str, ...] = ("naive", "rg", "rg_2x", "ppi_1x", "ppi_2x")
_LABELS = {"naive": "naive", "rg": "RG (shared)", "rg_2x": "RG 2×", "ppi_1x": "PPI++ 1×",
           "ppi_2x": "PPI++ 2×"}
_REQUIRED = ("model", "item_id", "judge_label")


# ----------------------------------------------------------------------------- data
def _labels01(values: pd.Series, column: str, labels: Mapping[Any, float] | None,
              allow_missing: bool) -> np.ndarray:
    """Labels as floats in {0, 1} (NaN = missing); the first bad row raises."""
    raw = values
    if labels:
        norm_map = {(k.strip().lower() if isinstance(k, str) else k): float(v)
                    for k, v in labels.items()}
        values = values.map(lambda v: norm_map.get(v.strip().lower() if isinstance(v, str)
                                                   else v, v))
    if values.dtype == bool:
        values = values.astype(float)
    num = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    missing = values.isna().to_numpy()
    bad = (~missing & ~np.isin(num, (0.0, 1.0))) | (missing & (not allow_missing))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        what = "missing label" if missing[row] else "label outside {0, 1}"
        hint = "" if labels else " (map other values with labels={'Yes': 1, 'No': 0})"
        raise DataError(what, row=row, column=column, expected="0 or 1" + hint,
                        got=None if missing[row] else raw.iloc[row])
    return np.where(missing, np.nan, num)


class JudgedItems:
    """A validated table of judged items, collapsed to one row per (model, item).

    Parameters
    ----------
    frame
        Rows with ``model`` (str), ``item_id`` (hashable), ``judge_label`` ∈ {0, 1};
        optional ``human_label`` ∈ {0, 1} or missing, ``split`` ∈ {"calibration",
        "test"} and ``run`` (repeated judge runs of one item).
    labels
        Optional mapping of other label spellings to 0/1, e.g. ``{"Yes": 1, "No": 0}``.

    Notes
    -----
    Without ``split``, an item is in the calibration set of its model when it has a
    human label. With ``split``, calibration rows need a human label and human labels
    on test rows are kept only as the *true* test accuracy
    (:meth:`true_test_accuracy`); no estimator reads them. Repeated runs (``run``)
    are collapsed to ``judge_label`` = mean over runs, ``judge_pos`` = number of
    positive runs, ``n_runs`` (Appendix E.4: passing k·n run-level rows would bias
    PPI++'s λ upwards).
    """

    def __init__(self, frame: pd.DataFrame | Mapping, *,
                 labels: Mapping[Any, float] | None = None) -> None:
        if not isinstance(frame, pd.DataFrame):
            frame = pd.DataFrame(frame)
        self._frame, self.n_input = _validate_items(frame.reset_index(drop=True), labels)

    @property
    def frame(self) -> pd.DataFrame:
        """``model, item_id, split, judge_label, judge_pos, n_runs, human_label`` (a copy)."""
        return self._frame.copy()

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(sorted(self._frame["model"].unique()))

    def __len__(self) -> int:
        return len(self._frame)

    def __repr__(self) -> str:
        s = self.summary()
        return (f"JudgedItems({len(self)} judged items from {self.n_input} rows, "
                f"{len(s)} models, {int(s['n_cal'].sum())} with human labels)")

    def _rows(self, model: str, split: str) -> pd.DataFrame:
        if model not in self.models:
            raise DataError(f"unknown model {model!r}", column="model",
                            expected=f"one of {list(self.models)}")
        f = self._frame
        return f[(f["model"] == model) & (f["split"] == split)]

    def calibration(self, model: str) -> tuple[np.ndarray, np.ndarray]:
        """``(human_label, judge_label)`` of ``model``'s calibration items."""
        rows = self._rows(model, "calibration")
        return rows["human_label"].to_numpy(float), rows["judge_label"].to_numpy(float)

    def test(self, model: str) -> np.ndarray:
        """Judge labels (mean over runs) of ``model``'s test items."""
        return self._rows(model, "test")["judge_label"].to_numpy(float)

    def true_test_accuracy(self) -> pd.Series:
        """Mean human label on test items per model (NaN without test labels)."""
        test = self._frame[self._frame["split"] == "test"]
        out = test.groupby("model")["human_label"].mean()
        return out.reindex(self.models).rename("theta_test")

    def summary(self) -> pd.DataFrame:
        """Per model: calibration size, positives, negatives, test size, max runs."""
        f = self._frame
        cal = f["split"] == "calibration"
        g = pd.DataFrame({"model": f["model"], "cal": cal, "pos": cal & (f["human_label"] == 1),
                          "neg": cal & (f["human_label"] == 0), "test": ~cal,
                          "runs": f["n_runs"]}).groupby("model")
        out = pd.DataFrame({"n_cal": g["cal"].sum(), "n_pos": g["pos"].sum(),
                            "n_neg": g["neg"].sum(), "n_test": g["test"].sum(),
                            "max_runs": g["runs"].max()}).astype(int)
        return out.reindex(self.models).rename_axis("model").reset_index()


def _validate_items(frame: pd.DataFrame, labels: Mapping[Any, float] | None,
                    ) -> tuple[pd.DataFrame, int]:
    missing = [c for c in _REQUIRED if c not in frame.columns]
    if missing:
        raise DataError(f"missing column(s) {missing}; columns present: {list(frame.columns)}",
                        column=missing[0], expected="columns model, item_id, judge_label "
                        "(+ optional human_label, split, run)")
    if len(frame) == 0:
        raise DataError("no judged items: the table is empty", expected="at least one row")
    for col in ("model", "item_id"):
        bad = frame[col].isna().to_numpy()
        if bad.any():
            raise DataError(f"missing {col}", row=int(np.flatnonzero(bad)[0]), column=col,
                            expected="a model name" if col == "model" else "an item id")
    out = pd.DataFrame({"model": frame["model"].astype(str), "item_id": frame["item_id"]})
    out["judge_label"] = _labels01(frame["judge_label"], "judge_label", labels, False)
    out["human_label"] = (_labels01(frame["human_label"], "human_label", labels, True)
                          if "human_label" in frame else np.nan)
    has_human = ~np.isnan(out["human_label"].to_numpy())
    if "split" in frame:
        split = frame["split"].astype("string").str.strip().str.lower()
        split = split.replace({"cal": "calibration", "calib": "calibration"})
        bad = ~split.isin(["calibration", "test"]).to_numpy(dtype=bool)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise DataError("unknown split", row=row, column="split",
                            expected="'calibration' or 'test'", got=frame["split"].iloc[row])
        out["split"] = split.astype(object).to_numpy()
        unlabelled = (out["split"] == "calibration").to_numpy() & ~has_human
        if unlabelled.any():
            raise DataError("calibration row without a human label",
                            row=int(np.flatnonzero(unlabelled)[0]), column="human_label",
                            expected="0 or 1 on every calibration row")
    else:
        out["split"] = np.where(has_human, "calibration", "test")
    keys = ["model", "item_id"] + (["run"] if "run" in frame else [])
    if "run" in frame:
        out["run"] = frame["run"]
    dup = out.duplicated(keys).to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        raise DataError(f"duplicate {tuple(keys)}", row=row, column=keys[-1],
                        expected="one row per (model, item_id)" + (
                            " and run" if "run" in frame else "; add a 'run' column for "
                            "repeated judge runs"), got=out[keys].iloc[row].tolist())
    g = out.assign(h=out["human_label"].fillna(-1.0)).groupby(["model", "item_id"], sort=False)
    for col, what in (("h", "human_label"), ("split", "split")):
        varies = (g[col].transform("nunique") > 1).to_numpy()
        if varies.any():
            raise DataError(f"{what} differs between runs of one item",
                            row=int(np.flatnonzero(varies)[0]), column=what,
                            expected="the same value on every run of an item")
    items = g.agg(split=("split", "first"), judge_label=("judge_label", "mean"),
                  judge_pos=("judge_label", "sum"), n_runs=("judge_label", "size"),
                  human_label=("human_label", "first")).reset_index()
    items["judge_pos"] = items["judge_pos"].round().astype(int)
    items = items.sort_values(["model", "split", "item_id"], key=lambda s: s.astype(str),
                              ignore_index=True)
    return items[["model", "item_id", "split", "judge_label", "judge_pos", "n_runs",
                  "human_label"]], len(frame)


def read_judged_items(path: str | Path, *, columns: Mapping[str, str] | None = None,
                      labels: Mapping[Any, float] | None = None) -> JudgedItems:
    """Read a CSV/TSV/Parquet/JSON(L) table of judged items.

    Parameters
    ----------
    path
        The file.
    columns
        ``{their_name: our_name}``, e.g. ``{"question": "item_id", "verdict": "judge_label"}``.
    labels
        Other label spellings, e.g. ``{"Yes": 1, "No": 0}``.
    """
    path = Path(path)
    if not path.exists():
        raise DataError(f"no such file: {path}")
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            frame = pd.read_parquet(path)
        elif suffix in (".json", ".jsonl"):
            text = path.read_text(encoding="utf-8").lstrip()
            frame = pd.read_json(path, lines=suffix == ".jsonl" or not text.startswith("["))
        elif suffix in (".csv", ".tsv", ".txt"):
            frame = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",")
        else:
            raise DataError(f"unknown table format {suffix!r} for {path}",
                            expected=".csv, .tsv, .parquet, .json or .jsonl")
    except ValueError as err:
        if isinstance(err, DataError):
            raise
        raise DataError(f"{path}: cannot parse ({err})") from None
    if columns:
        absent = [c for c in columns if c not in frame]
        if absent:
            raise DataError(f"column mapping names absent column(s) {absent}",
                            column=absent[0], expected=f"one of {list(frame.columns)}")
        frame = frame.rename(columns=dict(columns))
    return JudgedItems(frame, labels=labels)


# --------------------------------------------------------------- single estimators
def _z(alpha: float) -> float:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return float(norm.ppf(1 - alpha / 2))


def _ci(est: float, se: float, alpha: float, lo: float = -np.inf, hi: float = np.inf,
        ) -> tuple[float, float]:
    z = _z(alpha)
    return float(np.clip(est - z * se, lo, hi)), float(np.clip(est + z * se, lo, hi))


@dataclass(frozen=True)
class AccuracyEstimate:
    """One estimate of a model's accuracy θ (or of a difference Δθ).

    Attributes
    ----------
    method
        ``"naive"``, ``"rogan_gladen"``, ``"ppi++"`` or ``"rg_shared_difference"``.
    estimate, se, ci, alpha
        Point estimate, standard error, Wald interval ``estimate ± z·se`` of level
        ``1 − alpha`` (clipped to [0, 1] for accuracies).
    n_test, n_cal
        Test and calibration items used.
    lam
        PPI++'s power-tuning λ (``None`` for other methods).
    raw
        Rogan–Gladen value before clipping to [0, 1] (``None`` otherwise).
    """

    method: str
    estimate: float
    se: float
    ci: tuple[float, float]
    alpha: float
    n_test: int
    n_cal: int = 0
    lam: float | None = None
    raw: float | None = None

    @property
    def clipped(self) -> bool:
        """Whether the Rogan–Gladen value fell outside [0, 1] and was clipped."""
        return self.raw is not None and not 0.0 <= self.raw <= 1.0

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"method": self.method, "estimate": self.estimate, "se": self.se,
                              "lo": self.ci[0], "hi": self.ci[1], "n_test": self.n_test,
                              "n_cal": self.n_cal, "lam": self.lam, "raw": self.raw,
                              "clipped": self.clipped}])

    def __str__(self) -> str:
        extra = f", λ = {self.lam:.3f}" if self.lam is not None else ""
        if self.clipped:
            extra += f", clipped from {self.raw:.3f}"
        return (f"{self.method}: {self.estimate:.3f} (se {self.se:.3f}) "
                f"{100 * (1 - self.alpha):g}% CI [{self.ci[0]:.3f}, {self.ci[1]:.3f}]{extra}")


@dataclass(frozen=True)
class JudgeRates:
    """Judge specificity q̂0, sensitivity q̂1 and Youden's Ĵ = q̂0 + q̂1 − 1 (Section 3.3).

    Standard errors are binomial: se(q̂1)² = q̂1(1 − q̂1)/m1 (the variance of the
    judge labels of the m1 true positives when runs are averaged), and
    se(Ĵ)² = se(q̂0)² + se(q̂1)² (disjoint items). Intervals are Wald, clipped to
    [0, 1] for q and [−1, 1] for J.
    """

    q0: float
    q1: float
    j: float
    se_q0: float
    se_q1: float
    se_j: float
    m0: int
    m1: int
    alpha: float

    def ci(self, which: str) -> tuple[float, float]:
        """Interval of ``"q0"``, ``"q1"`` or ``"j"``."""
        est, se = {"q0": (self.q0, self.se_q0), "q1": (self.q1, self.se_q1),
                   "j": (self.j, self.se_j)}[which]
        return _ci(est, se, self.alpha, -1.0 if which == "j" else 0.0, 1.0)

    def to_frame(self) -> pd.DataFrame:
        rows = [{"quantity": k, "estimate": getattr(self, k), "se": getattr(self, f"se_{k}"),
                 "lo": self.ci(k)[0], "hi": self.ci(k)[1]} for k in ("q0", "q1", "j")]
        return pd.DataFrame(rows).assign(m0=self.m0, m1=self.m1)

    def __str__(self) -> str:
        return "; ".join(f"{k} = {getattr(self, k):.3f} [{self.ci(k)[0]:.3f}, "
                         f"{self.ci(k)[1]:.3f}]" for k in ("q0", "q1", "j")) + (
            f" (m0 = {self.m0} negatives, m1 = {self.m1} positives)")


def _as_labels(x: Any, name: str, binary: bool) -> np.ndarray:
    a = np.asarray(x, dtype=float).ravel()
    if a.size == 0:
        raise DataError(f"{name} is empty", column=name, expected="at least one label")
    bad = ~np.isfinite(a) | (a < 0) | (a > 1) | (binary & ~np.isin(a, (0.0, 1.0)))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise DataError("label outside {0, 1}" if binary else "label outside [0, 1]",
                        row=k, column=name, expected="0 or 1" if binary else
                        "a judge label in {0, 1} or a mean over runs in [0, 1]", got=a[k])
    return a


def _calibration(cal_human: Any, cal_judge: Any) -> tuple[np.ndarray, np.ndarray]:
    y = _as_labels(cal_human, "cal_human", True)
    h = _as_labels(cal_judge, "cal_judge", False)
    if y.shape != h.shape:
        raise DataError(f"cal_human has {y.size} labels but cal_judge has {h.size}",
                        column="cal_judge", expected="one judge label per human label")
    m1, m0 = int(y.sum()), int((1 - y).sum())
    if m1 == 0 or m0 == 0:
        raise DataError(f"the calibration set has {m1} positives and {m0} negatives: "
                        f"q̂{1 if m1 == 0 else 0} (and J) is undefined", column="human_label",
                        expected="at least one human label of each value (label more items)")
    return y, h


def judge_rates(cal_human: Any, cal_judge: Any, *, alpha: float = 0.05) -> JudgeRates:
    """Specificity, sensitivity and Youden's J of a judge on calibration items.

    Parameters
    ----------
    cal_human
        True labels Z_j ∈ {0, 1}.
    cal_judge
        Judge labels Ẑ_j ∈ {0, 1} (or means over runs in [0, 1]).
    alpha
        Intervals have level 1 − alpha.
    """
    y, h = _calibration(cal_human, cal_judge)
    pos, neg = h[y == 1], 1 - h[y == 0]
    q1, q0 = pos.mean(), neg.mean()
    se1, se0 = np.sqrt(pos.var() / pos.size), np.sqrt(neg.var() / neg.size)
    return JudgeRates(q0=float(q0), q1=float(q1), j=float(q0 + q1 - 1), se_q0=float(se0),
                      se_q1=float(se1), se_j=float(np.hypot(se0, se1)), m0=neg.size,
                      m1=pos.size, alpha=alpha)


def naive_estimate(judge: Any, *, alpha: float = 0.05) -> AccuracyEstimate:
    """The naive estimator p̂ = mean judge label (Section 3.2); it estimates p of Eq. 1."""
    h = _as_labels(judge, "judge", False)
    p, se = float(h.mean()), float(np.sqrt(h.var() / h.size))
    return AccuracyEstimate("naive", p, se, _ci(p, se, alpha, 0.0, 1.0), alpha, h.size)


def rogan_gladen(judge: Any, cal_human: Any, cal_judge: Any, *, alpha: float = 0.05,
                 ) -> AccuracyEstimate:
    """Rogan–Gladen θ̂_RG = (p̂ + q̂0 − 1)/(q̂0 + q̂1 − 1) (Section 3.3), clipped to [0, 1].

    Pass another model's calibration labels for *shared* calibration (Appendix A).

    Parameters
    ----------
    judge
        Judge labels on the test items of the model being evaluated.
    cal_human, cal_judge
        True and judge labels on calibration items.
    alpha
        Interval level 1 − alpha.

    Returns
    -------
    AccuracyEstimate
        ``raw`` holds the unclipped value. The standard error is the delta method
        (Greiner 2003; Lang & Reiczigel 2014): se² = [p̂(1 − p̂)/n + (1 − θ̂)² q̂0(1 − q̂0)/m0
        + θ̂² q̂1(1 − q̂1)/m1]/Ĵ², evaluated at the unclipped θ̂.

    Raises
    ------
    DataError
        When Ĵ ≤ 0: the judge is no better than chance on these calibration items
        and the correction is undefined.
    """
    h = _as_labels(judge, "judge", False)
    rates = judge_rates(cal_human, cal_judge, alpha=alpha)
    if rates.j <= 0:
        raise DataError(f"Ĵ = q̂0 + q̂1 − 1 = {rates.j:.3f} ≤ 0: the judge does no better than "
                        f"chance on the calibration items, so the Rogan–Gladen correction is "
                        f"undefined", column="judge_label",
                        expected="a judge with Ĵ > 0 (use naive or PPI++ instead)")
    p = float(h.mean())
    raw = (p + rates.q0 - 1) / rates.j
    var = (h.var() / h.size + (1 - raw) ** 2 * rates.se_q0 ** 2 + raw ** 2 * rates.se_q1 ** 2)
    se = float(np.sqrt(var) / rates.j)
    est = float(np.clip(raw, 0, 1))
    return AccuracyEstimate("rogan_gladen", est, se, _ci(est, se, alpha, 0.0, 1.0), alpha,
                            h.size, rates.m0 + rates.m1, raw=float(raw))


def ppi_mean(judge: Any, cal_human: Any, cal_judge: Any, *, lam: float | None = None,
             alpha: float = 0.05) -> AccuracyEstimate:
    """PPI++ mean θ̂ = Ȳ_cal + λ(p̂_test − p̂_cal) (Section 3.3; Angelopoulos et al. 2024).

    Parameters
    ----------
    judge
        Judge labels on the test (unlabelled) items of this model.
    cal_human, cal_judge
        This model's calibration items: true and judge labels.
    lam
        Power-tuning parameter; ``None`` estimates the variance-minimising
        λ̂ = Ĉov(Y, Ẑ)/[(1 + n/N) V̂ar(Ẑ)], clipped to [0, 1] (the estimate of
        ``ppi_py.ppi_mean_pointestimate``: covariance over the n calibration items,
        variance over calibration and test judge labels together). Appendix A:
        λ* ≈ θ(1 − θ)J/[p(1 − p)] → 0 as J → 0 (graceful degradation).
    alpha
        Interval level 1 − alpha.

    Returns
    -------
    AccuracyEstimate
        se² = λ² V̂ar(Ẑ_test)/N + V̂ar(Y − λẐ)_cal/n, as ``ppi_py.ppi_mean_ci``.
    """
    h = _as_labels(judge, "judge", False)
    y = _as_labels(cal_human, "cal_human", True)
    hc = _as_labels(cal_judge, "cal_judge", False)
    if y.shape != hc.shape:
        raise DataError(f"cal_human has {y.size} labels but cal_judge has {hc.size}",
                        column="cal_judge", expected="one judge label per human label")
    n, big_n = y.size, h.size
    if lam is None:
        cov = np.mean((y - y.mean()) * (hc - hc.mean()))
        var = np.var(np.concatenate([hc, h]), ddof=1) if n + big_n > 1 else 0.0
        lam = float(np.clip(cov / ((1 + n / big_n) * var), 0, 1)) if var > 0 else 0.0
    est = float(y.mean() + lam * (h.mean() - hc.mean()))
    se = float(np.sqrt(lam ** 2 * h.var() / big_n + (y - lam * hc).var() / n))
    return AccuracyEstimate("ppi++", est, se, _ci(est, se, alpha), alpha, big_n, n,
                            lam=float(lam))


def rg_shared_difference(judge_a: Any, judge_b: Any, cal_human: Any, cal_judge: Any, *,
                         alpha: float = 0.05) -> AccuracyEstimate:
    """Shared-calibration RG difference Δθ̂ = (p̂_a − p̂_b)/Ĵ with the SE of Appendix B.

    ``judge_a`` and ``judge_b`` are the two models' judge labels on the *same*
    test items (paired). The q̂0 terms cancel, and the delta method gives

    se² = V̂ar(Ẑ_a − Ẑ_b)/(N Ĵ²) + (p̂_a − p̂_b)² [q̂0(1 − q̂0)/m0 + q̂1(1 − q̂1)/m1]/Ĵ⁴,

    the test term scaling as 1/J² and the calibration term as 1/J⁴.
    """
    a = _as_labels(judge_a, "judge_a", False)
    b = _as_labels(judge_b, "judge_b", False)
    if a.shape != b.shape:
        raise DataError(f"judge_a has {a.size} labels and judge_b {b.size}", column="judge_b",
                        expected="paired labels: one per test item for each model")
    rates = judge_rates(cal_human, cal_judge, alpha=alpha)
    if rates.j <= 0:
        raise DataError(f"Ĵ = {rates.j:.3f} ≤ 0: the Rogan–Gladen correction is undefined",
                        column="judge_label", expected="a judge with Ĵ > 0")
    dp = float(a.mean() - b.mean())
    var = (np.var(a - b) / (a.size * rates.j ** 2)
           + dp ** 2 * (rates.se_q0 ** 2 + rates.se_q1 ** 2) / rates.j ** 4)
    est, se = dp / rates.j, float(np.sqrt(var))
    return AccuracyEstimate("rg_shared_difference", est, se, _ci(est, se, alpha), alpha,
                            a.size, rates.m0 + rates.m1)


def shared_calibration_bias(theta: float, delta_j: float, delta_q0: float, j_ref: float,
                            ) -> float:
    """Asymptotic bias of RG for model A when it borrows model B's calibration (Appendix C).

    bias = (θ_A·ΔJ − Δq0)/J_B with ΔJ = J_A − J_B and Δq0 = q0,A − q0,B; equivalently
    [θ_A Δq1 − (1 − θ_A) Δq0]/J_B. Mismatch is amplified by 1/J_B.

    Parameters
    ----------
    theta
        True accuracy θ_A of the model whose estimate borrows calibration.
    delta_j, delta_q0
        J_A − J_B and q0,A − q0,B.
    j_ref
        J_B of the model whose calibration is borrowed.
    """
    if j_ref <= 0:
        raise DataError(f"J of the borrowed calibration is {j_ref} ≤ 0: RG is undefined",
                        expected="j_ref > 0")
    return (theta * delta_j - delta_q0) / j_ref


# ------------------------------------------------------- sufficient-statistic core
# Per model, calibration sums (n, ΣY, ΣẐ, ΣẐ², ΣYẐ) and test sums (N, ΣẐ, ΣẐ²).
_N_CAL, _N_TEST = 5, 3


def _core(cal: Any, test: Any, base: int, xp: Any = np) -> dict[str, Any]:
    """Every estimator from the sums ``cal (..., M, 5)`` and ``test (..., M, 3)``.

    ``xp`` is NumPy or ``jax.numpy`` (the delta method differentiates this function).
    Values are unclipped; q̂ and Ĵ come from each model's own calibration items, the
    shared RG from the model ``base``'s.
    """
    n, sy, sh, shh, syh = (cal[..., k] for k in range(_N_CAL))
    big_n, ts, tss = (test[..., k] for k in range(_N_TEST))
    p = ts / big_n
    q1 = syh / sy
    q0 = 1 - (sh - syh) / (n - sy)
    j = q0 + q1 - 1
    sl = slice(base, base + 1)
    ybar, hbar = sy / n, sh / n
    tot = n + big_n
    var = (shh + tss - (sh + ts) ** 2 / tot) / (tot - 1)
    ok = var > 0
    lam = xp.where(ok, (syh / n - ybar * hbar) / ((1 + n / big_n) * xp.where(ok, var, 1.0)), 0.0)
    lam = xp.clip(lam, 0.0, 1.0)
    return {"naive": p, "q0": q0, "q1": q1, "J": j, "rg_2x": (p + q0 - 1) / j,
            "rg": (p + q0[..., sl] - 1) / j[..., sl], "ppi": ybar + lam * (p - hbar),
            "lam": lam}


def _finish_rg(raw: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Clip RG to [0, 1]; NaN where Ĵ ≤ 0 (undefined)."""
    return np.where(j > 0, np.clip(raw, 0.0, 1.0), np.nan)


def _estimates(cal: np.ndarray, test: np.ndarray, base: int) -> dict[str, np.ndarray]:
    with np.errstate(divide="ignore", invalid="ignore"):
        c = _core(cal, test, base)
        return {"naive": c["naive"], "rg": _finish_rg(c["rg"], c["J"][..., base:base + 1]),
                "rg_2x": _finish_rg(c["rg_2x"], c["J"]), "ppi_2x": c["ppi"], "q0": c["q0"],
                "q1": c["q1"], "J": c["J"], "rg_raw": c["rg"], "rg_2x_raw": c["rg_2x"]}


def _unit_features(items: JudgedItems, models: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per calibration item (M, 5) and per test item (M, 3) features; 0 where absent."""
    f = items.frame
    out = []
    for split, width in (("calibration", _N_CAL), ("test", _N_TEST)):
        rows = f[f["split"] == split]
        units = pd.Index(pd.unique(rows["item_id"]))
        feats = np.zeros((len(units), len(models), width))
        for k, m in enumerate(models):
            r = rows[rows["model"] == m]
            u = units.get_indexer(r["item_id"])
            h = r["judge_label"].to_numpy(float)
            if split == "calibration":
                y = r["human_label"].to_numpy(float)
                feats[u, k] = np.column_stack([np.ones_like(h), y, h, h * h, y * h])
            else:
                feats[u, k] = np.column_stack([np.ones_like(h), h, h * h])
        out.append(feats)
    return out[0], out[1]


def _compress(feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct unit rows and their multiplicities."""
    flat = feats.reshape(len(feats), -1)
    if len(flat) == 0:
        return flat, np.zeros(0, dtype=np.int64)
    cells, counts = np.unique(flat, axis=0, return_counts=True)
    return cells, counts


def _delta_cov(cal_units: np.ndarray, test_units: np.ndarray, base: int,
               keys: Sequence[str]) -> dict[str, np.ndarray]:
    """Delta-method covariance (M × M) of each estimator in ``keys`` (unclipped).

    The estimators are smooth functions of the per-item feature means; their
    Jacobian comes from :func:`scipy.differentiate.jacobian` (Richardson-extrapolated
    finite differences of :func:`_core`), and Var(mean) = Σ/n for the calibration
    and test items separately, so paired items keep their covariance.
    """
    nc, nt = len(cal_units), len(test_units)
    m = cal_units.shape[1]
    fc, ft = cal_units.reshape(nc, -1), test_units.reshape(nt, -1)
    split = m * _N_CAL

    def g(x: np.ndarray) -> np.ndarray:
        x = np.moveaxis(x, 0, -1)
        batch = x.shape[:-1]
        out = _core(x[..., :split].reshape(*batch, m, _N_CAL) * nc,
                    x[..., split:].reshape(*batch, m, _N_TEST) * nt, base)
        flat = np.stack([out[k] for k in keys], axis=-2).reshape(*batch, -1)
        return np.moveaxis(flat, -1, 0)

    x0 = np.concatenate([fc.mean(0), ft.mean(0)])
    with np.errstate(divide="ignore", invalid="ignore"):
        jac = jacobian(g, x0, initial_step=0.01).df.reshape(len(keys), m, -1)
    sigma = np.zeros((len(x0), len(x0)))
    sigma[:split, :split] = np.atleast_2d(np.cov(fc, rowvar=False, ddof=0)) / nc
    sigma[split:, split:] = np.atleast_2d(np.cov(ft, rowvar=False, ddof=0)) / nt
    bad = ~np.isfinite(jac).all(axis=2)
    cov = np.einsum("kmf,fg,kng->kmn", np.nan_to_num(jac), sigma, np.nan_to_num(jac))
    cov[bad[:, :, None] | bad[:, None, :]] = np.nan
    return {k: cov[i] for i, k in enumerate(keys)}


# -------------------------------------------------------------------- results
@dataclass(frozen=True)
class BootstrapEstimate:
    """A bootstrap summary of one quantity under one estimator.

    Attributes
    ----------
    quantity
        ``"theta[M]"``, ``"theta[A] - theta[B]"``, ``"J[M]"``, ``"J[A] - J[B]"``, ...
    method
        Estimator name (see :data:`ESTIMATORS`) or ``"diagnostic"``.
    estimate
        Bootstrap median (Appendix E.4), the paper's point estimate.
    ci
        Percentile interval (α/2, 1 − α/2).
    se
        Bootstrap standard deviation.
    plugin
        The estimator on the full data (for ``ppi_1x``: on the first random half).
    se_delta
        Delta-method standard error (Appendix B generalised; NaN where undefined).
    n_boot, n_undefined
        Replicates, and replicates where the estimator was undefined (Ĵ* ≤ 0 for RG).
    alpha
        Interval level 1 − alpha.
    """

    quantity: str
    method: str
    estimate: float
    ci: tuple[float, float]
    se: float
    plugin: float
    se_delta: float
    n_boot: int
    n_undefined: int
    alpha: float

    @classmethod
    def from_replicates(cls, quantity: str, method: str, reps: np.ndarray, plugin: float,
                        se_delta: float, alpha: float) -> BootstrapEstimate:
        ok = np.isfinite(reps)
        if not np.isfinite(plugin) or ok.sum() < 2:
            return cls(quantity, method, np.nan, (np.nan, np.nan), np.nan, float(plugin),
                       float(se_delta), len(reps), int((~ok).sum()), alpha)
        r = reps[ok]
        lo, med, hi = np.quantile(r, [alpha / 2, 0.5, 1 - alpha / 2])
        return cls(quantity, method, float(med), (float(lo), float(hi)), float(r.std(ddof=1)),
                   float(plugin), float(se_delta), len(reps), int((~ok).sum()), alpha)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self._row()])

    def _row(self) -> dict[str, Any]:
        return {"quantity": self.quantity, "method": self.method, "estimate": self.estimate,
                "lo": self.ci[0], "hi": self.ci[1], "se": self.se, "se_delta": self.se_delta,
                "plugin": self.plugin, "n_boot": self.n_boot, "n_undefined": self.n_undefined}

    def __str__(self) -> str:
        if not np.isfinite(self.estimate):
            return f"{self.quantity} ({self.method}): undefined"
        return (f"{self.quantity} ({self.method}): {self.estimate:.3f} "
                f"[{self.ci[0]:.3f}, {self.ci[1]:.3f}]")


def _fmt(est: float, lo: float, hi: float, signed: bool = False) -> str:
    if not np.isfinite(est):
        return "undefined"
    f = "{:+.3f}" if signed else "{:.3f}"
    return f"{f.format(est)} [{f.format(lo)}, {f.format(hi)}]"


@dataclass(frozen=True)
class Comparison:
    """Δθ = θ_a − θ_b under every estimator, with ΔJ, Δq0 and Δq1 (Tables 1–2).

    ``rows`` holds one :class:`BootstrapEstimate` per estimator (in
    :data:`ESTIMATORS` order), ``diagnostics`` those of ΔJ, Δq0, Δq1. Shared RG
    uses the calibration of ``baseline``.
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
    def estimate(self) -> dict[str, float]:
        return {r.method: r.estimate for r in self.rows}

    @property
    def se(self) -> dict[str, float]:
        return {r.method: r.se for r in self.rows}

    @property
    def ci(self) -> dict[str, tuple[float, float]]:
        return {r.method: r.ci for r in self.rows}

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([r._row() for r in (*self.rows, *self.diagnostics)]).assign(
            a=self.a, b=self.b)

    def __str__(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        lines = [f"Δθ = θ[{self.a}] − θ[{self.b}] (bootstrap median, {level} percentile "
                 f"interval; shared RG uses {self.baseline}'s calibration):"]
        for r in self.rows:
            se = f"  delta-method se {r.se_delta:.3f}" if np.isfinite(r.se_delta) else ""
            lines.append(f"  {_LABELS[r.method]:<12} {_fmt(r.estimate, *r.ci, signed=True)}"
                         f"{se}")
        for r in self.diagnostics:
            lines.append(f"  {r.quantity:<12} {_fmt(r.estimate, *r.ci, signed=True)}")
        return "\n".join(lines)


@dataclass(frozen=True)
class CalibrationReport:
    """The seven-point reporting checklist of Section 7, filled in, with warnings.

    ``checklist`` is a tuple of ``(title, text)`` for items 1–7; ``flags`` the
    warnings (low Ĵ, ΔĴ interval excluding zero, undefined or clipped RG,
    estimators disagreeing in sign); ``ok`` is true when there are none.
    """

    checklist: tuple[tuple[str, str], ...]
    flags: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.flags

    def to_dict(self) -> dict[str, Any]:
        return {"checklist": [{"item": k + 1, "title": t, "text": x}
                              for k, (t, x) in enumerate(self.checklist)],
                "flags": list(self.flags)}

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.to_dict()["checklist"])

    def __str__(self) -> str:
        lines = [f"{k + 1}. {t}: {x}" for k, (t, x) in enumerate(self.checklist)]
        lines += [f"WARNING: {f}" for f in self.flags] or ["no warnings"]
        return "\n".join(lines)


@dataclass(frozen=True)
class Calibration:
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
            raise DataError(f"unknown model {model!r}", column="model",
                            expected=f"one of {list(self.models)}")
        return self.models.index(model)

    def _delta_key(self, name: str) -> str:
        return {"naive": "naive", "rg": "rg", "rg_2x": "rg_2x", "ppi_1x": "ppi_1x",
                "ppi_2x": "ppi", "q0": "q0", "q1": "q1", "J": "J"}[name]

    def estimate(self, model: str, method: str) -> BootstrapEstimate:
        """Accuracy of ``model`` under ``method`` (or q0/q1/J diagnostics)."""
        k = self._k(model)
        cov = self.delta_cov.get(self._delta_key(method))
        se = float(np.sqrt(cov[k, k])) if cov is not None and np.isfinite(cov[k, k]) else np.nan
        what = f"theta[{model}]" if method in ESTIMATORS else f"{method}[{model}]"
        return BootstrapEstimate.from_replicates(
            what, method if method in ESTIMATORS else "diagnostic",
            self.replicates[method][:, k], self.plugin[method][k], se, self.alpha)

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
        out["raw"] = np.where(out["method"] == "rg", out["model"].map(raw),
                              np.where(out["method"] == "rg_2x", out["model"].map(raw2), np.nan))
        cols = ["model", "method", "estimate", "lo", "hi", "se", "se_delta", "plugin", "raw",
                "n_boot", "n_undefined"]
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
        rows = []
        for name in ESTIMATORS:
            reps = self.replicates[name]
            cov = self.delta_cov.get(self._delta_key(name))
            var = np.nan if cov is None else cov[ka, ka] + cov[kb, kb] - 2 * cov[ka, kb]
            rows.append(BootstrapEstimate.from_replicates(
                f"theta[{a}] - theta[{b}]", name, reps[:, ka] - reps[:, kb],
                self.plugin[name][ka] - self.plugin[name][kb],
                float(np.sqrt(var)) if np.isfinite(var) and var >= 0 else np.nan, self.alpha))
        diags = []
        for name in ("J", "q0", "q1"):
            reps, cov = self.replicates[name], self.delta_cov[name]
            var = cov[ka, ka] + cov[kb, kb] - 2 * cov[ka, kb]
            diags.append(BootstrapEstimate.from_replicates(
                f"{name}[{a}] - {name}[{b}]", "diagnostic", reps[:, ka] - reps[:, kb],
                self.plugin[name][ka] - self.plugin[name][kb],
                float(np.sqrt(var)) if np.isfinite(var) and var >= 0 else np.nan, self.alpha))
        return Comparison(a, b, self.baseline, tuple(rows), tuple(diags), self.alpha)

    def comparisons(self) -> list[Comparison]:
        """Every other model against the baseline."""
        return [self.compare(m, self.baseline) for m in self.models if m != self.baseline]

    def report(self, a: str | None = None, b: str | None = None, *, low_j: float = 0.3,
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
        comps = ([self.compare(a, b)] if a is not None and b is not None
                 else self.comparisons())
        s = self.sizes.set_index("model")
        level = f"{100 * (1 - self.alpha):g}%"
        flags: list[str] = []
        for m in self.models:
            if s.loc[m, "n_cal"] == 0:
                continue
            j = self.estimate(m, "J")
            if np.isfinite(j.plugin) and j.plugin <= 0:
                flags.append(f"{m}: Ĵ = {j.plugin:.3f} ≤ 0, the judge is no better than chance; "
                             f"RG is undefined and every corrected estimate is unreliable")
            elif j.plugin < low_j:
                flags.append(f"{m}: low judge quality Ĵ = {j.plugin:.3f} [{j.ci[0]:.3f}, "
                             f"{j.ci[1]:.3f}] < {low_j}: corrected estimates are unstable "
                             f"(RG scales as 1/J); weaken claims")
            for name in ("rg", "rg_2x"):
                e = self.estimate(m, name)
                raw = self.plugin[f"{name}_raw"][self._k(m)]
                if np.isfinite(raw) and not 0 <= raw <= 1:
                    flags.append(f"{m}: {_LABELS[name]} = {raw:.3f} outside [0, 1], clipped")
                if e.n_undefined > 0.01 * e.n_boot and np.isfinite(e.plugin):
                    flags.append(f"{m}: {_LABELS[name]} undefined (Ĵ* ≤ 0) in "
                                 f"{e.n_undefined / e.n_boot:.1%} of bootstrap replicates")
        for c in comps:
            dj = c.delta_j
            if np.isfinite(dj.estimate) and (dj.ci[0] > 0 or dj.ci[1] < 0):
                flags.append(f"ΔĴ = J[{c.a}] − J[{c.b}] = {dj.estimate:+.3f} "
                             f"[{dj.ci[0]:+.3f}, {dj.ci[1]:+.3f}] excludes 0: shared "
                             f"calibration is not defensible for {c.a} vs {c.b}")
            signs = {r.method: np.sign(r.ci) for r in c.rows if np.isfinite(r.estimate)}
            pos = [k for k, v in signs.items() if (v > 0).all()]
            neg = [k for k, v in signs.items() if (v < 0).all()]
            if pos and neg:
                flags.append(f"{c.a} vs {c.b}: confident comparisons of opposite sign "
                             f"({', '.join(_LABELS[k] for k in pos)} > 0; "
                             f"{', '.join(_LABELS[k] for k in neg)} < 0): a wrong-sign claim "
                             f"is likely; prefer model-specific PPI++ and weaken the claim")
        cal = "; ".join(f"{m}: {s.loc[m, 'n_cal']} calibration items ({s.loc[m, 'n_pos']} "
                        f"positive, {s.loc[m, 'n_neg']} negative), {s.loc[m, 'n_test']} test "
                        f"items" for m in self.models)
        diag = "; ".join(
            f"{m}: " + ", ".join(f"{n} {_fmt(e.estimate, *e.ci)}" for n, e in
                                 ((n, self.estimate(m, n)) for n in ("q0", "q1", "J")))
            for m in self.models if s.loc[m, "n_cal"] > 0)
        dj_text = "; ".join(f"ΔĴ[{c.a} − {c.b}] {_fmt(c.delta_j.estimate, *c.delta_j.ci, True)}"
                            for c in comps) or "no comparison"
        checklist = (
            ("Estimand and correction",
             "θ = P(Z = 1), the true accuracy. Reported: naive p̂ (uncorrected, estimates p of "
             "Eq. 1) and bias-corrected Rogan–Gladen (RG) and PPI++ estimates."),
            ("Single-model estimation vs comparison",
             f"per-model θ for {len(self.models)} models, and comparisons Δθ = θ_a − θ_b "
             f"({', '.join(f'{c.a} − {c.b}' for c in comps) or 'none'})."),
            ("Calibration design",
             f"RG (shared) reuses the calibration of {self.baseline} for every model; RG 2× and "
             f"PPI++ use model-specific calibration (PPI++ 1× on a random half of the "
             f"calibration items). {cal}."),
            ("Confidence intervals and their randomness",
             f"{level} percentile bootstrap intervals, {self.n_boot} replicates resampling "
             f"calibration and test items separately and keeping items paired across models; "
             f"PPI++ 1× pools {self.n_splits} random half selections. Point estimates are "
             f"bootstrap medians. Judge runs are averaged per item."),
            ("Judge-quality diagnostics", diag or "no calibration labels"),
            ("ΔJ for comparisons", dj_text),
            ("Weaken the claim when diagnostics indicate trouble",
             "diagnostics flag: " + " | ".join(flags) if flags else
             "no diagnostic flags; model-specific PPI++ remains the most robust choice"),
        )
        return CalibrationReport(checklist, tuple(flags))

    def __str__(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        head = (f"Judge-corrected accuracy, bootstrap medians with {level} intervals "
                f"({self.n_boot} replicates; RG (shared) uses {self.baseline}'s calibration)")
        table = {m: {_LABELS[n]: _fmt(*self._triple(m, n)) for n in ESTIMATORS}
                 for m in self.models}
        frame = pd.DataFrame(table).T
        diag = pd.DataFrame({m: {n: _fmt(*self._triple(m, n)) for n in ("q0", "q1", "J")}
                             for m in self.models}).T
        if self.truth is not None and self.truth.notna().any():
            frame.insert(0, "true θ (test)", self.truth.reindex(self.models).map(
                lambda v: f"{v:.3f}").to_numpy())
        parts = [head, frame.rename_axis("model").to_string(), "",
                 "Judge diagnostics (each model's own calibration labels):",
                 diag.rename_axis("model").to_string()]
        parts += ["", *(str(c) for c in self.comparisons())]
        return "\n".join(parts)

    def _triple(self, model: str, method: str) -> tuple[float, float, float]:
        e = self.estimate(model, method)
        return e.estimate, e.ci[0], e.ci[1]

    def plot(self, ax: Any = None, *, truth: Mapping[str, float] | None = None) -> Any:
        """Per-model θ̂ with intervals for each estimator (the paper's Figure 2)."""
        import matplotlib.pyplot as plt

        frame = self.to_frame()
        frame = frame[frame["method"].isin(ESTIMATORS)]
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 0.9 + 1.1 * len(self.models)))
        truth = dict(truth) if truth is not None else (
            self.truth.dropna().to_dict() if self.truth is not None else {})
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for k, m in enumerate(self.models):
            for e, name in enumerate(ESTIMATORS):
                row = frame[(frame["model"] == m) & (frame["method"] == name)].iloc[0]
                y = k + 0.8 * (e - 2) / len(ESTIMATORS)
                if np.isfinite(row["estimate"]):
                    ax.errorbar(row["estimate"], y, xerr=[[row["estimate"] - row["lo"]],
                                                          [row["hi"] - row["estimate"]]],
                                fmt="o", ms=4, color=colors[e % len(colors)],
                                label=_LABELS[name] if k == 0 else None)
            if m in truth:
                ax.plot([truth[m]] * 2, [k - 0.45, k + 0.45], ":", color="k",
                        label="true θ" if k == 0 else None)
        ax.set_yticks(range(len(self.models)), self.models)
        ax.set_xlabel("accuracy θ")
        ax.legend(fontsize=7, frameon=False, loc="best")
        return ax


# ------------------------------------------------------------------- calibrate()
def calibrate(items: JudgedItems | pd.DataFrame, *, baseline: str | None = None,
              n_boot: int = 2000, n_splits: int = 20, alpha: float = 0.05, seed: int = 0,
              progress: bool = True, chunk_size: int = 500) -> Calibration:
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
    _z(alpha)
    models = items.models
    sizes = items.summary()
    s = sizes.set_index("model")
    if (s["n_cal"] == 0).all():
        raise DataError("no item has a human label, so nothing can be calibrated",
                        column="human_label", expected="human labels on a calibration subset")
    for m in models:
        if s.loc[m, "n_cal"] and (s.loc[m, "n_pos"] == 0 or s.loc[m, "n_neg"] == 0):
            raise DataError(f"model {m!r}: its {s.loc[m, 'n_cal']} calibration items are all "
                            f"{'negative' if s.loc[m, 'n_pos'] == 0 else 'positive'}, so "
                            f"q̂{1 if s.loc[m, 'n_pos'] == 0 else 0} and J are undefined",
                            column="human_label",
                            expected="calibration items with both human labels 0 and 1")
        if s.loc[m, "n_test"] == 0:
            raise DataError(f"model {m!r} has no test items (every item has a human label)",
                            column="split", expected="test items without human labels, or a "
                            "'split' column marking the test set")
    if baseline is None:
        baseline = str(s["n_cal"].idxmax())
    elif baseline not in models:
        raise DataError(f"unknown baseline {baseline!r}", column="model",
                        expected=f"one of {list(models)}")
    if s.loc[baseline, "n_cal"] == 0:
        raise DataError(f"baseline {baseline!r} has no calibration labels to share",
                        column="human_label", expected="a baseline with human labels")
    base = models.index(baseline)
    cal_units, test_units = _unit_features(items, models)
    mm = len(models)
    cal_cells, cal_counts = _compress(cal_units)
    test_cells, test_counts = _compress(test_units)
    n_cal, n_test = int(cal_counts.sum()), int(test_counts.sum())

    def sums(w: np.ndarray, cells: np.ndarray, width: int) -> np.ndarray:
        return (w @ cells).reshape(*w.shape[:-1], mm, width)

    plugin = _estimates(sums(cal_counts[None].astype(float), cal_cells, _N_CAL),
                        sums(test_counts[None].astype(float), test_cells, _N_TEST), base)
    plugin = {k: v[0] for k, v in plugin.items()}

    rng = np.random.default_rng(seed)
    half = n_cal // 2
    selections = [rng.multivariate_hypergeometric(cal_counts, half) for _ in range(n_splits)]
    first = _estimates(sums(selections[0][None].astype(float), cal_cells, _N_CAL),
                       sums(test_counts[None].astype(float), test_cells, _N_TEST), base)
    plugin["ppi_1x"] = first["ppi_2x"][0]
    rngs = rng.spawn(1 + n_splits)
    keys = ("naive", "rg", "rg_2x", "ppi_2x", "q0", "q1", "J")
    reps: dict[str, list[np.ndarray]] = {k: [] for k in (*keys, "ppi_1x")}
    jobs = [(0, cal_counts, n_cal)] + [(1 + k, sel, half) for k, sel in enumerate(selections)]
    with tqdm(total=n_boot * len(jobs), desc="bootstrap", unit="rep",
              disable=not progress) as bar:
        for job, counts, size in jobs:
            r = rngs[job]
            for start in range(0, n_boot, chunk_size):
                b = min(chunk_size, n_boot - start)
                wc = r.multinomial(size, counts / counts.sum(), size=b).astype(float)
                wt = r.multinomial(n_test, test_counts / n_test, size=b).astype(float)
                est = _estimates(sums(wc, cal_cells, _N_CAL), sums(wt, test_cells, _N_TEST),
                                 base)
                if job == 0:
                    for k in keys:
                        reps[k].append(est[k])
                else:
                    reps["ppi_1x"].append(est["ppi_2x"])
                bar.update(b)
    replicates = {k: np.concatenate(v) for k, v in reps.items()}
    delta = _delta_cov(cal_units, test_units, base, ("naive", "rg", "rg_2x", "ppi", "q0",
                                                      "q1", "J"))
    sel_units = _select_units(cal_units, cal_cells, selections[0])
    delta["ppi_1x"] = _delta_cov(sel_units, test_units, base, ("ppi",))["ppi"]
    truth = items.true_test_accuracy()
    return Calibration(models=models, baseline=baseline, replicates=replicates,
                       plugin=plugin, delta_cov=delta, sizes=sizes, alpha=alpha,
                       n_boot=n_boot, n_splits=n_splits, seed=seed,
                       truth=truth if truth.notna().any() else None)


def _select_units(units: np.ndarray, cells: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Item rows of a cell-count selection (for the delta method on a half)."""
    rows = np.repeat(cells, counts, axis=0)
    return rows.reshape(len(rows), *units.shape[1:])
