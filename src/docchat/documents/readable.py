"""The kinds of file docchat reads, in the one sentence the page, the API and `docchat ingest
--help` say them in. It names the kinds of docchat.documents.parsing's KINDS, and lives apart
from it so that saying it imports no parser: `docchat --help` shows it."""

READABLE = ("PDF, DOCX, Markdown, text, HTML, slides (PPTX), spreadsheets (XLSX, ODS, CSV, TSV), e-books (EPUB), "
            "mail (EML, MSG), source code and notebooks (Python, JavaScript, TypeScript, Java, Go, Rust, C, C++ "
            "and more; IPYNB), and images and scans by OCR (PNG, JPEG, TIFF, WebP)")
