"""Rankings from many judge verdicts and a few human labels, beside Prediction-Powered Ranking.

Chatzi et al., "Prediction-Powered Ranking of Large Language Models" (NeurIPS 2024,
arXiv:2402.17826) rank LLMs from n human-labelled Chatbot Arena battles and N battles
judged by a strong LLM. Its code (``../shared/peers/prediction-powered-ranking``, run
unchanged with its folder on ``sys.path``) and data (``../shared/data/ppr``: humans and
three judges on the same 26,919 battles) give the reference. Two protocols, the same draws
for every method:

* **A, PPR's own**: its ``config.json`` (12 models), its seeds scheme (``llm-ranking.py``),
  its data split per draw (``get_common_instances``, ``filter_data`` balancing every pair to
  96 battles, n human labels spread evenly over the 66 pairs, the rest judge-only), α = 0.1,
  its estimators (``estimate.py``, ``ranksets.py``) and its two metrics computed by its
  ``plot_utils.Result``: mean rank-set size and the share of draws in which every model's
  rank-set meets the "baseline" rank-set from all (balanced) human labels of that draw.
* **B, as teams use it**: all 14,947 battles among the 12 models carry every judge's
  verdict; n of them, drawn at random, also carry their human label. PPR's metrics (its
  baseline: its rank-sets from all 14,947 human labels), plus what the issue asks for:
  coverage of the reference ranking — the Bradley–Terry ranking (``jb.fit_bt``) from all
  26,919 human labels — per model and for all models at once, and the Elo MAE against it.

Per draw, the split of protocol A is made by PPR's functions for the first judge; the three
judges' files list the same battles line by line and its functions draw the same positions
for each (checked on the first draw of every n with ``--check-split``), so the other two
judges' lists are taken at the same lines. Two quirks of its split: inside a group of
battles with the same question and models (5 such groups among the 12 models) its
``get_common_instances`` shuffles the human and the judge records separately, and
``get_big_dataset_llm`` drops judge-only records that duplicate a labelled one; its
estimators see that, ours see the battles line by line.

    python bench/ppr_protocol.py                      # both protocols, 50 draws
    python bench/ppr_protocol.py --draws 10 --n 500   # a quick look
    python bench/ppr_protocol.py --out bench/results  # also write ppr_protocol.txt

Targets (issue 25), printed MET / NOT MET:

* A: at every n and for each judge our best estimator is no worse than PPR on both metrics
  (by more than two Monte Carlo SEs), and at n = 500 strictly better on one by more than two
  Monte Carlo SEs;
* B: at n = 500, for each judge, rank-sets containing the reference rank for ≥ 90% of the
  models, with mean size ≤ 0.8 × PPR's;
* B: three judges together beat the best single judge at equal n;
* the whole benchmark in ≤ 10 minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

# One BLAS thread: on a shared 2-core machine OpenBLAS's threads spin against each other
# and every other process (ppi-bt's gradient covariance with three judges: 0.72 s per fit
# at load 12 with its default threads, 0.07 s with one). Set before NumPy loads it.
os.environ["OPENBLAS_NUM_THREADS"] = os.environ.get("OPENBLAS_NUM_THREADS", "1")
os.environ["OMP_NUM_THREADS"] = os.environ.get("OMP_NUM_THREADS", "1")
os.environ["MKL_NUM_THREADS"] = os.environ.get("MKL_NUM_THREADS", "1")

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd

import judgebayes as jb
from judgebayes.rankings import Ranking, RankingData

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
os.environ.setdefault("JUDGEBAYES_DATA", str(SHARED / "data"))  # jb.datasets reads the copy
PEER = SHARED / "peers" / "prediction-powered-ranking"
DATA = SHARED / "data" / "ppr"
# PPR's judge names (its config.json) and files
JUDGE_FILES = {
    "gpt-4-0125-preview": "gpt-4-0125-preview.json",
    "claude-3-opus": "claude-3-opus-20240229.json",
    "gpt-3.5-turbo": "gpt-3.5-turbo.json",
}
SHORT = {"gpt-4-0125-preview": "gpt-4", "claude-3-opus": "claude-3", "gpt-3.5-turbo": "gpt-3.5"}
ALPHA = 0.1
N_VALUES = (200, 500, 1000, 2000)
LABEL = {"model_a": 1.0, "model_b": 0.0}  # "tie", "tie (bothbad)": 0.5

sys.path.insert(0, str(PEER))
from src import data_process, estimate, plot_utils, ranksets  # noqa: E402  (PPR, unchanged)

sys.path.remove(str(PEER))


def _label(record: dict) -> float:
    return LABEL.get(record["winner"], 0.5)


# --------------------------------------------------------------------------- data
@dataclass
class Files:
    """The four files as PPR reads them, and our arrays of the same lines."""

    human: list[dict]
    judges: dict[str, list[dict]]
    models: list[str]  # its config.json's 12
    line_of: dict[int, int]  # id(record) -> line, for the human and the first judge's records
    all_battles: RankingData  # every line, 20 models, human + 3 judges
    reference: pd.Series  # BT Elo from all 26,919 human labels, the 12 models, mean 1500
    reference_rank: dict[str, int]


def load() -> Files:
    """PPR's records (its ``input_json``) and ours of the same lines (``jb.datasets.load_ppr``)."""
    human = data_process.input_json(str(DATA / "human.json"))
    judges = {j: data_process.input_json(str(DATA / f)) for j, f in JUDGE_FILES.items()}
    models = json.loads((PEER / "scripts" / "config.json").read_text())["models"]
    first = judges[next(iter(JUDGE_FILES))]
    line_of = {id(r): k for k, r in enumerate(human)} | {id(r): k for k, r in enumerate(first)}
    battles = jb.datasets.load_ppr()
    ours = RankingData.from_battles(battles)
    # the package names the judges by their files; PPR's config by its own names
    by_file = {f.removesuffix(".json"): j for j, f in JUDGE_FILES.items()}
    all_battles = replace(ours, judges=tuple(by_file[j] for j in ours.judges))
    assert [ours.models[a] for a in ours.a[:100]] == [r["model_a"] for r in human[:100]]
    fit = jb.fit_bt(battles.human_battles(), target="human_label")
    elo = pd.Series(fit.elo, index=fit.models)[models]
    reference = elo - elo.mean() + 1500.0
    order = reference.sort_values(ascending=False).index
    return Files(
        human,
        judges,
        models,
        line_of,
        all_battles,
        reference,
        {m: k + 1 for k, m in enumerate(order)},
    )


@dataclass
class Draw:
    """One draw: our battles and PPR's rank-sets computed by its code."""

    protocol: str
    n: int
    index: int
    seed: int
    data: RankingData  # the 12 models; human label where labelled; 3 judges
    peer: dict[str, np.ndarray] = field(default_factory=dict)  # method -> (k, 2) rank-sets
    peer_lambda: dict[str, float] = field(default_factory=dict)


def _peer_sets(thetahat: np.ndarray, sigma: np.ndarray, k: int) -> np.ndarray:
    return np.array(ranksets.find_ranksets(k, thetahat, sigma, ALPHA))


def protocol_a_seeds(iterations: int) -> dict[int, list[int]]:
    """Seeds as PPR's ``llm-ranking.py`` makes them, for ``n`` in N_VALUES and α = 0.1."""
    config = json.loads((PEER / "scripts" / "config.json").read_text())
    random.seed(config["seed"])
    seeds = [random.sample(range(10, 100000000), iterations) for _ in N_VALUES]
    return dict(zip(N_VALUES, seeds, strict=True))


def protocol_a_draw(files: Files, n: int, index: int, seed: int, *, check: bool) -> Draw:
    """PPR's split of one draw (``run_experiment``'s steps) and its four methods."""
    models, k = files.models, len(files.models)
    first = next(iter(JUDGE_FILES))
    h_common, j_common = data_process.get_common_instances(
        seed, files.human, files.judges[first], models
    )
    h_common = data_process.filter_data(seed, h_common, models)
    j_common = data_process.filter_data(seed, j_common, models)
    small_h = data_process.filter_data(seed, h_common, models, n=n)
    small_j = data_process.filter_data(seed, j_common, models, n=n)
    common_lines = [files.line_of[id(r)] for r in j_common]
    small_lines = [files.line_of[id(r)] for r in small_j]
    small_human_lines = [files.line_of[id(r)] for r in small_h]
    draw = Draw("A", n, index, seed, _draw_data(files, small_human_lines, common_lines))
    for judge in JUDGE_FILES:
        recs = files.judges[judge]
        j_common_j = [recs[i] for i in common_lines]
        small_j_j = [recs[i] for i in small_lines]
        if check and judge != first:
            _, j2 = data_process.get_common_instances(seed, files.human, recs, models)
            j2 = data_process.filter_data(seed, j2, models)
            assert [r["question_id"] for r in j2] == [r["question_id"] for r in j_common_j]
            assert [id(r) for r in data_process.filter_data(seed, j2, models, n=n)] == [
                id(r) for r in small_j_j
            ]
        big = data_process.get_big_dataset_llm(j_common_j, small_j_j)
        dn = data_process.summarize_dataset(models, small_j_j, small_h)
        dN = data_process.summarize_dataset(models, big)
        lam = estimate.lhat_opt(k, dn, dN)
        draw.peer_lambda[judge] = lam
        draw.peer[f"ppr ({judge})"] = _peer_sets(*estimate.estimate(k, dn, dN, lhat=lam), k)
        alone = data_process.summarize_dataset(models, data_process.filter_data(seed, recs, models))
        draw.peer[f"llm ({judge})"] = _peer_sets(*estimate.sample_avg(k, alone), k)
    draw.peer["human only"] = _peer_sets(*estimate.sample_avg(k, dn, "human"), k)
    base = data_process.summarize_dataset(
        models, data_process.filter_data(seed, files.human, models)
    )
    draw.peer["baseline"] = _peer_sets(*estimate.sample_avg(k, base), k)
    return draw


def _draw_data(files: Files, labelled: list[int], lines: list[int]) -> RankingData:
    """Our battles of a draw: ``lines`` with the human label kept on ``labelled``."""
    sub = files.all_battles.subset(np.isin(np.arange(files.all_battles.n_battles), lines))
    keep = np.isin(np.flatnonzero(np.isin(np.arange(files.all_battles.n_battles), lines)), labelled)
    return sub.restrict(files.models).hide_human(keep)


class ProtocolB:
    """Every battle of the 12 models judged, n random ones labelled by humans."""

    def __init__(self, files: Files) -> None:
        models = set(files.models)
        self.lines = np.array(
            [k for k, r in enumerate(files.human) if {r["model_a"], r["model_b"]} <= models]
        )
        self.files = files
        k = len(files.models)
        everything = data_process.summarize_dataset(
            files.models, [files.human[i] for i in self.lines]
        )
        self.baseline = _peer_sets(*estimate.sample_avg(k, everything), k)

    def draw(self, n: int, index: int, seed: int) -> Draw:
        files, k = self.files, len(self.files.models)
        rng = np.random.default_rng([seed, n, index])
        chosen = np.sort(rng.choice(len(self.lines), size=n, replace=False))
        labelled = self.lines[chosen]
        rest = np.setdiff1d(self.lines, labelled)
        draw = Draw("B", n, index, seed, _draw_data(files, list(labelled), list(self.lines)))
        small_h = [files.human[i] for i in labelled]
        for judge, recs in files.judges.items():
            dn = data_process.summarize_dataset(files.models, [recs[i] for i in labelled], small_h)
            dN = data_process.summarize_dataset(files.models, [recs[i] for i in rest])
            lam = estimate.lhat_opt(k, dn, dN)
            draw.peer_lambda[judge] = lam
            draw.peer[f"ppr ({judge})"] = _peer_sets(*estimate.estimate(k, dn, dN, lhat=lam), k)
        draw.peer["human only"] = _peer_sets(*estimate.sample_avg(k, dn, "human"), k)
        draw.peer["baseline"] = self.baseline
        return draw


# ------------------------------------------------------------------------ methods
@dataclass(frozen=True)
class Method:
    """An estimator: on one draw's battles (``one``) or on all draws of a setting (``many``)."""

    one: Callable[[RankingData], Ranking] | None = None
    many: Callable[[list[RankingData]], list[Ranking]] | None = None


FAMILIES = ("ppi-bt", "soft", "latent", "latent+δ")
"""Our estimators that use judges, each run with every judge alone and all three together."""
ALL = "all three"


def _configs() -> list[tuple[str, list[str]]]:
    return [(j, [j]) for j in JUDGE_FILES] + [(ALL, list(JUDGE_FILES))]


def our_methods(families: tuple[str, ...], *, nuts: bool = False) -> dict[str, Method]:
    """Our estimators by name, ``family (judges)``; ``human BT`` uses no judge.

    ppi-bt: :func:`~judgebayes.rankings.ppi_bt` (PPI++, λ tuned per judge); soft:
    :func:`~judgebayes.rankings.soft_target_bt`; latent / latent+δ: the latent-outcome
    model with a shared confusion matrix per judge / with each judge's favouritism by model,
    MAP + 500 Laplace draws, every draw of a setting in one call of
    :func:`~judgebayes.rankings.fit_latent_outcome_many` (``nuts``: NUTS, 4 chains × 500
    after 500 warm-up, one draw at a time). The frequentist ones rank from 4,000 Normal
    draws (max-|t|), the Bayesian ones by the joint posterior of ranks. A method is a
    :class:`Method`: ``one(data) -> Ranking`` or ``many([data, ...]) -> [Ranking, ...]``.
    """
    from judgebayes.rankings import (
        fit_latent_outcome,
        fit_latent_outcome_many,
        ppi_bt,
        soft_target_bt,
    )

    def latent(judges: list[str], by_model: bool) -> Method:
        if nuts:

            def one(data: RankingData) -> Ranking:
                fit = fit_latent_outcome(
                    data,
                    judges,
                    by_model=by_model,
                    method="nuts",
                    chains=4,
                    draws=500,
                    warmup=500,
                    progress=False,
                )
                sites = ["theta", "log_nu", "decisive", "tie_row"] + (["tau", "z"] * by_model)
                post = fit.posterior
                flat = [post[k].reshape(*post[k].shape[:2], -1) for k in sites]
                rhat, ess = jb.bayes.rank_rhat_and_bulk_ess(np.concatenate(flat, axis=2))
                NUTS_DIAGNOSTICS.setdefault((tuple(judges), by_model), []).append(
                    (float(np.nanmax(rhat)), float(np.nanmin(ess)))
                )
                return fit.ranking(ALPHA)

            return Method(one=one)
        return Method(
            many=lambda datasets: [
                fit.ranking(ALPHA)
                for fit in fit_latent_outcome_many(
                    datasets,
                    judges,
                    by_model=by_model,
                    draws=500,
                    batch_size=25,  # 50 draws: two batches, none padded
                    progress=False,
                )
            ]
        )

    build = {
        "ppi-bt": lambda js: Method(one=lambda data: ppi_bt(data, js).ranking(ALPHA)),
        "soft": lambda js: Method(one=lambda data: soft_target_bt(data, js).ranking(ALPHA)),
        "latent": lambda js: latent(js, False),
        "latent+δ": lambda js: latent(js, True),
    }
    methods: dict[str, Method] = {}
    if not nuts:
        methods["human BT"] = Method(one=lambda data: ppi_bt(data, []).ranking(ALPHA))
    for family in families:
        for tag, judges in _configs():
            methods[f"{family}{' NUTS' if nuts else ''} ({tag})"] = build[family](judges)
    return methods


NUTS_DIAGNOSTICS: dict[tuple[tuple[str, ...], bool], list[tuple[float, float]]] = {}
"""(max rank R-hat, min bulk ESS) over every sampled parameter of each NUTS fit, by
(judges, by model)."""


@dataclass
class Outcome:
    """Rank-sets (k, 2) of every method on every draw, and the Elo where it has one."""

    sets: dict[str, list[np.ndarray]] = field(default_factory=dict)
    elo: dict[str, list[np.ndarray]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    lam: dict[str, list[float]] = field(default_factory=dict)

    def add(self, method: str, sets: np.ndarray, elo: np.ndarray | None = None) -> None:
        self.sets.setdefault(method, []).append(np.asarray(sets))
        if elo is not None:
            self.elo.setdefault(method, []).append(np.asarray(elo))


def run_draws(draws, methods: dict[str, Method], files: Files) -> Outcome:
    """Every method on every draw (a ``many`` method on all draws in one call)."""
    warnings.simplefilter("ignore")  # sampler notes of hundreds of fits; the table says it all
    draws = list(draws)
    out = Outcome()
    order = list(files.models)
    for draw in draws:
        for name, sets in draw.peer.items():
            out.add(name, sets)
        for judge, lam in draw.peer_lambda.items():
            out.lam.setdefault(f"ppr ({judge})", []).append(lam)
    for name, method in methods.items():
        t = time.perf_counter()
        if method.many is not None:
            boards = method.many([d.data for d in draws])
        else:
            boards = [method.one(d.data) for d in draws]
        out.seconds[name] = time.perf_counter() - t
        for board in boards:
            idx = [board.models.index(m) for m in order]
            sets = np.column_stack([board.rank_lo[idx], board.rank_hi[idx]])
            out.add(name, sets, board.estimate[idx] if board.scale == "elo" else None)
            if "lambda" in board.details:
                out.lam.setdefault(name, []).append(board.details["lambda"])
    return out


# ------------------------------------------------------------------------ metrics
def peer_metrics(outcome: Outcome, models: list[str], n: int) -> dict[str, tuple[float, float]]:
    """PPR's two metrics by its own ``plot_utils.Result``: (mean size, intersection share)."""
    results = {
        method: {m: [s[k].tolist() for s in sets] for k, m in enumerate(models)}
        for method, sets in outcome.sets.items()
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"n{n}_a{ALPHA}.json"
        path.write_text(json.dumps({"n": n, "alpha": ALPHA, "results": results}))
        res = plot_utils.Result(tmp + "/", {"n": n, "alpha": ALPHA})
        res.do_analysis()
    return {
        m: (res.avg_sizes[m], res.correct_intersect.get(m, res.iterations) / res.iterations)
        for m in res.methods
    }


@dataclass
class Row:
    """One method at one (protocol, n): PPR's metrics (by its code), ours, per draw too."""

    method: str
    size: float  # mean rank-set size, by PPR's Result
    intersect: float  # share of draws whose every rank-set meets the baseline's, by its Result
    coverage: float  # share of (model, draw) whose rank-set holds the reference rank
    all_covered: float  # share of draws in which every model's rank-set holds it
    mae: float  # Elo MAE against the reference, both centred at 1500 (NaN for win rates)
    lam: float  # mean Σλ (PPR, PPI++)
    per_draw: pd.DataFrame  # size, intersect, coverage of every draw

    def se(self, metric: str) -> float:
        values = self.per_draw[metric]
        return float(values.std(ddof=1) / np.sqrt(len(values)))


def rows(outcome: Outcome, files: Files, n: int) -> dict[str, Row]:
    """Every method's row; a method run on the first c draws only is scored, by PPR's code
    too, on those c draws (its baseline the same draws' baseline)."""
    counts = {m: len(sets) for m, sets in outcome.sets.items()}
    peer: dict[str, tuple[float, float]] = {}
    for c in sorted(set(counts.values())):
        sub = Outcome(sets={m: sets[:c] for m, sets in outcome.sets.items() if len(sets) >= c})
        peer.update({m: v for m, v in peer_metrics(sub, files.models, n).items() if counts[m] == c})
    ref = np.array([files.reference_rank[m] for m in files.models])
    out = {}
    for method, sets in outcome.sets.items():
        s = np.stack(sets)  # (draws, k, 2)
        base = np.stack(outcome.sets["baseline"][: len(sets)])
        per_draw = pd.DataFrame(
            {
                "size": (s[..., 1] - s[..., 0] + 1).mean(axis=1),
                # PPR's definition: every model's rank-set meets the baseline's
                "intersect": ~((s[..., 0] > base[..., 1]) | (s[..., 1] < base[..., 0])).any(1),
                "coverage": ((s[..., 0] <= ref) & (ref <= s[..., 1])).mean(axis=1),
            }
        )
        size, inter = peer[method]
        assert np.isclose(size, per_draw["size"].mean()), method  # ours = its Result
        assert np.isclose(inter, per_draw["intersect"].mean()), method
        mae = np.nan
        if method in outcome.elo:
            elo = np.stack(outcome.elo[method])
            elo = elo - elo.mean(axis=1, keepdims=True) + 1500.0
            mae = float(np.abs(elo - files.reference.to_numpy()).mean())
        hold = (s[..., 0] <= ref) & (ref <= s[..., 1])
        out[method] = Row(
            method,
            size,
            inter,
            float(hold.mean()),
            float(hold.all(axis=1).mean()),
            mae,
            float(np.mean(outcome.lam[method])) if method in outcome.lam else np.nan,
            per_draw.astype(float),
        )
    return out


def format_rows(table: dict[str, Row]) -> str:
    lines = [
        f"{'method':34s} {'size':>12s} {'intersect':>12s} {'cover':>6s} {'all':>5s} "
        f"{'MAE':>6s} {'λ':>5s} {'s/fit':>6s} {'draws':>5s}"
    ]
    for r in table.values():
        lines.append(
            f"{r.method:34s} {r.size:5.2f} ± {r.se('size'):4.2f} {r.intersect:5.2f} ± "
            f"{r.se('intersect'):4.2f} {r.coverage:6.3f} {r.all_covered:5.2f} "
            f"{r.mae:6.1f} {r.lam:5.2f} {r.per_draw.attrs.get('seconds', np.nan):6.2f} "
            f"{len(r.per_draw):5d}"
        )
    return "\n".join(lines)


def paired(a: Row, b: Row, metric: str) -> tuple[float, float]:
    """Mean of a − b over the draws both ran on (the first ones) and its Monte Carlo SE."""
    c = min(len(a.per_draw), len(b.per_draw))
    d = a.per_draw[metric].to_numpy()[:c] - b.per_draw[metric].to_numpy()[:c]
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))


def targets(results: dict[tuple[str, int], dict[str, Row]], families: tuple[str, ...]) -> list[str]:
    """The issue's targets, MET / NOT MET, with the numbers behind each verdict."""
    lines = []
    judges = list(JUDGE_FILES)
    a_ns = sorted(n for p, n in results if p == "A")
    if a_ns:
        lines.append(
            "Target A (PPR's protocol): our best estimator no worse than PPR on size and "
            "intersection at every n (within 2 paired MC SEs) and, at n = 500, better on one "
            "by more than 2 SEs"
        )
        for judge in judges:
            found = []
            for family in families:
                name, ok, better = f"{family} ({judge})", True, False
                notes = []
                for n in a_ns:
                    ours, ppr = results[("A", n)][name], results[("A", n)][f"ppr ({judge})"]
                    ds, ss = paired(ours, ppr, "size")
                    di, si = paired(ours, ppr, "intersect")
                    worse = ds > 2 * ss or di < -2 * si
                    ok &= not worse
                    if n == 500:
                        better = ds < -2 * ss or di > 2 * si
                    notes.append(f"n={n}: Δsize {ds:+.2f}±{ss:.2f}, Δinter {di:+.2f}±{si:.2f}")
                met = ok and (better or 500 not in a_ns)
                found.append(met)
                lines.append(f"  {'MET    ' if met else 'NOT MET'} {name}: " + "; ".join(notes))
            verdict = "MET" if any(found) else "NOT MET"
            lines.append(f"  => {judge}: {verdict} (best of {', '.join(families)})")
    if ("B", 500) in results:
        table = results[("B", 500)]
        lines.append(
            "Target B (all battles judged, n = 500): coverage of the reference rank ≥ 0.90 and "
            "mean size ≤ 0.8 × PPR's, per judge"
        )
        for judge in judges:
            ppr = table[f"ppr ({judge})"]
            found = []
            for family in families:
                r = table[f"{family} ({judge})"]
                met = r.coverage >= 0.90 and r.size <= 0.8 * ppr.size
                found.append(met)
                lines.append(
                    f"  {'MET    ' if met else 'NOT MET'} {r.method}: coverage {r.coverage:.3f}, "
                    f"size {r.size:.2f} vs 0.8 × {ppr.size:.2f} = {0.8 * ppr.size:.2f}"
                )
            lines.append(f"  => {judge}: {'MET' if any(found) else 'NOT MET'}")
    b_ns = sorted(n for p, n in results if p == "B")
    if b_ns:
        lines.append(
            "Target B (three judges together beat the best single judge at equal n): smaller "
            "mean size by > 2 paired SEs, coverage no lower (within 2 SEs) and ≥ 0.90 where the "
            "best single judge reaches 0.90 (best: smallest sets among those covering ≥ 0.90)"
        )
        for family in families:
            for n in b_ns:
                table = results[("B", n)]
                both = table[f"{family} ({ALL})"]
                singles = [table[f"{family} ({j})"] for j in judges]
                # the best single judge: the smallest sets among those that cover ≥ 0.90,
                # else the one that covers most
                valid = [r for r in singles if r.coverage >= 0.90]
                best = (
                    min(valid, key=lambda r: r.size)
                    if valid
                    else max(singles, key=lambda r: r.coverage)
                )
                ds, ss = paired(both, best, "size")
                dc, sc = paired(both, best, "coverage")
                met = ds < -2 * ss and dc > -2 * sc and (both.coverage >= 0.90 or not valid)
                lines.append(
                    f"  {'MET    ' if met else 'NOT MET'} {family}, n = {n}: all three size "
                    f"{both.size:.2f} cover {both.coverage:.3f} vs best single ({best.method}) "
                    f"{best.size:.2f} / {best.coverage:.3f}: Δsize {ds:+.2f}±{ss:.2f}, "
                    f"Δcover {dc:+.3f}±{sc:.3f}"
                )
    return lines


def to_csv(results: dict[tuple[str, int], dict[str, Row]], path: Path) -> None:
    """The table, one row per (protocol, n, method), for the notebook."""
    records = [
        {
            "protocol": p,
            "n": n,
            "method": r.method,
            "size": r.size,
            "size_se": r.se("size"),
            "intersect": r.intersect,
            "intersect_se": r.se("intersect"),
            "coverage": r.coverage,
            "all_covered": r.all_covered,
            "mae": r.mae,
            "lambda": r.lam,
            "seconds_per_fit": r.per_draw.attrs.get("seconds", np.nan),
            "draws": len(r.per_draw),
        }
        for (p, n), table in results.items()
        for r in table.values()
    ]
    pd.DataFrame(records).to_csv(path, index=False, float_format="%.4f")


# --------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=50)
    parser.add_argument("--n", type=int, nargs="*", default=list(N_VALUES))
    parser.add_argument("--protocol", choices=["A", "B", "AB"], default="AB")
    parser.add_argument("--families", nargs="*", default=list(FAMILIES), choices=FAMILIES)
    parser.add_argument(
        "--nuts-draws",
        type=int,
        default=0,
        help="also fit the latent models (all three judges) by NUTS, 4 chains, on the first N "
        "draws of protocol B, n = 500, beside their MAP",
    )
    parser.add_argument("--seed", type=int, default=2024, help="protocol B's draws")
    parser.add_argument("--check-split", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    started = time.perf_counter()
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    rev = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    say(f"# command: python bench/ppr_protocol.py {' '.join(sys.argv[1:])}")
    say(
        f"# recorded: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, judgebayes at "
        f"commit {rev} (+ the working tree)"
    )
    say(f"# machine: {os.cpu_count()} CPU cores; Python {platform.python_version()}")
    say("# load average at start: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    files = load()
    families = tuple(args.families)
    methods = our_methods(families)
    say(
        "reference: BT (fit_bt, λ = 0.01) on all 26,919 human labels; ranks of the 12: "
        + ", ".join(f"{m} {r}" for m, r in sorted(files.reference_rank.items(), key=lambda x: x[1]))
    )
    say(
        "columns: size = mean rank-set size and intersect = share of draws whose every "
        "rank-set meets the baseline's (both by PPR's plot_utils.Result, ± Monte Carlo SE); "
        "cover = share of models whose rank-set holds the reference rank, all = share of draws "
        "where all do; MAE = Elo MAE vs the reference; λ = mean Σλ; s/fit = seconds per fit; "
        "draws = draws scored"
    )
    results: dict[tuple[str, int], dict[str, Row]] = {}
    seeds_a = protocol_a_seeds(args.draws)
    b = ProtocolB(files) if "B" in args.protocol else None
    for protocol in args.protocol:
        for n in args.n:
            t = time.perf_counter()
            if protocol == "A":
                draws = (
                    protocol_a_draw(files, n, i, s, check=args.check_split and i == 0)
                    for i, s in enumerate(seeds_a[n])
                )
            else:
                draws = (b.draw(n, i, args.seed) for i in range(args.draws))
            outcome = run_draws(draws, methods, files)
            table = rows(outcome, files, n)
            for name, row in table.items():
                row.per_draw.attrs["seconds"] = outcome.seconds.get(name, np.nan) / len(
                    row.per_draw
                )  # a batched method's time shared among its draws
            results[(protocol, n)] = table
            seconds = time.perf_counter() - t
            say(f"\nprotocol {protocol}, n = {n}, {args.draws} draws ({seconds:.0f} s)")
            say(format_rows(table))
    say("")
    for line in targets(results, families):
        say(line)
    if args.nuts_draws and b is not None:
        t = time.perf_counter()
        latent = tuple(f for f in families if f.startswith("latent"))
        draws = [b.draw(500, i, args.seed) for i in range(args.nuts_draws)]
        chosen = {k: v for k, v in our_methods(latent, nuts=True).items() if ALL in k}
        nuts = run_draws(draws, chosen, files)
        twins = {k.replace(" NUTS", "") for k in chosen}
        maps = run_draws(draws, {k: v for k, v in methods.items() if k in twins}, files)
        say(
            f"\nNUTS (4 chains x 500 after 500 warm-up) against MAP on the first "
            f"{args.nuts_draws} draws of protocol B, n = 500 ({time.perf_counter() - t:.0f} s): "
            "mean size, coverage and Elo MAE"
        )
        for name in nuts.elo:
            twin = name.replace(" NUTS", "")
            for label, out, key in (("NUTS", nuts, name), ("MAP ", maps, twin)):
                s = np.stack(out.sets[key])
                ref = np.array([files.reference_rank[m] for m in files.models])
                elo = np.stack(out.elo[key])
                elo = elo - elo.mean(axis=1, keepdims=True) + 1500
                say(
                    f"  {label} {twin:28s} size {(s[..., 1] - s[..., 0] + 1).mean():5.2f} cover "
                    f"{((s[..., 0] <= ref) & (ref <= s[..., 1])).mean():.3f} MAE "
                    f"{np.abs(elo - files.reference.to_numpy()).mean():6.1f} "
                    f"({out.seconds[key] / len(draws):.1f} s per fit)"
                )
            judges = list(JUDGE_FILES) if ALL in name else [name.split("(")[1].rstrip(")")]
            diag = NUTS_DIAGNOSTICS.get((tuple(judges), "latent+δ" in name), [])
            say(
                "       4 chains, every sampled parameter: max R-hat "
                + ", ".join(f"{r:.3f}" for r, _ in diag)
                + "; min bulk ESS "
                + ", ".join(f"{e:.0f}" for _, e in diag)
            )
    bench_seconds = time.perf_counter() - started
    full = (
        args.draws >= 50
        and set(args.n) == set(N_VALUES)
        and args.protocol == "AB"
        and set(families) == set(FAMILIES)
        and args.nuts_draws > 0
    )
    met = bench_seconds <= 600 and full
    say(
        f"\nTarget time: the whole benchmark (both protocols, 4 n x 50 draws x all methods, "
        f"NUTS included) in ≤ 10 minutes: {'MET' if met else 'NOT MET'} ({bench_seconds:.0f} s "
        f"here{'' if full else ', and this run is not the whole benchmark'})"
    )
    say(f"\n# load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    say(f"# wall time {time.perf_counter() - started:.0f} s")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "ppr_protocol.txt").write_text("\n".join(lines) + "\n")
        to_csv(results, args.out / "ppr_protocol.csv")


if __name__ == "__main__":
    main()
