import pytest

from cronlite.cli import main


def test_prints_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["0 9 * * *", "-n", "2", "--after", "2024-05-01T10:00"]) == 0
    assert capsys.readouterr().out.splitlines() == ["2024-05-02 09:00 Thu", "2024-05-03 09:00 Fri"]


def test_bad_expression(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["61 * * * *"]) == 2
    assert "minute" in capsys.readouterr().err
