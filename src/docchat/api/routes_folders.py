"""Followed folders, as `docchat folders` follows them: add, list, sync, remove.

Paths are the server's: a folder on the machine the API runs on, named absolutely (a relative
path would mean the server's working folder, which a client cannot know).
"""

from __future__ import annotations

import os

from fastapi import APIRouter, Depends, Query, Response

from docchat.api import deps
from docchat.api.schemas import FolderOut, FolderToFollow, SyncOut, from_folder, from_sync
from docchat.errors import InvalidInput

router = APIRouter(prefix="/api/v1", tags=["folders"])


@router.get("/folders", response_model=list[FolderOut])
def list_folders(services=Depends(deps.services)):
    """Each followed folder: its files by status, the last sync, and the files refused or failed with why."""
    return [from_folder(state) for state in services.folders.list()]


@router.post("/folders", response_model=SyncOut, status_code=201)
def follow_folder(body: FolderToFollow, services=Depends(deps.services)):
    """Follows the folder and adds the files in it and below that docchat reads; the counts of that first pass."""
    conversation_id = services.conversations.resolve_id(body.conversation_id) if body.conversation_id else None
    return from_sync(services.folders.add(_absolute(body.path), conversation_id))


@router.post("/folders/sync", response_model=SyncOut)
def sync_folders(services=Depends(deps.services)):
    """One pass over every followed folder: added, changed, removed, unchanged, refused, failed."""
    return from_sync(services.folders.sync())


@router.delete("/folders", status_code=204)
def unfollow_folder(path: str = Query(description="The followed folder's absolute path"),
                    services=Depends(deps.services)):
    """Stops following the folder; its files' documents leave the library (answers that cited
    them keep their quotes); the files on disk are not touched."""
    services.folders.remove(_absolute(path))
    return Response(status_code=204)


def _absolute(path: str) -> str:
    if not os.path.isabs(path):
        raise InvalidInput(f"{path!r} is not an absolute path")
    return path
