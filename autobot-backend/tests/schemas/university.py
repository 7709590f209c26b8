"""The ``university`` schema of the second blind set: a small college's 2023 and 2024 terms.

Five tables: ``departments``, ``instructors``, ``courses``, ``students`` and ``enrollments`` (one
student taking one course in one term). Business terms live in the column comments: a
student's *average grade* is ``AVG(enrollments.grade)`` over completed enrollments, an
enrollment is *passed* when it is completed with a grade of at least 1.0, and *credits earned*
are the credits of passed enrollments.

Rows come from one local ``random.Random(seed)``; department popularity, grading severity and
the withdrawal rate are drawn per seed. Built in: undeclared students (NULL major), courses
with no instructor assigned, instructors who teach nothing, students who never enrolled,
courses without a lab fee (NULL), NULL grades for withdrawn and in-progress enrollments,
salaries and fees with cents, and a registration on the first and last day of every month.

API::

    build(engine, seed=0) -> None       schema + rows on an empty database
    write(path, seed=0) -> str          a fresh SQLite file; returns its SQLAlchemy URL
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from itertools import product as cartesian
from pathlib import Path

import sqlalchemy as sa

import services.schema_context  # noqa: F401  (keeps column comments in SQLite's DDL)
from eval.sql.fixtures.data import month_boundaries
from eval.sql.fixtures.schema import Money
from eval.sql.fixtures.seeded import create_and_fill, write_sqlite

GRADE_METRIC = "[metric: average_grade = AVG(enrollments.grade) WHERE enrollments.status = 'completed']"
CREDITS_METRIC = (
    "[metric: credits_earned = SUM(courses.credits) WHERE enrollments.status = 'completed' "
    "AND enrollments.grade >= 1.0]"
)

DEPARTMENTS = (  # name, code prefix, building, founded
    ("Computer Science", "CS", "Turing Hall", 1971),
    ("Mathematics", "MATH", "Noether Building", 1902),
    ("Physics", "PHYS", "Curie Laboratory", 1910),
    ("History", "HIST", "Old Library", 1895),
    ("Economics", "ECON", "Keynes House", 1948),
    ("Biology", "BIO", "Darwin Wing", 1925),
    ("Literature", "LIT", "Old Library", 1895),
)
SUBJECTS = {
    "CS": (
        "Programming",
        "Data Structures",
        "Databases",
        "Operating Systems",
        "Machine Learning",
        "Networks",
        "Compilers",
        "Algorithms",
        "Computer Graphics",
        "Security",
    ),
    "MATH": (
        "Calculus",
        "Linear Algebra",
        "Probability",
        "Number Theory",
        "Topology",
        "Statistics",
        "Differential Equations",
        "Real Analysis",
    ),
    "PHYS": ("Mechanics", "Electromagnetism", "Quantum Physics", "Thermodynamics", "Optics", "Astrophysics"),
    "HIST": ("Ancient Rome", "Medieval Europe", "Modern China", "The Cold War", "Economic History", "Historiography"),
    "ECON": (
        "Microeconomics",
        "Macroeconomics",
        "Econometrics",
        "Game Theory",
        "Public Finance",
        "Development Economics",
        "Behavioural Economics",
    ),
    "BIO": ("Cell Biology", "Genetics", "Ecology", "Evolution", "Microbiology", "Neuroscience"),
    "LIT": ("Shakespeare", "The Novel", "Poetry", "Creative Writing", "World Literature", "Literary Theory"),
}
LAB_DEPARTMENTS = {"CS", "PHYS", "BIO"}
TERMS = (  # name, first day of the term
    ("2023-spring", date(2023, 1, 16)),
    ("2023-fall", date(2023, 9, 4)),
    ("2024-spring", date(2024, 1, 15)),
    ("2024-fall", date(2024, 9, 2)),
)
COUNTRIES = ("Brazil", "Canada", "China", "Germany", "India", "Nigeria", "United States")
FIRST_NAMES = (
    "Abel",
    "Bea",
    "Cyrus",
    "Dana",
    "Eli",
    "Fay",
    "Gus",
    "Hana",
    "Ivo",
    "June",
    "Kai",
    "Lea",
    "Milo",
    "Nina",
    "Otto",
    "Pia",
    "Ravi",
    "Sara",
    "Tomas",
    "Uma",
    "Vic",
    "Wren",
    "Yusuf",
    "Zara",
)
LAST_NAMES = (
    "Abbott",
    "Baptiste",
    "Castillo",
    "Dawson",
    "Ekwueme",
    "Fujita",
    "Gomez",
    "Hartley",
    "Ibsen",
    "Jovanovic",
    "Kruger",
    "Lambert",
    "Mensah",
    "Nakamura",
    "Okafor",
    "Pereira",
    "Quist",
    "Ramos",
    "Sato",
    "Tanaka",
    "Ulloa",
    "Vance",
    "Wójcik",
    "Yilmaz",
    "Zhou",
    "Osei",
    "Haddad",
    "Kaur",
)

metadata = sa.MetaData()

departments = sa.Table(
    "departments",
    metadata,
    sa.Column(
        "department_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the department, numbered from 1.",
    ),
    sa.Column("name", sa.Text, nullable=False, unique=True, comment="Department name, e.g. 'Physics'."),
    sa.Column("building", sa.Text, nullable=False, comment="Building the department is housed in."),
    sa.Column("founded_year", sa.Integer, nullable=False, comment="Year the department was founded."),
    sa.Column(
        "annual_budget",
        Money,
        nullable=False,
        comment="The department's budget for the 2024 academic year, in dollars with cents.",
    ),
    comment="Academic departments; each offers courses and employs instructors.",
)

instructors = sa.Table(
    "instructors",
    metadata,
    sa.Column(
        "instructor_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the instructor, numbered from 1.",
    ),
    sa.Column("name", sa.Text, nullable=False, unique=True, comment="Instructor's full name; unique."),
    sa.Column(
        "department_id",
        sa.Integer,
        sa.ForeignKey("departments.department_id"),
        nullable=False,
        comment="The department that employs the instructor.",
    ),
    sa.Column("hire_date", sa.Date, nullable=False, comment="Date the instructor was hired."),
    sa.Column("salary", Money, nullable=False, comment="Current annual salary in dollars with cents."),
    sa.Column("tenured", sa.Boolean, nullable=False, comment="True when the instructor holds tenure."),
    comment="Teaching staff, whether or not they teach a course at present.",
)

courses = sa.Table(
    "courses",
    metadata,
    sa.Column(
        "course_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the course, numbered from 1.",
    ),
    sa.Column(
        "code",
        sa.Text,
        nullable=False,
        unique=True,
        comment="Course code: department prefix and level number, e.g. 'CS-210'.",
    ),
    sa.Column("title", sa.Text, nullable=False, unique=True, comment="Course title; unique."),
    sa.Column(
        "department_id",
        sa.Integer,
        sa.ForeignKey("departments.department_id"),
        nullable=False,
        comment="The department that offers the course.",
    ),
    sa.Column(
        "instructor_id",
        sa.Integer,
        sa.ForeignKey("instructors.instructor_id"),
        nullable=True,
        comment="The instructor who teaches the course; NULL while no instructor is assigned.",
    ),
    sa.Column("credits", sa.Integer, nullable=False, comment="Credits a student earns by passing the course."),
    sa.Column(
        "level", sa.Integer, nullable=False, comment="Course level: 100 (introductory), 200, 300 or 400 (advanced)."
    ),
    sa.Column("capacity", sa.Integer, nullable=False, comment="Most students who may enrol in one term."),
    sa.Column(
        "lab_fee",
        Money,
        nullable=True,
        comment="Extra fee per enrolled student for laboratory use, in dollars with cents; NULL when the "
        "course has no lab.",
    ),
    comment="The course catalogue; a course runs in any term that has enrollments for it.",
)

students = sa.Table(
    "students",
    metadata,
    sa.Column(
        "student_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the student, numbered from 1 in order of admission.",
    ),
    sa.Column("name", sa.Text, nullable=False, unique=True, comment="Student's full name; unique."),
    sa.Column(
        "major_department_id",
        sa.Integer,
        sa.ForeignKey("departments.department_id"),
        nullable=True,
        comment="Department of the student's declared major; NULL while the major is undeclared.",
    ),
    sa.Column("admitted_date", sa.Date, nullable=False, comment="Date the student was admitted."),
    sa.Column("home_country", sa.Text, nullable=False, comment="Country the student comes from."),
    sa.Column("scholarship", sa.Boolean, nullable=False, comment="True when the student holds a scholarship."),
    comment="Admitted students, whether or not they have enrolled in a course yet.",
)

enrollments = sa.Table(
    "enrollments",
    metadata,
    sa.Column(
        "enrollment_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the enrollment, numbered from 1 in order of registration.",
    ),
    sa.Column(
        "student_id", sa.Integer, sa.ForeignKey("students.student_id"), nullable=False, comment="The student enrolled."
    ),
    sa.Column("course_id", sa.Integer, sa.ForeignKey("courses.course_id"), nullable=False, comment="The course taken."),
    sa.Column(
        "term",
        sa.Text,
        nullable=False,
        comment="Term the course is taken in: '2023-spring', '2023-fall', '2024-spring' or '2024-fall'.",
    ),
    sa.Column(
        "registered_date",
        sa.Date,
        nullable=False,
        comment="Date the student registered for the course, before or early in the term.",
    ),
    sa.Column(
        "status",
        sa.Text,
        nullable=False,
        comment="'completed' (finished and graded), 'withdrawn' (left before the end, no grade) or "
        "'in_progress' (term not over yet; only in '2024-fall').",
    ),
    sa.Column(
        "grade",
        sa.Float,
        nullable=True,
        comment="Grade points from 0.0 to 4.0, one decimal; NULL unless the status is 'completed'. "
        "An enrollment is passed when it is completed with a grade of at least 1.0. "
        + GRADE_METRIC
        + " "
        + CREDITS_METRIC,
    ),
    comment="One row per student taking one course in one term.",
)

TABLES = (departments, instructors, courses, students, enrollments)
"""In insert order (parents before children)."""


def _names(rng: random.Random, n: int, taken: set[str]) -> list[str]:
    pool = [f"{a} {b}" for a, b in cartesian(FIRST_NAMES, LAST_NAMES) if f"{a} {b}" not in taken]
    return rng.sample(pool, n)


def _departments(rng: random.Random) -> list[dict]:
    return [
        {
            "department_id": i,
            "name": name,
            "building": building,
            "founded_year": founded,
            "annual_budget": rng.randint(900_000, 4_800_000) * 100 + rng.randint(1, 99),
        }
        for i, (name, _, building, founded) in enumerate(DEPARTMENTS, start=1)
    ]


def _instructors(rng: random.Random) -> list[dict]:
    n = rng.randint(38, 50)
    depts = list(range(1, len(DEPARTMENTS) + 1)) * 2
    depts += [rng.randint(1, len(DEPARTMENTS)) for _ in range(n - len(depts))]
    rng.shuffle(depts)
    return [
        {
            "instructor_id": i,
            "name": name,
            "department_id": d,
            "hire_date": date(1995, 1, 1) + timedelta(days=rng.randint(0, 10500)),
            "salary": rng.randint(58_000, 165_000) * 100 + rng.randint(0, 99),
            "tenured": rng.random() < 0.45,
        }
        for i, (name, d) in enumerate(zip(_names(rng, n, set()), depts), start=1)
    ]


def _courses(rng: random.Random, instructor_rows: list[dict]) -> list[dict]:
    rows, used_codes = [], set()
    for dept_id, (_, prefix, _, _) in enumerate(DEPARTMENTS, start=1):
        staff = [i["instructor_id"] for i in instructor_rows if i["department_id"] == dept_id]
        idle = set(rng.sample(staff, 1))
        teaching = [s for s in staff if s not in idle]
        for title in rng.sample(SUBJECTS[prefix], rng.randint(4, len(SUBJECTS[prefix]))):
            level = rng.choice((100, 200, 300, 400))
            code = f"{prefix}-{level + rng.randint(1, 49)}"
            while code in used_codes:
                code = f"{prefix}-{level + rng.randint(1, 49)}"
            used_codes.add(code)
            lab = (
                (rng.randint(40, 260) * 100 + rng.randint(1, 99))
                if prefix in LAB_DEPARTMENTS and rng.random() < 0.7
                else None
            )
            rows.append(
                {
                    "code": code,
                    "title": title,
                    "department_id": dept_id,
                    "instructor_id": None if rng.random() < 0.12 else rng.choice(teaching),
                    "credits": rng.choice((2, 3, 3, 4, 4, 6)),
                    "level": level,
                    "capacity": rng.choice((25, 30, 40, 60, 80, 120)),
                    "lab_fee": lab,
                }
            )
    for cid, row in enumerate(rows, start=1):
        row["course_id"] = cid
    return rows


def _students(rng: random.Random, taken: set[str]) -> list[dict]:
    n = rng.randint(420, 560)
    major_weight = [rng.uniform(0.4, 3.0) for _ in DEPARTMENTS]
    country_weight = [rng.uniform(0.3, 1.0) for _ in COUNTRIES]
    country_weight[COUNTRIES.index("United States")] = rng.uniform(3, 6)
    p_undeclared = rng.uniform(0.1, 0.2)
    admitted = sorted(date(2020, 8, 1) + timedelta(days=rng.randint(0, 1500)) for _ in range(n))
    rows = []
    for sid, (name, day) in enumerate(zip(_names(rng, n, taken), admitted), start=1):
        major = (
            None
            if rng.random() < p_undeclared
            else rng.choices(range(1, len(DEPARTMENTS) + 1), weights=major_weight)[0]
        )
        rows.append(
            {
                "student_id": sid,
                "name": name,
                "major_department_id": major,
                "admitted_date": day,
                "home_country": rng.choices(COUNTRIES, weights=country_weight)[0],
                "scholarship": rng.random() < 0.22,
            }
        )
    return rows


def _enrollments(rng: random.Random, course_rows: list[dict], student_rows: list[dict]) -> list[dict]:
    popularity = [rng.uniform(0.3, 2.5) for _ in course_rows]
    severity = {c["course_id"]: rng.uniform(-0.6, 0.4) for c in course_rows}
    p_withdraw = rng.uniform(0.05, 0.12)
    rows, seen = [], set()
    for term, start in TERMS:
        for s in student_rows:
            if s["admitted_date"] > start or rng.random() < 0.12:
                continue
            ability = rng.gauss(2.6, 0.7)
            for _ in range(rng.choice((1, 2, 3, 3, 4))):
                c = rng.choices(course_rows, weights=popularity)[0]
                if (s["student_id"], c["course_id"], term) in seen:
                    continue
                seen.add((s["student_id"], c["course_id"], term))
                registered = start - timedelta(days=rng.randint(-10, 75))
                if rng.random() < p_withdraw:
                    status, grade = "withdrawn", None
                elif term == "2024-fall":
                    status, grade = "in_progress", None
                else:
                    g = ability + severity[c["course_id"]] + rng.gauss(0, 0.7)
                    status, grade = "completed", round(min(4.0, max(0.0, g)), 1)
                rows.append(
                    {
                        "student_id": s["student_id"],
                        "course_id": c["course_id"],
                        "term": term,
                        "registered_date": registered,
                        "status": status,
                        "grade": grade,
                    }
                )
    # A registration on the first and last day of every month of the registration window.
    for day in month_boundaries(date(2022, 11, 1), date(2024, 9, 30)):
        term = next((t for t, start in TERMS if start - timedelta(days=75) <= day <= start + timedelta(days=10)), None)
        if term:
            rng.choice([r for r in rows if r["term"] == term])["registered_date"] = day
    rng.shuffle(rows)
    rows.sort(key=lambda e: e["registered_date"])
    for eid, row in enumerate(rows, start=1):
        row["enrollment_id"] = eid
    return rows


def generate(seed: int) -> dict[str, list[dict]]:
    """Table name -> rows for ``seed``, parents before children; money in integer cents."""
    rng = random.Random(seed)
    instructor_rows = _instructors(rng)
    course_rows = _courses(rng, instructor_rows)
    student_rows = _students(rng, {i["name"] for i in instructor_rows})
    student_rows[-1]["admitted_date"] = date(2024, 9, 20)  # admitted after the last term began: never enrolled
    return {
        "departments": _departments(rng),
        "instructors": instructor_rows,
        "courses": course_rows,
        "students": student_rows,
        "enrollments": _enrollments(rng, course_rows, student_rows),
    }


def build(engine: sa.Engine, seed: int = 0) -> None:
    """Create the tables and insert the rows of ``seed`` (the database must not hold them yet)."""
    create_and_fill(engine, metadata, TABLES, generate(seed))


def write(path: Path, seed: int = 0) -> str:
    """Build the schema for ``seed`` into a new SQLite file at ``path`` (replaced if present); its URL."""
    return write_sqlite(path, lambda engine: build(engine, seed))
