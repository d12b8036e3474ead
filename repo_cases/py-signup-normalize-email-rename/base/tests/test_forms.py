from signup.forms import clean_signup


def test_clean_signup_ok() -> None:
    form, errors = clean_signup({"email": "Ada@Example.org", "password": "correct horse battery"})
    assert errors == {}
    assert form is not None and form.email == "Ada@example.org" and form.display_name == "Ada"


def test_clean_signup_errors() -> None:
    form, errors = clean_signup({"email": "nope", "password": "short"})
    assert form is None
    assert set(errors) == {"email", "password"}
