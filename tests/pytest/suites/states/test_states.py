# Every outcome pytest has, for the driver to report as pytest does.
import sys

import pytest


def test_pass():
    print("out of test_pass")
    print("err of test_pass", file=sys.stderr)


def test_fail():
    assert 1 == 2


@pytest.mark.skip(reason="skipped on purpose")
def test_skip():
    pass


def test_skip_inside():
    pytest.skip("skipped inside")


@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert 0


@pytest.mark.xfail(reason="known bug")
def test_xpass():
    pass


@pytest.mark.xfail(reason="strict", strict=True)
def test_xpass_strict():
    pass


@pytest.fixture
def broken_setup():
    raise RuntimeError("setup broke")


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown broke")


def test_setup_error(broken_setup):
    pass


def test_teardown_error(broken_teardown):
    pass


@pytest.mark.parametrize("x", [1, 2, "a b"])
def test_param(x):
    assert x != 2


@pytest.mark.slow
def test_marked():
    pass


class TestGroup:
    def test_in_class(self):
        pass
