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
  ("3 May 2026", "May 3, 2026", "2026-05-03", "03/05/2026"); a day a source names without a year
  ("rent due on 25 March") holds for the years that source names. Part by part, "5 March 2026"
  would pass a passage that says "2026-03-03" and "5 days": a changed day is the likeliest date
  error, and some number from 1 to 31 is in almost every passage. "03/05/2026" is read both ways
  (day first and month first): the check cannot know which the writer meant, and a false mark
  costs the reader more than a missed one. A date without a day ("May 2026") or a year ("3 May")
  is matched on the parts it has.
- Sources are read generously, the answer strictly: a source's number glued to letters ("Q3",
  "SKU-4471") counts for its digits, a scaled one for its numeral too ("1.2 billion" holds a
  "1.2" an answer's table might state), a date's and a time's parts for themselves, and a
  passage that declares its scale ("in £ thousands") holds its figures at that scale too. An
  answer's identifiers ("Q3", "COVID-19") are not stated numbers, nor are its list numbering
  ("1. ", "2) ") and its citation marks ("[3]"); nor its "one" and "zero" ("one of the branches").

Cost: each text is read in two passes of regular expressions (tokens led by a digit, dates led
by a month) and one of its words (for numbers written as words, by claim_signals.number_words),
its values kept sorted, so each stated number is a binary search. `docchat bench numbers`
measures it over eight passages of about 1,500 characters an answer.
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
# Capitalised only: "may" is a verb. Longest first, so "March" is not read as "Mar".
_MONTH = "(?:" + "|".join(sorted(_MONTH_NUMBERS, key=len, reverse=True)) + r")\.?"
_CURRENCY = r"US\$|[$€£¥₹]|(?:USD|EUR|GBP|CHF|JPY|CAD|AUD)\s?"
_DIGITS = (r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)"
           r"|\d{1,3}(?:[\u00a0\u202f\u2009]\d{3})+(?:\.\d+)?(?!\d)"  # "418 907", a no-break space between groups
           r"|(?<=[€£$])\d+,\d{2}(?!\d)|\d+,\d{2}(?=\s?(?:€|EUR))"  # a decimal comma, only beside a currency
           r"|\d+(?:\.\d+)?")
# Every token led by a digit (or its currency or sign), in one pass: a numeric date, a dotted
# code ("version 4.2.1"), or a number with what follows it: an ordinal ending, a month (a date),
# a time of day, a percentage, a scale word.
_TOKEN = re.compile(
    r"(?=[\d$€£¥₹UEGCJA−–-])(?<![\d.,])(?:"
    r"(?P<iso>(?P<iso_y>\d{4})-(?P<iso_m>\d{1,2})-(?P<iso_d>\d{1,2}))(?![\w-])"
    r"|(?P<slashed>(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})(?P=sep)(?P<slashed_y>\d{4}|\d{2}))(?![\w/]|\.\d)"
    r"|(?P<code>\d+(?:\.\d+){2,})(?!\w|\.\d)"
    rf"|(?P<currency>{_CURRENCY})?(?P<sign>[-−–](?=\d))?(?P<digits>{_DIGITS})"
    r"(?:(?P<ordinal>st|nd|rd|th)(?![A-Za-z]))?"
    rf"(?:(?P<month>(?:\s+of)?\s+{_MONTH})(?:,?\s+(?P<month_y>\d{{4}}))?(?!\w)"
    r"|(?::(?P<minutes>\d{2})(?!\d))?(?P<half>\s?[aApP]\.?[mM]\b\.?)|:(?P<minutes24>\d{2})(?![\d:])"
    r"|(?P<percent>\s?%|\s?(?:per\s?cent|percent)\b)"
    r"|\s?(?P<scale>thousand|million|billion|trillion|bn|mn)(?![A-Za-z])|(?P<short>[kKmMB])(?![A-Za-z]))?"
    r"(?P<currency_after>\s?(?:€|EUR)(?![A-Za-z]))?)")
_MONTH_FIRST = re.compile(rf"\b(?P<month>{_MONTH})\s+(?:(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)"
                          rf"(?:,?\s+(?P<year>\d{{4}}))?|(?P<year_only>\d{{4}}))(?!\w)")
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "mn": 1e6,
           "000": 1e3, "m": 1e6}
# "k" is always thousands ("40k"); "m" and "B" are millions and billions beside a currency only ("$3m"; "12m" is metres).
_SHORT_SCALES = {"k": 1e3, "K": 1e3}
_SHORT_SCALES_OF_MONEY = {**_SHORT_SCALES, "m": 1e6, "M": 1e6, "B": 1e9}
# A passage that says its figures' scale once: "(in £ thousands)", "in millions", "(£m)", "(£000)".
_DECLARED_SCALE = re.compile(r"\bin (?:[£$€] ?|[A-Z]{3} )?(thousand|million|billion)s\b|\((?:[£$€] ?)?(000|m|bn)\)")
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_SPELLED_SCALE = re.compile(r"\s+(hundred|thousand|million|billion)\b", re.IGNORECASE)
_SPELLED_SCALES = frozenset(("hundred", "thousand", "million", "billion"))
# A Markdown list's own numbering, and a numbered heading: "1. ", "2) ", "## 3. Costs".
_LIST_NUMBER = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+)?\(?\d{1,3}[.)](?=\s)", re.MULTILINE)
# "COVID-19", "SKU-4471", "A/12": an identifier's digits. "mid-2026" is a year.
_IDENTIFIER_BEFORE = re.compile(r"(?<![A-Za-z])([A-Za-z]+)[-/]$")
_DATING_PREFIXES = frozenset("mid pre post early late".split())
# Words that say the number after them is rounded (or a bound, stated as a round number).
_ROUNDING_WORD = re.compile(r"(?:\b(?:about|around|approximately|approx\.|roughly|nearly|almost|some|circa|"
                            r"over|under|more than|less than|fewer than|close to|upwards of)|~|≈)\s*$", re.IGNORECASE)
_DECIMAL_COMMA = re.compile(r"\d+,\d{2}")
_SEPARATORS = re.compile(r"[,\u00a0\u202f\u2009]")
# A half unit compared with a little room, so 12.35 stands for 12.4 despite binary floats.
_SLACK = 1 + 1e-9


@dataclass(frozen=True)
class _Stated:
    """A number as the answer states it: what it may stand for, by kind."""

    start: int
    end: int
    value: float = 0.0  # a number's value, its scale applied
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
    value, half, scale = stated.value, stated.half, stated.scale
    # "$1,204 million" for a table "in millions" that says 1,204; "40%" for a share of 0.4.
    return _near(held.values, value, half) or (scale != 1 and _near(held.unscaled, value / scale, half / scale)) \
        or (stated.percent and _near(held.values, value / 100, half / 100))


def _near(values: list[float], value: float, half: float) -> bool:
    at = bisect.bisect_left(values, value - half * _SLACK)
    return at < len(values) and values[at] <= value + half * _SLACK


# The answer's side: each number it states, once, by its place.

def _stated(text: str) -> list[_Stated]:
    """Leftmost first, then longest: "3 May 2026" is one date, not a day and a "May 2026"."""
    scan = _blanked(text)
    candidates = sorted([*_stated_tokens(scan), *_stated_month_first(scan), *_stated_words(scan)],
                        key=lambda s: (s.start, -s.end))
    found: list[_Stated] = []
    for stated in candidates:
        if not found or stated.start >= found[-1].end:
            found.append(stated)
    return found


def _blanked(text: str) -> str:
    """The text with its citation marks and list numbering made spaces: the offsets stay."""
    def blank(match: re.Match[str]) -> str:
        return " " * len(match.group())
    return _LIST_NUMBER.sub(blank, MARK.sub(blank, text))


def _stated_tokens(scan: str) -> Iterator[_Stated]:
    for match in _TOKEN.finditer(scan):
        start = _start(scan, match)
        if scan[start - 1:start].isalpha() or _identifier(scan, start):
            continue
        if dates := _dates(match):
            yield _Stated(start, match.end(), dates=dates)
        elif times := _times(match):
            yield _Stated(start, match.end(), times=times)
        elif match.group("code"):
            yield _Stated(start, match.end(), code=match.group("code"))
        elif match.group("digits"):
            yield _number(match, start, rounded=_rounded(scan, start))


def _stated_month_first(scan: str) -> Iterator[_Stated]:
    for match in _MONTH_FIRST.finditer(scan):
        if dates := _month_first_dates(match):
            yield _Stated(match.start(), match.end(), dates=dates)


def _stated_words(scan: str) -> Iterator[_Stated]:
    previous = ""
    for match in _WORD.finditer(scan):
        word, before, previous = match.group(), previous, match.group()
        if _number_word(word) is None:
            continue
        value = _spelled(before, word)
        if value is None or value < 2:  # "one of the branches", "zero-based": no figure stated
            continue
        end, scale = match.end(), 1.0
        if after := _SPELLED_SCALE.match(scan, end):
            end, scale = after.end(), _SCALES[after.group(1).lower()]
        yield _Stated(match.start(), end, value=value * scale,
                      half=_half(str(value), scale, _rounded(scan, match.start())), scale=scale)


@lru_cache(maxsize=4096)
def _number_word(word: str) -> int | None:
    """`word` as a number (claim_signals.number_words), whatever comes before it."""
    return next((int(n) for n, written in number_words(word).items() if written == word), None)


@lru_cache(maxsize=4096)
def _spelled(previous: str, word: str) -> int | None:
    """`word` as a number, read with the word before it, which tells "the one" from "one day"
    and "a third" from "the third" (claim_signals.number_words)."""
    return next((int(n) for n, written in number_words(f"{previous} {word}").items() if written == word), None)


def _start(scan: str, match: re.Match[str]) -> int:
    """Where the token starts: a hyphen after a letter or a digit is no minus ("SKU-4471", "10-12")."""
    if match.group("sign") and not match.group("currency") and scan[match.start() - 1:match.start()].isalnum():
        return match.start("digits")
    return match.start()


def _identifier(scan: str, start: int) -> bool:
    glued = _IDENTIFIER_BEFORE.search(scan, max(0, start - 16), start)
    return glued is not None and glued.group(1).lower() not in _DATING_PREFIXES


def _rounded(scan: str, start: int) -> bool:
    return _ROUNDING_WORD.search(scan, max(0, start - 24), start) is not None


def _number(match: re.Match[str], start: int, *, rounded: bool) -> _Stated:
    written, currency, currency_after, percent, scale_word, short = match.group(
        "digits", "currency", "currency_after", "percent", "scale", "short")
    digits = written.replace(",", ".") if _DECIMAL_COMMA.fullmatch(written) else _SEPARATORS.sub("", written)
    if scale_word:
        scale = _SCALES[scale_word.lower()]
    else:
        scale = (_SHORT_SCALES_OF_MONEY if currency or currency_after else _SHORT_SCALES).get(short or "", 1.0)
    plain = not (currency or currency_after or percent or scale != 1)
    year = plain and len(written) == 4 and written.isdigit() and 1000 <= int(written) < 3000
    return _Stated(start, match.end(), value=float(digits) * scale, half=_half(digits, scale, rounded and not year),
                   scale=scale, percent=bool(percent))


def _half(digits: str, scale: float, rounded: bool) -> float:
    """Half the number's last unit: 0.05 for "5.5", 50 for "5.5 thousand"; a rounded integer's
    trailing zeros count ("about 9,500": 50)."""
    whole, _, fraction = digits.partition(".")
    unit = 10.0 ** -len(fraction) * scale
    if rounded and not fraction and whole.strip("0"):
        unit *= 10.0 ** (len(whole) - len(whole.rstrip("0")))
    return unit / 2


def _dates(match: re.Match[str]) -> tuple[Date, ...]:
    """The days a token led by a digit may mean: "03/05/2026" two, "3 May" one, 31/02 none."""
    group = match.group
    readings: list[tuple[int | None, int, int]]
    if group("iso"):
        readings = [(int(group("iso_y")), int(group("iso_m")), int(group("iso_d")))]
    elif group("slashed"):
        year = int(group("slashed_y")) + (2000 if len(group("slashed_y")) == 2 else 0)
        a, b = int(group("a")), int(group("b"))
        readings = [(year, b, a), (year, a, b)]
    elif group("month") and group("digits").isdigit() and not group("sign") and not group("currency"):
        readings = [(_year(group("month_y")), _MONTH_NUMBERS[group("month").split()[-1].rstrip(".")],
                     int(group("digits")))]
    else:
        return ()
    return tuple(dict.fromkeys(r for r in readings if 1 <= r[1] <= 12 and 1 <= r[2] <= 31))


def _month_first_dates(match: re.Match[str]) -> tuple[Date, ...]:
    month = _MONTH_NUMBERS[match.group("month").rstrip(".")]
    if match.group("year_only"):
        return ((int(match.group("year_only")), month, None),)
    day = int(match.group("day"))
    return ((_year(match.group("year")), month, day),) if 1 <= day <= 31 else ()


def _year(written: str | None) -> int | None:
    return int(written) if written else None


def _times(match: re.Match[str]) -> tuple[Time, ...]:
    """The times of day a token may mean: "5.30 p.m." one, "17:30" one, "5:30" two."""
    digits, minutes, half, minutes24 = match.group("digits", "minutes", "half", "minutes24")
    if not digits or not (half or minutes24) or "," in digits:
        return ()
    hour, _, fraction = digits.partition(".")
    if minutes24:
        h, m = int(hour), int(minutes24)
        if h > 23 or m > 59 or fraction:
            return ()
        return ((h, m), (h + 12, m)) if 1 <= h <= 11 else ((h, m),)
    h, m = int(hour), int(minutes or fraction or 0)
    if not 1 <= h <= 12 or m > 59 or len(fraction) not in (0, 2):
        return ()
    return ((h % 12 + (12 if half.strip(" .").lower().startswith("p") else 0), m),)


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
    unscaled: list[float] = []
    dated: list[Date] = []
    for match in _TOKEN.finditer(text):
        if dates := _dates(match):
            dated += dates
            if year := match.group("month_y"):
                held.values.append(float(year))
        held.times.update(_times(match))
        if code := match.group("code"):
            held.codes.add(code)
        if match.group("digits"):
            number = _number(match, match.start(), rounded=False)
            held.values.append(number.value)
            # A scaled number holds its numeral too ("1.2" of "1.2 billion"); an unscaled one is
            # what an answer's scaled number may be read against ("1,204" of a table in millions).
            (held.values if number.scale != 1 else unscaled).append(number.value / number.scale)
        else:  # a numeric date's or a code's parts: "2026-05-03" holds 2026, 5 and 3
            held.values += map(float, re.findall(r"\d+", match.group()))
    if declared := _DECLARED_SCALE.search(text):  # "(in £ thousands)": its figures are thousands too
        scale = _SCALES[declared.group(1) or declared.group(2)]
        held.values += [value * scale for value in unscaled]
    held.unscaled += unscaled
    dated += [date for match in _MONTH_FIRST.finditer(text) for date in _month_first_dates(match)]
    _hold_dates(dated, held, years={int(v) for v in unscaled if 1900 <= v <= 2100 and v.is_integer()})
    _hold_words(text, held)


def _hold_dates(dated: list[Date], held: _Held, years: set[int]) -> None:
    """Each day, and its parts ("May 2026", "3 May"); a day written without a year ("paid on
    25 March") holds for each year the same text names, and for no other."""
    years |= {year for year, _, _ in dated if year is not None}
    for year, month, day in dated:
        held.dates.update({(year, month, day), (None, month, day), (year, month, None)})
        if year is None:
            held.dates.update((named, month, day) for named in years)


def _hold_words(text: str, held: _Held) -> None:
    """Numbers written as words, alone and with their scale ("three million" holds 3 and 3e6)."""
    words = _WORD.findall(text)
    numbers = {word for word in set(words) if _number_word(word) is not None}
    for at, word in enumerate(words):
        if word in numbers and (value := _spelled(words[at - 1] if at else "", word)) is not None:
            after = words[at + 1].lower() if at + 1 < len(words) else ""
            held.values += [value, value * _SCALES[after]] if after in _SPELLED_SCALES else [value]
            held.unscaled.append(value)

