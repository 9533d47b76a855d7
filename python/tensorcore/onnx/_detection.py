"""ONNX converters for the detection models' native ops (models/vision/detection.cpp).

Each op is decomposed into standard ONNX ops the way torchvision's own export writes its Python
code: the GeneralizedRCNNTransform resize (torchvision's float32 scale arithmetic, then Resize
and Pad to the size divisor), the anchor grid from the feature maps' shapes, and RetinaNet's
post-processing per image: per-level score threshold and TopK, box decoding and clipping,
class-wise NMS through the coordinate-offset trick and ONNX NonMaxSuppression, TopK to
detections_per_img, and boxes mapped back to the input size. Sizes are read with Shape at run
time, so the file works for any image size and number of detections.
"""

import numpy as np

_FLOAT, _INT64, _DOUBLE = 1, 7, 11


def _items(arg):
    return list(arg["l"] if "l" in arg else arg["t"])


def _floats(arg):
    if isinstance(arg, dict):
        arg = arg.get("l", arg.get("t"))
    return [float(v) for v in arg]


def _i64(b, values):
    return b.init(np.array(values, np.int64), "i64")


def _f32(b, values):
    return b.init(np.array(values, np.float32), "f32")


def _dims(b, x, start, stop=None):
    """Shape(x)[start:stop] (int64, 1-d; opset 15's Shape start/end)."""
    if stop is None:
        return b.node("Shape", [x], start=start)
    return b.node("Shape", [x], start=start, end=stop)


def _dim(b, x, axis):
    """Shape(x)[axis] as a 0-d int64."""
    return b.node("Squeeze", [_dims(b, x, axis, axis + 1 if axis != -1 else None), _i64(b, [0])])


def _resized_size(b, image, min_size, max_size):
    """(h, w) int64 of GeneralizedRCNNTransform's resize: scale = min((1 / shorter) * min_size,
    (1 / longer) * max_size) in float32 (torch's `min_size / tensor`), size = floor(h * scale) in
    double, as detection.cpp's resized_size. Each float32 step is computed exactly in double and
    rounded to float32 by a Cast, so onnxruntime's float kernels (which may fuse or approximate
    a reciprocal) cannot move a size that sits on a rounding tie (200 -> 159, not 160)."""
    hw = _dims(b, image, 1, 3)
    d = b.node("Cast", [hw], to=_DOUBLE)

    def as_float(x):
        return b.node("Cast", [b.node("Cast", [x], to=_FLOAT)], to=_DOUBLE)

    one = b.init(np.array(1.0, np.float64), "one")
    shorter = b.node("ReduceMin", [d], keepdims=1)
    longer = b.node("ReduceMax", [d], keepdims=1)
    by_min = as_float(
        b.node(
            "Mul",
            [as_float(b.node("Div", [one, shorter])), b.init(np.float64(np.float32(min_size)))],
        )
    )
    by_max = as_float(
        b.node(
            "Mul",
            [as_float(b.node("Div", [one, longer])), b.init(np.float64(np.float32(max_size)))],
        )
    )
    scaled = b.node("Mul", [d, b.node("Min", [by_min, by_max])])
    return b.node("Cast", [b.node("Floor", [scaled])], to=_INT64)


def detection_preprocess(b, args, out):
    images, mean, std, min_sizes, max_size, size_divisible, fixed_size = args
    images = [b.name(v) for v in _items(images)]
    mean, std, min_sizes = _floats(mean), _floats(std), _floats(min_sizes)
    if len(min_sizes) not in (1, len(images)):
        raise ValueError(
            f"tc.onnx.export: detection_preprocess has {len(min_sizes)} min sizes for "
            f"{len(images)} images"
        )
    c = len(mean)
    m = b.init(np.array(mean, np.float32).reshape(c, 1, 1), "image_mean")
    s = b.init(np.array(std, np.float32).reshape(c, 1, 1), "image_std")
    resized, sizes = [], []
    for i, image in enumerate(images):
        x = b.node("Div", [b.node("Sub", [image, m]), s])
        if fixed_size is not None:
            w, h = _items(fixed_size) if isinstance(fixed_size, dict) else fixed_size
            hw = _i64(b, [int(h), int(w)])
        else:
            min_size = min_sizes[0 if len(min_sizes) == 1 else i]
            hw = _resized_size(b, image, min_size, float(max_size))
        x4 = b.node("Unsqueeze", [x, _i64(b, [0])])
        target = b.node("Concat", [_dims(b, x4, 0, 2), hw], axis=0)
        # torch's bilinear interpolate with align_corners=False is ONNX's half_pixel linear Resize.
        resized.append(
            b.node(
                "Resize",
                [x4, "", "", target],
                mode="linear",
                coordinate_transformation_mode="half_pixel",
            )
        )
        sizes.append(b.node("Unsqueeze", [hw, _i64(b, [0])]))
    sizes_2d = b.node("Concat", sizes, axis=0)  # (N, 2)
    d = _i64(b, int(size_divisible))
    largest = b.node("ReduceMax", [sizes_2d], axes=[0], keepdims=0)
    padded = b.node(
        "Mul", [b.node("Div", [b.node("Add", [largest, _i64(b, int(size_divisible) - 1)]), d]), d]
    )
    batch = []
    for r, hw in zip(resized, sizes):
        pad_end = b.node("Sub", [padded, b.node("Squeeze", [hw, _i64(b, [0])])])
        pads = b.node("Concat", [_i64(b, [0] * 6), pad_end], axis=0)
        batch.append(b.node("Pad", [r, pads]))
    b.node("Concat", batch, [out[0]], axis=0)
    b.node("Identity", [sizes_2d], [out[1]])


def image_sizes(b, args, out):
    sizes = [
        b.node("Unsqueeze", [_dims(b, b.name(img), -2), _i64(b, [0])]) for img in _items(args[0])
    ]
    b.node("Concat", sizes, out, axis=0)


def grid_anchors(b, args, out):
    feature_maps, batch, cell_anchors = args
    feature_maps = [b.name(f) for f in _items(feature_maps)]
    cell_anchors = [b.name(a) for a in _items(cell_anchors)]
    if len(feature_maps) != len(cell_anchors):
        raise ValueError(
            f"tc.onnx.export: grid_anchors has {len(feature_maps)} feature maps but "
            f"{len(cell_anchors)} cell anchor sets"
        )
    image_hw = _dims(b, b.name(batch), -2)
    zero, one = _i64(b, 0), _i64(b, 1)
    per_map = []
    for f, base in zip(feature_maps, cell_anchors):
        grid = _dims(b, f, -2)  # [gh, gw]
        stride = b.node("Div", [image_hw, grid])  # integer division, as image_h / gh in C++
        gh, gw = (b.node("Gather", [grid, _i64(b, k)]) for k in (0, 1))
        sh, sw = (b.node("Gather", [stride, _i64(b, k)]) for k in (0, 1))
        sx = b.node("Mul", [b.node("Range", [zero, gw, one]), sw])
        sy = b.node("Mul", [b.node("Range", [zero, gh, one]), sh])
        flat = _i64(b, [-1])
        sx = b.node(
            "Reshape", [b.node("Expand", [b.node("Unsqueeze", [sx, _i64(b, [0])]), grid]), flat]
        )
        sy = b.node(
            "Reshape", [b.node("Expand", [b.node("Unsqueeze", [sy, _i64(b, [1])]), grid]), flat]
        )
        col_x = b.node("Unsqueeze", [sx, _i64(b, [1])])
        col_y = b.node("Unsqueeze", [sy, _i64(b, [1])])
        shifts = b.node("Cast", [b.node("Concat", [col_x, col_y, col_x, col_y], axis=1)], to=_FLOAT)
        summed = b.node(
            "Add",
            [
                b.node("Reshape", [shifts, _i64(b, [-1, 1, 4])]),
                b.node("Reshape", [base, _i64(b, [1, -1, 4])]),
            ],
        )
        per_map.append(b.node("Reshape", [summed, _i64(b, [-1, 4])]))
    b.node("Concat", per_map, out, axis=0)


def _column(b, x, i):
    return b.node("Slice", [x, _i64(b, [i]), _i64(b, [i + 1]), _i64(b, [1])])


def _decode(b, rel_codes, anchors, weights, clip):
    """BoxCoder.decode_single on (n, 4) rows, in detection.cpp's order of float32 operations."""
    x1, y1, x2, y2 = (_column(b, anchors, i) for i in range(4))
    widths = b.node("Sub", [x2, x1])
    heights = b.node("Sub", [y2, y1])
    half = _f32(b, 0.5)
    ctr_x = b.node("Add", [x1, b.node("Mul", [half, widths])])
    ctr_y = b.node("Add", [y1, b.node("Mul", [half, heights])])
    d = [b.node("Div", [_column(b, rel_codes, i), _f32(b, w)]) for i, w in enumerate(weights)]
    dw = b.node("Min", [d[2], _f32(b, clip)])
    dh = b.node("Min", [d[3], _f32(b, clip)])
    pred_x = b.node("Add", [b.node("Mul", [d[0], widths]), ctr_x])
    pred_y = b.node("Add", [b.node("Mul", [d[1], heights]), ctr_y])
    half_w = b.node("Mul", [half, b.node("Mul", [b.node("Exp", [dw]), widths])])
    half_h = b.node("Mul", [half, b.node("Mul", [b.node("Exp", [dh]), heights])])
    return b.node(
        "Concat",
        [
            b.node("Sub", [pred_x, half_w]),
            b.node("Sub", [pred_y, half_h]),
            b.node("Add", [pred_x, half_w]),
            b.node("Add", [pred_y, half_h]),
        ],
        axis=1,
    )


def _top(b, scores, k):
    """TopK of a 1-d tensor with k = min(k, its length): (values, positions), best first."""
    kk = b.node("Min", [_dims(b, scores, 0, 1), _i64(b, [int(k)])])
    values = b.fresh("topk_values")
    positions = b.fresh("topk_positions")
    b.node("TopK", [scores, kk], [values, positions], axis=0, largest=1, sorted=1)
    return values, positions


def retinanet_postprocess(b, args, out):
    (
        cls_logits,
        bbox_regression,
        anchors,
        feature_maps,
        sizes,
        original_sizes,
        weights,
        clip,
        score_thresh,
        nms_thresh,
        topk_candidates,
        detections_per_img,
    ) = args
    weights = _floats(weights)
    cls_logits, bbox_regression, anchors = (
        b.name(cls_logits),
        b.name(bbox_regression),
        b.name(anchors),
    )
    sizes, original_sizes = b.name(sizes), b.name(original_sizes)
    feature_maps = [b.name(f) for f in _items(feature_maps)]
    num_images = len(out) // 3
    levels = len(feature_maps)
    # Rows per level: H_l * W_l * (anchors per location), read from the shapes at run time.
    locations = [b.node("ReduceProd", [_dims(b, f, 2, 4)], keepdims=1) for f in feature_maps]
    total = locations[0]
    for loc in locations[1:]:
        total = b.node("Add", [total, loc])
    per_location = b.node("Div", [_dims(b, cls_logits, 1, 2), total])
    split = b.node("Concat", [b.node("Mul", [loc, per_location]) for loc in locations], axis=0)

    def split_levels(x, axis):
        names = [b.fresh("level") for _ in range(levels)]
        b.node("Split", [x, split], names, axis=axis)
        return names

    cls_levels = split_levels(cls_logits, 1)
    reg_levels = split_levels(bbox_regression, 1)
    anchor_levels = split_levels(anchors, -2)  # (A, 4) shared, or (N, A, 4) per image
    num_classes = _dim(b, cls_logits, 2)
    hw_float = b.node("Cast", [sizes], to=_FLOAT)
    orig_float = b.node("Cast", [original_sizes], to=_FLOAT)
    for i in range(num_images):
        index = _i64(b, i)
        size_i = b.node("Gather", [hw_float, index])  # [h, w]
        upper = b.node("Gather", [size_i, _i64(b, [1, 0, 1, 0])])
        all_boxes, all_scores, all_labels = [], [], []
        for cls_l, reg_l, anc_l in zip(cls_levels, reg_levels, anchor_levels):
            scores = b.node(
                "Sigmoid", [b.node("Reshape", [b.node("Gather", [cls_l, index]), _i64(b, [-1])])]
            )
            keep = b.node("NonZero", [b.node("Greater", [scores, _f32(b, score_thresh)])])
            keep = b.node("Reshape", [keep, _i64(b, [-1])])
            scores = b.node("Gather", [scores, keep])
            scores, positions = _top(b, scores, topk_candidates)
            idx = b.node("Gather", [keep, positions])
            anchor_idx = b.node("Div", [idx, num_classes])
            labels = b.node("Mod", [idx, num_classes])
            rel = b.node("Gather", [b.node("Gather", [reg_l, index]), anchor_idx])
            anc_rows = _anchor_rows(b, anc_l, index, anchor_idx)
            boxes = _decode(b, rel, anc_rows, weights, float(clip))
            boxes = b.node("Min", [b.node("Max", [boxes, _f32(b, 0.0)]), upper])
            all_boxes.append(boxes)
            all_scores.append(scores)
            all_labels.append(labels)
        boxes = b.node("Concat", all_boxes, axis=0)
        scores = b.node("Concat", all_scores, axis=0)
        labels = b.node("Concat", all_labels, axis=0)
        # Class-wise NMS as one NMS: each class's boxes moved by label * (largest coordinate + 1)
        # so boxes of different classes never overlap (torchvision's coordinate trick). The 0
        # appended keeps the max defined when nothing passed the threshold.
        flat = b.node("Concat", [b.node("Reshape", [boxes, _i64(b, [-1])]), _f32(b, [0.0])], axis=0)
        largest = b.node("ReduceMax", [flat], keepdims=0)
        offsets = b.node(
            "Mul", [b.node("Cast", [labels], to=_FLOAT), b.node("Add", [largest, _f32(b, 1.0)])]
        )
        shifted = b.node("Add", [boxes, b.node("Unsqueeze", [offsets, _i64(b, [1])])])
        selected = b.node(
            "NonMaxSuppression",
            [
                b.node("Unsqueeze", [shifted, _i64(b, [0])]),
                b.node("Reshape", [scores, _i64(b, [1, 1, -1])]),
                _i64(b, [2**62]),
                _f32(b, [float(nms_thresh)]),
            ],
        )
        kept = b.node("Reshape", [_column(b, selected, 2), _i64(b, [-1])])
        # ONNX returns the kept boxes per class; sort them by score and keep the best.
        top_scores, order = _top(b, b.node("Gather", [scores, kept]), detections_per_img)
        kept = b.node("Gather", [kept, order])
        orig_i = b.node("Gather", [orig_float, index])
        ratio = b.node("Div", [orig_i, size_i])  # [h, w], float32 as detection.cpp
        ratio4 = b.node("Gather", [ratio, _i64(b, [1, 0, 1, 0])])
        b.node("Mul", [b.node("Gather", [boxes, kept]), ratio4], [out[3 * i]])
        b.node("Identity", [top_scores], [out[3 * i + 1]])
        b.node("Gather", [labels, kept], [out[3 * i + 2]])


def _anchor_rows(b, anchors, index, anchor_idx):
    """Rows anchor_idx of image `index`'s anchors: (A, 4) shared by the images, or (N, A, 4).
    Both are viewed as (M, A, 4) and the image index is clamped to M - 1, so one graph serves
    either layout."""
    per_image = b.node(
        "Reshape", [anchors, b.node("Concat", [_i64(b, [-1]), _dims(b, anchors, -2)], axis=0)]
    )
    last = b.node("Sub", [_dims(b, per_image, 0, 1), _i64(b, [1])])
    pick = b.node("Min", [b.node("Unsqueeze", [index, _i64(b, [0])]), last])
    rows = b.node("Gather", [per_image, b.node("Squeeze", [pick, _i64(b, [0])])])
    return b.node("Gather", [rows, anchor_idx])


CONVERTERS = {
    "_C._models_vision.detection_preprocess": detection_preprocess,
    "_C._models_vision.image_sizes": image_sizes,
    "_C._models_vision.grid_anchors": grid_anchors,
    "_C._models_vision.retinanet_postprocess": retinanet_postprocess,
}
