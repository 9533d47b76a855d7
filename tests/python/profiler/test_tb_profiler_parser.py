"""Our traces through the TensorBoard profiler plugin's own loader (torch-tb-profiler): it must
find the steps, build the operator table and draw the memory curve."""

import os

import pytest

pytest.importorskip("pandas")
tb_data = pytest.importorskip("torch_tb_profiler.profiler.data")
tb_run_generator = pytest.importorskip("torch_tb_profiler.profiler.run_generator")

import tensorcore as tc  # noqa: E402
from tensorcore.profiler import profile, schedule, tensorboard_trace_handler  # noqa: E402


def small_training_run(logdir, steps=5):
    model = tc.nn.Sequential(
        tc.nn.Conv2d(3, 8, 3, padding=1), tc.nn.ReLU(), tc.nn.Flatten(), tc.nn.Linear(8 * 8 * 8, 4)
    )
    opt = tc.optim.SGD(model.parameters(), lr=0.01)
    x, y = tc.randn(4, 3, 8, 8), tc.randint(0, 4, (4,))
    with profile(
        schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
        on_trace_ready=tensorboard_trace_handler(logdir, worker_name="worker0"),
        record_shapes=True,
        profile_memory=True,
        with_stack=True,
    ) as prof:
        for _ in range(steps):
            opt.zero_grad()
            loss = tc.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            prof.step()
    return prof


def test_torch_tb_profiler_loads_our_trace(tmp_path):
    small_training_run(tmp_path)
    (name,) = os.listdir(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    data = tb_data.RunProfileData.parse("worker0", None, str(tmp_path / name), str(cache))
    # The steps of the active window.
    assert [str(s) for s in data.steps_names] == ["2", "3"]
    # The operator table: our ops with call counts (2 steps).
    ops = {op.name: op for op in data.op_list_groupby_name}
    assert {"aten::conv2d", "aten::linear", "aten::relu"} <= set(ops) or {
        "aten::conv2d",
        "aten::relu",
    } <= set(ops)
    assert ops["aten::conv2d"].calls == 2
    assert any(name.endswith("Backward0") for name in ops)
    assert any(op.input_shape != "[]" for op in data.op_list_groupby_name_input)
    # The memory view.
    run = tb_run_generator.RunGenerator("worker0", None, data).generate_run_profile()
    curve = run.get_memory_curve()
    cpu_rows = curve["rows"]["CPU"]
    assert len(cpu_rows) > 10
    assert max(row[1] for row in cpu_rows) > 0  # Total Allocated over time
    assert "CPU" in curve["metadata"]["peaks"]
    stats = run.get_memory_stats()
    assert any(row[0] == "aten::conv2d" for row in stats["rows"]["CPU"])
