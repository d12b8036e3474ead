from geobatch.batch import geocode_all
from geobatch.cache import GeoCache
from geobatch.client import GeocodeError, Location


class FakeGeocoder:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def lookup(self, address: str) -> Location | None:
        self.calls.append(address)
        if address == "boom":
            raise GeocodeError("HTTP 500")
        if address.startswith("?"):
            return None
        return Location(1.0, 2.0, address.upper())


def test_batch_report_and_cache() -> None:
    geo, cache = FakeGeocoder(), GeoCache()
    report = geocode_all(["a st", "?x", "boom", "a st"], geo, cache)
    assert sorted(geo.calls) == ["?x", "a st", "boom"]
    assert report.found == {"a st": Location(1.0, 2.0, "A ST")}
    assert report.missing == ["?x"]
    assert report.failed == {"boom": "HTTP 500"}


def test_cached_addresses_are_not_looked_up() -> None:
    geo, cache = FakeGeocoder(), GeoCache()
    cache.put("A St", Location(0, 0, "cached"))
    report = geocode_all(["a st", "", "b st"], geo, cache)
    assert geo.calls == ["b st"]
    assert report.found["a st"].label == "cached"
