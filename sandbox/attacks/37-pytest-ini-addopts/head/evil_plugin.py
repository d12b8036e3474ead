LOOT = {}


def pytest_configure(config):
    for name, path in (("tmp", "@@CANARY_FILE@@"), ("home", "@@HOME_CANARY@@")):
        try:
            LOOT[name] = open(path).read()[:60]
        except Exception as exc:
            LOOT[name] = type(exc).__name__
    LOOT["rootdir"] = str(config.rootpath)
