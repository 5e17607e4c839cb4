# A pytest process slow to exit after it said bye (a plugin's session
# finish: coverage data, a report upload): at the run's end memguard waits
# for it a second, then kills it, and must still end.
import time


def pytest_sessionfinish(session):
    time.sleep(3)
