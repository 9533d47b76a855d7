"""The registry (list_models / get_model / get_model_weights / get_weight) and the weights enums
against torchvision 0.14's: same builder names, same members, URLs, class counts and defaults."""

import pytest

import tensorcore.nn as nn
from tensorcore.vision import models

from vmodels_parity import skip_random_init


def test_registry_lists_every_builder():
    names = models.list_models()
    assert len(names) == 25 and names == sorted(names)
    assert models.list_models(models.segmentation) == [
        "deeplabv3_resnet101",
        "deeplabv3_resnet50",
        "fcn_resnet101",
        "fcn_resnet50",
    ]
    for name in names:
        assert getattr(models, name, None) is models.get_model_builder(name) or getattr(
            models.segmentation, name
        ) is models.get_model_builder(name)


def test_get_model_and_weights():
    with skip_random_init():
        model = models.get_model("resnet18", num_classes=3)
    assert isinstance(model.fc, nn.Linear) and model.fc.out_features == 3
    assert models.get_model_weights("resnet50") is models.ResNet50_Weights
    assert models.get_model_weights(models.vgg11_bn) is models.VGG11_BN_Weights
    assert models.get_weight("ResNet50_Weights.DEFAULT") is models.ResNet50_Weights.IMAGENET1K_V2
    with pytest.raises(ValueError, match="Unknown model"):
        models.get_model("resnet7")
    with pytest.raises(ValueError, match="not a member of ResNet50_Weights"):
        models.get_weight("ResNet50_Weights.IMAGENET9K")
    with pytest.raises(ValueError, match="Invalid weight name"):
        models.get_weight("IMAGENET1K_V1")


def test_enums_match_torchvision():
    tv = pytest.importorskip("torchvision")
    for name in models.list_models():
        ours = models.get_model_weights(name)
        theirs = tv.models.get_model_weights(name)
        assert ours.__name__ == theirs.__name__
        assert list(ours.__members__) == list(theirs.__members__), name
        for member_name, member in ours.__members__.items():
            ref = theirs[member_name]
            assert member.url == ref.url, (name, member_name)
            categories = ref.meta["categories"]
            assert member.num_classes == (None if categories is None else len(categories))
        assert ours.DEFAULT.name == theirs.DEFAULT.name
