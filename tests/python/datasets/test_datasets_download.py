"""download_url / extract_archive / download=True against a real HTTP server on 127.0.0.1
(http.server in a thread, with Range support and a switch that cuts a transfer short)."""

import hashlib
import io
import os
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from tensorcore.utils._download import download_and_extract_archive, download_url, extract_archive


class _Files:
    def __init__(self):
        self.content = {}  # path -> bytes
        self.cut_after = {}  # path -> bytes to send before dropping the connection (once each)
        self.no_range = set()  # paths served without Range support
        self.requests = []  # (path, Range header)


def _handler(files):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            files.requests.append((self.path, self.headers.get("Range")))
            data = files.content.get(self.path)
            if data is None:
                self.send_error(404, "Not Found")
                return
            start = 0
            rng = self.headers.get("Range")
            if rng and self.path not in files.no_range:
                start = int(rng.split("=")[1].split("-")[0])
                if start >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            else:
                self.send_response(200)
            body = data[start:]
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            cut = files.cut_after.pop(self.path, None)
            if cut is not None:
                self.wfile.write(body[:cut])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

    return Handler


@pytest.fixture
def server():
    files = _Files()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(files))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    files.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield files
    finally:
        httpd.shutdown()
        httpd.server_close()


def _tar_gz(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _payload(n=300_000, seed=0):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8).tobytes()


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def _leftovers(folder):
    return [n for n in os.listdir(folder) if n.startswith(".extract-") or n.endswith(".part")]


def test_good_archive_is_fetched_verified_and_extracted(server, tmp_path):
    archive = _tar_gz({"corpus/a.txt": b"alpha", "corpus/sub/b.bin": _payload(50_000)})
    server.content["/data/corpus.tar.gz"] = archive
    out = download_and_extract_archive(
        server.url + "/data/corpus.tar.gz", tmp_path, checksum=_sha(archive), progress=False
    )
    assert out == str(tmp_path)
    assert (tmp_path / "corpus" / "a.txt").read_bytes() == b"alpha"
    assert (tmp_path / "corpus" / "sub" / "b.bin").read_bytes() == _payload(50_000)
    assert (tmp_path / "corpus.tar.gz").read_bytes() == archive
    assert _leftovers(tmp_path) == []
    # a second call finds the verified file and does not fetch again
    n = len(server.requests)
    download_url(
        server.url + "/data/corpus.tar.gz", tmp_path, checksum=_sha(archive), progress=False
    )
    assert len(server.requests) == n


def test_checksum_mismatch_refetches_then_fails_leaving_nothing(server, tmp_path):
    archive = _tar_gz({"corpus/a.txt": b"alpha"})
    server.content["/c.tar.gz"] = archive
    with pytest.raises(RuntimeError, match=r"checksum mismatch for .*/c.tar.gz"):
        download_and_extract_archive(
            server.url + "/c.tar.gz", tmp_path, checksum="0" * 64, progress=False
        )
    assert os.listdir(tmp_path) == []  # no archive, no partial file, nothing extracted
    assert [p for p, _ in server.requests] == ["/c.tar.gz", "/c.tar.gz"]  # one re-fetch


def test_stale_partial_file_is_replaced_by_a_fresh_fetch(server, tmp_path):
    data = _payload()
    server.content["/f.bin"] = data
    (tmp_path / "f.bin.part").write_bytes(_payload(1000, seed=9))  # from another version
    path = download_url(server.url + "/f.bin", tmp_path, checksum=_sha(data), progress=False)
    assert open(path, "rb").read() == data
    # first the resume of the stale bytes (wrong checksum), then a fresh full fetch
    assert server.requests[0][1] == "bytes=1000-" and server.requests[-1][1] is None


def test_interrupted_transfer_resumes_with_range(server, tmp_path):
    data = _payload()
    server.content["/big.bin"] = data
    server.cut_after["/big.bin"] = 100_000
    path = download_url(server.url + "/big.bin", tmp_path, checksum=_sha(data), progress=False)
    assert open(path, "rb").read() == data
    assert server.requests[0][1] is None
    assert server.requests[1][1] == "bytes=100000-"
    assert _leftovers(tmp_path) == []


def test_resume_of_a_partial_file_left_by_an_earlier_run(server, tmp_path):
    data = _payload()
    server.content["/big.bin"] = data
    (tmp_path / "big.bin.part").write_bytes(data[:123_456])
    path = download_url(server.url + "/big.bin", tmp_path, checksum=_sha(data), progress=False)
    assert open(path, "rb").read() == data
    assert server.requests == [("/big.bin", "bytes=123456-")]


def test_server_without_range_support_restarts_from_zero(server, tmp_path):
    data = _payload()
    server.content["/nr.bin"] = data
    server.no_range.add("/nr.bin")
    server.cut_after["/nr.bin"] = 70_000
    path = download_url(server.url + "/nr.bin", tmp_path, checksum=_sha(data), progress=False)
    assert open(path, "rb").read() == data


def test_repeated_interruptions_give_a_clear_error_and_keep_the_partial_file(server, tmp_path):
    data = _payload()
    server.content["/flaky.bin"] = data

    class Cuts(dict):  # cut every transfer after 1000 bytes
        def pop(self, key, default=None):
            return 1000

    server.cut_after = Cuts()
    with pytest.raises(RuntimeError, match=r"flaky.bin .*(interrupted|stopped)"):
        download_url(server.url + "/flaky.bin", tmp_path, max_retries=2, progress=False)
    assert (tmp_path / "flaky.bin.part").exists() and not (tmp_path / "flaky.bin").exists()


def test_http_error_is_reported(server, tmp_path):
    with pytest.raises(RuntimeError, match=r"/missing.tar.gz failed: HTTP 404"):
        download_url(server.url + "/missing.tar.gz", tmp_path, progress=False)
    assert os.listdir(tmp_path) == []


def test_truncated_archive_extracts_nothing(server, tmp_path):
    archive = _tar_gz({"corpus/a.bin": _payload(200_000), "corpus/b.bin": _payload(200_000, 1)})
    server.content["/t.tar.gz"] = archive[: len(archive) * 2 // 3]  # corrupt upstream file
    with pytest.raises(RuntimeError, match=r"t.tar.gz is corrupt or truncated"):
        download_and_extract_archive(server.url + "/t.tar.gz", tmp_path, progress=False)
    assert os.listdir(tmp_path) == []  # the unusable archive is dropped too


def test_extract_refuses_paths_outside_the_destination(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        info = tarfile.TarInfo("../evil.txt")
        info.size = 1
        tf.addfile(info, io.BytesIO(b"x"))
    (tmp_path / "evil.tar").write_bytes(buf.getvalue())
    dest = tmp_path / "dest"
    with pytest.raises(RuntimeError, match="outside the destination"):
        extract_archive(tmp_path / "evil.tar", dest)
    assert not (tmp_path / "evil.txt").exists() and os.listdir(dest) == []


def test_dataset_download_true(server, tmp_path, librispeech_root):
    """LIBRISPEECH(download=True) from a mirror URL: fetch, extract, then read."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        tf.add(
            os.path.join(librispeech_root, "LibriSpeech", "dev-clean"),
            arcname="LibriSpeech/dev-clean",
        )
    server.content["/mirror/dev-clean.tar.gz"] = buf.getvalue()
    from tensorcore.audio.datasets import LIBRISPEECH

    ds = LIBRISPEECH(tmp_path, server.url + "/mirror/dev-clean.tar.gz", download=True)
    ref = LIBRISPEECH(librispeech_root, "dev-clean")
    assert len(ds) == len(ref) and ds.get_metadata(0) == ref.get_metadata(0)
    assert (tmp_path / "dev-clean.tar.gz").exists()
    n = len(server.requests)
    LIBRISPEECH(tmp_path, server.url + "/mirror/dev-clean.tar.gz", download=True)
    assert len(server.requests) == n  # already there: nothing fetched


def test_unreachable_server_gives_a_clear_error(tmp_path):
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with pytest.raises(RuntimeError, match=r"failed after 2 attempts"):
        download_url(f"http://127.0.0.1:{port}/x.tar.gz", tmp_path, max_retries=1, progress=False)
    assert os.listdir(tmp_path) == []
