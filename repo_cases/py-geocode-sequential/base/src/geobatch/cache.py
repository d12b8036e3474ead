import re

from geobatch.client import Location

_SPACES = re.compile(r"\s+")


def normalize(address: str) -> str:
    return _SPACES.sub(" ", address.strip().lower().replace(",", ", ")).replace(" ,", ",")


class GeoCache:
    def __init__(self) -> None:
        self._hits: dict[str, Location | None] = {}

    def __contains__(self, address: str) -> bool:
        return normalize(address) in self._hits

    def get(self, address: str) -> Location | None:
        return self._hits.get(normalize(address))

    def put(self, address: str, location: Location | None) -> None:
        self._hits[normalize(address)] = location

    def __len__(self) -> int:
        return len(self._hits)
