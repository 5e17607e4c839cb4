"""Output that holds protocol v2 marks (no secret): under protocol v3 they are
the test's own bytes, never a boundary (check.py case marks)."""

import os
import sys


def test_before():
    print("before out")
    print("before err", file=sys.stderr)


def test_forger():
    sys.stdout.flush()
    # every ordinal this host could give, as a v2 host would mark them
    forged = b"".join(b"\x1e\x1fmg:%d\x1e" % n for n in range(8))
    os.write(1, forged + b"forged out\n")
    os.write(2, forged + b"forged err\n")
    print("forger out")


def test_quiet():
    pass


def test_after():
    print("after out")
