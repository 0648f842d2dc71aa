"""Layers import one way: UI -> services -> domain <- adapters."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "docchat"
UI_FILES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((PACKAGE / "ui").glob("*.py"))]
SDKS = {"sqlalchemy", "alembic", "openai", "qdrant_client", "dspy", "llama_index", "litellm"}


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_pages_and_ui_components_never_import_an_sdk(path):
    assert _imported_roots(path) & SDKS == set()


@pytest.mark.parametrize("path", sorted((PACKAGE / "services").glob("*.py")), ids=lambda p: p.name)
def test_services_never_import_streamlit(path):
    assert "streamlit" not in _imported_roots(path)


@pytest.mark.parametrize("path", sorted((PACKAGE / "domain").glob("*.py")), ids=lambda p: p.name)
def test_the_domain_depends_on_nothing_but_the_standard_library(path):
    outside = {m for m in _imported_modules(path) if m.startswith("docchat") and not m.startswith("docchat.domain")}
    assert outside == set()
    assert _imported_roots(path) <= {"__future__", "dataclasses", "datetime", "enum", "typing", "docchat"}


ADAPTERS = ("docchat.store", "docchat.llm", "docchat.bootstrap", "docchat.documents.index",
            "docchat.documents.embeddings", "docchat.documents.remote_embeddings")


def _imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
    return modules


@pytest.mark.parametrize("path", sorted((PACKAGE / "services").glob("*.py")) + [PACKAGE / "context" / "pipeline.py"],
                         ids=lambda p: p.name)
def test_services_and_the_answer_pipeline_depend_on_ports_never_on_adapters_or_sdks(path):
    imported = _imported_modules(path)
    assert {m for m in imported if m.startswith(ADAPTERS)} == set()
    assert {m.split(".")[0] for m in imported} & SDKS == set()


@pytest.mark.parametrize("path", sorted((PACKAGE / "api").glob("*.py")), ids=lambda p: p.name)
def test_the_api_calls_services_never_adapters_or_sdks(path):
    imported = _imported_modules(path)
    assert {m for m in imported if m.startswith(ADAPTERS)} == set()
    assert {m.split(".")[0] for m in imported} & (SDKS | {"streamlit"}) == set()


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_never_imports_the_composition_root(path):
    assert {m for m in _imported_modules(path) if m.startswith("docchat.bootstrap")} == set()


def test_the_composition_root_only_wires():
    """No class, thread or policy of its own: those live with their adapters and services."""
    tree = ast.parse((PACKAGE / "bootstrap.py").read_text())
    assert [node.name for node in tree.body if isinstance(node, ast.ClassDef)] == []
    assert "threading" not in _imported_roots(PACKAGE / "bootstrap.py")
    assert "os" not in _imported_roots(PACKAGE / "bootstrap.py")  # the environment is docchat.environment's


def test_the_ports_import_no_adapter():
    """The ports name what the services need; the adapters that provide it import them, not the reverse."""
    imported = _imported_modules(PACKAGE / "ports.py")
    assert {m for m in imported if m.startswith("docchat.") and not m.startswith("docchat.domain")} == set()


BENCH_COMMAND = PACKAGE / "cli" / "bench.py"
PRODUCT_FILES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted(PACKAGE.rglob("*.py"))]


def _reaches_the_benchmarks(tree: ast.AST, *, strings: bool = True) -> bool:
    """An import of docchat_bench, or (`strings`) its name as a string, what importlib.import_module takes."""
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        elif strings and isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        if any(name == "docchat_bench" or name.startswith("docchat_bench.") for name in names):
            return True
    return False


def test_no_product_module_reaches_the_benchmarks_but_the_bench_command():
    """The benchmarks sit beside the product, their dependencies in the `bench` extra: the app, the
    API and every other command run without them."""
    reaching = [str(p.relative_to(ROOT)) for p in PRODUCT_FILES if _reaches_the_benchmarks(ast.parse(p.read_text()))]
    assert reaching == [str(BENCH_COMMAND.relative_to(ROOT))]


def test_the_bench_command_imports_the_benchmarks_only_when_a_suite_runs():
    """`docchat --help` and every other command parse this module's arguments; only a suite's handler
    may import docchat_bench."""
    module_level = [node for node in ast.parse(BENCH_COMMAND.read_text()).body if not isinstance(node, ast.FunctionDef)]
    assert not any(_reaches_the_benchmarks(node, strings=False) for node in module_level)
