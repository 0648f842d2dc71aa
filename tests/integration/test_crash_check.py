"""The crash campaign's check can fail: it names a lost question, a cut import and vectors of
no document when the data dir holds them."""

from __future__ import annotations

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat_bench.crash_work import IMPORTED_MESSAGES, Paths, check

from tests.conftest import NO_SERVER


def test_the_next_start_check_names_a_lost_question_a_cut_import_and_stray_vectors(tmp_path, shared_embedder):
    paths = Paths(tmp_path)
    services = build_services(Settings(data_dir=paths.data, llm_url=NO_SERVER), contact_llm=False,
                              embedder=shared_embedder)
    cut = services.conversations.create("Imported lease question 3 (copy)")
    for n in range(IMPORTED_MESSAGES // 3):
        services.messages.append_message(cut.id, "user", f"question {n}")
    index = services.index.open()
    index.add("a-document-nobody-added", ["chunk-1"], shared_embedder.embed(["stray"]))
    services.close()

    found = check(paths, NO_SERVER, [("posted", "a-question-never-stored")])

    assert found.integrity == "ok"
    assert found.questions_lost == ["a-question-never-stored"]
    assert any("imported conversation" in problem and f"{IMPORTED_MESSAGES // 3} of" in problem
               for problem in found.orphans)
    assert "1 vectors of a document that is not in the database" in found.orphans
