"""The data of `docchat bench scale`: docchat exports of many conversations, made as the app
writes them (exchange.to_document), so that the bench imports them the way `docchat import` does.

Messages are deterministic prose from the memory bench's vocabulary, about 125 Qwen3 tokens each
(so 2,000 of them make the ~250K-token conversation), answers carrying a citation now and then.
Each short conversation is about one place (title and first question name it) and one case
number ("ZX-0417"): what a user searches for to find a conversation again.
"""

from __future__ import annotations

import io
import random
import uuid
import zipfile
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from docchat import __version__
from docchat_bench.memory import make_history
from docchat.domain import (NO_FACTS, AnswerFacts, Budget, Citation, Conversation, ConversationSettings, MemoryStats,
                            Message, Role, SessionMemory, TitleSource, utcnow)
from docchat.exchange import to_document, to_json

PLACES = ("Aldwych Holborn Kestrel Marylebone Pimlico Rotherhithe Southwark Tottenham Vauxhall Wapping "
          "Barbican Clerkenwell Deptford Greenwich Hackney Islington Kennington Limehouse Mortlake Nunhead "
          "Peckham Richmond Shoreditch Twickenham Walworth Bermondsey Camberwell Dalston Fulham Hampstead "
          "Kilburn Lambeth Mayfair Putney Stepney Tooting Whitechapel Brixton Chiswick Euston").split()
MODEL = "Qwen3-4B-Instruct-2507"
TOKENS_PER_MESSAGE = 125
CITED_SHARE = 0.3
# Passages a question is sent with, when its answer is drawn from the documents.
PASSAGES = 8


@dataclass(frozen=True)
class ExportFile:
    raw: bytes
    # The UTF-8 bytes of its messages' text, to set the store's size against.
    text_bytes: int


def case_number(n: int) -> str:
    return f"ZX-{n:04}"


def short_conversations(count: int, messages: int, counter, *, seed: int = 13) -> ExportFile:
    """`count` conversations of `messages` messages, as one zip of exports (`export --all`);
    the n-th was last updated n/2 days ago."""
    rng, now = random.Random(seed), utcnow()
    prose = _prose(count * messages, counter, seed=seed)
    text_bytes = 0
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for n in range(count):
            place = PLACES[n % len(PLACES)]
            texts = prose[n * messages:(n + 1) * messages]
            texts[0] = f"About the {place} lease, case {case_number(n)}: {texts[0]}"
            text_bytes += sum(len(text.encode()) for text in texts)
            updated = now - timedelta(days=n / 2)
            conversation_id, document = export(f"{place} lease, case {case_number(n)}", texts, counter, rng,
                                               updated=updated)
            archive.writestr(f"{conversation_id}.json", document)
    return ExportFile(buffer.getvalue(), text_bytes)


def long_conversation(messages: int, counter, *, title: str, seed: int) -> ExportFile:
    """One conversation of `messages` messages of about 125 tokens each."""
    texts = _prose(messages, counter, seed=seed)
    _, document = export(title, texts, counter, random.Random(seed), updated=utcnow())
    return ExportFile(document, sum(len(text.encode()) for text in texts))


def _prose(messages: int, counter, *, seed: int) -> list[str]:
    """The memory bench's messages: 2,000 of them are its ~250K-token conversation."""
    history = make_history(counter, messages=messages, target_tokens=TOKENS_PER_MESSAGE * messages, seed=seed)
    return [text for _, text in history]


def export(title: str, texts: list[str], counter, rng: random.Random, *, updated: datetime) -> tuple[str, bytes]:
    """The id and JSON export of a conversation of `texts`, alternately asked and answered."""
    conversation, messages = _conversation(title, texts, counter, rng, updated=updated)
    document = to_document(conversation, messages, [], app_version=__version__, exported_at=updated)
    return conversation.id, to_json(document).encode("utf-8")


def as_the_app_writes(messages: int, counter, *, title: str, seed: int) -> tuple[Conversation, list[Message]]:
    """A conversation of `messages` messages as chatting with documents leaves it, which an
    export does not carry: each question with the passages it was sent with (`sent_content`,
    PASSAGES of them), each answer with its budget and memory figures."""
    rng = random.Random(seed)
    texts = _prose(messages, counter, seed=seed)
    conversation, stored = _conversation(title, texts, counter, rng, updated=utcnow())
    written = []
    for message in stored:
        if message.role is Role.USER:
            passages = "\n\n".join(f"[{n}] Lease agreement.pdf, page {rng.randint(1, 300)}: {rng.choice(texts)}"
                                    for n in range(1, PASSAGES + 1))
            written.append(replace(message, sent_content=f"{passages}\n\nQuestion: {message.content}"))
        else:
            written.append(message.with_facts(budget=_budget(message.seq), stats=_stats(message.seq, counter)))
    return conversation, written


def _conversation(title: str, texts: list[str], counter, rng: random.Random, *,
                  updated: datetime) -> tuple[Conversation, list[Message]]:
    """A conversation of `texts`, alternately asked and answered."""
    conversation_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    started = updated - timedelta(minutes=len(texts))
    conversation = Conversation(id=conversation_id, title=title, created_at=started, updated_at=updated,
                                settings=_settings(rng, turns=len(texts) // 2))
    messages, parent = [], None
    for seq, text in enumerate(texts, start=1):
        role = Role.USER if seq % 2 else Role.ASSISTANT
        answer = role is Role.ASSISTANT
        message = Message(
            id=str(uuid.UUID(int=rng.getrandbits(128), version=4)), conversation_id=conversation_id, seq=seq,
            role=role, content=text, created_at=started + timedelta(minutes=seq),
            token_count=counter.count_message(role.value, text), tokenizer=counter.id,
            parent_id=parent,
            facts=AnswerFacts(
                citations=_citations(rng, texts[seq - 2]) if rng.random() < CITED_SHARE else [], model=MODEL,
                usage={"prompt_tokens": 125 * seq, "completion_tokens": 125}) if answer else NO_FACTS,
        )
        messages.append(message)
        parent = message.id
    return conversation, messages


def _budget(seq: int) -> Budget:
    """An answer's prompt budget in a 262K window, the history growing with the conversation."""
    history = TOKENS_PER_MESSAGE * (seq - 2)
    return Budget(max_model_len=262_144, answer_reserve=16_384, system=412, history=history, question=40,
                  template=24, history_messages=seq - 2, dropped_messages=0, counter=MODEL, exact=True,
                  chunks=PASSAGES * 256, history_share=history, mode="passages", passages=PASSAGES,
                  chunks_cap=60_000)


def _stats(seq: int, counter) -> MemoryStats:
    return MemoryStats(total_messages=seq, total_tokens=TOKENS_PER_MESSAGE * seq, kept_verbatim=seq - 1, summarised=0,
                       summary_version=None, summary_created_at=None, summary_created=False, compactions=0,
                       counter=counter.id, memory_ms=0.9, rewritten_query="What does the lease say about it?",
                       rewrite_method="dspy")


def _settings(rng: random.Random, *, turns: int) -> ConversationSettings:
    """What a conversation that was chatted in keeps: a titled thread with its session memory."""
    document = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return ConversationSettings(
        title_source=TitleSource.MODEL,
        session=SessionMemory(resolved_terms={"the lease": f"the {rng.choice(PLACES)} lease",
                                              "the rent review": f"clause {rng.randint(2, 40)}"},
                              active_documents=(document,),
                              sections_seen=tuple(f"{document}#{rng.randint(1, 300)}" for _ in range(3)), turns=turns),
        compactions=turns // 400,
    )


def _citations(rng: random.Random, question: str) -> list[Citation]:
    """One source, its passage cut from the question (the vocabulary of the documents)."""
    page = rng.randint(1, 300)
    return [Citation(number=1, document="Lease agreement.pdf", where=f"page {page}", page=page,
                     text=" ".join(question.split()[:30]), document_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                     chunk_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)), score=round(rng.random(), 4))]
