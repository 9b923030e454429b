"""Optional extras: without them the core works, and what needs them says what to install.

PyMC (``judgebayes[pymc]``, the PyMC twins), pyarrow (``judgebayes[parquet]``,
reading Parquet) and inspect_ai (``judgebayes[inspect]``, reading Inspect eval logs) are
extras, not core dependencies. A missing extra is simulated by
``sys.modules[name] = None``, which makes ``import name`` fail as if it were not
installed, whether or not it was imported before.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import judgebayes as jb
from judgebayes.bayes.bt_models import bt_data
from judgebayes.bayes.pymc_twins import bt_model_pymc, davidson_model_pymc, sample_pymc

PYMC_HINT = 'pip install "judgebayes[pymc]"'
PARQUET_HINT = 'pip install "judgebayes[parquet]"'
INSPECT_HINT = 'pip install "judgebayes[inspect]"'


@pytest.fixture
def no_pymc(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("pymc", "pytensor", "pytensor.tensor"):
        monkeypatch.setitem(sys.modules, name, None)


@pytest.fixture
def no_parquet_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("pyarrow", "fastparquet"):
        monkeypatch.setitem(sys.modules, name, None)


def test_pymc_twins_say_which_extra_to_install(no_pymc: None) -> None:
    data = bt_data(jb.simulate_bt(4, 200, seed=0).battles.pair_stats("human_label"), lam=0.5)
    for build in (bt_model_pymc, davidson_model_pymc):
        with pytest.raises(ModuleNotFoundError, match=r"pip install \"judgebayes\[pymc\]\"") as err:
            build(data)
        assert isinstance(err.value, ImportError) and err.value.name == "pymc"
    with pytest.raises(ImportError, match="judgebayes\\[pymc\\]"):
        sample_pymc(object())  # type: ignore[arg-type]


def test_parquet_without_pyarrow_is_one_line(tmp_path, no_parquet_engine: None) -> None:
    path = tmp_path / "battles.parquet"
    path.write_bytes(b"PAR1" + b"\0" * 16 + b"PAR1")  # Parquet's magic bytes; never parsed
    with pytest.raises(jb.DataError) as err:
        jb.read_table(path)
    message = str(err.value)
    assert PARQUET_HINT in message and "battles.parquet" in message
    assert "\n" not in message


def test_inspect_logs_without_inspect_ai_is_one_line(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("inspect_ai", "inspect_ai.log"):
        monkeypatch.setitem(sys.modules, name, None)
    path = tmp_path / "run.eval"
    path.write_bytes(b"PK\x03\x04")  # never opened: the import fails first
    with pytest.raises(jb.DataError) as err:
        jb.read_inspect_logs(path)
    message = str(err.value)
    assert INSPECT_HINT in message and "run.eval" in message and "\n" not in message


def test_core_imports_without_the_extras() -> None:
    """With PyMC, PyTensor and pyarrow absent (a fresh process), every module imports, or
    (a module that is all about an extra) fails with the one-line install hint.

    This is what keeps ``import pymc`` / ``import pyarrow`` out of module level.
    """
    code = (
        "import sys, importlib, pkgutil\n"
        "for name in ('pymc', 'pytensor', 'pyarrow', 'fastparquet', 'inspect_ai'):\n"
        "    sys.modules[name] = None\n"
        "import judgebayes\n"
        "mods = [m.name for m in pkgutil.walk_packages(judgebayes.__path__, 'judgebayes.')\n"
        "        if not m.name.endswith('__main__')]\n"
        "for m in mods:\n"
        "    try:\n"
        "        importlib.import_module(m)\n"
        "    except ImportError as err:\n"
        "        if 'pip install \"judgebayes[' not in str(err):\n"
        "            print('BARE', m, err)\n"
        "print(len(mods))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    bare = [line for line in out.stdout.splitlines() if line.startswith("BARE")]
    assert not bare, "need an extra at import, without saying so: " + "; ".join(bare)
    assert int(out.stdout.split()[-1]) > 20
