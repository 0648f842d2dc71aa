"""Rows and cells a question names otherwise than the table writes them (issue 55), put as the
table writes them before the question is read (docchat.tables.naming):

- a row's name in another order ("George Donner" of `Donner, George`), with a word shortened
  ("Whiteface Mountain" of `Whiteface Mtn.`), or the end of it where no other cell ends so ("the
  Falcons" of `Atlanta Falcons`);
- "where … from" (or born) as the table's one column of places (`hometown`), "who publishes" as
  its column `publisher`, "season 11" as `S11` where the season column writes its values so;
- a category's noun as its -ing form ("the banks" of `Banking`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from docchat.domain.documents import TableShape
from docchat.text import singular

WORD = re.compile(r"[^\W\d_]+|\d+")
PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")  # a name's parts: lifeExp, LF.PressureMB, N.Amer
# "Where is Bianca Del Rio from?": the one text column of such places.
_PLACES = frozenset(("hometown", "birthplace", "origin", "homeworld", "home", "from"))
# Endings of a word made from another ("processors" of process); not -ings, the acts themselves
# counted ("hijackings" of a column hijack).
_DERIVED = frozenset(("or", "ors", "er", "ers", "ing", "ed", "ion", "ions", "al"))
_SITES = frozenset(("place", "location", "venue", "site", "city", "town", "where"))
# The places a table's rows may be of: "where did Clinton get her highest share" asks which state.
_AREAS = frozenset(("state", "country", "region", "province", "county", "borough", "district", "nation"))
_ANY_WHERE = re.compile(r"^\s*where\b", re.IGNORECASE)
_WHERE = re.compile(r"^\s*where\b(?=.*\b(?:from|born)\b)", re.IGNORECASE)
# "Who publishes the Journal of Finance?": the verb's doer, a column named Publisher.
_DOER = re.compile(r"^\s*who\s+(?:was\s+|is\s+|were\s+)?(?P<verb>[a-z]{4,}?)(?:es|s|ed|d)?\b", re.IGNORECASE)
_GERUND = re.compile(r"[A-Za-z]{3,}ing")
_CODE = re.compile(r"([A-Za-z]{1,3})(\d+)")


def row_names(question: str, cells: Sequence[str], columns: Sequence[str]) -> str:
    """A name the question gives otherwise than its one cell does, as the cell writes it: its
    words in another order ("George Donner" of `Donner, George`), a word shortened ("Whiteface
    Mountain" of `Whiteface Mtn.`), or the end of the cell's name where no other cell ends so ("the
    Falcons" of `Atlanta Falcons`). Only a capitalised run past the question's first word, and
    only where no cell is written as the run and no column's name holds it (Covered.Entity.Type)."""
    tokens = [(match.group(), match.span()) for match in WORD.finditer(question)]
    named = [{part.lower() for part in WORD.findall(column)} for column in columns]
    parted = [(cell, [part.lower() for part in WORD.findall(cell)]) for cell in dict.fromkeys(cells)]
    whole = {" ".join(parts) for _, parts in parted}
    spans: list[tuple[int, int, str]] = []
    for length in range(min(5, len(tokens)), 0, -1):
        for at in range(1, len(tokens) - length + 1):
            run = tokens[at:at + length]
            if not (run[0][0][0].isupper() and run[-1][0][0].isupper()):
                continue
            words = [word.lower() for word, _ in run]
            start, end = run[0][1][0], run[-1][1][1]
            if any(s < end and start < e for s, e, _ in spans):
                continue
            if " ".join(words) in whole:  # written as a cell already: no part of it is another's
                spans.append((start, end, question[start:end]))
                continue
            if all(len(word) < 3 or word.isdigit() for word in words) or any(
                    set(words) <= parts for parts in named):
                continue
            found = [cell for cell, parts in parted if _same_name(words, parts)]
            if len(found) == 1:
                spans.append((start, end, found[0]))
    for start, end, cell in sorted(spans, reverse=True):
        question = question[:start] + cell + question[end:]
    return question


def _same_name(words: list[str], parts: list[str]) -> bool:
    """Whether a name's words are the cell's in another order, with a word shortened, or a run of
    the cell's words with more of them."""
    if len(words) >= 2 and len(words) == len(parts) and sorted(words) != words and sorted(words) == sorted(parts):
        return True
    if len(words) >= 2 and len(words) == len(parts) and all(
            word == part or abbreviates(part, word, 2) for word, part in zip(words, parts)):
        return any(word != part for word, part in zip(words, parts))
    # the end of the name, as a team or a firm is called ("the Falcons", "Advocate Medical Group")
    return len(words) < len(parts) and parts[-len(words):] == words


def whereabouts(question: str, shapes: Sequence[TableShape]) -> str:
    """"Where … from" (or born) as "What <the column of places>", where one text column is so
    named; any other "where" as "What <the column of sites>" (Place, Venue, Location), where one is,
    else as "In which <the column of places the rows are of>" (State, Country), where one is."""
    places = [name for shape in shapes for name, kind in shape.columns
              if kind == "text" and any(part.lower() in _PLACES for part in PART.findall(name))]
    if len(places) == 1:
        return _WHERE.sub(f"What {places[0]}", question, count=1)
    # "where was the record set": the one column of where things happen (Place, Venue, Location)
    sites = [name for shape in shapes for name, kind in shape.columns
             if kind == "text" and any(singular(part.lower()) in _SITES for part in PART.findall(name))]
    if len(sites) == 1:
        return _ANY_WHERE.sub(f"What {sites[0]}", question, count=1)
    # "where did Clinton do best": the one column of the places the rows are of (State, Country)
    areas = [name for shape in shapes for name, kind in shape.columns
             if kind == "text" and any(singular(part.lower()) in _AREAS for part in PART.findall(name))]
    return _ANY_WHERE.sub(f"In which {areas[0]}", question, count=1) if len(areas) == 1 and not sites else question


def doers(question: str, shapes: Sequence[TableShape]) -> str:
    """"Who publishes" (directed, wrote…) as "Who Publisher", where a text column names the doer."""
    found = _DOER.match(question)
    if found is None:
        return question
    verb = found.group("verb").lower()
    doers = [name for shape in shapes for name, kind in shape.columns if kind == "text" and name.lower() in (
        verb + "er", verb + "r", verb + "or", verb + "ist")]
    return question[:found.start("verb")] + doers[0] + question[found.end():] if len(doers) == 1 else question


def coded(question: str, shapes: Sequence[TableShape], values: Callable[[TableShape, str], Sequence[str]]) -> str:
    """"season 11" as S11, where a text column of that name writes each value as a letter or two
    of its name and a number."""
    for shape in shapes:
        for name, kind in shape.columns:
            said = re.compile(rf"\b{re.escape(name)}\s+(\d+)\b", re.IGNORECASE)
            if kind != "text" or not said.search(question):
                continue
            coded = {value: _CODE.fullmatch(value) for value in values(shape, name)}
            prefixes = {match.group(1).lower() for match in coded.values() if match}
            if not coded or not all(coded.values()) or len(prefixes) != 1 or not name.lower().startswith(min(prefixes)):
                continue
            numbered = {int(match.group(2)): value for value, match in coded.items() if match}
            question = said.sub(lambda match: numbered.get(int(match.group(1)), match.group()), question)
    return question


def abbreviates(short: str, word: str, shortest: int) -> bool:
    if len(short) < shortest or len(short) >= len(word) or short.isdigit():
        return False
    if len(short) >= 5 and word[len(short):] in _DERIVED:
        return False  # a word of its own and one made from it: "processors" is no abbreviation's `process`
    if word.startswith(short):
        return True
    return len(short) >= 3 and short[0] == word[0] and short[-1] == word[-1] and _in_order(short, word)


def _in_order(short: str, word: str) -> bool:
    letters = iter(word)
    return all(letter in letters for letter in short)


def gerunds(question: str, cells: Sequence[str]) -> str:
    """"the banks" as Banking, "mines" as Mining: a noun the question says for one cell that is
    the noun's -ing form (an industry, a category), where no cell is the noun itself."""
    written = {cell.casefold() for cell in cells}
    forms: dict[str, list[str]] = {}
    for cell in cells:
        if _GERUND.fullmatch(cell):
            stem = cell.casefold()[:-3]
            forms.setdefault(stem, []).append(cell)
            forms.setdefault(stem + "e", []).append(cell)  # mine, Mining

    def put(match: re.Match[str]) -> str:
        noun = singular(match.group().casefold())
        found = forms.get(noun, [])
        return found[0] if len(found) == 1 and noun not in written else match.group()
    return WORD.sub(put, question)
