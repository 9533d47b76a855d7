import shutil
import subprocess

import pytest

try:  # import torchaudio first: it initializes the libsox both libraries share (see docs/audio.md)
    import torchaudio  # noqa: F401
except Exception:  # pragma: no cover - reference absent
    torchaudio = None


@pytest.fixture
def ta_ref(torch_ref):
    if torchaudio is None:
        pytest.skip("torchaudio reference not installed (apt install python3-torchaudio)")
    return torchaudio


def run_sox(*args):
    if shutil.which("sox") is None:
        pytest.skip("sox CLI not installed")
    subprocess.run(["sox", *map(str, args)], check=True, capture_output=True)


@pytest.fixture(scope="session")
def audio_dir(tmp_path_factory):
    """Test files made with the sox CLI (synthetic tones) and espeak-ng (speech)."""
    if shutil.which("sox") is None:
        pytest.skip("sox CLI not installed")
    d = tmp_path_factory.mktemp("audio")
    src = d / "src.wav"
    # Two channels, non-trivial content: a chirp and pink noise, 1.3 s at 16 kHz, 24-bit master.
    run_sox(
        "-n",
        "-r",
        16000,
        "-c",
        2,
        "-b",
        24,
        src,
        "synth",
        "1.3",
        "sine",
        "200-3000",
        "pinknoise",
        "gain",
        "-6",
    )
    files = {}
    for name, opts in {
        "pcm_u8.wav": ["-b", "8", "-e", "unsigned-integer"],
        "pcm_s16.wav": ["-b", "16", "-e", "signed-integer"],
        "pcm_s24.wav": ["-b", "24", "-e", "signed-integer"],
        "pcm_s32.wav": ["-b", "32", "-e", "signed-integer"],
        "pcm_f32.wav": ["-b", "32", "-e", "floating-point"],
        "pcm_f64.wav": ["-b", "64", "-e", "floating-point"],
        "ulaw.wav": ["-e", "u-law"],
        "alaw.wav": ["-e", "a-law"],
        "s16.flac": ["-b", "16"],
        "s24.flac": ["-b", "24"],
        "t.mp3": [],
        "t.ogg": [],
        "s16.sph": ["-b", "16"],
    }.items():
        run_sox(src, *opts, d / name)
        files[name] = d / name
    run_sox(src, "-r", 8000, "-c", 1, d / "t.amr-nb")
    files["t.amr-nb"] = d / "t.amr-nb"
    if shutil.which("espeak-ng"):
        speech = d / "speech.wav"
        subprocess.run(
            ["espeak-ng", "-w", str(speech), "tensorcore reads audio files"],
            check=True,
            capture_output=True,
        )
        files["speech.wav"] = speech
    files["src.wav"] = src
    return files
