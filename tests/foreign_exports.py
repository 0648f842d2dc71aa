"""Small but realistic exports from ChatGPT and Open WebUI, as the apps write them (extra fields
included), for the import tests of every tier."""

from __future__ import annotations

import json

# 2025-03-14 09:30:00 UTC and on, as both apps write times: seconds since the epoch.
T0 = 1741944600.0


def chatgpt_node(node_id: str, parent: str | None, children: list[str], role: str | None = None,
                 parts: list | None = None, *, at: float | None = None, content_type: str = "text",
                 **message_fields) -> dict:
    """One node of ChatGPT's `mapping`; no role means a node without a message (the root)."""
    message = None
    if role is not None:
        message = {
            "id": node_id, "author": {"role": role, "name": None, "metadata": {}},
            "create_time": at, "update_time": None,
            "content": {"content_type": content_type, "parts": parts if parts is not None else []},
            "status": "finished_successfully", "end_turn": True if role == "assistant" else None, "weight": 1.0,
            "metadata": {}, "recipient": "all",
        }
        message.update(message_fields)
    return {"id": node_id, "message": message, "parent": parent, "children": children}


def chatgpt_lease_conversation() -> dict:
    """A conversation about a lease whose first answer was regenerated: the current branch is
    the second answer and the follow-up after it. Around it, the nodes ChatGPT adds that no one
    saw: the empty root, a hidden system message, a tool call and its output."""
    nodes = [
        chatgpt_node("root-0001", None, ["sys-0001"]),
        chatgpt_node("sys-0001", "root-0001", ["user-0001"], "system", [""],
                     metadata={"is_visually_hidden_from_conversation": True}),
        chatgpt_node("user-0001", "sys-0001", ["asst-old1", "asst-0001"], "user",
                     ["When can the rent of the Leeds office lease be reviewed?"], at=T0 + 60),
        chatgpt_node("asst-old1", "user-0001", [], "assistant",
                     ["Every year, on the anniversary of the lease."], at=T0 + 75),
        chatgpt_node("asst-0001", "user-0001", ["user-0002"], "assistant",
                     ["Every fifth year: clause 4.1 sets an upward-only review on the 5th, 10th and 15th "
                      "anniversaries."], at=T0 + 90, metadata={"model_slug": "gpt-4o"}),
        chatgpt_node("user-0002", "asst-0001", ["code-0001"], "user",
                     ["Can the tenant break the lease early?", {"content_type": "image_asset_pointer",
                                                               "asset_pointer": "file-service://file-9Qx"}],
                     at=T0 + 300, content_type="multimodal_text"),
        chatgpt_node("code-0001", "user-0002", ["tool-0001"], "assistant", None, at=T0 + 310,
                     content_type="code", recipient="python",
                     content={"content_type": "code", "language": "unknown", "text": "search('break clause')"}),
        chatgpt_node("tool-0001", "code-0001", ["asst-0002"], "tool", ["Clause 9.2: break on the 10th year."],
                     at=T0 + 312, content_type="execution_output"),
        chatgpt_node("asst-0002", "tool-0001", [], "assistant",
                     ["Yes, once: clause 9.2 lets the tenant end the lease on its 10th anniversary, with six "
                      "months' notice."], at=T0 + 320, metadata={"model_slug": "gpt-4o"}),
    ]
    return {
        "title": "Leeds office lease: rent review", "create_time": T0, "update_time": T0 + 321.5,
        "mapping": {node["id"]: node for node in nodes}, "moderation_results": [], "current_node": "asst-0002",
        "plugin_ids": None, "conversation_id": "67d3f1a2-0b4c-8006-9a1e-2c5d7e9f0a11",
        "conversation_template_id": None, "gizmo_id": None, "is_archived": False, "safe_urls": [],
        "default_model_slug": "gpt-4o", "id": "67d3f1a2-0b4c-8006-9a1e-2c5d7e9f0a11",
    }


def chatgpt_untitled_conversation() -> dict:
    """A short conversation ChatGPT never titled."""
    nodes = [
        chatgpt_node("root-0002", None, ["user-0101"]),
        chatgpt_node("user-0101", "root-0002", ["asst-0101"], "user",
                     ["What is the  determination date in the Hartley trust agreement?"], at=T0 + 3600),
        chatgpt_node("asst-0101", "user-0101", [], "assistant", ["The 15th of each month (clause 4.2)."],
                     at=T0 + 3610),
    ]
    return {
        "title": None, "create_time": T0 + 3600, "update_time": T0 + 3610,
        "mapping": {node["id"]: node for node in nodes}, "current_node": "asst-0101",
        "conversation_id": "67d40b77-5e10-8006-b2c4-90aa11d2e3f4", "id": "67d40b77-5e10-8006-b2c4-90aa11d2e3f4",
    }


def chatgpt_export() -> list[dict]:
    """ChatGPT's `conversations.json`: a list of conversations, most recent first."""
    return [chatgpt_untitled_conversation(), chatgpt_lease_conversation()]


def open_webui_message(message_id: str, parent: str | None, children: list[str], role: str, content,
                       at: int, **fields) -> dict:
    message = {"id": message_id, "parentId": parent, "childrenIds": children, "role": role, "content": content,
               "timestamp": at}
    if role == "assistant":
        message.update(model="llama3.1:8b", modelName="llama3.1:8b", done=True)
    else:
        message.update(models=["llama3.1:8b"])
    message.update(fields)
    return message


def open_webui_quarterly_chat() -> dict:
    """An Open WebUI chat about a quarterly report, as its *Export chats* writes it: the user
    edited the first question, so `history` holds two branches; `messages` holds the current one."""
    t0 = int(T0) + 86400
    nodes = [
        open_webui_message("q-old", None, ["a-old"], "user", "How did revenue do?", t0),
        open_webui_message("a-old", "q-old", [], "assistant", "Which revenue do you mean?", t0 + 5),
        open_webui_message("q-1", None, ["a-1"], "user", "How did recurring revenue move in Q3 compared with Q2?",
                           t0 + 30),
        open_webui_message("a-1", "q-1", ["q-2"], "assistant",
                           "Recurring revenue rose 8.4% quarter on quarter, to EUR 12.7 million.", t0 + 41),
        open_webui_message("q-2", "a-1", ["a-2"], "user", "And did the gross margin hold up?", t0 + 120),
        open_webui_message("a-2", "q-2", [], "assistant", "", t0 + 121, done=False),
    ]
    history = {node["id"]: node for node in nodes}
    return {
        "id": "9c1f4e2a-7b3d-4e8f-a6c5-1d2e3f4a5b6c", "user_id": "3e0b6f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
        "title": "Q3 2025 quarterly report",
        "chat": {
            "id": "", "title": "Q3 2025 quarterly report", "models": ["llama3.1:8b"], "params": {},
            "history": {"messages": history, "currentId": "a-2"},
            "messages": [history[i] for i in ("q-1", "a-1", "q-2", "a-2")],
            "tags": [], "timestamp": (t0 + 30) * 1000, "files": [],
        },
        "updated_at": t0 + 121, "created_at": t0 + 30, "share_id": None, "archived": False, "pinned": False,
        "meta": {}, "folder_id": None,
    }


def open_webui_chat_without_history() -> dict:
    """An older Open WebUI chat that has only the `messages` list."""
    t0 = int(T0) + 172800
    chat = open_webui_quarterly_chat()
    chat.update(id="1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", title="", created_at=t0, updated_at=t0 + 9)
    chat["chat"] = {"title": "", "messages": [
        {"id": "m-1", "role": "system", "content": "You are a careful paralegal.", "timestamp": t0},
        {"id": "m-2", "role": "user", "content": "Who signs for the trustee of the Hartley trust?", "timestamp": t0},
        {"id": "m-3", "role": "assistant", "content": "Any two trustees, acting together (clause 12).",
         "timestamp": t0 + 9},
    ]}
    return chat


def open_webui_export() -> list[dict]:
    return [open_webui_quarterly_chat(), open_webui_chat_without_history()]


def as_file(export) -> bytes:
    return json.dumps(export, ensure_ascii=False).encode("utf-8")
