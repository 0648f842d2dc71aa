"""`docchat bench table-scale`: issue 55's targets at 10,000 rows. A CSV of sales written as people
write them (dates, regions, items, amounts such as "$1,234.50", units, a dash for none) is added
through the real services; its ingestion is timed whole, and the part typed tables cost (reading
the rows as a typed table, `table_of`, and keeping it) is timed on the same rows, so the run gives the
ingestion's time with and without them. Then questions of each shape are asked of it, their time
in docchat's figure service alone (no model).
"""

from __future__ import annotations

import csv
import io
import json
import random
import tempfile
import time
from pathlib import Path

from docchat_bench.figures import p50_p95

REGIONS = ("North", "South", "East", "West", "Central")
ITEMS = ("Cardboard boxes", "Bubble wrap", "Tape", "Pallet wrap", "Labels", "Crates")
QUESTIONS = (
    "What were the total units sold in 2025?",
    "What is the total amount for the North region?",
    "What is the average amount of Tape?",
    "Which region has the most units?",
    "How many orders had more than 40 units?",
    "What is the total amount per region?",
    "How many different items are there?",
    "How many more units did North sell than South?",
    "What were the top 3 items by amount?",
    "How many orders were not in the West?",
    "What is the highest amount in March 2025?",
    "What was the total amount after 1 October 2025?",
)


def sales_csv(rows: int, *, seed: int = 55) -> bytes:
    draw = random.Random(seed)
    written = io.StringIO()
    out = csv.writer(written)
    out.writerow(["Date", "Region", "Item", "Units", "Amount"])
    for _ in range(rows):
        day = f"2024-{draw.randint(1, 12):02d}-{draw.randint(1, 28):02d}" if draw.random() < 0.5 else \
            f"2025-{draw.randint(1, 12):02d}-{draw.randint(1, 28):02d}"
        units = draw.randint(1, 60)
        amount = "\u2014" if draw.random() < 0.02 else f"${units * draw.uniform(2, 40):,.2f}"
        out.writerow([day, draw.choice(REGIONS), draw.choice(ITEMS), units, amount])
    return written.getvalue().encode()


def run_table_scale_bench(*, rows: int = 10_000, repeats: int = 20, as_json: bool = False) -> dict:
    from docchat.bootstrap import build_services
    from docchat.config import Settings
    from docchat.documents.parsing import parse
    from docchat.store.sheet_tables import SqliteSheetTables
    from docchat.tables.reading import table_of

    data = sales_csv(rows)
    with tempfile.TemporaryDirectory(prefix="docchat-bench-table-scale-") as folder:
        services = build_services(Settings(data_dir=Path(folder) / "data"), contact_llm=False)
        try:
            started = time.perf_counter()
            document = services.ingestion.ingest("sales.csv", data)
            ingest_s = time.perf_counter() - started
            # The typed table's own cost, on the same rows: reading it (within the parse) and keeping it.
            parsed = parse("sales.csv", data, max_bytes=len(data) + 1)
            header, *cells = list(csv.reader(io.StringIO(data.decode())))
            started = time.perf_counter()
            table_of("sales.csv", header, 1, [(number, row) for number, row in enumerate(cells, start=2)])
            read_s = time.perf_counter() - started
            started = time.perf_counter()
            SqliteSheetTables(Path(folder) / "kept").write("d", parsed.tables)
            keep_s = time.perf_counter() - started
            in_scope = [(document.id, "sales.csv")]
            timings, stated = [], 0
            for question in QUESTIONS:
                for _ in range(repeats):
                    started = time.perf_counter()
                    figure = services.figures.figure(question, in_scope)
                    timings.append((time.perf_counter() - started) * 1000)
                stated += figure is not None
        finally:
            services.close()
    tables_s = read_s + keep_s
    p50, p95 = p50_p95(timings)
    report = {"rows": rows, "ingest_s": round(ingest_s, 3), "typed_tables_s": round(tables_s, 3),
              "ingest_without_tables_s": round(ingest_s - tables_s, 3),
              "ratio": round(ingest_s / max(ingest_s - tables_s, 1e-9), 3),
              "questions": len(QUESTIONS), "figures": stated, "ms_p50": round(p50, 2), "ms_p95": round(p95, 2)}
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{rows:,} rows: ingestion {ingest_s:.2f} s, of which typed tables {tables_s:.2f} s "
              f"({report['ratio']:.2f}x the ingestion without them); {stated} of {len(QUESTIONS)} questions "
              f"computed, {p50:.1f} ms p50, {p95:.1f} ms p95 of docchat's own time")
    return report
