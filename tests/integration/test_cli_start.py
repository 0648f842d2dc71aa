"""What a `docchat` command imports on its way, run as a real process over a temporary data dir.

`docchat --help` reads no settings and opens no database. A command over the database alone
(listing conversations or documents, a sync of a followed folder where nothing changed) imports
nothing of the model's side (the LLM server's client, DSPy, LiteLLM, LlamaIndex), of the
document index or the embedding model, or of the page: each of those costs tenths of a second
to seconds of a start on two cores (docs/perf/cli-start.md). Held here by what is imported,
not by a timing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


# Never on the way of a command that does not ask the model, search or embed.
HEAVY = ("qdrant_client", "qdrant_edge", "tantivy", "torch", "onnxruntime", "httpx", "openai", "dspy", "litellm", "llama_index", "streamlit",
         "sentence_transformers", "transformers", "tokenizers", "alembic")
# Nor on the way of `--help`: the store, the settings' library, the composition root, the parsers.
OPENED_BY_A_COMMAND = ("sqlalchemy", "pydantic", "docchat.bootstrap", "docchat.documents.parsing")
# `--help` names the kinds of file docchat reads, from their modules, which import no format's library.
FORMAT_LIBRARIES = ("pypdf", "docx", "bs4", "pptx", "openpyxl", "python_calamine", "PIL", "aspose")

# Runs `docchat ARGS...` in this interpreter, then prints which of the modules named in its
# first argument were imported; argparse's --help ends with SystemExit, which is let through.
SCRIPT = """
import json, sys
from docchat.cli import main
watched, args = json.loads(sys.argv[1]), sys.argv[2:]
try:
    code = main(args)
except SystemExit as stop:
    code = stop.code
print(json.dumps(sorted(m for m in watched if m in sys.modules)))
sys.exit(code)
"""


def _run(data_dir, tmp_path, *args: str, watched=HEAVY) -> tuple[str, list[str]]:
    """What `docchat ARGS...` printed, and which of `watched` it imported."""
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(data_dir)}
    env.pop("DOCCHAT_DATABASE_URL", None)
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(watched), *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    printed, _, imported = done.stdout.rstrip("\n").rpartition("\n")
    return printed, json.loads(imported)


def test_help_opens_no_database_and_imports_no_settings_library_or_model(data_dir, tmp_path):
    printed, imported = _run(data_dir, tmp_path, "--help", watched=HEAVY + OPENED_BY_A_COMMAND + FORMAT_LIBRARIES)

    assert "conversations" in printed and "PDF, DOCX" in printed  # the commands, and `ingest`'s kinds
    assert imported == []
    assert not data_dir.exists()


def test_listing_conversations_imports_nothing_of_the_model_index_or_page(data_dir, tmp_path, services):
    services.conversations.create("Harbour trust deed")
    services.close()

    printed, imported = _run(data_dir, tmp_path, "conversations", "list")

    assert "Harbour trust deed" in printed
    assert imported == []


def test_listing_documents_imports_nothing_of_the_model_index_or_page(data_dir, tmp_path, services):
    services.close()  # the database made (its first start migrates it, with Alembic)

    printed, imported = _run(data_dir, tmp_path, "documents", "list")

    assert printed.startswith("No documents yet.")
    assert imported == []


def test_a_sync_with_nothing_changed_imports_nothing_of_the_model_index_or_page(
        data_dir, tmp_path, services, shared_embedder):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "rent-review.md").write_text("# Rent review\n\nThe rent is reviewed every fifth year.\n")
    (notes / "bread.txt").write_text("Knead the dough for ten minutes, then leave it to rise.\n")
    services.folders.add(str(notes))
    services.close()  # lets go of the index, as `docchat folders add` ends

    printed, imported = _run(data_dir, tmp_path, "folders", "sync")

    assert printed == "0 added, 0 changed, 0 removed, 2 unchanged, 0 refused"
    assert imported == []


@pytest.mark.parametrize("args", [("ask", "--help"), ("folders", "--help")], ids=" ".join)
def test_a_commands_help_imports_no_handler(data_dir, tmp_path, args):
    printed, imported = _run(data_dir, tmp_path, *args, watched=HEAVY + OPENED_BY_A_COMMAND + FORMAT_LIBRARIES)

    assert printed.startswith("usage: docchat")
    assert imported == []
