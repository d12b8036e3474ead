def one():
    return 1


def two():
    return one() + 1
