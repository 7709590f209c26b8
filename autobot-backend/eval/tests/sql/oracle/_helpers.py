"""Plain helpers the suspect-reference test modules share: a small world database of countries and cities."""

from __future__ import annotations

import sqlite3
from pathlib import Path

WORLD = [
    "CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT, continent TEXT, population INTEGER)",
    "INSERT INTO country VALUES ('NL', 'Netherlands', 'Europe', 17), ('US', 'United States', 'North America', 330),"
    " ('CA', 'Canada', 'North America', 38), ('FR', 'France', 'Europe', 67), ('JP', 'Japan', 'Asia', 125)",
    "CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT, country_code TEXT, population INTEGER)",
    "INSERT INTO city VALUES (1, 'Amsterdam', 'NL', 1), (2, 'Rotterdam', 'NL', 1), (3, 'New York', 'US', 8),"
    " (4, 'Toronto', 'CA', 3), (5, 'Paris', 'FR', 2), (6, 'Tokyo', 'JP', 14)",
]


def build_world(path: Path) -> str:
    db = sqlite3.connect(path)
    for statement in WORLD:
        db.execute(statement)
    db.commit()
    db.close()
    return f"sqlite:///{path}"
