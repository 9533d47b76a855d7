"""`generate coco`: images of shapes in COCO's layout.

    <out>/coco/<split>/<image id:012d>.jpg
    <out>/coco/annotations/instances_<split>.json

Each image has a textured background with unannotated clutter (strokes and blobs), 0..N shapes
of six categories at scales from a few pixels to a third of the image, drawn in turn so later
shapes (and clutter strokes) occlude earlier ones. An annotation describes the visible part:
`segmentation` is its mask as uncompressed RLE, `area` its pixel count, `bbox` its extent
[x, y, w, h]. Some images hold a crowd (a cluster of tiny shapes of one category, one
annotation with iscrowd=1), some none at all (empty images). Images are JPEG-encoded through
tensorcore.vision.io. Each image is drawn from its own seed (the run seed and the image id), so
the output does not depend on --jobs.
"""

import json
import os
from multiprocessing import get_context

import numpy as np

CATEGORIES = [
    {"id": 1, "name": "circle", "supercategory": "shape"},
    {"id": 2, "name": "square", "supercategory": "shape"},
    {"id": 3, "name": "triangle", "supercategory": "shape"},
    {"id": 4, "name": "star", "supercategory": "shape"},
    {"id": 5, "name": "hexagon", "supercategory": "shape"},
    {"id": 6, "name": "cross", "supercategory": "shape"},
]


def add_arguments(parser):
    parser.add_argument("--splits", default="train2017,val2017")
    parser.add_argument("--images", type=int, default=100, help="images per split")
    parser.add_argument("--min-size", type=int, default=256, help="smallest image side")
    parser.add_argument("--max-size", type=int, default=640, help="largest image side")
    parser.add_argument("--max-objects", type=int, default=12)
    parser.add_argument("--crowd-prob", type=float, default=0.15)
    parser.add_argument("--empty-prob", type=float, default=0.05)
    parser.add_argument("--jobs", type=int, default=0, help="worker processes (0: all cores)")


def _polygon(kind, rng, radius):
    """Vertices (relative to the centre) of the polygonal categories, randomly rotated."""
    angle = rng.uniform(0, 2 * np.pi)
    if kind == "square":
        t = angle + np.arange(4) * np.pi / 2
        r = np.full(4, radius)
    elif kind == "triangle":
        t = angle + np.arange(3) * 2 * np.pi / 3 + rng.uniform(-0.25, 0.25, 3)
        r = radius * rng.uniform(0.8, 1.0, 3)
    elif kind == "hexagon":
        t = angle + np.arange(6) * np.pi / 3
        r = np.full(6, radius)
    elif kind == "star":
        t = angle + np.arange(10) * np.pi / 5
        r = np.where(np.arange(10) % 2 == 0, radius, radius * rng.uniform(0.35, 0.55))
    elif kind == "cross":
        a, b = radius, radius * rng.uniform(0.25, 0.4)
        pts = np.array(
            [
                (b, a),
                (b, b),
                (a, b),
                (a, -b),
                (b, -b),
                (b, -a),
                (-b, -a),
                (-b, -b),
                (-a, -b),
                (-a, b),
                (-b, b),
                (-b, a),
            ],
            dtype=np.float64,
        )
        c, s = np.cos(angle), np.sin(angle)
        return pts @ np.array([[c, s], [-s, c]])
    return np.stack([r * np.cos(t), r * np.sin(t)], axis=1)


def _inside_polygon(px, py, poly):
    """Even-odd rule over pixel centres (handles the non-convex star and cross)."""
    inside = np.zeros(px.shape, dtype=bool)
    x0, y0 = poly[:, 0], poly[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    for a, b, c, d in zip(x0, y0, x1, y1):
        crosses = (b > py) != (d > py)
        with np.errstate(divide="ignore", invalid="ignore"):
            xint = a + (py - b) * (c - a) / (d - b)
        inside ^= crosses & (px < xint)
    return inside


def _shape_mask(kind, rng, h, w, cx, cy, radius):
    ys, xs = np.mgrid[0:h, 0:w]
    px, py = xs + 0.5 - cx, ys + 0.5 - cy
    if kind == "circle":
        return px * px + py * py <= radius * radius
    return _inside_polygon(px, py, _polygon(kind, rng, radius))


def _fill(rng, h, w, colour):
    """A colour with a linear shading gradient and grain, so surfaces are not flat."""
    ys, xs = np.mgrid[0:h, 0:w]
    g = rng.uniform(-0.35, 0.35, 2)
    shade = 1.0 + g[0] * (xs / w - 0.5) + g[1] * (ys / h - 0.5)
    img = colour[None, None, :] * shade[..., None] + rng.normal(0, 6, (h, w, 1))
    return img


def _background(rng, h, w):
    base = rng.uniform(40, 215, 3)
    img = _fill(rng, h, w, base)
    # low-frequency blotches: a coarse random grid upsampled
    gh, gw = rng.integers(3, 8, 2)
    grid = rng.normal(0, 25, (gh, gw, 3))
    yi = (np.arange(h) * gh // h)[:, None]
    xi = (np.arange(w) * gw // w)[None, :]
    return img + grid[yi, xi]


def _stroke_mask(rng, h, w):
    """A thick line segment (clutter)."""
    ys, xs = np.mgrid[0:h, 0:w]
    x0, y0, x1, y1 = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0, w), rng.uniform(0, h)
    dx, dy = x1 - x0, y1 - y0
    t = np.clip(((xs - x0) * dx + (ys - y0) * dy) / max(dx * dx + dy * dy, 1e-9), 0, 1)
    dist2 = (xs - x0 - t * dx) ** 2 + (ys - y0 - t * dy) ** 2
    return dist2 <= rng.uniform(0.6, 0.012 * min(h, w) + 1.0) ** 2


def _blob_mask(rng, h, w):
    """An irregular blob (clutter that is none of the categories)."""
    ys, xs = np.mgrid[0:h, 0:w]
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    r0 = rng.uniform(0.01, 0.06) * min(h, w)
    ang = np.arctan2(ys - cy, xs - cx)
    k = rng.integers(2, 6)
    r = r0 * (1 + 0.45 * np.sin(k * ang + rng.uniform(0, 6)) * rng.uniform(0.3, 1))
    return (xs - cx) ** 2 + (ys - cy) ** 2 <= r**2


def rle_encode(mask):
    """COCO's uncompressed RLE: run lengths over the column-major pixels, starting with 0s."""
    flat = np.asarray(mask, dtype=np.uint8).ravel(order="F")
    change = np.flatnonzero(np.diff(flat)) + 1
    bounds = np.concatenate([[0], change, [flat.size]])
    counts = np.diff(bounds).tolist()
    if flat.size and flat[0] == 1:
        counts = [0] + counts
    return {"size": [int(mask.shape[0]), int(mask.shape[1])], "counts": counts}


def _annotation(mask, category, iscrowd):
    ys, xs = np.nonzero(mask)
    x0, y0 = int(xs.min()), int(ys.min())
    return {
        "category_id": category,
        "iscrowd": iscrowd,
        "area": int(mask.sum()),
        "bbox": [float(x0), float(y0), float(xs.max() - x0 + 1), float(ys.max() - y0 + 1)],
        "segmentation": rle_encode(mask),
    }


def draw_image(task):
    """Draws one image; returns (image record, [annotations without ids], jpeg bytes)."""
    image_id, seed, opts = task
    rng = np.random.default_rng([seed, image_id])
    h = int(rng.integers(opts["min_size"], opts["max_size"] + 1))
    w = int(rng.integers(opts["min_size"], opts["max_size"] + 1))
    img = _background(rng, h, w)
    owner = np.full((h, w), -1, dtype=np.int32)  # which annotated object a pixel shows
    objects = []  # (category, full mask)
    for _ in range(int(rng.integers(2, 9))):  # clutter under the objects
        m = _blob_mask(rng, h, w) if rng.random() < 0.5 else _stroke_mask(rng, h, w)
        img[m] = _fill(rng, h, w, rng.uniform(0, 255, 3))[m]
    n_objects = (
        0 if rng.random() < opts["empty_prob"] else int(rng.integers(1, opts["max_objects"] + 1))
    )
    side = min(h, w)
    for _ in range(n_objects):
        cat = CATEGORIES[int(rng.integers(len(CATEGORIES)))]
        radius = float(np.exp(rng.uniform(np.log(0.02 * side + 2), np.log(0.33 * side))))
        cx, cy = rng.uniform(-0.1 * w, 1.1 * w), rng.uniform(-0.1 * h, 1.1 * h)
        m = _shape_mask(cat["name"], rng, h, w, cx, cy, radius)
        if m.sum() < 4:
            continue
        img[m] = _fill(rng, h, w, rng.uniform(0, 255, 3))[m]
        owner[m] = len(objects)
        objects.append((cat["id"], m, 0))
    if n_objects and rng.random() < opts["crowd_prob"]:
        cat = CATEGORIES[int(rng.integers(len(CATEGORIES)))]
        cx, cy = rng.uniform(0.2 * w, 0.8 * w), rng.uniform(0.2 * h, 0.8 * h)
        spread = rng.uniform(0.08, 0.2) * side
        crowd = np.zeros((h, w), dtype=bool)
        colour = rng.uniform(0, 255, 3)
        for _ in range(int(rng.integers(8, 21))):
            m = _shape_mask(
                cat["name"],
                rng,
                h,
                w,
                cx + rng.normal(0, spread),
                cy + rng.normal(0, spread),
                rng.uniform(0.01, 0.025) * side + 1.5,
            )
            crowd |= m
        if crowd.sum() >= 4:
            img[crowd] = _fill(rng, h, w, colour)[crowd]
            owner[crowd] = len(objects)
            objects.append((cat["id"], crowd, 1))
    for _ in range(int(rng.integers(0, 4))):  # clutter strokes over the objects: occlusion
        m = _stroke_mask(rng, h, w)
        img[m] = _fill(rng, h, w, rng.uniform(0, 255, 3))[m]
        owner[m] = -1
    annotations = []
    for k, (category, full, iscrowd) in enumerate(objects):
        visible = owner == k
        # heavily hidden objects go unannotated, as a person would not label them either
        if visible.sum() >= max(4, 0.1 * full.sum()):
            annotations.append(_annotation(visible, category, iscrowd))
    pixels = np.clip(np.round(img), 0, 255).astype(np.uint8)
    jpeg = _encode(pixels, int(rng.integers(80, 96)))
    record = {
        "id": image_id,
        "file_name": f"{image_id:012d}.jpg",
        "height": h,
        "width": w,
        "license": 1,
    }
    return record, annotations, jpeg


def _encode(pixels, quality):
    import tensorcore as tc
    from tensorcore.vision.io import encode_jpeg

    chw = tc.from_numpy(np.ascontiguousarray(pixels.transpose(2, 0, 1)))
    return encode_jpeg(chw, quality).numpy().tobytes()


def generate(args):
    from tqdm import tqdm

    splits = [s for s in args.splits.split(",") if s]
    if not splits or len(set(splits)) != len(splits):
        raise SystemExit("--splits: distinct, comma-separated names")
    if args.images < 1 or not 16 <= args.min_size <= args.max_size or args.max_objects < 1:
        raise SystemExit("--images >= 1, 16 <= --min-size <= --max-size, --max-objects >= 1")
    root = os.path.join(args.out, "coco")
    os.makedirs(os.path.join(root, "annotations"), exist_ok=True)
    opts = {
        "min_size": args.min_size,
        "max_size": args.max_size,
        "max_objects": args.max_objects,
        "crowd_prob": args.crowd_prob,
        "empty_prob": args.empty_prob,
    }
    next_image = 1
    workers = max(1, args.jobs or os.cpu_count() or 1)
    for split in splits:
        folder = os.path.join(root, split)
        os.makedirs(folder, exist_ok=True)
        tasks = [(next_image + i, args.seed, opts) for i in range(args.images)]
        next_image += args.images
        images, annotations = [], []
        with tqdm(total=len(tasks), desc=f"coco {split}", unit="img") as bar:
            if workers == 1:
                results = map(draw_image, tasks)
                pool = None
            else:
                pool = get_context("fork").Pool(workers)
                results = pool.imap(draw_image, tasks, chunksize=2)
            try:
                for record, anns, jpeg in results:
                    with open(os.path.join(folder, record["file_name"]), "wb") as f:
                        f.write(jpeg)
                    images.append(record)
                    for ann in anns:
                        ann.update(id=len(annotations) + 1, image_id=record["id"])
                        annotations.append(ann)
                    bar.update(1)
            finally:
                if pool is not None:
                    pool.close()
                    pool.join()
        dataset = {
            "info": {
                "description": "tensorcore generated shapes (COCO layout)",
                "version": "1.0",
                "year": 2024,
                "contributor": "tensorcore.datasets.generate coco",
                "date_created": "",
                "seed": args.seed,
            },
            "licenses": [{"id": 1, "name": "CC0 1.0", "url": ""}],
            "images": images,
            "annotations": annotations,
            "categories": CATEGORIES,
        }
        with open(os.path.join(root, "annotations", f"instances_{split}.json"), "w") as f:
            json.dump(dataset, f, separators=(",", ":"))
    return root
