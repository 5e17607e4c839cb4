# A module pytest skips at collection (importorskip of a module that is not
# there): pytest counts it among its skipped and its JUnit has an entry for
# it; so must memguard's report (before: left out, one skip fewer).
import pytest

pytest.importorskip("memguard_no_such_module")


def test_never_collected():
    pass
