# A test that segfaults in C code (ctypes reading address 0), between two
# that pass, and a failing one after it.
import ctypes


def test_before():
    pass


def test_segv():
    ctypes.string_at(0)


def test_after():
    pass


def test_fails_after():
    assert False
