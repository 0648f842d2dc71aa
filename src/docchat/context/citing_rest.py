"""The rest of a constrained answer cut at the length limit (issue 39): what may follow the answer so
far under the pattern it was begun in (docchat.context.citing), so that Continue goes on citing.

The server's matcher starts where the answer so far ends, not where the answer began, so the
rest is a pattern of its own: the rest of the sentence under way (its text up to the bound, then
its marks, or the rest of its marks), then the sentences left of the answer's six. Where the
answer so far can be read two ways ("\\n-" ends a separator or begins a sentence with "-"), the
rest takes either. Each way is kept only if the shortest text it takes, after the answer so far,
keeps to the whole pattern: an answer that did not keep to it (a server that ignored the field)
gets no rest, and goes on freely.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from docchat.context.citing import (
    MAX_SENTENCES, SENTENCE_UNITS, SEPARATOR, UNIT, citing, grammar_rules, marks_regex, matches, seconds,
    sentence_regex,
)
from docchat.domain.grounding import REFUSAL, Constraint

# What may come between two sentences (`citing.SEPARATOR`), and before the first.
SEPARATORS = (" ", "\n", "\n\n", "\n- ", "\n\n- ")
FIRST_LEADS = ("", "- ")
_SENTENCE_END = re.compile(r"\][.!?]")  # only marks hold a "]", and a full stop follows the last
_MARKS_SO_FAR = re.compile(r"\[(\d*)(?:(\])(?:\[(\d*)(\])?)?)?")


@dataclass(frozen=True)
class _Part:
    """A piece of the rest, as each server takes it, with the shortest text it takes."""

    regex: str
    grammar: str
    example: str


_EMPTY = _Part("", "", "")
_SPACE = _Part(" ?", '" "?', "")
_STOP = _Part("[.!?]", "[.!?]", ".")
_PAIR_END = _Part(r"[^\x00-\x20\[\]]", r"[^\x00-\x20\x5B\x5D]", "x")  # after a full stop inside a sentence


def rest(prefix: str, numbers: Sequence[int]) -> Constraint | None:
    """The pattern of what may follow `prefix`, an answer begun under `citing(numbers)`; None when
    nothing may (the answer is whole) or `prefix` did not keep to that pattern."""
    given = sorted(set(numbers))
    if not given:
        return None
    whole = citing(given)
    if not prefix:
        return whole
    ends = [end.end() for end in _SENTENCE_END.finditer(prefix)]
    tail = prefix[ends[-1]:] if ends else prefix
    left = MAX_SENTENCES - len(ends)
    ways = _ways(tail, given, left, first=not ends)
    if not ends and REFUSAL.startswith(prefix) and prefix != REFUSAL:
        ways.append(_literal(REFUSAL[len(prefix):]))
    kept = [way for way in ways if way.regex and matches(prefix + way.example, whole)]
    if not kept:
        return None
    either = _any(kept)
    # Whole already, and the rest must also take nothing ("I could not find this in the passages."
    # may go on "x [1]."); after a whole sentence it does already.
    if matches(prefix, whole) and re.fullmatch(either.regex, "") is None:
        either = _Part(f"(?:{either.regex})?", f"({either.grammar})?", "")
    return Constraint(numbers=tuple(given), regex=either.regex,
                      grammar="\n".join((f"root ::= {either.grammar}", *grammar_rules(given))))


def _ways(tail: str, given: list[int], left: int, *, first: bool) -> list[_Part]:
    """Each reading of the text after the last whole sentence, as the rest it leaves."""
    sentence = _Part(sentence_regex(given), "sent", f"A[{given[0]}].")
    if not tail:
        return [_more(sentence, left)]
    ways = []
    for lead in FIRST_LEADS if first else SEPARATORS:
        if lead.startswith(tail) and lead != tail:  # within the separator: a sentence must follow
            ways.append(_sequence(_literal(lead[len(tail):]), sentence, _more(sentence, left - 1)))
        elif tail.startswith(lead):
            begun = tail[len(lead):]
            under_way = _under_way(begun, given) if begun else sentence
            if under_way is not None:
                ways.append(_sequence(under_way, _more(sentence, left - 1)))
    return ways


def _under_way(begun: str, given: list[int]) -> _Part | None:
    """The rest of a sentence begun with `begun`: its text and marks, or the rest of its marks."""
    if "[" not in begun:
        units, open_pair = _units(begun[1:])
        room = SENTENCE_UNITS - units - open_pair
        marks = _Part(f"(?:{marks_regex(given)})", "marks", f"[{given[0]}]")
        if room == -1 and begun.endswith(" "):  # a full sentence's text, and the space before its marks
            return _sequence(marks, _STOP)
        if room < 0:
            return None
        return _sequence(_PAIR_END if open_pair else _EMPTY, _units_upto(room), _SPACE, marks, _STOP)
    so_far = _MARKS_SO_FAR.fullmatch(begun[begun.index("["):])
    if so_far is None:
        return None
    first, closed, second, closed_second = so_far.groups()
    if not closed:
        options = [_sequence(_literal(f"{n}]"[len(first):]), _second_mark(given, n), _STOP)
                   for n in given if str(n).startswith(first)]
        return _any(options) if options else None
    if not first or int(first) not in given:
        return None
    if second is None:
        return _sequence(_second_mark(given, int(first)), _STOP)
    if closed_second:
        return _STOP
    options = [_sequence(_literal(f"{n}]"[len(second):]), _STOP)
               for n in seconds(given, int(first)) if str(n).startswith(second)]
    return _any(options) if options else None


def _units(text: str) -> tuple[int, int]:
    """How many units a sentence's text after its first character holds (a full stop and the
    character after it are one), and whether it ends inside one (a full stop, 1) or not (0)."""
    units, at = 0, 0
    while at < len(text):
        if text[at] in ".!?":
            if at + 1 == len(text):
                return units, 1
            at += 1
        at += 1
        units += 1
    return units, 0


def _units_upto(room: int) -> _Part:
    return _Part(f"{UNIT}{{0,{room}}}", f"unit{{0,{room}}}", "") if room > 0 else _EMPTY


def _second_mark(given: list[int], first: int) -> _Part:
    later = seconds(given, first)
    if not later:
        return _EMPTY
    numbers = _any([_literal(str(n)) for n in later])
    return _Part(rf"(?:\[{numbers.regex}\])?", f'("[" {numbers.grammar} "]")?', "")


def _more(sentence: _Part, left: int) -> _Part:
    """Up to `left` more sentences, each after a separator."""
    if left <= 0:
        return _EMPTY
    return _Part(f"(?:{SEPARATOR}{sentence.regex}){{0,{left}}}", f"(sep sent){{0,{left}}}", "")


def _literal(text: str) -> _Part:
    regex = "".join("\\n" if c == "\n" else f"\\{c}" if c in r"\.^$*+?{}[]|()-" else c for c in text)
    grammar = '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return _Part(regex, grammar, text)


def _sequence(*parts: _Part) -> _Part:
    return _Part("".join(p.regex for p in parts), " ".join(p.grammar for p in parts if p.grammar),
                 "".join(p.example for p in parts))


def _any(parts: list[_Part]) -> _Part:
    """Any one of `parts` (at least one)."""
    if len(parts) == 1:
        return parts[0]
    return _Part("(?:" + "|".join(p.regex for p in parts) + ")",
                 "(" + " | ".join(p.grammar for p in parts) + ")", parts[0].example)
