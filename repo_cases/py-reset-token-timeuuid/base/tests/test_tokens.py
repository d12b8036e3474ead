from accounts.tokens import digest, new_token


def test_tokens_are_unique_and_urlsafe() -> None:
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    assert all(len(t) >= 32 and t.replace("-", "").replace("_", "").isalnum() for t in tokens)


def test_digest_is_stable() -> None:
    assert digest("abc") == digest("abc") != digest("abd")
