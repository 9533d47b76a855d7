"""Exports a RetinaNet detector with its image decode to one file for C++ deployment:

    python3 examples/jit_export_detector.py detector.tcj image.jpg [image.png ...]
    build/examples/jit_detect detector.tcj image.jpg [image.png ...]      # the same lines

The traced graph takes a file's encoded bytes: decode (RGB), uint8 -> float in [0, 1], and
retinanet_resnet50_fpn (5 classes, weights from seed 0, min_size 160 / max_size 224, a low
score threshold so random weights still report boxes). Resizing, anchors and post-processing
are native ops in the graph, so images of any size give their own number of detections. Prints
per image the number of detections and the first five (label, score, box).
"""

import sys

import tensorcore as tc
from tensorcore import nn
from tensorcore.vision.io import ImageReadMode, decode_image, read_file
from tensorcore.vision.models import detection


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        tc.manual_seed(0)
        self.model = detection.retinanet_resnet50_fpn(
            pretrained=False,
            pretrained_backbone=False,
            num_classes=5,
            min_size=160,
            max_size=224,
            score_thresh=0.005,
            detections_per_img=50,
        ).eval()

    def forward(self, data):
        img = decode_image(data, ImageReadMode.RGB).float() / 255.0
        return self.model([img])[0]


def report(name, det):
    lines = [f"{name} {det['boxes'].shape[0]} detections"]
    for box, score, label in list(zip(det["boxes"], det["scores"], det["labels"]))[:5]:
        coords = " ".join(f"{float(v):.2f}" for v in box)
        lines.append(f"  {int(label)} {float(score):.4f} {coords}")
    return "\n".join(lines)


def main():
    path, images = sys.argv[1], sys.argv[2:]
    traced = tc.jit.trace(Detector().eval(), read_file(images[0]))
    traced.save(path)
    loaded = tc.jit.load(path)
    for image in images:
        print(report(image, loaded(read_file(image))))


if __name__ == "__main__":
    main()
