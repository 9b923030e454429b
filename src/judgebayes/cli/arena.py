"""`judgebayes demo` and `judgebayes elo`: Bradley–Terry leaderboards with intervals.

Eq. 1 of Kargi & Salinas, *From Uncertain Judgments to Calibrated Rankings: Conformal Elo
Estimation for LLM Evaluation* (2026, arXiv:2606.13221), on per-pair statistics
(:func:`judgebayes.fit_bt`, :func:`judgebayes.bootstrap_bt`).
``demo`` simulates an arena with a few human labels and sets the judge-only Hard-Elo board
(bootstrap intervals) beside the calibrated Soft-Elo board (β from the human labels, the
held-out protocol, jackknife+ conformal intervals: :func:`judgebayes.run_softelo`), each
with its coverage of the simulated truth.
"""

from __future__ import annotations

import argparse
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd

from judgebayes._stats import norm_ppf
from judgebayes.cli.common import (
    TARGETS,
    board_summary,
    column_pair,
    count,
    label_pair,
    non_negative,
    non_negative_int,
    one_judge,
    positive_int,
    probability,
    write_board,
)
from judgebayes.cli.judges import (
    add_judge_options,
    judge_boards,
    read_elo_battles,
    resolve_inputs,
    shows_judges_beside_humans,
)
from judgebayes.cli.papers import PAPERS, described
from judgebayes.core.battles import Battles
from judgebayes.core.board import EloBoard
from judgebayes.core.bootstrap import bootstrap_bt
from judgebayes.core.categories import category_bt
from judgebayes.core.io import write_json
from judgebayes.core.loaders import FORMATS
from judgebayes.core.pairs import PairStats
from judgebayes.core.ranksets import rank_sets
from judgebayes.core.sandwich import sandwich_bt
from judgebayes.core.style import StyleElo, style_bt
from judgebayes.core.ties import compare_ties
from judgebayes.errors import DataError
from judgebayes.plots import forest
from judgebayes.simulate import simulate_arena
from judgebayes.softelo.pipeline import SoftEloResult, run_softelo


def _wrap(text: str) -> str:
    """Wrap each line of ``text`` at 100 characters."""
    return "\n".join(textwrap.fill(line, 100) if line else line for line in text.split("\n"))


def _hide_human_labels(battles: Battles, n_labelled: int, seed: int) -> Battles:
    """Keep ``human_label`` on ``n_labelled`` battles drawn at random, NaN on the rest."""
    if n_labelled > len(battles):
        raise DataError(
            f"--human-labels {n_labelled} is more than the {len(battles)} battles; "
            "pass at most --battles"
        )
    frame = battles.frame.copy()
    keep = np.zeros(len(frame), dtype=bool)
    keep[np.random.default_rng(seed).choice(len(frame), n_labelled, replace=False)] = True
    frame.loc[~keep, "human_label"] = np.nan
    return Battles(frame)


def _soft_board(result: SoftEloResult, alpha: float, seed: int) -> pd.DataFrame:
    """The Soft-Elo leaderboard: held-out Soft-Elo with its jackknife+ conformal interval.

    Its rank-sets treat the models' held-out Soft-Elo (each fitted against fixed anchors)
    as independent normals whose 1 − α intervals are the conformal ones (sd = half-width /
    z_{1−α/2}), drawn 4,000 times: the held-out protocol gives no joint replicates.
    """
    table = result.held.table
    intervals = result.conformal.evaluations["soft"].intervals
    lower, upper = np.asarray(intervals.lower, float), np.asarray(intervals.upper, float)
    elo = table["elo_soft"].to_numpy(float)
    sd = np.where(np.isfinite(upper - lower), (upper - lower) / 2, np.nan) / norm_ppf(1 - alpha / 2)
    draws = np.random.default_rng(seed).normal(elo, np.nan_to_num(sd, nan=1e6), (4000, len(elo)))
    ranks = rank_sets(draws, models=list(table["model"]), estimate=elo, alpha=alpha)
    return pd.DataFrame(
        {
            "model": table["model"],
            "elo": elo,
            "elo_lo": lower,
            "elo_hi": upper,
            "se": table["se_soft"],
            "n_battles": table["n_battles"],
            "rank_lo": ranks.rank_lo,
            "rank_hi": ranks.rank_hi,
            "tier": ranks.tier,
        }
    ).sort_values("elo", ascending=False, ignore_index=True)


def _covers(board: pd.DataFrame, truth: pd.Series) -> pd.Series:
    true = board["model"].map(truth)
    return (board["elo_lo"] <= true) & (true <= board["elo_hi"])


def _side_by_side(hard: pd.DataFrame, soft: pd.DataFrame, truth: pd.Series) -> pd.DataFrame:
    """Both boards on one row per model, sorted by the true Elo."""

    def part(board: pd.DataFrame, name: str) -> pd.DataFrame:
        covered = np.where(_covers(board, truth), "yes", "NO")
        return pd.DataFrame(
            {
                "model": board["model"],
                name: board["elo"],
                f"{name}_lo": board["elo_lo"],
                f"{name}_hi": board["elo_hi"],
                f"{name}_covers": covered,
            }
        )

    frame = truth.rename("true_elo").rename_axis("model").reset_index()
    frame = frame.merge(part(hard, "hard"), on="model").merge(part(soft, "soft"), on="model")
    return frame.sort_values("true_elo", ascending=False, ignore_index=True)


def _demo_figure(
    path: Path,
    hard: pd.DataFrame,
    soft: pd.DataFrame,
    truth: pd.Series,
    titles: tuple[str, str],
    alpha: float,
) -> Path:
    """Two forest panels, the same models in the same rows (by true Elo), shared Elo axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = truth.sort_values(ascending=False).index
    fig, axes = plt.subplots(1, 2, sharex=True, sharey=True, figsize=(11, 0.16 * len(order) + 1.6))
    labels = (
        f"Hard-Elo, {100 * (1 - alpha):g}% bootstrap interval",
        f"Soft-Elo, {100 * (1 - alpha):g}% conformal interval",
    )
    for ax, board, title, label in zip(axes, (hard, soft), titles, labels, strict=True):
        frame = board.set_index("model").loc[order].reset_index()
        forest(frame, ax=ax, alpha=alpha, truth=truth.to_dict(), max_models=len(frame))
        handles, names = ax.get_legend_handles_labels()
        ax.legend(
            handles,
            [label if name.startswith("Elo") else "true Elo" for name in names],
            loc="lower right",
            fontsize=7,
            frameon=False,
        )
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def _demo(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    sim = simulate_arena(args.models, args.battles, seed=args.seed)
    battles = _hide_human_labels(sim.battles, args.human_labels, args.seed)
    level = f"{100 * (1 - args.alpha):g}%"
    hard = bootstrap_bt(
        battles,
        target="judge_label",
        n_boot=args.n_boot,
        alpha=args.alpha,
        seed=args.seed,
        progress=not args.no_progress,
    )
    soft = run_softelo(
        battles,
        n_boot=args.held_out_boot,
        alpha=args.alpha,
        seed=args.seed,
        conformal="jackknife+",
        progress=not args.no_progress,
    )
    elapsed = time.perf_counter() - start
    truth = sim.elo
    hard_board, soft_board = hard.to_frame(), _soft_board(soft, args.alpha, args.seed)
    n = len(truth)
    cover = {
        "hard": int(_covers(hard_board, truth).sum()),
        "soft": int(_covers(soft_board, truth).sum()),
    }
    width = {
        "hard": float((hard_board["elo_hi"] - hard_board["elo_lo"]).median()),
        "soft": float((soft_board["elo_hi"] - soft_board["elo_lo"]).median()),
    }
    error = {
        name: float((b["elo"] - b["model"].map(truth)).abs().mean())
        for name, b in (("hard", hard_board), ("soft", soft_board))
    }
    temp = soft.temperature
    print(
        _wrap(
            f"Simulated arena: {args.models} models, {args.battles:,} battles judged by an "
            f"LLM, human labels on {args.human_labels:,} of them (seed {args.seed}).\n"
            f"hard: Hard-Elo from the judge's labels alone, {level} bootstrap intervals "
            f"({args.n_boot} replicates).\n"
            f"soft: Soft-Elo, BT on σ(β·s) with β = {temp.beta:.2f} fitted on {temp.n:,} decisive "
            f"human labels, held out per model (Algorithm 1 of Kargi & Salinas 2026, "
            f"arXiv:2606.13221), {level} jackknife+ "
            f"conformal intervals on the human Elo axis.\n"
        )
    )
    table = _side_by_side(hard_board, soft_board, truth)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.0f}"))
    human = soft.conformal.evaluations["soft"]
    print(
        "\n"
        + _wrap(
            f"coverage of the true Elo at nominal {level}: Hard-Elo {cover['hard']}/{n} "
            f"({cover['hard'] / n:.0%}), Soft-Elo {cover['soft']}/{n} ({cover['soft'] / n:.0%}).\n"
            f"median interval width {width['hard']:.0f} → {width['soft']:.0f} Elo; mean |error| "
            f"{error['hard']:.0f} → {error['soft']:.0f} Elo.\n"
            f"The judge's hard labels stretch the Elo axis (true span "
            f"{truth.min():.0f}–{truth.max():.0f}, Hard-Elo {hard_board['elo'].min():.0f}–"
            f"{hard_board['elo'].max():.0f}), and its bootstrap intervals measure only sampling "
            f"noise, so they miss. Soft-Elo puts the judge on the human scale; its conformal "
            f"intervals are calibrated against the held-out human-label Elo (which they cover for "
            f"{human.coverage:.0%} of the models, ⌈(1−α)n⌉/n by construction) and are wide "
            f"because {args.human_labels:,} human labels make that reference noisy. (The same "
            f"conformal step around the held-out Hard-Elo would cover too, at a median width of "
            f"{float(np.median(soft.conformal.evaluations['hard'].intervals.width)):.0f} Elo: the "
            f"soft targets, not the conformal step, make the intervals narrow.)\n"
            f"{elapsed:.1f} s."
        )
    )
    summary = board_summary(
        hard,
        simulated=True,
        seconds=elapsed,
        human_labels=args.human_labels,
        coverage_of_truth={"hard": cover["hard"] / n, "soft": cover["soft"] / n},
        median_width=width,
        mean_abs_error=error,
        soft={
            "beta": temp.beta,
            "n_beta_labels": temp.n,
            "n_boot": args.held_out_boot,
            "conformal": "jackknife+",
            "coverage_of_human_elo": human.coverage,
            "methods": soft.summary().to_dict("records"),
        },
    )
    written = write_board(args.out, hard, summary, plot=False)
    if written:
        written.append(args.out / "leaderboard_soft.csv")
        soft_board.to_csv(written[-1], index=False)
        titles = (
            f"Hard-Elo, judge only: covers {cover['hard']}/{n} true Elo",
            f"Soft-Elo, β from {args.human_labels:,} human labels: covers {cover['soft']}/{n}",
        )
        written.append(
            _demo_figure(args.out / "forest.png", hard_board, soft_board, truth, titles, args.alpha)
        )
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _read_battles(
    args: argparse.Namespace,
) -> tuple[Battles | PairStats, str | None, bool]:
    """The data of ``elo`` and ``compare``: battles, or pair statistics streamed from Parquet;
    the target; whether it was streamed. Battles of several judges with human labels come
    back whole (``elo`` prints the human board beside each judge's); otherwise one judge's."""
    resolve_inputs(args)  # --judge NAME=FILE files, --format auto
    target = TARGETS.get(args.target, args.target) if args.target else None
    streamed = args.format == "parquet" or (
        args.format in ("csv", "arena")
        and (args.file.is_dir() or args.file.suffix.lower() in (".parquet", ".pq"))
    )
    if streamed:  # pair statistics batch by batch: memory grows with pairs, not battles
        from judgebayes.core.stream import scan_pairs

        scan = scan_pairs(
            args.file,
            target=target,
            format="arena" if args.format == "arena" else "table",
            columns=dict(args.map or ()),
            labels=dict(args.label or ()),
            on_invalid="drop" if args.drop_invalid else "raise",
            progress=not args.no_progress,
        )
        if args.judge is None and len(scan.judges) > 1 and not args.pool_judges:
            raise DataError(
                f"{args.file} holds verdicts of {len(scan.judges)} judges; pick one "
                f"with --judge NAME (e.g. --judge {scan.judges[0]}) or pass "
                "--pool-judges"
            )
        return scan.pair_stats(args.judge), scan.target, True
    battles = read_elo_battles(args)
    if shows_judges_beside_humans(args, battles):
        return battles, target, False
    return one_judge(args, may_pool=True, battles=battles), target, False


def _elo(args: argparse.Namespace) -> int:
    data, target, streamed = _read_battles(args)
    if isinstance(data, Battles) and shows_judges_beside_humans(args, data):
        return judge_boards(args, data)  # the human board beside each judge's
    if args.by is not None:
        return _elo_by_category(data, target, args)
    board = _board(data, target, args, streamed=streamed)
    print(board)
    extra = _board_report(board, data, target, args)
    summary = board_summary(
        board, file=str(args.file), format=args.format, judge=args.judge, streamed=streamed, **extra
    )
    written = write_board(args.out, board, summary, plot=args.out is not None)
    if written and args.baseline:
        written.append(args.out / "baseline.csv")
        board.vs_baseline(args.baseline).to_frame().to_csv(written[-1], index=False)
    if written:
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _add_board_options(parser: argparse.ArgumentParser) -> None:
    """The leaderboard's own options (method, clusters, ties, baseline), apart from the
    input options."""
    parser.add_argument(
        "--method",
        choices=("bootstrap", "sandwich"),
        default="bootstrap",
        help="intervals from the bootstrap (default) or the sandwich covariance (no "
        "resampling; arena-rank's default)",
    )
    parser.add_argument(
        "--cluster",
        default="auto",
        metavar="COL",
        help="resample (bootstrap) or sum scores (sandwich) by clusters of battles in this "
        "column; 'auto' (default): prompt_id when the file has it; 'none': independent battles",
    )
    parser.add_argument(
        "--ties",
        choices=("half", "davidson"),
        default="half",
        help="a tie is half a win (default) or Davidson's tie model; with ties in the data "
        "the board says which of the two leave-one-battle-out prefers",
    )


def _style_feature(text: str) -> tuple[str, tuple[str, str]]:
    """An argparse ``type=``: ``--style NAME=COL_A,COL_B``."""
    name, sep, cols = text.partition("=")
    parts = cols.split(",")
    if not (sep and name and len(parts) == 2 and all(parts)):
        raise argparse.ArgumentTypeError(f"expected NAME=COL_A,COL_B, got {text!r}")
    return name, (parts[0], parts[1])


def _board_options(args: argparse.Namespace, *, streamed: bool) -> dict:
    """Keyword arguments of the board from :func:`_add_board_options`' options."""
    cluster = None if args.cluster.lower() == "none" else args.cluster
    if streamed and cluster not in (None, "auto"):
        raise DataError(
            f"--cluster {args.cluster}: streamed Parquet is aggregated to pair statistics, "
            "which keep no prompts; read it as a table (--format csv) to cluster"
        )
    return {"cluster": cluster, "ties": args.ties}


def _elo_by_category(
    data: Battles | PairStats, target: str | None, args: argparse.Namespace
) -> int:
    """``judgebayes elo --by COL``: the overall and per-category boards of one fit."""
    if not isinstance(data, Battles):
        raise DataError("--by needs the battles: read the file as a table, not streamed")
    cluster = None if args.cluster.lower() == "none" else args.cluster
    result = category_bt(
        data,
        by=args.by,
        target=target,
        lam=args.lam,
        cluster=cluster,
        alpha=args.alpha,
        seed=args.seed,
    )
    print(result)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        written = [args.out / "categories.csv", args.out / "summary.json"]
        result.to_frame().to_csv(written[0], index=False)
        write_json(
            written[1],
            {
                "by": args.by,
                "categories": list(result.categories),
                "tau_elo": result.tau_elo,
                "cluster": result.cluster,
                "n_clusters": result.n_clusters,
                "alpha": args.alpha,
                "file": str(args.file),
            },
        )
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _add_compare_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``judgebayes compare`` beyond the input and the board's."""
    parser.add_argument(
        "--rope",
        type=non_negative,
        default=0.0,
        metavar="δ",
        help="A is ahead only when the whole 1 − α interval of Elo_A − Elo_B lies above δ "
        "Elo points (a region of practical equivalence; default 0)",
    )
    parser.add_argument(
        "--all-pairs",
        choices=("holm", "bh"),
        default=None,
        help="also print every pair with p-values adjusted by Holm or Benjamini–Hochberg",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="folder for comparison.csv and summary.json"
    )


def _compare(args: argparse.Namespace) -> int:
    data, target, streamed = _read_battles(args)
    board = _board(data, target, args, streamed=streamed)
    result = board.compare(args.model_a, args.model_b, rope=args.rope)
    print(result)
    if args.all_pairs:
        print(f"\n{board.compare_all(correction=args.all_pairs)}")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        result.to_frame().to_csv(args.out / "comparison.csv", index=False)
        write_json(
            args.out / "summary.json",
            board_summary(
                board, file=str(args.file), comparison=result.to_frame().iloc[0].to_dict()
            ),
        )
    return 0 if result.ahead else 1


def _board(
    data: Battles | PairStats, target: str | None, args: argparse.Namespace, *, streamed: bool
) -> EloBoard:
    """The leaderboard of ``judgebayes elo``: bootstrap or sandwich intervals, with style
    control when ``--style`` is given."""
    common = {"target": target, "lam": args.lam, "alpha": args.alpha, "seed": args.seed}
    common |= _board_options(args, streamed=streamed)
    if getattr(args, "style", None) is not None:
        if not isinstance(data, Battles):
            raise DataError("--style needs the battles: read the file as a table, not streamed")
        if common.pop("ties") != "half":
            raise DataError("--style fits ties as half a win; leave --ties at half")
        features = dict(args.style) or None
        return style_bt(
            data,
            features=features,
            method=args.method,
            n_boot=args.n_boot,
            progress=not args.no_progress,
            **common,
        )
    if args.method == "sandwich":
        return sandwich_bt(data, **common)
    return bootstrap_bt(data, n_boot=args.n_boot, progress=not args.no_progress, **common)


def _board_report(
    board: EloBoard, data: Battles | PairStats, target: str | None, args: argparse.Namespace
) -> dict:
    """Print what goes with the board (the tie models' LOO, the score against a baseline);
    return the same for the summary."""
    extra: dict = {"method": args.method, "ties": args.ties}
    if isinstance(board, StyleElo):
        extra["style"] = board.coefficients().to_dict("records")
    try:
        check = compare_ties(data, target=target, lam=args.lam, cluster=board.cluster)
    except DataError:  # soft targets, weights or no ties: nothing to choose between
        check = None
    if check is not None:
        print(f"\n{check}" + ("" if check.decisive else " (not decisive: within 2 SE)"))
        extra["ties_loo"] = check.to_dict()
    if args.baseline:
        scores = board.vs_baseline(args.baseline)
        print(f"\n{scores}")
        extra["baseline"] = args.baseline
    return extra


def _add_input_options(parser: argparse.ArgumentParser) -> None:
    """The battles file and how to read it, the fit's settings: shared by ``elo`` and
    ``compare``."""
    parser.add_argument(
        "file",
        type=Path,
        help="battles file (or folder); Parquet (a file or a folder of them) is streamed; "
        "with --judge NAME=FILE, the human verdicts the judges' files are joined to",
    )
    parser.add_argument(
        "--format",
        choices=(*FORMATS, "parquet"),
        default="auto",
        help="auto (default): chosen from the content; parquet: a Parquet table in the "
        "Battles schema (as csv); csv and arena read .parquet files and folders by "
        "streaming too",
    )
    parser.add_argument(
        "--target", default=None, help="judge, human, or a column name (default: judge if present)"
    )
    add_judge_options(parser)  # --judge NAME | NAME=FILE, --baseline
    parser.add_argument(
        "--pool-judges", action="store_true", help="fit all judges' verdicts together"
    )
    parser.add_argument(
        "--map",
        nargs="*",
        type=column_pair,
        metavar="THEIRS=OURS",
        help="column mapping for --format csv, e.g. left=model_a",
    )
    parser.add_argument(
        "--label",
        nargs="*",
        type=label_pair,
        metavar="VALUE=P",
        help="label mapping for --format csv, e.g. A=1 B=0 tie=0.5",
    )
    parser.add_argument("--lam", type=non_negative, default=0.01)
    parser.add_argument("--n-boot", type=count, default=1000)
    parser.add_argument("--alpha", type=probability, default=0.05)
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument(
        "--drop-invalid",
        action="store_true",
        help="drop invalid rows (counted in the summary) instead of failing",
    )


def register(sub: argparse._SubParsersAction) -> None:
    """Add the verb's parser."""
    demo = sub.add_parser(
        "demo",
        help="simulate a judged arena with a few human labels; judge-only Hard-Elo beside "
        f"calibrated Soft-Elo ({PAPERS['softelo'].short})",
        description=described(
            "A simulated arena judged by an LLM, with human labels on a few battles (no data "
            "needed): the judge-only Hard-Elo board (bootstrap intervals) beside the calibrated "
            "Soft-Elo board (temperature β from the human labels, held-out protocol, jackknife+ "
            "conformal intervals), each with its coverage of the simulated truth; with --out, "
            "both boards as CSV, summary.json and a two-panel forest.png.",
            PAPERS["softelo"],
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument("--models", type=count, default=55)
    demo.add_argument("--battles", type=positive_int, default=25_000)
    demo.add_argument(
        "--human-labels",
        type=positive_int,
        default=2_500,
        help="battles that keep their human label (the rest: judge only)",
    )
    demo.add_argument(
        "--n-boot", type=count, default=1000, help="bootstrap replicates of the Hard-Elo board"
    )
    demo.add_argument(
        "--held-out-boot",
        type=count,
        default=20,
        help="within-model bootstrap replicates of the held-out SEs",
    )
    demo.add_argument("--alpha", type=probability, default=0.1)
    demo.add_argument("--seed", type=non_negative_int, default=0)
    demo.add_argument(
        "--out",
        type=Path,
        default=Path("judgebayes-demo"),
        help="folder for leaderboard.csv (Hard-Elo), leaderboard_soft.csv, "
        "summary.json, forest.png (both boards)",
    )
    demo.add_argument("--no-progress", action="store_true")
    demo.set_defaults(run=_demo)
    elo = sub.add_parser(
        "elo",
        help="Bradley–Terry Elo leaderboard with bootstrap intervals; with several judges' "
        "verdicts and human labels, the human board beside each judge's",
        description=described(
            "A Bradley–Terry Elo leaderboard (Eq. 1, fitted on per-pair statistics) with "
            "bootstrap or sandwich intervals, simultaneous rank-sets and tiers; with several "
            "judges' files (--judge NAME=FILE) and human labels, the human board beside each "
            "judge's with Kendall τ and MAE to the human Elo.",
            PAPERS["softelo"],
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_input_options(elo)
    elo.add_argument("--out", type=Path, default=None)
    elo.add_argument("--no-progress", action="store_true")
    _add_board_options(elo)
    elo.add_argument(
        "--style",
        nargs="*",
        type=_style_feature,
        default=None,
        metavar="NAME=COL_A,COL_B",
        help="style control: hold these features equal (default with no value: response "
        "length, len_a,len_b); prints the style coefficients and each model's rank change",
    )
    elo.add_argument(
        "--by",
        default=None,
        metavar="COL",
        help="per-category boards from one hierarchical fit (category offsets shrunk to the "
        "overall board), categories in column COL; with --out, categories.csv",
    )
    elo.set_defaults(run=_elo)
    compare = sub.add_parser(
        "compare",
        help="is model A ahead of model B? ΔElo with its interval; exit 0 when A is ahead "
        "at the level, 1 when not, 2 on bad input (a release gate)",
    )
    _add_input_options(compare)
    compare.add_argument("model_a", metavar="A", help="the model that should be ahead")
    compare.add_argument("model_b", metavar="B", help="the model it is compared with")
    _add_compare_options(compare)
    _add_board_options(compare)
    compare.add_argument("--no-progress", action="store_true")
    compare.set_defaults(run=_compare)
