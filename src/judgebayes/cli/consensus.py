"""`judgebayes consensus`: inter-judge dispersion, human agreement, self-preference.

Zhang, Wang, Wu, Yu, Wang, Bao & Tang, *UDA: Unsupervised Debiasing Alignment for Pair-wise
LLM-as-a-Judge* (2025, arXiv:2508.09724).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from judgebayes.cli.common import column_pair, label_pair, non_negative_int, number, positive_int
from judgebayes.cli.papers import PAPERS, described
from judgebayes.core.io import file_format, read_frame, reading, write_json
from judgebayes.core.loaders import FORMATS as BATTLE_FORMATS
from judgebayes.core.loaders import (
    NAME_COLUMNS,
    battle_format,
    read_battles,
    read_consistency,
    read_table,
)
from judgebayes.errors import DataError

# every battles format, and "table": a judge × model Elo table
FORMATS = ("auto", "table", *(f for f in BATTLE_FORMATS if f != "auto"))


def own_pair(text: str) -> tuple[str, str]:
    """An argparse ``type=``: ``--own JUDGE=MODEL``."""
    judge, sep, model = text.partition("=")
    if not (sep and judge and model):
        raise argparse.ArgumentTypeError(f"expected JUDGE=MODEL, got {text!r}")
    return judge, model


def _short(method: str) -> str:
    return method.removesuffix("_elo")


def _read(args: argparse.Namespace) -> tuple[str, object]:
    """``("table", EloTable)`` or ``("battles", Battles)`` from the input path."""
    from judgebayes.consensus.ratings import elo_table_from_frame

    path: Path = args.path
    on_invalid = "drop" if args.drop_invalid else "raise"
    fmt = args.format
    if fmt == "auto" and (path.is_dir() or file_format(path, "csv").startswith("json")):
        fmt = battle_format(path)  # contest files, Arena-Hard judgments, a judge table ...
        print(f"format: {fmt} (--format auto: chosen from the content of {path.name})")
    if fmt == "consistency":
        return "battles", read_consistency(path, on_invalid=on_invalid)
    if fmt not in ("auto", "csv"):
        return "battles", read_battles(path, fmt, on_invalid=on_invalid)
    frame = read_frame(path, text_columns=("row", "method", *NAME_COLUMNS), default="csv")
    with reading(path):
        if fmt == "table" or (fmt == "auto" and list(frame.columns[:2]) == ["row", "method"]):
            return "table", elo_table_from_frame(frame, str(path))
        return "battles", read_table(
            frame,
            columns=dict(args.map or ()),
            labels=dict(args.label or ()),
            on_invalid=on_invalid,
        )


def _reference(path: Path | None) -> pd.Series | None:
    """``--reference``: a CSV ``model, elo`` (or ``arena_elo``) as a Series by model."""
    if path is None:
        return None
    frame = read_frame(path, text_columns=("model",), default="csv")
    with reading(path):
        value = next((c for c in ("arena_elo", "elo", "human") if c in frame), None)
        if "model" not in frame or value is None:
            raise DataError(
                f"columns {list(frame.columns)}",
                column="model",
                expected="a CSV with columns model and elo (or arena_elo)",
            )
        elo = pd.to_numeric(frame[value], errors="coerce")
        if elo.isna().any():
            row = int(np.flatnonzero(elo.isna().to_numpy())[0])
            raise DataError(
                "Elo is not a number",
                row=row,
                column=value,
                got=frame[value].iloc[row],
                expected="a finite number",
            )
    return pd.Series(elo.to_numpy(float), index=frame["model"].astype(str), name=path.stem)


def _print_comparison(comparison: object, digits: int = 2) -> None:
    sd = comparison.sd.rename(columns=lambda m: f"sd_{_short(m)}")
    print("inter-judge SD (ddof = 1) by model:")
    print(sd.reset_index().to_string(index=False, float_format=lambda v: f"{v:.{digits}f}"))
    print(
        "average: "
        + ", ".join(f"{_short(m)} {v:.{digits}f}" for m, v in comparison.mean_sd.items())
    )
    if comparison.correlation is not None:
        name = comparison.reference.name or "reference"
        print(f"\nPearson r with {name!r} (mean over judges; consensus = mean rating):")
        table = comparison.correlation.rename(columns=lambda m: f"r_{_short(m)}")
        print(table.reset_index().to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print(
            "mean: "
            + ", ".join(f"{_short(m)} {v:.3f}" for m, v in comparison.mean_correlation.items())
        )


def _summary(comparison: object) -> dict:
    out = {
        "methods": [_short(m) for m in comparison.sd.columns],
        "mean_sd": {_short(m): v for m, v in comparison.mean_sd.items()},
        "sd": comparison.sd.rename(columns=_short).reset_index().to_dict(orient="records"),
    }
    if comparison.correlation is not None:
        out["reference"] = str(comparison.reference.name)
        out["mean_r"] = {_short(m): v for m, v in comparison.mean_correlation.items()}
        out["consensus_r"] = {
            _short(m): v for m, v in comparison.correlation.loc["consensus"].items()
        }
    return out


def _write_sd(out: Path, comparison: object) -> Path:
    path = out / "inter_judge_sd.csv"
    comparison.sd.rename(columns=lambda m: f"sd_{_short(m)}").reset_index().to_csv(
        path, index=False
    )
    return path


def _consensus(args: argparse.Namespace) -> int:
    """The UDA paper's metrics on an Elo table, or per-judge Elo + the multi-judge model."""
    from judgebayes.consensus.metrics import compare_rating_methods

    kind, data = _read(args)
    own = dict(args.own or ())
    reference = _reference(args.reference)
    written: list[Path] = []
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    if kind == "table":
        comparison = compare_rating_methods(data, reference=reference, own=own or None)
        print(repr(data)[1:-1])
        _print_comparison(comparison)
        summary = {"file": str(args.path), "input": "elo table", **_summary(comparison)}
        if comparison.self_preference is not None:
            dev = comparison.self_preference
            print("\nself-preference: own rating minus the other judges' mean:")
            print(dev.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
            summary["self_preference"] = dev.to_dict(orient="records")
        if args.out is not None:
            written.append(_write_sd(args.out, comparison))
            if comparison.self_preference is not None:
                written.append(args.out / "self_preference_deviation.csv")
                comparison.self_preference.to_csv(written[-1], index=False)
    else:
        summary = _battles(args, data, own, reference, written)
    if args.out is not None:
        written.append(write_json(args.out / "summary.json", summary))
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _battles(
    args: argparse.Namespace,
    battles: object,
    own: dict,
    reference: pd.Series | None,
    written: list[Path],
) -> dict:
    from judgebayes.consensus.elo import bt_by_judge, online_elo
    from judgebayes.consensus.metrics import compare_rating_methods

    if "judge" not in battles:
        raise DataError(
            f"{args.path} has no 'judge' column: consensus compares several judges "
            "(map one with --map THEIRS=judge)",
            column="judge",
        )
    if len(battles.judges) < 2:
        raise DataError(
            f"only one judge ({battles.judges[0]}): inter-judge dispersion needs at least two",
            column="judge",
        )
    for judge, model in own.items():
        if judge not in battles.judges or model not in battles.models:
            what = "judge" if judge not in battles.judges else "model"
            raise DataError(
                f"--own {judge}={model}: unknown {what}",
                column=what,
                expected=f"a {what} of the data",
            )
    elo = online_elo(
        battles, k=args.k, scale=args.scale, initial=args.initial, order=args.order, seed=args.seed
    )
    methods = [elo, bt_by_judge(battles)]
    fit = vs_human = None
    if args.vs_human:
        from judgebayes.consensus.agreement import compare_with_humans

        if "human_label" not in battles:
            raise DataError(
                f"{args.path} has no 'human_label' column: --vs-human compares the judges "
                "with the human label of the same battles",
                column="human_label",
                expected="a human verdict on every row (map one with --map THEIRS=human_label)",
            )
        vs_human = compare_with_humans(
            battles,
            own_model=own or None,
            bayes=not args.no_bayes,
            balance=args.balance_positions,
            n_boot=args.n_boot,
            chains=args.chains,
            draws=args.draws,
            warmup=args.warmup,
            seed=args.seed,
            progress=not args.no_progress,
        )
        fit = vs_human.posterior  # the multi-judge fit it made: not fitted twice
    elif not args.no_bayes:
        from judgebayes.consensus.bayes import fit_consensus

        fit = fit_consensus(
            battles,
            own_model=own,
            chains=args.chains,
            draws=args.draws,
            warmup=args.warmup,
            seed=args.seed,
            progress=not args.no_progress,
        )
    if fit is not None:
        methods.append(fit.judge_ratings())
    comparison = compare_rating_methods(methods, reference=reference, own=own or None)
    n_comp = 1 if elo.component is None else len(set(elo.component))
    print(
        f"{len(battles):,} verdicts of {len(battles.judges)} judges on {len(battles.models)} "
        f"models; baseline: online Elo K = {args.k:g}, order {args.order}; bt: per-judge BT"
        + ("; bayes: multi-judge BT judge views ψθ + δ" if fit is not None else "")
    )
    if n_comp > 1:
        print(
            f"note: the comparison graph has {n_comp} disconnected components: ratings are "
            "compared within components (correlations centred per component)"
        )
    _print_comparison(comparison)
    summary = {
        "file": str(args.path),
        "input": "battles",
        "n_battles": len(battles),
        "judges": list(battles.judges),
        "n_models": len(battles.models),
        "components": n_comp,
        "rows": battles.report.to_dict(),
        "elo": {
            "k": args.k,
            "scale": args.scale,
            "initial": args.initial,
            "order": args.order,
            "seed": args.seed,
        },
        **_summary(comparison),
    }
    if args.out is not None:
        written.append(_write_sd(args.out, comparison))
    if fit is not None:
        level = f"{100 * (1 - fit.alpha):g}%"
        print(
            f"\nmulti-judge BT consensus Elo ({level} interval; {args.chains} chains × "
            f"{args.draws} draws per component):"
        )
        print(fit.to_frame().to_string(index=False, float_format=lambda v: f"{v:.1f}"))
        summary["bayes"] = {
            "consensus": fit.to_frame().to_dict(orient="records"),
            "psi": fit.psi.to_dict(orient="records"),
            "tau": fit.tau.to_dict(orient="records"),
            "diagnostics": fit.diagnostics.to_dict(orient="records"),
            "chains": args.chains,
            "draws": args.draws,
            "warmup": args.warmup,
        }
        if own:
            table = fit.eta[["judge", "model", "eta", "eta_lo", "eta_hi", "p_positive"]].copy()
            dev = comparison.self_preference
            base = dev[dev["method"] == elo.method].set_index("judge")
            table["dev_elo_baseline"] = table["judge"].map(base["dev_elo"])
            print(
                f"\nself-preference η (logit scale, {level} interval) and the baseline's own "
                "rating minus the other judges' mean (Elo):"
            )
            print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
            summary["self_preference"] = table.to_dict(orient="records")
            if args.out is not None:
                written.append(args.out / "self_preference.csv")
                table.to_csv(written[-1], index=False)
            if fit.diagnostics["max_rhat"].max() > 1.01:
                print("note: R-hat > 1.01: run longer (--draws, --warmup) before trusting η")
    if vs_human is not None:
        _print_vs_human(args, battles, own, vs_human, summary, written)
    return summary


def _print_vs_human(
    args: argparse.Namespace,
    battles: object,
    own: dict,
    vs_human: object,
    summary: dict,
    written: list[Path],
) -> None:
    """``--vs-human``: every board and the consensus against the human board; with
    ``--own``, each judge's preference for its own model against the human labels."""
    from judgebayes.consensus.self_check import self_preference_check

    level = f"{100 * (1 - vs_human.alpha):g}%"
    print(
        f"\nagainst the human board of the same battles ({vs_human.n_boot} paired battle-"
        f"bootstrap replicates, {level} intervals"
        + ("; judges' BT and Bayesian boards position-balanced" if vs_human.balanced else "")
        + "):"
    )
    print(vs_human.metrics.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print("\neach consensus minus the best judge board of its kind:")
    print(vs_human.versus_best.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    summary["vs_human"] = {
        "n_boot": vs_human.n_boot,
        "alpha": vs_human.alpha,
        "balanced": vs_human.balanced,
        "metrics": vs_human.metrics.to_dict(orient="records"),
        "versus_best": vs_human.versus_best.to_dict(orient="records"),
    }
    if args.out is not None:
        for name, frame in (
            ("vs_human.csv", vs_human.metrics),
            ("vs_human_best.csv", vs_human.versus_best),
            ("boards.csv", vs_human.boards.reset_index()),
        ):
            written.append(args.out / name)
            frame.to_csv(written[-1], index=False)
    if not own:
        return
    check = self_preference_check(
        battles, own, n_boot=args.n_boot, seed=args.seed, progress=not args.no_progress
    )
    columns = ["judge", "own", "n_battles", "human_score", "judge_score", "gap", "gap_lo"]
    columns += ["gap_hi", "eta", "eta_lo", "eta_hi", "others_eta", "excess"]
    print(
        f"\nown-model preference against the human labels of the same battles ({level}): "
        "own-side scores (position-balanced), human-anchored η (logit), and its excess "
        "over the other judges' η on the same models:"
    )
    print(check.table[columns].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    summary["self_preference_vs_human"] = check.table.to_dict(orient="records")
    if args.out is not None:
        written.append(args.out / "self_preference_vs_human.csv")
        check.table.to_csv(written[-1], index=False)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the verb's parser."""
    cons = sub.add_parser(
        "consensus",
        help=f"multi-judge consensus ({PAPERS['consensus'].short}): inter-judge SD, correlation "
        "with a human row, per-judge Elo, the multi-judge BT and self-preference η",
        description=described(
            "Several judges on the same models: on an Elo table (judge × model), the inter-judge "
            "dispersion and each judge's correlation with a human row; on battles, each judge's "
            "online Elo and Bradley–Terry board, and the Bayesian multi-judge model's consensus, "
            "discrimination and self-preference η (--own JUDGE=MODEL).",
            PAPERS["consensus"],
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cons.add_argument(
        "path",
        type=Path,
        metavar="FILE",
        help="a judge × model Elo table (row,method,<models...>), or battles with "
        "a judge column (a folder of contest JSON files: --format consistency)",
    )
    cons.add_argument(
        "--format",
        choices=FORMATS,
        default="auto",
        help="auto: a folder or JSON file by its content (contest files, Arena-Hard "
        "judgments, ...), an Elo table when the first columns are row,method, else a "
        "battles table",
    )
    cons.add_argument(
        "--own",
        action="append",
        type=own_pair,
        metavar="JUDGE=MODEL",
        help="judge JUDGE is also the contestant MODEL (repeatable): its self-preference",
    )
    cons.add_argument(
        "--reference",
        type=Path,
        default=None,
        help="CSV model,elo (e.g. human Arena Elo) to correlate ratings with",
    )
    cons.add_argument("--k", type=number, default=32.0, help="online Elo K (the paper: 32)")
    cons.add_argument("--scale", type=number, default=400.0)
    cons.add_argument("--initial", type=number, default=1200.0)
    cons.add_argument(
        "--order",
        choices=("given", "shuffle"),
        default="given",
        help="battle order of the online Elo (file order, or shuffled by --seed)",
    )
    cons.add_argument("--seed", type=non_negative_int, default=0)
    cons.add_argument(
        "--no-bayes", action="store_true", help="skip the multi-judge Bayesian model (NUTS)"
    )
    cons.add_argument(
        "--vs-human",
        action="store_true",
        help="battles with the human label of the same battle on every row (and a "
        "battle_id): score every judge's board and the consensus boards against the human "
        "board with paired battle-bootstrap intervals; with --own, each judge's preference "
        "for its own model against the human labels",
    )
    cons.add_argument(
        "--n-boot",
        type=positive_int,
        default=200,
        help="--vs-human: paired battle-bootstrap replicates (each refits the Bayesian "
        "consensus unless --no-bayes)",
    )
    cons.add_argument(
        "--balance-positions",
        action="store_true",
        help="--vs-human: weight the judges' battles so both presentation orders of every "
        "pair weigh the same (a position bias cancels)",
    )
    cons.add_argument("--chains", type=positive_int, default=2)
    cons.add_argument("--draws", type=positive_int, default=500)
    cons.add_argument("--warmup", type=positive_int, default=500)
    cons.add_argument("--map", nargs="*", type=column_pair, metavar="THEIRS=OURS")
    cons.add_argument("--label", nargs="*", type=label_pair, metavar="VALUE=P")
    cons.add_argument(
        "--drop-invalid",
        action="store_true",
        help="drop invalid rows (counted in the summary) instead of failing",
    )
    cons.add_argument("--no-progress", action="store_true")
    cons.add_argument("--out", type=Path, default=None)
    cons.set_defaults(run=_consensus)
