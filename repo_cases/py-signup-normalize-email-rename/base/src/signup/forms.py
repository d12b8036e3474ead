from dataclasses import dataclass

from signup.emails import InvalidEmail, normalise_email


@dataclass(frozen=True)
class SignupForm:
    email: str
    password: str
    display_name: str


def clean_signup(data: dict[str, str]) -> tuple[SignupForm | None, dict[str, str]]:
    """Validate raw form fields; the address goes through normalise_email.

    Returns (form, {}) or (None, errors).
    """
    errors: dict[str, str] = {}
    email = ""
    try:
        email = normalise_email(data.get("email", ""))
    except InvalidEmail:
        errors["email"] = "Enter a valid e-mail address."
    password = data.get("password", "")
    if len(password) < 12:
        errors["password"] = "Use at least 12 characters."
    name = data.get("display_name", "").strip() or email.partition("@")[0]
    if errors:
        return None, errors
    return SignupForm(email, password, name), {}
