def handler():
    return "ok"
