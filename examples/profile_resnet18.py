"""Profiling a ResNet-18 training step with tc.profiler (docs/profiling.md).

Run: .venv/bin/python examples/profile_resnet18.py [--batch 8] [--size 224] [--logdir ./log]
Prints the op table (by self CPU time), the costliest input shapes and the ops that hold the
most memory, and writes a TensorBoard trace into --logdir (`tensorboard --logdir ./log` with the
torch-tb-profiler plugin, or open the .pt.trace.json in Perfetto).
"""

import argparse

import tensorcore as tc
from tensorcore.profiler import profile, record_function, schedule, tensorboard_trace_handler
from tensorcore.vision.models import resnet18


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--logdir", default="./log/resnet18")
    p.add_argument("--rows", type=int, default=12)
    args = p.parse_args()

    model = resnet18()
    opt = tc.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = tc.randn(args.batch, 3, args.size, args.size)
    y = tc.randint(0, 1000, (args.batch,))

    with profile(
        schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
        on_trace_ready=tensorboard_trace_handler(args.logdir),
        record_shapes=True,
        profile_memory=True,
        with_stack=True,
    ) as prof:
        for _ in range(6):
            with record_function("forward"):
                loss = tc.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            prof.step()

    averages = prof.key_averages()
    print(averages.table(sort_by="self_cpu_time_total", row_limit=args.rows))
    by_shape = prof.key_averages(group_by_input_shape=True)
    print(by_shape.table(sort_by="cpu_time_total", row_limit=5))
    print(averages.table(sort_by="self_cpu_memory_usage", row_limit=5))


if __name__ == "__main__":
    main()
