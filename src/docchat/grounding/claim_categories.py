"""A claim that swaps one word of a closed category for another: "Roses are pruned in midsummer"
cited to a passage saying late February. Words and the embedding match; the month does not.

Each category is a small closed set of values (the months and seasons, the weekdays, the times
of day, how often, before or after, at least or at most, ...), each value a few ways of writing
it. A sentence contradicts its passage when it says a value of a category, the passage says
another value of that category, and the passage never says the sentence's value: "monthly"
against a passage saying "quarterly", "at most" against "at least". A passage silent on the
category says nothing against the sentence. Some values are only ever the passage's side
(a limit is no claim; "any time" against a limit is): they are in the category, never checked.

Measured on `docchat bench grounding` (docs/perf/grounding.md), with the negation and number-word
signals of claim_signals: invented claims caught 0.50 -> 0.85 on the calibration set, 0.25 -> 0.83
on the held-out one, and 0.575 / 0.667 of a fresh set written before these were designed;
no supported sentence of either set marked. Cost: one regular expression a category over each
cited sentence and passage, p50 0.3 ms an answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from docchat.grounding.claim_signals import number_words


@dataclass(frozen=True)
class _Value:
    name: str
    phrases: tuple[str, ...]  # how it is written, lower case
    checked: bool = True  # False: a value only the passage's side counts (a limit is no claim)


def _value(name: str, phrases: str = "", checked: bool = True) -> _Value:
    return _Value(name, tuple(phrase.strip() for phrase in (phrases or name).split("|")), checked)


_MONTHS = "january february march april june july august september october november december".split()
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")
CATEGORIES: dict[str, tuple[_Value, ...]] = {
    # Months and seasons are one category: "in midsummer" against "in late February". Not "May"
    # (the verb) nor "fall" (a date "falls on" a Sunday).
    "time of year": (*(_value(month) for month in _MONTHS), _value("spring"), _value("summer", "summer|midsummer"),
                     _value("autumn"), _value("winter", "winter|midwinter")),
    # "weekend" is Saturday and Sunday, "weekday" Monday to Friday (added below): "excludes
    # weekends" paraphrases "other than a Saturday or a Sunday".
    "day of the week": tuple(_value(day, f"{day}|{day}s") for day in (*_WEEKDAYS, "saturday", "sunday")),
    "time of day": (_value("morning", "morning|mornings"), _value("afternoon", "afternoon|afternoons"),
                    _value("evening", "evening|evenings"), _value("night", "night|nights|overnight|midnight"),
                    _value("midday", "midday|noon")),
    "frequency": (_value("twice a week", "twice a week|twice weekly"),
                  _value("daily", "daily|every day|each day|per day"),
                  _value("weekly", "weekly|every week|each week|once a week|per week"),
                  _value("monthly", "monthly|every month|each month|per month"),
                  _value("quarterly", "quarterly|every quarter|each quarter"),
                  _value("yearly", "yearly|annually|annual|every year|each year|per year|a year")),
    "order": (_value("before", "before|earlier than|preceding|previous|ahead|ahead of|in advance"),
              _value("at once", "on the day|the same day|on the spot|straight away|immediately|at once"),
              _value("after", "after|afterwards|later than|following|in arrears")),
    "bound": (_value("at least", "at least|no less than|not less than|no fewer than|a minimum of|or more"),
              _value("at most", "at most|no more than|not more than|a maximum of|up to|or less|capped at")),
    "amount": (_value("more than"), _value("less than", "less than|fewer than")),
    "direction": (_value("up", "upwards|go up|goes up|rise|rises|raise|raised|increase|increases|higher"),
                  _value("down", "downwards|go down|goes down|lower|lowered|reduce|reduced|decrease|decreases")),
    "place": (_value("indoors"), _value("outdoors")),
    # "any time" or "unlimited" against a passage that sets a limit; a limit itself is no claim.
    # Not "always", "never" or "whenever": a paraphrase says "always pays on the 1st" of a passage
    # giving the 1st, and "never" is a negation (claim_signals).
    "extent": (_value("any time", "at any time|any time|anytime|any day|for ever|forever"
                                  "|unlimited|however long|whatever its|of any size"),
               _value("limit", "within|at least|at most|up to|no more than|only|until|capped|limited|limit",
                      checked=False)),
    # Allowed against a passage that forbids and never allows; "optional" against "required".
    # Not "can": "you can find it in section 5" is no permission.
    "permission": (_value("allowed", "may|allowed|permitted"),
                   _value("forbidden", "must not|may not|mustn't|cannot|can't|never|not allowed|prohibited"
                                       "|forbidden", checked=False)),
    # "in equal monthly instalments" or "half" against "in full". Not "full" or "part" alone: "a
    # full year", "returned in full" against "less any part used for repairs".
    "whole": (_value("whole", "in full|the whole"), _value("part", "in part|half|instalments")),
    "obligation": (_value("optional"), _value("required", "required|must|mandatory|need|needs", checked=False)),
}
_NAMES: dict[str, dict[str, tuple[str, ...]]] = {category: {phrase: (value.name,) for value in values for phrase in value.phrases}
          for category, values in CATEGORIES.items()}
_NAMES["day of the week"].update({**dict.fromkeys(("weekend", "weekends"), ("saturday", "sunday")),
                                  **dict.fromkeys(("weekday", "weekdays"), _WEEKDAYS)})
_CHECKED = {category: frozenset(value.name for value in values if value.checked)
            for category, values in CATEGORIES.items()}
# Longest first, so "no more than" is a bound and not "more than", "may not" forbids.
_MATCHERS = {category: re.compile(r"(?i)(?<![\w'-])(?:" + "|".join(
    re.escape(phrase).replace(r"\ ", r"\s+") for phrase in sorted(names, key=len, reverse=True)) + r")(?![\w-])")
    for category, names in _NAMES.items()}
# "other than a Saturday or a Sunday": what follows these words (and a list after them) is excluded.
_EXCLUDING = re.compile(r"(?i)\b(?:other than|except|excluding|excludes?|exclude|not|no|never|rather than|instead of)"
                        r"\s+(?:(?:a|an|the|on|in|at|for)\s+)*$")
_LIST_BETWEEN = re.compile(r"(?i)^\s*(?:,|or|and|nor)?\s*(?:(?:a|an|the|on|in|at)\s+)*$")


@lru_cache(maxsize=4096)  # a passage is compared with each sentence citing it: read it once
def said(text: str, category: str) -> tuple[frozenset[str], frozenset[str]]:
    """The values of `category` that `text` says, and those it excludes ("other than a Sunday")."""
    found: set[str] = set()
    excluded: set[str] = set()
    end, excluding = 0, False
    for match in _MATCHERS[category].finditer(text):
        between = text[end:match.start()]
        before = text[max(0, match.start() - 40):match.start()]
        excluding = bool(_EXCLUDING.search(before)) or (excluding and bool(_LIST_BETWEEN.match(between)))
        names = _NAMES[category][" ".join(match.group().lower().split())]
        (excluded if excluding else found).update(names)
        end = match.end()
    return frozenset(found), frozenset(excluded)


# Northern seasons' months: "in summer" is said by a passage giving "from April to September".
_SEASONS = {"spring": ("march", "april", "may"), "summer": ("june", "july", "august"),
            "autumn": ("september", "october", "november"), "winter": ("december", "january", "february")}
_MONTH_NAMES = (*_MONTHS[:4], "may", *_MONTHS[4:])
_MONTH_RANGE = re.compile(r"(?i)\b(" + "|".join(_MONTH_NAMES) + r")\s*(?:to|until|till|through|-|–)\s*("
                          + "|".join(_MONTH_NAMES) + r")\b")


def _times_of_year(passage: str, held: frozenset[str]) -> frozenset[str]:
    """The months and seasons a passage says, with the months its ranges span ("April to
    September"), the season of each month, and the months of each season it names. ("in
    January" is still marked against "in February": a month does not stand for its season.)"""
    months = set(held)
    for first, last in _MONTH_RANGE.findall(passage):
        start, end = _MONTH_NAMES.index(first.lower()), _MONTH_NAMES.index(last.lower())
        months.update(_MONTH_NAMES[(start + step) % 12] for step in range((end - start) % 12 + 1))
    named = {season for season in _SEASONS if season in held}
    of_months = {season for season, its in _SEASONS.items() if months & set(its)}
    return frozenset(months | of_months | named | {month for season in named for month in _SEASONS[season]})


_NUMBER = re.compile(r"\d")
# A count of a unit of time: "two weeks" against a passage's "two hours" or "three days".
_COUNT = re.compile(r"(?i)(?<![\w.,-])(\d[\d,]*(?:\.\d+)?|[a-z]+(?:-[a-z]+)?)\s+(minute|hour|day|week|month|year)s?"
                    r"(?![\w-])")


def _has_number(text: str) -> bool:
    return bool(_NUMBER.search(text) or number_words(text))


def counts(text: str) -> set[tuple[str, str]]:
    """Each count of a unit of time in `text`, as (number, unit): "six months'" -> ("6", "month")."""
    found = set()
    for number, unit in _COUNT.findall(text):
        value = number.replace(",", "") if number[0].isdigit() else next(iter(number_words(number)), None)
        if value is not None:
            found.add((value, unit.lower()))
    return found


def _recounted(sentence: str, passage: str) -> bool:
    """A count of a unit the passage never gives, where it gives that number or that unit otherwise."""
    held = counts(passage)
    return any((number, unit) not in held and any(number == n or unit == u for n, u in held)
               for number, unit in counts(sentence))


def swapped(sentence: str, passage: str) -> str | None:
    """The first category whose value the sentence says where the passage says only others (or
    excludes it), or None."""
    for category in CATEGORIES:
        claimed, _ = said(sentence, category)
        if not claimed:
            continue
        held, excluded = said(passage, category)
        if category == "extent" and _has_number(passage):
            held |= {"limit"}  # a date or a count is a limit too
        if category == "time of year" and held:
            held = _times_of_year(passage, held)
        if claimed & excluded - held or held and (claimed & _CHECKED[category]) - held:
            return category
    return "count of a unit" if _recounted(sentence, passage) else None
