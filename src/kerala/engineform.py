"""Which form of the engine runs: compiled by mypyc, or the pure Python source.

The engine's modules (:data:`ENGINE_MODULES`, and :data:`ENV_MODULES` where NumPy is installed)
are one source with two builds (docs/engine.md, "Two builds"). ``kerala engine build`` (run by
``make play`` and ``make test``) compiles them with mypyc into extension modules beside their
sources and writes a manifest (``kerala/_compiled.json``) with the SHA-256 of each source it
compiled. At the first ``import kerala`` this module decides, once for the process:

- the compiled form when its manifest is there and every source still has the hash it was
  compiled from;
- the pure form otherwise, and always under ``KERALA_ENGINE=pure``: a finder placed first on
  ``sys.meta_path`` then loads the engine's ``.py`` files, so extension modules beside them are
  never imported. A compiled form older than its source is never used (it would run old rules).

``KERALA_ENGINE`` is ``auto`` (the default: compiled when it is built and current), ``pure`` or
``compiled`` (which refuses to start, in one line, unless the compiled form is built and
current). :data:`FORM` says which form runs; ``kerala --version`` and ``kerala bench`` print it.

``kerala engine build`` calls :func:`build` where :func:`unavailable` finds what it needs.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Final, Literal

Form = Literal["compiled", "pure"]

#: The modules compiled, under ``kerala``: the engine, and the bots' evaluation (the inner loop
#: of every search, where compiling pays most). Not ``errors``: its exceptions are subclassed
#: outside the engine, which compiled classes refuse.
ENGINE_MODULES: Final = (
    "actions",
    "chance",
    "game",
    "grounds",
    "playerview",
    "scoring",
    "tiles",
    "vocabulary",
    "bots.evaluation",
)
#: Compiled with the engine where NumPy is installed (the ``rl`` extra): the environments'
#: action encoding and observation encoding, which run at every step of an environment. They
#: import NumPy, which mypyc must see to compile them.
ENV_MODULES: Final = ("envs.encoding", "envs.observations")
#: The environment variable that picks the form.
ENV: Final = "KERALA_ENGINE"
CHOICES: Final = ("auto", "pure", "compiled")
#: The shared library mypyc builds for the group (one per build; beside the ``kerala`` package).
GROUP: Final = "kerala_engine"

_PACKAGE_DIR: Final = Path(__file__).resolve().parent
MANIFEST: Final = _PACKAGE_DIR / "_compiled.json"
_NAMES: Final = frozenset(f"kerala.{m}" for m in (*ENGINE_MODULES, *ENV_MODULES))


def compiled_modules() -> tuple[str, ...]:
    """The modules a build compiles on this machine: the engine's, and the environments' where
    NumPy is installed."""
    has_numpy = importlib.util.find_spec("numpy") is not None
    return (*ENGINE_MODULES, *ENV_MODULES) if has_numpy else ENGINE_MODULES


def _stem(module: str) -> str:
    """``"bots.evaluation"`` -> ``"bots/evaluation"``: a module's path under ``kerala``, bare."""
    return module.replace(".", "/")


class EngineFormError(RuntimeError):
    """``KERALA_ENGINE`` names a form that cannot run (a bad value, or no current build)."""


def source_digest(module: str) -> str:
    """The SHA-256 of engine module ``module``'s source (``"game"`` for ``kerala/game.py``)."""
    return hashlib.sha256((_PACKAGE_DIR / f"{_stem(module)}.py").read_bytes()).hexdigest()


def _extension(module: str) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        p = _PACKAGE_DIR / f"{_stem(module)}{suffix}"
        if p.exists():
            return p
    return None


def compiled_status() -> str | None:
    """``None`` when the compiled form is built and current, else why it cannot be used."""
    try:
        manifest = json.loads(MANIFEST.read_text())
    except FileNotFoundError:
        return "the compiled engine is not built"
    except (OSError, ValueError) as e:
        return f"{MANIFEST.name} cannot be read ({e})"
    digests = manifest.get("sources") if isinstance(manifest, dict) else None
    if not isinstance(digests, dict):
        return f"{MANIFEST.name} holds no source digests"
    for m in compiled_modules():
        if _extension(m) is None:
            return f"kerala/{_stem(m)} has no compiled extension"
        if digests.get(m) != source_digest(m):
            return f"kerala/{_stem(m)}.py changed after it was compiled"
    return None


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Loads the engine's modules from their ``.py`` files, whatever lies beside them."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _NAMES:
            return None
        return importlib.util.spec_from_file_location(
            fullname, _PACKAGE_DIR / f"{_stem(fullname.removeprefix('kerala.'))}.py"
        )


def choose(environ: dict[str, str] | None = None) -> tuple[Form, str]:
    """The form this process runs, and why; raises :class:`EngineFormError` for a bad
    ``KERALA_ENGINE`` or a ``compiled`` that cannot run. Installs nothing."""
    env = os.environ if environ is None else environ
    want = env.get(ENV, "auto").strip().lower() or "auto"
    if want not in CHOICES:
        raise EngineFormError(
            f"{ENV}={env.get(ENV)!r} is not a form of the engine: use auto, pure or compiled"
        )
    if want == "pure":
        return "pure", f"{ENV}=pure"
    why = compiled_status()
    if why is None:
        return "compiled", "compiled with mypyc"
    if want == "compiled":
        raise EngineFormError(f"{ENV}=compiled, but {why}: run make compiled")
    return "pure", why


def _install() -> tuple[Form, str]:
    try:
        form, why = choose()
    except EngineFormError as e:
        raise SystemExit(f"kerala: {e}") from None
    # The finder is needed only where extensions lie beside the sources.
    built = any(_extension(m) is not None for m in ENGINE_MODULES)
    if form == "pure" and built and not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())
    return form, why


#: The form this process runs (decided at the first ``import kerala``), and why.
FORM, REASON = _install()


def describe() -> str:
    """One line for people: ``"compiled (mypyc)"`` or ``"pure Python (why)"``."""
    return "compiled (mypyc)" if FORM == "compiled" else f"pure Python ({REASON})"


# -- building ----------------------------------------------------------------------------------


def unavailable() -> str | None:
    """Why the compiled form cannot be built on this machine, or ``None`` when it can."""
    import importlib.util as util

    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        return "no C compiler (cc or gcc) is installed"
    for module in ("mypyc", "setuptools"):
        if util.find_spec(module) is None:
            return f"{module} is not installed"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "Python's C headers (Python.h) are not installed"
    return None


def build(source_root: Path | None = None) -> str:
    """Compile the engine with mypyc in a scratch folder, then put the extensions beside their
    sources and write the manifest; returns a line saying what was built. Raises
    :class:`EngineFormError` (with the compiler's last lines) when it cannot."""
    import subprocess
    import tempfile

    root = _PACKAGE_DIR.parent if source_root is None else source_root
    cannot = unavailable()
    if cannot is not None:
        raise EngineFormError(cannot)
    modules = compiled_modules()
    sources = {m: source_digest(m) for m in modules}
    with tempfile.TemporaryDirectory(prefix="kerala-mypyc-") as tmp:
        work = Path(tmp)
        shutil.copytree(
            root / "kerala",
            work / "kerala",
            ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", "_compiled.json"),
        )
        setup = work / "setup.py"
        paths = [f"kerala/{_stem(m)}.py" for m in modules]
        setup.write_text(
            "from setuptools import setup\n"
            "from mypyc.build import mypycify\n"
            f"setup(name='kerala-engine', ext_modules=mypycify({paths!r},"
            f" group_name={GROUP!r}, opt_level='3'))\n"
        )
        done = subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"],
            cwd=work,
            capture_output=True,
            text=True,
            env={**os.environ, "MYPY_FORCE_COLOR": "0"},
        )
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-8:]
            raise EngineFormError("mypyc failed:\n" + "\n".join(tail))
        for stale in [*root.glob(f"{GROUP}__mypyc.*"), *_compiled_files(root / "kerala")]:
            stale.unlink()
        for f in work.glob(f"{GROUP}__mypyc.*"):
            shutil.copy2(f, root / f.name)
        for m in modules:
            built = work / "kerala" / _stem(m)
            for f in built.parent.glob(f"{built.name}.*"):
                if f.suffix != ".py":
                    shutil.copy2(f, root / "kerala" / f.relative_to(work / "kerala"))
    import mypy.version

    MANIFEST.write_text(
        json.dumps({"mypy": mypy.version.__version__, "sources": sources}, indent=1) + "\n"
    )
    return f"compiled the engine with mypyc {mypy.version.__version__}: {len(sources)} modules"


def _compiled_files(package: Path) -> list[Path]:
    return [
        f
        for m in (*ENGINE_MODULES, *ENV_MODULES)
        for f in package.glob(f"{_stem(m)}.*")
        if any(f.name.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES)
    ]
