"""The ConvTasNet pipeline end to end on tiny generated LibriMix: the loss falls, kill-and-resume
equals an uninterrupted run bit for bit, held-out SI-SNRi/SDRi are reported."""

import json

import pipeline_testing as pt


def test_convtasnet_trains_and_resumes_bit_exactly(librimix_root, tmp_path):
    pt.check_pipeline("convtasnet", librimix_root, tmp_path, steps=8)
    metrics = json.loads((tmp_path / "straight" / "metrics.json").read_text())["final"]
    for name in ("si_snr", "si_snri", "sdr", "sdri"):
        assert name in metrics, name


def test_convtasnet_amp_trains(librimix_root, tmp_path):
    # bfloat16 autocast on the CPU (float16 + GradScaler on CUDA)
    pt.run("convtasnet", librimix_root, tmp_path, "--amp", "--max-steps", 4, "--no-final-eval")
    losses = [v for _, v in pt.load(tmp_path)["train"]["history"]["loss"]]
    assert min(losses[-2:]) < losses[0], losses


def test_convtasnet_worker_processes_give_the_same_run(librimix_root, tmp_path):
    # per-item crops come from (seed, epoch, index), not from the process that loads the item
    args = ("--max-steps", 3, "--no-final-eval", "--max-train-items", 8)
    pt.run("convtasnet", librimix_root, tmp_path / "main", *args)
    pt.run("convtasnet", librimix_root, tmp_path / "workers", *args, "--workers", 2)
    pt.assert_same_training_state(pt.load(tmp_path / "main"), pt.load(tmp_path / "workers"))


def test_sigterm_checkpoints_and_says_how_to_resume(librimix_root, tmp_path):
    import signal
    import subprocess
    import time

    cmd = pt.command(
        "convtasnet", librimix_root, tmp_path, "--max-steps", 1000, "--checkpoint-every-steps", 1
    )
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while pt.checkpoint_step(tmp_path) < 1 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    step = pt.load(tmp_path)["train"]["step"]
    assert f"interrupted at step {step}; resume with --resume" in out


def test_early_stopping_ends_the_run_for_good(librimix_root, tmp_path):
    import json

    # a vanishing learning rate leaves the held-out SI-SNRi where it was: no improvement
    args = ("--epochs", 6, "--eval-every", 1, "--early-stop-patience", 2, "--optimizer", "sgd",
            "--learning-rate", 1e-30, "--max-train-items", 4)  # fmt: skip
    proc = pt.run("convtasnet", librimix_root, tmp_path, *args)
    assert "early stopping: si_snri did not improve for 2 evaluations" in proc.stdout
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["stop_reason"] == "early-stopping" and metrics["epochs_completed"] == 3
    assert metrics["best"]["epoch"] == 1
    proc = pt.run("convtasnet", librimix_root, tmp_path, *args, "--resume")
    assert pt.load(tmp_path)["train"]["epoch"] == 3


def _task(librimix_root, output_dir, *extra):
    from tensorcore.pipelines.common.cli import build_parser
    from tensorcore.pipelines.convtasnet.task import ConvTasNetTask

    argv = [
        "--data-root",
        str(librimix_root),
        "--output-dir",
        str(output_dir),
        *pt.TINY["convtasnet"],
        *map(str, extra),
    ]
    task = ConvTasNetTask(build_parser(ConvTasNetTask, "test").parse_args(argv))
    train, _ = task.datasets()
    return task, train


def test_dynamic_mixing_pairs_other_speakers_and_repeats_per_seed(librimix_root, tmp_path):
    import numpy as np

    import tensorcore.audio as ta

    task, train = _task(librimix_root, tmp_path, "--dynamic-mixing", "--dynamic-mixing-gain-db", 6)
    crop = int(0.25 * 8000)
    stored = [train[i][1][0].numpy() for i in range(len(train))]
    for index in range(len(train)):
        mixture, sources, length = task.load_train_item(train, index, np.random.default_rng(index))
        assert tuple(sources.shape) == (2, crop) and tuple(mixture.shape) == (1, crop)
        assert 0 < length <= crop
        np.testing.assert_allclose(mixture.numpy()[0], sources.numpy().sum(0), atol=1e-6)
        # a new mixture: not a crop of any stored one
        assert not any(np.allclose(mixture.numpy()[0], s[:crop], atol=1e-4) for s in stored)
        again = task.load_train_item(train, index, np.random.default_rng(index))
        assert np.array_equal(again[0].numpy(), mixture.numpy())

    # each remixed source is a gain-scaled crop of one training source file; two speakers
    _, sources, length = task.load_train_item(train, 0, np.random.default_rng(7))
    pool = [entry for item in task._source_pool(train) for entry in item]
    speakers = set()
    for k in range(2):
        piece = sources[k, :length].numpy().astype(np.float64)
        for path, speaker in pool:
            wave = ta.load(path)[0][0].numpy().astype(np.float64)
            if len(wave) < length:
                continue
            start = int(np.argmax(np.abs(np.correlate(wave, piece, "valid"))))
            window = wave[start : start + length]
            gain = float(window @ piece / max(window @ window, 1e-30))
            if np.allclose(window * gain, piece, atol=1e-5):
                assert 10 ** (-6 / 20) - 1e-4 <= abs(gain) <= 10 ** (6 / 20) + 1e-4, gain
                speakers.add(speaker)
                break
        else:
            raise AssertionError(f"source {k} is no scaled crop of a training source")
    assert len(speakers) == 2, speakers


def test_dynamic_mixing_trains_and_repeats_with_worker_processes(librimix_root, tmp_path):
    # the remix choices come from (seed, epoch, index), as the crops do
    args = ("--dynamic-mixing", "--max-steps", 4, "--no-final-eval")
    pt.run("convtasnet", librimix_root, tmp_path / "main", *args)
    pt.run("convtasnet", librimix_root, tmp_path / "workers", *args, "--workers", 2)
    main = pt.load(tmp_path / "main")
    pt.assert_same_training_state(main, pt.load(tmp_path / "workers"))
    assert main["train"]["step"] == 4
