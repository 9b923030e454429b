"""The Battles table: schema, validation errors, reports, subsets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb


def frame(**extra: object) -> pd.DataFrame:
    base = {
        "model_a": ["x", "y", "z", "x"],
        "model_b": ["y", "z", "x", "z"],
        "judge_label": [1, 0.5, 0, 1],
    }
    base.update(extra)
    return pd.DataFrame(base)


def test_models_are_shared_categories_and_labels_floats() -> None:
    b = jb.Battles(frame())
    assert b.models == ("x", "y", "z")
    a, bb = b.codes()
    assert a.tolist() == [0, 1, 2, 0] and bb.tolist() == [1, 2, 0, 2]
    assert b.frame["judge_label"].dtype == float
    assert b.n_battles().to_dict() == {"x": 3, "y": 2, "z": 3}


@pytest.mark.parametrize(
    ("change", "row", "column", "needle"),
    [
        ({"judge_label": [1, 0.5, 2, 1]}, 2, "judge_label", "unknown label"),
        ({"judge_label": [1, "win", 0, 1]}, 1, "judge_label", "not a number"),
        ({"model_b": ["y", "y", "x", "z"]}, 1, "model_b", "battling itself"),
        ({"model_a": ["x", None, "z", "x"]}, 1, "model_a", "missing model name"),
        (
            {"score_a": [1.0, 2.0, np.nan, 1.0], "score_b": [1.0, 1.0, 1.0, 1.0]},
            2,
            "score_a",
            "missing or infinite",
        ),
        ({"position": ["a", "b", "c", "a"]}, 2, "position", "unknown position"),
        ({"len_a": [1, -3, 1, 1]}, 1, "len_a", "negative length"),
        ({"weight": [1, 1, 1, 0]}, 3, "weight", "non-positive weight"),
    ],
)
def test_validation_names_row_column_and_expected_form(
    change: dict, row: int, column: str, needle: str
) -> None:
    with pytest.raises(jb.DataError) as err:
        jb.Battles(frame(**change))
    assert err.value.row == row
    assert err.value.column == column
    assert needle in str(err.value)
    assert err.value.expected is not None
    assert f"row {row}" in str(err.value) and repr(column) in str(err.value)


def test_empty_and_missing_columns_are_errors() -> None:
    with pytest.raises(jb.DataError, match="empty"):
        jb.Battles(pd.DataFrame({"model_a": [], "model_b": []}))
    with pytest.raises(jb.DataError, match="missing required column") as err:
        jb.Battles(pd.DataFrame({"model_a": ["x"], "other": ["y"]}))
    assert err.value.column == "model_b"


def test_drop_mode_counts_every_dropped_row_by_reason() -> None:
    f = frame(judge_label=[1, 0, 7, 1], model_b=["y", "y", "y", "z"])
    b = jb.Battles(f, on_invalid="drop")
    assert len(b) == 2
    assert b.report.n_input == 4
    assert b.report.dropped == {
        "a model battling itself in 'model_b'": 1,
        "unknown label in 'judge_label'": 1,
    }
    assert b.report.n_used == 2


def test_missing_labels_are_kept_and_counted_when_fitting() -> None:
    b = jb.Battles(frame(human_label=[1, np.nan, np.nan, 0]))
    stats = b.pair_stats("human_label")
    assert stats.n_battles == 2
    assert stats.report.excluded == {"no human_label": 2}
    with pytest.warns(jb.JudgeBayesWarning, match="every battle"):
        fit = jb.fit_bt(b, target="human_label")
    assert fit.report.n_used == 2
    assert fit.graph.all_wins == ("z",) and fit.graph.all_losses == ("y",)


def test_score_diff_is_derived_and_checked() -> None:
    b = jb.Battles(frame(score_a=[3.0, 2.0, 1.0, 4.0], score_b=[1.0, 2.0, 3.0, 0.5]))
    np.testing.assert_allclose(b.column("score_diff"), [2.0, 0.0, -2.0, 3.5])
    with pytest.raises(jb.DataError, match="score_diff differs"):
        jb.Battles(
            frame(score_a=[3.0, 2, 1, 4], score_b=[1.0, 2, 3, 0.5], score_diff=[2.0, 0, -2, 3])
        )
    with pytest.raises(jb.DataError, match="come together"):
        jb.Battles(frame(score_a=[3.0, 2, 1, 4]))


def test_subsets_drop_unused_models_and_keep_the_report() -> None:
    b = jb.Battles(frame())
    assert b.without("z").models == ("x", "y")
    assert len(b.involving("z")) == 3
    with pytest.raises(jb.DataError, match="unknown model"):
        b.involving("nope")


def test_pair_statistics_fold_orientation_and_are_order_invariant() -> None:
    f = pd.DataFrame(
        {
            "model_a": ["x", "y", "x", "y"],
            "model_b": ["y", "x", "y", "x"],
            "judge_label": [1.0, 1.0, 0.5, 0.0],
        }
    )
    stats = jb.Battles(f).pair_stats()
    # one unordered pair (x, y): x beat y, y beat x, tie, x beat y -> y_x = 1 + 0 + .5 + 1
    assert stats.n_pairs == 1
    assert stats.n.tolist() == [4.0] and stats.y.tolist() == [2.5]
    perm = jb.Battles(f.iloc[::-1]).pair_stats()
    assert perm.y.tolist() == stats.y.tolist()


def test_soft_targets_and_weights_give_weighted_sums() -> None:
    b = jb.Battles(frame())
    stats = b.pair_stats(np.array([0.9, 0.2, 0.3, 0.6]), weights=np.array([1.0, 2.0, 1.0, 1.0]))
    # pairs (x,y), (x,z), (y,z); battle 2 is z vs x -> oriented to x: 1 - 0.3
    assert dict(
        zip(
            zip(stats.i.tolist(), stats.j.tolist(), strict=True),
            zip(stats.n.tolist(), stats.y.tolist(), strict=True),
            strict=True,
        )
    ) == {(0, 1): (1.0, 0.9), (0, 2): (2.0, 0.7 + 0.6), (1, 2): (2.0, 0.4)}
    with pytest.raises(jb.DataError, match=r"outside \[0, 1\]"):
        b.pair_stats(np.array([0.9, 1.2, 0.3, 0.6]))


def test_locate_maps_battles_to_their_pairs_and_orientation() -> None:
    b = jb.Battles(frame())
    stats = b.pair_stats()
    a, bb = b.codes()
    idx, a_is_i = stats.locate(a, bb)
    assert np.array_equal(np.where(a_is_i, a, bb), stats.i[idx])
    assert np.array_equal(np.where(a_is_i, bb, a), stats.j[idx])
    with pytest.raises(ValueError, match="no pair"):
        jb.Battles(frame()).without("z").pair_stats().locate(np.array([0]), np.array([2]))
