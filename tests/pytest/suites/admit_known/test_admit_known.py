# A first test that maps 1200 MiB for a tenth of a second and gives it back,
# then six that each keep 200 MiB (never touched): under a 2 GiB kill limit
# the process that ran the first would recycle before a later one if it
# expected of each the 1200 MiB it saw rise; planned from history, which
# knows every test's own rise (protocol v4's "known"), it runs all seven.
import ctypes
import time

KEPT = []
_libc = ctypes.CDLL(None)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def _map(size):
    # PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE: address space only
    p = _libc.mmap(None, size, 0, 0x02 | 0x20 | 0x4000, -1, 0)
    assert p not in (None, ctypes.c_void_p(-1).value), "mmap failed"
    return p


def keep():
    KEPT.append(_map(200 << 20))
    time.sleep(0.002)  # 1 ms or more: its peak is read


def test_1_big():
    burst = _map(1200 << 20)
    time.sleep(0.1)  # long enough for memguard's samples to see it
    _libc.munmap(burst, 1200 << 20)


def test_2():
    keep()


def test_3():
    keep()


def test_4():
    keep()


def test_5():
    keep()


def test_6():
    keep()


def test_7():
    keep()
