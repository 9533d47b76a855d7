"""The model registry of torchvision 0.14: list_models, get_model, get_model_builder,
get_model_weights and get_weight, over the builders decorated with register_model."""

__all__ = [
    "register_model",
    "list_models",
    "get_model",
    "get_model_builder",
    "get_model_weights",
    "get_weight",
]

# name -> (builder, its weights enum class)
_MODELS = {}


def register_model(weights_enum, name=None):
    """Decorator: records a builder under its function name together with its weights enum class."""

    def wrapper(fn):
        key = name or fn.__name__
        if key in _MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        _MODELS[key] = (fn, weights_enum)
        return fn

    return wrapper


def list_models(module=None):
    """Sorted names of the registered builders; with module (e.g. models.segmentation), only those
    defined in it or its submodules."""
    prefix = None if module is None else module.__name__
    return sorted(
        k
        for k, (fn, _) in _MODELS.items()
        if prefix is None or fn.__module__ == prefix or fn.__module__.startswith(prefix + ".")
    )


def get_model_builder(name):
    name = name.lower()
    try:
        return _MODELS[name][0]
    except KeyError:
        raise ValueError(f"Unknown model {name}") from None


def get_model(name, **config):
    """Builds the named model: get_model("resnet50", weights="r50.pth", num_classes=10)."""
    return get_model_builder(name)(**config)


def get_model_weights(name):
    """The weights enum class of a builder, given its name or the builder itself."""
    if callable(name):
        for fn, weights_enum in _MODELS.values():
            if fn is name:
                return weights_enum
        raise ValueError(f"{getattr(name, '__name__', name)!r} is not a registered model builder")
    name = name.lower()
    if name not in _MODELS:
        raise ValueError(f"Unknown model {name}")
    return _MODELS[name][1]


def get_weight(name):
    """A weights enum member from its full name, e.g. "ResNet50_Weights.IMAGENET1K_V2"."""
    try:
        enum_name, value_name = name.split(".")
    except ValueError:
        raise ValueError(f"Invalid weight name provided: '{name}'.") from None
    for _, weights_enum in _MODELS.values():
        if weights_enum.__name__ == enum_name:
            member = weights_enum.from_name(value_name)
            if member is None:
                raise ValueError(
                    f"'{value_name}' is not a member of {enum_name}; members: "
                    f"{', '.join(weights_enum.__members__)}"
                )
            return member
    raise ValueError(
        f"The weight enum '{enum_name}' for the specific method couldn't be retrieved."
    )
