# A test that ends pytest's run with pytest.exit() (returncode from
# MG_PYTEST_EXIT_CODE, default 0), between two that pass; with
# MG_PYTEST_EXIT_AT=test_after the last test exits instead. A module fixture
# appends "torn down" to the file MG_PYTEST_EXIT_MARK names at its teardown,
# which pytest runs after an exit too. With MG_PYTEST_EXIT_KI set the test
# raises KeyboardInterrupt instead; with MG_PYTEST_OS_EXIT=N it calls
# os._exit(N) (no teardown, no report: the process is gone).
import os

import pytest


@pytest.fixture(scope="module", autouse=True)
def module_state():
    yield
    mark = os.environ.get("MG_PYTEST_EXIT_MARK")
    if mark:
        with open(mark, "a") as f:
            f.write("torn down\n")


def maybe_exit(name):
    if os.environ.get("MG_PYTEST_EXIT_AT", "test_exits") == name:
        print("exiting")
        if os.environ.get("MG_PYTEST_EXIT_KI"):
            raise KeyboardInterrupt
        if os.environ.get("MG_PYTEST_OS_EXIT"):
            os._exit(int(os.environ["MG_PYTEST_OS_EXIT"]))
        pytest.exit("done here", returncode=int(os.environ.get("MG_PYTEST_EXIT_CODE", "0")))


def test_before():
    pass


def test_exits():
    maybe_exit("test_exits")


def test_after():
    maybe_exit("test_after")
