"""Deployment: a classifier traced with its image decode and transforms (examples/
jit_export_classifier.py) gives the same top-3 lines from Python and from a plain C++ program
(examples/jit_classify.cpp) that is compiled here against the build tree and links only
libtensorcore (the decode and vision ops come from the libraries beside it)."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from jit_testing import assert_close, write_images

import tensorcore as tc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LIB = os.path.join(ROOT, "build", "lib")
sys.path.insert(0, os.path.join(ROOT, "examples"))


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_traced_pipeline_matches_eager_on_other_images(tmp_path):
    from jit_export_classifier import Classifier
    from tensorcore.vision.io import read_file

    jpg, png = write_images(tmp_path)
    model = Classifier().eval()
    traced = tc.jit.trace(model, read_file(str(jpg)))
    assert "_C._vision.apply_pipeline" in traced.ops
    assert "_C._image_io.decode_image" in traced.ops
    for image in (jpg, png):  # png: another size and codec than the example
        data = read_file(str(image))
        with tc.no_grad():
            assert_close(traced(data), model(data))


needs_cxx = pytest.mark.skipif(
    not shutil.which("g++") or not os.path.isfile(os.path.join(LIB, "libtensorcore.so")),
    reason="needs g++ and the shared build tree (scripts/setup.sh)",
)


def build_example(name, tmp_path):
    exe = tmp_path / name
    run(
        [
            "g++",
            "-std=c++20",
            "-O1",
            f"-I{ROOT}",
            os.path.join(ROOT, "examples", f"{name}.cpp"),
            "-o",
            str(exe),
            f"-L{LIB}",
            "-Wl,--as-needed",
            "-ltensorcore",
            f"-Wl,-rpath,{LIB}",
        ]
    )
    return exe


def test_traced_retinanet_follows_image_size_and_detection_count(tmp_path):
    from jit_export_detector import Detector
    from tensorcore.vision.io import read_file

    from PIL import Image

    jpg, png = write_images(tmp_path)
    # A square image: its feature maps are not the example's (nor transposed), so head outputs
    # laid out with traced map sizes would fail or scramble here.
    square = tmp_path / "c.png"
    rng = np.random.default_rng(1)
    Image.fromarray(rng.integers(0, 255, (100, 100, 3), dtype=np.uint8)).save(square)
    model = Detector().eval()
    model.model.detections_per_img = 1000
    traced = tc.jit.trace(model, read_file(str(jpg)))
    assert "_C._models_vision.retinanet_postprocess" in traced.ops
    counts = set()
    for image in (jpg, png, square):
        data = read_file(str(image))
        with tc.no_grad():
            want = model(data)
        got = traced(data)
        assert set(got) == {"boxes", "scores", "labels"}
        for key in want:
            assert got[key].shape == want[key].shape
            assert_close(got[key], want[key])
        counts.add(want["boxes"].shape[0])
    assert len(counts) >= 2  # the images give different numbers of detections


@needs_cxx
def test_cpp_detector_prints_what_python_prints(tmp_path):
    jpg, png = write_images(tmp_path)
    exe = build_example("jit_detect", tmp_path)
    model = tmp_path / "detector.tcj"
    script = os.path.join(ROOT, "examples", "jit_export_detector.py")
    python_out = run([sys.executable, script, str(model), str(jpg), str(png)])
    cpp_out = run([str(exe), str(model), str(jpg), str(png)])
    assert python_out.splitlines() == cpp_out.splitlines()
    assert "detections" in cpp_out


@needs_cxx
def test_cpp_program_prints_what_python_prints(tmp_path):
    jpg, png = write_images(tmp_path)
    exe = build_example("jit_classify", tmp_path)
    model = tmp_path / "classifier.tcj"
    python_out = run(
        [
            sys.executable,
            os.path.join(ROOT, "examples", "jit_export_classifier.py"),
            str(model),
            str(jpg),
            str(png),
        ]
    )
    cpp_out = run(
        [str(exe), str(model), str(jpg), str(png)], env=dict(os.environ, LD_LIBRARY_PATH="")
    )
    assert "libtensorcore_vision" not in run(["ldd", str(exe)])
    assert python_out.splitlines() == cpp_out.splitlines() and len(cpp_out.splitlines()) == 2
    # A damaged file is a clear error from C++ too, never a crash.
    model.write_bytes(model.read_bytes()[:1000])
    proc = subprocess.run([str(exe), str(model), str(jpg)], capture_output=True, text=True)
    assert proc.returncode == 1 and "truncated or damaged" in proc.stderr


def write_audio(tmp_path):
    if not shutil.which("sox"):
        pytest.skip("needs the sox command to write test audio")
    speech, mix = tmp_path / "speech.flac", tmp_path / "mix.wav"
    run(
        [
            "sox",
            "-n",
            "-r",
            "16000",
            "-c",
            "1",
            str(speech),
            "synth",
            "1.2",
            "sine",
            "300",
            "sine",
            "700",
        ]
    )
    run(["sox", "-n", "-r", "8000", "-c", "1", str(mix), "synth", "0.5", "sine", "440"])
    return speech, mix


def test_traced_audio_models_match_eager(tmp_path):
    from jit_export_audio import Recognizer, Separator
    from tensorcore.vision.io import read_file

    speech, mix = write_audio(tmp_path)
    # Both follow any length: ConvTasNet's padding to its encoder stride is a native node.
    for model, files in ((Recognizer(), (speech, mix)), (Separator(), (mix, speech))):
        model.eval()
        traced = tc.jit.trace(model, read_file(str(files[0])))
        for f in files:
            data = read_file(str(f))
            with tc.no_grad():
                assert_close(traced(data), model(data), tol=1e-4)


@needs_cxx
def test_cpp_audio_programs_match_python(tmp_path):
    speech, mix = write_audio(tmp_path)
    exe = tmp_path / "jit_audio"
    run(
        [
            "g++",
            "-std=c++20",
            "-O1",
            f"-I{ROOT}",
            os.path.join(ROOT, "examples", "jit_audio.cpp"),
            "-o",
            str(exe),
            f"-L{LIB}",
            "-ltensorcore",
            "-ltensorcore_io",
            f"-Wl,-rpath,{LIB}",
        ]
    )
    script = os.path.join(ROOT, "examples", "jit_export_audio.py")
    asr = tmp_path / "asr.tcj"
    py = run([sys.executable, script, "asr", str(asr), str(speech)])
    cpp = run([str(exe), "asr", str(asr), str(speech)])
    assert py.strip().splitlines()[-1] == cpp.strip()
    sep = tmp_path / "sep.tcj"
    run([sys.executable, script, "separate", str(sep), str(mix), str(tmp_path)])
    run([str(exe), "separate", str(sep), str(mix), str(tmp_path)])
    for k in range(2):
        assert (tmp_path / f"py_s{k}.wav").read_bytes() == (tmp_path / f"cpp_s{k}.wav").read_bytes()
    # The file traced on `mix` separates the longer `speech` from C++ as Python does (the
    # padding to the encoder stride is computed at run time).
    other = tmp_path / "other"
    other.mkdir()
    run([sys.executable, script, "separate", str(tmp_path / "sep2.tcj"), str(speech), str(other)])
    run([str(exe), "separate", str(sep), str(speech), str(other)])
    for k in range(2):
        assert (other / f"py_s{k}.wav").read_bytes() == (other / f"cpp_s{k}.wav").read_bytes()
