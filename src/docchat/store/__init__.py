"""Durable state: SQLAlchemy tables, migrations, repository, unit of work."""
