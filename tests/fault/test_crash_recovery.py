"""A process killed with SIGKILL mid-work, and the next start: the partial answer is kept and
marked interrupted at once, a half-ingested document goes entirely, and nothing of a process
that still runs is touched."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.domain import Role, Status

ROOT = Path(__file__).resolve().parents[2]
# Streams the fake server's slow answer, says how far it got, and waits to be killed (or kills
# itself: the crash) once `pieces` have arrived: checkpoints are a second apart.
ANSWERING = """
import os, signal, sys
from docchat.bootstrap import build_services
from docchat.config import Settings
url, pieces, then = sys.argv[1], int(sys.argv[2]), sys.argv[3]
services = build_services(Settings(llm_url=url, context_programs=False))
turn = services.chat.answer(None, "What does clause 7 of the Harbour Street lease say?")
text = ""
for n, delta in enumerate(turn, 1):
    text += delta
    if n == pieces:
        print(turn.draft.id, repr(text), flush=True)
        if then == "crash":
            os.kill(os.getpid(), signal.SIGKILL)
        sys.stdin.readline()
"""
# An embedder that kills its process on its second call: the crash in the middle of an ingestion.
DIES_ON_SECOND_EMBEDDING = """
import os, signal, sys
from pathlib import Path
from docchat.bootstrap import build_services
from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder

class DiesOnSecondCall(OnnxMiniLMEmbedder):
    calls = 0
    def embed(self, texts):
        self.calls += 1
        if self.calls == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().embed(texts)
"""
# Ingests a document of several embedding batches and dies during the second.
INGESTING = DIES_ON_SECOND_EMBEDDING + """
services = build_services(contact_llm=False, embedder=DiesOnSecondCall())
services.ingestion.ingest("kept.txt", Path(sys.argv[1]).read_bytes())
print("kept", flush=True)
services.ingestion.ingest("cut.txt", Path(sys.argv[2]).read_bytes())
"""


def _answering(url: str, pieces: int, then: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", ANSWERING, url, str(pieces), then], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_an_answer_cut_off_by_sigkill_is_marked_interrupted_at_the_next_start_with_its_text(data_dir, fake_llm):
    fake_llm.mode = "slow"  # 40 pieces, 0.2 s apart
    crashed = _answering(fake_llm.url + "/v1", 15, "crash")
    out, err = crashed.communicate(timeout=60)
    assert crashed.returncode == -signal.SIGKILL, err[-2000:]
    answer_id, received = out.split(" ", 1)

    services = build_services(Settings(llm_url=fake_llm.url + "/v1", context_programs=False), contact_llm=False)

    [conversation] = services.conversations.list()
    question, answer = services.messages.history(conversation.id)
    assert question.role is Role.USER and question.content.startswith("What does clause 7")
    assert answer.id == answer_id and answer.status is Status.INTERRUPTED
    # What the last checkpoint saved: some of what had arrived, never more.
    assert answer.content and eval(received).startswith(answer.content)


def test_a_start_beside_a_process_still_answering_leaves_its_answer_streaming(data_dir, fake_llm):
    fake_llm.mode = "slow"
    running = _answering(fake_llm.url + "/v1", 8, "wait")
    try:
        answer_id = running.stdout.readline().split(" ", 1)[0]
        beside = build_services(Settings(llm_url=fake_llm.url + "/v1"), contact_llm=False)
        [conversation] = beside.conversations.list()
        answer = beside.messages.history(conversation.id)[-1]
        assert answer.id == answer_id and answer.status is Status.STREAMING
        beside.close()
    finally:
        running.kill()
        running.wait(timeout=30)
    after = build_services(Settings(llm_url=fake_llm.url + "/v1"), contact_llm=False)
    assert after.messages.history(conversation.id)[-1].status is Status.INTERRUPTED


def test_a_document_cut_off_mid_ingestion_goes_entirely_when_the_index_next_opens(data_dir, tmp_path):
    kept, cut = tmp_path / "kept.txt", tmp_path / "cut.txt"
    kept.write_text("The Harbour Street lease runs for ten years from the first of May.\n")
    # About 80 chunks: more than one embedding batch, so the kill lands between two.
    cut.write_text("\n\n".join(f"Clause {n}. The tenant shall keep the premises at {n} Harbour Street "
                               f"in good repair, and notify the landlord of defect {n} within {n % 9 + 1} days. " * 12
                               for n in range(80)))
    ingest = subprocess.run([sys.executable, "-c", INGESTING, str(kept), str(cut)], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert ingest.returncode == -signal.SIGKILL and ingest.stdout == "kept\n", ingest.stderr[-2000:]
    files = sorted(p.name for p in (data_dir / "documents").glob("*/*"))
    assert any(name.endswith("cut.txt") for name in files)  # the crash did leave it behind

    services = build_services(contact_llm=False)
    index = services.index.open()

    [document] = services.documents.list()
    assert document.name == "kept.txt"
    assert index.count() == document.chunks
    assert {document_id for _, document_id, _ in index.vectors()} == {document.id}
    assert [p.name for p in (data_dir / "documents").glob("*/*")] == [Path(document.path).name]
    # Adding the file again now works as a first time.
    again = services.ingestion.add("cut.txt", cut.read_bytes())
    assert not again.already_present and index.count() == document.chunks + again.document.chunks
