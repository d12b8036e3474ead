from appconf.settings import Settings, load

__all__ = ["Settings", "load"]
