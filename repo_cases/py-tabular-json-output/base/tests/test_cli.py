import io

import pytest

from tabular.cli import main


def test_stdin_to_table() -> None:
    out = io.StringIO()
    assert main([], io.StringIO("name,age\nada,36\n"), out) == 0
    assert out.getvalue().splitlines()[2] == "ada  |  36"


def test_columns_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert main(["-c", "age"], io.StringIO("name,age\nada,36\n"), out) == 0
    assert out.getvalue().splitlines()[0] == "age"
    assert main(["-c", "zip"], io.StringIO("name,age\nada,36\n"), io.StringIO()) == 2
    assert "unknown column" in capsys.readouterr().err
