"""DSPy programs: condense a long history, rewrite a follow-up, title a conversation, write a
query over a document's sheets.

Each call gets its own LM through `dspy.context`, so threads never share a global, and
every caller has a fallback: these programs make answers better, never make them fail.
dspy (and litellm under it) is imported on first use: it takes seconds to import.
"""

from __future__ import annotations

import logging
from typing import Callable

from docchat.domain import Condensed
from docchat.errors import UnusableOutput
from docchat.text import one_line


def _dspy():
    """dspy, imported on first use, with its log lines where docchat keeps the libraries'
    (docchat.bootstrap.environment): on import, dspy gives its logger a handler of its own that
    writes INFO and up to stderr, which would print its warnings in the middle of an answer."""
    import dspy

    logger = logging.getLogger("dspy")
    for handler in [h for h in logger.handlers if h.get_name() == "dspy_handler"]:
        logger.removeHandler(handler)
    logger.setLevel(logging.WARNING)
    return dspy


def _signatures():
    dspy = _dspy()

    class Condense(dspy.Signature):
        """Summarise this conversation for someone who will continue it. Fold in the previous
        summary. Keep names, numbers, dates, definitions, decisions and open questions."""

        previous_summary: str = dspy.InputField(desc="summary of still earlier turns; may be empty")
        conversation: str = dspy.InputField(desc="the turns to summarise, oldest first")
        summary: str = dspy.OutputField(desc="a few short paragraphs")
        topics: list[str] = dspy.OutputField(desc="main topics, a few words each")
        key_questions: list[str] = dspy.OutputField(desc="questions the user asked")
        decisions: list[str] = dspy.OutputField(desc="decisions or conclusions reached")

    class Rewrite(dspy.Signature):
        """Rewrite the user's follow-up question as one standalone search query that names
        what 'it', 'this', 'that' and the like refer to in the recent turns."""

        recent_turns: str = dspy.InputField()
        question: str = dspy.InputField()
        standalone_query: str = dspy.OutputField()

    class Title(dspy.Signature):
        """Name this conversation in 3 to 6 words, like a document title."""

        first_exchange: str = dspy.InputField()
        title: str = dspy.OutputField()

    return Condense, Rewrite, Title


def query_signature():
    """What the model is asked for a figure's query: the tables it is shown and the question in,
    the SELECT out (the bench replays recorded answers through it)."""
    dspy = _dspy()

    class WriteQuery(dspy.Signature):
        """Write one SQLite SELECT statement that answers the question from these tables. Use only
        the tables and columns listed, with each column's name in double quotes as listed. Give
        the figure asked for as the first column; for a figure per value of a column, that
        column first and the figure second."""

        tables: str = dspy.InputField(desc="each table: its name, its columns and their types, its first rows")
        question: str = dspy.InputField()
        sql: str = dspy.OutputField(desc="the SELECT statement alone")

    return WriteQuery


class Programs:
    """The programs over one LM factory: `lm_for(max_tokens)` returns a dspy LM. The real
    docchat.ports.Programs; `condense_overhead` besides, which the context engine asks where it exists."""

    def __init__(self, lm_for: Callable[[int], object]):
        self._lm_for = lm_for

    def condense(self, previous_summary: str, conversation: str, *, max_tokens: int) -> Condensed:
        from dspy.utils.exceptions import AdapterParseError

        condense, _, _ = _signatures()
        try:
            result = self._run(condense, max_tokens, previous_summary=previous_summary, conversation=conversation)
        except AdapterParseError as error:
            # A small model often writes a fine summary but not the field layout; its text is
            # still the best summary there is. The metadata then comes from the caller.
            text = _unmarked(error.lm_response or "")
            if not _reads_like_prose(text):
                raise
            return Condensed(text)
        summary = str(result.summary).strip()
        if not summary:
            raise ValueError("the condenser returned an empty summary")
        return Condensed(summary, _strings(result.topics), _strings(result.key_questions), _strings(result.decisions))

    def condense_overhead(self, counter) -> int:
        """Tokens of the condenser's prompt around its inputs: DSPy's instructions and markers
        (about 430 for Qwen3), so that the transcript given to it leaves room for them."""
        dspy = _dspy()

        condense, _, _ = _signatures()
        messages = dspy.ChatAdapter().format(dspy.Predict(condense).signature, demos=[],
                                             inputs={"previous_summary": "", "conversation": ""})
        return sum(counter.count_message(m["role"], m["content"]) for m in messages) + 16

    def rewrite(self, recent_turns: str, question: str, *, max_tokens: int) -> str:
        """The question as a standalone query. UnusableOutput when what the model wrote cannot
        be used; other errors (the server down) say nothing of the model."""
        from dspy.utils.exceptions import AdapterParseError
        from litellm.exceptions import Timeout

        _, rewrite, _ = _signatures()
        try:
            result = self._run(rewrite, max_tokens, recent_turns=recent_turns, question=question)
        except AdapterParseError as error:
            # Also what a cut-off answer (max_tokens reached) ends in: its fields are not all there.
            raise UnusableOutput(f"the rewrite is not in the fields asked for: {one_line(str(error))}") from None
        except Timeout:
            raise UnusableOutput("the rewrite took longer than the time allowed") from None
        query = " ".join(str(result.standalone_query).split())
        if not query:
            raise UnusableOutput("the rewriter returned an empty query")
        return query

    def query(self, tables: str, question: str, *, max_tokens: int) -> str:
        """A SELECT statement over `tables` that answers the question, as the model wrote it.
        UnusableOutput when it wrote none; other errors (the server down) say nothing of the model."""
        from dspy.utils.exceptions import AdapterParseError
        from litellm.exceptions import Timeout

        try:
            result = self._run(query_signature(), max_tokens, tables=tables, question=question)
        except AdapterParseError as error:
            raise UnusableOutput(f"the query is not in the fields asked for: {one_line(str(error))}") from None
        except Timeout:
            raise UnusableOutput("the query took longer than the time allowed to write") from None
        return str(result.sql)

    def title(self, first_exchange: str, *, max_tokens: int) -> str:
        _, _, title = _signatures()
        text = " ".join(str(self._run(title, max_tokens, first_exchange=first_exchange).title).split())
        text = text.strip(" \"'.#*")
        words = text.split()
        if not 1 <= len(words) <= 8:
            raise ValueError(f"not a title: {text!r}")
        return text

    def _run(self, signature, max_tokens: int, **inputs):
        dspy = _dspy()

        # No JSON-adapter retry: one failed parse costs one call, not two.
        adapter = dspy.ChatAdapter(use_json_adapter_fallback=False)
        with dspy.context(lm=self._lm_for(max_tokens), adapter=adapter):
            return dspy.Predict(signature)(**inputs)


def programs_over(gateway, *, timeout_s: float) -> Programs:
    """The programs over the chat's own server and whichever model it serves when they run."""

    def lm_for(max_tokens: int):
        return vllm_lm_factory(gateway.base_url, gateway.info().model, timeout_s=timeout_s,
                               api_key=gateway.api_key)(max_tokens)

    return Programs(lm_for)


def vllm_lm_factory(base_url: str, model: str, *, timeout_s: float,
                    api_key: Callable[[], str | None] = lambda: None) -> Callable[[int], object]:
    """dspy LMs that talk to the same vLLM server as the chat, with its key, greedily and uncached."""

    def lm_for(max_tokens: int):
        dspy = _dspy()

        return dspy.LM(
            f"openai/{model}", api_base=base_url, api_key=api_key() or "local", temperature=0.0,
            max_tokens=max_tokens,
            cache=False, num_retries=0, timeout=timeout_s,
        )

    return lm_for


def _unmarked(text: str) -> str:
    """An LM answer without DSPy's `[[ ## field ## ]]` markers (or mangled ones)."""
    lines = [line for line in text.splitlines() if not line.strip().startswith(("[[", "[#", "##"))]
    return "\n".join(lines).strip()


def _reads_like_prose(text: str) -> bool:
    """At least a sentence's worth of words, not one line repeated."""
    words = text.split()
    lines = [line for line in text.splitlines() if line.strip()]
    return len(words) >= 8 and len(set(lines)) >= 0.5 * len(lines)


def _strings(value) -> list[str]:
    if isinstance(value, str):
        value = [value]
    return [" ".join(str(item).split()) for item in (value or []) if str(item).strip()]
