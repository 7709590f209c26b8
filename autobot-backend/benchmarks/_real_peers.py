"""``python benchmarks/_real_peers.py PEER PEERS DB_DIR DB QUESTION GOLD PRED ORDERED``: one pair graded by a
peer's own code, in a process of its own, as ``make bench ARGS=peers`` times it (run by path: nothing of this
project is imported, and the peer's folder goes first on ``sys.path``).

``PEERS`` is the shared folder of the peers' verbatim code (``../shared/peers``, its README); nothing of it is
copied or changed. Each peer is called as its own evaluator calls it for one pair:

* ``testsuite``: ``exec_eval.eval_exec_match(db, p_str, g_str, plug_value=False, keep_distinct=False, ...)``,
  what the Spider test-suite's ``evaluation.py --etype exec`` calls per pair (its defaults), on
  ``DB_DIR/DB/DB.sqlite`` (it grades on every ``.sqlite`` file in that folder: there is one);
* ``defog``: ``eval.eval.compare_query_results(gold, pred, DB, "sqlite", creds, question, category)``, what
  defog sql-eval's runners call per pair, on ``DB_DIR/DB/DB.db`` (its ``path_to_folder`` layout); its verdict
  is ``correct`` (an exact match, or the reference's columns found among the answer's), the one its runners
  count; the category is ``order_by`` for an ordered question, else none.

``PEER-imports`` imports what the peer imports and grades nothing: the whole process less this is the peer's
work past its imports. Prints one JSON line: ``{"verdict": ...}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    peer, peers, db_dir, db, question, gold, pred, ordered = argv
    root = Path(peers)
    if peer.startswith("testsuite"):
        sys.path.insert(0, str(root / "test-suite-sql-eval"))
        from exec_eval import eval_exec_match  # type: ignore[import-not-found]

        if peer.endswith("-imports"):
            return _say("imported")
        score = eval_exec_match(
            db=str(Path(db_dir) / db / f"{db}.sqlite"),
            p_str=pred,
            g_str=gold,
            plug_value=False,
            keep_distinct=False,
            progress_bar_for_each_datapoint=False,
        )
        return _say("match" if score == 1 else "mismatch")
    if peer.startswith("defog"):
        sys.path.insert(0, str(root / "sql-eval"))
        from eval.eval import compare_query_results  # type: ignore[import-not-found]

        if peer.endswith("-imports"):
            return _say("imported")
        _exact, correct = compare_query_results(
            query_gold=gold,
            query_gen=pred,
            db_name=db,
            db_type="sqlite",
            db_creds={"path_to_folder": f"{Path(db_dir) / db}/"},
            question=question,
            query_category="order_by" if ordered == "1" else "",
        )
        return _say("match" if correct else "mismatch")
    print(f"unknown peer {peer!r}", file=sys.stderr)
    return 2


def _say(verdict: str) -> int:
    print(json.dumps({"verdict": verdict}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
