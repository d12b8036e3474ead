from ttlcache.cache import TTLCache
from ttlcache.decorator import cached

__all__ = ["TTLCache", "cached"]
