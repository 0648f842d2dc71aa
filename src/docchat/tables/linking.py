"""How sure docchat is of its reading of a question over a table (issue 55 part 2): the words of
the question that could change its figure and that the reading did not use.

A figure is stated as docchat's only when its reading used every such word; else it is said as
unsure, with the reading and the words it left unread ("the second highest": docchat reads the
highest; "the median price": it reads none). Those words are:

- numbers ("8", "12,500", "0.5") and counts written out ("three"): a bound, a value, a year or a
  number of rows the reading used says them (`what` holds each, as its words say the query);
- names a question capitalises past its first word ("Texas", "Biscoe"), which are values,
  columns or names of the document or the table;
- months ("in March"), used when the reading holds a month or a date;
- words the reading uses in some shapes only ("first", "per", "different", "not", "than",
  "times", "top"), used when the reading's words show that shape;
- words docchat does not read at all ("median", "percentage", "second", "increase"): never used;
- the noun a question picks ("which month"), or a unit it counts ("how many hours" is a measure,
  not a count of rows): used when the reading, the document, the table or a column names it.

Everything else (verbs, the noun a row stands for, "average", "how many") is no link: a reading
that misses one of them computes the same figure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docchat.domain.documents import TableShape
from docchat.tables.dates import MONTHS
from docchat.text import singular

# Words people use for a value that tables write otherwise ("women" for Female).
SAME_AS = {"women": "female", "woman": "female", "girls": "female", "girl": "female", "ladies": "female",
           "men": "male", "man": "male", "boys": "male", "boy": "male", "gentlemen": "male",
           "children": "child", "kids": "child", "kid": "child", "adults": "adult"}
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_WORD = re.compile(r"[^\W_]+")
# Small words, and words of a question's figure, written in lower case: they name no value written
# in capitals ("IN", Indiana; "Total", a company).
_SMALL = frozenset(("a", "an", "the", "in", "on", "at", "to", "of", "or", "by", "as", "is", "it", "be", "me", "my",
                    "we", "he", "if", "so", "up", "do", "total", "sum", "average", "mean", "top", "all", "most",
                    "least", "number", "how", "many", "much", "what", "which"))
_CAMEL = re.compile(r"(?<=[a-z]{2})(?=[A-Z])")  # lifeExp, passengerClass; not iPlayer
# Numbers written out, as questions count rows and values ("the first three", "the top five").
NUMBER_WORDS = {word: number for number, word in enumerate(
    "one two three four five six seven eight nine ten".split(), start=1)}
_COUNTS = {word: number for word, number in NUMBER_WORDS.items() if number > 1}
_MONTHS = {month.lower() for month in MONTHS}
_CAPITALISED_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")
# A word of a shape, and the words of a reading that show the reading is of that shape.
_SHAPE_WORDS = {
    "first": {"first"}, "last": {"last"}, "final": {"last"}, "latest": {"last"},
    "top": {"highest"}, "bottom": {"lowest"},
    "per": {"per"}, "each": {"per"},
    "different": {"different"}, "distinct": {"different"}, "unique": {"different"},
    "not": {"not", "no"}, "except": {"not"}, "excluding": {"not"}, "outside": {"not"}, "without": {"not"},
    "besides": {"not"},
    "than": {"than", "difference", "ratio", "highest", "lowest"},
    "times": {"ratio", "row"}, "ratio": {"ratio"},  # "how many times did she win": her rows, counted
}
# What a question counts or picks: the noun after "how many" or "which" ("how many people",
# "which month"), a few words such as "more" or "of the" between them aside.
_ASKED = re.compile(r"\b(?:how\s+many|which)\s+(?:(?:more|fewer|less|of|the|different|distinct|unique|top|bottom|"
                    r"two|three|four|five|six|seven|eight|nine|ten|\d+)\s+)*"
                    r"(?P<noun>[^\W\d_]{3,})", re.IGNORECASE)
_UNITS = frozenset((
    "hours", "minutes", "seconds", "km", "kilometres", "kilometers", "miles",
    "metres", "meters", "feet", "inches", "kg", "kilograms", "grams", "pounds", "lbs", "tonnes", "tons", "litres",
    "liters", "gallons", "dollars", "euros", "cents", "calories", "degrees", "points", "goals", "runs",
))
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_SCALED = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s+(thousand|million|billion|trillion)\b", re.IGNORECASE)
_RATE = re.compile(r"\bper[- ](?=(?:capita|person|head|cent|gallon|hour|mile|litre|liter)\b)", re.IGNORECASE)
_COUNTED_FILLERS = frozenset(("the", "there", "and", "all", "total", "altogether", "table", "sheet", "list", "listed",
                              "here", "this", "these", "those", "they", "them", "its", "their", "data", "file"))
_FILLERS = frozenset(("are", "were", "was", "is", "did", "does", "do", "had", "has", "have", "there", "of", "one"))
_NEVER_READ = frozenset((
    "median", "mode", "percent", "percentage", "percentages", "proportion", "share", "fraction", "cumulative",
    "cumulatively", "running", "increase", "increased", "decrease", "decreased", "growth", "grew", "change",
    "changed", "deviation", "variance", "std", "second", "third", "fourth", "fifth", "penultimate", "half",
    "quarter", "weighted", "ratios",
))
# "How many people were killed", where no column counts deaths, is not the accidents counted; "how
# many soldiers died of disease" is read with the column disease.
_DEATHS_OF_PEOPLE = re.compile(r"\b(?:people|persons|individuals)\s+(?:\w+\s+)?(?:died|die|killed)\b", re.IGNORECASE)


_CONTRACTED = re.compile(r"\b([^\W\d_]+?)n['’]t\b", re.IGNORECASE)
_IRREGULAR = {"wo": "will", "ca": "can", "sha": "shall"}  # won't, can't, shan't


_A_SCALE = re.compile(r"\b(?:a|one)\s+(thousand|million|billion|trillion)\b", re.IGNORECASE)


def written_out(question: str) -> str:
    """The question with "n't" written out ("weren't women": were not women; "won't": will not),
    so that its "not" is read, and no "t" or "weren" is taken for a cell (T, Wren); and "a
    million" in digits ("fewer than a million entries": 1 million), as a bound is read."""
    question = _CONTRACTED.sub(lambda match: _IRREGULAR.get(match.group(1).lower(), match.group(1)) + " not", question)
    return _A_SCALE.sub(lambda match: f"1 {match.group(1)}", question)


def unread_words(question: str, what: str, names: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The words of `question` that could change its figure and that the reading `what` ("the
    total of Pallets where Location is Oslo") did not use, in the question's order; `names`: the
    document's, the table's and its columns', whose words the question may use to name them."""
    read = {plain(word) for word in _words(" ".join((what, *names))) + words_of(" ".join((what, *names)))}
    named = " ".join(plain_phrase(name).replace(" ", "") for name in names)  # "insect" in "insectsprays"
    columns_named = " ".join(plain_phrase(name).replace(" ", "") for name in names[2:])
    read_numbers = {_value(number) for number in _NUMBER.findall(" ".join((what, *names)))}
    dated = re.search(r"\b\d{4}-\d{2}\b", what) is not None
    # "4 million" is read where the reading holds 4000000
    read_numbers |= {_value(number) for number, scale in _SCALED.findall(question)
                     if _value(number) * _SCALE[scale.lower()] in read_numbers}
    unread: list[str] = [died.group().split()[-1] for died in _DEATHS_OF_PEOPLE.finditer(question)
                         if plain(died.group().split()[-1].lower()) not in read]
    read |= _initialled(question, read)  # "New York City" of nyc-marathon.pdf
    if "not" in read:  # "somewhere other than London": London left out, not set against
        question = re.sub(r"\bother\s+than\b", "other", question)
    question = _RATE.sub("", question)  # "per capita", "miles per gallon" say a measure, not a figure per value
    for at, match in enumerate(re.finditer(r"\S+", question)):
        token = match.group().strip("?!.,;:\"'()“”‘’")
        for number in _NUMBER.findall(token):
            if _value(number) not in read_numbers:
                unread.append(number)
        for word in _WORD.findall(token):
            lower = word.lower()
            if lower.isdigit():
                continue
            if lower in _NEVER_READ:
                if lower not in read:  # a column's word ("nonfarm_change") is read with it
                    unread.append(word)
            elif lower in _COUNTS:
                if float(_COUNTS[lower]) not in read_numbers:
                    unread.append(word)
            elif lower in _SHAPE_WORDS:
                if not _SHAPE_WORDS[lower] & read:
                    unread.append(word)
            elif lower in _MONTHS and word[0].isupper():
                if lower not in read and not dated:
                    unread.append(word)
            elif word[0].isupper() and at > 0 and len(word) > 1 and plain(lower) not in read:
                unread.append(word)
    for asked in _ASKED.finditer(question):
        noun = asked.group("noun")
        # "which month" picks a value of a column; "how many hours" asks a measure, where "how many
        # days" of a row a day counts rows: only a unit after "how many" must be read.
        picks = asked.group(0).lower().startswith("which")
        counts_rows = "number of rows" in what or "number of different" in what
        # A noun picked is read from the reading or a column ("which car" is not read from cars93.xlsx).
        inside = columns_named if picks else named
        if (picks or (noun.lower() in _UNITS and counts_rows)) and plain(noun.lower()) not in read and plain(noun.lower()) not in inside \
                and noun.lower() not in _SHAPE_WORDS and noun.lower() not in _FILLERS:
            unread.append(noun)
    if what == "the number of rows" and not unread:  # every row counted: "how many companies made a loss" did not read "loss"
        unread += [word for word in _after_counted(question) if plain(word.lower()) not in read
                   and plain(word.lower()) not in named]
    return tuple(dict.fromkeys(unread))


def _initialled(question: str, read: set[str]) -> set[str]:
    """The capitalised words of a question whose run's initials are a word read ("New York City"
    where the document is nyc-marathon.pdf, "United Kingdom" where a column is UK)."""
    found: set[str] = set()
    for run in _CAPITALISED_RUN.finditer(question):
        words = run.group().split()
        for start in range(len(words) - 1):
            for end in range(start + 2, len(words) + 1):
                if "".join(word[0] for word in words[start:end]).lower() in read:
                    found |= {plain(word.lower()) for word in words[start:end]}
    return found


def _after_counted(question: str) -> list[str]:
    """The words of a question counting rows past what it counts ("how many companies made a
    loss": made, loss), fillers aside."""
    asked = _ASKED.search(question)
    if asked is None:
        return []
    return [word for word in _WORD.findall(question[asked.end():]) if len(word) > 2 and word.lower() not in _FILLERS
            and word.lower() not in _COUNTED_FILLERS]


def plain(word: str) -> str:
    """A word as a question's words and a table's are matched: singular, "women" as "female"."""
    return singular(SAME_AS.get(word, word))


def plain_phrase(text: str) -> str:
    """Text's words, lower case, each plain: "Women applicants" -> "female applicant"; a small word
    written in lower case left out ("of a Prof", "in each region"), so that it names no value "A"
    or "IN" (Indiana), which the question writes in capitals."""
    return " ".join(plain(word.lower()) for word in _WORD.findall(text) if word not in _SMALL)


def question_phrase(question: str) -> str:
    """A question's words as its values are matched (plain_phrase)."""
    return plain_phrase(question)


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def words_of(text: str) -> list[str]:
    """Text's words, lower case, a name's camel-case parts apart ("lifeExp" -> life, exp), as a
    question's words and a column's name are matched."""
    return [word for word, _ in word_spans(text)]


def word_spans(text: str) -> list[tuple[str, tuple[int, int]]]:
    """words_of's words, each with where it stands in `text`."""
    found = []
    for match in _WORD.finditer(text):
        start = match.start()
        for part in _CAMEL.split(match.group()):
            found.append((part.lower(), (start, start + len(part))))
            start += len(part)
    return found


def _value(number: str) -> float:
    return float(number.replace(",", ""))


def without_column_names(cues: list[str], shapes: Sequence[TableShape]) -> list[str]:
    """The cue words, less those inside a column's name of two words or more that the question
    writes whole ("sleep_total", "Total cost")."""
    kept = list(cues)
    for shape in shapes:
        for name, _ in shape.columns:
            named = words_of(name)
            if len(named) < 2:
                continue
            for at in range(len(kept) - len(named) + 1):
                if kept[at:at + len(named)] == named:
                    kept[at:at + len(named)] = ["_"] * len(named)
    return kept
