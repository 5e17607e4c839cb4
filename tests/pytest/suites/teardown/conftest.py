# A session fixture whose teardown fails: pytest reports the error at the
# teardown of its last test (test_mod_b.py::test_b4, which does not even
# use it), as an entry of its own ("9 passed, 2 errors"). Under memguard
# every process that set it up tears it down: at a recycle, at a lane's end.
import pytest


@pytest.fixture(scope="session")
def session_resource():
    yield
    raise RuntimeError("session teardown broke")
