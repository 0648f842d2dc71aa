"""What a command that has just started does before its question reaches the model: the schema
check without Alembic, no LlamaIndex, OpenAI SDK or torch on the way to an answer, and a
document index opened early (as `docchat chat` opens it while the first question is typed)
answering exactly as one opened at the first search."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.store.engine import make_engine
from docchat.store.migrate import current_revision, newest_revision, upgrade

from tests.databases import head_revision
from tests.integration.sample_documents import COOKERY_PASSAGES, TRUST_PASSAGES, markdown

QUESTION = "When is the Determination Date?"
# Loaded only when they are used: a question answered from the documents needs none of them.
HEAVY = ("llama_index", "openai", "torch", "transformers", "sentence_transformers", "dspy", "litellm", "alembic",
         "pypdf", "docx", "bs4", "pypdfium2", "pptx", "openpyxl", "python_calamine",
         "PIL")


def test_the_newest_migration_is_read_from_the_files_as_alembic_finds_it():
    assert newest_revision() == head_revision()


def test_a_database_one_migration_behind_is_still_upgraded_at_start(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'docchat.db'}", busy_timeout_s=5)
    upgrade(engine, "0005")

    upgrade(engine)

    assert current_revision(engine) == head_revision()


def _answer(data_dir, fake_llm, *, early: bool):
    """Asks QUESTION through services built over `data_dir`; the answer's citations and the
    passages sent to the model. The services let go of the index afterwards."""
    settings = Settings(data_dir=data_dir, llm_url=f"{fake_llm.url}/v1", context_programs=False)
    services = build_services(settings, open_documents_early=early)
    try:
        turn = services.chat.answer(None, QUESTION)
        turn.text()
        return [(c.document, c.chunk_id) for c in turn.answer.facts.citations], fake_llm.requests[-1]["messages"][-1]
    finally:
        services.close()


@pytest.fixture
def two_books(services, library, data_dir):
    """The trust deed and the kitchen notebook, ingested; the index let go, as after `docchat ingest`."""
    library.ingestion.ingest("harbour-trust.md", markdown(TRUST_PASSAGES))
    library.ingestion.ingest("kitchen-notebook.md", markdown(COOKERY_PASSAGES))
    services.close()
    return data_dir


def test_an_answer_whose_documents_opened_early_cites_what_a_late_opening_cites(two_books, fake_llm):
    late_citations, late_sent = _answer(two_books, fake_llm, early=False)
    early_citations, early_sent = _answer(two_books, fake_llm, early=True)

    assert early_citations == late_citations
    assert early_citations[0][0] == "harbour-trust.md"
    assert early_sent == late_sent


def test_an_index_held_elsewhere_when_opened_early_leaves_the_answer_to_keywords_as_before(
        two_books, fake_llm, caplog):
    holder = build_services(Settings(data_dir=two_books))
    holder.index.open()  # another process holding the folder, as the running app does
    try:
        citations, _ = _answer(two_books, fake_llm, early=True)
    finally:
        holder.close()

    assert citations and citations[0][0] == "harbour-trust.md"  # found by its words
    assert "searching by keywords only" in caplog.text
    assert "open in another docchat process" in caplog.text


def test_asking_from_the_documents_imports_no_llamaindex_openai_sdk_torch_or_parsers(two_books, fake_llm, tmp_path):
    script = (
        "import json, sys\n"
        "from docchat.cli import main\n"
        "code = main(['ask', '--json', sys.argv[1]])\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
        "sys.exit(code)\n"
    )
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(two_books), "DOCCHAT_LLM_URL": f"{fake_llm.url}/v1",
           # The title, written after the answer, is DSPy's: off, so that only the answer's path is seen.
           "DOCCHAT_CONTEXT_PROGRAMS": "false"}
    done = subprocess.run([sys.executable, "-c", script, QUESTION], env=env, capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)

    assert done.returncode == 0, done.stderr
    printed, imported = done.stdout.rstrip("\n").rsplit("\n", 1)
    assert json.loads(imported) == []
    answer = json.loads(printed)
    assert answer["citations"][0]["document"] == "harbour-trust.md"
    # Beside the passages given: those the answer cited, and its check (the check imports nothing heavy).
    assert isinstance(answer["cited"], list) and answer["citation_check"]["sentences"] is not None
    # Whether the documents held the answer comes with it: the trust agreement defines the date.
    assert answer["evidence"]["judgement"] == "found"
    # How it was answered: one fact, looked up in the passages that hold it.
    assert (answer["plan"], answer["coverage"]) == ("lookup", None)


def test_services_closed_before_their_first_question_let_go_of_the_index_opened_early(two_books, fake_llm):
    settings = Settings(data_dir=two_books, llm_url=f"{fake_llm.url}/v1", context_programs=False)
    build_services(settings, open_documents_early=True).close()

    after = build_services(settings)
    try:
        assert after.index.open().count() == len(TRUST_PASSAGES) + len(COOKERY_PASSAGES)
    finally:
        after.close()
