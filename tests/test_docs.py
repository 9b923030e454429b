"""The documentation site: ``mkdocs build --strict`` passes, quickly, and holds what it promises.

One strict build into a temporary folder (the same command CI and a user run), then checks
on its output: an API page per public subpackage listing every name of its ``__all__``,
every notebook in the gallery (rendered from its stored outputs, not executed), every
model card, the README's set-up commands on the getting-started page, and the benchmarks
page with the recorded run. A last check keeps the prose honest: every ``jb.<name>`` the
hand-written pages mention exists.
"""

from __future__ import annotations

import html
import importlib
import json
import os
import pkgutil
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="docs packages not installed (pip install -e '.[docs]')")
pytest.importorskip("material", reason="mkdocs-material not installed")
pytest.importorskip("mkdocstrings_handlers.python", reason="mkdocstrings[python] not installed")
pytest.importorskip("mkdocs_jupyter", reason="mkdocs-jupyter not installed")

import judgebayes

ROOT = Path(__file__).resolve().parents[1]
BUILD_SECONDS = 120  # ~15 s on 2 idle cores; generous for a loaded CI runner
NOT_API = {"cli", "errors"}  # the CLI is documented by --help; errors on api/index


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float, str]:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    seconds = time.perf_counter() - start
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{log[-6000:]}"
    return out, seconds, log


def _text(path: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


def public_modules() -> list[str]:
    return sorted(
        m.name
        for m in pkgutil.iter_modules(judgebayes.__path__)
        if not m.name.startswith("_") and m.name not in NOT_API
    )


def test_strict_build_is_quick(site: tuple[Path, float, str]) -> None:
    _, seconds, log = site
    assert seconds < BUILD_SECONDS, f"the strict build took {seconds:.0f} s"
    assert "execute=True" not in log  # notebooks are shown as stored, never re-run


@pytest.mark.parametrize("name", public_modules())
def test_api_page_lists_every_public_name(site: tuple[Path, float, str], name: str) -> None:
    page = site[0] / "api" / name / "index.html"
    assert page.exists(), f"no API page for judgebayes.{name}"
    ids = set(re.findall(r'id="([^"]+)"', page.read_text(encoding="utf-8")))
    module = importlib.import_module(f"judgebayes.{name}")
    missing = [n for n in getattr(module, "__all__", []) if f"judgebayes.{name}.{n}" not in ids]
    assert not missing, f"judgebayes.{name}: public names missing from its API page: {missing}"


def test_api_index_links_every_top_level_name(site: tuple[Path, float, str]) -> None:
    page = site[0] / "api" / "index.html"
    source = page.read_text(encoding="utf-8")
    missing = [n for n in judgebayes.__all__ if f"<code>{n}</code>" not in source]
    assert not missing, f"judgebayes names missing from api/index: {missing}"
    errors = importlib.import_module("judgebayes.errors")
    assert all(f'id="judgebayes.errors.{n}"' in source for n in errors.__all__)


def test_gallery_renders_every_notebook_unexecuted(site: tuple[Path, float, str]) -> None:
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    gallery = (site[0] / "notebooks" / "index.html").read_text(encoding="utf-8")
    for nb in notebooks:
        page = site[0] / "notebooks" / nb.stem / "index.html"
        assert page.exists(), f"{nb.name} is not in the gallery"
        assert f'href="{nb.stem}/"' in gallery, f"the gallery index does not link {nb.name}"
        assert (page.parent / nb.name).exists(), f"{nb.name} is not offered for download"
        stored = sum(
            len(c.get("outputs", []))
            for c in json.loads(nb.read_text("utf-8"))["cells"]
            if c["cell_type"] == "code"
        )
        if stored:
            assert "jp-OutputArea" in page.read_text(encoding="utf-8"), (
                f"{nb.name}: its stored outputs are not on the page"
            )


def test_model_cards_are_pages_of_the_site(site: tuple[Path, float, str]) -> None:
    cards = sorted((ROOT / "models").glob("*/card.md"))
    assert cards
    index = (site[0] / "models" / "index.html").read_text(encoding="utf-8")
    for card in cards:
        name = card.parent.name
        page = site[0] / "models" / name / "card" / "index.html"
        assert page.exists(), f"model card {name} is not on the site"
        title = card.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        assert title in _text(page)
        assert f'href="{name}/card/"' in index, f"models/index does not link the {name} card"
        if (card.parent / "reference.json").exists():
            assert "Reference posterior" in _text(page)


def test_getting_started_shows_the_readme_commands(site: tuple[Path, float, str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    try_it = readme.split("## Try it", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", try_it, flags=re.S)
    assert len(commands) == 2, "the README's 'Try it' section should hold two commands"
    source = (site[0] / "getting-started" / "index.html").read_text(encoding="utf-8")
    page = " ".join(html.unescape(re.sub(r"<[^>]+>", "", source)).split())  # code: no tags
    for command in commands:
        assert " ".join(command.split()) in page


def test_site_has_the_promised_pages(site: tuple[Path, float, str]) -> None:
    for page in (
        "your-data",
        "howto/softelo",
        "howto/calibration",
        "howto/consistency",
        "howto/bayes",
        "which-method",
        "architecture",
        "benchmarks",
        "audit",
        "real-data",
        "real-data/softelo",
        "real-data/calibration",
        "real-data/consensus",
        "real-data/anchors",
    ):
        assert (site[0] / page / "index.html").exists(), page
    real = _text(site[0] / "real-data" / "index.html")
    for paper in ("2606.13221", "2605.06939", "2509.23510", "2508.09724", "2603.16848"):
        assert paper in real, f"the real-data page does not cite arXiv:{paper}"
    which = _text(site[0] / "which-method" / "index.html")
    for topic in ("Section 7 checklist", "LowSignalWarning", "informativeness"):
        assert topic in which


def test_your_data_page_shows_every_format(site: tuple[Path, float, str]) -> None:
    from judgebayes.anchors import VERDICT_FORMATS
    from judgebayes.calibration import ITEM_FORMATS

    page = _text(site[0] / "your-data" / "index.html")
    assert "--format auto: how the format is chosen" in page
    for fmt in {*judgebayes.core.FORMATS, *ITEM_FORMATS, *VERDICT_FORMATS}:
        assert fmt in page, fmt


def test_benchmarks_page_shows_each_script_and_the_recorded_runs(
    site: tuple[Path, float, str],
) -> None:
    page = _text(site[0] / "benchmarks" / "index.html")
    for script in sorted((ROOT / "bench").glob("*.py")):
        if script.name.startswith("_"):  # a helper the scripts import, not a benchmark
            continue
        assert script.name in page
        result = ROOT / "bench" / "results" / f"{script.stem}.txt"
        if result.exists():
            last = [ln for ln in result.read_text(encoding="utf-8").splitlines() if ln.strip()][-1]
            assert last.strip() in page


def test_pages_name_only_existing_api() -> None:
    """Every name the hand-written pages use from judgebayes exists.

    Checked: ``jb.<name>`` and ``jb.<module>.<name>``, ``<alias>.<name>`` after
    ``from judgebayes import <module> as <alias>``, and ``from judgebayes.<module> import
    <names>``.
    """
    missing = set()
    for page in sorted((ROOT / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        where = page.relative_to(ROOT)
        aliases = {"jb": judgebayes}
        for module, alias in re.findall(r"from judgebayes import (\w+) as (\w+)", text):
            aliases[alias] = importlib.import_module(f"judgebayes.{module}")
        for module, names in re.findall(r"from judgebayes\.([\w.]+) import ([\w, ]+)", text):
            mod = importlib.import_module(f"judgebayes.{module}")
            missing |= {
                f"{where}: judgebayes.{module}.{n.strip()}"
                for n in names.split(",")
                if n.strip() and not hasattr(mod, n.strip())
            }
        for alias, mod in aliases.items():
            for first, second in re.findall(rf"\b{alias}\.(\w+)(?:\.(\w+))?", text):
                obj = getattr(mod, first, None)
                if obj is None or (
                    second and isinstance(obj, type(judgebayes)) and not hasattr(obj, second)
                ):
                    missing.add(f"{where}: {alias}.{first}{'.' + second if second else ''}")
    assert not missing, sorted(missing)


def test_every_page_loads_mathjax_once_from_the_site(site: tuple[Path, float, str]) -> None:
    """Formulas render offline: one local MathJax per page (two stop it), no network copy.

    Checked by eye in headless Chromium: the calibration notebook's $\\hat q_0$, $J_A$ and
    $\\Delta J$ render with the STIX-Web fonts the local copy ships.
    """
    root = site[0]
    assert (root / "assets" / "mathjax" / "MathJax.js").is_file()
    assert (root / "assets" / "mathjax" / "fonts" / "HTML-CSS" / "STIX-Web").is_dir()
    pages = sorted(root.rglob("index.html"))
    assert len(pages) > 20
    for page in pages:
        html = page.read_text(encoding="utf-8")
        tags = re.findall(r'<script src="([^"]*MathJax\.js[^"]*)"', html)
        assert len(tags) == 1, f"{page.relative_to(root)} loads MathJax {len(tags)} times"
        assert tags[0].split("assets/mathjax/")[0].strip("./") == "", tags[0]
        assert not re.search(r"https?://[^\"']*mathjax", html, re.IGNORECASE), page
    calibration = root / "notebooks" / "shared_vs_model_specific_calibration" / "index.html"
    assert "$\\hat q_0" in calibration.read_text(encoding="utf-8")  # the TeX MathJax reads
