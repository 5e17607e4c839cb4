# Twenty tests that each keep 50 MiB (touched) for the process's life: in a
# 512 MiB memory cgroup one pytest process running them all is OOM-killed.
import pytest

KEPT = []


@pytest.mark.parametrize("i", range(20))
def test_grow(i):
    KEPT.append(bytearray(b"x") * (50 << 20))
