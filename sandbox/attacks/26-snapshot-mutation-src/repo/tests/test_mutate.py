import glob
from pathlib import Path

NEW = 'VALUE = "' + "MUT" + 'ATED"\n'


def test_mutate():
    Path("src/app.py").write_text(NEW)
    for path in glob.glob("/tmp/showcause-snap-*/*/src/app.py") + ["@@USER_TREE@@/src/app.py"]:
        try:
            Path(path).write_text(NEW)
        except OSError:
            pass
    assert Path("src/app.py").read_text() == NEW
