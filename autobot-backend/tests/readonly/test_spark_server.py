"""The throwaway Spark Thrift server (``eval/sql/engines/spark_server.py``): started, answering, gone after stop."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from eval.sql.engines import spark_server as eval_spark_server
from tests import spark_server


def test_missing_spark_skips_with_the_install_hint(monkeypatch):
    monkeypatch.setattr(eval_spark_server, "find_spark_home", lambda: None)
    with pytest.raises(pytest.skip.Exception, match=r"Spark is not installed: pip install -e '\.\[spark\]'"):
        spark_server.start_for_tests({})


def test_missing_java_fails_when_spark_is_required(monkeypatch):
    monkeypatch.setattr(eval_spark_server, "find_java", lambda: None)
    required = r"Java is not installed.*EVAL_REQUIRE_SPARK=1 .* may not be skipped"
    with pytest.raises(pytest.fail.Exception, match=required):
        spark_server.start_for_tests({spark_server.REQUIRE_ENV: "1"})


def test_a_server_that_never_says_it_listens_is_not_taken_for_another_listener_on_its_port(tmp_path, monkeypatch):
    """Another process listens on the server's port and accepts, but never answers: the wait does not connect to
    it (pyhive's handshake would wait forever) and ends at its deadline, naming the line the log never had."""
    monkeypatch.setattr(eval_spark_server, "START_TIMEOUT_S", 2)
    with socket.create_server(("127.0.0.1", 0)) as other:
        server = eval_spark_server.SparkServer(tmp_path, tmp_path / "root", other.getsockname()[1])
        server.root.mkdir()
        server.logfile.write_text("starting\n")
        server._process = subprocess.Popen(["sleep", "60"])
        try:
            with pytest.raises(eval_spark_server.SparkServerError, match="never said 'HiveThriftServer2 started'"):
                server._wait_ready(time.monotonic())
        finally:
            server._process.kill()
            server._process.wait()


def _alive(pid: int) -> bool:
    state = Path(f"/proc/{pid}/stat")
    return state.exists() and not state.read_text().split(") ")[1].startswith("Z")


def test_a_server_answers_select_1_and_stop_leaves_nothing():
    """Its own server, not the session's: stopping is what is tested. Start-up is measured on it."""
    server = spark_server.start_for_tests()
    try:
        engine = sa.create_engine(server.url(), poolclass=NullPool)
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT 1").scalar() == 1
        engine.dispose()
        assert server.started_s is not None and 0 < server.started_s < eval_spark_server.START_TIMEOUT_S
        assert server._process is not None
        pid, root = server._process.pid, server.root
        assert root.is_dir() and (root / "metastore").is_dir()
    finally:
        server.stop()
    server.stop()  # idempotent: atexit calls it again
    assert not root.exists()
    assert not _alive(pid), "the Spark JVM is still running"
    with pytest.raises(sa.exc.OperationalError):
        sa.create_engine(server.url(), poolclass=NullPool).connect()
