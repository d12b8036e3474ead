from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class Account:
    id: int
    email: str
    password_hash: str


@dataclass
class ResetRecord:
    account_id: int
    token_digest: str
    expires: datetime
    used: bool = False


@dataclass
class AccountStore:
    accounts: dict[int, Account] = field(default_factory=dict)
    resets: dict[str, ResetRecord] = field(default_factory=dict)

    def by_email(self, email: str) -> Account | None:
        email = email.strip().lower()
        return next((a for a in self.accounts.values() if a.email == email), None)
