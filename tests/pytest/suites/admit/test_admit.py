# Tests that each keep 300 MiB of address space (never touched) and, for a
# tenth of a second, map 600 MiB more: a rise above where each starts of
# 900 MiB. Under a 2 GiB kill limit the fifth would rise past it in the
# process that ran the first four; the process admits it only if that rise
# still fits (the host library's admission: the largest rise a test of this
# process made, though its run line came before anyone knew of it).
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


def rise():
    KEPT.append(_map(300 << 20))
    burst = _map(600 << 20)
    time.sleep(0.1)  # long enough for memguard's samples to see it
    _libc.munmap(burst, 600 << 20)


def test_1():
    rise()


def test_2():
    rise()


def test_3():
    rise()


def test_4():
    rise()


def test_5():
    rise()


def test_6():
    rise()


def test_7():
    rise()
