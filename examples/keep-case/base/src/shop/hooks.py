# Checkout hooks are looked up by name from settings.json.
HOOKS = {}


def register(name):
    def wrap(fn):
        HOOKS[name] = fn
        return fn
    return wrap
