"""Loaded with -p mg_grow_plugin (this folder on PYTHONPATH): keeps 1 MiB
(touched) after each test, so a --recycle-at rss limit recycles a real
suite's pytest process every hundred tests or so, in the middle of its
modules and classes, without touching its tests or their outcomes."""

KEPT = []


def pytest_runtest_teardown(item, nextitem):
    KEPT.append(b"x" * (1 << 20))
