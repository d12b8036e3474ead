from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from geobatch.cache import GeoCache, normalize
from geobatch.client import GeocodeError, Geocoder, Location


@dataclass
class BatchReport:
    found: dict[str, Location] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)


def geocode_all(addresses: list[str], geocoder: Geocoder, cache: GeoCache, workers: int = 8) -> BatchReport:
    report = BatchReport()
    todo = list(dict.fromkeys(a for a in addresses if a not in cache and normalize(a)))

    def one(address: str) -> tuple[str, Location | None, str]:
        try:
            return address, geocoder.lookup(address), ""
        except GeocodeError as exc:
            return address, None, str(exc)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for address, location, error in pool.map(one, todo):
            if error:
                report.failed[address] = error
            else:
                cache.put(address, location)
    for address in addresses:
        if address in report.failed:
            continue
        location = cache.get(address)
        if location is None:
            report.missing.append(address)
        else:
            report.found[address] = location
    return report
