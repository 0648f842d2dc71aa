"""Conversations exported by other apps: ChatGPT's `conversations.json` and Open WebUI's chat export.

Both apps keep a conversation as a tree (an edited question or a regenerated answer starts a
branch); what the person last saw is the path from the current message back to the root, and
only that path is imported, as user and assistant messages with text. The checks are as strict
as for docchat's own export: a conversation the file cannot describe refuses the whole file.
Ids are uuid5 of the app and its own conversation id, so importing the same file again finds
its conversations already present.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, overload

from docchat.domain import NO_FACTS, AnswerFacts, Conversation, ConversationSettings, Message, Role, TitleSource
from docchat.errors import InvalidExport
from docchat.exchange import ImportedConversation, document_from, read_json
from docchat.domain.titles import MAX_TITLE, clean_title, title_from
from docchat.text import one_line

# Fixed for good, as are the kinds ids are derived from ("chatgpt:<id>", "open-webui:<id>"):
# changing either would import every foreign conversation a second time.
NAMESPACE = uuid.UUID("8115b0a0-dec9-4f58-90aa-a0025862fa13")
ACCEPTED = "docchat's JSON export (or a zip of them), ChatGPT's conversations.json or Open WebUI's chat export"


class _Refused(ValueError):
    """What is wrong with one conversation; the caller names the file and the conversation."""


@dataclass(frozen=True)
class _Turn:
    role: Role
    text: str
    at: datetime | None
    model: str | None


def parse_export(raw: bytes, *, source: str = "file") -> list[ImportedConversation]:
    """Every conversation in a file of any format docchat reads, or InvalidExport naming the problem."""
    data = read_json(raw, source=source)
    if isinstance(data, dict) and "schema" in data:
        return [document_from(data, source=source)]
    # One conversation saved on its own is read like a list of one.
    items = data if isinstance(data, list) else [data]
    if not items:
        raise InvalidExport(f"{source}: the file holds no conversations")
    if all(isinstance(item, dict) and "mapping" in item for item in items):
        app, read = "ChatGPT", _from_chatgpt
    elif all(isinstance(item, dict) and "chat" in item for item in items):
        app, read = "Open WebUI", _from_open_webui
    else:
        raise InvalidExport(f"{source}: not a conversation export docchat reads: expected {ACCEPTED}")
    imported = []
    for number, item in enumerate(items, start=1):
        try:
            imported.append(read(item))
        except _Refused as problem:
            title = item.get("title")
            named = f" ({one_line(title)})" if isinstance(title, str) and one_line(title) else ""
            # The problem quotes keys and values from the file, which may hold line breaks.
            raise InvalidExport(f"{source}: {app} conversation {number}{named}: "
                                f"{one_line(str(problem), limit=240)}") from None
    return imported


# ChatGPT


def _from_chatgpt(item: dict[str, Any]) -> ImportedConversation:
    source_id = _source_id(item, "conversation_id", "id")
    mapping = item["mapping"]
    if not isinstance(mapping, dict):
        raise _Refused("mapping is not an object")
    leaf = item.get("current_node")
    if not isinstance(leaf, str):
        raise _Refused("current_node is missing")
    turns = [_chatgpt_turn(node_id, node) for node_id, node in _branch(leaf, mapping, "parent", "mapping")]
    return _conversation("chatgpt", source_id, item.get("title"), _time(item, "create_time", required=True),
                         _time(item, "update_time"), [t for t in turns if t is not None])


def _chatgpt_turn(node_id: str, node: dict[str, Any]) -> _Turn | None:
    message = node.get("message")
    if message is None:
        return None
    where = f"mapping.{node_id}.message"
    if not isinstance(message, dict):
        raise _Refused(f"{where} is not an object")
    author = message.get("author")
    if not isinstance(author, dict) or not isinstance(author.get("role"), str):
        raise _Refused(f"{where}.author.role is missing")
    content = message.get("content")
    if not isinstance(content, dict):
        raise _Refused(f"{where}.content is missing")
    metadata = message.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    if (author["role"] not in ("user", "assistant")
            # Code, tool output, browsing, reasoning: not what the conversation showed as text.
            or content.get("content_type") not in ("text", "multimodal_text")
            # Addressed to a tool (the code runner, the memory), not to the person.
            or message.get("recipient", "all") != "all"
            or metadata.get("is_visually_hidden_from_conversation")):
        return None
    parts = content.get("parts")
    if not isinstance(parts, list):
        raise _Refused(f"{where}.content.parts is missing")
    # Images and files in a multimodal message are objects: only its text is kept.
    text = "\n".join(part for part in parts if isinstance(part, str))
    if not text.strip():
        return None
    model = metadata.get("model_slug") if author["role"] == "assistant" else None
    return _Turn(Role(author["role"]), text, _time(message, "create_time", where=where),
                 model if isinstance(model, str) else None)


# Open WebUI


def _from_open_webui(item: dict[str, Any]) -> ImportedConversation:
    source_id = _source_id(item, "id")
    chat = item["chat"]
    if not isinstance(chat, dict):
        raise _Refused("chat is not an object")
    history = chat.get("history")
    if isinstance(history, dict) and history.get("currentId") is not None:
        leaf = history["currentId"]
        if not isinstance(leaf, str) or not isinstance(history.get("messages"), dict):
            raise _Refused("chat.history has no messages for its currentId")
        messages = [node for _, node in _branch(leaf, history["messages"], "parentId", "chat.history.messages")]
    elif isinstance(chat.get("messages"), list):
        messages = chat["messages"]
    else:
        raise _Refused("chat has neither history.currentId nor a messages list")
    turns = [_open_webui_turn(number, message) for number, message in enumerate(messages, start=1)]
    title = item.get("title") if isinstance(item.get("title"), str) and item["title"].strip() else chat.get("title")
    return _conversation("open-webui", source_id, title, _time(item, "created_at", required=True),
                         _time(item, "updated_at"), [t for t in turns if t is not None])


def _open_webui_turn(number: int, message: object) -> _Turn | None:
    where = f"message {number}"
    if not isinstance(message, dict) or not isinstance(message.get("role"), str):
        raise _Refused(f"{where} has no role")
    content = message.get("content")
    if message["role"] not in ("user", "assistant") or not isinstance(content, str) or not content.strip():
        return None
    model = message.get("model") if message["role"] == "assistant" else None
    return _Turn(Role(message["role"]), content, _time(message, "timestamp", where=where),
                 model if isinstance(model, str) else None)


# shared


def _source_id(item: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = item.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value)
    raise _Refused(f"{' or '.join(keys)} is missing")


def _branch(leaf: str, nodes: dict[str, Any], parent_key: str, where: str) -> list[tuple[str, dict[str, Any]]]:
    """The nodes from the root down to `leaf`, found by following each node's parent."""
    branch: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    node_id: object = leaf
    while node_id is not None:
        if not isinstance(node_id, str) or not isinstance(nodes.get(node_id), dict):
            raise _Refused(f"{where} has no message {node_id!r} (the current one or a parent)")
        if node_id in seen:
            raise _Refused(f"{where}: the {parent_key} links go round in a loop at {node_id!r}")
        seen.add(node_id)
        branch.append((node_id, nodes[node_id]))
        node_id = nodes[node_id].get(parent_key)
    return branch[::-1]


# `required=True` never gives None: a missing time is refused.
@overload
def _time(record: dict[str, Any], key: str, *, where: str = "", required: Literal[True]) -> datetime: ...


@overload
def _time(record: dict[str, Any], key: str, *, where: str = "", required: bool = False) -> datetime | None: ...


def _time(record: dict[str, Any], key: str, *, where: str = "", required: bool = False) -> datetime | None:
    """Seconds since the epoch (an int or a float, as both apps write them), in UTC."""
    value = record.get(key)
    name = f"{where}.{key}" if where else key
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Refused(f"{name} is {'missing' if value is None else 'not a number of seconds'}")
    try:
        return datetime.fromtimestamp(value, timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise _Refused(f"{name} is not a time: {value}") from None


def _conversation(kind: str, source_id: str, title: object, created: datetime, updated: datetime | None,
                  turns: list[_Turn]) -> ImportedConversation:
    conversation_id = str(uuid.uuid5(NAMESPACE, f"{kind}:{source_id}"))
    messages = []
    moment, parent = created, None
    for seq, turn in enumerate(turns, start=1):
        # A message without a time of its own is dated with the one before it.
        moment = turn.at or moment
        messages.append(Message(
            id=str(uuid.uuid5(NAMESPACE, f"{kind}:{source_id}:{seq}")), conversation_id=conversation_id, seq=seq,
            role=turn.role, content=turn.text, created_at=moment, parent_id=parent,
            facts=AnswerFacts(model=turn.model) if turn.model else NO_FACTS,
        ))
        parent = messages[-1].id  # the branch shown is imported: each turn follows the one before
    title, title_source = _title(title, turns)
    conversation = Conversation(
        id=conversation_id, title=title, created_at=created,
        updated_at=max([updated or created, *(m.created_at for m in messages)]),
        settings=ConversationSettings(title_source=title_source),
    )
    return ImportedConversation(conversation, messages, [])


def _title(title: object, turns: list[_Turn]) -> tuple[str, TitleSource]:
    """The app's title (the person's or the app's, either way the one they knew it by), else
    the first words of the first question."""
    if isinstance(title, str) and title.strip():
        return clean_title(" ".join(title.split())[:MAX_TITLE]), TitleSource.USER
    question = next((turn.text for turn in turns if turn.role is Role.USER), "")
    return title_from(question), TitleSource.FIRST_WORDS if question.strip() else TitleSource.DEFAULT
