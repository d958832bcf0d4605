"""Servers started on a test's own directory (restarted on it, killed in it), stopped at
the test's end even when it fails. A test module imports both names:

    from helpers_dir_servers import start_in, stop_dir_servers  # noqa: F401 (fixture)

`stop_dir_servers` is an autouse fixture, so importing it into the module is enough.
"""
import pytest

from conftest import ServerProcess

STARTED = []  # every server a test started


@pytest.fixture(autouse=True)
def stop_dir_servers():
    yield
    while STARTED:
        srv = STARTED.pop()
        if srv.alive():
            srv.proc.kill()
            srv.proc.wait()


def start_in(tmp_path, *extra):
    """A server with --dir tmp_path and two workers, plus `extra` options."""
    srv = ServerProcess(["--dir", str(tmp_path), "--threads", "2", *extra],
                        tmp_path=tmp_path).start()
    STARTED.append(srv)
    return srv
