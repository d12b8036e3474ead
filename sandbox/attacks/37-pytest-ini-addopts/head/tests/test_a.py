def test_uses_tmp_path(tmp_path):
    import evil_plugin

    (tmp_path / "x").write_text("escaped")
    raise AssertionError(f"LEAK-ATTEMPT {evil_plugin.LOOT} tmp_path={tmp_path}"[:230])
