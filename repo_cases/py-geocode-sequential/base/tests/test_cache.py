from geobatch.cache import GeoCache, normalize
from geobatch.client import Location


def test_normalize() -> None:
    assert normalize("  10 Downing St ,London ") == "10 downing st, london"


def test_cache_uses_normalized_keys() -> None:
    cache = GeoCache()
    cache.put("10 Downing St, London", Location(51.5, -0.12, "No. 10"))
    assert "10 downing st,london" in cache
    assert cache.get("10  DOWNING st, london") == Location(51.5, -0.12, "No. 10")
    cache.put("nowhere", None)
    assert "Nowhere" in cache and cache.get("Nowhere") is None
