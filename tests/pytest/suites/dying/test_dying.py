# A test that maps 3 GiB of address space (never touched: no RSS, no swap)
# and then segfaults at once: an allocation to the ceiling that no sample
# saw. The pytest process says so as it dies (the host library's "dying"
# line), so memguard judges it an out-of-memory death near its limit, not a
# plain crash.
import ctypes


def test_before():
    pass


def test_burst_then_segv():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    # PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE
    p = libc.mmap(None, 3 << 30, 0, 0x02 | 0x20 | 0x4000, -1, 0)
    assert p not in (None, ctypes.c_void_p(-1).value), "mmap failed"
    ctypes.string_at(0)


def test_after():
    pass
