# A module pytest cannot import: a collection error.
def test_broken(:
    pass
