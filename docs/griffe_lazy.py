"""Griffe extension for the API pages: lazy exports and Sphinx cross-reference roles.

1. **Lazy exports.** judgebayes' packages export their Bayesian names through a module
   ``__getattr__`` (``judgebayes._lazy.lazy_exports``) driven by a literal
   ``_LAZY = {name: module}`` dict, so that ``import judgebayes`` does not load JAX.
   Griffe reads the source statically and sees neither an import nor an assignment
   for those names: without this extension they are listed in ``__all__`` but missing
   from the API pages. For every module that assigns a dict literal to ``_LAZY``, each
   name becomes an alias of ``<module>.<name>`` (or, for a module of ``""``, of the
   submodule ``<package>.<name>``): what ``__getattr__`` returns at run time.
   Likewise a package that imports a name over its submodule of the same name
   (``judgebayes.bayes`` imports the function ``sbc`` from ``judgebayes.bayes.sbc``)
   exposes the function at run time; griffe would show the submodule and hide the
   function, so the extension binds the name to the imported object.

2. **Cross-reference roles.** The numpydoc docstrings refer to other objects with
   Sphinx roles (``:func:`fit_bt```, ``:class:`~judgebayes.core.battles.Battles```),
   which Markdown would print literally. Each role becomes an *optional* autorefs
   link to the object's canonical path, resolved the way Python would from the
   docstring's scope: a link where the object is documented on the site, plain code
   where it is not (e.g. a module without a page). An RST literal-block marker
   (a paragraph ending in ``::``) becomes a single colon.

3. **reStructuredText simple tables** (rows between ``=====  =====`` borders), which
   Markdown would turn into headings, become Markdown tables (or, without a header row,
   a list).

4. **Undocumented public names.** mkdocstrings hides objects without a docstring; a
   name listed in a module's ``__all__`` that has none gets the docstring
   "Undocumented." so that its API page still lists it (and says so).

5. **Grouped parameters.** numpydoc allows one entry for several parameters
   (``score, human``); griffe gives every name of the group the default and type of
   the *first* one, so the tables would show ``human = 'score_diff'``. Each such
   parameter gets its own default and annotation back from the signature.
"""

from __future__ import annotations

import ast
import html
import logging
import re
from typing import Any

import griffe

log = logging.getLogger("mkdocs.plugins.judgebayes.griffe")
LAZY_TABLE = "_LAZY"
ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|obj|exc|const):`(?P<target>[^`]+)`")
LITERAL_MARKER = re.compile(r"(?<=\S)::(?=\n\s*\n)")
BORDER = re.compile(r"^\s*=+(?: +=+)+\s*$")
GROUPED = re.compile(r"^\s*\w+(?:, \w+)+\s*(?::.*)?$", flags=re.M)


def lazy_table(source: str) -> dict[str, str]:
    """The ``{name: module}`` literal assigned to ``_LAZY`` in ``source`` (empty if none)."""
    for node in ast.parse(source).body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Dict)
            and any(isinstance(t, ast.Name) and t.id == LAZY_TABLE for t in node.targets)
        ):
            table = ast.literal_eval(node.value)
            if all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
                return table
    return {}


def _lookup(collection: griffe.ModulesCollection, path: str) -> str | None:
    """The canonical path of ``path`` (aliases followed), or None if it does not exist."""
    try:
        obj = collection[path]
        for _ in range(20):
            if not obj.is_alias:
                return obj.path
            obj = collection[obj.target_path]
    except Exception:  # anything unresolvable is simply not linked
        return None
    return None


def _resolve(collection: griffe.ModulesCollection, scope: griffe.Object, target: str) -> str | None:
    """Resolve a role target from ``scope`` outwards, as a name in that docstring would be."""
    target = target.lstrip("~.")
    if target.startswith("judgebayes.") or target == "judgebayes":
        return _lookup(collection, target)
    obj: griffe.Object | None = scope
    while obj is not None:
        found = _lookup(collection, f"{obj.path}.{target}")
        if found:
            return found
        obj = obj.parent
    return None


def _cells(line: str, spans: list[int]) -> list[str]:
    """Cut ``line`` at the column starts; text overflowing a column stays in it."""
    starts = [0]
    for p in spans[1:]:
        p = max(p, starts[-1])
        while 0 < p < len(line) and line[p - 1] != " " and line[p] != " ":
            p += 1
        starts.append(p)
    bounds = [*starts[1:], None]
    return [line[a:b].strip().replace("|", "\\|") for a, b in zip(starts, bounds, strict=True)]


def rst_tables(text: str) -> str:
    """Convert reStructuredText simple tables in ``text`` to Markdown."""
    lines = text.split("\n")
    borders = [k for k, line in enumerate(lines) if BORDER.match(line)]
    out: list[str] = []
    k = 0
    while k < len(lines):
        if k not in borders:
            out.append(lines[k])
            k += 1
            continue
        following = [b for b in borders if b > k]
        ends = [b for b in following if all(line.strip() for line in lines[k + 1 : b])]
        if not ends:
            out.append(lines[k])
            k += 1
            continue
        spans = [m.start() for m in re.finditer(r"=+", lines[k])]
        first = ends[0]
        header: list[str] | None = None
        end = first
        if len(ends) > 1 and ends[1] > first + 1:
            header = _cells(" ".join(lines[k + 1 : first]), spans) if first == k + 2 else None
            if header is not None:
                end = ends[1]
        body = lines[(first if header is not None else k) + 1 : end]
        rows: list[list[str]] = []
        for line in body:
            cells = _cells(line, spans)
            if rows and not cells[0]:  # continuation of the previous row
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
            else:
                rows.append(cells)
        out.append("")
        if header is not None:
            out.append("| " + " | ".join(header) + " |")
            out.append("|" + " --- |" * len(header))
            out += ["| " + " | ".join(row) + " |" for row in rows]
        else:
            out += ["- " + " — ".join(c for c in row if c) for row in rows]
        out.append("")
        k = end + 1
    return "\n".join(out)


def _rewrite(text: str, collection: griffe.ModulesCollection, scope: griffe.Object) -> str:
    def link(match: re.Match[str]) -> str:
        raw = match["target"].strip()
        explicit = re.fullmatch(r"(.+?)\s*<([^<>]+)>", raw)  # :func:`title <target>`
        if explicit:
            title, raw = explicit[1], explicit[2].strip()
        else:
            title = raw.lstrip("~.").rsplit(".", 1)[-1] if raw.startswith("~") else raw.lstrip(".")
        if "(" not in title and match.group(0).startswith(
            (":func:", ":meth:", ":py:func:", ":py:meth:")
        ):
            title += "()"
        code = f"<code>{html.escape(title)}</code>"
        path = _resolve(collection, scope, raw)
        if path is None:
            return code
        return f'<autoref identifier="{html.escape(path)}" optional>{code}</autoref>'

    return LITERAL_MARKER.sub(":", ROLE.sub(link, rst_tables(text)))


def _fix_grouped_parameters(func: griffe.Function) -> None:
    """Give each parameter of a grouped docstring entry its own default and annotation."""
    for section in func.docstring.parsed:
        if section.kind not in (
            griffe.DocstringSectionKind.parameters,
            griffe.DocstringSectionKind.other_parameters,
        ):
            continue
        for item in section.value:
            if item.name in func.parameters:
                signature = func.parameters[item.name]
                item.value = signature.default
                if signature.annotation is not None:
                    item.annotation = signature.annotation


def _walk(obj: griffe.Object):
    yield obj
    for member in obj.members.values():
        if not member.is_alias and (
            member.is_module or member.is_class or member.is_function or member.is_attribute
        ):
            yield from _walk(member)


class LazyExports(griffe.Extension):
    """Bind lazily exported names; turn Sphinx roles into optional autorefs links."""

    def on_module(self, *, mod: griffe.Module, **kwargs: Any) -> None:
        """Read the module's ``_LAZY`` table and bind each name it routes."""
        if mod.filepath is None or isinstance(mod.filepath, list):
            return
        try:
            source = mod.filepath.read_text(encoding="utf-8")
        except OSError:
            return
        for name, module in lazy_table(source).items():
            if name in mod.members:
                continue
            target = f"{mod.path}.{name}" if module == "" else f"{module}.{name}"
            mod.set_member(name, griffe.Alias(name, target, parent=mod))

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Unshadow imported names; rewrite the roles of every docstring in the package."""
        collection = loader.modules_collection
        objects = list(_walk(pkg))
        modules = [obj for obj in objects if obj.is_module]
        shadowed = [
            (mod, name)
            for mod in modules
            for name in (mod.exports or ())
            if isinstance(name, str)
            and name in mod.members
            and not mod.members[name].is_alias
            and mod.members[name].is_module
            and mod.imports.get(name, mod.members[name].path) != mod.members[name].path
        ]
        if shadowed:
            # Resolve every alias now, while the submodules are still reachable by path.
            for mod in modules:
                for member in list(mod.members.values()):
                    if member.is_alias:
                        try:
                            member.final_target  # noqa: B018 - resolves and caches the target
                        except Exception:  # external names stay unresolved
                            continue
            for mod, name in shadowed:
                target = collection[mod.imports[name]]
                alias = griffe.Alias(name, target, parent=mod)
                mod.members[name] = alias
        for mod in modules:
            for name in mod.exports or ():
                member = mod.members.get(name) if isinstance(name, str) else None
                try:
                    target = (
                        member.final_target if member is not None and member.is_alias else member
                    )
                except Exception:  # unresolvable (external) names are not ours to document
                    continue
                if target is not None and not target.is_module and target.docstring is None:
                    target.docstring = griffe.Docstring("Undocumented.", parent=target)
                    log.info("public but undocumented: %s.%s", mod.path, name)
        for obj in objects:
            if obj.docstring is not None and (
                ":" in obj.docstring.value or "==" in obj.docstring.value
            ):
                scope = obj if (obj.is_module or obj.is_class) else obj.parent
                obj.docstring.value = _rewrite(obj.docstring.value, collection, scope or obj)
            if (
                obj.is_function
                and obj.docstring is not None
                and GROUPED.search(obj.docstring.value)
            ):
                _fix_grouped_parameters(obj)
