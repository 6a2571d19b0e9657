from pathlib import Path


def test_file_exists():
    assert Path("/app/greeting.txt").is_file()


def test_content():
    assert Path("/app/greeting.txt").read_text().strip() == "hi there"
