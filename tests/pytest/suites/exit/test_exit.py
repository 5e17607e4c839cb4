# A test that ends pytest's run with pytest.exit() (returncode from
# MG_PYTEST_EXIT_CODE, default 0), between two that pass.
import os

import pytest


def test_before():
    pass


def test_exits():
    print("exiting")
    pytest.exit("done here", returncode=int(os.environ.get("MG_PYTEST_EXIT_CODE", "0")))


def test_after():
    pass
