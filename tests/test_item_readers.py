"""Judged items from the formats judge tools write: the prevalence layout, Inspect logs.

The prevalence fixtures follow the files of github.com/yiqunchen/debias-llm-as-a-judge at
commit 4b4879ac7ae25fbe41b34ea1e0199d6986763167, ``data/judge_results/*.json`` (records
``{id, model_a, model_b, human_winner, judge_pick}``); its vignette
``vignettes/real-data-example.Rmd`` defines Y = 1 when the human winner is Claude's side,
Yhat = 1 when the judge picked Claude's side, and drops the battles without a pick. The
Inspect log is written here by running a tiny task on Inspect's offline ``mockllm`` model
with the ``model_graded_qa`` scorer (nothing leaves the machine).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes import datasets
from judgebayes.errors import DataError

RECORDS = [  # X = "x" against "y"; Claude's side alternates, one pick missing
    {"id": "1", "model_a": "x", "model_b": "y", "human_winner": "model_a", "judge_pick": "A"},
    {"id": "2", "model_a": "y", "model_b": "x", "human_winner": "model_b", "judge_pick": "A"},
    {"id": "3", "model_a": "y", "model_b": "x", "human_winner": "model_a", "judge_pick": "B"},
    {"id": "4", "model_a": "x", "model_b": "y", "human_winner": "model_b", "judge_pick": None},
    {"id": "5", "model_a": "x", "model_b": "y", "human_winner": None, "judge_pick": "B"},
]


def _vignette(records: list[dict]) -> tuple[list[int], list[int]]:
    """Y and Yhat as the vignette's dplyr code computes them (ties and nulls count as 0)."""
    ys, yhats = [], []
    for r in records:
        if r["judge_pick"] is None:
            continue
        claude_is_a = r["model_a"] == "x"
        ys.append(
            int(
                (claude_is_a and r["human_winner"] == "model_a")
                or (not claude_is_a and r["human_winner"] == "model_b")
            )
        )
        yhats.append(
            int(
                (claude_is_a and r["judge_pick"] == "A")
                or (not claude_is_a and r["judge_pick"] == "B")
            )
        )
    return ys, yhats


def test_prevalence_items_follow_the_vignettes_definition(tmp_path: Path) -> None:
    path = tmp_path / "x_vs_y_judge.json"
    path.write_text(json.dumps(RECORDS))
    items = jb.read_prevalence(path)  # x is named by the file and in every battle
    frame = items.frame.set_index("item_id")
    assert set(frame["model"]) == {"y"} and len(frame) == 4
    assert items.report.dropped == {"judge_pick null (no verdict)": 1}
    assert items.report.n_input == 5
    ys, yhats = _vignette([r for r in RECORDS if r["human_winner"] is not None])
    labelled = frame.dropna(subset=["human_label"]).loc[["1", "2", "3"]]
    assert labelled["human_label"].tolist() == ys
    assert labelled["judge_label"].tolist() == yhats
    assert frame.loc["5", "split"] == "test" and frame.loc["5", "judge_label"] == 0.0
    # the same through the dispatcher (auto: human_winner + judge_pick)
    same = jb.read_judged_items(path)
    pd.testing.assert_frame_equal(same.frame, items.frame)


def test_prevalence_errors_name_file_record_and_choice(tmp_path: Path) -> None:
    bad = [dict(r) for r in RECORDS]
    bad[2]["judge_pick"] = "C"
    (tmp_path / "x_vs_y_j1.json").write_text(json.dumps(bad))
    with pytest.raises(DataError, match=r"x_vs_y_j1\.json, record 2, column 'judge_pick'"):
        jb.read_prevalence(tmp_path / "x_vs_y_j1.json")
    (tmp_path / "x_vs_y_j1.json").write_text(json.dumps(RECORDS))
    (tmp_path / "x_vs_z_j2.json").write_text(json.dumps(RECORDS))
    with pytest.raises(DataError, match=r"2 judges' picks \(j1, j2\); pick one"):
        jb.read_prevalence(tmp_path)
    assert len(jb.read_prevalence(tmp_path, judge="j2")) == 4
    stray = [*RECORDS, {"id": "9", "model_a": "y", "model_b": "z", "human_winner": "tie"}]
    stray[-1]["judge_pick"] = "A"
    (tmp_path / "stray.json").write_text(json.dumps(stray))
    with pytest.raises(DataError, match=r"stray\.json, record 5, column 'model_a': a battle "):
        jb.read_prevalence(tmp_path / "stray.json", target="x")
    (tmp_path / "cols.json").write_text(json.dumps([{"id": 1, "model_a": "x"}]))
    with pytest.raises(DataError, match=r"cols\.json: missing column\(s\) \['model_b'"):
        jb.read_prevalence(tmp_path / "cols.json")


def test_debias_judge_reproduces_the_vignette() -> None:
    """Upstream vignette "Real Data Example" (commit 4b4879a): gemini-2.5-pro judged by
    gpt-4o-mini, 276 battles with a pick, human preference for Claude 0.236, judge 0.159."""
    items = datasets.load_debias_judge("gpt-4o-mini", ["gemini-2.5-pro"])
    assert len(items) == 276 and items.report.dropped == {"judge_pick null (no verdict)": 1}
    human, judge = items.calibration("gemini-2.5-pro")
    assert round(float(human.mean()), 3) == 0.236 and round(float(judge.mean()), 3) == 0.159
    every = datasets.load_debias_judge("gpt-5.2")
    assert every.models == tuple(sorted(datasets.DEBIAS_OPPONENTS))
    assert every.summary()["n_cal"].tolist() == [325, 276, 275]  # flash, pro, qwen: one null
    with pytest.raises(DataError, match="no debias_judge data for judge 'gpt-4'"):
        datasets.load_debias_judge("gpt-4")


# ------------------------------------------------------------------ Inspect logs
def _inspect_log(folder: Path, grades: dict[str, str], *, epochs: int = 1) -> Path:
    """Run a 4-sample task on mockllm, graded by a mockllm grader, and return its log.

    The answerer writes "answer to q<i>"; the grader's reply to the prompt that holds
    "answer to q<i>" is ``grades["q<i>"]``, so each grade is known whatever the order.
    """
    inspect_ai = pytest.importorskip(
        "inspect_ai", reason="inspect_ai is the optional extra judgebayes[inspect]"
    )
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import model_graded_qa
    from inspect_ai.solver import generate

    def output(text: str) -> ModelOutput:
        out = ModelOutput.from_content(model="mockllm/model", content=text)
        # a usage given up front: mockllm would otherwise count tokens with tiktoken,
        # which downloads its encoding
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    def answer(messages, tools, tool_choice, config) -> ModelOutput:
        return output(f"answer to {messages[-1].text}")

    def grade(messages, tools, tool_choice, config) -> ModelOutput:
        asked = re.search(r"answer to (q\d)", messages[-1].text).group(1)
        return output(grades[asked])

    task = inspect_ai.Task(
        dataset=[Sample(input=f"q{i}", target="ok", id=f"s{i}") for i in range(4)],
        solver=generate(),
        scorer=model_graded_qa(model=get_model("mockllm/model", custom_outputs=grade)),
        epochs=epochs,
    )
    (log,) = inspect_ai.eval(
        task,
        model=get_model("mockllm/model", custom_outputs=answer),
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success"
    return Path(log.location)


def test_inspect_log_of_a_model_graded_task(tmp_path: Path) -> None:
    grades = {"q0": "GRADE: C", "q1": "GRADE: I", "q2": "GRADE: C", "q3": "no verdict"}
    log = _inspect_log(tmp_path / "logs", grades, epochs=2)
    human = tmp_path / "human.csv"
    pd.DataFrame({"id": ["s0", "s1", "s3"], "human_label": [1, 1, 0]}).to_csv(human, index=False)
    items = jb.read_inspect_logs(log, human=human)
    frame = items.frame.set_index("item_id")
    assert items.models == ("mockllm/model",)
    # C -> 1, I -> 0; the unparsed grade of s3 is left out in both epochs and counted
    assert frame["judge_label"].to_dict() == {"s0": 1.0, "s1": 0.0, "s2": 1.0}
    assert frame["n_runs"].tolist() == [2, 2, 2]
    assert items.report.dropped == {
        "grade missing (not parsed)": 2,
        "human label of a sample left out": 1,
    }
    np.testing.assert_array_equal(frame.loc[["s0", "s1", "s2"], "human_label"], [1, 1, np.nan])
    assert frame.loc["s2", "split"] == "test"
    # through the dispatcher: .eval is an Inspect log
    auto = jb.read_judged_items(log, human=human)
    pd.testing.assert_frame_equal(auto.frame, items.frame)
    # a human label for a sample no log holds names the row
    pd.DataFrame({"id": ["s9"], "human_label": [1]}).to_csv(human, index=False)
    with pytest.raises(DataError, match=r"human\.csv, row 0, column 'id': no sample of the logs"):
        jb.read_inspect_logs(log, human=human)


def test_inspect_partial_grades_need_a_mapping(tmp_path: Path) -> None:
    log = _inspect_log(tmp_path / "logs", dict.fromkeys(("q0", "q1", "q2", "q3"), "GRADE: P"))
    # the default grader offers C/I only: a P is a parse failure there, not a grade
    with pytest.raises(DataError, match="no graded sample"):
        jb.read_inspect_logs(log)
    not_a_log = tmp_path / "x.eval"
    not_a_log.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DataError, match=r"x\.eval: not an Inspect eval log"):
        jb.read_inspect_logs(not_a_log)
