"""Fetching and unpacking dataset archives (what `download=True` does in the dataset classes).

download_url() writes to `<file>.part` and renames only a complete, verified file into place,
so a file at the final path is always whole. An interrupted transfer resumes from the bytes it
already has (HTTP Range); a server that ignores Range makes it start over. A checksum mismatch
deletes the file, re-fetches once from scratch (a stale partial file from another version of
the archive is the common cause) and then raises. extract_archive() unpacks into a temporary
folder beside the destination and moves the entries into place only after the whole archive
was read, so a corrupt or truncated archive leaves nothing half-extracted behind.
"""

import bz2
import gzip
import hashlib
import http.client
import lzma
import os
import shutil
import socket
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
import zlib

from .progress import tqdm

__all__ = [
    "calculate_checksum",
    "check_integrity",
    "download_url",
    "extract_archive",
    "download_and_extract_archive",
]

_CHUNK = 1 << 16
_USER_AGENT = "tensorcore-datasets"


def calculate_checksum(fpath, hash_type="sha256"):
    """Hex digest of a file ("sha256", "md5", or any hashlib name)."""
    try:
        h = hashlib.new(hash_type)
    except ValueError:
        raise ValueError(f"unknown hash_type {hash_type!r}") from None
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_integrity(fpath, checksum=None, hash_type="sha256"):
    """True when the file exists and (if given) its digest starts with `checksum`.

    A prefix is accepted because torch.hub's hash_prefix convention (the first hex digits of
    the sha256) is how torchaudio lists its archives."""
    if not os.path.isfile(fpath):
        return False
    if checksum is None:
        return True
    return calculate_checksum(fpath, hash_type).startswith(checksum.lower())


def _open(url, start, timeout):
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
    if start:
        request.add_header("Range", f"bytes={start}-")
    return urllib.request.urlopen(request, timeout=timeout)


def _total_size(response, start):
    """Full size of the resource from Content-Range (206) or Content-Length (200); None if unknown."""
    content_range = response.headers.get("Content-Range")
    if content_range and "/" in content_range:
        total = content_range.rsplit("/", 1)[1].strip()
        if total.isdigit():
            return int(total)
    length = response.headers.get("Content-Length")
    if length is not None and length.isdigit():
        return int(length) + (start if response.status == 206 else 0)
    return None


def _fetch(url, part, timeout, max_retries, progress):
    """Appends the missing bytes of `url` to `part` until it is complete; resumes after drops."""
    attempts = 0
    bar = None
    try:
        while True:
            start = os.path.getsize(part) if os.path.exists(part) else 0
            try:
                response = _open(url, start, timeout)
            except urllib.error.HTTPError as e:
                if e.code == 416 and start:
                    # Range past the end: the partial file is already whole (or not ours).
                    return
                raise RuntimeError(f"download of {url} failed: HTTP {e.code} {e.reason}") from None
            except (urllib.error.URLError, OSError) as e:
                attempts += 1
                if attempts > max_retries:
                    reason = getattr(e, "reason", e)
                    raise RuntimeError(
                        f"download of {url} failed after {attempts} attempts: {reason}"
                    ) from None
                time.sleep(min(0.25 * 2**attempts, 4.0))  # a refused connection: back off
                continue
            with response:
                resumed = start and response.status == 206
                total = _total_size(response, start if resumed else 0)
                if bar is None and progress:
                    bar = tqdm(
                        total=total,
                        desc=os.path.basename(part[:-5]),
                        unit="B",
                        initial=start if resumed else 0,
                    )
                mode = "ab" if resumed else "wb"  # a 200 answer to a Range request: start over
                if bar is not None and not resumed:
                    bar.n = 0
                try:
                    with open(part, mode) as out:
                        for chunk in iter(lambda: response.read(_CHUNK), b""):
                            out.write(chunk)
                            if bar is not None:
                                bar.update(len(chunk))
                except (http.client.IncompleteRead, ConnectionError, socket.timeout) as e:
                    attempts += 1
                    if attempts > max_retries:
                        raise RuntimeError(
                            f"download of {url} was interrupted {attempts} times "
                            f"(last: {type(e).__name__}); the partial file "
                            f"{part} is kept for a later resume"
                        ) from None
                    continue
            have = os.path.getsize(part)
            if total is not None and have < total:
                # The server closed the connection early without an error: resume.
                attempts += 1
                if attempts > max_retries:
                    raise RuntimeError(
                        f"download of {url} stopped at {have} of {total} bytes "
                        f"{attempts} times; the partial file {part} is kept"
                    )
                continue
            if total is not None and have > total:
                raise RuntimeError(
                    f"download of {url}: got {have} bytes, the server announced {total}"
                )
            return
    finally:
        if bar is not None:
            bar.close()


def download_url(
    url,
    root,
    filename=None,
    checksum=None,
    hash_type="sha256",
    max_retries=3,
    timeout=30.0,
    progress=True,
):
    """Downloads `url` to `root/filename` (default: the URL's basename) and returns the path.

    Skips the download when a file that passes the checksum is already there. `checksum` is a
    hex digest (or its prefix) of type `hash_type`."""
    root = os.path.expanduser(os.fspath(root))
    filename = filename or os.path.basename(urllib.request.urlparse(url).path)
    if not filename:
        raise ValueError(f"download_url: cannot derive a file name from {url!r}; pass filename=")
    os.makedirs(root, exist_ok=True)
    fpath = os.path.join(root, filename)
    if check_integrity(fpath, checksum, hash_type):
        return fpath
    if os.path.exists(fpath):
        os.remove(fpath)  # present but failing the checksum: fetch it again
    part = fpath + ".part"
    for attempt in range(2):
        _fetch(url, part, timeout, max_retries, progress)
        if check_integrity(part, checksum, hash_type):
            os.replace(part, fpath)
            return fpath
        got = calculate_checksum(part, hash_type)
        os.remove(part)
    raise RuntimeError(
        f"checksum mismatch for {url}: expected {hash_type} {checksum}, got {got} "
        f"(downloaded twice; the file was deleted)"
    )


def _check_member_path(name, archive):
    norm = os.path.normpath(name)
    if os.path.isabs(name) or norm == ".." or norm.startswith(".." + os.sep):
        raise RuntimeError(
            f"{archive}: refusing to extract {name!r}, which points outside the destination folder"
        )


def _extract_into(from_path, tmp):
    lower = from_path.lower()
    if zipfile.is_zipfile(from_path):
        with zipfile.ZipFile(from_path) as zf:
            for name in zf.namelist():
                _check_member_path(name, from_path)
            zf.extractall(tmp)
        return
    if lower.endswith((".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tbz2", ".tar.xz", ".txz")):
        with tarfile.open(from_path, "r:*") as tf:
            members = tf.getmembers()
            for m in members:
                _check_member_path(m.name, from_path)
                if m.issym():  # relative to the link's folder
                    _check_member_path(os.path.join(os.path.dirname(m.name), m.linkname), from_path)
                elif m.islnk():  # relative to the archive root
                    _check_member_path(m.linkname, from_path)
                if not (m.isfile() or m.isdir() or m.issym() or m.islnk()):
                    raise RuntimeError(
                        f"{from_path}: refusing to extract {m.name!r} (a device, "
                        f"fifo or other special file)"
                    )
            tf.extractall(tmp, members=members)
        return
    for ext, opener in ((".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)):
        if lower.endswith(ext):
            out = os.path.join(tmp, os.path.basename(from_path)[: -len(ext)])
            with opener(from_path, "rb") as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
            return
    raise ValueError(
        f"extract_archive: unsupported archive type {from_path!r} (expected .zip, "
        f".tar[.gz|.bz2|.xz], .tgz, .gz, .bz2 or .xz)"
    )


def _move_tree(src, dst):
    """Moves src's entries into dst, merging into folders that already exist."""
    for name in os.listdir(src):
        s, d = os.path.join(src, name), os.path.join(dst, name)
        if os.path.isdir(s) and not os.path.islink(s) and os.path.isdir(d):
            _move_tree(s, d)
        else:
            if os.path.isdir(d) and not os.path.islink(d):
                shutil.rmtree(d)
            os.replace(s, d)


def extract_archive(from_path, to_path=None, remove_finished=False):
    """Unpacks a zip / tar(.gz/.bz2/.xz) / .gz / .bz2 / .xz file into `to_path` (default: the
    archive's folder) and returns `to_path`. All or nothing: on an error no entry is left."""
    from_path = os.fspath(from_path)
    if to_path is None:
        to_path = os.path.dirname(os.path.abspath(from_path))
    to_path = os.fspath(to_path)
    if not os.path.isfile(from_path):
        raise FileNotFoundError(f"extract_archive: archive {from_path} does not exist")
    os.makedirs(to_path, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".extract-", dir=to_path)
    try:
        try:
            _extract_into(from_path, tmp)
        except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, zlib.error) as e:
            raise RuntimeError(
                f"extract_archive: {from_path} is corrupt or truncated "
                f"({type(e).__name__}: {e}); nothing was extracted"
            ) from None
        _move_tree(tmp, to_path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if remove_finished:
        os.remove(from_path)
    return to_path


def download_and_extract_archive(
    url,
    download_root,
    extract_root=None,
    filename=None,
    checksum=None,
    hash_type="sha256",
    remove_finished=False,
    max_retries=3,
    timeout=30.0,
    progress=True,
):
    """download_url() then extract_archive(); returns the extraction folder."""
    download_root = os.path.expanduser(os.fspath(download_root))
    extract_root = download_root if extract_root is None else os.fspath(extract_root)
    archive = download_url(
        url, download_root, filename, checksum, hash_type, max_retries, timeout, progress
    )
    try:
        return extract_archive(archive, extract_root, remove_finished)
    except RuntimeError:
        # A verified file that still fails to unpack is useless; without a checksum we cannot
        # tell a bad download from a bad archive, so drop it to force a re-fetch next time.
        if os.path.exists(archive):
            os.remove(archive)
        raise
