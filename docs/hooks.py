"""mkdocs hooks: the pages built from files that live outside ``docs/``.

Nothing here is copied into the repository; every page below is a virtual file
created at build time from its one source:

* ``notebooks/<name>.ipynb``: each notebook of ``notebooks/``, read in place (rendered by
  mkdocs-jupyter, not executed: the test suite executes them);
* ``models/index.md`` and ``models/<name>/card.md``: ``models/README.md`` and each
  model card, the card followed by the summary of its ``reference.json``;
* ``api/<module>.md``: one API page per public subpackage or module of judgebayes
  (``cli`` excluded; ``errors`` is documented on ``api/index.md``), rendered by
  mkdocstrings, unless ``docs/api/<module>.md`` exists.

Markers in the hand-written pages are filled in from the same sources:

* ``<!-- judgebayes:readme-try-it -->``: the README's "Try it" section, verbatim;
* ``<!-- judgebayes:gallery -->``: one entry per notebook (its title and first paragraph);
* ``<!-- judgebayes:public-names -->``: every name of ``judgebayes.__all__`` with a
  link to the page that documents it;
* ``<!-- judgebayes:benchmarks -->``: each ``bench/*.py`` script's docstring and its
  last recorded output in ``bench/results/<script>.txt``.

Pages of the three generated families that ``mkdocs.yml``'s ``nav`` does not list are
appended to their nav section, so a new notebook, card or subpackage is never left off.
"""

from __future__ import annotations

import ast
import json
import logging
import re
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.judgebayes")

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "judgebayes"
NOTEBOOKS = ROOT / "notebooks"
MODELS = ROOT / "models"
BENCH = ROOT / "bench"
README = ROOT / "README.md"

# API pages in this order; public modules not named here follow alphabetically.
API_ORDER = (
    "core",
    "bayes",
    "models",
    "softelo",
    "calibration",
    "consistency",
    "consensus",
    "anchors",
    "conformal",
    "simulate",
    "plots",
    "datasets",
    "parallel",
)
API_EXCLUDE = {"cli", "errors"}
NAV_SECTIONS = {"gallery": "Gallery", "models": "Model cards", "api": "API"}


# ---------------------------------------------------------------- sources


def public_modules() -> list[str]:
    """Public subpackages and modules of ``src/judgebayes`` (no leading underscore)."""
    names = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    names |= {p.stem for p in SRC.glob("*.py")}
    names = {n for n in names if not n.startswith("_") and n not in API_EXCLUDE}
    order = {name: k for k, name in enumerate(API_ORDER)}
    return sorted(names, key=lambda n: (order.get(n, len(order)), n))


def module_file(name: str) -> Path:
    """The source file of ``judgebayes.<name>`` (``name=""``: the package itself)."""
    if not name:
        return SRC / "__init__.py"
    package = SRC / name / "__init__.py"
    return package if package.exists() else SRC / f"{name}.py"


def static_all(name: str) -> list[str]:
    """``__all__`` of ``judgebayes.<name>``, read from its source without importing it."""
    tree = ast.parse(module_file(name).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return [str(v) for v in ast.literal_eval(node.value)]
    return []


def notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def notebook_intro(path: Path) -> tuple[str, str]:
    """A notebook's title (its first ``#`` heading) and the first paragraph after it."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"]).strip()
        lines = text.splitlines()
        if lines and lines[0].startswith("# "):
            paragraphs = [p.strip() for p in "\n".join(lines[1:]).split("\n\n") if p.strip()]
            return lines[0][2:].strip(), (paragraphs[0] if paragraphs else "")
    return path.stem.replace("_", " "), ""


def model_cards() -> list[Path]:
    return sorted(MODELS.glob("*/card.md"))


def card_title(card: Path) -> str:
    return card.parent.name


def reference_section(card: Path) -> str:
    """The card's ``reference.json`` as Markdown: data, NUTS run, posterior summary."""
    ref = card.parent / "reference.json"
    if not ref.exists():
        return ""
    data = json.loads(ref.read_text(encoding="utf-8"))
    out = [
        "",
        "## Reference posterior",
        "",
        f"From `models/{card.parent.name}/reference.json` (regenerate with "
        f"`python models/make_reference.py {card.parent.name}`); the tests compare MAP + "
        "Laplace, a short NUTS run and the PyMC twin against it.",
        "",
    ]
    if isinstance(data.get("data"), dict):
        out.append("**Data:** " + ", ".join(f"{k} = `{v}`" for k, v in data["data"].items()))
        out.append("")
    if isinstance(data.get("nuts"), dict):
        out.append(
            "**NUTS run:** " + ", ".join(f"{k} = {_number(v)}" for k, v in data["nuts"].items())
        )
        out.append("")
    summary = data.get("summary")
    if isinstance(summary, dict) and summary:
        columns = list(next(iter(summary.values())).keys())
        out.append("| parameter | " + " | ".join(columns) + " |")
        out.append("| --- |" + " ---: |" * len(columns))
        for name, row in summary.items():
            out.append(f"| `{name}` | " + " | ".join(_number(row.get(c)) for c in columns) + " |")
    return "\n".join(out) + "\n"


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def readme_try_it() -> str:
    """The README's "Try it" section (its prose and the two commands), verbatim."""
    text = README.read_text(encoding="utf-8")
    match = re.search(r"^## Try it\s*\n(.*?)(?=^## )", text, flags=re.M | re.S)
    if match is None:
        log.warning(
            "README.md has no '## Try it' section: the getting-started page "
            "cannot show the set-up commands"
        )
        return ""
    return match.group(1).strip() + "\n"


def bench_section() -> str:
    """Every ``bench/*.py`` (helpers named ``_*.py`` aside): its docstring and last run."""
    out: list[str] = []
    for script in sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_")):
        doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
        title, _, body = doc.partition("\n")
        out += [f"## `{script.name}`", "", f"**{title.strip()}**", "", _rst_to_md(body.strip()), ""]
        result = BENCH / "results" / f"{script.stem}.txt"
        if result.exists():
            out += [
                "### Last recorded run",
                "",
                f"`bench/results/{result.name}` (the command and the machine are in its "
                "first lines):",
                "",
                "```text",
                result.read_text(encoding="utf-8").rstrip(),
                "```",
                "",
            ]
        else:
            out += [
                "### Last recorded run",
                "",
                f"None recorded: run `python bench/{script.name}` and save its output as "
                f"`bench/results/{script.stem}.txt`.",
                "",
            ]
    return "\n".join(out)


def _rst_to_md(text: str) -> str:
    """The little reStructuredText the bench docstrings use, as Markdown."""
    text = re.sub(r"^(\S[^\n]*)\n-{3,}$", r"### \1", text, flags=re.M)
    text = re.sub(r":(?:func|class|mod|meth|attr):`~?([^`]+)`", r"`\1`", text)
    # (i), (ii), ... enumerations as list items; their continuation lines stay attached
    text = re.sub(r"^\((i{1,3}|iv|v)\)\s+", r"- (\1) ", text, flags=re.M)
    return text


# ---------------------------------------------------------------- pages


def api_page(name: str) -> str:
    return f"# judgebayes.{name}\n\n::: judgebayes.{name}\n"


def public_names_table() -> str:
    """Each name of ``judgebayes.__all__``, linked to the page that documents it."""
    homes = [(name, set(static_all(name))) for name in public_modules()]
    homes.append(("errors", set(static_all("errors"))))
    grouped: dict[str, list[str]] = {}
    other: list[str] = []
    for public in static_all(""):
        home = next((mod for mod, names in homes if public in names), None)
        if home is None:
            other.append(public)
        else:
            grouped.setdefault(home, []).append(public)
    rows = ["| documented in | names |", "| --- | --- |"]
    for module, names in sorted(grouped.items(), key=lambda kv: [m for m, _ in homes].index(kv[0])):
        page = "#errors-and-warnings" if module == "errors" else f"{module}.md"
        links = ", ".join(f"[`{n}`][judgebayes.{module}.{n}]" for n in sorted(names, key=str.lower))
        rows.append(f"| [`judgebayes.{module}`]({page}) | {links} |")
    for name in other:
        if name in public_modules():
            rows.append(f"| [`judgebayes.{name}`]({name}.md) | `{name}` (the module itself) |")
        elif name == "__version__":
            rows.append("| `judgebayes` | `__version__`: the package version |")
        else:
            log.warning("judgebayes.%s is public but no API page documents it", name)
    return "\n".join(rows) + "\n"


def gallery_section() -> str:
    out = []
    for nb in notebooks():
        title, intro = notebook_intro(nb)
        out += [f"## [{title}]({nb.name})", "", f"`notebooks/{nb.name}`", "", intro, ""]
    return "\n".join(out)


MARKERS = {
    "<!-- judgebayes:readme-try-it -->": readme_try_it,
    "<!-- judgebayes:gallery -->": gallery_section,
    "<!-- judgebayes:public-names -->": public_names_table,
    "<!-- judgebayes:benchmarks -->": bench_section,
}


# ---------------------------------------------------------------- events


def _generated() -> dict[str, dict[str, Any]]:
    """{src_uri: {"path" | "content": ..., "title": nav title, "section": nav key}}."""
    pages: dict[str, dict[str, Any]] = {}
    for nb in notebooks():
        pages[f"notebooks/{nb.name}"] = {
            "path": nb,
            "title": notebook_intro(nb)[0],
            "section": "gallery",
        }
    pages["models/index.md"] = {
        "content": lambda: (MODELS / "README.md").read_text("utf-8"),
        "title": None,
        "section": "models",
    }
    for card in model_cards():
        pages[f"models/{card.parent.name}/card.md"] = {
            "content": lambda card=card: (
                card.read_text("utf-8").rstrip() + "\n" + reference_section(card)
            ),
            "title": card_title(card),
            "section": "models",
        }
    for name in public_modules():
        if not (ROOT / "docs" / "api" / f"{name}.md").exists():
            pages[f"api/{name}.md"] = {
                "content": lambda name=name: api_page(name),
                "title": f"judgebayes.{name}",
                "section": "api",
            }
    return pages


def _nav_paths(items: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(items, str):
        found.add(items)
    elif isinstance(items, list):
        for item in items:
            found |= _nav_paths(item)
    elif isinstance(items, dict):
        for value in items.values():
            found |= _nav_paths(value)
    return found


def on_config(config: Any) -> Any:
    """Append generated pages that ``nav`` does not list to their section."""
    nav = config.get("nav")
    if not nav:
        return config
    listed = _nav_paths(nav)
    for uri, page in _generated().items():
        if uri in listed or page["title"] is None:
            continue
        title = NAV_SECTIONS[page["section"]]
        section = next(
            (
                item[title]
                for item in nav
                if isinstance(item, dict) and isinstance(item.get(title), list)
            ),
            None,
        )
        if section is None:
            log.warning("nav has no %r section for %s", title, uri)
            continue
        section.append({page["title"]: uri})
        log.info("nav: added %s under %s", uri, title)
    return config


@event_priority(100)  # before mkdocs-jupyter wraps the notebooks
def on_files(files: Files, config: Any) -> Files:
    """Add the virtual pages (notebooks, model cards, API pages)."""
    for uri, page in _generated().items():
        if files.get_file_from_path(uri) is not None:
            log.warning("%s exists in docs/ and would shadow the generated page", uri)
            continue
        if "path" in page:
            # A real file under the repository root (mkdocs-jupyter's NotebookFile reads
            # abs_src_path from src_dir + src_uri, which a "generated" file lacks).
            files.append(
                File(
                    uri,
                    src_dir=str(ROOT),
                    dest_dir=config["site_dir"],
                    use_directory_urls=config["use_directory_urls"],
                )
            )
        else:
            files.append(File.generated(config, uri, content=page["content"]()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Fill in the markers."""
    for marker, make in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown


def on_post_page(output: str, page: Any, config: Any) -> str:
    """Notebook pages load MathJax once, the site's way (``extra_javascript``).

    mkdocs-jupyter adds its own ``MathJax.js`` tag; two on one page stop MathJax with a
    TypeError in its configuration file and no formula renders. The site's tag is the one
    kept: its configuration names the fonts that the offline copy has.
    """
    if "text/x-mathjax-config" not in output:
        return output
    jupyter_tag = r'<script src="[^"]*assets/mathjax/MathJax\.js[^"]*">\s*</script>\s*'
    then_config = r'(?=(?:<!--[^>]*-->\s*)?<script type="text/x-mathjax-config">)'
    return re.sub(jupyter_tag + then_config, "", output, count=1)


def on_post_build(config: Any) -> None:
    """Copy MathJax (the jupyter-server-mathjax wheel's static files) into the site.

    The pages load it from ``assets/mathjax/`` (``extra_javascript`` and mkdocs-jupyter's
    ``custom_mathjax_url`` in ``mkdocs.yml``), so formulas render without a network; a
    content delivery network would leave raw TeX on a machine offline.
    """
    import shutil

    import jupyter_server_mathjax

    static = Path(jupyter_server_mathjax.__file__).parent / "static"
    shutil.copytree(static, Path(config["site_dir"]) / "assets" / "mathjax", dirs_exist_ok=True)


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    """``mkdocs serve``: rebuild when a source outside ``docs/`` changes."""
    for path in (NOTEBOOKS, MODELS, BENCH, README, SRC):
        server.watch(str(path))
    return server
