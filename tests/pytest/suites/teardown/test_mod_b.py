def test_b1():
    pass


def test_b2():
    pass


def test_b3():
    pass


def test_b4():
    pass
