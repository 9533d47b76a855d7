"""The engine's parts on their own: the resumable batch sampler and the learning-rate schedule."""

import argparse

import pytest

import tensorcore as tc
from tensorcore.pipelines.common import optim
from tensorcore.pipelines.common.data import EpochBatchSampler
from tensorcore.pipelines.common.errors import PipelineError


def test_sampler_order_depends_on_seed_and_epoch_only_and_resumes_mid_epoch():
    s = EpochBatchSampler(10, 3, seed=5)
    first = s.batches(0)
    assert sorted(i for b in first for i in b) == list(range(10))
    assert [len(b) for b in first] == [3, 3, 3, 1]
    assert EpochBatchSampler(10, 3, seed=5).batches(0) == first
    assert s.batches(1) != first and EpochBatchSampler(10, 3, seed=6).batches(0) != first
    s.set_epoch(0, start_batch=2)
    assert list(s) == [[(0, i) for i in b] for b in first[2:]]
    assert len(s) == 2


def test_sampler_groups_like_grouped_batch_sampler():
    groups = [0, 1, 0, 1, 0, 1, 0, 0]
    s = EpochBatchSampler(8, 2, seed=0, group_ids=groups)
    batches = s.batches(0)
    assert sorted(i for b in batches for i in b) == list(range(8))
    for b in batches:
        assert len({groups[i] for i in b}) == 1
    with pytest.raises(PipelineError, match="training set is empty"):
        EpochBatchSampler(0, 2, seed=0)


def _args(**kw):
    parser = argparse.ArgumentParser()
    optim.add_arguments(parser)
    args = parser.parse_args([])
    for k, v in kw.items():
        setattr(args, k, v)
    return args


def _optimizer(lr=1.0):
    return tc.optim.SGD([tc.zeros(1, requires_grad=True)], lr=lr)


def test_warmup_then_multistep():
    opt = _optimizer()
    sched = optim.LRSchedule(opt, _args(scheduler="multistep", lr_steps=[2, 4], gamma=0.1,
                                        warmup_iters=4, warmup_factor=0.2))  # fmt: skip
    lrs = [sched.lr()]
    for _ in range(5):
        sched.step_iteration()
        lrs.append(sched.lr())
    assert lrs == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0, 1.0])
    sched.step_epoch(2)
    assert sched.lr() == pytest.approx(0.1)
    sched.step_epoch(4)
    assert sched.lr() == pytest.approx(0.01)
    state = sched.state_dict()
    other = optim.LRSchedule(_optimizer(), _args(scheduler="multistep", lr_steps=[2, 4], gamma=0.1,
                                                 warmup_iters=4, warmup_factor=0.2))  # fmt: skip
    other.load_state_dict(state)
    assert other.lr() == pytest.approx(0.01)


def test_plateau_halves_after_patience():
    sched = optim.LRSchedule(_optimizer(), _args(scheduler="reduceonplateau", plateau_factor=0.5,
                                                 plateau_patience=1), mode="max")  # fmt: skip
    for epoch, metric in enumerate([1.0, 2.0, 1.5, 1.9, 1.0], 1):
        sched.step_epoch(epoch, metric)
    # best 2.0 at epoch 2; two evaluations without improvement exceed patience 1 once
    assert sched.lr() == pytest.approx(0.5)


def test_optimizers_from_the_command_line():
    params = [tc.zeros(2, requires_grad=True)]
    assert isinstance(
        optim.build_optimizer(_args(optimizer="adadelta", momentum=0.8), params), tc.optim.Adadelta
    )
    assert (
        optim.build_optimizer(_args(optimizer="adadelta", momentum=0.8), params).param_groups[0][
            "rho"
        ]
        == 0.8
    )
    assert isinstance(optim.build_optimizer(_args(optimizer="adamw"), params), tc.optim.AdamW)
    with pytest.raises(PipelineError, match="--learning-rate must be positive"):
        optim.build_optimizer(_args(learning_rate=0.0), params)


@pytest.mark.parametrize(
    "pipeline, option",
    [("wav2letter", "--lexicon"), ("wavernn", "--seq-len-factor"),
     ("convtasnet", "--crop-length"), ("retinanet", "--aspect-ratio-group-factor")],
)  # fmt: skip
def test_help_lists_common_and_pipeline_options(pipeline, option):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", f"tensorcore.pipelines.{pipeline}", "--help"],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    for name in ("--data-root", "--output-dir", "--max-minutes", "--max-steps", "--resume", option):
        assert name in out, name
