# A module fixture whose teardown fails: pytest reports it at the teardown of
# the module's last test (test_a5), an entry of its own.
import pytest


@pytest.fixture(scope="module")
def module_resource(session_resource):
    yield
    raise RuntimeError("module a teardown broke")


def test_a1(module_resource):
    pass


def test_a2(module_resource):
    pass


def test_a3(module_resource):
    pass


def test_a4(module_resource):
    pass


def test_a5():
    pass
