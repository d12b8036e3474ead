from authkit.models import User
from authkit.passwords import hash_password
from authkit.store import UserStore


def disable_user(store: UserStore, email: str) -> User:
    user = store.get_by_email(email)
    user.disabled = True
    return user


def grant_role(store: UserStore, email: str, role: str) -> set[str]:
    user = store.get_by_email(email)
    user.roles.add(role)
    return set(user.roles)


def force_password(store: UserStore, email: str, new_password: str) -> None:
    store.get_by_email(email).password_hash = hash_password(new_password)
