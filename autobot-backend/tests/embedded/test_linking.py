"""Schema linking: units of linking, metric parsing and join paths over a small hand-built schema context
(no database: the context is all the generator ever sees), and probes over the ferry schema of
:mod:`tests.embedded_small_schemas`, graded by execution, of words that link to what the schema documents
(a verb its comment uses, the noun a key's comment gives the rows, a direction that picks one of two keys,
a column name that begins with a grain word, a hyphenated word)."""

from __future__ import annotations

import pytest

from services.embedded.index import index_for
from services.embedded.joins import default_date, join_tree, path, primary_date
from services.embedded.lexicon import tokenize
from services.embedded.linking import link, literal_names
from services.embedded.metrics import parse_metrics
from services.schema_context import ColumnInfo, ForeignKey, SchemaContext, TableInfo
from tests.embedded_small_schemas import assert_answers_like


def _col(name, type_="TEXT", *, pk=False, nullable=False, comment="", values=(), complete=True):
    return ColumnInfo(name, type_, nullable, pk, comment, tuple(values), complete and bool(values))


SHOP = SchemaContext(
    "sqlite",
    (
        TableInfo(
            "customers",
            (
                _col("customer_id", "INTEGER", pk=True),
                _col("name", comment="Full name", values=("Ada Hale", "Ben Costa"), complete=False),
                _col("country", comment="Country of residence", values=("Canada", "Germany", "United Kingdom")),
                _col("segment", values=("business", "consumer")),
                _col("signup_date", "DATE", comment="Date the customer signed up"),
                _col("referred_by", "INTEGER", nullable=True, comment="Who referred them; NULL when nobody"),
            ),
            (ForeignKey(("referred_by",), "customers", ("customer_id",)),),
        ),
        TableInfo(
            "orders",
            (
                _col("order_id", "INTEGER", pk=True),
                _col("customer_id", "INTEGER"),
                _col("order_date", "DATE", comment="Date the order was placed"),
                _col("shipped_date", "DATE", nullable=True, comment="Date the order shipped"),
                _col("status", values=("cancelled", "completed", "returned")),
            ),
            (ForeignKey(("customer_id",), "customers", ("customer_id",)),),
        ),
        TableInfo(
            "order_items",
            (
                _col("order_id", "INTEGER", pk=True),
                _col("line_no", "INTEGER", pk=True),
                _col("product_id", "INTEGER"),
                _col("quantity", "INTEGER", comment="Units bought on this line"),
                _col(
                    "unit_price",
                    "NUMERIC(10, 2)",
                    comment="Price charged per unit. [metric: revenue = "
                    "SUM(quantity * unit_price) WHERE orders.status = 'completed']",
                ),
            ),
            (
                ForeignKey(("order_id",), "orders", ("order_id",)),
                ForeignKey(("product_id",), "products", ("product_id",)),
            ),
        ),
        TableInfo(
            "products",
            (
                _col("product_id", "INTEGER", pk=True),
                _col("name", values=("Smart Lamp", "USB Hub")),
                _col("category", values=("books", "toys")),
                _col("unit_price", "NUMERIC(10, 2)", comment="Current list price"),
                _col("discontinued", "BOOLEAN"),
            ),
        ),
    ),
)


def _links(text):
    tokens = tokenize(text)
    linked = literal_names(link(tokens, index_for(SHOP), set()), index_for(SHOP))
    return {" ".join(t.text for t in tokens[lk.start : lk.end]): lk for lk in linked.links}, linked


@pytest.mark.parametrize(
    "question,span,kind,target",
    [
        ("orders from Canada", "Canada", "value", ("customers", "country", "Canada")),
        ("orders from canada", "canada", "value", ("customers", "country", "Canada")),  # case in the question
        ("orders of toy products", "toy", "value", ("products", "category", "toys")),  # singular of a value
        ("German customers", "German", "value", ("customers", "country", "Germany")),  # nationality adjective
        ("customers in the United Kingdom", "United Kingdom", "value", ("customers", "country", "United Kingdom")),
        ("how many clients", "clients", "table", ("customers", None, None)),  # general synonym
        ("orders that shipped", "shipped", "column", ("orders", "shipped_date", None)),  # verb form of a name
        ("customers who signed up", "signed up", "column", ("customers", "signup_date", None)),
        ("customers referred by others", "referred by", "column", ("customers", "referred_by", None)),
        ("units sold", "units", "column", ("order_items", "quantity", None)),  # comment's head noun
        ("total revenue", "revenue", "metric", ("order_items", None, None)),
        ("revnue by country", "revnue", "metric", ("order_items", None, None)),  # misspelling (rapidfuzz)
        ("orders of Ben Costa", "Ben Costa", "value", ("customers", "name", "Ben Costa")),  # sampled value
        ("orders of Olga Novak", "Olga Novak", "value", ("customers", "name", "Olga Novak")),  # unsampled name
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_spans_link_to_what_they_name(question, span, kind, target):
    links, _ = _links(question)
    assert span in links, sorted(links)
    best = links[span].best
    assert best.kind == kind
    assert (best.table, best.column, best.value) == target


@pytest.mark.parametrize(
    "question,unlinked",
    [
        ("average delivery time per carrier", ["delivery", "carrier"]),
        ("website visits in May", ["website", "visits"]),
        ("average discount per order", ["discount"]),  # shares a prefix with 'discontinued', must not link to it
    ],
)
def test_words_that_name_nothing_stay_unlinked(question, unlinked):
    _, linked = _links(question)
    assert [linked.tokens[i].text for i in linked.unlinked] == unlinked


def test_general_analytic_words_are_not_content():
    _, linked = _links("Please show me the total number of orders per month, sorted by date")
    assert linked.unlinked == []


def test_metric_comment_is_parsed_and_qualified():
    (metric,) = parse_metrics(SHOP)
    assert metric.name == "revenue"
    assert metric.aggregate.sql() == "SUM(order_items.quantity * order_items.unit_price)"
    assert metric.condition.sql() == "orders.status = 'completed'"
    assert metric.tables == ("order_items", "orders")


@pytest.mark.parametrize(
    "comment",
    [
        "[metric: broken = SUM(quantity * ]",  # does not parse
        "[metric: ghost = SUM(no_such_column)]",  # names a column nobody has
        "[metric: plain = quantity]",  # not an aggregate
    ],
)
def test_malformed_metrics_are_skipped(comment):
    ctx = SchemaContext("sqlite", (TableInfo("t", (_col("quantity", "INTEGER", comment=comment),)),))
    assert parse_metrics(ctx) == ()


def test_join_path_is_the_shortest_along_foreign_keys():
    ix = index_for(SHOP)
    route = path(ix, "products", "customers")
    assert [(e.table, e.other) for e in route] == [
        ("products", "order_items"),
        ("order_items", "orders"),
        ("orders", "customers"),
    ]
    tree = join_tree(ix, "order_items", ["products", "customers", "orders"])
    assert [e.other for e in tree] == ["products", "orders", "customers"]


def test_self_references_are_not_join_paths():
    assert all(
        e.other != "customers"
        for e in index_for(SHOP).edges["customers"]
        if e.table == "customers" and e.columns == ("referred_by",)
    )


def test_rows_are_dated_by_their_own_date_or_their_parent_s():
    ix = index_for(SHOP)
    assert primary_date(ix, "orders").name == "order_date"  # not the nullable shipped_date
    assert default_date(ix, "order_items").name == "order_date"
    assert default_date(ix, "products") is not None


def test_column_kinds_and_labels():
    ix = index_for(SHOP)
    kinds = {c.name: c.kind for c in ix.tables["orders"].columns.values()}
    assert kinds == {
        "order_id": "key",
        "customer_id": "key",
        "order_date": "date",
        "shipped_date": "date",
        "status": "text",
    }
    assert ix.tables["customers"].label == "name"
    assert ix.column("products", "discontinued").kind == "bool"


@pytest.mark.parametrize(
    "question,reference",
    [
        (
            "How many sailings departing from Dover were cancelled?",
            "SELECT COUNT(*) FROM sailings s JOIN ports p ON s.origin_port_id = p.port_id "
            "WHERE p.name = 'Dover' AND s.cancelled",
        ),
        (
            "How many crossings were there from each port? Port name and count.",
            "SELECT p.name, COUNT(*) FROM ports p JOIN sailings s ON s.origin_port_id = p.port_id GROUP BY p.port_id",
        ),
        (
            "How many sailings arrived in France?",
            "SELECT COUNT(*) FROM sailings s JOIN ports p ON p.port_id = s.destination_port_id WHERE p.country = "
            "'France'",
        ),
        (
            "What is the total annual fee of the ports in France?",
            "SELECT SUM(annual_fee) FROM ports WHERE country = 'France'",
        ),
        (
            "How many check-ins were there in 2024?",
            "SELECT COUNT(*) FROM tickets WHERE checked_in AND bought_date >= '2024-01-01' AND bought_date < "
            "'2025-01-01'",
        ),
    ],
    ids=[
        "a documented verb in another inflection",
        "the noun a key's comment gives the rows",
        "a direction picks one of two keys to a table",
        "a grain word that begins a column's name is the name",
        "a hyphenated word names the column of those words",
    ],
)
def test_words_link_to_the_column_key_or_table_the_schema_documents(ferry, question, reference):
    assert_answers_like(ferry, question, reference)
