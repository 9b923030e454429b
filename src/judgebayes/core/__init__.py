"""What every method shares: the battles table, loaders, pair statistics, graph checks, the
Bradley–Terry engine and its bootstrap.

Data flow: a loader (:mod:`~judgebayes.core.loaders`) validates a file into
:class:`~judgebayes.core.battles.Battles` (labels oriented as P(A beats B));
:meth:`Battles.pair_stats` aggregates any target into
:class:`~judgebayes.core.pairs.PairStats` (per-pair counts and target sums), on which
:func:`~judgebayes.core.bt.fit_bt` and :func:`~judgebayes.core.bootstrap.bootstrap_bt`
cost O(pairs). Parquet arenas larger than memory are aggregated batch by batch into the
same statistics (:func:`~judgebayes.core.stream.scan_pairs`). Clusters of battles (prompts)
give clustered intervals (:mod:`~judgebayes.core.clusters`, :mod:`~judgebayes.core.sandwich`);
any draws of the scores give simultaneous rank-sets and tiers
(:mod:`~judgebayes.core.ranksets`). No JAX here.
"""

from judgebayes.core.aligned import read_aligned, read_judge_table
from judgebayes.core.battles import BATTLE_COLUMNS, LABEL_COLUMNS, SCHEMA, Battles
from judgebayes.core.bootstrap import BootstrapElo, bootstrap_bt
from judgebayes.core.bt import (
    ELO_BASE,
    ELO_SCALE,
    EloFit,
    bt_objective,
    elo_to_theta,
    fit_bt,
    theta_to_elo,
)
from judgebayes.core.categories import CategoryElo, category_bt
from judgebayes.core.graph import GraphCheck, check_graph
from judgebayes.core.loaders import (
    FORMATS,
    battle_format,
    read_arena,
    read_battles,
    read_consistency,
    read_softelo,
    read_table,
)
from judgebayes.core.pairs import PairStats
from judgebayes.core.ranksets import RankSets, rank_sets
from judgebayes.core.report import DropReport
from judgebayes.core.sandwich import SandwichElo, sandwich_bt
from judgebayes.core.stream import PairScan, scan_pairs, stream_pair_stats
from judgebayes.core.style import StyleElo, StyleReference, style_bt
from judgebayes.core.ties import TieComparison, compare_ties
from judgebayes.core.tool_formats import read_alpaca_eval, read_arena_hard, read_grades

__all__ = [
    "BATTLE_COLUMNS",
    "ELO_BASE",
    "ELO_SCALE",
    "FORMATS",
    "LABEL_COLUMNS",
    "SCHEMA",
    "Battles",
    "BootstrapElo",
    "CategoryElo",
    "DropReport",
    "EloFit",
    "GraphCheck",
    "PairScan",
    "PairStats",
    "RankSets",
    "SandwichElo",
    "StyleElo",
    "StyleReference",
    "TieComparison",
    "battle_format",
    "bootstrap_bt",
    "bt_objective",
    "category_bt",
    "check_graph",
    "compare_ties",
    "elo_to_theta",
    "fit_bt",
    "rank_sets",
    "read_aligned",
    "read_alpaca_eval",
    "read_arena",
    "read_arena_hard",
    "read_battles",
    "read_consistency",
    "read_grades",
    "read_judge_table",
    "read_softelo",
    "read_table",
    "sandwich_bt",
    "scan_pairs",
    "stream_pair_stats",
    "style_bt",
    "theta_to_elo",
]
