"""Pretrained weights for tensorcore.vision.models without network access.

The builders take torchvision 0.8's keywords (``pretrained=True``, ``pretrained_backbone=True``)
and 0.13+'s (``weights=``, ``weights_backbone=``; default None here). A weights argument is one of:

- None / False: random initialisation;
- a path to a checkpoint file (torch.save's .pth or tc.save's file) or a state dict: loaded
  strictly with ``tc.load`` + ``load_state_dict`` (missing/unexpected keys are errors);
- a named weight (``ResNet50_Weights.IMAGENET1K_V2``, its name as a string, torchvision's own
  enum member, or ``pretrained=True``, which means the original V1 weights as in torchvision 0.13+'s
  legacy handling): these are torchvision's published files.
  Nothing is downloaded: the file is read from torch's checkpoint cache
  (``$TORCH_HOME/hub/checkpoints``, by default ``~/.cache/torch/hub/checkpoints``) when it is
  there, and otherwise a FileNotFoundError says which file to download from where, where to put
  it, and that its path can be passed as ``weights=`` instead.
"""

import enum
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Optional

import tensorcore as tc

__all__ = [
    "Weights",
    "WeightsEnum",
    "checkpoint_dir",
    "resolve_weights",
    "weights_state_dict",
    "load_weights",
    "overwrite_named_param",
    "overwrite_value_param",
    "make_weights_enum",
    "classifier_state_dict",
]


@dataclass(frozen=True, eq=False)
class Weights:
    """One published checkpoint: where torchvision downloads it from and how many classes it
    predicts (None for feature-only checkpoints)."""

    url: str
    num_classes: Optional[int]

    @property
    def filename(self):
        return self.url.rsplit("/", 1)[-1]


class WeightsEnum(enum.Enum):
    """Base class of the per-model enums (ResNet50_Weights, ...); members mirror torchvision's names,
    and DEFAULT aliases the member torchvision 0.14 picks for pretrained=True."""

    @property
    def url(self):
        return self.value.url

    @property
    def filename(self):
        return self.value.filename

    @property
    def num_classes(self):
        return self.value.num_classes

    @property
    def meta(self):
        return {"num_classes": self.value.num_classes, "url": self.value.url}

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    __str__ = __repr__

    @classmethod
    def from_name(cls, name):
        """A member from 'IMAGENET1K_V1', 'DEFAULT' or 'ResNet50_Weights.IMAGENET1K_V1'; None if unknown."""
        short = name[len(cls.__name__) + 1 :] if name.startswith(cls.__name__ + ".") else name
        return cls.__members__.get(short)

    def get_state_dict(self, progress=True):
        del progress  # nothing is downloaded
        path = os.path.join(checkpoint_dir(), self.filename)
        if not os.path.isfile(path):
            raise FileNotFoundError(
                f"{self!r} needs the file '{self.filename}', which is not downloaded (tensorcore does not "
                f"fetch weights). Download it from {self.url} and either put it in {checkpoint_dir()} "
                f"(torch's checkpoint cache, where torchvision would have saved it) or pass its path "
                f"as weights='/path/to/{self.filename}'."
            )
        return _load_file(path)


def checkpoint_dir():
    """torch.hub's checkpoint cache: $TORCH_HOME/hub/checkpoints (TORCH_HOME defaults to
    $XDG_CACHE_HOME/torch, i.e. ~/.cache/torch)."""
    torch_home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "torch"
    )
    return os.path.join(torch_home, "hub", "checkpoints")


def _is_legacy_torch_file(path):
    # torch.save before 1.6 (or with _use_new_zipfile_serialization=False) writes a bare pickle
    # stream (protocol 2) instead of a zip archive; tc.load reads only the zip format.
    with open(path, "rb") as f:
        return f.read(2) == b"\x80\x02"


def _load_file(path):
    try:
        state = tc.load(path, map_location="cpu")
    except Exception as e:
        if _is_legacy_torch_file(path):
            raise RuntimeError(
                f"the weights file '{path}' is in torch's legacy (pre-1.6) serialization format, which "
                f"tc.load does not read; convert it once with torch: "
                f"torch.save(torch.load('{path}'), 'converted.pth')"
            ) from e
        raise RuntimeError(f"could not read the weights file '{path}': {e}") from e
    return _as_state_dict(state, f"the weights file '{path}'")


def _as_state_dict(obj, what):
    # A full training checkpoint often nests the weights under one of these keys.
    if isinstance(obj, Mapping) and not any(isinstance(v, tc.Tensor) for v in obj.values()):
        for key in ("state_dict", "model"):
            if isinstance(obj.get(key), Mapping):
                return obj[key]
    if not isinstance(obj, Mapping):
        raise TypeError(
            f"{what} holds a {type(obj).__name__}, not a state dict (a mapping of names to tensors)"
        )
    return obj


def _looks_like_path(text):
    return (
        os.sep in text
        or "/" in text
        or text.endswith((".pth", ".pt", ".safetensors", ".bin", ".ckpt"))
    )


def resolve_weights(
    enum_cls,
    weights=None,
    pretrained=None,
    *,
    builder,
    weights_param="weights",
    pretrained_param="pretrained",
):
    """Merges `weights` and the legacy `pretrained` into one source: None, a member of enum_cls, a
    path string, or a state dict. `builder` names the model in error messages."""
    legacy_given = pretrained is not None and pretrained is not False
    weights_given = weights is not None and weights is not False
    if legacy_given and weights_given:
        raise ValueError(
            f"{builder}: pass either '{weights_param}' or '{pretrained_param}', not both"
        )
    source = pretrained if legacy_given else weights
    if source is None or source is False:
        return None
    if source is True:
        # pretrained=True (or a positional True from 0.8 code) meant the first published weights;
        # torchvision 0.13+ maps it to that member (IMAGENET1K_V1 ...), not to DEFAULT.
        if enum_cls is None:
            raise ValueError(
                f"{builder}: no pretrained weights are published for this model; pass a file path "
                f"or a state dict as '{weights_param}'"
            )
        return next(iter(enum_cls))
    if enum_cls is not None and isinstance(source, enum_cls):
        return source
    if isinstance(source, enum.Enum):
        # torchvision's own enum member (or another model's): match it by class and member name.
        if (
            enum_cls is not None
            and type(source).__name__ == enum_cls.__name__
            and source.name in enum_cls.__members__
        ):
            return enum_cls[source.name]
        expected = enum_cls.__name__ if enum_cls is not None else "a file path or a state dict"
        raise TypeError(
            f"{builder}: invalid weights {source!r} for '{weights_param}'; expected {expected}"
        )
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if isinstance(source, bytes):
        source = os.fsdecode(source)
    if isinstance(source, str):
        if os.path.isfile(source):
            return source
        member = enum_cls.from_name(source) if enum_cls is not None else None
        if member is not None:
            return member
        if _looks_like_path(source) or enum_cls is None:
            raise FileNotFoundError(f"{builder}: weights file '{source}' does not exist")
        names = ", ".join(f"{enum_cls.__name__}.{n}" for n in enum_cls.__members__)
        raise ValueError(
            f"{builder}: unknown weights '{source}' for '{weights_param}'; expected a file path, "
            f"a state dict or one of {names}"
        )
    if isinstance(source, Mapping):
        return source
    raise TypeError(
        f"{builder}: '{weights_param}' must be None, a file path, a state dict or a weights enum "
        f"member, got {type(source).__name__}"
    )


def weights_state_dict(source, progress=True):
    """The state dict a resolved source stands for (None stays None). Done before the model is
    built, so a missing file fails fast."""
    if source is None:
        return None
    if isinstance(source, WeightsEnum):
        return source.get_state_dict(progress)
    if isinstance(source, str):
        return _load_file(source)
    return _as_state_dict(source, "the weights argument")


def load_weights(model, state_dict):
    """Strict load: every key must match (torch's missing/unexpected key message otherwise)."""
    if state_dict is not None:
        model.load_state_dict(state_dict, strict=True)
    return model


def overwrite_named_param(kwargs, param, new_value):
    """Named weights fix a constructor argument (num_classes); a conflicting explicit value is an error."""
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(
                f"The parameter '{param}' expected value {new_value} but got {kwargs[param]} instead."
            )
    else:
        kwargs[param] = new_value


def overwrite_value_param(param, actual, expected):
    if actual is not None and actual != expected:
        raise ValueError(
            f"The parameter '{param}' expected value {expected} but got {actual} instead."
        )
    return expected


def make_weights_enum(name, entries, default):
    """A WeightsEnum subclass: entries maps member names to (url, num_classes); DEFAULT aliases `default`."""
    members = [(key, Weights(url, num_classes)) for key, (url, num_classes) in entries.items()]
    values = dict(members)
    members.append(("DEFAULT", values[default]))
    return WeightsEnum(name, members, module=__name__.rsplit(".", 1)[0])


def classifier_state_dict(enum_cls, weights, pretrained, progress, kwargs, builder):
    """For classification builders: resolves the weights, lets named weights fix num_classes in
    kwargs, and returns the state dict to load after building (or None)."""
    source = resolve_weights(enum_cls, weights, pretrained, builder=builder)
    if isinstance(source, WeightsEnum) and source.num_classes is not None:
        overwrite_named_param(kwargs, "num_classes", source.num_classes)
    return weights_state_dict(source, progress)
