import re

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PART = re.compile(r"(\d+)([smhd])")


def parse_duration(text: str) -> int:
    """Parse '90s', '5m', '1h30m' or a bare number of seconds into seconds."""
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    pos = 0
    total = 0
    for match in _PART.finditer(text):
        if match.start() != pos:
            break
        total += int(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(text) or not text:
        raise ValueError(f"bad duration {text!r}")
    return total


def format_duration(seconds: int) -> str:
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
    if seconds or not parts:
        parts.append(f"{seconds}s")
    return "".join(parts)
