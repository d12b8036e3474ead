def handler():
    return 1
