"""An answer's sources: its [n] marks link to them, its list opens them, and a source shows
the cited passage where it stands in its document (a PDF page or an image drawn with the passage
marked, on a scan where OCR finds its words, or the section with the passage flagged), with the original file to download."""

from __future__ import annotations

import re

import streamlit as st

from docchat.domain import Citation, Message
from docchat.domain.grounding import DOCUMENTS_ONLY, AnswerForm, uncited_heading
from docchat.domain.numbers import marked, numbers_line
from docchat.web.safe_markdown import inert
from docchat.ui.session import CONVERSATION_PARAM, services
from docchat.ui.text import literal

KEY = "sources"
# ?s=<message id>.<number>: the source an [n] mark links to.
SOURCE_PARAM = "s"
_MARK = re.compile(r"\[(\d{1,3})\]")
# Code, where "[1]" is text (`items[1]`) and a link would show as its Markdown: a fenced block
# (to its closing fence, or the end), or a code span (a whole run of backticks to the next run as
# long; a run with none is text, as in CommonMark).
_CODE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\1[ \t]*$|\Z)|(?<!`)(`+)(?!`).+?(?<!`)\2(?!`)", re.M | re.S)
# A Markdown heading line of a document: `## 8. Notices`.
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")


def linked(answer: Message) -> str:
    """The answer's Markdown, made inert, with each [n] outside code that names one of its sources
    made a link to it (after: `inert` shows a link's target beside it, a citation's is its own)."""
    numbers = {c.number for c in answer.facts.citations}

    def link(match: re.Match) -> str:
        number = int(match.group(1))
        if number not in numbers:
            return match.group(0)
        return (f"[\\[{number}\\]](?{CONVERSATION_PARAM}={answer.conversation_id}"
                f"&{SOURCE_PARAM}={answer.id}.{number} 'source {number}')")

    shown, parts, at = inert(with_numbers_marked(answer)), [], 0
    for code in _CODE.finditer(shown):
        parts += [_MARK.sub(link, shown[at:code.start()]), code.group(0)]
        at = code.end()
    return "".join(parts) + _MARK.sub(link, shown[at:])


def with_numbers_marked(answer: Message) -> str:
    """The answer's text with each number the model wrote that no source holds marked where it
    stands (docchat.grounding.numbers): the reader sees it before trusting it."""
    grounding = answer.facts.grounding
    return marked(answer.content, grounding.numbers if grounding is not None else None,
                  lambda written: f":orange-background[{_unmathed(written)}] :orange[(not in the sources)]")


def _unmathed(text: str) -> str:
    """A dollar sign shown as one: Streamlit reads $…$ as mathematics."""
    return text.replace("$", "\\$")


def readable(paragraph: str) -> str:
    """A paragraph of a document's section as st.markdown shows it: as typed, but a heading line
    as the bold title it is, on a line of its own, rather than as `## 8. Notices`."""
    lines = []
    for line in paragraph.split("\n"):
        heading = _HEADING.match(line)
        lines.append(f"**{literal(heading.group(1))}**  " if heading else literal(line))
    return "\n".join(lines)


def listed(answer: Message) -> None:
    """The passages the answer cites under Sources, numbered as it numbers them, in order of
    first mention; the others it was given apart, collapsed. A documents-only reply cites
    nothing: the closest passages it offers are its sources."""
    cited, uncited, facts = answer.cited, answer.uncited, answer.facts
    if facts.model == DOCUMENTS_ONLY:
        cited, uncited = facts.citations, []
    if cited:
        attributed = facts.grounding is not None and facts.grounding.attributed
        with st.expander(f"Sources ({len(cited)})" + (", attributed by docchat" if attributed else "")):
            if attributed:
                st.caption("The answer has no [n] marks: docchat matched its sentences to these passages.")
            _passages(answer, cited)
    if uncited:
        with st.expander(f"{uncited_heading(facts.form)} ({len(uncited)})"):
            st.caption("Passages found for the question that the answer does not quote."
                       if facts.form is AnswerForm.QUOTED else "Passages the model was given that the answer does not cite.")
            _passages(answer, uncited)


def checked(answer: Message) -> None:
    """What the citation check found, one quiet line per sentence it marks. Shown under the
    answer rather than as an underline inside it: the answer's text reaches the page only as
    inert Markdown, and marking a sentence in place would take HTML around model text."""
    grounding = answer.facts.grounding
    for sentence in grounding.flagged if grounding is not None else ():
        quoted = sentence.text if len(sentence.text) <= 160 else sentence.text[:159] + "…"
        st.caption(f":material/rule: {literal(_first_upper(grounding.note(sentence)))}: “{literal(quoted)}”")
    if grounding is not None and (line := numbers_line(grounding.numbers)):
        st.caption(f":material/pin: {literal(line)}")


def _passages(answer: Message, passages: list[Citation]) -> None:
    for cited in passages:
        st.markdown(f"**[{cited.number}] {literal(cited.document)}**, {literal(cited.where)}")
        st.markdown("\n\n".join(readable(p) for p in cited.text[:400].split("\n\n") if p.strip()))
        if st.button("Open the source", key=f"{KEY}_open_{answer.id}_{cited.number}",
                     icon=":material/open_in_new:", type="tertiary"):
            _show(cited)


def open_linked(history: list[Message]) -> None:
    """Opens the source an [n] link names (the link opens the page with it in the URL)."""
    wanted = st.query_params.pop(SOURCE_PARAM, None)
    if not wanted or "." not in wanted:
        return
    message_id, _, number = wanted.rpartition(".")
    for message in history:
        if message.id == message_id:
            for cited in message.facts.citations:
                if str(cited.number) == number:
                    _show(cited)
                    return


@st.dialog("Source", width="large")
def _show(cited: Citation) -> None:
    view = services().documents.source(cited)
    st.markdown(f"**[{cited.number}] {literal(cited.document)}**, {literal(cited.where)}")
    if view.document is None:
        st.caption("The document was removed from the library; this is the passage the answer was given.")
        st.text(cited.text)
        return
    if view.page_image is not None:
        # Not found: a passage cut across pages, or a scan read differently by OCR this time.
        note = "marked in yellow" if view.marked else "not found on the page; it reads:"
        st.caption(f"Page {cited.page} of {view.document.pages or '?'}; the passage is {note}")
        if not view.marked:
            st.text(cited.text)
        st.image(view.page_image, width="stretch")
    else:
        for text, cited_here in view.section:
            # Shown as typed; the cited passage stands out, a paragraph at a time (a colour
            # directive ends at a blank line).
            paragraphs = [readable(p) for p in text.split("\n\n") if p.strip()]
            if cited_here:
                paragraphs = [f":orange-background[{p}]" for p in paragraphs]
            st.markdown("\n\n".join(paragraphs))
    if view.original is not None:
        st.download_button(f"Download {literal(view.document.name)}", data=view.original, file_name=view.document.name,
                           key=f"{KEY}_download_{cited.chunk_id}_{cited.number}", icon=":material/download:",
                           on_click="ignore")


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]
