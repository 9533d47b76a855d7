"""Checkpoints: one safetensors file (tc.save) holding model, optimizer, LR schedule, grad scaler,
loop position, history and every RNG state, written atomically.

The file is first written completely to a temporary name in the same folder, flushed to disk,
then renamed over the old one (os.replace is atomic on POSIX), so a kill at any moment leaves
either the previous checkpoint or the new one, never a partial file under the final name.
"""

import io
import os
import random

import numpy as np

import tensorcore as tc

from .errors import PipelineError

FORMAT = "tensorcore.pipelines/1"
CHECKPOINT_NAME = "checkpoint.safetensors"
BEST_MODEL_NAME = "best_model.safetensors"


def atomic_write_bytes(path, data):
    """Writes data to path through a temporary file + fsync + rename."""
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise PipelineError(f"cannot write {path}: {e.strerror or e}") from None
    try:  # make the rename itself durable
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def save(obj, path):
    buffer = io.BytesIO()
    tc.save(obj, buffer)
    atomic_write_bytes(path, buffer.getvalue())


def rng_states():
    """Every generator a training step may draw from."""
    np_state = np.random.get_state()
    version, internal, gauss_next = random.getstate()
    states = {
        "tensorcore": tc.get_rng_state(),
        "python": [version, list(internal), gauss_next],
        "numpy": [np_state[0], [int(x) for x in np_state[1]], *[_plain(v) for v in np_state[2:]]],
    }
    if tc.cuda.is_available():
        states["cuda"] = [tc.cuda.get_rng_state(d) for d in range(tc.cuda.device_count())]
    return states


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def set_rng_states(states):
    tc.set_rng_state(states["tensorcore"])
    version, internal, gauss_next = states["python"]
    random.setstate((version, tuple(internal), gauss_next))
    name, keys, pos, has_gauss, cached = states["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), pos, has_gauss, cached))
    cuda_states = states.get("cuda", [])
    if cuda_states and tc.cuda.is_available():
        for device, state in enumerate(cuda_states[: tc.cuda.device_count()]):
            tc.cuda.set_rng_state(state, device)


def load(path, pipeline, model_config):
    """Reads and checks a checkpoint: it must be complete, of this pipeline, and of a model with
    the same configuration. Errors name the file and what is wrong."""
    if not os.path.exists(path):
        raise PipelineError(f"--resume: no checkpoint at {path}")
    try:
        obj = tc.load(path, map_location="cpu")
    except Exception as e:  # the loader reports truncation/corruption as RuntimeError/ValueError
        raise PipelineError(
            f"{path}: not a readable checkpoint (truncated or corrupt file: {e}). The previous "
            "checkpoint was replaced only by complete files, so this file was damaged after it "
            "was written; restart without --resume or restore a copy."
        ) from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise PipelineError(
            f"{path}: not a tensorcore.pipelines checkpoint (no '{FORMAT}' format tag); a plain "
            "model state dict can be loaded with --init-weights instead"
        )
    if obj.get("pipeline") != pipeline:
        raise PipelineError(
            f"{path}: checkpoint of the '{obj.get('pipeline')}' pipeline, but this is the "
            f"'{pipeline}' pipeline"
        )
    saved = obj.get("model_config", {})
    diff = sorted(k for k in set(saved) | set(model_config) if saved.get(k) != model_config.get(k))
    if diff:
        details = ", ".join(
            f"{k}: checkpoint {saved.get(k)!r} vs now {model_config.get(k)!r}" for k in diff
        )
        raise PipelineError(f"{path}: checkpoint of another model configuration ({details})")
    return obj


def load_model_state(model, state, path):
    """load_state_dict with an error that names the checkpoint and the mismatching keys."""
    own = model.state_dict()
    missing = sorted(set(own) - set(state))
    unexpected = sorted(set(state) - set(own))
    shapes = [
        f"{k}: checkpoint {tuple(state[k].shape)} vs model {tuple(own[k].shape)}"
        for k in own
        if k in state and tuple(state[k].shape) != tuple(own[k].shape)
    ]
    if missing or unexpected or shapes:
        parts = []
        if missing:
            parts.append(f"missing {missing[:5]}{' ...' if len(missing) > 5 else ''}")
        if unexpected:
            parts.append(f"unexpected {unexpected[:5]}{' ...' if len(unexpected) > 5 else ''}")
        if shapes:
            parts.append("shape mismatch " + "; ".join(shapes[:5]))
        raise PipelineError(f"{path}: weights of another model ({', '.join(parts)})")
    model.load_state_dict(state)
