"""Mail (.eml, and Outlook's .msg): who wrote to whom, when, about what, and what was said.

Invariants (beside docchat.documents.parsing's, which hold here too):
- The first section holds the From, To, Cc, Date and Subject lines, the attachments' names
  ("Attachments: a.pdf, b.xlsx") and then the body; it is labelled by the subject, or
  `message` when there is none. A body longer than SECTION_CHARS goes on in more sections,
  cut at blank lines and labelled "<subject>, part N".
- The body is the text/plain part when the mail has one, else its text/html part read as the
  HTML parser reads a page (nothing fetched); quoted replies are kept as written.
- The tables of its HTML part (a plain-text body beside it or not: its text has lost their
  columns) are kept as tables, named by the message: "<subject>, table 1".
- Every attachment is named. Those of a kind docchat reads (a forwarded mail as an .eml) are
  also handed back, whole, up to MAX_ATTACHMENTS and each once, for ingestion to make documents
  of their own; those inside a forwarded mail stay inside it (read when that mail is).
- A file with none of those headers is not a mail, a mail with no subject, body or attachment
  is empty, and an S/MIME or OpenPGP one cannot be read: each is refused in one line.
- A .msg is turned into the same message by aspose-email-foss (MIT, pure Python, no
  dependencies; imported when a .msg is parsed), then read as an .eml is. Of the other readers
  on the package registry, extract-msg is GPL, msg-parser and outlook-msg have had no release
  since 2019, and python-oxmsg (MIT) has had two, the last in February 2025, and brings olefile
  and click. Its body is the message's plain text or HTML: one kept only as RTF is not read.

`email` (policy.default) is imported when a mail is parsed, as each parser's library is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import TYPE_CHECKING

from docchat.documents.kinds import Kind, Read
from docchat.documents.kinds.html import read_html, read_with_tables
from docchat.documents.text_reading import refuse_binary
from docchat.domain import Attachment, Section, content_hash
from docchat.domain.documents import SheetTable
from docchat.errors import InvalidInput
from docchat.text import with_replacement_characters

if TYPE_CHECKING:
    from email.message import EmailMessage, MIMEPart

WORDS = "mail (EML, MSG)"
HEADERS = ("From", "To", "Cc", "Date", "Subject")
MESSAGE = "message"
# As plain text's (kinds.text): a long body goes into sections of about this many characters.
SECTION_CHARS = 4000
PROTECTED = {"multipart/encrypted", "application/pkcs7-mime", "application/x-pkcs7-mime"}
# Beyond this many, attachments are named but not made documents (each costs an ingestion).
MAX_ATTACHMENTS = 50
FORWARDED = "forwarded message.eml"


def read_eml(shown: str, data: bytes, max_bytes: int) -> Read:
    from email import policy
    from email.parser import BytesParser

    refuse_binary(shown, data)
    try:
        return _sections(shown, BytesParser(policy=policy.default).parsebytes(data))
    except (InvalidInput, MemoryError):
        raise
    except Exception:
        # A mail too deeply nested for the email package, or one whose parts it cannot decode.
        raise InvalidInput(f"{shown} is not a readable e-mail message (.eml)") from None


def read_msg(shown: str, data: bytes, max_bytes: int) -> Read:
    from aspose.email_foss.cfb import CFBReader  # type: ignore[import-untyped]
    from aspose.email_foss.msg import MapiMessage, MsgDocument, MsgReader  # type: ignore[import-untyped]

    try:
        with MsgReader(CFBReader(data)) as reader:
            message = MapiMessage.from_msg_document(MsgDocument.from_reader(reader)).to_email_message()
        return _sections(shown, message)
    except (InvalidInput, MemoryError):
        raise
    except Exception:
        raise InvalidInput(f"{shown} is not a readable Outlook message (.msg)") from None


def _sections(shown: str, message: EmailMessage) -> Read:
    if message.get_content_type() in PROTECTED:
        raise InvalidInput(f"{shown} is encrypted (S/MIME or OpenPGP); docchat cannot read it")
    headers = [(name, value) for name in HEADERS if (value := _header(message, name))]
    if not headers:
        raise InvalidInput(f"{shown} is not an e-mail message (it has no From, To, Date or Subject)")
    body_part = message.get_body(preferencelist=("plain", "html"))
    body = "" if body_part is None else _body_text(shown, body_part)
    attachments = [_attachment_name(part) for part in message.walk() if _is_attachment(part, body_part)]
    subject = dict(headers).get("Subject", "")
    if not body.strip() and not subject and not attachments:
        raise InvalidInput(f"{shown} is an empty message (no subject, text or attachment)")
    lines = [f"{name}: {value}" for name, value in headers]
    if attachments:
        lines.append("Attachments: " + ", ".join(attachments))
    first = subject or MESSAGE
    parts = _parts(body) or [""]
    sections = [Section(first, None, "\n".join(lines) + "\n\n" + parts[0])] + [
        Section(f"{first[:90]}, part {number}", None, text) for number, text in enumerate(parts[1:], start=2)
    ]
    return Read(sections, _readable_attachments(message, body_part), tables=_tables(shown, message, first))


def _tables(shown: str, message: EmailMessage, first: str) -> tuple[SheetTable, ...]:
    """The tables of the message's HTML part, named by its subject (or `message`)."""
    part = message.get_body(preferencelist=("html",))
    text = None if part is None else part.get_content()
    if not isinstance(text, str) or "<table" not in text.lower():
        return ()
    return read_with_tables(shown, _as_utf8(text), lambda number: f"{first[:90]}, table {number}").tables


def _as_utf8(text: str) -> bytes:
    # A byte order mark tells BeautifulSoup the text is UTF-8, whatever charset its <meta> claims:
    # the email package has already decoded it by the part's own charset.
    return b"\xef\xbb\xbf" + with_replacement_characters(text).encode()


def _header(message: EmailMessage, name: str) -> str:
    """The header's value as one line, decoded (RFC 2047); as written when it cannot be parsed."""
    try:
        value = message[name]
    except Exception:
        value = next((raw for key, raw in message.raw_items() if key.lower() == name.lower()), None)
    # Bytes that are not ASCII in a header come back as lone surrogates, which no store holds.
    return with_replacement_characters(" ".join(str(value).split())) if value is not None else ""


def _body_text(shown: str, part: MIMEPart) -> str:
    text = part.get_content()
    if not isinstance(text, str):
        return ""
    if part.get_content_subtype() != "html":
        return text
    return "\n\n".join(section.text for section in read_html(shown, _as_utf8(text), 0))


def _is_attachment(part: MIMEPart, body_part: MIMEPart | None) -> bool:
    if part is body_part or part.is_multipart() and part.get_content_type() != "message/rfc822":
        return False
    return part.is_attachment() or part.get_filename() is not None or part.get_content_type() == "message/rfc822"


def _attachment_name(part: MIMEPart) -> str:
    name = part.get_filename()
    if name:
        return " ".join(name.split())
    if part.get_content_type() == "message/rfc822":
        return "a forwarded message"
    return f"an unnamed {part.get_content_type()}"


def _readable_attachments(message: EmailMessage, body_part: MIMEPart | None) -> tuple[Attachment, ...]:
    """The attachments of a kind docchat reads, whole, each content once; not those inside a
    forwarded mail (that mail is one of them)."""
    # The registry gathers this module: imported here, when a mail is read, not when it is gathered.
    from docchat.documents.registry import reads

    found: dict[str, Attachment] = {}
    for part in _attached_parts(message):
        if len(found) == MAX_ATTACHMENTS:
            break
        if not _is_attachment(part, body_part):
            continue
        forwarded = part.get_content_type() == "message/rfc822"
        # Only the last component of the name: a sender's "../x.pdf" names a file, not a path.
        name = PurePath(" ".join((part.get_filename() or "").split()).replace("\\", "/")).name
        if forwarded and not reads(name):
            name = FORWARDED
        if not reads(name):
            continue
        data = _payload(part, forwarded)
        if data:
            found.setdefault(content_hash(data), Attachment(with_replacement_characters(name), data))
    return tuple(found.values())


def _attached_parts(message: MIMEPart) -> Iterator[MIMEPart]:
    """Every leaf part, and every forwarded mail as one part, in order."""
    for part in message.iter_parts():
        if part.get_content_type() == "message/rfc822":
            yield part
        elif part.is_multipart():
            yield from _attached_parts(part)
        else:
            yield part


def _payload(part: MIMEPart, forwarded: bool) -> bytes:
    try:
        if forwarded:
            # A payload that is not a mail has no as_bytes: the AttributeError is caught below.
            return bytes(part.get_payload(0).as_bytes())  # type: ignore[union-attr]
        data = part.get_payload(decode=True)
    except Exception:  # a part the email package cannot decode or write out: named only
        return b""
    return data if isinstance(data, bytes) else b""


def _parts(body: str) -> list[str]:
    """The body in pieces of about SECTION_CHARS, cut between paragraphs."""
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for paragraph in re.split(r"\n[ \t]*\n", body.replace("\r\n", "\n").strip()):
        if current and size + len(paragraph) > SECTION_CHARS:
            pieces.append("\n\n".join(current))
            current, size = [], 0
        current.append(paragraph)
        size += len(paragraph) + 2
    if current:
        pieces.append("\n\n".join(current))
    return [piece for piece in pieces if piece.strip()]


KINDS = (Kind("email", (".eml",), read_eml), Kind("outlook", (".msg",), read_msg))
