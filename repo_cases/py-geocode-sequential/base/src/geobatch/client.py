import json
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Location:
    lat: float
    lon: float
    label: str


class GeocodeError(Exception):
    pass


class Geocoder(Protocol):
    def lookup(self, address: str) -> Location | None: ...


class HttpGeocoder:
    def __init__(self, base_url: str, api_key: str, timeout: float = 10.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def lookup(self, address: str) -> Location | None:
        query = urllib.parse.urlencode({"q": address, "format": "json", "limit": 1, "key": self.api_key})
        request = urllib.request.Request(f"{self.base_url}/search?{query}", headers={"User-Agent": "geobatch/0.3"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                hits = json.load(response)
        except OSError as exc:
            raise GeocodeError(str(exc)) from exc
        if not hits:
            return None
        hit = hits[0]
        return Location(float(hit["lat"]), float(hit["lon"]), str(hit.get("display_name", address)))
