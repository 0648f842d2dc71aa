"""Places a question names otherwise than its table writes them (issue 55):

- in full where a table writes their codes: "outside California" of a State column holding CA.
  Only the US states' and DC's postal codes: the codes public tables of the US write most, and a
  fixed list (USPS), so nothing is guessed;
- by the word for their people: "a Canadian" of Canada, "Kenyans" of Kenya, "Italian" of Italy,
  where the word less its ending (-ian, -an, -ese, -ish, -s) is the one place's name less its last
  vowel, and no cell writes the word itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

US_STATES = {
    "Alabama": "AL", "Alaska": "AK", "Arizona": "AZ", "Arkansas": "AR", "California": "CA", "Colorado": "CO",
    "Connecticut": "CT", "Delaware": "DE", "District of Columbia": "DC", "Florida": "FL", "Georgia": "GA",
    "Hawaii": "HI", "Idaho": "ID", "Illinois": "IL", "Indiana": "IN", "Iowa": "IA", "Kansas": "KS", "Kentucky": "KY",
    "Louisiana": "LA", "Maine": "ME", "Maryland": "MD", "Massachusetts": "MA", "Michigan": "MI", "Minnesota": "MN",
    "Mississippi": "MS", "Missouri": "MO", "Montana": "MT", "Nebraska": "NE", "Nevada": "NV", "New Hampshire": "NH",
    "New Jersey": "NJ", "New Mexico": "NM", "New York": "NY", "North Carolina": "NC", "North Dakota": "ND",
    "Ohio": "OH", "Oklahoma": "OK", "Oregon": "OR", "Pennsylvania": "PA", "Rhode Island": "RI",
    "South Carolina": "SC", "South Dakota": "SD", "Tennessee": "TN", "Texas": "TX", "Utah": "UT", "Vermont": "VT",
    "Virginia": "VA", "Washington": "WA", "West Virginia": "WV", "Wisconsin": "WI", "Wyoming": "WY",
}
# The longest names first: "West Virginia" before "Virginia".
_NAMED = re.compile(r"\b(" + "|".join(sorted(map(re.escape, US_STATES), key=len, reverse=True)) + r")\b")


def as_codes(question: str, cells: Sequence[str]) -> str:
    """The question with each US state it names in full put as its postal code, where the tables
    write the code and not the name."""
    written = set(cells)
    return _NAMED.sub(lambda match: US_STATES[match.group()] if US_STATES[match.group()] in written
                      and match.group() not in written else match.group(), question)


_ENDINGS = ("ians", "ans", "ese", "ish", "ian", "an", "s", "")
_PEOPLES = re.compile(r"\b[A-Z][a-z]{4,}\b")


def as_places(question: str, cells: Sequence[str]) -> str:
    """The question with each word for a place's people put as the place, where one cell of the
    tables is that place ("How many times did a Canadian win": Canada)."""
    places: dict[str, set[str]] = {}
    for cell in set(cells):
        if re.fullmatch(r"[A-Z][a-z]{3,}", cell):
            places.setdefault(cell.lower().rstrip("aeiouy"), set()).add(cell)
    written = {word.lower() for cell in cells for word in re.findall(r"\w+", cell)}

    def place(match: re.Match[str]) -> str:
        word = match.group()
        if word.lower() in written:
            return word
        found = {cell for ending in _ENDINGS if word.lower().endswith(ending)
                 for cell in places.get(word.lower()[:len(word) - len(ending)], ())}
        return found.pop() if len(found) == 1 else word

    return _PEOPLES.sub(place, question) if places else question
