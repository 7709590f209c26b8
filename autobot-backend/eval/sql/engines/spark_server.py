"""A throwaway Spark SQL server: Spark's Hive Thrift server started from the ``pyspark`` package, then deleted.

The tests start theirs with it (``tests/spark_server.py`` adds only the skip-or-fail rule), and
``python -m eval.run --suite sql --engine spark`` starts one when no ``--fixture-url`` is given.

:func:`start` finds ``spark-submit`` inside the installed ``pyspark`` package (the ``spark`` extra:
``pip install -e '.[spark]'``) and Java on ``PATH`` (or ``JAVA_HOME``), then runs
``org.apache.spark.sql.hive.thriftserver.HiveThriftServer2`` in local mode on a free loopback port (a new one
when another process takes it before the server binds),
with everything it writes (the warehouse, the Derby metastore, scratch and local folders, its log)
in one fresh temporary folder. It is sized for a 2-core machine shared with other work: two local
threads, a 512 MB driver, two shuffle partitions, no web UI. Start-up takes 15-40 s (the JVM and
Hive's metastore), which is why the tests start one per session.

The server runs in a process group of its own (a terminal's Ctrl-C is the harness's to act on) and
is told to die with the process that started it (Linux ``PR_SET_PDEATHSIG``), so even a killed
harness leaves no JVM behind. :meth:`SparkServer.stop` ends the group (SIGTERM, then SIGKILL) and
deletes the folder; it is registered with :mod:`atexit` too, and the harness's signal handling
(:mod:`eval.core.interrupt`) turns SIGINT and SIGTERM into an unwinding that reaches it.

Read-only: at start the server's second read-only layer is compiled with ``javac`` against the installed
Spark's jars (:data:`READ_ONLY_SOURCE`, 3-4 s) and installed as a Spark SQL extension: a check rule that
runs after analysis on every statement and, in any session not opened with :data:`WRITABLE_SESSION`, refuses
every command but the catalog reads (SHOW, DESCRIBE, EXPLAIN, USE), a table read from a file or URL, and
the reflective and file functions. The fixture builder opens its session writable; the answers' sessions
are not, and cannot become so (``SET`` is a command).

Example:
    >>> server = start()  # doctest: +SKIP
    >>> server.url("default")  # doctest: +SKIP
    'spark://eval@127.0.0.1:41234/default'
    >>> server.stop()  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["SparkServer", "SparkServerError", "SparkUnavailable", "find_spark_home", "start"]

START_TIMEOUT_S = 180
"""Longest wait for the server to accept connections (about 20 s on an idle 2-core machine)."""
STOP_GRACE_S = 10
READY_LINE = b"HiveThriftServer2 started"
"""What the server logs once its Thrift port is bound; until then a connection to the port may reach another process."""
PORT_TRIES = 3
"""Launches before a server whose port another process keeps taking is an error."""
THRIFT_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
SETTINGS = {  # small: a 2-core machine shared with other work
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.ansi.enabled": "false",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.driver.host": "127.0.0.1",
}
"""Spark settings of every throwaway server; ANSI mode off is Spark 3's default, which Spark 4 changed, pinned
so the server's SQL semantics do not move with the installed pyspark (docs/eval/sql-methodology.md)."""
_PR_SET_PDEATHSIG = 1
READ_ONLY_SOURCE = Path(__file__).resolve().parent / "spark_readonly" / "ReadOnly.java"
"""The server's second read-only layer, a Spark check rule (see its header); compiled at start with ``javac``."""
READ_ONLY_CLASS = "eval.spark.ReadOnly"
WRITABLE_SESSION = {"set:hiveconf:spark.eval.writable": "true"}
"""pyhive's ``configuration`` of a session that may write (the fixture builder's); every other session reads only."""


class SparkUnavailable(Exception):
    """pyspark (the ``spark`` extra), its SQLAlchemy driver or Java is not installed."""


class SparkServerError(Exception):
    """Everything is installed but the server did not start; the message holds its log tail."""


def find_spark_home() -> Path | None:
    """The Spark distribution inside the installed ``pyspark`` package, or None without one."""
    try:
        import pyspark
    except ImportError:
        return None
    home = Path(pyspark.__file__).resolve().parent
    return home if (home / "bin" / "spark-submit").is_file() else None


def find_java() -> str | None:
    """``java`` from ``JAVA_HOME``, else from ``PATH``."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    return shutil.which("java")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    os.setsid()
    with contextlib.suppress(OSError, AttributeError):  # not Linux: atexit and the signal handling still stop it
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class SparkServer:
    """A running throwaway Thrift server; see the module docstring."""

    HOST = "127.0.0.1"
    USER = "eval"

    def __init__(self, home: Path, root: Path, port: int) -> None:
        self.home, self.root, self.port = home, root, port
        self.warehouse = root / "warehouse"
        self.logfile = root / "server.log"
        self.started_s: float | None = None
        """Seconds from launch until the server accepted its first session."""
        self._process: subprocess.Popen[bytes] | None = None
        self.read_only = False
        """Whether the read-only check rule (:data:`READ_ONLY_SOURCE`) is installed: sessions not opened writable
        (:data:`WRITABLE_SESSION`) can only read."""

    def _compile_read_only(self, javac: str) -> None:
        """Compile the read-only check rule against this Spark's jars into ``ext/`` (3-4 s)."""
        (self.root / "ext").mkdir()
        done = subprocess.run(
            [
                javac,
                "-nowarn",
                "-cp",
                str(self.home / "jars" / "*"),
                "-d",
                str(self.root / "ext"),
                str(READ_ONLY_SOURCE),
            ],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=START_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            detail = done.stderr[-3000:]
            raise SparkServerError(f"the read-only check rule did not compile against Spark {self.home}:\n{detail}")
        self.read_only = True

    def command(self) -> list[str]:
        conf = {
            **SETTINGS,
            "spark.sql.warehouse.dir": str(self.warehouse),
            "spark.local.dir": str(self.root / "local"),
            "spark.driver.extraJavaOptions": f"-Dderby.system.home={self.root} -Djava.io.tmpdir={self.root / 'tmp'}",
        }
        hive = {
            "hive.server2.thrift.port": str(self.port),
            "hive.server2.thrift.bind.host": self.HOST,
            "hive.exec.scratchdir": str(self.root / "scratch"),
            "hive.exec.local.scratchdir": str(self.root / "scratch-local"),
            "hive.server2.logging.operation.enabled": "false",
            "javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={self.root / 'metastore'};create=true",
        }
        args = [str(self.home / "bin" / "spark-submit"), "--class", THRIFT_CLASS, "--master", "local[2]"]
        args += ["--driver-memory", "512m", "--name", "eval-spark"]
        if self.read_only:
            args += ["--driver-class-path", str(self.root / "ext")]
            conf["spark.sql.extensions"] = READ_ONLY_CLASS
        for key, value in conf.items():
            args += ["--conf", f"{key}={value}"]
        for key, value in hive.items():
            args += ["--hiveconf", f"{key}={value}"]
        return [*args, "spark-internal"]

    def _launch(self) -> None:
        """Start the server; when another process took its port between the probe and the bind (the probe's port
        is the system's to hand out again, and the server binds some 15 s after launch), again on a new port."""
        for folder in ("local", "tmp", "scratch", "scratch-local"):
            (self.root / folder).mkdir(exist_ok=True)
        for attempt in range(1, PORT_TRIES + 1):
            try:
                self._start_process()
                return
            except SparkServerError:
                if attempt == PORT_TRIES or not self._port_was_taken():
                    raise
                self._end_group()
                self.port = _free_port()

    def _port_was_taken(self) -> bool:
        log = self._log()
        return b"BindException" in log and b"Address already in use" in log

    def _start_process(self) -> None:
        env = {**os.environ, "SPARK_HOME": str(self.home), "SPARK_LOG_DIR": str(self.root), "TZ": "UTC"}
        env.pop("PYSPARK_SUBMIT_ARGS", None)
        env.pop("SPARK_CONF_DIR", None)
        started = time.monotonic()
        with self.logfile.open("wb") as log:
            self._process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.root,
                env=env,
                preexec_fn=_die_with_parent,
            )
        self._wait_ready(started)

    def _wait_ready(self, started: float) -> None:
        from pyhive import hive

        deadline = started + START_TIMEOUT_S
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                code = self._process.returncode
                raise SparkServerError(f"the Spark Thrift server exited with {code}:\n{self._tail()}")
            if time.monotonic() > deadline:
                said = "" if self._listening() else f" (its log never said {READY_LINE.decode()!r})"
                raise SparkServerError(
                    f"the Spark Thrift server did not accept a session in {START_TIMEOUT_S} s{said}:\n{self._tail()}"
                )
            if not self._listening():  # before it binds, the port may be another process's, which need not answer
                time.sleep(0.5)
                continue
            try:
                socket.create_connection((self.HOST, self.port), timeout=2).close()
                conn = hive.connect(host=self.HOST, port=self.port, username=self.USER)
            except Exception:  # not listening yet, or listening before its session manager is up
                time.sleep(0.5)
                continue
            conn.close()
            self.started_s = time.monotonic() - started
            return

    def _listening(self) -> bool:
        """Whether the server says it bound its port (Spark's log line once the Thrift service listens)."""
        return READY_LINE in self._log()

    def _log(self) -> bytes:
        """The whole log (short while the server starts), or nothing before it is made."""
        return self.logfile.read_bytes() if self.logfile.exists() else b""

    def _end_group(self) -> None:
        """Kill the server's process group, whatever is left of it, and reap the server."""
        process, self._process = self._process, None
        if process is not None:
            _signal_group(process.pid, signal.SIGKILL)
            process.wait(STOP_GRACE_S)

    def _tail(self) -> str:
        return self.logfile.read_text(errors="replace")[-3000:] if self.logfile.exists() else "(no log)"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def url(self, database: str = "default", user: str | None = None) -> str:
        """SQLAlchemy URL (the project's ``spark`` dialect over pyhive) of ``database`` on this server."""
        import sqlalchemy as sa

        return sa.URL.create(
            "spark", username=user or self.USER, host=self.HOST, port=self.port, database=database
        ).render_as_string(hide_password=False)

    def stop(self) -> None:
        """End the server's process group (SIGTERM, then SIGKILL) and delete its folder; safe to call twice."""
        try:
            process = self._process
            if process is not None and process.poll() is None:
                _signal_group(process.pid, signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(STOP_GRACE_S)
            self._end_group()  # SIGKILL: the server if SIGTERM did not end it, and anything it started in its group
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _signal_group(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)


def start() -> SparkServer:
    """Start a throwaway Spark Thrift server; :meth:`SparkServer.stop` (or exit) removes it.

    Raises:
        SparkUnavailable: pyspark, pyhive or Java is not installed.
        SparkServerError: the server did not start (the message has its log's tail).
    """
    home = find_spark_home()
    if home is None:
        raise SparkUnavailable(
            "Spark is not installed: pip install -e '.[spark]' from autobot-backend/ (the pyspark package ships it)"
        )
    try:
        import pyhive.hive  # noqa: F401
        import thrift_sasl  # noqa: F401
    except ImportError as exc:
        raise SparkUnavailable(
            f"Spark's SQL driver is not installed (missing {exc.name}): pip install -e '.[spark]' from autobot-backend/"
        ) from None
    if find_java() is None:
        raise SparkUnavailable(
            "Java is not installed: Spark needs Java 17 (Debian: apt-get install openjdk-17-jdk-headless, "
            "or .ci/system-deps spark), or set JAVA_HOME"
        )
    javac = shutil.which("javac") or (
        str(Path(os.environ["JAVA_HOME"]) / "bin" / "javac") if os.environ.get("JAVA_HOME") else None
    )
    if javac is None or not Path(javac).is_file():
        raise SparkUnavailable(
            "the Java compiler is not installed: the Spark server's read-only layer is compiled at start "
            "(Debian: apt-get install openjdk-17-jdk-headless, or .ci/system-deps spark)"
        )
    root = Path(tempfile.mkdtemp(prefix="eval-spark-"))
    server = SparkServer(home, root, _free_port())
    atexit.register(server.stop)
    try:
        server._compile_read_only(javac)
        server._launch()
    except BaseException:
        server.stop()
        raise
    return server
