import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from signup.emails import normalise_email

INVITE_TTL = timedelta(days=14)


@dataclass
class Invite:
    email: str
    token: str
    created: datetime
    accepted: bool = False


@dataclass
class InviteBook:
    invites: dict[str, Invite] = field(default_factory=dict)

    def invite(self, email: str, now: datetime | None = None) -> Invite:
        now = now or datetime.now(timezone.utc)
        address = normalise_email(email)
        # One open invite per mailbox: re-inviting replaces the old token.
        for token, existing in list(self.invites.items()):
            if existing.email == address and not existing.accepted:
                del self.invites[token]
        inv = Invite(address, secrets.token_urlsafe(24), now)
        self.invites[inv.token] = inv
        return inv

    def accept(self, token: str, email: str, now: datetime | None = None) -> bool:
        now = now or datetime.now(timezone.utc)
        inv = self.invites.get(token)
        if inv is None or inv.accepted or now - inv.created > INVITE_TTL:
            return False
        if inv.email != normalise_email(email):
            return False
        inv.accepted = True
        return True
