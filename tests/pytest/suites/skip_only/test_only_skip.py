# The only module of its suite, skipped at collection: pytest exits 5 (no
# tests ran), "1 skipped"; memguard must too, on every node of a split.
import pytest

pytest.importorskip("memguard_no_such_module")


def test_never_collected():
    pass
