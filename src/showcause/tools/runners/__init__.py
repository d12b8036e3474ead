"""Test runners: how one kind of test suite is started in the sandbox and its per-test outcomes read back."""
