"""What the API reads and writes, as pydantic models: the OpenAPI schema at /docs comes from here.

Requests are strict (a number is not a string, unknown fields are refused with a 422 naming
them); responses are built from the domain's dataclasses by the `from_*` functions below.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from docchat.exchange import citation_wire, plan_wire

# Long enough for a pasted page of text, short enough that a question never crowds the window.
MAX_QUESTION = 32_000
MAX_IDS = 1_000


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


# requests


class HistoryItem(Strict):
    role: Literal["user", "assistant", "system"]
    content: str


AskedPlan = Annotated[Literal["lookup", "collection", "compare", "table"] | None, Field(
    description='How to answer: "lookup" (the best passages of any document), "collection" (every document in '
                'scope), "compare" (the documents named, or all in scope, side by side) or "table" (a figure docchat '
                'computes from a sheet in scope); default: docchat chooses from the question.')]


AskedForm = Annotated[Literal["free", "constrained", "quoted"] | None, Field(
    description='How to write the answer: "free" (in the model\'s own words), "constrained" (by the model, every '
                'sentence ending with marks of the passages it was given; where the server takes a pattern) or '
                '"quoted" (the passages\' own sentences, quoted by docchat, no model asked); either needs passages '
                'that answer the question, else the answer is free. Default: docchat chooses from what the served '
                'model has written. A question the documents do not answer gets docchat\'s reply saying so, '
                'unless "free" or "constrained" asks for the model\'s own answer (labelled not found).')]


class RagQuery(Strict):
    query: str = Field(min_length=1, max_length=MAX_QUESTION)
    conversation_history: list[HistoryItem] | None = Field(
        default=None, description="Earlier turns, oldest first, as the caller keeps them; nothing is stored.")
    top_k: int | None = Field(default=None, ge=1, le=256, description=(
        "At most this many passages, retrieved even when the documents would fit in the prompt whole. "
        "Default: passages fill the documents' share of the window (or the documents go in whole)."))
    document_ids: list[str] | None = Field(default=None, max_length=MAX_IDS,
                                           description="The documents to search (ids or unique prefixes); default: all.")
    plan: AskedPlan = None
    form: AskedForm = None
    stream: bool = False

    _query = field_validator("query")(_not_blank)


class NewConversation(Strict):
    title: str | None = None


class ConversationChange(Strict):
    title: str | None = None
    pinned: bool | None = None
    documents_only: bool | None = Field(default=None, description="Answer from the documents only: when "
                                        "nothing is found there, docchat says so (as always) and never asks the "
                                        "model, even for a form asking the model's words.")
    quoted_answers: bool | None = Field(default=None, description="Quote the documents: an answer they hold is "
                                        "their own sentences, cited, and the model is not asked.")


class NewMessage(Strict):
    content: str = Field(min_length=1, max_length=MAX_QUESTION)
    plan: AskedPlan = None
    form: AskedForm = None
    stream: bool = False

    _content = field_validator("content")(_not_blank)


class Retry(Strict):
    plan: AskedPlan = None
    form: AskedForm = None
    stream: bool = False


class Scope(Strict):
    document_ids: list[str] | None = Field(max_length=MAX_IDS,
                                           description="The documents the conversation searches; null: all of them.")


# responses


class ErrorOut(BaseModel):
    detail: Any = Field(description="What is wrong, in one line; for a 422, FastAPI's list with each field's `loc`.")


ERRORS = {status: {"model": ErrorOut, "description": text} for status, text in (
    (400, "Bad input: the message says what to change; nothing was stored"),
    (401, "A bearer token is required (DOCCHAT_API_TOKEN)"),
    (404, "No such conversation, document or model"),
    (413, "The request body (or file) is over its limit"),
    (503, "The LLM server is down or did not answer in time"),
)}


# A citation as docchat.exchange.citation_wire.to_api writes it (a docstring here would change the OpenAPI schema).
class CitationOut(BaseModel):
    n: int
    document_id: str
    document: str
    page: int | None
    section: str | None
    text: str
    where: str
    chunk_id: str
    score: float


class EvidenceOut(BaseModel):
    judgement: Literal["found", "weak", "not found"] = Field(
        description="Whether the documents in scope hold the answer, judged from retrieval's own signals.")
    score: float = Field(description="The best passage's similarity to the question plus its share of the "
                         "question's words; found at 0.65 or more, not found below 0.55.")


class LeftOutOut(BaseModel):
    document: str
    why: str


class CoverageOut(BaseModel):
    documents_read: int = Field(description="The documents in scope that gave the answer passages (or were read whole).")
    documents_in_scope: int
    left_out: list[LeftOutOut] = Field(default_factory=list, description="The documents not read, and why.")
    rounds: int = Field(1, description="The rounds the documents were read in: more than one when their passages "
                        "did not fit one prompt, and the answer was written from the notes of each round.")


class TableOut(BaseModel):
    sql: str = Field(description="The read-only query docchat ran over the sheet's data rows (written by docchat, "
                     "or by the served model when `written_by` names it).")
    columns: list[str] = Field(description="What it computed, as the result's one column; for a figure per value "
                               "of a column, that column first.")
    rows: list[list[Any]] = Field(description="The result: one row of one value (null when no row held one; a text "
                                  "cell's text for a cell looked up); per value of a column, a row of that value and its "
                                  "figure each, in the sheet's order.")
    document: str
    document_id: str
    sheet: str
    where: str = Field(description='The sheet and the rows read: "Stock, rows 2-4".')
    rows_read: list[int] = Field(description="The rows read, by their numbers in the spreadsheet (none for a "
                                 "model's query: docchat cannot tell which rows it read).")
    written_by: str | None = Field(default=None, description="The model that wrote the query; absent when docchat "
                                   "wrote it.")
    group_rows: list[list[int]] | None = Field(default=None, description="For a figure per value of a column: the "
                                               "rows each value's figure read, in the order of `rows`.")
    ranked: Literal["highest", "lowest"] | None = Field(default=None, description="For the value of a column that "
                                                        "ranks first by its figure: `rows` are that value (and any "
                                                        "tied with it), not every value.")
    unread: list[str] | None = Field(default=None, description="The question's words that could change the figure "
                                     "and that docchat's reading did not use: the figure is docchat's reading, "
                                     "said as unsure. Absent when it read them all.")
    unit: str | None = Field(default=None, description='The currency or unit of the figure, as its column writes it '
                             '("$", "NOK", "km", "%"). Absent when it has none.')


class PlannedOut(BaseModel):
    """How an answer was planned (docchat.exchange.plan_wire.to_api)."""

    plan: Literal["lookup", "collection", "compare", "table"] | None = Field(
        default=None, description='How docchat answered: "lookup" (the best passages of any document), "collection" '
        '(every document in scope), "compare" (the named documents side by side) or "table" (a figure computed from a '
        'sheet); null for an answer from before plans were kept.')
    plan_documents: list[str] = Field(default_factory=list, description="The documents compared, or the sheet, by name.")
    coverage: CoverageOut | None = Field(default=None, description="For the collection or a comparison: how many "
                                         "documents in scope the answer read.")
    table: TableOut | None = Field(default=None, description="For a table plan: the figure docchat computed.")
    answer_form: Literal["free", "constrained", "quoted", "stated"] | None = Field(
        default=None, description='How the answer was written: "free" (in the model\'s own words), "constrained" (by '
        'the model, every sentence ending with marks of the passages it was given), "quoted" (the passages\' own '
        'sentences, quoted by docchat) or "stated" (a figure docchat computed, in docchat\'s words); null for a '
        'documents-only reply and an answer from before forms were kept.')


# A sentence the citation check looked at, as docchat.exchange.citation_wire.check_to_api writes it.
class CheckedSentenceOut(BaseModel):
    text: str
    cited: list[int]
    supported: bool
    absent_numbers: list[str]
    flagged: bool
    note: str | None


class NumberMarkOut(BaseModel):
    written: str
    start: int = Field(description="Where the number is in the answer's text (a character offset).")
    end: int


class NumbersOut(BaseModel):
    stated: int = Field(description="Numbers the model wrote (docchat's own sentences and quotes are not counted).")
    found: int = Field(description="Of them, those the passages given, docchat's figures or the question hold.")
    not_found: int
    not_found_numbers: list[str] = Field(description="The numbers not in the sources, as the answer writes them.")
    marks: list[NumberMarkOut]


class CitationCheckOut(BaseModel):
    attributed: bool = Field(description="The answer had no [n] marks: docchat attributed its sentences.")
    cited: list[int]
    sentences: list[CheckedSentenceOut]
    numbers: NumbersOut | None = Field(default=None, description="Every number the model wrote, checked against "
                                       "the passages, docchat's computed figures and the question.")


class AnswerOut(PlannedOut):
    answer: str
    status: Literal["complete", "truncated", "interrupted", "error"]
    citations: list[CitationOut] = Field(description="Every passage given to the model, as numbered in the prompt.")
    cited: list[CitationOut] = Field(description="The passages the answer cites ([n] marks, in order of first "
                                     "mention), or those docchat attributed its sentences to.")
    citation_check: CitationCheckOut | None = Field(description="Each cited sentence checked against its passage.")
    evidence: EvidenceOut | None = Field(default=None, description="None when no documents were searched.")
    rewritten_query: str | None
    memory: dict[str, Any] | None = Field(description="What the memory did for this answer (MemoryStats).")
    usage: dict[str, Any] | None
    budget: dict[str, Any] | None = Field(description="How the prompt split the model's window.")
    mode: str | None = Field(description='How the documents reached the model: "documents", "passages" or "none".')
    model: str | None
    error: str | None


class StoredAnswerOut(AnswerOut):
    conversation_id: str
    question_id: str
    answer_id: str


class ConversationOut(BaseModel):
    id: str
    title: str
    pinned: bool
    created_at: datetime
    updated_at: datetime
    message_count: int
    title_source: str
    document_scope: list[str] | None
    instructions: str
    documents_only: bool | None = Field(default=None, description="Chosen for this conversation; null: the "
                                        "default in Settings.")
    quoted_answers: bool | None = Field(default=None, description="Chosen for this conversation; null: the "
                                        "default in Settings.")


class MessageOut(PlannedOut):
    id: str
    seq: int
    role: str
    content: str
    status: str
    created_at: datetime
    citations: list[CitationOut]
    evidence: EvidenceOut | None = None
    cited: list[CitationOut]
    citation_check: CitationCheckOut | None
    rewritten_query: str | None
    model: str | None
    usage: dict[str, Any] | None
    error: str | None
    rating: str | None
    version_of: str | None


class ConversationDetail(ConversationOut):
    messages: list[MessageOut] = Field(description="The messages the history holds (the versions shown), in order.")


class SearchHitOut(BaseModel):
    conversation_id: str
    title: str
    snippet: str
    seq: int | None
    rank: float


class ImportReportOut(BaseModel):
    conversation_id: str
    title: str
    messages: int
    already_present: bool
    present_but_deleted: bool


class DocumentOut(BaseModel):
    id: str
    name: str
    kind: str
    size: int
    pages: int | None
    chunks: int
    added_at: datetime
    # "ready" for every listed document (one still being read or removed is not listed).
    status: str


class AttachmentAdded(BaseModel):
    document: DocumentOut
    already_present: bool


class DocumentAdded(BaseModel):
    document: DocumentOut
    already_present: bool
    attachments: list[AttachmentAdded] = Field(
        default_factory=list, description="A mail's attachments of a kind docchat reads, each a document of its own.")
    refused_attachments: list[str] = Field(
        default_factory=list, description="Attachments that could not be read, one line each; the mail went in.")


class DocumentUseOut(BaseModel):
    conversation_id: str
    title: str
    citations: int


class FolderToFollow(BaseModel):
    path: str = Field(description="An absolute path to a folder on the machine the server runs on")
    conversation_id: str | None = Field(None, description="Its documents also join this conversation's scope")


class FileProblemOut(BaseModel):
    folder: str
    path: str = Field(description="Relative to the folder")
    status: Literal["refused", "failed"]
    reason: str


class SyncOut(BaseModel):
    added: int
    changed: int
    removed: int
    unchanged: int
    refused: int
    failed: int
    problems: list[FileProblemOut]


class FolderOut(BaseModel):
    path: str
    conversation_id: str | None
    added_at: datetime
    last_sync_at: datetime | None
    last_sync: dict[str, int] | None = Field(description="The last pass's counts (added, changed, ...)")
    files: dict[str, int] = Field(description="Its files by status: ready, refused, pending, failed")
    problems: list[FileProblemOut] = Field(description="The files refused or failed, with why")


class Health(BaseModel):
    store: dict[str, Any]
    llm: dict[str, Any]
    documents: dict[str, Any]
    backup: dict[str, Any]  # last_backup (ISO 8601, or null: never) and file, as `docchat doctor --json`


# from the domain


def from_conversation(conversation) -> dict:
    settings = conversation.settings
    return {"id": conversation.id, "title": conversation.title, "pinned": conversation.pinned,
            "created_at": conversation.created_at, "updated_at": conversation.updated_at,
            "message_count": conversation.message_count, "title_source": settings.title_source.value,
            "document_scope": list(settings.document_scope) if settings.document_scope is not None else None,
            "instructions": settings.instructions, "documents_only": settings.documents_only,
            "quoted_answers": settings.quoted_answers}


def from_message(message) -> dict:
    facts = message.facts
    return {"id": message.id, "seq": message.seq, "role": message.role.value, "content": message.content,
            "status": message.status.value, "created_at": message.created_at,
            "citations": [citation_wire.to_api(c) for c in facts.citations],
            "cited": [citation_wire.to_api(c) for c in message.cited],
            "citation_check": citation_wire.check_to_api(facts.grounding), "rewritten_query": message.rewritten_query,
            "evidence": facts.evidence.as_dict() if facts.evidence else None,
            **plan_wire.to_api(facts),
            "model": facts.model, "usage": facts.usage, "error": facts.error,
            "rating": facts.rating.value if facts.rating else None, "version_of": message.version_of}


def from_document(document) -> dict:
    return {"id": document.id, "name": document.name, "kind": document.kind, "size": document.size,
            "pages": document.pages, "chunks": document.chunks, "added_at": document.added_at,
            "status": document.status.value}


def from_turn(turn) -> dict:
    """A finished turn: its answer as kept (stored, or only built for a stateless one)."""
    answer, stats, budget = turn.answer, turn.stats, turn.budget
    return {
        "answer": answer.content if answer else "",
        "status": answer.status.value if answer else "error",
        "citations": [citation_wire.to_api(c) for c in (answer.facts.citations if answer else turn.citations)],
        "evidence": turn.evidence.as_dict() if turn.evidence else None,
        **plan_wire.to_api(answer.facts if answer else None),
        "cited": [citation_wire.to_api(c) for c in answer.cited] if answer else [],
        "citation_check": citation_wire.check_to_api(answer.facts.grounding) if answer else None,
        "rewritten_query": stats.rewritten_query if stats else None,
        "memory": stats.as_dict() if stats else None,
        "usage": turn.usage,
        "budget": budget.as_dict() if budget else None,
        "mode": budget.mode if budget else None,
        "model": answer.facts.model if answer else None,
        "error": answer.facts.error if answer else None,
    }


def from_stored_turn(turn) -> dict:
    return {**from_turn(turn), "conversation_id": turn.conversation_id, "question_id": turn.question.id,
            "answer_id": turn.answer.id if turn.answer else turn.draft.id}


def from_problem(problem) -> dict:
    return {"folder": problem.folder, "path": problem.relative_path, "status": problem.status.value,
            "reason": problem.reason}


def from_sync(report) -> dict:
    return {**report.counts.as_dict(), "problems": [from_problem(p) for p in report.problems]}


def from_folder(state) -> dict:
    folder = state.folder
    return {"path": folder.path, "conversation_id": folder.conversation_id, "added_at": folder.added_at,
            "last_sync_at": folder.last_sync_at,
            "last_sync": folder.last_counts.as_dict() if folder.last_counts else None,
            "files": state.files_by_status, "problems": [from_problem(p) for p in state.problems]}
