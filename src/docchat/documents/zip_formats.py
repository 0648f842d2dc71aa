"""What the parsers of zip-based formats (PPTX, XLSX, ODS) check before a library opens a file.

- A zip that says it unpacks to far more than an upload may weigh (a zip bomb) is refused from its
  directory alone, before anything is unpacked; one that lies about its sizes is read only as far
  as it says (Python's zipfile stops there, and the checksum then fails).
- A password-protected Office file is not a zip at all but a compound file holding an
  EncryptedPackage; an older binary Office file (.xls, .ppt) is a compound file too. Each is
  refused for what it is, not as damaged. A password-protected ODS is a zip whose manifest says
  its parts are encrypted.
"""

from __future__ import annotations

import io
import zipfile

from docchat.errors import InvalidInput

MB = 1024 * 1024
# As for DOCX (docchat.documents.parsing): a zip may unpack to this many times the upload limit.
MAX_EXPANSION = 20
_COMPOUND_FILE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")


def open_checked(shown: str, data: bytes, max_bytes: int, *, what: str, suffix: str,
                 unreadable: str) -> zipfile.ZipFile:
    """The file as a zip, checked; InvalidInput naming the file when it is password-protected, an
    older binary Office file, not a zip, or a zip bomb. `what`: the kind in words ("a workbook");
    `unreadable`: what is said of a file that cannot be read ("is not a readable ...")."""
    if data.startswith(_COMPOUND_FILE):
        if _ENCRYPTED_PACKAGE in data:
            raise InvalidInput(f"{shown} is password-protected")
        raise InvalidInput(f"{shown} is an older binary Office file; save it as {suffix} and upload that")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        unpacked = sum(entry.file_size for entry in archive.infolist())
    except (zipfile.BadZipFile, ValueError, EOFError, OSError):
        raise InvalidInput(f"{shown} {unreadable}") from None
    if unpacked > MAX_EXPANSION * max_bytes:
        archive.close()
        megabytes = f"{unpacked / MB:.1f}".removesuffix(".0")
        raise InvalidInput(f"{shown} unpacks to {megabytes} MB, too much for {what}")
    return archive


def refuse_encrypted_odf(shown: str, archive: zipfile.ZipFile) -> None:
    """InvalidInput when an OpenDocument file's manifest says its parts are encrypted."""
    try:
        manifest = archive.read("META-INF/manifest.xml")
    except (KeyError, zipfile.BadZipFile, ValueError, EOFError, OSError, RuntimeError):
        return  # no manifest to tell: the reader decides
    if b"encryption-data" in manifest:
        raise InvalidInput(f"{shown} is password-protected")

