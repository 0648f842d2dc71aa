"""Checks an answer's citations against the passages it was given: pure, but for `embed`.

Each sentence carrying [n] is compared with passage n: the numbers it states must occur in a
passage it cites, and its words must: the share of its content words (and capitalised names)
found in the passage, blended with the cosine similarity of the two texts' embeddings. A
sentence without a mark is checked for its numbers only (against all the cited passages). An
answer with no mark at all is attributed instead: each sentence of some substance goes to the
given passage that supports it best, or is marked unsupported when none does.

Cost: one `embed` call per answer, of the checked sentences only: each passage compared is
represented by its vector in the document index (`vectors`, read, not computed), or, when the
index has none (a passage of a document since removed), by its sentence closest in words,
embedded in the same call. For attribution, each sentence is compared with its
ATTRIBUTION_CANDIDATES best passages by words only. The embedding of the answer's sentences is
the whole cost; `docchat bench grounding` prints it (with the passages embedded again, as before,
beside it) and the thresholds' precision and recall on planted unsupported sentences.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from docchat.grounding.claim_categories import swapped
from docchat.grounding.claim_signals import negated, negates_or_contrasts, number_words
from docchat.domain.grounding import MARK, Grounding, SentenceCheck, marks_in

Embed = Callable[[list[str]], Sequence[Sequence[float]]]
Vector = Sequence[float]

# Support = LEXICAL_WEIGHT * word overlap + (1 - LEXICAL_WEIGHT) * cosine similarity. Measured on
# the bench's planted sentences (`docchat bench grounding` prints the sweep): a paraphrase of its
# own passage scored 0.57 and up (overlap 0.50-1.0, MiniLM similarity 0.6 and up); a sentence
# cited to another section of the same document at most 0.55, to another document at most 0.40.
# SUPPORTED_AT sits in the gap (0.60 and up starts marking supported paraphrases, below 0.50
# recall falls). A claim written in its passage's own words but saying something else (the
# bench's "invented claim") passes words and MiniLM similarity, which do not see a contradiction;
# claim_signals catches some of them (a "not" the passage lacks, a number written as a word),
# claim_categories more (a month, a frequency, "before" or "at most" where the passage says another).
# Against the passage's own vector in the index (the whole chunk, its heading included) instead of
# its closest sentence, the same bench kept its gap: supported sentences blended 0.67 and up,
# planted ones at most 0.52, so the threshold stayed.
LEXICAL_WEIGHT = 0.5
SUPPORTED_AT = 0.55
# Words alone (the embedder failed, or the pair is outside EMBED_BETWEEN): the overlap that counts
# as support. On the bench, planted sentences overlapped their passage at most 0.42, supported ones
# at least 0.50.
LEXICAL_ONLY_AT = 0.45
# Only pairs whose overlap is in this band are embedded: below its floor no similarity can lift
# the blend to SUPPORTED_AT (0.5 * 0.1 + 0.5 * 1.0 = 0.55), and above its ceiling the words settle
# it. The embedding call is the check's whole cost. On both of the bench's sets no sentence cited
# to the wrong passage or document overlapped it more than 0.42, so a ceiling of 0.7 (0.9 before)
# changed no mark and embedded 0.59 texts an answer instead of 1.85 (held-out: 0.81 for 2.39);
# 0.6 would embed 0.35, with less room above 0.42.
EMBED_BETWEEN = (2 * SUPPORTED_AT - 1, 0.7)
# A sentence with fewer content words than this ("Sure!", "In short:") states no claim to check.
MIN_CLAIM_WORDS = 3
ATTRIBUTION_CANDIDATES = 3
# Words compared by their first STEM letters: "payable"/"payment" differ, "paid"/"pays" do not matter.
STEM = 6

# A full stop, its marks, then a space before anything but a small letter ("by 10 a.m. on the first day").
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s*" + MARK.pattern + r")*\s+(?=[^a-z\s])|\n+")
# A number, with its ordinal ending ("15th" is 15: "the 1st Monday" is not the 15th).
_NUMBER = re.compile(r"(?<![\w\[])\d[\d,]*(?:\.\d+)?(?:st|nd|rd|th)?%?(?![\w\]])")
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th)$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_STOP = frozenset("""a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from further had has have
having he her here hers him his how i if in into is it its itself just may me might more most must my no nor not
now of off on once only or other our out over own same shall she should so some such than that the their them then
there these they this those through to too under until up upon very was we were what when where which while who
whom why will with would you your yes per each every within without according passage passages document documents
states stated says said""".split())


@dataclass(frozen=True)
class _Sentence:
    text: str
    bare: str  # without its marks
    marks: tuple[int, ...]
    numbers: frozenset[str]
    words: frozenset[str]
    # Each number as the sentence writes it ("64,000" for 64000): what a note quotes.
    written: dict[str, str]
    # Numbers written as words ("six" for 6), checked in sentences that cite (claim_signals).
    spelled: dict[str, str]

    @property
    def claims(self) -> bool:
        return len(self.words) >= MIN_CLAIM_WORDS


@dataclass(frozen=True)
class _Passage:
    text: str
    numbers: frozenset[str]
    words: frozenset[str]
    vector: Vector | None  # the passage's vector in the document index, when it has one


def check(answer: str, passages: Mapping[int, str], embed: Embed | None,
          vectors: Mapping[int, Vector] | None = None) -> Grounding:
    """The check of `answer` given `passages` (number -> text) and, of those the index holds,
    their vectors (number -> vector); `embed` None or failing: words only."""
    sentences = [_sentence(text) for text in split_sentences(answer)]
    given = {n: _passage(text, (vectors or {}).get(n)) for n, text in passages.items()}
    if any(s.marks for s in sentences):
        return _check_marks(sentences, given, embed)
    return _attribute(sentences, given, embed)


def split_sentences(text: str) -> list[str]:
    """The answer's sentences, each keeping the marks written after its full stop."""
    parts, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        parts.append(text[start:end.end()].strip())
        start = end.end()
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def _check_marks(sentences: list[_Sentence], given: dict[int, _Passage], embed: Embed | None) -> Grounding:
    pairs = [(s, n) for s in sentences for n in s.marks if n in given]
    similarity = _similarities(pairs, given, embed)
    cited = marks_in(" ".join(s.text for s in sentences))
    in_cited = frozenset().union(*(given[n].numbers for n in cited if n in given))
    checks = []
    for s in sentences:
        if s.marks:
            held = frozenset().union(*(given[n].numbers for n in s.marks if n in given))
            # A word of a closed category its passage says otherwise ("midsummer" for "February").
            supported = any(_supports(s, given[n], similarity.get((s.text, n))) and swapped(s.bare, given[n].text) is None
                            for n in s.marks if n in given)
            # A "not" its passages do not say: the words match, the claim is the opposite.
            supported = supported and not (negated(s.bare) and not any(
                negates_or_contrasts(given[n].text) for n in s.marks if n in given))
            checks.append(SentenceCheck(s.text, s.marks, supported, _absent(s, held, spelled=True)))
        elif _absent(s, in_cited):
            checks.append(SentenceCheck(s.text, (), True, _absent(s, in_cited)))
    return Grounding(cited=cited, attributed=False, sentences=tuple(checks))


def _attribute(sentences: list[_Sentence], given: dict[int, _Passage], embed: Embed | None) -> Grounding:
    claims = [s for s in sentences if s.claims]
    candidates = {s.text: sorted(given, key=lambda n: -_overlap(s, given[n]))[:ATTRIBUTION_CANDIDATES]
                  for s in claims}
    similarity = _similarities([(s, n) for s in claims for n in candidates[s.text]], given, embed)
    cited: dict[int, None] = {}
    checks = []
    every = frozenset().union(*(p.numbers for p in given.values()))
    for s in claims:
        backed = [(n, _score(s, given[n], similarity.get((s.text, n)))) for n in candidates[s.text]
                  if _supports(s, given[n], similarity.get((s.text, n)))]
        best = (max(backed, key=lambda pair: pair[1])[0],) if backed else ()
        if best:
            cited.setdefault(best[0], None)
        checks.append(SentenceCheck(s.text, best, bool(best), _absent(s, every)))
    return Grounding(cited=tuple(cited), attributed=True, sentences=tuple(checks))


def _supports(sentence: _Sentence, passage: _Passage, similarity: float | None) -> bool:
    """Whether the passage holds the sentence's words; its numbers are checked apart (`_absent`)."""
    if not sentence.words:
        return True  # nothing but marks and small words: nothing to contradict the passage
    return _score(sentence, passage, similarity) >= (SUPPORTED_AT if similarity is not None else LEXICAL_ONLY_AT)


def _score(sentence: _Sentence, passage: _Passage, similarity: float | None) -> float:
    overlap = _overlap(sentence, passage)
    if similarity is None:
        return overlap
    return LEXICAL_WEIGHT * overlap + (1 - LEXICAL_WEIGHT) * similarity


def _overlap(sentence: _Sentence, passage: _Passage) -> float:
    return len(sentence.words & passage.words) / len(sentence.words) if sentence.words else 0.0


def _absent(sentence: _Sentence, held: frozenset[str], *, spelled: bool = False) -> tuple[str, ...]:
    written = {**sentence.spelled, **sentence.written} if spelled else sentence.written
    return tuple(written[n] for n in sorted(set(written) - held))


def _similarities(pairs: list[tuple[_Sentence, int]], given: dict[int, _Passage],
                  embed: Embed | None) -> dict[tuple[str, int], float]:
    """Cosine similarity of each (sentence, passage) pair that its words leave undecided (see
    EMBED_BETWEEN), from one embed call; {} when it fails. A passage is represented by its vector
    in the index; one the index lacks, by its sentence sharing the most words with the claim,
    embedded in the same call (a sentence against a sentence: a short text to embed where a
    whole passage, up to the model's 256 tokens, would take most of the call's time)."""
    low, high = EMBED_BETWEEN
    pairs = [(s, n) for s, n in pairs if low <= _overlap(s, given[n]) < high]
    if embed is None or not pairs:
        return {}
    closest = {(s.text, n): _closest(s, given[n]) for s, n in pairs if given[n].vector is None}
    texts = list(dict.fromkeys([s.text for s, _ in pairs] + list(closest.values())))
    try:
        vectors = dict(zip(texts, embed(texts), strict=True))
    except Exception:  # an embedder's failure leaves the words: the answer is not lost for it
        return {}
    return {(s.text, n): _cosine(vectors[s.text], _vector_of(given[n], vectors, closest.get((s.text, n))))
            for s, n in pairs}


def _vector_of(passage: _Passage, embedded: dict[str, Vector], closest: str | None) -> Vector:
    return passage.vector if passage.vector is not None else embedded[closest or passage.text]


def _closest(sentence: _Sentence, passage: _Passage) -> str:
    return max(split_sentences(passage.text), key=lambda part: len(sentence.words & _words(part)),
               default=passage.text)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norms if norms else 0.0


def _sentence(text: str) -> _Sentence:
    bare = MARK.sub(" ", text)
    written = {_plain(n): n.rstrip(",") for n in _NUMBER.findall(_spaced(bare))}
    spelled = {n: word for n, word in number_words(bare).items() if n not in written}
    return _Sentence(text, bare, marks_in(text), frozenset(written), _words(bare), written, spelled)


def _passage(text: str, vector: Vector | None = None) -> _Passage:
    return _Passage(text, _numbers(text), _words(text), vector)


def _numbers(text: str) -> frozenset[str]:
    """Numbers without thousands separators: "62,000" and "62000" are one."""
    return frozenset(_plain(n) for n in _NUMBER.findall(_spaced(text))) | frozenset(number_words(text))


def _plain(number: str) -> str:
    return _ORDINAL.sub("", number.replace(",", "").rstrip("%"))


def _spaced(text: str) -> str:
    return text.replace("\u00a0", " ")


def _words(text: str) -> frozenset[str]:
    """Content words (names included: a capitalised word is a content word too), by their stems."""
    return frozenset(w.lower()[:STEM] for w in _WORD.findall(text) if w.lower() not in _STOP)
