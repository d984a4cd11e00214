#!/usr/bin/env python3
"""Prints the SQLite tables Home Assistant's recorder creates, from Home
Assistant's own code: its `db_schema` models created through SQLAlchemy on
an empty SQLite database, as the recorder does on first start. Run with a
Python that has `homeassistant` installed (the fixture was made with
`pip install homeassistant==2024.3.3` in a venv under .build):

    .build/ha-venv/bin/python scripts/ha-recorder-schema.py > Tests/Fixtures/home-assistant/recorder-schema-42.sql
"""
import sqlalchemy
from homeassistant.components.recorder import db_schema
from homeassistant.const import __version__

engine = sqlalchemy.create_engine("sqlite://")
db_schema.Base.metadata.create_all(engine)
print(f"-- Home Assistant {__version__}'s recorder tables (schema {db_schema.SCHEMA_VERSION}), as its own")
print("-- db_schema models create them on SQLite: captured by scripts/ha-recorder-schema.py.")
with engine.connect() as connection:
    rows = connection.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type = 'index', rowid")
    for (sql,) in rows:
        print(sql.strip() + ";")
