# A module fixture whose teardown fails: pytest reports the error on the
# module's last test (its teardown), and the error's message is the fixture's.
import pytest


@pytest.fixture(scope="module")
def module_resource():
    yield
    raise RuntimeError("module teardown broke")


def test_first(module_resource):
    pass


def test_last(module_resource):
    pass
