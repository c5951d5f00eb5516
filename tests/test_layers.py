"""Imports point one way (docs/engine.md, "Layers"): the engine imports no other part; the
bots, the terminal game and the environments never reach into the server or into a command
module; no module imports another's private names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "kerala"

#: The engine and the pure modules beside it: standard library only, no I/O.
CORE = (
    "tiles", "grounds", "actions", "scoring", "playerview", "game", "views", "notation",
    "errors", "names", "gridtext", "clocks", "vocabulary", "pickled", "frozen", "chance",
)  # fmt: skip
#: The parts above the engine, each a package.
PARTS = ("bots", "tui", "envs", "server")


def module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    return ".".join(rel.parts).removesuffix(".__init__")


def kerala_imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every import of a ``kerala`` module in a file, wherever it stands."""
    package = module_name(path).rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{module}" if module else base
            if module.startswith("kerala"):
                out.append((module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names if a.name.startswith("kerala")]
    return out


def sources() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if "migrations" not in p.parts]


def part_of(module: str) -> str:
    """The part a module belongs to: a package of PARTS, a CORE module, or the module itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize("name", CORE)
def test_the_engine_imports_no_other_part(name: str) -> None:
    outside = [
        m for m, _ in kerala_imports(SRC / f"{name}.py") if part_of(m) not in CORE and m != "kerala"
    ]
    assert outside == [], f"kerala.{name} imports {outside}"


@pytest.mark.parametrize("part", ["bots", "tui", "envs"])
def test_bots_terminal_and_envs_never_import_the_server_or_a_command_module(part: str) -> None:
    bad = [
        (module_name(p), m)
        for p in sorted((SRC / part).rglob("*.py"))
        for m, _ in kerala_imports(p)
        if part_of(m) in ("server", "cli")
    ]
    assert bad == []


def test_the_bots_import_neither_the_terminal_nor_the_environments() -> None:
    bad = [
        (module_name(p), m)
        for p in sorted((SRC / "bots").rglob("*.py"))
        for m, _ in kerala_imports(p)
        if part_of(m) in ("tui", "envs")
    ]
    assert bad == []


def test_no_module_imports_private_names_of_another() -> None:
    private = [
        (module_name(p), m, n)
        for p in sources()
        for m, names in kerala_imports(p)
        for n in names
        if n.startswith("_") and not n.startswith("__")
    ]
    assert private == []


def test_a_function_over_100_lines_says_why_in_its_docstring() -> None:
    long = [
        f"{module_name(p)}.{n.name} ({(n.end_lineno or n.lineno) - n.lineno + 1} lines)"
        for p in sources()
        for n in ast.walk(ast.parse(p.read_text()))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and (n.end_lineno or n.lineno) - n.lineno + 1 > 100
        and "Long because" not in (ast.get_docstring(n) or "")
    ]
    assert long == []


def test_routes_get_their_collaborators_through_deps() -> None:
    """Routes never reach into the app's state or a service's repository themselves: every
    collaborator comes from routes/deps.py (a dependency, or a reader of a connection)."""
    reaching = [
        f"{module_name(p)}: {m.group(0)}"
        for p in sorted((SRC / "server" / "routes").glob("*.py"))
        if p.name != "deps.py"
        for m in re.finditer(r"app\.state\.\w+|\bservice\.repo\b", p.read_text())
    ]
    assert reaching == []
