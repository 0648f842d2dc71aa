"""Checks each number an answer's model-written parts state against what the model was given:
the passages, docchat's computed figures and the question. Pure, standard library only.

A number none of them holds is "not in the sources". What counts as holding it:

- Values, not units or currency: "40 %" is found in "40 per cent" and in "40 days"; nor the sign
  ("fell by 12%" states a source's "−12%"). Units are written in too many ways ("km",
  "kilometres", "EUR", "€") for a mismatch to mean an error often enough to mark it.
- Rounding: an answer's number stands for a figure that rounds (half up) to it at its own last
  unit: "5,479.6", "5480" and "5.5 thousand" all stand for 5,479.57; "5,470" does not, nor does
  "5,479.57" for a source's "5,480" (the answer's precision decides). A plain integer's unit is 1,
  so it must equal an integer source. A scale word ("9.5 thousand") or a rounding word ("about
  9,500", "nearly 40%") says the answer rounds, and its trailing zeros count then: "about 9,500"
  stands for 9,492, "9,500" alone does not (a model that changes a count writes it plainly).
  Years never round ("about 2020" is 2020).
- Dates as a whole, in any form ("3 May 2026", "May 3, 2026", "2026-05-03", "03/05/2026"); a day
  a source names without a year ("rent due on 25 March") holds for the years that source names.
  Part by part, "5 March 2026" would pass a passage saying "2026-03-03" and "5 days": a changed day
  is the likeliest date error, and some number from 1 to 31 is in almost every passage.
  "03/05/2026" is read both ways: the check cannot know which the writer meant, and a false mark
  costs the reader more than a missed one. "May 2026" and "3 May" are matched on their parts.
- Sources are read generously, the answer strictly. A source's digits glued to letters ("Q3",
  "SKU-4471") count, a scaled number's numeral too ("1.2 billion" holds "1.2"), a date's and a
  time's parts, and a passage declaring its scale ("in £ thousands") holds its figures at that
  scale too. An answer's identifiers ("Q3", "COVID-19"), list numbering ("1. ", "2) "), citation
  marks ("[3]") and its "one" and "zero" ("one of the branches") are not stated numbers.

Cost: each text is read by two regular expressions (tokens led by a digit, dates led by a month)
and its words once (numbers written as words, by claim_signals.number_words); the values are kept
sorted, so each stated number is a binary search. `docchat bench numbers` measures it.
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

# Each month's name, then its short names.
_MONTH_NAMES = (("January", "Jan"), ("February", "Feb"), ("March", "Mar"), ("April", "Apr"), ("May",),
                ("June", "Jun"), ("July", "Jul"), ("August", "Aug"), ("September", "Sept", "Sep"),
                ("October", "Oct"), ("November", "Nov"), ("December", "Dec"))
_MONTH_NUMBERS = {name: number for number, names in enumerate(_MONTH_NAMES, start=1) for name in names}
# Capitalised only: "may" is a verb. Longest first, so "March" is not read as "Mar"; a full stop
# only after a short name ("Jan."), so "on 23 March." leaves the sentence its full stop.
_MONTH = "(?:" + "|".join(sorted([names[0] for names in _MONTH_NAMES], key=len, reverse=True)
                          + [short + r"\.?" for names in _MONTH_NAMES for short in names[1:]]) + ")"
# A number's digits after its first: with thousands separators ("418,907", or "418 907" with a
# no-break space), a decimal comma (beside a currency only: "€3,40"), or plain ("5479.57").
_DIGITS_AFTER_FIRST = (r"\d{0,2}(?:,\d{3})+(?:\.\d+)?(?!\d)"
                       r"|\d{0,2}(?:[\u00a0\u202f\u2009]\d{3})+(?:\.\d+)?(?!\d)"
                       r"|(?<=[€£$]\d)\d*,\d{2}(?!\d)|\d*,\d{2}(?=\s?(?:€|EUR))"
                       r"|\d*(?:\.\d+)?")
# Every token led by a digit, in one pass: a numeric date, a dotted code ("version 4.2.1"), or a
# number with what follows it: an ordinal ending, a month (a date), a time of day, a percentage,
# a scale word. Its first digit is matched alone, so the search skips to the next digit at once:
# led by an assertion (what is before it), the same search took twice as long. What is before a
# token, its currency and sign, is read apart (`_lead`).
_TOKEN = re.compile(
    r"\d(?:(?P<iso>\d{3}-\d{1,2}-\d{1,2}(?![\w-]))"
    r"|(?P<slashed>\d?(?P<sep>[/.])\d{1,2}(?P=sep)(?:\d{4}|\d{2})(?![\w/]|\.\d))"
    r"|(?P<code>\d*(?:\.\d+){2,}(?!\w|\.\d))"
    rf"|(?P<digits>{_DIGITS_AFTER_FIRST})"
    r"(?:(?P<ordinal>st|nd|rd|th)(?![A-Za-z]))?"
    rf"(?:(?=\s+(?:of\s+)?[JFMASOND])(?P<month>(?:\s+of)?\s+{_MONTH})(?:,?\s+(?P<month_y>\d{{4}}))?(?!\w)"
    r"|(?::(?P<minutes>\d{2})(?!\d))?(?P<half>\s?[aApP](?:\.[mM](?![A-Za-z])\.?|[mM]\b))"
    r"|:(?P<minutes24>\d{2})(?![\d:])"
    r"|(?P<percent>\s?%|\s?(?:per\s?cent|percent)\b)"
    r"|\s?(?P<scale>thousand|million|billion|trillion|bn|mn)(?![A-Za-z])|(?P<short>[kKmMB])(?![A-Za-z]))?"
    r"(?P<currency_after>\s?(?:€|EUR)(?![A-Za-z]))?)")
# The currency and the minus sign before a number ("−$5", "€3.40", "USD 12"); a hyphen after a
# letter or a digit is none ("SKU-4471", "10-12").
_LEAD = re.compile(r"(?:(?<!\w)[-−–])?(?P<currency>US\$|[$€£¥₹]|(?<![A-Za-z])(?:USD|EUR|GBP|CHF|JPY|CAD|AUD) ?)?"
                   r"(?:(?<!\w)[-−–])?$")
# Led by a month's name; no \b before it, which would make the search try every place in the
# text (ten times as slow): a letter before it is looked at apart.
_MONTH_FIRST = re.compile(rf"(?P<month>{_MONTH})\s+(?:(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)"
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
# Lower case, a plain alternation the search skips ahead for: a source's "three million".
_SPELLED_SCALE_IN_SOURCE = re.compile(r"hundred|thousand|million|billion")
_PUNCTUATION = ".,;:!?()[]{}\"'‘’“”"
_WORD_BEFORE = re.compile(r"([A-Za-z]+(?:-[A-Za-z]+)*)\s+$")
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
_PARTS = re.compile(r"\d+")
# A token whose last group is one of these is a number with nothing after it that changes its value.
_PLAIN_ENDINGS = frozenset(("digits", "ordinal", "percent"))
# A half unit compared with a little room, so 12.35 rounds to 12.4 despite binary floats.
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


def values_in(text: str) -> list[tuple[str, bool]]:
    """Each number and date `text` states, as written, leftmost first, and whether it is a date."""
    return [(text[s.start:s.end], bool(s.dates)) for s in _stated(text) if s.code is None and not s.times]


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
    """Whether a held value rounds (half up) to `value`: one in [value - half, value + half)."""
    at = bisect.bisect_left(values, value - half * _SLACK)
    return at < len(values) and values[at] < value + half / _SLACK


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
        start, money = _lead(scan, match.start())
        if _glued(scan, start) or _identifier(scan, start):
            continue
        if dates := _dates(match):
            yield _Stated(start, match.end(), dates=dates)
        elif times := _times(match):
            yield _Stated(start, match.end(), times=times)
        elif match.group("code") is not None:
            yield _Stated(start, match.end(), code=match.group())
        elif match.group("digits") is not None:
            yield _number(match, start, money=money, rounded=_rounded(scan, start))


def _stated_month_first(scan: str) -> Iterator[_Stated]:
    for match, dates in _month_first(scan):
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


# Kept for the process: a library's words repeat from passage to passage. Eight passages whose
# 975 words were all new took 1.6 ms more to check (CPU, on the bench's machine) than once read.
@lru_cache(maxsize=1 << 16)
def _number_word(word: str) -> int | None:
    """`word` as a number (claim_signals.number_words), whatever comes before it."""
    return next((int(n) for n, written in number_words(word).items() if written == word), None)


@lru_cache(maxsize=4096)
def _spelled(previous: str, word: str) -> int | None:
    """`word` as a number, read with the word before it, which tells "the one" from "one day"
    and "a third" from "the third" (claim_signals.number_words)."""
    return next((int(n) for n, written in number_words(f"{previous} {word}").items() if written == word), None)


def _lead(scan: str, start: int) -> tuple[int, bool]:
    """Where a number starts, with its currency and sign, and whether it is an amount of money."""
    lead = _LEAD.search(scan, max(0, start - 5), start)
    return (lead.start(), lead.group("currency") is not None) if lead else (start, False)


def _glued(scan: str, start: int) -> bool:
    """Whether the token is part of a word ("Q3") or of a longer number ("1,2345", "v1.2")."""
    before = scan[start - 1:start]
    return before.isalpha() or (before in (".", ",") and scan[start - 2:start - 1].isdigit())


def _identifier(scan: str, start: int) -> bool:
    glued = _IDENTIFIER_BEFORE.search(scan, max(0, start - 16), start)
    return glued is not None and glued.group(1).lower() not in _DATING_PREFIXES


def _rounded(scan: str, start: int) -> bool:
    return _ROUNDING_WORD.search(scan, max(0, start - 24), start) is not None


def _number(match: re.Match[str], start: int, *, money: bool, rounded: bool) -> _Stated:
    currency_after, percent, scale_word, short = match.group("currency_after", "percent", "scale", "short")
    written = _digits(match)
    digits = _plain(written)
    money = money or bool(currency_after)
    if scale_word:
        scale = _SCALES[scale_word.lower()]
    else:
        scale = (_SHORT_SCALES_OF_MONEY if money else _SHORT_SCALES).get(short or "", 1.0)
    plain = not (money or percent or scale != 1)
    year = plain and len(written) == 4 and written.isdigit() and 1000 <= int(written) < 3000
    return _Stated(start, match.end(), value=float(digits) * scale, half=_half(digits, scale, rounded and not year),
                   scale=scale, percent=bool(percent))


def _plain(written: str) -> str:
    """A number's digits without separators, with a decimal point: "418907", "3.40" of "€3,40"."""
    return written.replace(",", ".") if _DECIMAL_COMMA.fullmatch(written) else _SEPARATORS.sub("", written)


def _digits(match: re.Match[str]) -> str:
    """A number token's digits, its first included ("" for a date or a code)."""
    return match.string[match.start():match.end("digits")] if match.group("digits") is not None else ""


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
    if group("iso") is not None:
        year, month, day = map(int, match.group().split("-"))
        readings = [(year, month, day)]
    elif group("slashed") is not None:
        a, b, year = map(int, match.group().split(group("sep")))
        year += 2000 if year < 100 else 0
        readings = [(year, b, a), (year, a, b)]
    elif group("month") and (written := _digits(match)).isdigit():
        month = _MONTH_NUMBERS[group("month").split()[-1].rstrip(".")]
        readings = [(int(group("month_y")) if group("month_y") else None, month, int(written))]
    else:
        return ()
    return tuple(dict.fromkeys(r for r in readings if 1 <= r[1] <= 12 and 1 <= r[2] <= 31))


def _month_first(text: str) -> Iterator[tuple[re.Match[str], tuple[Date, ...]]]:
    """The dates led by a month's name ("May 3, 2026", "May 2026"), not in a word ("Dismay 3")."""
    for match in _MONTH_FIRST.finditer(text):
        month, day, year, year_only = match.group("month", "day", "year", "year_only")
        if text[match.start() - 1:match.start()].isalpha() or (day and not 1 <= int(day) <= 31):
            continue
        number = _MONTH_NUMBERS[month.rstrip(".")]
        yield match, (((int(year_only), number, None),) if year_only else
                      ((int(year) if year else None, number, int(day)),))


def _times(match: re.Match[str]) -> tuple[Time, ...]:
    """The times of day a token may mean: "5.30 p.m." one, "17:30" one, "5:30" two."""
    minutes, half, minutes24 = match.group("minutes", "half", "minutes24")
    digits = _digits(match)
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
    unscaled, dated = _hold_tokens(text, held)
    if _declares_scale(text) and (declared := _DECLARED_SCALE.search(text)):  # "(in £ thousands)"
        scale = _SCALES[declared.group(1) or declared.group(2)]
        held.values += [value * scale for value in unscaled]
    held.unscaled += unscaled
    dated += [date for _, dates in _month_first(text) for date in dates]
    _hold_dates(dated, held, years={int(v) for v in unscaled if 1900 <= v <= 2100 and v.is_integer()})
    _hold_words(text, held)


def _declares_scale(text: str) -> bool:
    """Whether the text may declare its scale: looked for as plain strings first, the regular
    expression being as slow as the whole of the rest of a passage's reading."""
    return any(part in text for part in ("thousands", "millions", "billions", "000)", "m)", "bn)"))


def _hold_tokens(text: str, held: _Held) -> tuple[list[float], list[Date]]:
    """The values of the tokens led by a digit (those written without a scale word apart), and
    their days."""
    unscaled: list[float] = []
    dated: list[Date] = []
    for match in _TOKEN.finditer(text):
        if match.lastgroup in _PLAIN_ENDINGS:  # most of them: "418,907", "15th", "40%"
            written = text[match.start():match.end("digits")]
            unscaled.append(float(written) if written.isascii() and "," not in written else float(_plain(written)))
        elif match.group("digits") is None:  # a numeric date or a code: "2026-05-03" holds 2026, 5 and 3 too
            dated += _dates(match)
            if match.group("code") is not None:
                held.codes.add(match.group())
            held.values += map(float, _PARTS.findall(match.group()))
        else:
            _hold_number(text, match, held, unscaled, dated)
    held.values += unscaled
    return unscaled, dated


def _hold_number(text: str, match: re.Match[str], held: _Held, unscaled: list[float], dated: list[Date]) -> None:
    """A number with a month, a time of day, a scale or a currency after it."""
    last = match.lastgroup
    if last in ("month", "month_y", "half", "minutes24"):  # a day ("3 May 2026"), a time ("5.30 p.m.")
        dated += _dates(match)
        held.times.update(_times(match))
        unscaled.append(float(_plain(_digits(match))))
        held.values += [float(match.group("month_y"))] if last == "month_y" else []
        return
    start, money = _lead(text, match.start())
    number = _number(match, start, money=money, rounded=False)
    # A scaled number holds its numeral too ("1.2" of "1.2 billion"); an unscaled one is what an
    # answer's scaled number may be read against ("1,204" of a table in millions).
    if number.scale != 1:
        held.values += [number.value, number.value / number.scale]
    else:
        unscaled.append(number.value)


def _hold_dates(dated: list[Date], held: _Held, years: set[int]) -> None:
    """Each day, and its parts ("May 2026", "3 May"); a day written without a year ("paid on
    25 March") holds for each year the same text names, and for no other."""
    years |= {year for year, _, _ in dated if year is not None}
    for year, month, day in dated:
        held.dates.update({(year, month, day), (None, month, day), (year, month, None)})
        if year is None:
            held.dates.update((named, month, day) for named in years)


def _hold_words(text: str, held: _Held) -> None:
    """Numbers written as words, whatever is before them (a source's "the one" holds a 1: read
    generously, and each word once), and with their scale ("three million" holds 3e6 too)."""
    # Split on spaces, not by a regular expression: a third of the time, and each word once.
    words = {word.strip(_PUNCTUATION) for word in set(text.split())}
    spelled = [value for word in words if (value := _number_word(word)) is not None]
    held.values += spelled
    held.unscaled += spelled
    for scale in _SPELLED_SCALE_IN_SOURCE.finditer(text):
        before = _WORD_BEFORE.search(text, max(0, scale.start() - 24), scale.start())
        if before and (value := _number_word(before.group(1))) is not None:
            held.values.append(value * _SCALES[scale.group()])
