"""Choosing how to answer a question before retrieval (docchat.domain.approach): from its words,
the documents in scope it names and the size of the scope. No model is asked, so the choice costs
nothing on any profile.

- A comparison: the question names two or more documents in scope, or has a word of comparing
  ("compare", "difference", "changed", "versus") and the scope holds exactly two.
- The collection: the question speaks of the documents as a set ("every contract", "all my
  reports", "which of these files", "summarise these 40 reports"), and the scope holds two to
  COLLECTION_MAX. The set's noun is a word for documents, or a word two names in scope share
  ("contract" for contract-acme.pdf and contract-borealis.pdf).
- Otherwise a lookup.

A question names a document when every word of the document's name (its last path part, its
extension dropped, stopwords left out) is among the question's words, in any order: "the 2024
lease" names lease-2024.md. Of two names one of which holds the other's words, the longer wins:
"the 2024 lease" names lease-2024.md, not lease.md.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from docchat.domain import EvidenceStrength, Judgement
from docchat.domain.approach import LOOKUP, Approach, Way
from docchat.errors import InvalidInput
from docchat.retrieval.words import STOPWORDS
from docchat.text import singular

_WORD = re.compile(r"[^\W_]+")
_COMPARING = frozenset("compare compared comparing comparison versus vs difference differences differ differs "
                       "different changed".split())
# The collection is read one search per document (2.2 ms each, scoped, at 200,000 chunks): past this
# many documents in scope a question about them all is answered as a lookup, until answers are
# written in rounds (docs/plans/questions-beyond-one-passage.md).
COLLECTION_MAX = 60
# Said when the user asks for a figure from a sheet and the question names none docchat can compute.
NO_FIGURE = ("docchat found no figure to compute from a sheet in scope: ask for the total, average, count, highest "
             "or lowest of a column, naming the column")
_QUANTIFIERS = frozenset("all every each".split())
_DETERMINERS = frozenset("of the my our these those your their".split())
_DOCUMENT_NOUNS = frozenset(
    "document documents file files pdf pdfs report reports contract contracts agreement agreements lease leases "
    "invoice invoices letter letters email emails mail mails note notes paper papers policy policies statement "
    "statements minutes memo memos record records presentation presentations slide slides sheet sheets "
    "spreadsheet spreadsheets book books chapter chapters article articles source sources".split())

# Words asking for an account of documents rather than for something in them.
_ACCOUNT = frozenset("summarise summarize summarised summarized summary summaries overview outline describe list "
                     "give tell say says about main key points gist brief briefly short".split())


def choose(question: str, in_scope: Sequence[tuple[str, str]], chosen: Way | None = None) -> Approach:
    """The plan for `question` over the documents in scope, given as (id, name); `chosen`: the
    plan the user asked for (re-asking), which docchat follows where the scope allows it."""
    words = _words(question)
    named = _named(words, in_scope)
    names = dict(in_scope)
    if chosen is not None:
        return _as_chosen(chosen, named, names)
    if len(named) >= 2:
        return Approach(Way.COMPARE, tuple(named), tuple(names[document] for document in named))
    if len(in_scope) == 2 and _COMPARING & set(words):
        return Approach(Way.COMPARE, tuple(names), tuple(names.values()))
    if 2 <= len(in_scope) <= COLLECTION_MAX and _speaks_of_the_set(words, _shared_name_words(in_scope)):
        return Approach(Way.COLLECTION)
    return LOOKUP


def as_asked(strength: EvidenceStrength | None, approach: Approach, question: str,
             in_scope: Sequence[tuple[str, str]]) -> EvidenceStrength | None:
    """The judgement of a collection's passages, where the question asks for the documents
    themselves: found, for it is about them ("Summarise all the supplier contracts" shares too
    few words with any passage to be judged found, and was answered as if they held nothing)."""
    if strength is None or approach.way is not Way.COLLECTION or not of_the_documents(question, in_scope):
        return strength
    return replace(strength, judgement=Judgement.FOUND)


def of_the_documents(question: str, in_scope: Sequence[tuple[str, str]]) -> bool:
    """Whether a question about the set asks for an account of the documents themselves and of
    nothing in them ("Summarise all the supplier contracts", "Give an overview of these 12
    reports"): every passage of theirs bears on it, however few of its words the passages hold."""
    shared = _shared_name_words(in_scope)
    return not [word for word in _words(question)
                if word not in STOPWORDS and word not in _QUANTIFIERS and word not in _DETERMINERS
                and word not in _ACCOUNT and word not in _DOCUMENT_NOUNS and singular(word) not in shared
                and not word.isdigit()]


def names_any(question: str, names: Sequence[str]) -> bool:
    """Whether the question names one of these (a document's name, a sheet's): every word of it,
    singular or plural, is among the question's words ("the lead times sheet" names "Lead times")."""
    present = {singular(word) for word in _words(question)}
    return any((words := {singular(word) for word in _name_words(name)}) and words <= present for name in names)


def _as_chosen(chosen: Way, named: list[str], names: dict[str, str]) -> Approach:
    """The plan the user chose: a comparison of the documents named, or of every document in
    scope when fewer than two are named; the collection of the scope. Refused, changing nothing,
    where the scope cannot give it."""
    if chosen is Way.LOOKUP:
        return LOOKUP
    if chosen is Way.TABLE:
        raise InvalidInput(NO_FIGURE)  # a figure is computed by the pipeline, before any plan is chosen here
    if not names:
        raise InvalidInput("there are no documents in this conversation's scope to read")
    if len(names) > COLLECTION_MAX and not (chosen is Way.COMPARE and len(named) >= 2):
        raise InvalidInput(f"docchat reads every document for at most {COLLECTION_MAX} documents in scope, and this "
                           f"conversation has {len(names):,}: choose fewer documents for it")
    if chosen is Way.COLLECTION:
        return Approach(Way.COLLECTION)
    compared = named if len(named) >= 2 else list(names)
    if len(compared) < 2:
        raise InvalidInput("a comparison needs two or more documents in scope")
    return Approach(Way.COMPARE, tuple(compared), tuple(names[document] for document in compared))


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _name_words(name: str) -> frozenset[str]:
    last = re.split(r"[/\\]| › ", name)[-1]
    stem = last.rsplit(".", 1)[0] if "." in last else last
    return frozenset(word for word in _words(stem) if word not in STOPWORDS)


def _named(words: list[str], in_scope: Sequence[tuple[str, str]]) -> list[str]:
    """The ids of the documents the question names, in the order it first names them."""
    present = set(words)
    matched = {document: name_words for document, name in in_scope
               if (name_words := _name_words(name)) and name_words <= present}
    kept = [document for document, name_words in matched.items()
            if not any(name_words < other for other in matched.values())]
    # Named where the last of its words first comes: "lease 2025 and lease 2024" names 2025 first.
    return sorted(kept, key=lambda document: max(words.index(word) for word in matched[document]))


def _shared_name_words(in_scope: Sequence[tuple[str, str]]) -> frozenset[str]:
    """Words at least two names in scope have, as nouns a question may call the set by."""
    counts = Counter(singular(word) for _, name in in_scope for word in _name_words(name))
    return frozenset(word for word, count in counts.items() if count >= 2 and not word.isdigit())


def _speaks_of_the_set(words: list[str], shared: frozenset[str]) -> bool:
    """"every supplier contract", "all of my reports", "which of these files", "these 40 reports"."""
    def is_noun(word: str) -> bool:
        return word in _DOCUMENT_NOUNS or singular(word) in shared

    for at, word in enumerate(words):
        if word in _QUANTIFIERS or word == "which":
            following = [w for w in words[at + 1:at + 5] if w not in _DETERMINERS]
            # A quantifier reaches over an adjective or two ("every supplier contract"); "which"
            # asks of a set only in the plural ("which contracts", "which of my supplier contracts").
            reach = following[:3] if word in _QUANTIFIERS else following[:2]
            if any(is_noun(w) and (word in _QUANTIFIERS or w.endswith("s")) for w in reach):
                return True
        if word in ("these", "those", "my", "our") and at + 2 < len(words) and words[at + 1].isdigit():
            if is_noun(words[at + 2]):
                return True
    return False


