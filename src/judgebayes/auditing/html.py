"""The audit as one HTML page that opens from disk: no network, figures inline as PNG.

Everything the page needs is inside it: the style sheet, the figures (base64 PNG data
URIs), the tables. It links nowhere (no ``http`` reference: papers are cited by authors,
title, year and arXiv id), so it reads the same offline, attached to an e-mail, or years
later. Long tables fold away under their first rows; the CSV files beside the page hold
them whole.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import re
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.auditing.references import REFERENCES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from judgebayes.auditing.result import Audit, Section

__all__ = ["render", "slug"]


def slug(name: str) -> str:
    """A table's name as a file name: lower case, runs of other characters as ``_``."""
    text = re.sub(r"[^0-9a-zA-Z.-]+", "_", name.replace("Δ", "delta_").replace("η", "eta"))
    return text.strip("_").lower()


SHOWN_ROWS = 25
"""Rows of a table shown before the rest folds away."""

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1d2330;
       max-width: 1040px; margin: 0 auto; padding: 24px 28px 60px; line-height: 1.45;
       font-size: 15px; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-top: 10px; border-top: 2px solid #e3e8ef; }
h3 { font-size: 16px; margin: 22px 0 6px; }
.sub { color: #5b6577; font-size: 13px; margin-bottom: 14px; }
.toc { font-size: 13px; color: #5b6577; margin: 8px 0 18px; }
.toc a { color: #1f5fa8; text-decoration: none; margin-right: 14px; }
p { margin: 6px 0 10px; }
ul { margin: 4px 0 10px 0; padding-left: 22px; }
table { border-collapse: collapse; font-size: 12.5px; margin: 6px 0 14px; }
th, td { padding: 3px 9px; border-bottom: 1px solid #e6e9ee; text-align: right;
         vertical-align: top; }
th { background: #f3f5f8; font-weight: 600; }
td.text, th.text { text-align: left; }
.scroll { overflow-x: auto; }
.badge { display: inline-block; padding: 2px 9px; border-radius: 10px; font-weight: 600;
         font-size: 12.5px; white-space: nowrap; }
.fail { background: #fbe3ea; color: #9c1038; }
.caveat { background: #fff2d6; color: #8a5a00; }
.ok { background: #e0f2e6; color: #17663a; }
.unknown, .info { background: #eceff3; color: #4a5465; }
.needs { background: #f6f8fb; border-left: 4px solid #9bb7dd; padding: 8px 12px;
         margin: 10px 0; font-size: 14px; }
.note { color: #5b6577; font-size: 13px; }
figure { margin: 10px 0 16px; }
figure img { max-width: 100%; height: auto; border: 1px solid #eef0f3; }
figcaption { color: #5b6577; font-size: 12.5px; }
details { margin: 4px 0 12px; }
summary { cursor: pointer; color: #1f5fa8; font-size: 13.5px; }
.verdict td { font-size: 13.5px; }
.says { background: #f3f7fc; border-left: 4px solid #1f5fa8; padding: 4px 12px;
        margin: 12px 0; }
.verdict td.fix { color: #4a5465; font-size: 12.5px; }
.also { color: #8a5a00; font-size: 12px; margin-top: 3px; }
footer { margin-top: 40px; color: #5b6577; font-size: 12.5px; border-top: 1px solid #e3e8ef;
         padding-top: 10px; }
"""


def _png(fig: Figure) -> str:
    """The figure as a data URI (PNG), the figure closed."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _number(x: object, column: str) -> str:
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return ""
    if isinstance(x, bool | np.bool_):
        return "yes" if x else "no"
    if isinstance(x, int | np.integer):
        return f"{int(x):,}"
    if isinstance(x, float | np.floating):
        v = float(x)
        if column.startswith("p") and ("p_" in column or column in ("p", "p_value")):
            return f"{v:.2g}"
        if abs(v) >= 100:
            return f"{v:,.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.3f}"
    return html.escape(str(x))


def table_html(frame: pd.DataFrame, *, css: str = "", shown: int = SHOWN_ROWS) -> str:
    """A frame as an HTML table (text columns left-aligned); long ones fold."""
    if not isinstance(frame.index, pd.RangeIndex):
        frame = frame.reset_index()
    text_cols = {
        c
        for c in frame.columns
        if not (pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c]))
    }

    def rows(part: pd.DataFrame) -> str:
        out = []
        for rec in part.itertuples(index=False):
            cells = []
            for col, value in zip(part.columns, rec, strict=True):
                cls = ' class="text"' if col in text_cols else ""
                cells.append(f"<td{cls}>{_number(value, str(col))}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        return "\n".join(out)

    left = ' class="text"'
    head = "".join(
        f"<th{left if c in text_cols else ''}>{html.escape(str(c))}</th>" for c in frame.columns
    )
    first = (
        f'<div class="scroll"><table class="{css}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{rows(frame.head(shown))}</tbody></table></div>"
    )
    if len(frame) <= shown:
        return first
    rest = (
        f'<div class="scroll"><table class="{css}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{rows(frame.iloc[shown:])}</tbody></table></div>"
    )
    return first + f"<details><summary>{len(frame) - shown:,} more rows</summary>{rest}</details>"


def _item(text: str) -> str:
    """One list item; a long run of " | "-separated flags becomes a nested list."""
    head, sep, rest = text.partition(": ")
    parts = rest.split(" | ") if sep else []
    if len(parts) > 2:
        inner = "".join(f"<li>{html.escape(p)}</li>" for p in parts)
        return f"<li>{html.escape(head)}:<ul>{inner}</ul></li>"
    return f"<li>{html.escape(text)}</li>"


def _paragraphs(text: str) -> str:
    """Plain text as paragraphs; lines starting with "- " as a list."""
    out = []
    for block in text.strip().split("\n\n"):
        lines = block.split("\n")
        if all(line.startswith("- ") for line in lines):
            out.append("<ul>" + "".join(_item(line[2:]) for line in lines) + "</ul>")
        else:
            out.append(f"<p>{html.escape(' '.join(lines))}</p>")
    return "\n".join(out)


def _verdict_table(verdicts: pd.DataFrame) -> str:
    head = (
        "<tr>"
        + "".join(
            f"<th class='text'>{name}</th>"
            for name in ("judge", "use", "verdict", "decided by", "what to do")
        )
        + "</tr>"
    )
    rows = []
    for r in verdicts.itertuples():
        badge = f'<span class="badge {r.severity}">{html.escape(r.verdict)}</span>'
        decided = html.escape(str(r.message)) if r.message else html.escape(str(r.diagnostic))
        rows.append(
            f"<tr><td class='text'><b>{html.escape(str(r.judge))}</b></td>"
            f"<td class='text'>{html.escape(str(r.use))}</td><td class='text'>{badge}</td>"
            f"<td class='text'><i>{html.escape(str(r.diagnostic))}</i>: {decided}"
            + (f"<div class='also'>also: {html.escape(r.also)}</div>" if r.also else "")
            + "</td>"
            f"<td class='text fix'>{html.escape(str(r.fix))}</td></tr>"
        )
    return f'<div class="scroll"><table class="verdict">{head}{"".join(rows)}</table></div>'


def _section(s: Section, verdicts: pd.DataFrame | None = None) -> str:
    parts = [f'<h2 id="{s.key}">{html.escape(s.title)}</h2>']
    if verdicts is not None:
        parts.append(_verdict_table(verdicts))
        if s.summary:
            parts.append(f'<div class="says">{_paragraphs(s.summary)}</div>')
    elif s.summary:
        parts.append(_paragraphs(s.summary))
    if s.needs:
        label = "What would make this section" + (" complete" if s.available else "")
        parts.append(f'<div class="needs"><b>{label}:</b> {html.escape(s.needs)}</div>')
    for title, text in s.details.items():
        parts.append(
            f"<details><summary>{html.escape(title)}</summary>{_paragraphs(text)}</details>"
        )
    for name, draw in s.figures.items():
        parts.append(
            f'<figure><img alt="{html.escape(name)}" src="{_png(draw())}">'
            f"<figcaption>{html.escape(name)}</figcaption></figure>"
        )
    for name, frame in s.tables.items():
        if name in s.hidden or (verdicts is not None and name == "verdicts"):
            continue
        title = html.escape(name.replace("_", " "))
        if name in s.folded:
            parts.append(
                f"<details><summary>{title} ({len(frame):,} rows)</summary>"
                f"{table_html(frame)}</details>"
            )
        else:
            parts.append(f"<h3>{title}</h3>")
            parts.append(table_html(frame))
    csv_only = [n for n in s.hidden if n in s.tables]
    if csv_only:
        files = ", ".join(f"{s.key}_{slug(n)}.csv" for n in csv_only)
        parts.append(f'<p class="note">In the CSV files only: {html.escape(files)}.</p>')
    if s.notes:
        items = "".join(f"<li>{html.escape(n)}</li>" for n in s.notes)
        parts.append(f'<div class="note"><b>Notes</b><ul>{items}</ul></div>')
    return "\n".join(parts)


def render(audit: Audit) -> str:
    """The report page (module docstring)."""
    from judgebayes import __version__

    toc = "".join(f'<a href="#{s.key}">{html.escape(s.title)}</a>' for s in audit.sections)
    body = [_section(s, audit.verdicts if s.key == "verdict" else None) for s in audit.sections]
    settings = ", ".join(f"{k} = {v}" for k, v in audit.settings.items())
    stamp = _dt.date.today().isoformat()
    references = "".join(f"<li>{html.escape(r)}</li>" for r in REFERENCES)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(audit.title)}</title>
<style>{_CSS}</style></head>
<body>
<h1>Judge audit</h1>
<div class="sub">{html.escape(audit.title)} · judgebayes {__version__} · {stamp}</div>
<div class="toc">{toc}</div>
{"".join(body)}
<footer>Written by <code>judgebayes audit</code> ({html.escape(settings)}). Every number
is shown with its interval; the CSV files and <code>report.json</code> beside this page hold
every table whole.
<p><b>References</b></p><ul>{references}</ul></footer>
</body></html>
"""
