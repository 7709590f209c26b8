"""YAML that cannot turn loading into the attack: parse one file with line numbers, refusing aliases and
deep nesting, and reporting duplicate keys (YAML itself keeps the last one silently).

An alias is a node reached twice: nine nested aliases of nine expand to 387 million nodes for
anything that walks the document, so a corpus may have none. Nesting is checked by an iterative
walk before anything is constructed, so depth cannot overflow the stack; the pure-Python parser
(used where PyYAML lacks libyaml) recurses per level itself, and its ``RecursionError`` is reported
the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

Fail = Callable[[int | None, str, str | None], None]
"""Where problems go: (1-based line or None, what is wrong, the enclosing question id or None)."""

# libyaml's parser when PyYAML was built with it (the wheels are): the same documents, several times faster.
_YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(raw: bytes, fail: Fail, max_depth: int) -> tuple[yaml.Node | None, Any]:
    """The document's node tree (for line numbers) and its data; (None, None) after a fatal problem."""
    try:
        loader = _YAML_LOADER(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        fail(None, f"not UTF-8 text ({e.reason} at byte {e.start})", None)
        return None, None
    try:
        node = loader.get_single_node()
        if node is None:
            fail(None, "the file is empty", None)
            return None, None
        if not _check_tree(node, fail, max_depth):
            return None, None
        return node, loader.construct_document(node)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        problem = getattr(e, "problem", None) or str(e)
        fail(mark.line + 1 if mark else None, f"YAML does not parse: {problem}", None)
        return None, None
    except RecursionError:
        fail(None, f"nested deeper than the YAML parser can follow; a corpus needs {max_depth} levels at most", None)
        return None, None
    finally:
        loader.dispose()


def _check_tree(root: yaml.Node, fail: Fail, max_depth: int) -> bool:
    """Duplicate keys (reported, loading goes on); an alias or nesting past ``max_depth`` stops the file."""
    seen_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, int, str | None]] = [(root, 1, None)]
    while stack:
        node, depth, qid = stack.pop()
        line = node.start_mark.line + 1
        if id(node) in seen_nodes:
            fail(
                None,
                f"YAML aliases (*name) are not allowed in a corpus: the value at line {line} is used again; "
                "write it out",
                qid,
            )
            return False
        seen_nodes.add(id(node))
        if depth > max_depth:
            fail(line, f"nested deeper than {max_depth} levels; a corpus needs four", qid)
            return False
        if isinstance(node, yaml.MappingNode):
            keys: set[Any] = set()
            qid = next((v.value for k, v in node.value if k.value == "id" and isinstance(v, yaml.ScalarNode)), qid)
            for key, _ in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value in keys:  # reported in document order
                    fail(key.start_mark.line + 1, f"duplicate key {key.value!r} in one mapping", qid)
                keys.add(key.value if isinstance(key, yaml.ScalarNode) else id(key))
            for key, value in reversed(node.value):  # popped in document order: an alias after its anchor
                stack += [(value, depth + 1, qid), (key, depth + 1, qid)]
        elif isinstance(node, yaml.SequenceNode):
            stack += [(item, depth + 1, qid) for item in reversed(node.value)]
    return True
