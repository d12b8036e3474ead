from authkit.passwords import hash_password, verify_password


def test_roundtrip_and_salt() -> None:
    a = hash_password("pw")
    b = hash_password("pw")
    assert a != b
    assert verify_password("pw", a)
    assert not verify_password("other", a)


def test_malformed_hash() -> None:
    assert not verify_password("pw", "md5$abc")
    assert not verify_password("pw", "garbage")
