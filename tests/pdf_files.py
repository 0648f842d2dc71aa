"""PDFs with tables, made by fpdf2 as a word processor or a report writer lays them out: prose and
tables in the order given, each table in one of fpdf2's border layouts (`ALL`: ruled on every
side; `HORIZONTAL_LINES`, `SINGLE_TOP_LINE` or `NONE`: lined up without rules), numbers
right-aligned."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    rows: list[list[str]]  # the header first
    borders: str = "ALL"


@dataclass(frozen=True)
class NewPage:
    pass


def pdf_of(*blocks: str | Table | NewPage, size: int = 10) -> bytes:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_font("Helvetica", size=size)
    pdf.add_page()
    for block in blocks:
        if isinstance(block, NewPage):
            pdf.add_page()
        elif isinstance(block, Table):
            aligned = tuple("RIGHT" if any(ch.isdigit() for ch in cell) else "LEFT" for cell in block.rows[1])
            with pdf.table(borders_layout=block.borders, text_align=aligned, first_row_as_headings=True) as table:
                for cells in block.rows:
                    row = table.row()
                    for cell in cells:
                        row.cell(cell)
            pdf.ln(4)
        else:
            pdf.multi_cell(0, 5, block)
            pdf.ln(4)
    return bytes(pdf.output())


def two_column_pdf(text: str) -> bytes:
    """A page of prose in two columns, as papers print it: lined up, but not a table."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_font("Helvetica", size=10)
    pdf.add_page()
    with pdf.text_columns(ncols=2, gutter=8) as columns:
        columns.write(text)
    return bytes(pdf.output())
