"""Exports an image classifier with its decode and transforms to one file for C++ deployment:

    python3 examples/jit_export_classifier.py model.tcj image.jpg [image.png ...]
    build/examples/jit_classify model.tcj image.jpg [image.png ...]   # the same lines

The traced graph takes the encoded file bytes: decode (RGB), Resize(72) + CenterCrop(64) +
ConvertImageDtype + Normalize (one native pipeline node, so any image size works), a ResNet-18
(10 classes, weights from seed 0) and softmax. It prints, per image, the top-3 classes and their
probabilities from the loaded file (the same runtime the C++ program uses).
"""

import sys

import tensorcore as tc
from tensorcore import nn
from tensorcore.vision import models, transforms as T
from tensorcore.vision.io import ImageReadMode, decode_image, read_file


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        tc.manual_seed(0)
        self.transform = T.Compose(
            [
                T.Resize(72),
                T.CenterCrop(64),
                T.ConvertImageDtype(tc.float32),
                T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
            ]
        )
        self.model = models.resnet18(num_classes=10).eval()

    def forward(self, data):
        img = decode_image(data, ImageReadMode.RGB)
        return self.model(self.transform(img).unsqueeze(0)).softmax(1)


def report(name, probs):
    values, indices = probs[0].topk(3)
    top = " ".join(f"{int(i)}:{float(v):.5f}" for v, i in zip(values, indices))
    return f"{name} {top}"


def main():
    path, images = sys.argv[1], sys.argv[2:]
    model = Classifier().eval()
    traced = tc.jit.trace(model, read_file(images[0]))
    traced.save(path)
    loaded = tc.jit.load(path)
    for image in images:
        print(report(image, loaded(read_file(image))))


if __name__ == "__main__":
    main()
