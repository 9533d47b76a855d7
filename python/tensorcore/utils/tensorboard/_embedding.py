"""The embedding projector's files: vectors, labels and a sprite image per embedding."""

import os

import numpy as np
from google.protobuf import text_format
from tensorboard.plugins.projector import projector_config_pb2

from .summary import _to_uint8


def _write_metadata(path, metadata, header):
    with open(path, "w", encoding="utf-8") as f:
        if header is not None:
            f.write("\t".join(str(h) for h in header) + "\n")
        for row in metadata:
            if header is not None:
                if not isinstance(row, (list, tuple)) or len(row) != len(header):
                    raise ValueError(
                        f"add_embedding: each metadata row needs {len(header)} columns "
                        f"(metadata_header), got {row!r}"
                    )
                f.write("\t".join(str(x) for x in row) + "\n")
            else:
                f.write(f"{row}\n")


def _write_sprite(path, images):
    """Tiles (N, C, H, W) thumbnails into the square sprite sheet the projector expects."""
    from PIL import Image

    n, c, h, w = images.shape
    side = int(np.ceil(np.sqrt(n)))
    images = _to_uint8(images)
    if c == 1:
        images = np.repeat(images, 3, axis=1)
    sheet = np.zeros((side * h, side * w, 3), dtype=np.uint8)
    for i in range(n):
        r, col = divmod(i, side)
        sheet[r * h : (r + 1) * h, col * w : (col + 1) * w] = images[i, :3].transpose(1, 2, 0)
    Image.fromarray(sheet, "RGB").save(path)


def write_embedding(logdir, mat, metadata, label_img, global_step, tag, metadata_header):
    if mat.ndim != 2:
        raise ValueError(f"add_embedding: mat must be (N, D), got shape {mat.shape}")
    n = mat.shape[0]
    if metadata is not None and len(metadata) != n:
        raise ValueError(f"add_embedding: {len(metadata)} metadata rows for {n} vectors")
    if label_img is not None and (label_img.ndim != 4 or label_img.shape[0] != n):
        raise ValueError(
            f"add_embedding: label_img must be (N={n}, C, H, W), got shape {label_img.shape}"
        )
    step = global_step or 0
    subdir = os.path.join(f"{step:05d}", tag.replace("/", "_"))
    folder = os.path.join(logdir, subdir)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "tensors.tsv"), "w", encoding="utf-8") as f:
        for row in mat.astype(np.float64):
            f.write("\t".join(repr(float(x)) for x in row) + "\n")
    entry = projector_config_pb2.EmbeddingInfo(
        tensor_name=f"{tag}:{step:05d}", tensor_path=os.path.join(subdir, "tensors.tsv")
    )
    if metadata is not None:
        _write_metadata(os.path.join(folder, "metadata.tsv"), metadata, metadata_header)
        entry.metadata_path = os.path.join(subdir, "metadata.tsv")
    if label_img is not None:
        _write_sprite(os.path.join(folder, "sprite.png"), label_img)
        entry.sprite.image_path = os.path.join(subdir, "sprite.png")
        entry.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
    config_path = os.path.join(logdir, "projector_config.pbtxt")
    config = projector_config_pb2.ProjectorConfig()
    if os.path.exists(config_path):
        with open(config_path, encoding="utf-8") as f:
            text_format.Parse(f.read(), config)
    config.embeddings.append(entry)
    with open(config_path, "w", encoding="utf-8") as f:
        f.write(text_format.MessageToString(config))
