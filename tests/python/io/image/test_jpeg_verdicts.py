"""Damaged JPEGs get the verdict of libjpeg-turbo's djpeg, PIL and torchvision (issue 24.4).

Damage after the last scan (an unknown marker where EOI belongs, a missing EOI) is found only
when the decoder finishes; a decoder that stops after the last row returns pixels for files
the references reject. Files are made by PIL and cjpeg, then damaged near the end and in the
scan data; wherever PIL and torchvision agree (djpeg too, when it is installed), ours must.
"""

import io
import shutil
import subprocess

import numpy as np
import pytest

import media
from media import to_tc

import tensorcore as tc
from tensorcore.vision.io import decode_jpeg

Image = pytest.importorskip("PIL.Image")


def _sources(tmp_path):
    out = {}
    img = Image.fromarray(media.photo(40, 56))
    for name, kw in {"baseline": {}, "progressive": {"progressive": True}}.items():
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=90, **kw)
        out[name] = buf.getvalue()
    if shutil.which("cjpeg"):
        ppm = tmp_path / "src.ppm"
        img.save(ppm)
        for name, args in {
            "cjpeg_restart": ["-restart", "2"],
            "cjpeg_arith": ["-arithmetic"],
        }.items():
            proc = subprocess.run(["cjpeg", *args, str(ppm)], capture_output=True)
            if proc.returncode == 0:
                out[name] = proc.stdout
    return out


def _mutations(data):
    """(label, bytes): damage after the scan data and inside it."""
    assert data[-2:] == b"\xff\xd9"
    body = data[:-2]
    out = [(f"EOI->FF{m:02X}", body + bytes([0xFF, m])) for m in (0x02, 0x4F, 0xC8, 0xF0, 0x99)]
    out.append(("no EOI", body))
    out.append(("EOI + garbage", data + b"\x00garbage"))
    out.append(("unknown marker before EOI", body + b"\xff\x02\xff\xd9"))
    rng = np.random.RandomState(24)
    for k in range(12):
        b = bytearray(data)
        pos = len(b) - 2 - int(rng.randint(1, 40))
        b[pos] ^= 1 << int(rng.randint(0, 8))
        out.append((f"flip at end-{len(data) - pos}", bytes(b)))
    return out


def _pil_accepts(data):
    try:
        Image.open(io.BytesIO(data)).load()
        return True
    except Exception:
        return False


def _tv_accepts(tv_io, data):
    import torch

    try:
        tv_io.decode_jpeg(torch.frombuffer(bytearray(data), dtype=torch.uint8))
        return True
    except RuntimeError:
        return False


def _djpeg_accepts(path):
    # Exit status 1: error; 2: warnings only, with the image written.
    return subprocess.run(["djpeg", str(path)], capture_output=True).returncode != 1


def _ours_accepts(data):
    try:
        decode_jpeg(to_tc(data))
        return True
    except tc.DecodeError:
        return False


def test_verdicts_match_references(tmp_path, tv_io):
    have_djpeg = shutil.which("djpeg") is not None
    rejected_by_all = 0
    checked = 0
    disagreements = []
    for src, data in _sources(tmp_path).items():
        assert _ours_accepts(data), src
        for label, bad in _mutations(data):
            pil, tv = _pil_accepts(bad), _tv_accepts(tv_io, bad)
            if pil != tv:
                continue  # the references disagree: no verdict to follow
            path = tmp_path / "bad.jpg"
            path.write_bytes(bad)
            dj = _djpeg_accepts(path) if have_djpeg else pil
            ours = _ours_accepts(bad)
            checked += 1
            if not pil and not dj:
                rejected_by_all += 1
            if dj == pil and ours != pil:
                disagreements.append(f"{src} / {label}: references {'accept' if pil else 'reject'}")
            elif dj != pil and ours != pil:
                # djpeg only warns (a missing EOI): PIL and torchvision decide.
                disagreements.append(f"{src} / {label}: PIL and torchvision {pil}, ours {ours}")
    assert checked > 30
    assert rejected_by_all >= 8  # the unknown markers after the scan, at least
    assert not disagreements, "\n".join(disagreements)


def test_unknown_marker_after_scan_names_it(tmp_path):
    buf = io.BytesIO()
    Image.fromarray(media.photo(16, 24)).save(buf, "JPEG")
    bad = buf.getvalue()[:-2] + b"\xff\x02"
    with pytest.raises(tc.DecodeError, match="decode_jpeg: corrupt or unsupported JPEG: .*marker"):
        decode_jpeg(to_tc(bad))
    # A missing EOI is "Premature end of JPEG file", as libjpeg says it.
    with pytest.raises(tc.DecodeError, match="Premature end"):
        decode_jpeg(to_tc(buf.getvalue()[:-2]))
