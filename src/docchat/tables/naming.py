"""A question put in its table's own words (issue 55 part 2), before it is read: the words that
name a column or a cell otherwise than the table writes it are replaced by the table's name.

- An abbreviation the table uses: "highway" for `hwy`, "North America" for `N.Amer`, "life
  expectancy" for `Life Exp`, "assistant professors" for `AsstProf`, "herbivores" for `herbi`,
  two words run together ("sample size" for `samplesize`). A short name abbreviates a word when
  the word starts with it (three letters or more; a value's four or more), or when it keeps the
  word's first and last letters and its letters are in the word in order ("hwy", "cty").
- A compound said with "of": "each type of covered entity" for `Covered.Entity.Type`; said
  apart or in another order: "dissatisfied with Thatcher" for `thatcher_dis`, "female life
  expectancy" for `lifeExpF`, "miles per gallon in the city" for `MPG.city`; run together:
  "GDP per person" for `ppgdp`.
- A compound's noun said alone, where no other column has it: "class" for `passengerClass`,
  "worldwide" for `gross_world`.
- A row's name said otherwise than its one cell writes it: in another order ("George Donner" of
  `Donner, George`), a word shortened ("Whiteface Mountain" of `Whiteface Mtn.`), or the end of
  the name where no other cell ends so ("the Falcons" of `Atlanta Falcons`).
- A US state named in full where the table writes its code ("outside California": CA), a
  place named by its people ("a Canadian": Canada).
- "Where … from" as the table's one column of places (`hometown`), "who publishes" as its
  column `publisher`, "season 11" as `S11` where the season column writes its values so, "won"
  as `Wins`.
- "died" as "not Survived" and "survivors" as Survived (a yes/no column), "first-class" as `1st`
  where a cell is so written, "died" as `deaths` where a column counts deaths.
- A superlative whose stem begins one numeric column's name: "the hardest water" as the highest
  `hardness`. A fixed-date holiday as its day ("on Christmas Day": on 25 December), a day of the
  week as the table shortens it ("on Saturdays": Sat).
- Codes, measures and names as people say them (docchat.tables.said): "women" as F, "closing
  price" as `close`, "the fastest" as a time's lowest, "life expectancy" of `life_exp_at_birth`.
- Where the question names no numeric column by its words, one it names by meaning: a word the
  bundled encoder finds near one numeric column's name and no other ("earn" for `salary`, "weigh"
  for `Weight_in_lbs`, "unemployment" for `Unemployed`): at least NEAR similar, by MARGIN more
  than to any other column, no other column sharing a part of its name (the encoder does not
  tell `govt_sat` from `govt_dis`), and only where a figure is asked of it or a bound follows it.
  Words of a question's shape ("highest", "ratio", "times"), comparatives ("hotter": a range of
  what it measures, docchat.tables.ranges) and words after which a measure is said ("weight",
  "rate") are never linked so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from itertools import permutations

from docchat.domain.documents import TableShape
from docchat.tables.dates import as_dates
from docchat.tables.numbers import ordinal
from docchat.tables.places import as_codes, as_places
from docchat.tables.ranges import UNIT_WORDS
from docchat.tables.row_names import PART, WORD, abbreviates, coded, doers, gerunds, row_names, whereabouts
from docchat.tables.said import coded_values, measures_said, without_qualifier
from docchat.text import singular

# How near (cosine) a word must be to a column's name, and by how much nearer than to the next.
NEAR, MARGIN = 0.5, 0.15
# Similarity of each word to each name: near(words, names)[i][j].
Near = Callable[[list[str], list[str]], list[list[float]]]
# Where a word the encoder links may stand for a column: a figure is asked of it ("average",
# "total", "highest"…) or a bound follows it ("earn more than"); in "how many of the homes sold
# were condos" a verb names no column to add up.
_FIGURE_ASKED = re.compile(r"\b(?:average|mean|total|sum|highest|lowest|largest|smallest|most|least|maximum|minimum|"
                           r"top|than|difference|ratio|times)\b", re.IGNORECASE)
_BOUND_AFTER = re.compile(r"\s+(?:more|less|fewer|over|under|above|below|at least|at most|exceeding)\b", re.IGNORECASE)
_NUMERIC = ("integer", "real")
_FIGURE_NAMES = frozenset(("total", "sum", "average", "mean", "count", "number"))
# Comparatives and superlatives ("hotter", "tallest", "tall"): read as ranges and ranks, not linked.
_ADJECTIVES = ("hot", "cold", "warm", "cool", "tall", "short", "long", "old", "young", "heavy", "light", "big", "small",
               "large", "high", "low", "cheap", "fast", "slow", "rich", "poor", "wide", "deep", "far", "late", "early")
_COMPARING = frozenset(form for adjective in _ADJECTIVES for form in (
    adjective, adjective + "er", adjective + "est", adjective + adjective[-1] + "er", adjective + adjective[-1] + "est",
    adjective + "r", adjective + "st", adjective[:-1] + "ier", adjective[:-1] + "iest"))
_DIGITS = {"first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th"}
_ORDINAL = re.compile(rf"\b({'|'.join(_DIGITS)})\b(?!\s+(?:\d|{'|'.join(('one', 'two', 'three', 'four', 'five'))}))",
                      re.IGNORECASE)
# Words for the "no" of a yes/no column, and nouns for its "yes", by the column's name.
_OPPOSITES = {"survived": ("died", "perished", "drowned", "dead", "did not survive", "didn't survive"),
              "alive": ("died", "dead")}
_NOUNS = {"survived": ("survivors", "survivor")}
# A verb for what a column counts: "how many died" of a column of deaths.
_DEATHS = ("deaths", "fatalities", "dead", "killed", "casualties")
_FORMS = {"died": _DEATHS, "killed": _DEATHS, "born": ("births",), "sold": ("sales",), "earned": ("earnings",),
          "earn": ("earnings",), "earns": ("earnings",), "sell": ("sales",), "sells": ("sales",),
          "won": ("wins",), "lost": ("losses",), "cited": ("citations",), "paid": ("salary", "pay", "wage", "wages")}
# Words that may stand between a name's parts said apart: "dissatisfied with Thatcher",
# "Thatcher's highest satisfaction".
_APART = frozenset(("with", "of", "the", "for", "in", "by", "on", "among", "s", "highest", "lowest", "average", "mean",
                    "total", "largest", "smallest", "maximum", "minimum"))
# Nouns of how much of a thing there is: "carbon" says carbon_emissions (not "season" SeasonStart).
_MEASURE_NOUNS = frozenset(("emissions", "emission", "production", "consumption", "amount", "output", "usage",
                            "spending", "volume", "level", "levels"))
_WEEKDAY = re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b")
_NOT_LINKED = frozenset((
    "how", "many", "much", "what", "which", "who", "when", "where", "the", "and", "was", "were", "are", "did", "does",
    "have", "has", "had", "there", "than", "that", "this", "with", "from", "for", "into", "over", "under", "above",
    "below", "more", "less", "fewer", "most", "least", "total", "sum", "average", "mean", "number", "highest",
    "lowest", "largest", "smallest", "biggest", "maximum", "minimum", "top", "bottom", "ratio", "times", "difference",
    "first", "last", "each", "every", "per", "different", "distinct", "all", "any", "not", "other", "rate", "level",
    "value", "score", "figure", "amount", "weight", "size", "length", "count", "between", "after", "before", "since",
    "until", "year", "years", "month", "months", "day", "days", "week", "weeks", "row", "rows", "table",
))


def in_table_words(question: str, shapes: Sequence[TableShape], values: Callable[[TableShape, str], Sequence[str]],
                   near: Near | None = None) -> str:
    """The question with its words for the tables' columns and cells put as the tables write them."""
    names = [name for shape in shapes for name, _ in shape.columns]
    cells = [value for shape in shapes for name, kind in shape.columns if kind == "text"
             for value in values(shape, name)]
    # A word that is a cell's as written ("admitted", of Admit's Admitted) names that cell, not a column.
    kept = {singular(part.lower()) for cell in cells for part in WORD.findall(cell)}
    # Every cell's words, singular, side by side: "market value" is no cell's, though "Food markets" is.
    written_in_cells = " | ".join(" " + " ".join(singular(part.lower()) for part in WORD.findall(cell)) + " "
                                  for cell in cells)
    if any(kind == "date" for shape in shapes for _, kind in shape.columns):
        question = as_dates(question)  # "on Christmas Day": on 25 December
    written = gerunds(row_names(as_places(as_codes(coded_values(_weekdays(question, cells), shapes, values), cells),
                                          cells), cells, names), cells)
    written = _abbreviations(written, names, 3, kept, written_in_cells)
    written = _abbreviations(written, cells, 4, kept, written_in_cells)
    written = _forms(_flags(_ordinals(written, cells), names), names)
    written = coded(doers(whereabouts(written, shapes), shapes), shapes, values)
    written = _run_together(_scattered(_inverted(without_qualifier(written, names), names), names), names)
    written = _heads(written, [column for shape in shapes for column in shape.columns], kept)
    written = _superlatives(written, [column for shape in shapes for column in shape.columns])
    written = measures_said(written, [column for shape in shapes for column in shape.columns])
    if near is not None:
        written = _meant(written, shapes, near)
    return written


def _ordinals(question: str, cells: Sequence[str]) -> str:
    """"first-class" as "1st-class" where a cell is written 1st; "the first 5 races" keeps its rows."""
    written = {cell.casefold() for cell in cells}
    return _ORDINAL.sub(lambda match: _DIGITS[match.group(1).lower()] if _DIGITS[match.group(1).lower()] in written
                        else match.group(), question)


def _flags(question: str, names: Sequence[str]) -> str:
    """A word for a yes/no column's "no" as "not" and its name ("died" of Survived: "not Survived"),
    and its noun as its name ("survivors": "Survived")."""
    for name in names:
        opposite, noun = _OPPOSITES.get(name.casefold()), _NOUNS.get(name.casefold())
        if opposite:
            question = re.sub(rf"\b(?:{'|'.join(opposite)})\b", f"not {name}", question, flags=re.IGNORECASE)
        if noun:
            question = re.sub(rf"\b(?:{'|'.join(noun)})\b", name, question, flags=re.IGNORECASE)
    return question


def _abbreviations(question: str, names: Sequence[str], shortest: int, kept: set[str], in_cells: str) -> str:
    """Words the names abbreviate or run together, as the names; not a word a cell writes (one
    word), nor words a cell writes side by side (two or more), nor words another name is."""
    tokens = [(match.group().lower(), match.span()) for match in WORD.finditer(question)]
    present = {singular(word) for word, _ in tokens}
    words = [word for word, _ in tokens]
    # Words that are a name as written are that name: "department" is Department, not dept beside it.
    written = {" ".join(singular(part.lower()) for part in PART.findall(name)) for name in names}
    spans: list[tuple[int, int, str]] = []
    # The name of more parts first: "assistant professors" is AsstProf before "professors" is Prof.
    for name in sorted(dict.fromkeys(names), key=lambda name: -len(PART.findall(name))):
        parts = [part.lower() for part in PART.findall(name)]
        if not parts or {singular(part) for part in parts} <= present:
            continue  # named as the table writes it: nothing to put in its words
        for at in range(len(tokens)):
            used = _aligned(parts, words[at:], shortest)
            said = [singular(word) for word in words[at:at + used]]
            if used and not (said[0] in kept if used == 1 else f" {' '.join(said)} " in in_cells) \
                    and " ".join(said) not in written:
                start, end = tokens[at][1][0], tokens[at + used - 1][1][1]
                if not any(s < end and start < e for s, e, _ in spans):
                    spans.append((start, end, name))
    for start, end, name in sorted(spans, reverse=True):
        question = question[:start] + name + question[end:]
    return question


def _aligned(parts: list[str], words: list[str], shortest: int) -> int:
    """How many of `words`, from the first, the name's parts stand for: each part the same word
    (singular or plural), an abbreviation of it, or two words run together and shortened
    ("samplesize", "percap" of "per capita"); 0 if they do not, or if none is shortened. A
    one-letter part ("N" of N.Amer) stands for a word only beside a longer part that does."""
    used, shortened, long_enough = 0, 0, False
    for part in parts:
        if used >= len(words):
            return 0
        word = words[used]
        if singular(part) == singular(word):
            used, long_enough = used + 1, True
            continue
        if word not in _NOT_LINKED and abbreviates(part, word, 1 if len(parts) > 1 else shortest):
            used, shortened = used + 1, shortened + 1
            long_enough = long_enough or len(part) >= shortest
            continue
        rest = part[len(word):] if part.startswith(word) and len(word) >= 3 else ""
        following = words[used + 1] if used + 1 < len(words) else ""
        if rest and following and (singular(rest) == singular(following) or abbreviates(rest, following, 2)):
            used, shortened, long_enough = used + 2, shortened + 1, True
            continue
        return 0
    return used if shortened and long_enough else 0


def _inverted(question: str, names: Sequence[str]) -> str:
    """A compound name said with "of" ("each type of covered entity") as the name it is
    (Covered.Entity.Type)."""
    for name in dict.fromkeys(names):
        parts = [part.lower() for part in PART.findall(name)]
        if len(parts) < 2 or "of" in parts:
            continue
        said = rf"\b{re.escape(parts[-1])}s? of (?:the )?{r'[ _.-]?'.join(map(re.escape, parts[:-1]))}s?\b"
        question = re.sub(said, name, question, count=1, flags=re.IGNORECASE)
    return question


def _scattered(question: str, names: Sequence[str]) -> str:
    """A name of two or three parts said in another order, or apart, by words that are its parts
    or that its parts abbreviate ("dissatisfied with Thatcher" for `thatcher_dis`, "Thatcher's
    highest satisfaction" for `thatcher_sat`, "satisfaction with the government" for
    `govt_sat`), as the name, where one name is so said: the last of its words becomes the name,
    the others are left out, a word of the figure between them ("highest") kept."""
    for _ in range(3):
        tokens = [(match.group().lower(), match.span()) for match in WORD.finditer(question)]
        found = [said for name in dict.fromkeys(names) if (said := _said_apart(name, tokens)) is not None]
        if len(found) != 1:
            return question
        name, spans = found[0]
        *dropped, last = spans
        question = question[:last[0]] + name + question[last[1]:]
        for start, end in sorted(dropped, reverse=True):
            end += 2 if question[end:end + 2] in ("'s", "’s") else 0
            question = question[:start] + question[end:].lstrip() if start == 0 else \
                question[:start].rstrip() + " " + question[end:].lstrip()
    return question


def _said_apart(name: str, tokens: list[tuple[str, tuple[int, int]]]) -> tuple[str, list[tuple[int, int]]] | None:
    """The name, and the spans of the words saying its parts within a few words of one another;
    a part in capitals may be said by words it is the initials of (MPG: "miles per gallon")."""
    written = PART.findall(name)
    parts = [part.lower() for part in written]
    if not 2 <= len(parts) <= 3 or any(part.isdigit() for part in parts):
        return None
    short = [part for part in parts if len(part) < 3]
    if len(short) > 1 or (short and len(short[0]) > 1):
        return None  # one letter beside longer parts: F of lifeExpF ("female life expectancy")
    words = [word for word, _ in tokens]
    if any(words[at:at + len(parts)] == parts for at in range(len(words))):
        return None  # said as the table writes it
    runs = []
    for part, as_written in zip(parts, written, strict=True):
        said = [(at, at) for at, word in enumerate(words) if word not in _NOT_LINKED and (
            singular(word) == singular(part) or abbreviates(part, word, 3)
            or (len(part) == 1 and len(word) >= 4 and word.startswith(part)))]
        if as_written.isupper() and len(part) >= 2:
            said += [(at, at + len(part) - 1) for at in range(len(words) - len(part) + 1)
                     if "".join(word[0] for word in words[at:at + len(part)]) == part]
        if len(said) != 1:
            return None
        runs.append(said[0])
    runs.sort()
    covered = {at for first, last in runs for at in range(first, last + 1)}
    if len(covered) != sum(last - first + 1 for first, last in runs) or any(
            words[at] not in _APART for at in range(runs[0][0], runs[-1][1] + 1) if at not in covered):
        return None
    return name, [(tokens[first][1][0], tokens[last][1][1]) for first, last in runs]


def _run_together(question: str, names: Sequence[str]) -> str:
    """Two or three words said for a name that runs their first letters or their starts together
    in another order ("GDP per person" for `ppgdp`), as the name, where one name is so said."""
    tokens = [(match.group(), match.span()) for match in WORD.finditer(question)]
    found = []
    for name in dict.fromkeys(names):
        if not re.fullmatch(r"[a-z]{4,8}", name) or name in {word.lower() for word, _ in tokens}:
            continue
        for size in (2, 3):
            for at in range(len(tokens) - size + 1):
                said = [word.lower() for word, _ in tokens[at:at + size]]
                if any(word.isdigit() or (word in _NOT_LINKED and word != "per") for word in said):
                    continue
                if any(_pieces(name, list(order)) for order in permutations(said)):
                    found.append((name, tokens[at][1][0], tokens[at + size - 1][1][1]))
    if len({name for name, *_ in found}) != 1:
        return question
    name, start, end = found[0]
    return question[:start] + name + question[end:]


def _pieces(name: str, words: list[str]) -> bool:
    """Whether the name is each word's start in turn, one of them three letters or more."""
    return any(max(lengths) >= 3 for lengths in _starts(name, words))


def _starts(name: str, words: list[str]) -> Iterator[tuple[int, ...]]:
    """How long each word's start is, for every way the name is the words' starts in turn."""
    if not words:
        if not name:
            yield ()
        return
    for length in range(1, min(len(words[0]), len(name)) + 1):
        if name.startswith(words[0][:length]):
            for rest in _starts(name[length:], words[1:]):
                yield (length, *rest)


def _weekdays(question: str, cells: Sequence[str]) -> str:
    """A day of the week said in full ("on Saturdays") as the table writes it, shortened (Sat)."""
    written = set(cells)

    def put(match: re.Match[str]) -> str:
        day = match.group(1)
        return day[:3] if day[:3] in written and day not in written else match.group()
    return _WEEKDAY.sub(put, question)


def _superlatives(question: str, kinds: Sequence[tuple[str, str]]) -> str:
    """A superlative whose stem begins one numeric column's name and no other's ("the hardest
    water" of `hardness`, "the densest" of `density`) as "highest" and that name."""
    def put(match: re.Match[str]) -> str:
        word = match.group()
        stems = {word[:-3].lower(), word[:-4].lower() + "y"} if word.lower().endswith("iest") else {word[:-3].lower()}
        if word.lower() in _COMPARING or word.lower() in _NOT_LINKED:
            return word
        # the adjective's noun (hard: hardness, dense: density), not any name it begins ("interest": internet_users)
        named = [name for name, kind in kinds if kind in _NUMERIC and any(
            len(stem) >= 4 and re.match(rf"{re.escape(stem.removesuffix('y'))}(?:i?ness|e?ity)(?![a-z])", name.lower())
            for stem in stems)]
        return f"highest {named[0]}" if len(named) == 1 else word
    return re.sub(r"\b[a-z]{4,}est\b", put, question)


def _heads(question: str, kinds: Sequence[tuple[str, str]], kept: set[str]) -> str:
    """A word that is the last part of one column's name and no part of another's ("class" of
    passengerClass, "mortality" of Infant.Mortality), as that name."""
    parted = {name: [part.lower() for part in PART.findall(name)] for name in dict.fromkeys(name for name, _ in kinds)}
    whole = {singular(parts[0]) for parts in parted.values() if len(parts) == 1}
    for name, parts in parted.items():
        if len(parts) < 2:
            continue
        # the compound's noun (Class of passengerClass, type of poll_type), or its longest part (LF.PressureMB);
        # of a measure whose noun is not said, its first part ("carbon" of carbon_emissions)
        head = parts[-1] if len(parts[-1]) >= 4 else max(parts, key=len)
        if dict(kinds)[name] in _NUMERIC and len(parts[0]) >= 5 and set(parts[1:]) <= _MEASURE_NOUNS | {"total"} \
                and not re.search(rf"\b{re.escape(head)}", question, re.IGNORECASE):
            head = parts[0]
        # "sleeps" of sleep_total beside sleep_rem: the total is what the word alone says
        others = [part for other, their in parted.items() if other != name for part in their
                  if not (parts[1:] == ["total"] and part == head)]
        said = " ".join(singular(word.lower()) for word in WORD.findall(question))
        if f" {' '.join(singular(part) for part in parts)} " in f" {said} ":
            continue  # named whole ("passenger class"; not "passengers … each class")
        numeric = dict(kinds)[name] in _NUMERIC
        if len(head) < (5 if numeric else 4) or head in _NOT_LINKED or singular(head) in UNIT_WORDS or singular(head) in whole \
                or any(singular(head) == singular(part) for part in others):
            continue
        # "worldwide" of gross_world, as "statewide" of a column ending in state, even where a cell
        # writes "world" (Thor: The Dark World), which the word alone would be
        forms = "wide" if singular(head) in kept else "s|wide|"
        question = re.sub(rf"\b{re.escape(head)}(?:{forms})\b", name, question, count=1, flags=re.IGNORECASE)
    return question


def _forms(question: str, names: Sequence[str]) -> str:
    """A verb said for a column's noun ("died" where a column counts deaths) as the noun."""
    parts = {singular(part.lower()): name for name in names for part in PART.findall(name)}
    for verb, nouns in _FORMS.items():
        held = [parts[singular(noun)] for noun in nouns if singular(noun) in parts]
        if held and held[0].lower() != verb:
            question = re.sub(rf"\b{verb}\b", held[0] if len(PART.findall(held[0])) == 1 else nouns[0], question,
                              flags=re.IGNORECASE)
    return question


def _meant(question: str, shapes: Sequence[TableShape], near: Near) -> str:
    """The question with a word put as the one numeric column it means, where it names none."""
    tokens = [(match.group(), match.span()) for match in WORD.finditer(question)]
    present = {singular(word.lower()) for word, _ in tokens}
    measures = [name for shape in shapes for name, kind in shape.columns if kind in _NUMERIC and not ordinal(name, kind)]
    named_words = {singular(part.lower()) for shape in shapes for name, _ in shape.columns for part in PART.findall(name)}
    if len(measures) < 2 or any({singular(part.lower()) for part in PART.findall(name)} <= present for name in measures):
        return question
    candidates = [(word, span) for at, (word, span) in enumerate(tokens)
                  if len(word) >= 4 and not word.isdigit() and word.lower() not in _NOT_LINKED
                  and word.lower() not in _COMPARING and singular(word.lower()) not in UNIT_WORDS  # feet: no Length
                  and singular(word.lower()) not in named_words and not (at > 0 and word[0].isupper())]
    if not candidates:
        return question
    asked = _FIGURE_ASKED.search(question) is not None
    candidates = [(word, span) for word, span in candidates if asked or _BOUND_AFTER.match(question, span[1])]
    if not candidates:
        return question
    similar = near([word.lower() for word, _ in candidates], [_spoken(name) for name in measures])
    chosen = None
    for (word, span), row in zip(candidates, similar, strict=True):
        ranked = sorted(range(len(measures)), key=lambda j: -row[j])
        best, second = row[ranked[0]], row[ranked[1]]
        if best >= NEAR and best - second >= MARGIN and (chosen is None or best > chosen[0]):
            chosen = (best, span, measures[ranked[0]])
    if chosen is None:
        return question
    _, (start, end), name = chosen
    if name.lower() in _FIGURE_NAMES:
        return question  # "whole" near a column Total: put as "Total", it would be read as the figure asked
    parts = {part.lower() for part in PART.findall(name)}
    if any(other != name and parts & {part.lower() for part in PART.findall(other)} for other in measures):
        return question  # govt_sat beside govt_dis: the encoder does not tell such siblings apart
    return question[:start] + name + question[end:]


def _spoken(name: str) -> str:
    """A column's name as words for the encoder: "Weight_in_lbs" -> "weight in lbs"."""
    return " ".join(part.lower() for part in PART.findall(name))
