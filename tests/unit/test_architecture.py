"""Layers import one way: UI -> services -> domain <- adapters."""

import ast
import sys
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


# The errors a user reads, and text as docchat stores it: leaves of the standard library alone,
# which the domain's rules (a title's) raise and check with.
LEAVES = ("docchat.errors", "docchat.text")


@pytest.mark.parametrize("path", sorted((PACKAGE / "domain").glob("*.py")), ids=lambda p: p.name)
def test_the_domain_depends_on_nothing_but_the_standard_library_and_the_leaves(path):
    outside = {m for m in _imported_modules(path) if m.startswith("docchat") and not m.startswith("docchat.domain")}
    assert {m for m in outside if not _under(m, LEAVES)} == set()
    assert _imported_roots(path) <= {"__future__", "dataclasses", "datetime", "enum", "hashlib", "re", "typing", "docchat"}


@pytest.mark.parametrize("module", LEAVES)
def test_the_leaves_import_the_standard_library_and_each_other_only(module):
    path = PACKAGE.parent / (module.replace(".", "/") + ".py")
    assert {m for m in _imported_modules(path) if m.startswith("docchat") and not _under(m, LEAVES)} == set()
    assert all(root in sys.stdlib_module_names or root in ("__future__", "docchat") for root in _imported_roots(path))


# Every adapter: code that touches the outside world (the database, the LLM server, files on disk,
# worker processes, models, the vector index, the settings file, the process environment) or wraps
# an SDK. The services reach each through a protocol of docchat.ports, wired by the composition root.
ADAPTERS = (
    "docchat.store", "docchat.llm", "docchat.context.programs",
    "docchat.documents.index",  # the vector index and the embedders, every module of it
    "docchat.documents.files", "docchat.documents.isolated",
    "docchat.documents.parse_worker", "docchat.documents.parse_clock", "docchat.documents.parsing",
    "docchat.documents.kinds",  # one module per kind of file, each with its format's library
    "docchat.documents.registry", "docchat.documents.render", "docchat.documents.zip_formats",
    "docchat.documents.ocr", "docchat.documents.scans", "docchat.documents.pdf_tables",
    "docchat.documents.folders",  # followed folders on disk and their watcher
    "docchat.memory.llama_index_memory", "docchat.memory.tokens",
    "docchat.preferences",
)
# What wires the services, and what calls them: the services import neither.
WIRING = ("docchat.bootstrap", "docchat.shared")
CALLERS = ("docchat.api", "docchat.cli", "docchat.ui", "docchat.web.guard")
# Pure code (text and numbers in, text and numbers out), which the services use directly: the
# retrieval, grounding and tables packages, and two modules the kinds of file share.
PURE_DOCUMENTS = ("docchat.documents.code_blocks", "docchat.documents.text_reading")
PURE_PACKAGES = ("docchat.retrieval", "docchat.grounding", "docchat.tables")
PURE = (*PURE_PACKAGES, *PURE_DOCUMENTS)
# Imports not yet through a port, each to be removed when its module stops (none now).
NOT_YET_THROUGH_PORTS: dict[str, tuple[str, ...]] = {}
SERVICES = sorted((PACKAGE / "services").glob("*.py"))


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def _module_of(path: Path) -> str:
    """The module a file of the package is ("" for the pages, which are scripts)."""
    if not path.is_relative_to(PACKAGE):
        return ""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path: Path, *, run_time: bool = False) -> set[str]:
    """What the file imports anywhere in it (in a function too); `from a import b` gives a and
    a.b, as b may be a module; relative imports are made absolute. `run_time`: not what it
    imports for its annotations only (`if TYPE_CHECKING:`), which loads nothing."""
    package = _module_of(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    tree = ast.parse(path.read_text(), str(path))
    types_only = {id(inner) for node in ast.walk(tree) if run_time and isinstance(node, ast.If)
                  and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                  for inner in ast.walk(node)}
    modules = set()
    for node in ast.walk(tree):
        if id(node) in types_only:
            continue
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join([*package[:len(package) - node.level + 1], node.module or ""] if node.level else
                            [node.module or ""]).strip(".")
            modules |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return modules


def _adapters_in(modules: set[str], forbidden: tuple[str, ...]) -> set[str]:
    return {prefix for prefix in forbidden for module in modules if _under(module, (prefix,))}


def _source(module: str) -> Path | None:
    base = PACKAGE.parent.joinpath(*module.split("."))
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


def _adapters_reached(start: str) -> set[str]:
    """The adapters `start` loads, or may load in a function, through the docchat modules it
    imports (packages' __init__ included); an adapter is reached, not looked into."""
    forbidden = ADAPTERS + WIRING + CALLERS
    seen, reached, todo = set(), set(), [start]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        if _under(module, forbidden):
            reached |= _adapters_in({module}, forbidden)
            continue
        path = _source(module)
        if path is None:
            continue  # a name imported from a module, not a module
        for imported in _imported_modules(path):
            if imported.split(".")[0] == "docchat" and not _under(imported, NOT_YET_THROUGH_PORTS.get(module, ())):
                parts = imported.split(".")
                todo += [".".join(parts[:end]) for end in range(1, len(parts) + 1)]
    return reached


@pytest.mark.parametrize("path", SERVICES + [PACKAGE / "context" / "pipeline.py"], ids=lambda p: p.name)
def test_services_and_the_answer_pipeline_depend_on_ports_never_on_adapters_or_sdks(path):
    imported = _imported_modules(path)
    assert _adapters_in(imported, ADAPTERS + WIRING + CALLERS) == set(NOT_YET_THROUGH_PORTS.get(_module_of(path), ()))
    assert {m.split(".")[0] for m in imported} & SDKS == set()


@pytest.mark.parametrize("path", SERVICES, ids=lambda p: p.name)
def test_services_reach_no_adapter_through_the_modules_they_import_either(path):
    """Importing a service loads no adapter: the pure modules, the answer pipeline and the memory
    it goes through import none either."""
    assert _adapters_reached(_module_of(path)) == set()


def test_every_module_beside_the_document_adapters_is_an_adapter_or_pure():
    """A new module of docchat.documents is classed here: an adapter the services reach through a
    port, or pure code they may use."""
    modules = {_module_of(p) for p in (PACKAGE / "documents").rglob("*.py")} - {"docchat.documents"}
    assert {m for m in modules if not _under(m, ADAPTERS + PURE_DOCUMENTS)} == set()


PURE_MODULES = [*PURE_DOCUMENTS, *sorted(_module_of(p) for package in PURE_PACKAGES
                                         for p in _source(package).parent.glob("*.py"))]


@pytest.mark.parametrize("module", PURE_MODULES)
def test_the_pure_modules_import_the_standard_library_and_the_domain_only(module):
    imported = _imported_modules(_source(module))
    inside = ("docchat.domain", "docchat.errors", "docchat.text", *PURE)
    assert {m for m in imported if m.split(".")[0] == "docchat" and not _under(m, inside)} == set()
    assert {m.split(".")[0] for m in imported if m.split(".")[0] != "docchat"} <= sys.stdlib_module_names


@pytest.mark.parametrize("path", sorted((PACKAGE / "api").glob("*.py")), ids=lambda p: p.name)
def test_the_api_calls_services_never_adapters_or_sdks(path):
    imported = _imported_modules(path)
    assert _adapters_in(imported, ADAPTERS + WIRING) == set(NOT_YET_THROUGH_PORTS.get(_module_of(path), ()))
    assert {m.split(".")[0] for m in imported} & (SDKS | {"streamlit"}) == set()


@pytest.mark.parametrize("path", sorted((PACKAGE / "ui").glob("*.py")), ids=lambda p: p.name)
def test_the_pages_parts_reach_the_process_only_through_its_services(path):
    """The entry points (app.py, pages/) say where the services come from; the parts of the page
    build nothing and save nothing themselves."""
    reached = {m for m in _imported_modules(path)
               if _under(m, ("docchat.shared", "docchat.bootstrap", "docchat.preferences", "docchat.config"))}
    assert reached == set()


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_never_imports_the_composition_root(path):
    assert {m for m in _imported_modules(path) if m.startswith("docchat.bootstrap")} == set()


@pytest.mark.parametrize("name", ["wiring.py", "startup.py"])
def test_the_composition_roots_wiring_and_start_order_hold_no_class_thread_or_policy(name):
    """Those live with their adapters and services: the wiring makes objects and hands them to
    each other, the start-up puts steps in order."""
    path = PACKAGE / "bootstrap" / name
    assert [node.name for node in ast.parse(path.read_text()).body if isinstance(node, ast.ClassDef)] == []
    assert "threading" not in _imported_roots(path)
    assert "os" not in _imported_roots(path)  # the environment is bootstrap/environment.py's


def test_the_wiring_opens_nothing():
    """No store, no server client, no index, no worker: only what was built is handed on."""
    reached = {m for m in _imported_modules(PACKAGE / "bootstrap" / "wiring.py", run_time=True)
               if _under(m, ("docchat.store", "docchat.llm.gateway",
                             "docchat.documents.isolated", "qdrant_client"))}
    assert reached == set()


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


def test_the_memorys_llamaindex_shell_is_one_way():
    """LlamaIndexMemory wraps ConversationMemory; the memory itself never reaches for its shell
    (it speaks LlamaIndex's ChatMessage, imported when that interface is used, and no more)."""
    for name in ("conversation_memory.py", "window.py"):
        assert {m for m in _imported_modules(PACKAGE / "memory" / name)
                if m.startswith("docchat.memory.llama_index_memory")} == set()


# The repository's verbs that change conversation tables (and the citations an answer made).
CONVERSATION_WRITES = {
    "add_conversation", "set_title", "set_pinned", "set_deleted", "purge_conversation", "append_message",
    "settle_message", "set_rating", "show_version", "save_settings", "interrupt_stale_streaming",
    "insert_messages", "set_memory_marks", "store_token_counts", "add_summary", "add_citations",
}
CONVERSATION_LOG = PACKAGE / "services" / "conversation_log.py"


def test_every_write_to_a_conversation_goes_through_its_log():
    """One module writes conversation tables: services/conversation_log.py. Any other that calls
    a repository's writing verb (on `uow.conversations`, `repo`...) is a second owner; a
    benchmark too, which would measure a path the product does not take."""
    from docchat.ports import ConversationRepository, DocumentRepository

    assert CONVERSATION_WRITES <= set(dir(ConversationRepository)) | set(dir(DocumentRepository))
    writers = {}
    for path in sorted([*PACKAGE.rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]):
        if path == CONVERSATION_LOG or (PACKAGE / "store") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in CONVERSATION_WRITES and _names_a_repository(node.func.value)):
                writers.setdefault(str(path.relative_to(ROOT)), set()).add(node.func.attr)
    assert writers == {}


def _names_a_repository(node: ast.expr) -> bool:
    """`uow.conversations`, `work.documents`, `repo`: a repository, not a service of the same verb's name."""
    if isinstance(node, ast.Attribute):
        return node.attr in ("conversations", "documents") and not (
            isinstance(node.value, ast.Call) or (isinstance(node.value, ast.Name) and node.value.id == "self"))
    return isinstance(node, ast.Name) and node.id in ("repo", "repository")
