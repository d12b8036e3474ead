from authkit.models import User


class UserNotFound(LookupError):
    pass


class UserStore:
    def __init__(self) -> None:
        self._by_id: dict[int, User] = {}
        self._next_id = 1

    @staticmethod
    def normalize(email: str) -> str:
        return email.strip().lower()

    def add(self, email: str, password_hash: str) -> User:
        email = self.normalize(email)
        if any(u.email == email for u in self._by_id.values()):
            raise ValueError(f"{email} already registered")
        user = User(self._next_id, email, password_hash)
        self._by_id[user.id] = user
        self._next_id += 1
        return user

    def get(self, user_id: int) -> User:
        try:
            return self._by_id[user_id]
        except KeyError:
            raise UserNotFound(user_id) from None

    def get_by_email(self, email: str) -> User:
        email = self.normalize(email)
        for user in self._by_id.values():
            if user.email == email:
                return user
        raise UserNotFound(email)
