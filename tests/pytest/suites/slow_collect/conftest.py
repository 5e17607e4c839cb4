# A collection that takes 11 s, as a big suite's does on a loaded machine
# (pyflakes' 746 tests took over 10 s at load 20): the pytest process says
# hello only after it, in every generation, so a 10 s greeting deadline
# would refuse every host.
import time


def pytest_collection_finish(session):
    time.sleep(11)
