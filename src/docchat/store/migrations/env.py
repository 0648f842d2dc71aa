"""Alembic environment: always run with a connection handed over by docchat.store.migrate, in
its transaction (so Alembic opens none of its own: every pending revision runs in that one)."""

from alembic import context

from docchat.store.tables import metadata

connection = context.config.attributes["connection"]
# Each revision applied, as it is: a failure names the step after the last one.
applied = context.config.attributes.get("applied", [])
context.configure(
    connection=connection,
    target_metadata=metadata,
    # SQLite cannot ALTER most things; batch mode rebuilds tables instead.
    render_as_batch=connection.dialect.name == "sqlite",
    on_version_apply=lambda *, step, **_: applied.append(step.up_revision_id),
)
with context.begin_transaction():
    context.run_migrations()
