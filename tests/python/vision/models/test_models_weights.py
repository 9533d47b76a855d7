"""weights= / pretrained= handling: local files and state dicts load strictly, named torchvision
weights come from torch's checkpoint cache or fail saying what to download; strict-load errors
list missing/unexpected keys as torch does."""

import os

import pytest

import tensorcore as tc
import tensorcore.nn as nn
from tensorcore.vision import models

from vmodels_parity import skip_random_init


@pytest.fixture(autouse=True)
def _no_random_init():
    # These tests are about which numbers get loaded, not the random initialisation; the source
    # models get distinct deterministic values instead (faster than tc's normal_).
    with skip_random_init():
        yield


def _fill_distinct(model):
    with tc.no_grad():
        for i, t in enumerate(model.state_dict().values()):
            if t.is_floating_point():
                t.copy_(tc.arange(t.numel(), dtype=t.dtype).reshape(t.shape) * 1e-4 + i)
    return model


@pytest.fixture
def small_state(tmp_path):
    model = _fill_distinct(models.resnet18(num_classes=5))
    path = tmp_path / "r18.pth"
    tc.save(model.state_dict(), path, format="pt")
    return model, path


def _same_weights(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    return all(bool(tc.equal(sa[k], sb[k])) for k in sa)


def test_weights_path_loads(small_state):
    model, path = small_state
    for weights in (path, str(path)):
        loaded = models.resnet18(weights=weights, num_classes=5)
        assert _same_weights(loaded, model)
    # The legacy keyword and the 0.8 positional form take a path too.
    assert _same_weights(models.resnet18(pretrained=str(path), num_classes=5), model)
    assert _same_weights(models.resnet18(str(path), num_classes=5), model)


def test_weights_state_dict_and_safetensors(small_state, tmp_path):
    model, _ = small_state
    assert _same_weights(models.resnet18(weights=model.state_dict(), num_classes=5), model)
    path = tmp_path / "r18.safetensors"
    tc.save(model.state_dict(), path)
    assert _same_weights(models.resnet18(weights=path, num_classes=5), model)
    # A training checkpoint that nests the weights under "state_dict".
    path = tmp_path / "ckpt.pth"
    tc.save({"epoch": 3, "state_dict": model.state_dict()}, path, format="pt")
    assert _same_weights(models.resnet18(weights=path, num_classes=5), model)


def test_torch_saved_file_loads(torch_ref, tmp_path):
    tv = pytest.importorskip("torchvision")
    torch_ref.manual_seed(0)
    tmodel = tv.models.resnet18(num_classes=3)
    path = tmp_path / "torch.pth"
    torch_ref.save(tmodel.state_dict(), path)
    model = models.resnet18(weights=path, num_classes=3)
    ref = tmodel.state_dict()
    for k, v in model.state_dict().items():
        assert (v.numpy() == ref[k].numpy()).all(), k


def test_legacy_torch_format_is_named(torch_ref, tmp_path):
    path = tmp_path / "legacy.pth"
    torch_ref.save({"fc.bias": torch_ref.zeros(2)}, path, _use_new_zipfile_serialization=False)
    with pytest.raises(
        RuntimeError, match="legacy \\(pre-1.6\\) serialization format.*torch.save\\(torch.load"
    ):
        models.resnet18(weights=path)


def test_strict_load_lists_missing_and_unexpected_keys(small_state, tmp_path):
    model, _ = small_state
    state = dict(model.state_dict())
    del state["fc.bias"]
    state["fc.extra"] = tc.zeros(1)
    path = tmp_path / "bad.pth"
    tc.save(state, path, format="pt")
    with pytest.raises(RuntimeError) as info:
        models.resnet18(weights=path, num_classes=5)
    msg = str(info.value)
    assert 'Missing key(s) in state_dict: "fc.bias".' in msg
    assert 'Unexpected key(s) in state_dict: "fc.extra".' in msg
    # A checkpoint for another head size names the mismatching shape.
    with pytest.raises(RuntimeError, match=r"size mismatch for fc.weight"):
        models.resnet18(weights=model.state_dict(), num_classes=7)


def test_named_weights_without_the_file_say_what_to_download(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    cache = os.path.join(str(tmp_path / "torch_home"), "hub", "checkpoints")
    # pretrained=True means the V1 weights, as torchvision's legacy handling; DEFAULT is V2.
    for kwargs, filename in (
        ({"weights": models.ResNet50_Weights.IMAGENET1K_V2}, "resnet50-11ad3fa6.pth"),
        ({"weights": "IMAGENET1K_V2"}, "resnet50-11ad3fa6.pth"),
        ({"weights": "ResNet50_Weights.DEFAULT"}, "resnet50-11ad3fa6.pth"),
        ({"pretrained": True}, "resnet50-0676ba61.pth"),
        ({"weights": True}, "resnet50-0676ba61.pth"),
    ):
        with pytest.raises(FileNotFoundError) as info:
            models.resnet50(**kwargs)
        msg = str(info.value)
        assert f"'{filename}'" in msg
        assert f"https://download.pytorch.org/models/{filename}" in msg
        assert cache in msg and "weights=" in msg
    assert models.ResNet50_Weights.DEFAULT is models.ResNet50_Weights.IMAGENET1K_V2
    assert repr(models.ResNet50_Weights.IMAGENET1K_V1) == "ResNet50_Weights.IMAGENET1K_V1"


def test_named_weights_from_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    cache = tmp_path / "hub" / "checkpoints"
    cache.mkdir(parents=True)
    model = _fill_distinct(models.resnet18())
    tc.save(model.state_dict(), cache / "resnet18-f37072fd.pth", format="pt")
    loaded = models.resnet18(weights=models.ResNet18_Weights.IMAGENET1K_V1)
    assert _same_weights(loaded, model)
    # Named ImageNet weights fix num_classes; a conflicting value is an error, as in torchvision.
    with pytest.raises(ValueError, match="'num_classes' expected value 1000 but got 10"):
        models.resnet18(weights="DEFAULT", num_classes=10)


def test_torchvision_enum_member_is_accepted(torch_ref, monkeypatch, tmp_path):
    tv = pytest.importorskip("torchvision")
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="resnet18-f37072fd.pth"):
        models.resnet18(weights=tv.models.ResNet18_Weights.IMAGENET1K_V1)
    with pytest.raises(TypeError, match="expected ResNet18_Weights"):
        models.resnet18(weights=tv.models.ResNet50_Weights.IMAGENET1K_V1)


def test_bad_weights_arguments(small_state, tmp_path):
    _, path = small_state
    with pytest.raises(ValueError, match="either 'weights' or 'pretrained'"):
        models.resnet18(weights=path, pretrained=True)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        models.resnet18(weights=str(tmp_path / "missing.pth"))
    with pytest.raises(
        ValueError, match="unknown weights 'IMAGENET9K'.*ResNet18_Weights.IMAGENET1K_V1"
    ):
        models.resnet18(weights="IMAGENET9K")
    with pytest.raises(TypeError, match="must be None, a file path, a state dict"):
        models.resnet18(weights=3.5)
    garbage = tmp_path / "garbage.pth"
    garbage.write_bytes(b"not a checkpoint at all")
    with pytest.raises(RuntimeError, match="could not read the weights file"):
        models.resnet18(weights=garbage)
    tensor_file = tmp_path / "tensor.pth"
    tc.save([tc.zeros(2)], tensor_file, format="pt")
    with pytest.raises(TypeError, match="not a state dict"):
        models.resnet18(weights=tensor_file)


def test_pretrained_false_and_none_are_random_init():
    assert isinstance(models.resnet18(pretrained=False).fc, nn.Linear)
    assert isinstance(models.resnet18(weights=None, progress=False).fc, nn.Linear)
