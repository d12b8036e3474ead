import re

_SIMPLE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class InvalidEmail(ValueError):
    pass


def normalise_email(address: str) -> str:
    """Trim and lowercase the domain; the local part keeps its case."""
    address = address.strip()
    if not _SIMPLE.match(address):
        raise InvalidEmail(address)
    local, _, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}"


def same_mailbox(a: str, b: str) -> bool:
    return normalise_email(a) == normalise_email(b)
