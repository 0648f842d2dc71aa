"""Checks each number an answer's model-written parts state against what the model was given:
the passages, docchat's computed figures and the question. Pure, standard library only.

A number none of them holds is "not in the sources". What counts as holding it:

- Values, not units or currency: "40 %" is found in "40 per cent" and in "40 days", and the sign
  is not compared ("fell by 12%" states a source's "−12%"). Units are written in too many ways
  ("km", "kilometres", "EUR", "€") for a mismatch to mean an error often enough to mark it.
- Rounding: an answer's number stands for a figure within half its own last unit: "5,479.6"
  (0.05), "5480" (0.5) and "5.5 thousand" (50) all stand for 5,479.57; "5,470" does not. The
  answer's precision decides, so one more precise than its source ("5,479.57" for "5,480") is not
  found. A plain integer has a last unit of 1: it must equal an integer source. A scale word
  ("9.5 thousand") or a rounding word ("about 9,500", "nearly 40%") says the answer rounds, and
  its trailing zeros then count as rounding too: "about 9,500" stands for 9,492, "9,500" alone
  does not (a model that changes a count writes it plainly). Years never round ("about 2020").
- Dates as a whole: an answer's date is found when a source names the same day, in any form
  ("3 May 2026", "May 3, 2026", "2026-05-03", "03/05/2026"), or names the day and month without
  a year and names the year apart. Part by part, "5 March 2026" would pass a passage that says
  "2026-03-03" and "5 days": a changed day is the likeliest date error, and some number from 1 to
  31 is in almost every passage. "03/05/2026" is read both ways (day first and month first): the
  check cannot know which the writer meant, and a false mark costs the reader more than a missed
  one. A date without a day ("May 2026") or a year ("3 May") is matched on the parts it has.
- Sources are read generously, the answer strictly: a source's number glued to letters ("Q3",
  "SKU-4471") counts for its digits, a scaled one for its numeral too ("1.2 billion" holds a
  "1.2" an answer's table might state); an answer's identifiers ("Q3", "COVID-19") are not stated
  numbers, nor are its list numbering ("1. ", "2) ") and its citation marks ("[3]"). An answer's
  "one" and "zero" are not checked: "one of the branches" states no figure.

Cost: each text given is scanned once per call (a few regular expressions and
claim_signals.number_words), its values kept sorted, so each stated number is a binary search.
`docchat bench numbers` measures it over eight passages of about 1,500 characters an answer.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator, Sequence

from docchat.domain.grounding import MARK
from docchat.domain.numbers import NumberCheck, StatedNumber
from docchat.grounding.claim_signals import number_words

Date = tuple[int | None, int | None, int | None]  # (year, month, day), a part None when not written
Time = tuple[int, int]  # (hour 0-23, minute)

_MONTH_NUMBERS = {name: number for number, names in enumerate((
    ("January", "Jan"), ("February", "Feb"), ("March", "Mar"), ("April", "Apr"), ("May",), ("June", "Jun"),
    ("July", "Jul"), ("August", "Aug"), ("September", "Sept", "Sep"), ("October", "Oct"), ("November", "Nov"),
    ("December", "Dec")), start=1) for name in names}
# Capitalised only: "may" is a verb. Longest first, so "March" is not read as "Mar" and "ch".
_MONTH = "(?:" + "|".join(sorted(_MONTH_NUMBERS, key=len, reverse=True)) + r")\.?"
_ORDINAL_END = r"(?:st|nd|rd|th)?"
_DATE = re.compile(
    r"(?<![\w-])(?P<iso_y>\d{4})-(?P<iso_m>\d{1,2})-(?P<iso_d>\d{1,2})(?![\w-])"
    r"|(?<![\w/.])(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})(?P=sep)(?P<ab_y>\d{4}|\d{2})(?![\w/]|\.\d)"
    rf"|(?<![\w.,])(?P<dm_d>\d{{1,2}}){_ORDINAL_END}(?:\s+of)?\s+(?P<dm_m>{_MONTH})(?:,?\s+(?P<dm_y>\d{{4}}))?(?!\w)"
    rf"|\b(?P<md_m>{_MONTH})\s+(?P<md_d>\d{{1,2}}){_ORDINAL_END}(?!\d)(?:,?\s+(?P<md_y>\d{{4}}))?(?!\w)"
    rf"|\b(?P<my_m>{_MONTH})\s+(?P<my_y>\d{{4}})(?!\d)")
_TIME = re.compile(r"(?<![\w.:,])(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s?(?P<half>[ap])\.?m\b\.?"
                   r"|(?<![\w.:,])(?P<h24>\d{1,2}):(?P<m24>\d{2})(?![\d:])", re.IGNORECASE)
# "version 3.2.1", "clause 4.2.7": compared as written.
_CODE = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,}(?!\w|\.\d)")
_CURRENCY = r"(?:US\$|[$€£¥₹]|(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK)\s?)"
_NUMBER = re.compile(
    rf"(?<![\w.])(?P<currency>{_CURRENCY})?(?P<sign>[-−–](?=\d))?"
    r"(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)"
    r"|\d{1,3}(?:[\u00a0\u202f\u2009]\d{3})+(?:\.\d+)?(?!\d)"  # "418 907", a no-break space between groups
    r"|(?<=[€£$])\d+,\d{2}(?!\d)|\d+,\d{2}(?=\s?(?:€|EUR))"  # a decimal comma, only beside a currency
    r"|\d+(?:\.\d+)?)"
    r"(?:(?P<ordinal>st|nd|rd|th)(?![A-Za-z])|(?P<percent>\s?%|\s?(?:per\s?cent|percent)\b)"
    r"|\s?(?P<scale>thousand|million|billion|trillion|bn|mn)(?![A-Za-z])|(?P<short>[kKmMB])(?![A-Za-z]))?"
    r"(?P<currency_after>\s?(?:€|EUR)(?![A-Za-z]))?")
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "mn": 1e6,
           "000": 1e3, "m": 1e6}
# "k" is always thousands ("40k"); "m" and "B" are millions and billions beside a currency only ("$3m"; "12m" is metres).
_SHORT_SCALES = {"k": 1e3, "K": 1e3}
_SHORT_SCALES_OF_MONEY = {**_SHORT_SCALES, "m": 1e6, "M": 1e6, "B": 1e9}
# Digits a source glues to letters ("Q3", "v2"): counted for the source, never stated by an answer.
_GLUED = re.compile(r"(?<=[A-Za-z])\d+(?:\.\d+)?")
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)?")
_SPELLED_SCALE = re.compile(r"\s+(hundred|thousand|million|billion)\b", re.IGNORECASE)
_SPELLED_SCALED = re.compile(r"([A-Za-z]+(?:-[A-Za-z]+)?)" + _SPELLED_SCALE.pattern, re.IGNORECASE)
# A Markdown list's own numbering, and a numbered heading: "1. ", "2) ", "## 3. Costs".
_LIST_NUMBER = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+)?\(?\d{1,3}[.)](?=\s)", re.MULTILINE)
# "COVID-19", "SKU-4471", "A/12": an identifier's digits. "mid-2026" is a year.
_IDENTIFIER_BEFORE = re.compile(r"(?<![A-Za-z])([A-Za-z]+)[-/]$")
_DATING_PREFIXES = frozenset("mid pre post early late".split())
# Words that say the number after them is rounded (or a bound, stated as a round number).
_ROUNDING_WORD = re.compile(r"(?:\b(?:about|around|approximately|approx\.|roughly|nearly|almost|some|circa|"
                            r"over|under|more than|less than|fewer than|close to|upwards of)|~|≈)\s*$", re.IGNORECASE)
# A passage that says its figures' scale once: "(in £ thousands)", "in millions", "(£m)", "(£000)".
_DECLARED_SCALE = re.compile(r"\bin (?:[£$€] ?|[A-Z]{3} )?(thousand|million|billion)s\b|\((?:[£$€] ?)?(000|m|bn)\)")
_DECIMAL_COMMA = re.compile(r"\d+,\d{2}")
_SEPARATORS = re.compile(r"[,\u00a0\u202f\u2009]")
# A half unit compared with a little room, so 12.35 stands for 12.4 despite binary floats.
_SLACK = 1 + 1e-9


@dataclass(frozen=True)
class _Stated:
    """A number as the answer states it: what it may stand for, by kind."""

    start: int
    end: int
    value: float | None = None  # a number's value, its scale applied
    half: float = 0.5  # how far a held figure may be and still be this number rounded
    scale: float = 1.0  # its scale word's: 1e9 for "1.2 billion"
    percent: bool = False
    dates: tuple[Date, ...] = ()
    times: tuple[Time, ...] = ()
    code: str | None = None


@dataclass
class _Held:
    """What the sources, the figures and the question hold, read once per check."""

    values: list[float] = field(default_factory=list)  # sorted once filled
    unscaled: list[float] = field(default_factory=list)  # numbers written without a scale word
    dates: set[Date] = field(default_factory=set)
    times: set[Time] = field(default_factory=set)
    codes: set[str] = field(default_factory=set)


def check_numbers(text: str, *, sources: Sequence[str], figures: Sequence[float] = (), question: str = "",
                  spans: Sequence[tuple[int, int]] | None = None) -> NumberCheck:
    """Each number stated in `text`'s model-written `spans` (None: all of it), found or not in
    `sources`, `figures` and `question`; offsets are into `text`."""
    held = _held([*sources, question], figures)
    inside = [(0, len(text))] if spans is None else list(spans)
    return NumberCheck(tuple(StatedNumber(text[s.start:s.end], s.start, s.end, _found(s, held))
                             for s in _stated(text) if any(a <= s.start and s.end <= b for a, b in inside)))


def _found(stated: _Stated, held: _Held) -> bool:
    if stated.dates:
        return any(date in held.dates for date in stated.dates)
    if stated.times:
        # "9 a.m." for a source's "from 9 to 5": an hour on the dot is found as its number too.
        return any(time in held.times or (time[1] == 0 and _near(held.values, (time[0] - 1) % 12 + 1, 0.5))
                   for time in stated.times)
    if stated.code is not None:
        return stated.code in held.codes
    value, half, scale = stated.value or 0.0, stated.half, stated.scale
    # "$1,204 million" for a table "in millions" that says 1,204; "40%" for a share of 0.4.
    return _near(held.values, value, half) or (scale != 1 and _near(held.unscaled, value / scale, half / scale)) \
        or (stated.percent and _near(held.values, value / 100, half / 100))


def _near(values: list[float], value: float, half: float) -> bool:
    at = bisect.bisect_left(values, value - half * _SLACK)
    return at < len(values) and values[at] <= value + half * _SLACK


# The answer's side: each number it states, once, by its place.

def _stated(text: str) -> list[_Stated]:
    scan = _blanked(text)
    taken = bytearray(len(text))
    found: list[_Stated] = []
    for reader in (_stated_dates, _stated_times, _stated_codes, _stated_numbers, _stated_words):
        for stated in reader(scan):
            if not any(taken[stated.start:stated.end]):
                taken[stated.start:stated.end] = b"\x01" * (stated.end - stated.start)
                found.append(stated)
    return sorted(found, key=lambda s: s.start)


def _blanked(text: str) -> str:
    """The text with its citation marks and list numbering made spaces: the offsets stay."""
    def blank(match: re.Match[str]) -> str:
        return " " * len(match.group())
    return _LIST_NUMBER.sub(blank, MARK.sub(blank, text))


def _stated_dates(scan: str) -> Iterator[_Stated]:
    for match in _DATE.finditer(scan):
        if dates := _dates(match):
            yield _Stated(match.start(), match.end(), dates=dates)


def _stated_times(scan: str) -> Iterator[_Stated]:
    for match in _TIME.finditer(scan):
        if times := _times(match):
            yield _Stated(match.start(), match.end(), times=times)


def _stated_codes(scan: str) -> Iterator[_Stated]:
    for match in _CODE.finditer(scan):
        yield _Stated(match.start(), match.end(), code=match.group())


def _stated_numbers(scan: str) -> Iterator[_Stated]:
    for match in _NUMBER.finditer(scan):
        if not _identifier(scan, match.start()):
            yield _number(match, rounded=_ROUNDING_WORD.search(scan, max(0, match.start() - 24), match.start()) is not None)


def _stated_words(scan: str) -> Iterator[_Stated]:
    previous = ""
    for match in _WORD.finditer(scan):
        value = _spelled(previous, match.group())
        previous = match.group()
        if value is None or value < 2:  # "one of the branches", "zero-based": no figure stated
            continue
        end, scale = match.end(), 1.0
        if after := _SPELLED_SCALE.match(scan, end):
            end, scale = after.end(), _SCALES[after.group(1).lower()]
        rounded = _ROUNDING_WORD.search(scan, max(0, match.start() - 24), match.start()) is not None
        yield _Stated(match.start(), end, value=value * scale, half=_half(str(value), scale, rounded), scale=scale)


@lru_cache(maxsize=4096)
def _spelled(previous: str, word: str) -> int | None:
    """`word` as a number, read by claim_signals.number_words with the word before it (which
    tells "the one" from "one day", "a third" from "the third")."""
    return next((int(n) for n, written in number_words(f"{previous} {word}").items() if written == word), None)


def _identifier(scan: str, start: int) -> bool:
    glued = _IDENTIFIER_BEFORE.search(scan, max(0, start - 16), start)
    return glued is not None and glued.group(1).lower() not in _DATING_PREFIXES


def _number(match: re.Match[str], *, rounded: bool) -> _Stated:
    written = match.group("digits")
    digits = written.replace(",", ".") if _DECIMAL_COMMA.fullmatch(written) else _SEPARATORS.sub("", written)
    money = bool(match.group("currency") or match.group("currency_after"))
    scale = _scale(match, money)
    plain = not (money or scale != 1 or match.group("percent"))
    year = plain and written.isdigit() and len(written) == 4 and 1000 <= int(written) < 3000
    return _Stated(match.start(), match.end(), value=float(digits) * scale,
                   half=_half(digits, scale, rounded and not year), scale=scale, percent=bool(match.group("percent")))


def _scale(match: re.Match[str], money: bool) -> float:
    if word := match.group("scale"):
        return _SCALES[word.lower()]
    return (_SHORT_SCALES_OF_MONEY if money else _SHORT_SCALES).get(match.group("short") or "", 1.0)


def _half(digits: str, scale: float, rounded: bool) -> float:
    """Half the number's last unit: 0.05 for "5.5", 50 for "5.5 thousand"; a rounded integer's
    trailing zeros count ("about 9,500": 50)."""
    whole, _, fraction = digits.partition(".")
    unit = 10.0 ** -len(fraction) * scale
    if rounded and not fraction and whole.strip("0"):
        unit *= 10.0 ** (len(whole) - len(whole.rstrip("0")))
    return unit / 2


def _dates(match: re.Match[str]) -> tuple[Date, ...]:
    """The days a date match may mean: "03/05/2026" two, a date that is no day (31/02) none."""
    group = match.group
    readings: list[tuple[int | None, int, int]]
    if group("iso_y"):
        readings = [(int(group("iso_y")), int(group("iso_m")), int(group("iso_d")))]
    elif group("a"):
        year = int(group("ab_y")) + (2000 if len(group("ab_y")) == 2 else 0)
        a, b = int(group("a")), int(group("b"))
        readings = [(year, b, a), (year, a, b)]
    elif group("dm_m"):
        readings = [(_year(group("dm_y")), _MONTH_NUMBERS[group("dm_m").rstrip(".")], int(group("dm_d")))]
    elif group("md_m"):
        readings = [(_year(group("md_y")), _MONTH_NUMBERS[group("md_m").rstrip(".")], int(group("md_d")))]
    else:
        return ((int(group("my_y")), _MONTH_NUMBERS[group("my_m").rstrip(".")], None),)
    return tuple(dict.fromkeys(r for r in readings if 1 <= r[1] <= 12 and 1 <= r[2] <= 31))


def _year(written: str | None) -> int | None:
    return int(written) if written else None


def _times(match: re.Match[str]) -> tuple[Time, ...]:
    """The times of day a match may mean: "5.30 p.m." one, "5:30" two (morning or evening)."""
    if match.group("h24"):
        hour, minute = int(match.group("h24")), int(match.group("m24"))
        if hour > 23 or minute > 59:
            return ()
        return ((hour, minute), (hour + 12, minute)) if 1 <= hour <= 11 else ((hour, minute),)
    hour, minute = int(match.group("h")), int(match.group("m") or 0)
    if not 1 <= hour <= 12 or minute > 59:
        return ()
    return ((hour % 12 + (12 if match.group("half").lower() == "p" else 0), minute),)


def _hold_dates(text: str, held: _Held, years: set[int]) -> None:
    """The text's days, and each as its parts ("May 2026", "3 May"); a day written without a year
    ("paid on 25 March") holds for each year the same text names, and for no other."""
    dated = [date for match in _DATE.finditer(text) for date in _dates(match)]
    years |= {year for year, _, _ in dated if year is not None}
    for year, month, day in dated:
        held.dates.update({(year, month, day), (None, month, day), (year, month, None)})
        if year is None:
            held.dates.update((named, month, day) for named in years)


# The side of what was given: every number each text holds, generously.

def _held(texts: Sequence[str], figures: Sequence[float]) -> _Held:
    held = _Held()
    for text in texts:
        if text:
            _hold(text, held)
    held.values += [abs(figure) for figure in figures]
    held.unscaled += [abs(figure) for figure in figures]
    held.values.sort()
    held.unscaled.sort()
    return held


def _hold(text: str, held: _Held) -> None:
    unscaled = []
    for match in _NUMBER.finditer(text):
        number = _number(match, rounded=False)
        value = number.value or 0.0
        held.values.append(value)
        # A scaled number holds its numeral too ("1.2" of "1.2 billion"); an unscaled one is what
        # an answer's scaled number may be read against ("1,204" of a table in millions).
        (held.values if number.scale != 1 else unscaled).append(value / number.scale)
    held.unscaled += unscaled
    if declared := _DECLARED_SCALE.search(text):  # "(in £ thousands)": its figures are thousands
        scale = _SCALES[declared.group(1) or declared.group(2)]
        held.values += [value * scale for value in unscaled]
    held.values += [float(glued) for glued in _GLUED.findall(text)]
    _hold_dates(text, held, years={int(v) for v in unscaled if v.is_integer() and 1900 <= v <= 2100})
    held.times.update(time for match in _TIME.finditer(text) for time in _times(match))
    held.codes.update(_CODE.findall(text))
    spelled = [float(n) for n in number_words(text)]
    spelled += [n * _SCALES[scale.lower()] for word, scale in _SPELLED_SCALED.findall(text)
                for n in map(float, number_words(word))]
    held.values += spelled
    held.unscaled += spelled
