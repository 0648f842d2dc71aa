"""What docchat computed, said in docchat's words (issue 54): a table plan's figure opens the
answer as docchat's own sentence, or a Markdown table for a figure per value, its rows cited as
the passage [1] (docchat.context.pipeline `_computed` puts the figure's statement first).

Why docchat words it and not the model: the bundled model, given the exact figure first among
its passages, still wrote other numbers in most answers ("9311 + 1 = 9312" over a computed
9,492), as every peer that hands a query's result back to a model to paraphrase is reported to.
The figure is written with thousands separators and at most FIGURE_DECIMALS decimals; the
stored figure (`Figure.value`) keeps every digit.

Text from the document (a column's name, a value) is escaped for Markdown: a cell that reads
"*" or "|" is shown as written, and cannot restyle the answer or break its table.
"""

from __future__ import annotations

import re

from docchat.domain.approach import Figure, row_spans, unread_named, with_unit

# Decimals shown of a figure that is not whole: an average of prices reads 5,479.57.
FIGURE_DECIMALS = 2
# Markdown's punctuation that could change how a cell or a name is drawn.
_MARKUP = re.compile(r"([\\`*_{}\[\]<>()#+|!~$])")


def stated_text(figure: Figure, *, cite: int | None = 1) -> str:
    """The figure as the answer states it; `cite`: the passage that holds it (None: uncited). A
    reading docchat is unsure of is said so first, with the words it did not read."""
    if figure.unread:
        return (f"docchat is not sure it read your question right: it did not read "
                f"{escaped(unread_named(figure.unread))}. Its reading, to check: {_stated(figure, cite)}")
    return _stated(figure, cite)


def _stated(figure: Figure, cite: int | None) -> str:
    mark = f" [{cite}]" if cite is not None else ""
    if figure.ranked:
        return _first_ranked(figure, mark)
    if figure.by is not None:
        return _per_value(figure, mark)
    shown = escaped(figure.text) if figure.text else in_unit(shown_figure(figure.value), figure.unit)
    return f"{_opening(figure.what)} is **{shown}** ({_source(figure)}){mark}."


def in_unit(shown: str, unit: str) -> str:
    """A figure with its currency or unit, escaped, so a "$" starts no formula: "$18,150"."""
    return with_unit(shown, unit, escaped)


def figures_of(figure: Figure | None) -> list[float]:
    """The figures an answer's numbers may state: the one computed, or each value's."""
    if figure is None:
        return []
    values = [figure.value] if figure.by is None else [value for _, value in figure.groups]
    return [float(value) for value in values if value is not None]


def shown_figure(value: int | float | None) -> str:
    """9492 -> "9,492"; 5479.5714 -> "5,479.57"; 0.125 -> "0.13"; None -> "none"."""
    if value is None:
        return "none (no value in those rows)"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    rounded = round(value, FIGURE_DECIMALS)
    if rounded == 0:  # a small figure keeps a digit that shows it is not nought
        return format(value, ".2g")
    return f"{rounded:,.{FIGURE_DECIMALS}f}".rstrip("0").rstrip(".")


def _per_value(figure: Figure, mark: str) -> str:
    by = escaped(figure.by or "")
    rows = figure.group_rows if len(figure.group_rows) == len(figure.groups) else ()
    header = [by, escaped(_heading(figure.what, figure.by or "")), *(["Rows"] if rows else [])]
    lines = [f"{_opening(figure.what)}, {_source(figure)}{mark}:", "",
             "| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for number, (group, value) in enumerate(figure.groups):
        cells = [escaped(group) or "(blank)", in_unit(shown_figure(value), figure.unit) if value is not None else "none",
                 *([row_spans(rows[number]) if rows[number] else "none"] if rows else [])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _first_ranked(figure: Figure, mark: str) -> str:
    """"The Location with the highest total of Pallets is **Oslo**, at **165** (…) [1].": the
    value that ranks first, with its figure, and any tied with it."""
    named = " and ".join(f"**{escaped(group) or '(blank)'}**" for group, _ in figure.groups)
    value = figure.groups[0][1] if figure.groups else None
    each = " each" if len(figure.groups) > 1 else ""
    return f"{_opening(figure.what)} is {named}, at **{in_unit(shown_figure(value), figure.unit)}**{each} " \
           f"({_source(figure)}){mark}."


def _source(figure: Figure) -> str:
    """Where the figure was computed, and who wrote the query."""
    sheet = f"{escaped(figure.document)} › {escaped(figure.sheet)}"
    if figure.written_by:
        return (f"computed by a query {escaped(figure.written_by)} wrote, run by docchat over the data rows of "
                f"{sheet}; subtotal and total rows left out")
    read = f"{len(figure.rows)} {'row' if len(figure.rows) == 1 else 'rows'} ({row_spans(figure.rows)})" \
        if figure.rows else "no row held a value"
    return f"computed by docchat from {sheet}, {read}; subtotal and total rows left out"


def _opening(what: str) -> str:
    """"the total of Pallets where …" -> "The total of Pallets where …"."""
    shown = escaped(what)
    return shown[:1].upper() + shown[1:]


def _heading(what: str, by: str) -> str:
    """The figure's column in a table per value: "the total of Pallets per Location where …" ->
    "Total of Pallets"."""
    head = what.split(f" per {by}", 1)[0].split(" where ", 1)[0]
    head = head[4:] if head.startswith("the ") else head
    return head[:1].upper() + head[1:]


def escaped(text: str) -> str:
    """Document text shown as written inside docchat's Markdown: one line, no markup."""
    return _MARKUP.sub(r"\\\1", " ".join(text.split()))
