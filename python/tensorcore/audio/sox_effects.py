"""SoX effect chains (torchaudio.sox_effects): each effect is a list of strings, as on the sox
command line, e.g. [["gain", "-n"], ["rate", "16000"], ["reverb", "50"]]."""

from ._io import _as_source, _audio


def init_sox_effects():
    """Kept for torchaudio compatibility: libsox initializes itself on first use."""


def shutdown_sox_effects():
    """Kept for torchaudio compatibility: nothing to release."""


def effect_names():
    """Names of the effects usable in a chain."""
    return list(_audio.effect_names())


def _check_effects(effects, op):
    if not isinstance(effects, (list, tuple)):
        raise TypeError(f"{op}: effects must be a list of lists of strings")
    out = []
    for i, e in enumerate(effects):
        if isinstance(e, str) or not isinstance(e, (list, tuple)):
            raise TypeError(f"{op}: effect {i} must be a list of strings, got {e!r}")
        out.append([str(x) for x in e])
    return out


def apply_effects_tensor(tensor, sample_rate, effects, channels_first=True):
    """Runs `tensor` (2-d) through the chain; returns (float32 waveform, sample_rate)."""
    return _audio.apply_effects_tensor(
        tensor,
        int(sample_rate),
        _check_effects(effects, "apply_effects_tensor"),
        bool(channels_first),
    )


def apply_effects_file(path, effects, normalize=True, channels_first=True, format=None):
    """Decodes a file (path, file-like object or bytes) through the chain."""
    effects = _check_effects(effects, "apply_effects_file")
    kind, src = _as_source(path, "apply_effects_file")
    fn = _audio.apply_effects_file if kind == "path" else _audio.apply_effects_bytes
    return fn(src, effects, bool(normalize), bool(channels_first), format or "")
