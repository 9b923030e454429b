"""judgebayes.datasets: loaders through JUDGEBAYES_DATA, pinned hashes, one-line failures.

conftest.py points JUDGEBAYES_DATA at ../shared/data for the session, so nothing here
downloads; the download path is exercised with pooch's downloader monkeypatched.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pandas as pd
import pooch
import pytest

import judgebayes as jb
from judgebayes import datasets
from judgebayes.errors import DataError

SHARED = Path(os.environ["JUDGEBAYES_DATA"])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_datasets_is_a_lazy_submodule_not_a_public_name() -> None:
    assert jb.datasets is datasets and "datasets" not in jb.__all__


def test_consistency_contests_of_24_judges() -> None:
    battles = datasets.load_consistency()
    assert isinstance(battles, jb.Battles)
    assert set(battles.judges) == set(datasets.JUDGES) and len(datasets.JUDGES) == 24
    assert len(battles.models) == 35 and len(battles) == 66_995
    frame = battles.frame
    # 2,800 contests (140 ordered matchups × 20 questions); a judge has a verdict on
    # 2,746-2,800 of them, 2,791 on average (some verdicts are missing upstream; "2,796
    # contests per judge" is a round description, not every judge's count)
    per_judge = frame.groupby("judge", observed=True).size()
    assert per_judge.min() == 2_746 and per_judge.max() == 2_800
    assert per_judge.median() == 2_799 and (per_judge >= 2_796).sum() == 19
    contests = frame[["model_a", "model_b", "prompt_id"]].drop_duplicates()
    assert len(contests) == 2_800
    two = datasets.load_consistency(["vicuna-13b", "gemma-7b-it"])
    assert set(two.judges) == {"vicuna-13b", "gemma-7b-it"}
    assert len(two) == per_judge[["vicuna-13b", "gemma-7b-it"]].sum()


def test_extra_files_in_a_local_copy_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    contests = tmp_path / "llm_consistency" / "contests"
    contests.mkdir(parents=True)
    for judge in datasets.JUDGES:
        name = f"{judge}_contest_data.json"
        (contests / name).symlink_to(SHARED / "llm_consistency" / "contests" / name)
    (contests / "my-judge_contest_data.json").write_text("[]")
    monkeypatch.setenv(datasets.DATA_ENV, str(tmp_path))
    assert set(datasets.load_consistency().judges) == set(datasets.JUDGES)


def test_unknown_judge_names_the_choices() -> None:
    with pytest.raises(DataError, match=r"no contest data for judge 'gpt-5'.*chatgpt-4o-latest"):
        datasets.load_consistency(["gpt-5"])


def test_elo_tables_of_judges_and_contestants() -> None:
    judges = datasets.load_judge_elo()
    assert list(judges.columns) == ["judge", "arena_elo"] and len(judges) == 24
    assert set(judges["judge"]) == set(datasets.JUDGES)
    assert judges["arena_elo"].is_monotonic_decreasing
    assert judges.iloc[0].tolist() == ["chatgpt-4o-latest", 1315]
    contestants = datasets.load_contestant_elo()
    assert list(contestants.columns) == ["model", "arena_elo"] and len(contestants) == 35
    assert set(contestants["model"]) == set(datasets.load_consistency(["vicuna-13b"]).models)


def test_elo_from_the_papers_script_equals_the_local_table() -> None:
    """Downloading, the tables come from the authors' dict literals, rounded as printed."""
    local = datasets.load_judge_elo()
    noisy = {j: e + 0.37 for j, e in zip(local["judge"], local["arena_elo"], strict=True)}
    script = f"import json\n\n# Elo\njudge_elos = {noisy!r}\nprint(len(judge_elos))\n"
    parsed = datasets._elo_from_script(script, "judge_elos", "judge")
    parsed = parsed.sort_values(["arena_elo", "judge"], ascending=[False, True], ignore_index=True)
    pd.testing.assert_frame_equal(parsed, local)
    with pytest.raises(DataError, match="no chatbot_elos"):
        datasets._elo_from_script(script, "chatbot_elos", "model")


def test_softelo_sample_annotations() -> None:
    battles = datasets.load_softelo_sample()
    assert len(battles) == 1_000 and len(battles.models) == 14
    assert {"judge_label", "human_label", "score_diff"} <= set(battles.columns)


@pytest.mark.parametrize(("table", "rows"), [("arenahard", 20), ("transfer", 21)])
def test_uda_tables_ship_with_the_package(table: str, rows: int) -> None:
    frame = datasets.load_uda_elo(table)
    assert len(frame) == rows and frame.shape[1] == 12
    judges = frame.loc[frame["method"] != "human", "judge"]
    assert judges.nunique() == 10
    assert set(frame["method"]) == {"baseline_elo", "uda"} | ({"human"} if rows == 21 else set())
    with pytest.raises(DataError, match="no UDA table"):
        datasets.load_uda_elo("mmlu")  # type: ignore[arg-type]


def test_registry_hashes_equal_the_local_copies() -> None:
    reg = datasets.registry()
    assert reg["sha256"].str.fullmatch("[0-9a-f]{64}").all() and reg["name"].is_unique
    assert reg["url"].str.startswith("https://raw.githubusercontent.com/").all()
    twins = reg[~reg["name"].str.startswith("llm_consistency/upstream/")]
    folders = twins["name"].str.split("/").str[0].value_counts().to_dict()
    # 24 contest files, the Soft-Elo sample, the four PPR files, six debias_judge files,
    # 15 arena-bench-v1 judgment files and the human Elo table
    assert folders == {
        "llm_consistency": 24,
        "softelo": 1,
        "ppr": 4,
        "debias_judge": 6,
        "arena_bench_v1": 16,
    }
    for row in twins.itertuples():
        assert _sha256(SHARED / row.name) == row.sha256, row.name
    package = Path(datasets.__file__).parent / "data"
    for name in ("arenahard_elo_by_judge.csv", "transfer_set_elo_by_judge.csv"):
        assert _sha256(package / name) == _sha256(SHARED / "uda_tables" / name)


def test_local_copy_without_the_file_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(datasets.DATA_ENV, str(tmp_path))
    with pytest.raises(DataError) as err:
        datasets.load_softelo_sample()
    assert "\n" not in str(err.value) and "softelo/sample_annotations.csv" in str(err.value)
    assert "unset it to download" in str(err.value)


@pytest.fixture
def no_local_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Download mode with an empty cache in tmp_path and no retries."""
    monkeypatch.delenv(datasets.DATA_ENV)
    monkeypatch.setenv(datasets.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(datasets, "RETRIES", 0)
    return tmp_path / "cache"


def test_offline_download_is_a_one_line_data_error(
    no_local_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import requests

    def offline(self: object, url: str, output_file: object, pooch_: object) -> None:
        raise requests.exceptions.ConnectionError(
            f"HTTPSConnectionPool(host='raw.githubusercontent.com'): Max retries exceeded\n"
            f"with url: {url} (NameResolutionError)"
        )

    monkeypatch.setattr(pooch.HTTPDownloader, "__call__", offline)
    assert datasets.cache_dir() == no_local_copy
    with pytest.raises(DataError) as err:
        datasets.load_softelo_sample()
    text = str(err.value)
    assert "\n" not in text and text.startswith("could not download softelo/")
    assert "ConnectionError" in text and datasets.DATA_ENV in text
    assert not (no_local_copy / "softelo" / "sample_annotations.csv").exists()


def test_hash_mismatch_is_a_one_line_data_error_and_caches_nothing(
    no_local_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def tampered(self: object, url: str, output_file: str, pooch_: object) -> None:
        Path(output_file).write_text("model_a,model_b\nx,y\n")

    monkeypatch.setattr(pooch.HTTPDownloader, "__call__", tampered)
    with pytest.raises(DataError) as err:
        datasets.load_judge_elo()
    text = str(err.value)
    assert "\n" not in text and "does not match its pinned SHA-256" in text
    assert "calculate_consistency.py" in text
    assert not list(no_local_copy.rglob("*.py"))


def test_download_path_reads_the_pinned_file_from_the_cache(
    no_local_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A download whose bytes match the pinned hash is cached and then read offline."""
    calls = []

    def serve_local_copy(self: object, url: str, output_file: str, pooch_: object) -> None:
        calls.append(url)
        Path(output_file).write_bytes((SHARED / "softelo" / "sample_annotations.csv").read_bytes())

    monkeypatch.setattr(pooch.HTTPDownloader, "__call__", serve_local_copy)
    first = datasets.load_softelo_sample()
    second = datasets.load_softelo_sample()  # from the cache: no second download
    assert len(calls) == 1 and calls[0].endswith("/data/sample_annotations.csv")
    assert "6a916b30947629904f030bde41c68d0e7eca6a96" in calls[0]
    assert len(first) == len(second) == 1_000
    assert (no_local_copy / "softelo" / "sample_annotations.csv").is_file()


def test_unknown_registry_name() -> None:
    with pytest.raises(DataError, match=r"no data file 'x\.csv'"):
        datasets.fetch("x.csv")


def test_ppr_humans_and_three_judges_on_the_same_battles() -> None:
    """The facts the data README states (github.com/Networks-Learning/prediction-powered-
    ranking at af64521, data/*.json), recomputed from the joined multi-judge table."""
    battles = datasets.load_ppr()
    assert battles.judges == tuple(sorted(datasets.PPR_JUDGES))
    assert len(battles) == 3 * 26_919 and len(battles.models) == 20
    frame = battles.battle_frame()
    assert len(frame) == 26_919 and frame["battle_id"].is_unique
    pairs = frame[["model_a", "model_b"]].astype(str)
    pair = pairs.min(axis=1) + " | " + pairs.max(axis=1)
    per_pair = pair.value_counts()
    assert len(per_pair) == 190 and (per_pair.min(), per_pair.max()) == (4, 712)
    assert per_pair.median() == 129
    human = frame["human_label"]
    assert ((human == 1).sum(), (human == 0).sum(), (human == 0.5).sum()) == (9_516, 9_391, 8_012)
    assert frame["human_bothbad"].sum() == 5_132 and not human.isna().any()
    assert (frame["human_bothbad"] <= (human == 0.5)).all()
    wide = battles.judge_labels()
    h = human.to_numpy()
    agree = {}
    for judge in datasets.PPR_JUDGES:
        j = wide[judge].to_numpy()
        decisive = (h != 0.5) & (j != 0.5)
        agree[judge] = round(float((h == j)[decisive].mean()), 2)
    assert agree == {
        "gpt-4-0125-preview": 0.83,
        "claude-3-opus-20240229": 0.72,
        "gpt-3.5-turbo": 0.57,
    }
    assert round(float((wide["gpt-3.5-turbo"] == 1).mean()), 2) == 0.86  # says model_a
    assert battles.report.n_dropped == 0 and not battles.report.missing
    # the all-human table for an all-human board, and one judge alone
    assert len(battles.human_battles()) == 26_919
    one = datasets.load_ppr(["gpt-3.5-turbo"])
    assert one.judges == ("gpt-3.5-turbo",) and len(one) == 26_919
    with pytest.raises(DataError, match=r"no PPR data for judge 'gpt-5'"):
        datasets.load_ppr(["gpt-5"])
