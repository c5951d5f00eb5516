"""Issue 17: every link in the repository's Markdown resolves inside the repository.

The pages checked are the Markdown files in the repository root and, at any depth, in
``docs/``, ``examples/`` and ``benchmarks/``. For every relative link or image: the target
file or folder exists, it lies inside the repository (no ``../shared/…``), and a ``#anchor``
into a Markdown page names one of its headings, slugged as GitHub does. Web addresses
(``https:``, ``mailto:`` …) are not followed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parent.parent
DOC_DIRS = ("docs", "examples", "benchmarks")

_MD = MarkdownIt("commonmark").enable("table")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_HTML_LINK = re.compile(r"""\b(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_HTML_ANCHOR = re.compile(r"""<a\s[^>]*\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)


def markdown_files(root: Path) -> list[Path]:
    """The pages to check: root ``*.md`` and every ``*.md`` under the documentation folders."""
    files = sorted(root.glob("*.md"))
    for d in DOC_DIRS:
        if (root / d).is_dir():
            files += sorted((root / d).rglob("*.md"))
    return files


def github_slug(text: str) -> str:
    """GitHub's heading anchor (github-slugger): lower case; letters, marks, numbers, ``_``
    and ``-`` are kept, other punctuation and symbols dropped; each space becomes ``-``."""
    kept = (
        ch
        for ch in text.strip().lower()
        if ch in "- " or unicodedata.category(ch)[0] in "LMN" or unicodedata.category(ch) == "Pc"
    )
    return "".join(kept).replace(" ", "-")


def _plain(inline: Token) -> str:
    """A heading's text as GitHub renders it: markup and inline HTML left out."""
    parts = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(_plain(child))
    return "".join(parts)


def anchors(text: str) -> set[str]:
    """Every ``#anchor`` a Markdown page offers: heading slugs (repeats get ``-1``, ``-2`` …)
    and explicit ``<a id=…>``/``<a name=…>``."""
    tokens = _MD.parse(text)
    seen: dict[str, int] = {}
    out: set[str] = set()
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            slug = github_slug(_plain(tokens[i + 1]))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
        elif tok.type in ("html_block", "html_inline", "inline"):
            for m in _HTML_ANCHOR.finditer(tok.content):
                out.add(m.group(1) or m.group(2))
    return out


def _links(tokens: Iterable[Token], line: int = 0) -> Iterable[tuple[int, str]]:
    """``(line, target)`` of every link, image and HTML ``href``/``src`` (code is no link)."""
    for tok in tokens:
        here = tok.map[0] + 1 if tok.map else line
        if tok.type in ("softbreak", "hardbreak"):
            line += 1  # inline children carry no line numbers: count the breaks
            continue
        if tok.type == "link_open":
            yield here, str(tok.attrGet("href") or "")
        elif tok.type == "image":
            yield here, str(tok.attrGet("src") or "")
        if tok.type in ("html_block", "html_inline"):
            for m in _HTML_LINK.finditer(tok.content):
                yield here, m.group(1) or m.group(2)
        if tok.children:
            yield from _links(tok.children, here)


def link_problems(files: Iterable[Path], root: Path) -> list[str]:
    """One line per bad link: ``page:line: target: why``."""
    root = root.resolve()
    problems: list[str] = []
    anchor_cache: dict[Path, set[str]] = {}

    def anchors_of(page: Path) -> set[str]:
        if page not in anchor_cache:
            anchor_cache[page] = anchors(page.read_text(encoding="utf-8"))
        return anchor_cache[page]

    for page in files:
        page = page.resolve()
        name = page.relative_to(root).as_posix()
        for line, target in _links(_MD.parse(page.read_text(encoding="utf-8"))):
            where = f"{name}:{line}: {target or '(empty)'}"
            if target.startswith("//") or _SCHEME.match(target):
                continue  # a web address
            path_part, _, fragment = target.partition("#")
            path_part = unquote(path_part)
            if not path_part and not fragment:
                problems.append(f"{where}: empty link")
                continue
            if path_part.startswith("/"):
                problems.append(f"{where}: absolute path; write it relative to the page")
                continue
            dest = (page.parent / path_part).resolve() if path_part else page
            if not dest.is_relative_to(root):
                problems.append(f"{where}: leaves the repository")
                continue
            if not dest.exists():
                problems.append(f"{where}: no such file or folder")
                continue
            is_page = dest.suffix == ".md" and dest.is_file()
            if fragment and is_page and unquote(fragment) not in anchors_of(dest):
                problems.append(f"{where}: no heading #{fragment} in {dest.name}")
    return problems


# -- the repository ----------------------------------------------------------------------


def test_every_link_in_the_docs_resolves_inside_the_repository() -> None:
    files = markdown_files(ROOT)
    names = {f.relative_to(ROOT).as_posix() for f in files}
    assert {"README.md", "docs/rules.md", "docs/notation.md"} <= names
    problems = link_problems(files, ROOT)
    assert not problems, "dead links:\n" + "\n".join(problems)


def test_readme_links_the_rules_and_the_notation() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = {t.partition("#")[0] for _, t in _links(_MD.parse(text))}
    assert {"docs/rules.md", "docs/notation.md"} <= targets


def test_no_page_points_at_the_shared_folder() -> None:
    """The repository stands alone: no page sends its reader to ``../shared``."""
    for f in markdown_files(ROOT):
        for line, target in _links(_MD.parse(f.read_text(encoding="utf-8"))):
            assert "shared/" not in target, f"{f.relative_to(ROOT)}:{line}: {target}"


# -- the checker itself, on pages made for the test --------------------------------------


def _site(tmp_path: Path, pages: dict[str, str]) -> Path:
    for name, text in pages.items():
        p = tmp_path / "repo" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return tmp_path / "repo"


def test_checker_fails_on_a_dead_relative_link(tmp_path: Path) -> None:
    root = _site(tmp_path, {"README.md": "# R\n\nSee [the guide](docs/guide.md).\n"})
    assert link_problems(markdown_files(root), root) == [
        "README.md:3: docs/guide.md: no such file or folder"
    ]
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    assert link_problems(markdown_files(root), root) == []


def test_checker_fails_on_a_link_that_leaves_the_repository(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "RULES.md").write_text("# Rules\n", encoding="utf-8")
    root = _site(
        tmp_path,
        {"docs/a.md": "# A\n\n[rules](../../shared/RULES.md) and ![x](/img/x.png)\n"},
    )
    problems = link_problems(markdown_files(root), root)
    assert problems == [
        "docs/a.md:3: ../../shared/RULES.md: leaves the repository",
        "docs/a.md:3: /img/x.png: absolute path; write it relative to the page",
    ]


def test_checker_fails_on_a_missing_anchor(tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        {
            "README.md": (
                "# Top\n\n## Setup (S1–S4)\n\n## The `kerala` command\n\n"
                "[a](#setup-s1s4) [b](#the-kerala-command) [c](docs/b.md#the-part)\n"
                "[d](#setup) [e](docs/b.md#nothing) [f](docs/b.md#the-part-1)\n"
            ),
            "docs/b.md": '# B\n\n## The part\n\n## The part\n\n<a id="kept"></a>\n[g](#kept)\n',
        },
    )
    assert link_problems(markdown_files(root), root) == [
        "README.md:8: #setup: no heading #setup in README.md",
        "README.md:8: docs/b.md#nothing: no heading #nothing in b.md",
    ]


def test_checker_ignores_code_and_web_addresses(tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        {
            "README.md": (
                "# R\n\n`[not](a-link.md)`\n\n```\n[not](either.md)\n```\n\n"
                "[web](https://example.com/x.md) [mail](mailto:a@example.com)\n"
                "[ref][r]\n\n[r]: missing.md\n"
            ),
        },
    )
    assert link_problems(markdown_files(root), root) == [
        "README.md:10: missing.md: no such file or folder"
    ]


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Setup (S1–S4)", "setup-s1s4"),
        ("The `kerala` command", "the-kerala-command"),
        ("PettingZoo — `kerala.envs.pettingzoo`", "pettingzoo--keralaenvspettingzoo"),
        ("### `POST /api/games` → 201", "post-apigames--201"),
        (
            "Measured (29 Nov 2026, the 2-core development machine, SQLite)",
            "measured-29-nov-2026-the-2-core-development-machine-sqlite",
        ),
        ("Plättchen_verschieben", "plättchen_verschieben"),
    ],
)
def test_github_heading_slugs(heading: str, slug: str) -> None:
    text = heading if heading.startswith("#") else f"## {heading}"
    assert anchors(text + "\n") == {slug}
