"""Readers of the SQL run's HTML page and JUnit XML (and the GitHub annotations): the facts each shows,
in the shape of :func:`eval.tests.output_readers.expected`. The page is read as a tree of elements
(the standard library's HTML parser), by id and ``data-`` attribute; JUnit by its testcases and the
testsuite's ``<properties>``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from eval.core import figures as fig
from eval.tests.output_readers import VERDICTS, Facts, costs_from, counts, lints_from, notes_from, repeats_from

# --- HTML -----------------------------------------------------------------------------------------------

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag, self.attrs = tag, attrs
        self.children: list[Node | str] = []

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    def all(self, tag: str | None = None, **attrs: str | None) -> list[Node]:
        """Every element below (tag and attributes matching; an attribute of None: present, any value)."""
        out = []
        for c in self.children:
            if isinstance(c, Node):
                names = {k.replace("_", "-"): v for k, v in attrs.items()}
                if (tag is None or c.tag == tag) and all(
                    k in c.attrs and (v is None or c.attrs[k] == v or v in c.attrs[k].split()) for k, v in names.items()
                ):
                    out.append(c)
                out += c.all(tag, **attrs)
        return out

    def one(self, tag: str | None = None, **attrs: str | None) -> Node | None:
        found = self.all(tag, **attrs)
        return found[0] if found else None


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        if any(node.tag == tag for node in self.stack[1:]):
            while self.stack.pop().tag != tag:
                pass

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def html_tree(page: str) -> Node:
    parser = _Parser()
    parser.feed(page)
    return parser.root


def _html_rows(page: Node, table_id: str, key: str) -> dict[str, dict[str, int]]:
    table = page.one("table", id=table_id)
    if table is None:
        return {}
    return {
        row.attrs[f"data-{key}"]: {td.attrs["data-count"]: int(td.text) for td in row.all("td", data_count=None)}
        for row in table.all("tr", **{f"data_{key}": None})
    }


def _figure(page: Node, figure_id: str) -> tuple[str, ...] | None:
    node = page.one("div", id=figure_id)
    if node is None:
        return None
    value, ci = node.one("div", **{"class": "value"}), node.one("span", **{"class": "ci"})
    measured = re.search(r"(\d+/\d+) measured", node.text)
    return (value.text if value else "", measured.group(1) if measured else "", ci.text if ci else "")


def from_html(text: str) -> Facts:
    page = html_tree(text)
    gate, over = page.one("div", id="gate"), page.one("div", id="over-refusals")
    checks = page.one("table", id="gate-checks")
    over_value = over.one("div", **{"class": "value"}) if over else None
    verdicts = page.one("table", id="verdicts")
    flaky = page.one(id="flaky")

    def text_of(node_id: str) -> str:
        node = page.one(id=node_id)
        return "" if node is None else node.text

    return {
        "pass_rate": _figure(page, "pass-rate"),
        "recall": _figure(page, "refusal-recall"),
        "over_refusals": over_value.text.replace(" ", "") if over_value else None,
        "verdicts": {td.attrs["data-count"]: int(td.text) for td in verdicts.all("td", data_count=None)}
        if verdicts
        else None,
        "gate": gate.attrs.get("data-status") if gate else None,
        "checks": {}
        if checks is None
        else {tr.attrs["data-check"]: tr.all("td")[1].text for tr in checks.all("tr", data_check=None)},
        "failing": [
            s.attrs["id"].removeprefix("q-")
            for s in page.all("section", **{"class": "question"})
            if s.attrs.get("data-failing") == "1"
        ],
        "strata": _html_rows(page, "answer-strata", "stratum"),
        "databases": _html_rows(page, "databases", "database"),
        "difficulties": _html_rows(page, "difficulties", "difficulty"),
        "refusal_strata": _html_rows(page, "refuse-strata", "stratum"),
        "control_strata": _html_rows(page, "control-strata", "stratum"),
        "costs": costs_from(text_of("costs")),
        "repeats": repeats_from(text_of("repeats")),
        "flaky": flaky.text.split(", ") if flaky else None,
        "notes": notes_from(text_of("interval-notes")),
        "lints": lints_from(text_of("lint-counts")),
    }


# --- JUnit (testcases, and the testsuite's properties) ----------------------------------------------------


def _prop_counts(props: dict[str, str], prefix: str) -> dict[str, dict[str, int]]:
    out = {}
    for name, value in props.items():
        if name.startswith(prefix):
            cases, rest = re.fullmatch(r"cases (\d+): (.*)", value).groups()  # type: ignore[union-attr]
            out[name[len(prefix) :]] = {"cases": int(cases)} | counts(dict(p.rsplit(" ", 1) for p in rest.split(", ")))
    return out


def from_junit(text: str) -> Facts:
    suite = ET.fromstring(text.encode()).find("testsuite")
    assert suite is not None
    props = {p.get("name", ""): p.get("value", "") for p in suite.iter("property")}

    def pair(name: str) -> tuple[str, ...] | None:
        if name not in props:
            return None
        rate, of = re.fullmatch(r"(\S+) \((\d+/\d+)(?:; .*)?\)", props[name]).groups()  # type: ignore[union-attr]
        return rate, of, props[f"{name}_ci"].removesuffix(f" ({fig.WILSON})")

    gate = re.match(r"gate (\w+) \(", props.get("gate", ""))
    return {
        "pass_rate": pair("pass_rate"),
        "recall": pair("refusal_recall"),
        "over_refusals": props.get("over_refusals"),
        "verdicts": {v: int(props[f"verdict.{v}"]) for v in VERDICTS if f"verdict.{v}" in props},
        "gate": gate.group(1) if gate else None,
        "checks": {k.removeprefix("gate."): v.split(":")[0] for k, v in props.items() if k.startswith("gate.")},
        "failing": [
            case.get("name", "")
            for case in suite.iter("testcase")
            if case.find("failure") is not None or case.find("skipped") is not None
        ],
        "strata": _prop_counts(props, "stratum."),
        "databases": _prop_counts(props, "database."),
        "difficulties": _prop_counts(props, "difficulty."),
        "refusal_strata": _prop_counts(props, "refusal_stratum."),
        "control_strata": _prop_counts(props, "control_stratum."),
        "costs": costs_from(props.get("costs.latency", "") + "\n" + props.get("costs.tokens", "")),
        "repeats": repeats_from(props.get("repeats", "")),
        "flaky": props["repeats.flaky"].split(", ") if "repeats.flaky" in props else None,
        "notes": notes_from(" ".join(v for k, v in props.items() if k.startswith("note."))),
        "lints": lints_from(props.get("lints", "")),
    }


def annotations_from(lines: list[str]) -> dict[str, list[str]]:
    """``::error`` lines by title: the questions annotated (regression, safety) and the gate checks."""
    out: dict[str, list[str]] = {"questions": [], "checks": []}
    for line in lines:
        if line.startswith("::warning title=SQL corpus lints::"):
            continue  # the corpus's lints and oracle defects counted: not a failure of the candidate
        m = re.fullmatch(r"::error title=SQL (regression|safety|gate)%3A (.+?)::(.*)", line)
        assert m, line
        kind, what, _ = m.groups()
        out["checks" if kind == "gate" else "questions"].append(what.replace("%2C", ",").replace("%3A", ":"))
    return out
