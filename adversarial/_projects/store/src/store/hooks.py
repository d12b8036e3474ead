"""Checkout hooks are named in settings.json and looked up in store.pricing."""
import json
from pathlib import Path

from store import pricing


def checkout_hook(settings: Path):
    name = json.loads(settings.read_text(encoding="utf-8"))["checkout_hook"]
    return getattr(pricing, name)
