"""Codes, measures and names as people say them (issue 55), where the table writes them
otherwise; docchat.tables.naming puts them in the table's words:

- a code of a few values by the words for it: "women" as F of a column of F and M, "Democrats"
  as D of one of D, R and I (`coded_values`);
- a name without its qualifier: "life expectancy" of `life_exp_at_birth`, where no other name
  begins with the same parts (`without_qualifier`);
- a measure by the verb or the superlative said of it: "the closing price" of `close`, "the
  highest price" of a stock's `high`, "the fastest" of a time column as its lowest
  (`measures_said`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from docchat.domain.documents import TableShape
from docchat.tables.row_names import PART, WORD, abbreviates
from docchat.text import singular

_NUMERIC = ("integer", "real")


# Codes tables write for a few values, with the words people say for each: a sex (F, M), a US
# party (D, R, I). A column holding only such codes, both of the first two among them, is so read.
_CODED = (
    {"F": re.compile(r"\b(?:women|woman|female|females|girls?|ladies)\b", re.IGNORECASE),
     "M": re.compile(r"\b(?:men|man|male|males|boys?)\b", re.IGNORECASE)},
    {"D": re.compile(r"\bDemocrat(?:s|ic)?\b"), "R": re.compile(r"\bRepublicans?\b"),
     "I": re.compile(r"\b(?:Independents?|independents)\b")},
)


def coded_values(question: str, shapes: Sequence[TableShape], values: Callable[[TableShape, str], Sequence[str]]) -> str:
    """"Women" as F and "men" as M, "Democrats" as D, of the one text column holding only those
    codes, said with its name ("sex F"), as another column (a last initial) may hold F too."""
    for codes in _CODED:
        wanted = list(codes)
        columns = [name for shape in shapes for name, kind in shape.columns if kind == "text"
                   and set(wanted[:2]) <= {value.strip().upper() for value in values(shape, name)} <= set(wanted)]
        if len(columns) == 1:
            for code, said in codes.items():
                question = said.sub(f"{columns[0]} {code}", question)
    return question


_QUALIFIERS = frozenset(("at", "of", "per", "in", "on", "for", "from", "to", "by"))


def without_qualifier(question: str, names: Sequence[str]) -> str:
    """A name said without its qualifier ("life expectancy" of life_exp_at_birth), where no other
    name begins with the same parts: its two or more parts before the preposition, said in order,
    each the word or abbreviating it."""
    tokens = [(match.group().lower(), match.span()) for match in WORD.finditer(question)]
    heads: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        parts = [part.lower() for part in PART.findall(name)]
        cut = next((at for at, part in enumerate(parts) if at > 0 and part in _QUALIFIERS), None)
        if cut is not None and cut >= 2 and not any(part.isdigit() for part in parts[:cut]):  # "day" is no day_of_week
            heads[name] = parts[:cut]
    for name, head in heads.items():
        if any(other != name and [part.lower() for part in PART.findall(other)][:len(head)] == head for other in names):
            continue  # GDP beside GDP_per_capita: the qualifier tells them apart
        for at in range(len(tokens) - len(head) + 1):
            said = [word for word, _ in tokens[at:at + len(head)]]
            if all(singular(part) == singular(word) or abbreviates(part, word, 3) for part, word in zip(head, said)):
                start, end = tokens[at][1][0], tokens[at + len(head) - 1][1][1]
                return question[:start] + name + question[end:]
    return question


def _verbal(question: str, kinds: Sequence[tuple[str, str]]) -> str:
    """A word in -ing whose verb is a numeric column's whole name ("the closing price" of `close`,
    "opening" of `open`) as that name, where no column is named by the word itself."""
    names = {name.lower(): name for name, kind in kinds if kind in _NUMERIC}
    written = {part.lower() for name, _ in kinds for part in PART.findall(name)}

    def put(match: re.Match[str]) -> str:
        word = match.group().lower()
        if word in written:
            return match.group()
        found = [names[stem] for stem in (word[:-3], word[:-3] + "e") if len(stem) >= 4 and stem in names]
        return found[0] if len(found) == 1 else match.group()
    return re.sub(r"\b[a-z]{4,}ing\b", put, question)


_TIME_PARTS = frozenset(("time", "minutes", "minute", "mins", "seconds", "secs", "hours", "hrs", "duration"))
_QUICK = {"fastest": "lowest", "quickest": "lowest", "slowest": "highest"}


def _timed(question: str, kinds: Sequence[tuple[str, str]]) -> str:
    """A race's time said as people say it, where one numeric column is a time (run_time_minutes,
    time_hrs) and none a speed: "the fastest" as its lowest, "the slowest" as its highest, and
    "time" ("the average finishing time") as its name."""
    times = [name for name, kind in kinds if kind in _NUMERIC and _TIME_PARTS & {part.lower() for part in PART.findall(name)}]
    if len(times) != 1 or any("speed" in name.lower() or "pace" in name.lower() for name, _ in kinds):
        return question
    question, quick = re.subn(r"\b(fastest|quickest|slowest)\b",
                              lambda match: f"{_QUICK[match.group(1).lower()]} {times[0]}", question, flags=re.IGNORECASE)
    time = r"(?<!\bfirst )(?<!\bat the )\btime\b(?!s)"
    if quick:  # "the fastest half-marathon time": the column said once
        return re.sub(rf"\s*{time}", "", question, count=1, flags=re.IGNORECASE)
    if times[0].lower() != "time" and not re.search(rf"\b{re.escape(times[0])}\b", question):
        question = re.sub(time, times[0], question, count=1, flags=re.IGNORECASE)
    return question


def _extremes(question: str, kinds: Sequence[tuple[str, str]]) -> str:
    """"The highest price" as the highest of a column High, and "the lowest" of Low, where a table
    keeps a period's high and low (a stock's open, high, low and close) and the question names
    none of its numeric columns."""
    numeric = {name.lower(): name for name, kind in kinds if kind in _NUMERIC}
    said = {singular(word.lower()) for word in WORD.findall(question)}
    if "high" not in numeric or "low" not in numeric or any(
            {singular(part.lower()) for part in PART.findall(name)} <= said for name in numeric.values()):
        return question
    for word, column in (("highest", "high"), ("lowest", "low")):
        question = re.sub(rf"\b{word}\b", f"{word} {numeric[column]}", question, count=1, flags=re.IGNORECASE)
    return question


def measures_said(question: str, kinds: Sequence[tuple[str, str]]) -> str:
    """The question with the measures it says by a verb in -ing, a stock's highest or lowest
    price, or a time's fastest or slowest, as the columns' names (`kinds`: name, type)."""
    return _timed(_extremes(_verbal(question, kinds), kinds), kinds)
