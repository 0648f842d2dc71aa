"""GET /api/v1/health: the same facts as `docchat doctor --json`."""

from __future__ import annotations

from docchat.bootstrap import build_backup


def test_health_says_when_the_last_backup_was_made_and_to_which_file_or_that_none_was(client, api_services,
                                                                                        tmp_path):
    assert client.get("/api/v1/health").json()["backup"] == {"last_backup": None, "file": None, "before_upgrade": None}
    archive = tmp_path / "friday.zip"

    report = build_backup(api_services.settings).backup(archive)

    health = client.get("/api/v1/health").json()
    assert health["backup"] == {"last_backup": report.made_at.isoformat(), "file": str(archive),
                                "before_upgrade": None}
    assert health["backup"] == build_backup(api_services.settings).status().__dict__
    assert set(health) == {"store", "llm", "documents", "backup"}
