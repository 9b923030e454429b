"""The row data of the calibration designs: one row per (model, item), and the priors they share.

:func:`calibration_data` turns judged items into the keyword arguments of the row
designs of :mod:`judgebayes.calibration.designs` (shared, model-specific, hierarchical);
:func:`row_cells` merges identical rows into weighted cells for sampling. The paired
designs (:mod:`judgebayes.calibration.paired`) start from the same rows. The priors of
the HSROC parameters (bias a, log diagnostic odds ratio ℓ, their hierarchical scales τ)
are those of every design, row or paired.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.calibration.items import JudgedItems
from judgebayes.errors import DataError

__all__ = [
    "A_SD",
    "LOG_DOR_MEAN",
    "LOG_DOR_SD",
    "ROW_DESIGNS",
    "TAU_SD",
    "CalibrationData",
    "calibration_data",
    "row_cells",
]

#: Priors of every design: a ~ Normal(0, A_SD), ℓ ~ Normal(LOG_DOR_MEAN, LOG_DOR_SD),
#: τ ~ HalfNormal(TAU_SD) (see :mod:`judgebayes.calibration.designs`).
A_SD, LOG_DOR_MEAN, LOG_DOR_SD, TAU_SD = 1.5, 1.0, 1.0, 1.0
#: The designs with one row per (model, item).
ROW_DESIGNS = ("shared", "model_specific", "hierarchical")


@dataclass(frozen=True)
class CalibrationData:
    """Arguments of the design models for one table of judged items.

    ``data`` holds the keyword arguments (calibration rows first); ``coords`` and
    :meth:`dims` name the ArviZ dimensions (``model``, ``group``, ``row``,
    ``cal_row``); ``item_ids`` the item of every row.
    """

    data: Mapping[str, Any]
    models: tuple[str, ...]
    n_cal: int
    item_ids: np.ndarray

    @property
    def coords(self) -> dict[str, Any]:
        n_rows = len(self.data["model_idx"])
        return {
            "model": list(self.models),
            "group": ["all"],
            "row": np.arange(n_rows),
            "cal_row": np.arange(self.n_cal),
        }

    def dims(self, design: str) -> dict[str, list[str]]:
        """ArviZ dims of every site of the row design ``design`` (one of
        :data:`ROW_DESIGNS`; the paired designs' are ``paired_data(...).dims(design)``)."""
        out = {k: ["model"] for k in ("theta", "q0", "q1", "J")}
        if design == "shared":
            out.update(a=["group"], log_dor=["group"])
        elif design == "model_specific":
            out.update(a=["model"], log_dor=["model"])
        elif design == "hierarchical":
            out.update({k: ["model"] for k in ("a", "log_dor", "a_raw", "log_dor_raw")})
            out.update({k: ["group"] for k in ("mu_a", "mu_log_dor", "tau_a", "tau_log_dor")})
        else:
            raise ValueError(
                f"{design!r} is not a row design ({', '.join(ROW_DESIGNS)}); the paired "
                "designs' dims are paired_data(...).dims(design)"
            )
        return {**out, "human_label": ["cal_row"], "judge_label": ["row"]}


def calibration_data(items: JudgedItems | pd.DataFrame) -> CalibrationData:
    """Model arguments from judged items: one row per (model, item), runs kept as counts."""
    if not isinstance(items, JudgedItems):
        items = JudgedItems(items)
    f = items.frame
    cal = f[f["split"] == "calibration"]
    if cal.empty:
        raise DataError(
            "no item has a human label, so the judge cannot be calibrated",
            column="human_label",
            expected="human labels on a calibration subset",
        )
    rows = pd.concat([cal, f[f["split"] == "test"]], ignore_index=True)
    models = items.models
    data = {
        "model_idx": pd.Categorical(rows["model"], categories=models).codes.astype(np.int32),
        "n_runs": rows["n_runs"].to_numpy(np.int32),
        "n_cal": len(cal),
        "n_models": len(models),
        "human_label": cal["human_label"].to_numpy().astype(np.int32),
        "judge_label": rows["judge_pos"].to_numpy(np.int32),
    }
    return CalibrationData(data, models, len(cal), rows["item_id"].to_numpy())


def row_cells(data: Mapping[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
    """Identical rows merged into weighted cells (calibration cells first).

    Returns the weighted model arguments and, for every row, its cell. The
    likelihood of the cells with multiplicities equals that of the rows, so NUTS
    costs O(cells), not O(items).
    """
    n_rows, n_cal = len(data["model_idx"]), data["n_cal"]
    human = np.full(n_rows, -1)
    human[:n_cal] = data["human_label"]
    key = pd.DataFrame(
        {
            "test": np.arange(n_rows) >= n_cal,
            "model_idx": data["model_idx"],
            "human": human,
            "n_runs": data["n_runs"],
            "y": data["judge_label"],
        }
    )
    cols = list(key.columns)
    cell = key.groupby(cols, sort=True).ngroup().to_numpy()
    uniq = key.drop_duplicates().sort_values(cols, ignore_index=True)
    n_cal_cells = int((~uniq["test"]).sum())
    cells = {k: v for k, v in data.items() if k not in ("human_label", "judge_label")}
    cells.update(
        model_idx=uniq["model_idx"].to_numpy(np.int32),
        n_runs=uniq["n_runs"].to_numpy(np.int32),
        n_cal=n_cal_cells,
        human_label=uniq["human"].to_numpy(np.int32)[:n_cal_cells],
        judge_label=uniq["y"].to_numpy(np.int32),
        weight=np.bincount(cell, minlength=len(uniq)).astype(float),
    )
    return cells, cell
