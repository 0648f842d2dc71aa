"""Slides (PPTX) to sections: one per slide, labelled `slide N: <its title>` (`slide N` when it
has none), with the slide's text and its speaker notes.

A slide's text is its title first, then every other shape's in the slide's own order: text
frames (a line break inside a paragraph kept as one), tables row by row (`cell | cell`, a merged
cell once), charts by their title and each series' values with their categories (`Chart: Units
by region` then `Units: North 312; South 280`, the numbers the chart shows, from the values the
file keeps for it), and the shapes inside groups, however deep. The notes follow after `Notes:`.
Pictures and media give no text. python-pptx reads the file (its XML parser resolves no entity), is
imported when a presentation is parsed, and never follows a relationship that points outside the
file (a linked picture, a hyperlink): nothing is fetched.

Each table with a row under its first is also read as a table figures are computed over
(`Slide 3 table`, or `Slide 3 table 2` for a slide's second; docchat.tables.reading).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from docchat.documents.kinds import Kind, Read
from docchat.documents.zip_formats import open_checked
from docchat.domain import Section
from docchat.domain.documents import SheetTable
from docchat.errors import InvalidInput
from docchat.tables.reading import grid_table

if TYPE_CHECKING:
    from pptx.chart.chart import Chart
    from pptx.shapes.autoshape import Shape
    from pptx.shapes.base import BaseShape
    from pptx.shapes.graphfrm import GraphicFrame
    from pptx.slide import Slide
    from pptx.table import Table
    from pptx.text.text import TextFrame

WORDS = "slides (PPTX)"
UNREADABLE = "is not a readable PowerPoint presentation (.pptx)"
NOTES = "Notes:"


def pptx_sections(shown: str, data: bytes, max_bytes: int) -> Read:
    """One section per slide, in order; a slide with no text gives a blank one (dropped by parse)."""
    open_checked(shown, data, max_bytes, what="a presentation", suffix=".pptx", unreadable=UNREADABLE).close()
    from pptx import Presentation

    try:
        slides = list(enumerate(Presentation(io.BytesIO(data)).slides, start=1))
        return Read([_slide(number, slide) for number, slide in slides],
                    tables=tuple(table for number, slide in slides for table in _tables(number, slide)))
    except (InvalidInput, MemoryError):
        raise  # out of memory is the isolation's to report (documents/isolated.py)
    except Exception:
        # zipfile, lxml and python-pptx errors (a part missing, a wrong content type) all mean
        # the same thing to the user.
        raise InvalidInput(f"{shown} {UNREADABLE}") from None


def _slide(number: int, slide: Slide) -> Section:
    title_shape = slide.shapes.title
    title = _one_line(title_shape.text_frame.text) if title_shape is not None and title_shape.has_text_frame else ""
    texts = [title] if title else []
    skipped = title_shape.shape_id if title_shape is not None else None
    texts += [text for shape in slide.shapes if shape.shape_id != skipped for text in _shape_texts(shape)]
    notes = _notes(slide)
    if notes:
        texts.append(f"{NOTES} {notes}")
    return Section(f"slide {number}: {title}" if title else f"slide {number}", None, "\n\n".join(texts))


def _shape_texts(shape: BaseShape) -> list[str]:
    """The shape's text, or its group's shapes' texts, in order."""
    if hasattr(shape, "shapes"):  # a group
        return [text for inner in shape.shapes for text in _shape_texts(inner)]
    # python-pptx says which shape it is by these flags: a table or a chart is a GraphicFrame, text a Shape.
    if getattr(shape, "has_table", False) and shape.has_table:
        return [_table_text(cast("GraphicFrame", shape).table)]
    if getattr(shape, "has_chart", False) and shape.has_chart:
        return [_chart_text(cast("GraphicFrame", shape).chart)]
    if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        return [_frame_text(cast("Shape", shape).text_frame)]
    return []


def _tables(number: int, slide: Slide) -> list[SheetTable]:
    """The slide's tables, in its shapes' order (inside groups too), each as a table of rows."""
    found = [cast("GraphicFrame", shape).table for shape in _flat(slide.shapes)
             if getattr(shape, "has_table", False) and shape.has_table]
    tables = [grid_table(f"Slide {number} table" + (f" {n}" if n > 1 else ""),
                         [[cell.text for cell in row.cells] for row in table.rows])
              for n, table in enumerate(found, start=1)]
    return [table for table in tables if table is not None]


def _flat(shapes: Iterable[BaseShape]) -> list[BaseShape]:
    return [inner for shape in shapes
            for inner in (_flat(shape.shapes) if hasattr(shape, "shapes") else [shape])]  # a group: its shapes


def _table_text(table: Table) -> str:
    rows = []
    for row in table.rows:
        # A merged cell is one origin cell and the cells it spans, which python-pptx also lists.
        cells = [_one_line(cell.text) for cell in row.cells if not cell.is_spanned]
        rows.append(" | ".join(cells))
    return "\n".join(rows)


def _chart_text(chart: Chart) -> str:
    """`Chart: <title>`, then a line per series: `<series>: <category> <value>; ...` (categories
    are left out of a chart that has none, an XY or bubble chart's points being values only)."""
    lines = [f"Chart: {_one_line(chart.chart_title.text_frame.text)}" if chart.has_title else "Chart"]
    for plot in chart.plots:
        categories = [_one_line(str(label)) for label in plot.categories]
        for series in plot.series:
            values = [_value(v) for v in series.values]
            points = [f"{c} {v}" if c else v for c, v in zip(categories, values)] if categories else values
            lines.append(f"{_one_line(series.name or 'Series')}: " + "; ".join(p for p in points if p))
    return "\n".join(lines)


def _value(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.15g}"


def _notes(slide: Slide) -> str:
    if not slide.has_notes_slide:  # asking for notes_slide would add one
        return ""
    frame = slide.notes_slide.notes_text_frame
    return _frame_text(frame) if frame is not None else ""


def _frame_text(frame: TextFrame) -> str:
    # python-pptx gives a line break inside a paragraph as a vertical tab, a control character
    # that parse drops (joining the words on either side).
    return frame.text.replace("\v", "\n").strip()


def _one_line(text: str) -> str:
    return " ".join(text.split())


KINDS = (Kind("pptx", (".pptx",), pptx_sections),)
