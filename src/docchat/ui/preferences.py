"""The part of the Settings page that changes settings: answer length, the LLM server (with a
live check), the embeddings server and the passage share. Saved in the data directory and
applied at once; what an environment variable sets is shown, not changeable."""

from __future__ import annotations

import streamlit as st

from docchat.domain import LLMStatus
from docchat.errors import DocchatError
from docchat.ui.session import rebuild_services, services

KEY = "preferences"
SAVED = f"{KEY}_saved"


def render(llm: LLMStatus | None = None) -> None:
    """`llm`: what the server said, for the model choice (offered when it serves several)."""
    settings = services().settings
    locked = services().preferences.locked()
    st.subheader("Preferences", anchor=False)
    if st.session_state.pop(SAVED, False):
        st.success("Preferences saved and applied.", icon=":material/check_circle:")
    if locked:
        st.caption("Set by environment variables, so fixed here: " +
                   ", ".join(f"DOCCHAT_{name.upper()}" for name in sorted(locked)))
    url = st.text_input("LLM server address", value=settings.llm_url or "", key=f"{KEY}_llm_url",
                        placeholder=f"{settings.embedded_url} (docchat's own server, started by make run)",
                        disabled="llm_url" in locked)
    if st.button("Check this address", key=f"{KEY}_check", icon=":material/network_check:"):
        _check(url or settings.embedded_url)
    with st.form(key=f"{KEY}_form", border=False):
        model = _model(settings.llm_model, llm, disabled="llm_model" in locked)
        window = st.number_input("Model window, in tokens (0: as the server says, else assumed 4,096)",
                                 min_value=0, max_value=10_000_000, step=1024, value=settings.llm_window or 0,
                                 disabled="llm_window" in locked, key=f"{KEY}_llm_window",
                                 help="For a server that does not report its window (llama-cpp-python, Ollama "
                                      "before the model is loaded, a plain OpenAI-compatible one): the context "
                                      "length the server was started with. A server's own smaller figure wins.")
        answer = st.number_input("Longest answer, in tokens", min_value=16, max_value=262_144, step=64,
                                 value=services().chat.longest_answer,
                                 disabled="max_tokens" in locked, key=f"{KEY}_max_tokens")
        share = st.slider("Share of the window for documents", min_value=0.0, max_value=0.8, step=0.05,
                          value=float(settings.cap_chunks), disabled="cap_chunks" in locked, key=f"{KEY}_cap_chunks",
                          help="Whole documents or retrieved passages take at most this share; the history gets the rest.")
        embeddings = st.text_input("Embeddings server (OpenAI-compatible)", value=settings.embeddings_url or "",
                                   placeholder="empty: the bundled all-MiniLM-L6-v2", key=f"{KEY}_embeddings_url",
                                   disabled="embeddings_url" in locked,
                                   help="Another embedding model needs `docchat documents reindex` afterwards.")
        embedding_model = st.text_input("Embedding model", value=settings.embeddings_model or "",
                                        key=f"{KEY}_embeddings_model",
                                        placeholder="empty: the first model the server lists",
                                        disabled="embeddings_model" in locked)
        only = st.toggle("Answer from the documents only", value=settings.documents_only,
                         disabled="documents_only" in locked, key=f"{KEY}_documents_only",
                         help="For conversations that have not chosen (each can, under Documents in its "
                              "header): when nothing is found in the documents, docchat says so, as always, "
                              "and the model's own answer is not offered either.")
        quote = st.toggle("Quote the documents instead of asking the model", value=settings.quoted_answers,
                          disabled="quoted_answers" in locked, key=f"{KEY}_quoted_answers",
                          help="For conversations that have not chosen (each can, under Documents in its header): "
                               "an answer the documents hold is their own sentences, each cited, and the model "
                               "is not asked.")
        if st.form_submit_button("Save preferences", type="primary"):
            changes = {"llm_url": url.strip() or None, "max_tokens": int(answer), "cap_chunks": round(share, 2),
                       "embeddings_url": embeddings.strip() or None,
                       "embeddings_model": embedding_model.strip() or None,
                       "documents_only": bool(only), "quoted_answers": bool(quote), "llm_model": model,
                       "llm_window": int(window) or None}
            _save({name: value for name, value in changes.items() if name not in locked})


def _model(chosen: str | None, llm: LLMStatus | None, *, disabled: bool) -> str | None:
    """The model to ask, chosen among those the server serves when it serves several; else the
    saved choice stays as it is."""
    served = list(llm.models) if llm is not None else []
    if len(served) < 2:
        return chosen
    current = chosen if chosen in served else (llm.model if llm is not None and llm.model in served else served[0])
    return st.selectbox("Model", served, index=served.index(current), disabled=disabled, key=f"{KEY}_llm_model",
                        help="The server serves several models; docchat asks this one.")


def _check(url: str) -> None:
    try:
        st.success(services().llm.check(url), icon=":material/check_circle:")
    except DocchatError as error:
        st.error(str(error), icon=":material/cloud_off:")


def _save(changes: dict[str, object]) -> None:
    try:
        services().preferences.save(changes)
    except DocchatError as error:
        st.error(str(error))
        return
    rebuild_services()
    st.session_state[SAVED] = True
    st.rerun()
