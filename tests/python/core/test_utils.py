import pytest

import tensorcore as tc
from tensorcore.utils import benchmark


def test_timer_measurement_statistics():
    x = tc.ones(100)
    m = benchmark.Timer(stmt="x + x", globals={"x": x}, label="add").blocked_autorange(
        min_run_time=0.05
    )
    assert m.median > 0 and m.iqr >= 0 and len(m.times) >= 3
    text = repr(m)
    assert "Median:" in text and "IQR:" in text and "runs per measurement" in text
    single = benchmark.Timer("x * 2", globals={"x": x}).timeit(100)
    assert single.number_per_run == 100 and len(single.times) == 1


def test_deterministic_flag_raises_for_nondeterministic_ops():
    assert not tc.are_deterministic_algorithms_enabled()
    tc._C._alert_not_deterministic("scatter_add_cuda")  # off: silent
    tc.use_deterministic_algorithms(True)
    try:
        assert tc.are_deterministic_algorithms_enabled()
        with pytest.raises(RuntimeError, match="scatter_add_cuda does not have a deterministic"):
            tc._C._alert_not_deterministic("scatter_add_cuda")
        tc.use_deterministic_algorithms(True, warn_only=True)
        tc._C._alert_not_deterministic("scatter_add_cuda")  # warns only
    finally:
        tc.use_deterministic_algorithms(False)
    tc.set_deterministic(True)
    assert tc.is_deterministic()
    tc.set_deterministic(False)


def test_num_threads_roundtrip():
    prev = tc.get_num_threads()
    tc.set_num_threads(1)
    assert tc.get_num_threads() == 1
    tc.set_num_threads(prev)
