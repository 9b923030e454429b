"""Battle weights that cancel a judge's preference for the answer shown first.

A judge with a position bias c adds c to the probability that the answer shown first
wins, whatever the answers. A Bradley–Terry fit sees a pair {i, j} only through the
sum of its targets (:class:`~judgebayes.core.pairs.PairStats`), so when i happened to be
shown first in more of the pair's battles than j, the bias leaks into i's rating; when
the orders are balanced it only dilutes the pair (each order's mean is p ± c). On the
Chatbot Arena battles of :func:`judgebayes.datasets.load_ppr`, where gpt-3.5-turbo says
"model_a" (shown first) in 86 % of battles, the per-pair share of model_a-first orders
varies as random assignment makes it vary (0.2–0.7 over 190 pairs), which is enough to
scramble the order of close models on that judge's board.

:func:`balance_positions` reweights the battles so that, within every (judge, unordered
pair), the battles shown in one order carry the same total weight as those shown in the
other: a battle of order o gets weight w = n / (2 n_o) (n the pair's battles of that
judge, n_o those shown in order o). The pair keeps its total weight n, and its weighted
mean target is ½(mean_o + mean_o'), in which an additive position bias cancels:

    ½((p + c) + (p − c)) = p.

Every fit that reads pair statistics honours the weights (they are the ``weight``
column: :func:`~judgebayes.core.bt.fit_bt`, :func:`~judgebayes.consensus.bt_by_judge`,
:func:`~judgebayes.consensus.fit_consensus`); the online Elo of
:func:`~judgebayes.consensus.online_elo` plays battles one at a time and ignores them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.errors import JudgeBayesWarning

__all__ = ["balance_positions"]


def balance_positions(battles: Battles) -> Battles:
    """Weight battles so both presentation orders of every (judge, pair) weigh the same.

    Parameters
    ----------
    battles
        Battles; the order shown is the ``position`` column (``"a"``: model_a first,
        ``"b"``: model_b first), or model_a first where there is none (the Chatbot Arena
        convention). Rows are grouped by ``judge`` when there is one.

    Returns
    -------
    Battles
        The same rows with ``weight`` = n / (2 n_o) (times an existing weight): n battles
        of the (judge, unordered pair), n_o of them shown in the row's order. A pair
        that was shown in one order only cannot be balanced: its weights stay as they
        were, and a :class:`~judgebayes.JudgeBayesWarning` says how many such pairs there
        are.
    """
    frame = battles.frame
    a, b = battles.codes()
    m = len(battles.models)
    pair = np.minimum(a, b) * m + np.maximum(a, b)
    a_first = (
        np.asarray(frame["position"] == "a") if "position" in frame else np.ones(len(frame), bool)
    )
    # The order shown, as "the lower-coded model of the pair was shown first".
    low_first = a_first == (a < b)
    judge = frame["judge"].to_numpy() if "judge" in frame else np.zeros(len(frame))
    keys = pd.DataFrame({"judge": judge, "pair": pair, "low_first": low_first})
    n_pair = keys.groupby(["judge", "pair"], sort=False)["pair"].transform("size").to_numpy()
    n_order = keys.groupby(["judge", "pair", "low_first"], sort=False)["pair"].transform("size")
    n_order = n_order.to_numpy()
    one_order = n_order == n_pair
    weight = np.where(one_order, 1.0, n_pair / (2.0 * n_order))
    if one_order.any():
        cells = keys.loc[one_order, ["judge", "pair"]].drop_duplicates()
        warnings.warn(
            f"{len(cells)} (judge, pair) cell(s) were shown in one order only: their "
            "battles keep weight 1 (a position bias there is not cancelled)",
            JudgeBayesWarning,
            stacklevel=2,
        )
    if "weight" in frame:
        weight = weight * frame["weight"].to_numpy(float)
    frame["weight"] = weight
    return Battles(frame)
