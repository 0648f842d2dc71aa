"""The answer pipeline: one way from a question and its history to a planned prompt.

rewrite -> find evidence (whole documents, or passages within their budget) -> keep the
question -> plan and assemble (condensing when the history outgrows its share).
Stored conversations, stateless answers, the CLI and the page all come through here; they
differ only in where the history comes from and how the question is kept (`keep_question`:
stored first, before any answer is asked for; or only built in memory).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Callable

from docchat.context.approach import as_asked, choose, names_any
from docchat.context.engine import Assembly, ContextEngine
from docchat.context.evidence import Block, Part, block_text, fill, parts_of
from docchat.context.followup import joint_query, retrieve_follow_up
from docchat.context.model_queries import ModelQueries
from docchat.context.prompt import user_turn
from docchat.context.rounds import (NOTE_TOKENS_MIN, Round, borne_out, heading, in_rounds, noted, notes_asked,
                                    notes_turn, quoted_notes, passage_counts)
from docchat.context.rewrite import RECENT_MESSAGES, RewriteGate, rewrite_due, standalone_query
from docchat.domain import Budget, Citation, EvidenceStrength, Judgement, MemoryStats, Message, Role, Summary
from docchat.domain.approach import LOOKUP, Approach, Coverage, Figure, Way, approach_line, listed
from docchat.grounding.evidence import judge, passage_strength
from docchat.errors import LLMError
from docchat.ports import Figures, Gateway, Retriever, TokenCounter
from docchat.retrieval.quotas import in_turns

log = logging.getLogger(__name__)

# One passage is asked of retrieval per this many tokens of the budget (then merged and cut to fit).
TOKENS_PER_CANDIDATE = 96
# In whole-document mode, the parts shown as an answer's sources: the best for the question.
DOCUMENT_SOURCES = 4
# Blocks kept counted, by the chunks they are made of: counting 200K tokens costs a while.
BLOCKS_KEPT = 8
# Around the passages in a user turn ("Context:\n", numbers, "Question: "), an upper bound.
PASSAGE_FRAME_TOKENS = 8
PASSAGE_SEPARATOR_TOKENS = 6
# A sheet's section label ends in the rows it holds ("Stock, rows 2-19"; docchat.documents.kinds.sheets).
_ROWS = re.compile(r"\brows? (\d+)(?:-(\d+))?$")
# Why a comparison or the collection left a document out (its coverage says so, by name).
LEFT_OUT_NO_MATCH = "nothing in it matched the question"
LEFT_OUT_NO_ROOM = "no room left in the window for its passages"
# Around each round's notes in the answer's turn besides its heading (separators, the turn's own
# heading and question shared out), an upper bound.
ROUND_FRAME_TOKENS = 16
# docchat's own notes on a round are cut by characters, at fewer than any tokenizer gives for English.
CHARS_PER_TOKEN = 3


@dataclass(frozen=True)
class PassageLimits:
    floor: int = 2
    ceiling: int = 256


@dataclass(frozen=True)
class Request:
    """A question and what the pipeline needs to know of its conversation."""

    question: str
    history: list[Message]  # after the summary in force, oldest first; the question not included
    summary: Summary | None = None
    conversation_id: str = ""
    scope: list[str] | None = None  # document ids; None: every document
    active_documents: frozenset[str] = frozenset()
    cited_chunks: frozenset[str] = frozenset()  # what the previous answer cited
    recent: list[Message] | None = None  # for the rewriter; default: the end of `history`
    total_messages: int | None = None  # before the question; default: the history's
    total_tokens: int | None = None
    compactions: int = 0
    may_condense: bool = True
    instructions: str = ""  # the conversation's own, after the system prompt
    # At most this many passages, always retrieved into the user turn (never whole documents).
    max_passages: int | None = None
    # The plan the user asked for when asking again; None: docchat chooses.
    plan: Way | None = None
    # The answer is to be quoted from the passages by docchat, not written by the model: a
    # collection too large for one prompt is noted by docchat, with no model reading it in rounds.
    quoting: bool = False


@dataclass(frozen=True)
class Evidence:
    mode: str = "none"
    block: Block | None = None
    parts: tuple[Part, ...] = ()
    citations: tuple[Citation, ...] = ()
    searched: bool = False  # the library was searched for this question
    # Whether the documents hold the answer, judged from the ranking; None when nothing was
    # searched or there was nothing to search (no documents in scope).
    strength: EvidenceStrength | None = None
    approach: Approach = LOOKUP
    # For a comparison or the collection: how many of its documents gave passages.
    coverage: Coverage | None = None
    figure: Figure | None = None  # for a table plan: what docchat computed
    # The collection read in rounds: the answer is written from their notes (context.rounds).
    rounds: tuple[Round, ...] = ()

    def sent(self, question: str) -> str | None:
        """The user turn as sent, when it is not the bare question."""
        if self.rounds:
            return notes_turn(question, self.rounds)
        passages = [part.source for part in self.parts]
        return user_turn(question, passages) if passages else None


@dataclass(frozen=True)
class Prepared:
    question: Message
    assembly: Assembly
    budget: Budget
    stats: MemoryStats
    citations: list[Citation]
    evidence: EvidenceStrength | None = None
    approach: Approach = LOOKUP
    coverage: Coverage | None = None
    figure: Figure | None = None


class AnswerPipeline:
    def __init__(self, engine: ContextEngine, counter: TokenCounter, *, programs=None,
                 retriever: Retriever | None = None, figures: Figures | None = None,
                 limits: PassageLimits = PassageLimits(),
                 rewrite_gate: RewriteGate | None = None, gateway: Gateway | None = None,
                 queries: ModelQueries | None = None):
        """`gateway`: the model that reads a collection too large for one prompt in rounds
        (none: such a collection leaves documents out, and says which); `figures`: the tables
        figures are computed over (none: the passages answer every question); `queries`: the
        model asked for a query over a sheet when docchat writes none (none: the passages answer)."""
        self._engine = engine
        self._gateway = gateway
        self._counter = counter
        self._programs = programs
        self._rewrite_gate = rewrite_gate
        self._queries = queries
        self._retriever = retriever
        self._figures = figures if retriever is not None else None  # a figure's rows are retrieved
        self._limits = limits
        self._blocks: OrderedDict[tuple, Block] = OrderedDict()
        self._blocks_lock = threading.Lock()  # the page answers several sessions at once

    def prepare(self, request: Request, *, max_model_len: int, answer_reserve: int,
                keep_question: Callable[[str | None, str | None], Message],
                progress: Callable[[str], None] = lambda stage: None) -> Prepared:
        """`keep_question(sent_content, rewritten_query)` keeps the question and returns it
        with its seq and token count; it is called before anything can condense or answer.
        `progress(stage)` is told, in words, what takes time (a page shows it)."""
        started = time.perf_counter()
        question_tokens = self._counter.count_message("user", request.question)
        # Only the question itself can make it too long: refused here, before anything is kept.
        plan = self._engine.refuse_if_too_long(question_tokens, max_model_len, answer_reserve, request.instructions)
        recent = request.recent if request.recent is not None else request.history[-RECENT_MESSAGES:]
        if rewrite_due(self._programs, recent, request.question, self._rewrite_gate):
            progress("Reading the question with the conversation…")
        rewritten = standalone_query(self._programs, recent, request.question, self._rewrite_gate)
        in_scope = self._retriever.in_scope(request.scope) if self._retriever is not None else []
        approach, figure = self._approach(request, rewritten or request.question, in_scope, progress)
        if self._retriever is not None:
            progress(f"{approach_line(approach, len(in_scope))}…")
        evidence = self._evidence(request, rewritten or request.question, question_tokens, plan, approach, in_scope,
                                  figure, progress)
        method = "rewriter" if rewritten else "none"
        if rewritten is None and evidence.searched:
            # Read with the previous question as well (the stored "searched as" says so).
            rewritten = joint_query(request.question, _questions(request.history))
            method = "history" if rewritten else "none"
        sent = evidence.sent(request.question)
        question = keep_question(sent, rewritten)
        if question.model_text != (sent or request.question):
            # Asked again, and kept as it was sent then (passages and all); judged as searched now.
            evidence = Evidence(strength=evidence.strength, approach=evidence.approach, coverage=evidence.coverage,
                                figure=evidence.figure)
        block = evidence.block
        progress("Fitting the conversation into the window…")
        assembly = self._engine.assemble(
            conversation_id=request.conversation_id, tail=request.history + [question], summary=request.summary,
            max_model_len=max_model_len, answer_reserve=answer_reserve, may_condense=request.may_condense,
            documents=block.text if block else None, document_tokens=block.tokens if block else 0,
            passage_tokens=question.token_count - question_tokens, instructions=request.instructions,
        )
        total_messages = (len(request.history) if request.total_messages is None else request.total_messages) + 1
        budget = self._budget(assembly, total_messages, evidence)
        summary = assembly.summary
        stats = MemoryStats(
            total_messages=total_messages,
            total_tokens=(sum(m.token_count or 0 for m in request.history) if request.total_tokens is None
                          else request.total_tokens) + question.token_count,
            kept_verbatim=len(assembly.history) + 1,
            summarised=(summary.last_seq - summary.first_seq + 1) if summary else 0,
            summary_version=summary.version if summary else None,
            summary_created_at=summary.created_at if summary else None,
            summary_created=assembly.new_summary is not None,
            compactions=request.compactions + int(assembly.new_summary is not None or bool(assembly.truncated)),
            counter=self._counter.id, memory_ms=round((time.perf_counter() - started) * 1000, 2),
            rewritten_query=rewritten, rewrite_method=method,
        )
        return Prepared(question, assembly, budget, stats, list(evidence.citations), evidence.strength,
                        evidence.approach, evidence.coverage, evidence.figure)

    def _approach(self, request: Request, query: str, in_scope: list[tuple[str, str]],
                  progress: Callable[[str], None]) -> tuple[Approach, Figure | None]:
        """The plan, and the figure a table plan computed: a figure asked of a sheet in scope is
        computed first, whatever else the question could be read as; by docchat's own query, or
        else by one the served model writes, where it has shown it can."""
        figure = None
        if self._figures is not None and request.plan in (None, Way.TABLE):
            figure = self._figures.figure(query, in_scope)
            if figure is not None and request.plan is None and not self._about(
                    request, query, {figure.document_id: (figure.document, figure.sheet)}, in_scope,
                    linked={figure.document_id: figure.named}):
                figure = None
            elif figure is None and self._queries is not None and self._queries.due(query):
                figure = self._written(self._queries, request, query, in_scope, progress)
        if figure is not None:
            return Approach(Way.TABLE, (figure.document_id,), (f"{figure.document} › {figure.sheet}",)), figure
        return choose(query, in_scope, request.plan), None

    def _written(self, queries: ModelQueries, request: Request, query: str, in_scope: list[tuple[str, str]],
                 progress: Callable[[str], None]) -> Figure | None:
        """The figure of the query the served model writes over the sheets the question is about."""
        figures = self._figures
        if figures is None:
            return None
        names = dict(in_scope)
        shapes = figures.sheets(in_scope)
        if shapes and request.plan is None:
            about = self._about(request, query, {s.document_id: (names[s.document_id], s.sheet) for s in shapes},
                                in_scope)
            shapes = [shape for shape in shapes if shape.document_id in about]
        if not shapes:
            return None
        progress(f"Asking the model for a query over {listed(list(dict.fromkeys(s.sheet for s in shapes)))}…")
        return queries.figure(figures, query, shapes, names)

    def _about(self, request: Request, query: str, sheets: dict[str, tuple[str, ...]],
               in_scope: list[tuple[str, str]], linked: dict[str, tuple[str, ...]] | None = None) -> set[str]:
        """Of the documents with sheets (their names and their sheets' by id), those a figure
        would answer this question from, not merely share a column's name with it ("how many
        days' notice does the lease ask for" and a sheet's `Days`): the only document in scope,
        one the question names (or one of its sheets), or the one holding the passage that
        answers the question best. `linked`: the cell values of each one's sheet that the question
        names ("invoiced to Harbour Supply"); a passage of another document that ranks first but
        holds none of them does not answer the question better (it may rank first for being in
        a document the conversation already used)."""
        if len(in_scope) == 1:
            return set(sheets)
        named = {document for document, names in sheets.items() if names_any(query, names)}
        if named:
            return named
        best = self._retriever.retrieve(query, top_k=1, document_ids=request.scope,
                                        active=set(request.active_documents))
        if not best:
            return set()
        if best[0].chunk.document_id in sheets:
            return {best[0].chunk.document_id}
        text = best[0].chunk.text.casefold()
        return {document for document, values in (linked or {}).items()
                if values and not any(value.casefold() in text for value in values)}

    # evidence

    def _evidence(self, request: Request, query: str, question_tokens: int, plan, approach: Approach,
                  in_scope: list[tuple[str, str]], figure: Figure | None = None,
                  progress: Callable[[str], None] = lambda stage: None) -> Evidence:
        if self._retriever is None:
            return Evidence()
        cap = plan.cap("chunks")
        # Past the floor, passages may take the history's room, never more.
        room = plan.available - plan.system - plan.cap("summary") - question_tokens
        if figure is not None:
            ceiling = min(self._limits.ceiling, request.max_passages or self._limits.ceiling)
            return self._computed(request, query, approach, figure, cap, room, ceiling=ceiling)
        block = self._block(request.scope, cap) if request.max_passages is None else None
        if block is not None:
            ranked = self._ranked(request, query, DOCUMENT_SOURCES)
            if approach.way in (Way.COMPARE, Way.COLLECTION):
                ranked = self._each_sourced(request, query, ranked, list(approach.documents) or
                                            [document for document, _ in in_scope])
            numbered = [(block.number_of(hit.chunk.id), hit) for hit in ranked]
            return Evidence("documents", block=block, searched=bool(ranked),
                            strength=as_asked(_judged(ranked), approach, query, in_scope),
                            citations=tuple(hit.citation(n) for n, hit in numbered if n is not None),
                            approach=approach,
                            coverage=_whole_coverage(approach, block, len(in_scope)))
        # A request's own limit caps the passages, not the candidates: a follow-up needs a
        # pool to fuse its two readings from.
        ceiling = min(self._limits.ceiling, request.max_passages or self._limits.ceiling)
        floor = min(self._limits.floor, ceiling)
        top_k = min(self._limits.ceiling, max(floor, cap // TOKENS_PER_CANDIDATE, 1))
        if approach.way in (Way.COMPARE, Way.COLLECTION):
            documents = list(approach.documents) or [document for document, _ in in_scope]
            return self._per_document(request, query, approach, documents, dict(in_scope), top_k, cap, room,
                                      floor=floor, ceiling=ceiling, progress=progress)
        while True:
            ranked = self._ranked(request, query, top_k)
            parts = self._fill(request.question, ranked, cap, room, floor=floor, ceiling=ceiling)
            # Every candidate fitted: there may be room for more (chunks smaller than guessed).
            if (len(parts) >= ceiling or sum(len(p.chunk_ids) for p in parts) < top_k or len(ranked) < top_k
                    or top_k >= self._limits.ceiling):
                break
            top_k = min(self._limits.ceiling, top_k * 2)
        return _passages(parts, searched=bool(ranked), strength=_judged(ranked))

    def _per_document(self, request: Request, query: str, approach: Approach, documents: list[str],
                      names: dict[str, str], top_k: int, cap: int, room: int, *, floor: int, ceiling: int,
                      progress: Callable[[str], None]) -> Evidence:
        """Each document's own best passages, taken in turns into the room, then laid out side by
        side in the documents' order (the order a comparison names them in). Each turn goes from
        the document whose best passage is closest to the question down, so that when the room
        runs out, the documents left out are those that hold the least of it."""
        found = self._retriever.retrieve_each(query, documents, top_k=max(floor, -(-top_k // len(documents))),
                                              active=set(request.active_documents))
        rankings = sorted((found[document] for document in documents if found.get(document)),
                          key=lambda ranking: -passage_strength(ranking[0]))
        ranked = in_turns(rankings)
        parts = self._fill(request.question, ranked, cap, room, floor=floor, ceiling=ceiling)
        place = {document: n for n, document in enumerate(documents)}
        parts.sort(key=lambda part: place[part.first.chunk.document_id])
        read = {part.first.chunk.document_id for part in parts}
        strength = as_asked(_judged(sorted(ranked, key=lambda hit: -hit.score)), approach, query, list(names.items()))
        if approach.way is Way.COLLECTION and any(found.get(d) for d in documents if d not in read):
            rounds = self._rounds(request, query, rankings, cap, room, floor=floor, ceiling=ceiling, progress=progress)
            if rounds:
                parts = [part for one in rounds for part in one.parts]
                read = {part.first.chunk.document_id for part in parts}
        else:
            rounds = []
        left_out = tuple((names.get(document, document), LEFT_OUT_NO_ROOM if found.get(document) else LEFT_OUT_NO_MATCH)
                         for document in documents if document not in read)
        coverage = Coverage(len(read), len(documents), left_out, rounds=1 if request.quoting else max(1, len(rounds)))
        return replace(_passages(parts, searched=bool(ranked), strength=strength, approach=approach, coverage=coverage),
                       rounds=tuple(rounds))

    def _each_sourced(self, request: Request, query: str, ranked: list, documents: list[str]) -> list:
        """`ranked`, then the best passage of each of `documents` none of them is from: whole
        documents are cited by their passages, and the best four of twelve contracts would leave
        eight unsourced (a quoted answer could quote none of them)."""
        sourced = {hit.chunk.document_id for hit in ranked}
        found = self._retriever.retrieve_each(query, [d for d in documents if d not in sourced], top_k=1,
                                              active=set(request.active_documents))
        best = sorted((hits[0] for hits in found.values() if hits), key=lambda hit: -passage_strength(hit))
        return [*ranked, *best]

    def _rounds(self, request: Request, query: str, rankings: list, cap: int, room: int, *, floor: int, ceiling: int,
                progress: Callable[[str], None]) -> list[Round]:
        """The collection read in rounds of notes (docchat.context.rounds); none when there is no
        model to read them, they would be one, or a round fails (one prompt then answers). An
        answer docchat quotes reads no model's notes: docchat's own stand in for them, so that
        every document gives its passages to quote, in no time (a small model's two rounds took
        16-126 s of a collection answer then quoted)."""
        if self._gateway is None and not request.quoting:
            return []
        planned = in_rounds(rankings, lambda ranked: self._fill(request.question, ranked, cap, room, floor=floor,
                                                                ceiling=ceiling))
        if len(planned) < 2:
            return []
        # Every round's notes go into the answer's one turn, under their headings, within the passage budget.
        framed = sum(self._counter.count_text(heading(n, one)) + ROUND_FRAME_TOKENS
                     for n, one in enumerate(planned, start=1))
        note_tokens = max(NOTE_TOKENS_MIN, (cap - framed) // len(planned))
        system = self._engine.system_prompt(request.instructions)
        counts = passage_counts(planned)
        if request.quoting or self._gateway is None:
            return [replace(one, notes=quoted_notes(query, one, note_tokens * CHARS_PER_TOKEN, counts)) for one in planned]
        rounds = []
        for n, one in enumerate(planned, start=1):
            progress(f"Reading the documents in {len(planned)} rounds: round {n} of {len(planned)} "
                     f"({len(one.documents)} documents)…")
            try:
                notes = borne_out(noted(self._gateway, notes_asked(system, query, one), note_tokens), one)
            except LLMError as error:
                log.warning("reading the collection in rounds failed, so one prompt answers: %s", error)
                return []
            rounds.append(replace(one, notes=notes or quoted_notes(query, one, note_tokens * CHARS_PER_TOKEN, counts)))
        return rounds

    def _computed(self, request: Request, query: str, approach: Approach, figure: Figure, cap: int,
                  room: int, *, ceiling: int) -> Evidence:
        """The figure first, as docchat computed it, then the sheet's own passages, those holding
        the rows it read before the others: the model words the answer, the figure is exact, and
        the sheet holds it (found, whatever the passages' closeness to the question's words)."""
        top_k = max(self._limits.floor, cap // TOKENS_PER_CANDIDATE)
        ranked = self._retriever.retrieve_each(query, [figure.document_id], top_k=top_k,
                                               active=set(request.active_documents)).get(figure.document_id, [])
        holding = [hit for hit in ranked if _holds(hit.chunk.label, figure.rows)]
        ranked = holding + [hit for hit in ranked if hit not in holding]
        if not ranked:
            return Evidence(searched=True, approach=approach)
        computed = Part(ranked[0], figure.statement, (ranked[0].chunk.id,))
        spent = self._counter.count_text(computed.source) + PASSAGE_SEPARATOR_TOKENS
        parts = self._fill(request.question, ranked, cap - spent, room - spent, floor=0, ceiling=max(0, ceiling - 1))
        judged = _judged(ranked)
        strength = EvidenceStrength(Judgement.FOUND, judged.score if judged else 1.0)
        return replace(_passages([computed, *parts], searched=True, strength=strength, approach=approach), figure=figure)

    def _ranked(self, request: Request, query: str, top_k: int):
        def retrieve(text: str):
            return self._retriever.retrieve(text, top_k=top_k, document_ids=request.scope,
                                            active=set(request.active_documents))

        return retrieve_follow_up(retrieve, query, _questions(request.history), request.cited_chunks)

    def _fill(self, question: str, ranked, cap: int, room: int, *, floor: int, ceiling: int) -> list[Part]:
        """Passages within `cap` (the floor within `room`), by the exact count of the user turn.

        Filling counts each passage alone plus a separator, first at an upper bound, then at
        the separator's measured size; the exact count of the whole turn has the last word."""
        counted: dict[str, int] = {}
        bare = self._counter.count_message("user", question)

        def text_tokens(part: Part) -> int:
            if part.source not in counted:
                counted[part.source] = self._counter.count_text(part.source)
            return counted[part.source]

        def exact(parts: list[Part]) -> int:
            return self._counter.count_message("user", user_turn(question, [p.source for p in parts])) - bare

        def filled(separator: int) -> list[Part]:
            def tokens(parts: list[Part]) -> int:
                return PASSAGE_FRAME_TOKENS + sum(text_tokens(part) + separator for part in parts)

            return fill(ranked, fits=lambda trial: tokens(trial) <= cap, fits_window=lambda trial: tokens(trial) <= room,
                        floor=floor, ceiling=ceiling)

        parts = filled(PASSAGE_SEPARATOR_TOKENS)
        if parts:
            measured = -(-(exact(parts) - sum(text_tokens(part) for part in parts)) // len(parts))
            if measured < PASSAGE_SEPARATOR_TOKENS:
                parts = filled(max(0, measured))
        while parts and exact(parts) > (cap if len(parts) > floor else room):
            parts.pop()
        return parts

    def _block(self, scope: list[str] | None, cap: int) -> Block | None:
        """Whole documents when the scope fits the passage budget; counted once per content."""
        chunks = self._retriever.whole(scope, max_tokens=cap)
        if not chunks:
            return None
        key = (self._counter.id, *(hit.chunk.id for hit in chunks))
        with self._blocks_lock:
            block = self._blocks.get(key)
        if block is None:
            parts = parts_of(chunks)
            text = block_text(parts)
            block = Block(text, self._counter.count_message("system", text), tuple(parts))
        with self._blocks_lock:
            self._blocks[key] = block
            self._blocks.move_to_end(key)
            if len(self._blocks) > BLOCKS_KEPT:
                self._blocks.popitem(last=False)
        return block if block.tokens <= cap else None

    def _budget(self, assembly: Assembly, total_messages: int, evidence: Evidence) -> Budget:
        p = assembly.plan
        return Budget(
            max_model_len=p.max_model_len, answer_reserve=p.answer_reserve, system=p.system, summary=p.summary,
            chunks=p.chunks, history=sum(m.token_count for m in assembly.history), question=p.question,
            template=p.template, history_messages=len(assembly.history),
            dropped_messages=total_messages - len(assembly.history) - 1,
            counter=self._counter.id, exact=self._counter.exact, history_share=p.history_share,
            mode=evidence.mode, passages=len(evidence.block.parts if evidence.block else evidence.parts),
            chunks_cap=p.cap("chunks"),
        )


def _passages(parts: list[Part], *, searched: bool, strength: EvidenceStrength | None, approach: Approach = LOOKUP,
              coverage: Coverage | None = None) -> Evidence:
    """The passages that fitted, numbered [1]..[k] in their order, as the user turn sends them."""
    if not parts:
        return Evidence(searched=searched, strength=strength, approach=approach, coverage=coverage)
    return Evidence("passages", parts=tuple(parts), searched=True, strength=strength, approach=approach,
                    coverage=coverage,
                    citations=tuple(p.first.citation(n, text=p.text) for n, p in enumerate(parts, start=1)))


def _holds(label: str, rows: tuple[int, ...]) -> bool:
    """Whether a sheet's section ("Stock, rows 2-19", "Stock, row 7") holds any of the rows."""
    span = _ROWS.search(label)
    if span is None:
        return False
    first = int(span.group(1))
    last = int(span.group(2) or first)
    return any(first <= row <= last for row in rows)


def _whole_coverage(approach: Approach, block: Block, in_scope: int) -> Coverage | None:
    """What an answer given every document in scope whole covered: the collection, all of them; a
    comparison, the documents it compares (the others are in the prompt, not compared)."""
    if approach.way is Way.LOOKUP:
        return None
    if approach.way is Way.COMPARE and approach.documents:
        return Coverage(len(approach.documents), len(approach.documents))
    read = len({part.first.chunk.document_id for part in block.parts})
    return Coverage(read, max(read, in_scope))


def _judged(ranked: list) -> EvidenceStrength | None:
    # Nothing ranked means nothing to search (the search by meaning always finds something in
    # a library): an answer with no documents in scope is not "not found in your documents".
    return judge(ranked) if ranked else None


def _questions(history: list[Message]) -> list[str]:
    """The user's earlier questions, as asked (not as sent with passages)."""
    return [m.content for m in history if m.role is Role.USER]
