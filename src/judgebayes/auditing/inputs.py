"""What an audit reads: battles (one judge or several) or judged items, as one validated view.

An audit takes the data a team has and finds out what it allows. :func:`audit_input`
turns a :class:`~judgebayes.Battles` table (one judge, or several judges' rows joined by
``battle_id``) or :class:`~judgebayes.JudgedItems` into an :class:`AuditInput`:

* battles become :class:`~judgebayes.rankings.RankingData` (one entry per battle, the model
  shown first as ``a`` where the table says which was shown first, every judge's verdict
  and the human label where there is one), plus what the table has beside verdicts: judge
  score differences (``score_diff``, Soft-Elo's input), prompts (``prompt_id``, for
  clustered intervals), and whether one prompt was judged in both orders;
* judged items stay :class:`~judgebayes.JudgedItems` (the setting of Fiedler, *Bias and
  Uncertainty in LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939: a correctness label
  per model and item).

``human_labels=n`` keeps the human label on ``n`` battles (or items) drawn at random and
hides the rest: what an audit on a smaller labelling budget says.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from judgebayes.calibration.items import JudgedItems
from judgebayes.core.battles import Battles
from judgebayes.errors import DataError
from judgebayes.rankings.data import RankingData

__all__ = ["AuditInput", "audit_input"]

DEFAULT_JUDGE = "judge"
"""The name of the judge of a table with a ``judge_label`` column and no ``judge`` column."""


@dataclass(frozen=True)
class AuditInput:
    """The data of one audit, in the form every section reads.

    Attributes
    ----------
    kind
        ``"battles"`` or ``"items"``.
    data
        Battles as arrays (``a`` shown first where ``position_known``), or ``None``.
    items
        Judged items (``kind == "items"``), or ``None``.
    judge
        The judge of judged items (``kind == "items"``).
    battles
        The table the battles came from (position as given), or ``None``.
    position_known
        Whether the table says which model was shown first (a ``position`` column; Chatbot
        Arena shows ``model_a`` first, so :func:`~judgebayes.read_aligned` sets it).
    scores
        ``{judge: score difference s per battle}`` (NaN where absent) for judges that
        give scores.
    prompts
        Prompt of every battle (``prompt_id``), or ``None``.
    both_orders
        ``{judge: number of pairs of models it judged in both orders}`` (Consistency's
        matchups, both orders pooled).
    both_order_prompts
        ``{judge: number of (prompt, pair) it judged in both orders}`` (swap agreement).
    bothbad
        Battles whose human tie was "tie (bothbad)".
    n_hidden
        Human labels hidden by ``human_labels=``.
    source
        What the data is (a file name, a loader), for the report's title.
    """

    kind: str
    data: RankingData | None = None
    items: JudgedItems | None = None
    judge: str | None = None
    battles: Battles | None = None
    position_known: bool = False
    scores: Mapping[str, np.ndarray] = field(default_factory=dict)
    prompts: np.ndarray | None = None
    both_orders: Mapping[str, int] = field(default_factory=dict)
    both_order_prompts: Mapping[str, int] = field(default_factory=dict)
    bothbad: int = 0
    n_hidden: int = 0
    source: str = ""

    @property
    def judges(self) -> tuple[str, ...]:
        if self.data is not None:
            return self.data.judges
        return (self.judge,) if self.judge else ()

    @property
    def models(self) -> tuple[str, ...]:
        return self.data.models if self.data is not None else self.items.models  # type: ignore[union-attr]

    @property
    def n_labelled(self) -> int:
        """Battles (items: judged items) that carry a human label."""
        if self.data is not None:
            return int(self.data.labelled.sum())
        return int((self.items.frame["split"] == "calibration").sum())  # type: ignore[union-attr]

    @property
    def has_humans(self) -> bool:
        return self.n_labelled > 0

    def judge_battles(self, judge: str) -> Battles:
        """One judge's battles as a :class:`~judgebayes.Battles` table (position order):
        ``model_a`` (shown first), ``model_b``, ``judge_label``, ``human_label``,
        ``prompt_id`` where known, ``score_diff`` where the judge gives scores."""
        d = self.data
        v = d.verdict(judge)  # type: ignore[union-attr]
        keep = ~np.isnan(v)
        names = np.asarray(d.models, dtype=object)  # type: ignore[union-attr]
        frame = {
            "model_a": names[d.a[keep]],  # type: ignore[union-attr]
            "model_b": names[d.b[keep]],  # type: ignore[union-attr]
            "judge_label": v[keep],
            "human_label": d.human[keep],  # type: ignore[union-attr]
            "position": "a",
        }
        if self.prompts is not None:
            frame["prompt_id"] = self.prompts[keep]
        if judge in self.scores:
            frame["score_diff"] = self.scores[judge][keep]
        out = pd.DataFrame(frame)
        if judge in self.scores:
            out = out[np.isfinite(out["score_diff"]).to_numpy()].reset_index(drop=True)
        return Battles(out)


def _from_battles(battles: Battles, source: str) -> AuditInput:
    """The battle arrays (:meth:`RankingData.from_battles <judgebayes.rankings.RankingData.
    from_battles>`: the model shown first as ``a``) and what sits beside the verdicts."""
    data = RankingData.from_battles(battles)
    data = replace(data, report=battles.report)  # rows in, dropped, missing: the file's
    frame = battles.frame
    has_id = "battle_id" in frame
    bf = battles.battle_frame() if has_id else frame
    swap = (bf["position"] == "b").to_numpy() if "position" in bf else np.zeros(len(bf), bool)
    scores = {}
    if "score_diff" in frame and data.judges:
        if has_id:
            wide = frame.pivot(index="battle_id", columns="judge", values="score_diff").reindex(
                index=pd.Index(bf["battle_id"]), columns=list(data.judges)
            )
            columns = {j: wide[j].to_numpy(float) for j in data.judges}
        else:
            columns = {data.judges[0]: frame["score_diff"].to_numpy(float)}
        scores = {j: np.where(swap, -s, s) for j, s in columns.items() if np.isfinite(s).any()}
    prompts = bf["prompt_id"].to_numpy(dtype=object) if "prompt_id" in bf else None
    known = "position" in bf
    both, both_prompts = {}, {}
    if known:
        for k, j in enumerate(data.judges):
            judged = ~np.isnan(data.verdicts[:, k])
            key = pd.DataFrame(
                {
                    "lo": np.minimum(data.a, data.b)[judged],
                    "hi": np.maximum(data.a, data.b)[judged],
                    "first": data.a[judged],
                }
            )
            pairs = key.groupby(["lo", "hi"], sort=False)["first"].nunique()
            both[j] = int((pairs > 1).sum())
            if prompts is not None:
                key["prompt"] = prompts[judged]
                orders = key.groupby(["prompt", "lo", "hi"], sort=False)["first"].nunique()
                both_prompts[j] = int((orders > 1).sum())
    bothbad = int(bf["human_bothbad"].sum()) if "human_bothbad" in bf else 0
    return AuditInput(
        kind="battles",
        data=data,
        battles=battles,
        position_known=known,
        scores=scores,
        prompts=prompts,
        both_orders=both,
        both_order_prompts=both_prompts,
        bothbad=bothbad,
        source=source,
    )


def audit_input(
    data: Battles | JudgedItems | AuditInput,
    *,
    judge: str | None = None,
    human_labels: int | None = None,
    seed: int = 0,
    source: str = "",
) -> AuditInput:
    """Read battles or judged items for an audit (module docstring).

    Parameters
    ----------
    data
        Battles (one judge, or several joined by ``battle_id``), judged items, or an
        :class:`AuditInput` already made.
    judge
        The judge's name for judged items (they carry one judge); default ``"judge"``.
    human_labels
        Keep the human label on this many battles (items) drawn at random, hide the rest.
    seed
        Seed of that draw.
    source
        A name for the data (shown in the report's title).
    """
    if isinstance(data, AuditInput):
        out = data
    elif isinstance(data, Battles):
        out = _from_battles(data, source)
    elif isinstance(data, JudgedItems):
        out = AuditInput(kind="items", items=data, judge=judge or DEFAULT_JUDGE, source=source)
    else:
        raise DataError(
            f"an audit reads battles or judged items, not {type(data).__name__}",
            expected="judgebayes.Battles or judgebayes.JudgedItems",
        )
    if human_labels is None:
        return out
    if human_labels < 0:
        raise ValueError(f"human_labels must be >= 0, got {human_labels}")
    return _hide(out, int(human_labels), seed)


def _hide(out: AuditInput, n: int, seed: int) -> AuditInput:
    """Keep ``n`` human labels drawn at random (the others hidden)."""
    rng = np.random.default_rng(seed)
    if out.kind == "battles":
        labelled = np.flatnonzero(out.data.labelled)  # type: ignore[union-attr]
        if n > len(labelled):
            raise DataError(
                f"human_labels={n} is more than the {len(labelled):,} battles with a human label",
                column="human_label",
                expected=f"at most {len(labelled):,}",
            )
        keep = np.zeros(out.data.n_battles, bool)  # type: ignore[union-attr]
        keep[rng.choice(labelled, n, replace=False)] = True
        return AuditInput(
            **{
                **out.__dict__,
                "data": out.data.hide_human(keep),  # type: ignore[union-attr]
                "n_hidden": len(labelled) - n,
                "bothbad": 0,
            }
        )
    items = out.items
    f = items.frame  # type: ignore[union-attr]
    n_items = int(f.loc[f["human_label"].notna(), "item_id"].nunique())
    if n > n_items or n < 1:
        raise DataError(
            f"human_labels={n}: judged items keep between 1 and the {n_items:,} items with a "
            "human label",
            column="human_label",
            expected=f"1 to {n_items:,}",
        )
    # the other items keep their human label only as the truth, which no estimator reads
    split = items.calibration_split(n, seed=seed)  # type: ignore[union-attr]
    return AuditInput(**{**out.__dict__, "items": split, "n_hidden": n_items - n})
