"""ResNet-18 training step (forward + backward + SGD step), batch 8, 3x224x224, float32, CPU:
tensorcore's Python nn layer vs PyTorch in one run, same thread count and the same weights.

Run: .venv/bin/python benchmarks/bench_resnet18_step.py [--threads N] [--runs 5] [--batch 8]
Prints both medians and the ratio tc/torch (< 1 means tensorcore is faster).
"""

import argparse
import statistics

import numpy as np

import tensorcore as tc
import tensorcore.nn as tnn
import tensorcore.nn.functional as tF
import tensorcore.optim as toptim
from _common import parse_bench_args, run_times

try:
    import torch
except Exception:  # pragma: no cover
    torch = None


def build_resnet18(nn, num_classes=1000):
    # torchvision's resnet18 layout, written against either framework's nn namespace.
    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(
                    nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
                )

        def forward(self, x):
            idt = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + idt)

    class ResNet18(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU()
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            layers, cin = [], 64
            for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
                layers.append(
                    nn.Sequential(BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1))
                )
                cin = cout
            self.layer1, self.layer2, self.layer3, self.layer4 = layers
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(self.avgpool(x).flatten(1))

    return ResNet18()


def median_time(fn, runs):
    return statistics.median(run_times(fn, min_runs=runs, max_runs=runs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=8)
    args = parse_bench_args(ap, torch, None)

    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((args.batch, 3, 224, 224)).astype(np.float32)
    y_np = rng.integers(0, 1000, args.batch).astype(np.int64)

    tc_model = build_resnet18(tnn)
    t_model = None
    if torch is not None:
        torch.manual_seed(0)
        t_model = build_resnet18(torch.nn)
        # Same weights in both, so both run the same numbers.
        tc_model.load_state_dict(
            {k: tc.from_numpy(v.detach().numpy().copy()) for k, v in t_model.state_dict().items()}
        )

    x, y = tc.from_numpy(x_np), tc.from_numpy(y_np)
    opt = toptim.SGD(tc_model.parameters(), lr=0.01, momentum=0.9)

    def tc_step():
        opt.zero_grad()
        loss = tF.cross_entropy(tc_model(x), y)
        loss.backward()
        opt.step()

    t_tc = median_time(tc_step, args.runs)
    line = f"resnet18 train step, batch {args.batch}, 3x224x224: tensorcore {t_tc * 1e3:.1f} ms"
    if torch is not None:
        tx, ty = torch.from_numpy(x_np), torch.from_numpy(y_np)
        topt = torch.optim.SGD(t_model.parameters(), lr=0.01, momentum=0.9)

        def torch_step():
            topt.zero_grad()
            loss = torch.nn.functional.cross_entropy(t_model(tx), ty)
            loss.backward()
            topt.step()

        t_t = median_time(torch_step, args.runs)
        line += f"  torch {t_t * 1e3:.1f} ms  ratio {t_tc / t_t:.2f}"
    print(line)


if __name__ == "__main__":
    main()
