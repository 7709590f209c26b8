"""The built-in generator on a schema none of its dev questions were written for: a small HR database with
other naming habits (singular table names, ``dept_name`` labels, a self-referencing manager, a
numeric column in a child table). Its answers must match hand-written SQL."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3

import pytest
import sqlalchemy as sa

import services.schema_context  # noqa: F401  (registers the SQLite column-comment DDL hook)
from services.embedded import EmbeddedGenerator
from services.embedded.refusal import Refusal
from services.schema_context import inspect_schema


def _build(engine: sa.Engine) -> None:
    md = sa.MetaData()
    dept = sa.Table(
        "department",
        md,
        sa.Column("dept_id", sa.Integer, primary_key=True),
        sa.Column("dept_name", sa.Text, nullable=False, comment="Department name"),
        sa.Column("location", sa.Text, nullable=False, comment="City of the office"),
    )
    emp = sa.Table(
        "employee",
        md,
        sa.Column("emp_id", sa.Integer, primary_key=True),
        sa.Column("full_name", sa.Text, nullable=False),
        sa.Column("dept_id", sa.Integer, sa.ForeignKey("department.dept_id"), nullable=False),
        sa.Column("job_title", sa.Text, nullable=False),
        sa.Column("salary", sa.Numeric(10, 2), nullable=False, comment="Annual salary"),
        sa.Column("hire_date", sa.Date, nullable=False),
        sa.Column("termination_date", sa.Date, nullable=True, comment="NULL while employed"),
        sa.Column("manager_id", sa.Integer, sa.ForeignKey("employee.emp_id"), nullable=True),
    )
    sheet = sa.Table(
        "timesheet",
        md,
        sa.Column("entry_id", sa.Integer, primary_key=True),
        sa.Column("emp_id", sa.Integer, sa.ForeignKey("employee.emp_id"), nullable=False),
        sa.Column("work_date", sa.Date, nullable=False),
        sa.Column("hours", sa.Numeric(4, 1), nullable=False, comment="Hours worked that day"),
    )
    md.create_all(engine)
    rng = random.Random(3)
    with engine.begin() as conn:
        conn.execute(
            dept.insert(),
            [
                dict(dept_id=i, dept_name=n, location=loc)
                for i, (n, loc) in enumerate(
                    [("Engineering", "Oslo"), ("Sales", "Paris"), ("Finance", "Oslo"), ("Support", "Lisbon")], 1
                )
            ],
        )
        conn.execute(
            emp.insert(),
            [
                dict(
                    emp_id=i,
                    full_name=f"Employee {i:02d}",
                    dept_id=rng.randint(1, 4),
                    job_title=rng.choice(["engineer", "analyst", "manager"]),
                    salary=round(rng.uniform(40000, 120000), 2),
                    hire_date=dt.date(2015, 1, 1) + dt.timedelta(days=rng.randint(0, 3000)),
                    termination_date=None
                    if rng.random() < 0.8
                    else dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 300)),
                    manager_id=None if i < 4 else rng.randint(1, 3),
                )
                for i in range(1, 61)
            ],
        )
        conn.execute(
            sheet.insert(),
            [
                dict(
                    entry_id=i,
                    emp_id=rng.randint(1, 50),
                    work_date=dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 365)),
                    hours=rng.choice([4, 6, 7.5, 8, 9]),
                )
                for i in range(1, 1500)
            ],
        )


@pytest.fixture(scope="module")
def hr(tmp_path_factory):
    path = tmp_path_factory.mktemp("hr") / "hr.db"
    engine = sa.create_engine(f"sqlite:///{path}")
    _build(engine)
    ctx = inspect_schema(engine)
    engine.dispose()
    conn = sqlite3.connect(path)
    yield conn, ctx
    conn.close()


@pytest.mark.parametrize(
    "question,reference,ordered",
    [
        ("How many employees are there?", "SELECT COUNT(*) FROM employee", False),
        (
            "What is the average salary by department?",
            "SELECT d.dept_name, AVG(e.salary) FROM employee e JOIN department d ON d.dept_id = e.dept_id "
            "GROUP BY d.dept_id, d.dept_name",
            False,
        ),
        (
            "Which department has the highest total salary?",
            "SELECT d.dept_name FROM employee e JOIN department d ON d.dept_id = e.dept_id "
            "GROUP BY d.dept_id, d.dept_name ORDER BY SUM(e.salary) DESC LIMIT 1",
            True,
        ),
        (
            "How many employees were hired in 2020?",
            "SELECT COUNT(*) FROM employee WHERE hire_date >= '2020-01-01' AND hire_date < '2021-01-01'",
            False,
        ),
        (
            "Who are the 3 highest paid employees?",  # a wh-question names the rows; the salary only ranks them
            "SELECT full_name FROM employee ORDER BY salary DESC LIMIT 3",
            True,
        ),
        (
            "Who are the 3 highest paid employees, with their salaries?",
            "SELECT full_name, salary FROM employee ORDER BY salary DESC LIMIT 3",
            True,
        ),
        (
            "How many employees are still employed?",
            "SELECT COUNT(*) FROM employee WHERE termination_date IS NULL",
            False,
        ),
        (
            "Total hours worked per month in 2024",
            "SELECT strftime('%Y-%m', work_date) AS m, SUM(hours) FROM timesheet "
            "WHERE work_date >= '2024-01-01' AND work_date < '2025-01-01' GROUP BY m ORDER BY m",
            True,
        ),
        (
            "Which employees have never logged any hours?",
            "SELECT full_name FROM employee e WHERE NOT EXISTS (SELECT 1 FROM timesheet t WHERE t.emp_id = e.emp_id)",
            False,
        ),
        (
            "What is the average salary of engineers in Oslo?",
            "SELECT AVG(e.salary) FROM employee e JOIN department d ON d.dept_id = e.dept_id "
            "WHERE e.job_title = 'engineer' AND d.location = 'Oslo'",
            False,
        ),
        (
            "Hours worked by department in Q1 2024",
            "SELECT d.dept_name, SUM(t.hours) FROM timesheet t JOIN employee e ON e.emp_id = t.emp_id "
            "JOIN department d ON d.dept_id = e.dept_id WHERE t.work_date >= '2024-01-01' AND t.work_date < "
            "'2024-04-01' "
            "GROUP BY d.dept_id, d.dept_name",
            False,
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and not v.startswith("SELECT") and len(v) < 60 else None,
)
def test_answers_match_hand_written_sql(hr, question, reference, ordered):
    conn, ctx = hr
    outcome = EmbeddedGenerator().explain(question, ctx)
    assert isinstance(outcome, str), outcome
    got, want = conn.execute(outcome).fetchall(), conn.execute(reference).fetchall()
    norm = [[tuple(round(v, 2) if isinstance(v, float) else v for v in row) for row in rows] for rows in (got, want)]
    assert (norm[0] if ordered else sorted(norm[0], key=repr)) == (norm[1] if ordered else sorted(norm[1], key=repr))


@pytest.mark.parametrize(
    "question",
    [
        "What is the average commute distance of employees?",
        "Which department has the best coffee machine?",
        "Give every engineer a 5% raise",
    ],
)
def test_declines_what_this_schema_does_not_hold(hr, question):
    assert isinstance(EmbeddedGenerator().explain(question, hr[1]), Refusal)
