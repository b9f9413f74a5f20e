"""Unpacking e-print archives: good archives open, bad ones fail with an error naming the member."""
from __future__ import annotations

import gzip
import io
import re
import tarfile
from pathlib import Path

import pytest

from papermath.errors import SourceError, UnsafeArchiveError
from papermath.source import open_source
from papermath.source.archive import content_hash, detect_kind, unpack

MAIN_TEX = b"\\documentclass{article}\n\\begin{document}\nHello $x$.\n\\end{document}\n"


def make_tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return path


def file_member(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def special_member(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


# ----- good archives ---------------------------------------------------------------------------------

@pytest.mark.parametrize("mode, suffix, kind", [
    ("w:gz", ".tar.gz", "tar.gz"),
    ("w", ".tar", "tar"),
    ("w:gz", "", "tar.gz"),          # arXiv serves e-prints without an extension
])
def test_tarball_opens_and_is_detected_by_magic(tmp_path, mode, suffix, kind):
    archive = make_tar(tmp_path / f"eprint{suffix}", [file_member("ms.tex", MAIN_TEX),
                                                      file_member("sec/intro.tex", b"Intro.\n")], mode)
    assert detect_kind(archive) == kind
    tree = open_source(str(archive), cache_dir=tmp_path / "cache")
    assert (tree.root / "ms.tex").read_bytes() == MAIN_TEX
    assert (tree.root / "sec" / "intro.tex").read_text() == "Intro.\n"
    assert tree.root == tmp_path / "cache" / "archives" / content_hash(archive)[:32]
    assert tree.arxiv_id is None and tree.version is None and tree.origin == str(archive)


def test_single_gzipped_tex_keeps_its_stored_name(tmp_path):
    archive = tmp_path / "2401.00001v1"
    with open(archive, "wb") as raw, gzip.GzipFile("paper.tex", "wb", fileobj=raw) as gz:
        gz.write(MAIN_TEX)
    assert detect_kind(archive) == "gz"
    tree = open_source(str(archive), cache_dir=tmp_path / "cache")
    assert sorted(p.name for p in tree.root.iterdir()) == ["paper.tex"]
    assert (tree.root / "paper.tex").read_bytes() == MAIN_TEX


def test_single_top_level_folder_becomes_the_root(tmp_path):
    archive = make_tar(tmp_path / "a.tgz", [file_member("paper/ms.tex", MAIN_TEX)])
    tree = open_source(str(archive), cache_dir=tmp_path / "cache")
    assert tree.root.name == "paper" and (tree.root / "ms.tex").is_file()


def test_second_open_reuses_the_unpacked_entry(tmp_path):
    archive = make_tar(tmp_path / "a.tgz", [file_member("ms.tex", MAIN_TEX)])
    first = open_source(str(archive), cache_dir=tmp_path / "cache")
    (first.root / "marker").write_text("kept")
    second = open_source(str(archive), cache_dir=tmp_path / "cache")
    assert second.root == first.root and (second.root / "marker").read_text() == "kept"


def test_symlink_inside_the_archive_becomes_a_copy(tmp_path):
    archive = make_tar(tmp_path / "a.tgz", [file_member("ms.tex", MAIN_TEX),
                                            special_member("sub/link.tex", tarfile.SYMTYPE, "../ms.tex"),
                                            special_member("hard.tex", tarfile.LNKTYPE, "ms.tex")])
    dest = unpack(archive, tmp_path / "out")
    assert not (dest / "sub" / "link.tex").is_symlink()
    assert (dest / "sub" / "link.tex").read_bytes() == MAIN_TEX
    assert (dest / "hard.tex").read_bytes() == MAIN_TEX


# ----- bad archives ----------------------------------------------------------------------------------

BAD_ARCHIVES = [
    ("dotdot", [file_member("ms.tex", MAIN_TEX), file_member("../evil.tex")], "'../evil.tex' contains a '..'"),
    ("dotdot-inner", [file_member("a/../../evil.tex")], "'a/../../evil.tex' contains a '..'"),
    ("absolute", [file_member("/etc/evil.tex")], "'/etc/evil.tex' has an absolute path"),
    ("symlink-out", [file_member("ms.tex", MAIN_TEX), special_member("sub/x", tarfile.SYMTYPE, "../../etc/passwd")],
     "'sub/x' is a symlink pointing outside the archive (../../etc/passwd)"),
    ("symlink-absolute", [special_member("x", tarfile.SYMTYPE, "/etc/passwd")],
     "'x' is a symlink to an absolute path (/etc/passwd)"),
    ("hardlink-out", [file_member("ms.tex", MAIN_TEX), special_member("h", tarfile.LNKTYPE, "../outside")],
     "'h' is a hard link pointing outside the archive (../outside)"),
    ("chardev", [file_member("ms.tex", MAIN_TEX), special_member("dev/null", tarfile.CHRTYPE)],
     "'dev/null' is a device file or FIFO"),
    ("blockdev", [special_member("sda", tarfile.BLKTYPE)], "'sda' is a device file or FIFO"),
    ("fifo", [special_member("pipe", tarfile.FIFOTYPE)], "'pipe' is a device file or FIFO"),
    ("empty", [], "archive is empty"),
    ("only-dirs", [special_member("figures", tarfile.DIRTYPE)], "archive is empty"),
]


@pytest.mark.parametrize("name, members, message", BAD_ARCHIVES, ids=[b[0] for b in BAD_ARCHIVES])
def test_bad_archive_is_refused_and_leaves_nothing(tmp_path, name, members, message):
    archive = make_tar(tmp_path / f"{name}.tar.gz", members)
    cache = tmp_path / "cache"
    with pytest.raises(UnsafeArchiveError) as info:
        open_source(str(archive), cache_dir=cache)
    assert message in str(info.value)
    # Neither a partial entry nor a temporary directory is left in the cache.
    assert list((cache / "archives").iterdir()) == []
    assert not (tmp_path.parent / "evil.tex").exists()


def test_size_cap_names_the_member_that_crosses_it(tmp_path):
    archive = make_tar(tmp_path / "big.tgz", [file_member("a.tex", b"a" * 60), file_member("b.tex", b"b" * 60)])
    with pytest.raises(UnsafeArchiveError, match=r"more than 100 bytes \(stopped at 'b.tex'\)"):
        unpack(archive, tmp_path / "out", max_bytes=100)
    assert not (tmp_path / "out").exists()


def test_member_count_cap(tmp_path):
    archive = make_tar(tmp_path / "many.tgz", [file_member(f"f{i}.tex") for i in range(5)])
    with pytest.raises(UnsafeArchiveError, match=r"more than 3 members \(stopped at 'f3.tex'\)"):
        unpack(archive, tmp_path / "out", max_members=3)


def test_gzip_bomb_is_capped(tmp_path):
    archive = tmp_path / "bomb.gz"
    with open(archive, "wb") as raw, gzip.GzipFile("main.tex", "wb", fileobj=raw) as gz:
        gz.write(b"%" * 10_000)
    with pytest.raises(UnsafeArchiveError, match="more bytes than allowed"):
        unpack(archive, tmp_path / "out", max_bytes=1000)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("content, message", [
    (b"%PDF-1.5\n...", "is a PDF, not a LaTeX source"),
    (b"just some bytes that are not an archive", "is not a LaTeX (.tex) or Markdown (.md) file"),
    (b"\x1f\x8b\x08\x00garbage", "is not a valid gzip file"),
])
def test_unreadable_inputs_get_a_specific_error(tmp_path, content, message):
    path = tmp_path / "thing.bin"
    path.write_bytes(content)
    with pytest.raises(SourceError, match=re.escape(message)):
        open_source(str(path), cache_dir=tmp_path / "cache")


def test_missing_path_that_is_not_an_arxiv_id(tmp_path):
    with pytest.raises(SourceError, match="no such file or directory, and not an arXiv id or URL: nowhere/paper.tex"):
        open_source("nowhere/paper.tex", cache_dir=tmp_path)


@pytest.mark.parametrize("name, hint", [("paper.tex", "paper.tex"), ("notes.md", "notes.md")])
def test_text_file_sets_root_and_main_hint(tmp_path, name, hint):
    (tmp_path / name).write_text("x")
    tree = open_source(str(tmp_path / name))
    assert tree.root == tmp_path.resolve() and tree.main_hint == hint
