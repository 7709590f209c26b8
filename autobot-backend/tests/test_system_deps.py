"""``.ci/system-deps``, what ``make test`` runs to install the system packages the tests use (issue 37 point 6):
it waits, bounded, for the package manager's lock instead of failing on the first try, and without root it
says so in one line and lets the tests skip.

The script runs for real (bash) on a ``PATH`` of its own: the system's tools it needs, and in place of
``apt-get`` and ``id`` small scripts that play a package manager whose lock another process holds for a while
(or for good), and a root or an ordinary user. No package is installed and no system file is written.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bounds import PATIENCE_S

SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "system-deps"
TOOLS = ("bash", "env", "grep", "sleep", "cat", "mkdir", "tee", "rm")
LOCKED = "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)"


def script(path: Path, body: str) -> None:
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    """A ``bin/`` with the tools the script uses and neither Chromium nor chromedriver, so both are missing."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, f"the test needs {tool}"
        (bin_dir / tool).symlink_to(found)
    return tmp_path


def apt_get(sandbox: Path, locked_times: int) -> None:
    """An ``apt-get`` that finds the lock held ``locked_times`` times (-1: always), then succeeds; every call
    is appended to ``calls``."""
    script(
        sandbox / "bin" / "apt-get",
        f'echo "$*" >> {sandbox}/calls\n'
        f"n=$(cat {sandbox}/tries 2>/dev/null || echo 0); echo $((n + 1)) > {sandbox}/tries\n"
        f'if [ {locked_times} -lt 0 ] || [ "$n" -lt {locked_times} ]; then echo "{LOCKED}" >&2; exit 100; fi\n',
    )


def run(sandbox: Path, *, uid: int, **env: str) -> subprocess.CompletedProcess[str]:
    script(sandbox / "bin" / "id", f"echo {uid}\n")
    return subprocess.run(
        [shutil.which("bash") or "bash", str(SCRIPT), "browser"],
        env={"PATH": str(sandbox / "bin"), "HOME": str(sandbox), **env},
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        check=False,
    )


def calls(sandbox: Path) -> list[str]:
    path = sandbox / "calls"
    return path.read_text().splitlines() if path.exists() else []


def test_a_held_lock_is_waited_for_and_the_packages_are_installed_once_it_is_free(sandbox):
    apt_get(sandbox, locked_times=2)
    done = run(sandbox, uid=0, SYSTEM_DEPS_LOCK_POLL="0.1")
    assert done.returncode == 0, done.stderr
    made = calls(sandbox)
    assert len(made) == 4 and all(c.endswith(" update -qq") for c in made[:3])  # twice locked, then free
    assert all("DPkg::Lock::Timeout=" in c for c in made)  # apt waits for dpkg's own lock too, where it can
    assert "install -y -qq --no-install-recommends chromium chromium-driver" in made[-1]
    assert done.stderr.count("the package manager is busy") == 1  # said once, however long the wait
    assert not (sandbox / "etc").exists()


def test_a_lock_never_released_is_given_up_at_the_bound_saying_so(sandbox):
    apt_get(sandbox, locked_times=-1)
    done = run(sandbox, uid=0, SYSTEM_DEPS_LOCK_WAIT="1", SYSTEM_DEPS_LOCK_POLL="0.2")  # however slow each try
    assert done.returncode == 1
    assert "gave up after 1 s waiting for the package manager's lock" in done.stderr
    assert calls(sandbox) and all(c.endswith("update -qq") for c in calls(sandbox))


def test_another_failure_is_not_waited_for(sandbox):
    script(
        sandbox / "bin" / "apt-get", f'echo "$*" >> {sandbox}/calls\necho "E: Unable to locate package" >&2\nexit 100\n'
    )
    done = run(sandbox, uid=0, SYSTEM_DEPS_LOCK_POLL="0.1")
    assert done.returncode == 100 and "Unable to locate package" in done.stderr
    assert len(calls(sandbox)) == 1


def test_without_root_or_sudo_it_says_so_in_one_line_and_the_tests_skip(sandbox):
    apt_get(sandbox, locked_times=0)
    done = run(sandbox, uid=1000)
    assert done.returncode == 0 and calls(sandbox) == []
    (line,) = done.stderr.splitlines()
    assert line.startswith("system-deps: chromium chromium-driver missing, and no root or password-less sudo")
    assert (
        "the tests that need them skip (CI fails them)" in line and "apt-get install chromium chromium-driver" in line
    )


def test_the_session_ends_with_one_line_naming_the_missing_packages(tmp_path):
    # The browser tests on a PATH without Chromium: they skip, and one line says why and what to do.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "eval/tests/tools/test_matrix_browser.py"],
        cwd=Path(__file__).resolve().parents[1],
        env={"PATH": str(tmp_path), "HOME": str(tmp_path), "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("system packages missing")]
    assert lines == [
        "system packages missing, so these tests skipped: Chromium and chromedriver (1 test(s)). `make test` "
        "installs them as root or with password-less sudo (.ci/system-deps); CI requires them "
        "(EVAL_REQUIRE_BROWSER=1, EVAL_REQUIRE_POSTGRES=1, EVAL_REQUIRE_SPARK=1)"
    ]
