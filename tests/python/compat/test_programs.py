"""A corpus of programs in the style of PyTorch's examples (tests/python/compat/programs/), each
run for a few iterations as written for PyTorch with its imports pointed at tensorcore, and
compared with the same program on torch 1.13 (issue 25, "done means")."""

import numpy as np
import pytest

import compat_programs as cp


def _initial_weights(torch, name, make_model, tmp_path):
    """The torch program's model saved by torch.save: both runs start from it (--resume)."""
    theirs = cp.load(name, ported=False)
    torch.manual_seed(0)
    model = make_model(theirs)
    path = str(tmp_path / f"{name}_init.pt")
    torch.save(model.state_dict(), path)
    return path


def _both(name, argv):
    ours, out = cp.run(name, argv, ported=True)
    theirs, their_out = cp.run(name, argv, ported=False)
    return ours, theirs, out, their_out


def test_port_changes_only_imports():
    src = "import torch\nimport torch.nn as nn\nfrom torchvision import transforms\nx = 'torch'\n"
    assert cp.port_imports(src) == (
        "import tensorcore as torch\nimport tensorcore.nn as nn\n"
        "from tensorcore.vision import transforms\nx = 'torch'\n"
    )
    assert cp.port_imports("import torch.utils.data\n") == (
        "import tensorcore.utils.data, tensorcore as torch\n"
    )


def test_time_sequence_prediction_lbfgs(tmp_path, torch_ref):
    init = _initial_weights(
        torch_ref, "time_sequence_prediction", lambda ns: ns["Sequence"](12).double(), tmp_path
    )
    argv = ["--steps", "2", "--samples", "6", "--length", "24", "--hidden", "12", "--resume", init]
    ours, theirs, out, _ = _both("time_sequence_prediction", argv)
    assert "step 1: loss" in out
    np.testing.assert_allclose(ours["history"], theirs["history"], rtol=1e-6)
    assert ours["history"][-1][0] < ours["history"][0][0]


def _write_mnist(folder, n_train, n_test):
    import gzip  # noqa: F401  (the IDX files are written uncompressed, as after download)
    import os

    rng = np.random.default_rng(0)
    os.makedirs(folder, exist_ok=True)

    def idx(array):
        header = bytes([0, 0, 8, array.ndim]) + b"".join(
            int(n).to_bytes(4, "big") for n in array.shape
        )
        return header + array.tobytes()

    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, n).astype(np.uint8)
        # Digit-like images: a class-dependent bar pattern plus noise, so training can learn.
        images = rng.integers(0, 60, (n, 28, 28)).astype(np.uint8)
        for i, y in enumerate(labels):
            images[i, 4 + 2 * y : 7 + 2 * y, 4:24] = 250
        with open(os.path.join(folder, f"{prefix}-images-idx3-ubyte"), "wb") as f:
            f.write(idx(images))
        with open(os.path.join(folder, f"{prefix}-labels-idx1-ubyte"), "wb") as f:
            f.write(idx(labels))


def test_mnist_cnn(tmp_path, torch_ref):
    _write_mnist(tmp_path / "MNIST" / "raw", 96, 40)
    init = _initial_weights(torch_ref, "mnist_cnn", lambda ns: ns["Net"](), tmp_path)
    argv = [
        "--data",
        str(tmp_path),
        "--batch-size",
        "16",
        "--test-batch-size",
        "20",
        "--resume",
        init,
        "--save-model",
        str(tmp_path),
    ]
    ours, theirs, out, their_out = _both("mnist_cnn", argv)
    assert "Test set: Average loss" in out and "Train Epoch: 1 [32/96" in out
    # Same weights: the first test pass (eval mode, no dropout) is the same.
    ours_test, theirs_test = ours["history"][0], theirs["history"][0]
    np.testing.assert_allclose(ours_test[1], theirs_test[1], rtol=1e-5)
    assert ours_test[2] == theirs_test[2]
    # Training (dropout draws differ between the libraries) learns the bars in both.
    train = [h[1] for h in ours["history"] if h[0] == "train"]
    assert len(train) == 6 and train[-1] < train[0]
    final = ours["history"][-1]
    assert final[0] == "test" and final[2] >= theirs["history"][-1][2] - 8
    import tensorcore as tc

    saved = tc.load(tmp_path / "mnist_cnn.pt")  # whichever run saved last: torch's file
    assert set(saved) == set(ours["Net"]().state_dict())


def test_super_resolution(tmp_path, torch_ref):
    init = _initial_weights(torch_ref, "super_resolution", lambda ns: ns["Net"](3), tmp_path)
    argv = ["--data", str(tmp_path / "images"), "--resume", init, "--nEpochs", "2"]
    ours, theirs, out, _ = _both("super_resolution", argv)
    assert "Avg. PSNR" in out
    # Deterministic: PIL crops/resizes, no shuffling, same weights: the same losses.
    np.testing.assert_allclose(ours["history"], theirs["history"], rtol=2e-4)
    assert ours["history"][-1] < ours["history"][0]


@pytest.mark.parametrize("model", ["LSTM", "GRU", "Transformer"])
def test_word_language_model(model, tmp_path, torch_ref):
    data = tmp_path / "corpus"
    argv = ["--data", str(data), "--model", model, "--dropout", "0", "--tied"]
    theirs_ns = cp.load("word_language_model", ported=False)
    theirs_ns["make_corpus"](str(data))
    ntokens = len(theirs_ns["Corpus"](str(data)).dictionary)
    args = theirs_ns["argparse"].Namespace(
        model=model, emsize=16, nhid=16, nlayers=2, dropout=0.0, tied=True, nhead=2
    )
    init = _initial_weights(
        torch_ref, "word_language_model", lambda ns: ns["build_model"](args, ntokens), tmp_path
    )
    ours, theirs, out, _ = _both("word_language_model", argv + ["--resume", init])
    assert "valid ppl" in out
    # No dropout, same weights, same data order: the same losses step by step.
    np.testing.assert_allclose(ours["history"], theirs["history"], rtol=2e-4)
    assert np.isfinite(ours["history"]).all() and len(ours["history"]) > 5


def test_vae(tmp_path, torch_ref):
    _write_mnist(tmp_path / "MNIST" / "raw", 64, 8)
    argv = ["--data", str(tmp_path), "--out", str(tmp_path / "out"), "--epochs", "3"]
    ours, theirs, out, _ = _both("vae", argv)
    assert "====> Epoch: 3 Average loss" in out
    # Random noise differs between the libraries: same scale of loss, and both improve.
    ours_h, theirs_h = ours["history"], theirs["history"]
    assert ours_h[-1] < ours_h[0] and theirs_h[-1] < theirs_h[0]
    np.testing.assert_allclose(ours_h, theirs_h, rtol=0.1)
    from PIL import Image

    assert Image.open(tmp_path / "out" / "sample_3.png").size == (242, 62)  # 16 in rows of 8
    assert Image.open(tmp_path / "out" / "reconstruction_3.png").size == (122, 62)


def test_dcgan(tmp_path, torch_ref):
    argv = ["--outf", str(tmp_path), "--niter", "2", "--samples", "24"]
    ours, out = cp.run("dcgan", argv, ported=True)
    assert "[1/2][2/3] Loss_D" in out
    d_losses = [d for d, _ in ours["history"]]
    assert len(d_losses) == 6 and np.isfinite(ours["history"]).all()
    # The checkpoint (tc.save's default format, safetensors) loads into torch's Generator.
    import tensorcore as tc

    state = tc.load(tmp_path / "netG_epoch_1.pth")
    theirs = cp.load("dcgan", ported=False)
    net = theirs["Generator"](8, 8, 3)
    net.load_state_dict({k: torch_ref.from_numpy(v.numpy()) for k, v in state.items()})
    from PIL import Image

    assert Image.open(tmp_path / "fake_samples_epoch_001.png").size == (146, 20)  # 8 in a row


def test_audio_features(tmp_path, torch_ref):
    pytest.importorskip("torchaudio")
    ours_ns, out = cp.run("audio_features", ["--out", str(tmp_path / "a")], ported=True)
    theirs_ns = cp.load("audio_features", ported=False)
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        theirs = theirs_ns["main"](["--out", str(tmp_path / "b")])
    ours = ours_ns["main"](["--out", str(tmp_path / "c")])
    assert "loaded (1, 16000) at 16000 Hz, 16000 frames" in out
    tolerances = {
        "resampled": 1e-5,
        "upsampled": 1e-5,
        "spec": 1e-4,
        "mel_db": 1e-3,
        "mfcc": 1e-3,
        "deltas": 1e-3,
    }
    for name, atol in tolerances.items():
        a, b = ours[name].numpy(), theirs[name].numpy()
        assert a.shape == b.shape, name
        scale = max(1.0, float(np.abs(b).max()))
        np.testing.assert_allclose(a, b, atol=atol * scale, rtol=1e-4, err_msg=name)
    assert ours_ns["history"][-1] < ours_ns["history"][0]
