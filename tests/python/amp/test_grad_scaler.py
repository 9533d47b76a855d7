"""GradScaler on CPU tensors and its two native primitives. torch's own GradScaler needs CUDA, so
trajectories are checked against torch's documented update rule, re-implemented naively here."""

import pickle

import numpy as np
import pytest

import tensorcore as tc

unscale_ = tc._amp_foreach_non_finite_check_and_unscale_
update_scale_ = tc._amp_update_scale_


class NaiveScaler:
    """torch.cuda.amp.GradScaler's update rule (docs + _amp_update_scale_), in float32."""

    def __init__(self, init_scale, growth_factor, backoff_factor, growth_interval):
        self.scale = np.float32(init_scale)
        self.tracker = 0
        self.g, self.b, self.interval = growth_factor, backoff_factor, growth_interval

    def update(self, found_inf):
        if found_inf:
            self.scale = np.float32(self.scale * self.b)
            self.tracker = 0
        elif self.tracker + 1 == self.interval:
            grown = np.float32(self.scale * self.g)
            if np.isfinite(grown):
                self.scale = grown
            self.tracker = 0
        else:
            self.tracker += 1


def model_and_opt(lr=0.1):
    w = tc.nn.Parameter(tc.ones(3))
    return w, tc.optim.SGD([w], lr=lr)


def set_grad(w, values):
    w.grad = tc.tensor(np.asarray(values, dtype=np.float32))


# ---------------------------------------------------------------- native primitives


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_unscale_values_and_found_inf(dtype):
    dt = getattr(tc, dtype)
    g = tc.tensor([2.0, -4.0, 8.0]).to(dt)
    found = tc.zeros(1)
    unscale_([g], found, tc.tensor([0.25]))
    np.testing.assert_allclose(g.float().numpy(), [0.5, -1.0, 2.0])
    assert found.item() == 0.0
    bad = tc.tensor([1.0, float("nan"), 3.0]).to(dt)
    unscale_([bad], found, tc.tensor([0.5]))
    assert found.item() == 1.0
    assert bad.float()[0].item() == 0.5


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_non_finite_detected_in_any_grad(value):
    grads = [tc.ones(1000), tc.ones(70000), tc.ones(5)]
    grads[1][12345] = value
    found = tc.zeros(1)
    unscale_(grads, found, tc.tensor([1.0]))
    assert found.item() == 1.0
    # inv_scale == 1 leaves values untouched.
    assert grads[0].sum().item() == 1000


def test_found_inf_is_never_cleared():
    found = tc.ones(1)
    unscale_([tc.ones(4)], found, tc.tensor([2.0]))
    assert found.item() == 1.0


def test_unscale_strided_grad():
    base = tc.arange(12, dtype=tc.float32).reshape(3, 4)
    view = base.t()  # non-contiguous
    unscale_([view], tc.zeros(1), tc.tensor([0.5]))
    np.testing.assert_allclose(base.numpy(), np.arange(12).reshape(3, 4) * 0.5)


def test_unscale_large_matches_numpy():
    a = np.random.default_rng(1).standard_normal(200003).astype(np.float32)
    g = tc.tensor(a)
    unscale_([g], tc.zeros(1), tc.tensor([1 / 1024.0]))
    np.testing.assert_array_equal(g.numpy(), a * np.float32(1 / 1024.0))


def test_primitive_argument_errors():
    with pytest.raises(ValueError, match="1-element"):
        unscale_([tc.ones(2)], tc.zeros(2), tc.ones(1))
    with pytest.raises(TypeError, match="found_inf must be a float32"):
        unscale_([tc.ones(2)], tc.zeros(1, dtype=tc.float64), tc.ones(1))
    with pytest.raises(TypeError, match="floating-point"):
        unscale_([tc.ones(2, dtype=tc.int32)], tc.zeros(1), tc.ones(1))
    with pytest.raises(TypeError, match="growth_tracker must be a int32"):
        update_scale_(tc.ones(1), tc.zeros(1), tc.zeros(1), 2.0, 0.5, 10)
    with pytest.raises(ValueError, match="growth_interval"):
        update_scale_(tc.ones(1), tc.zeros(1, dtype=tc.int32), tc.zeros(1), 2.0, 0.5, 0)


def test_update_scale_rule():
    scale, tracker = tc.tensor([4.0]), tc.zeros(1, dtype=tc.int32)
    update_scale_(scale, tracker, tc.zeros(1), 2.0, 0.5, 2)
    assert (scale.item(), tracker.item()) == (4.0, 1)
    update_scale_(scale, tracker, tc.zeros(1), 2.0, 0.5, 2)
    assert (scale.item(), tracker.item()) == (8.0, 0)
    update_scale_(scale, tracker, tc.ones(1), 2.0, 0.5, 2)
    assert (scale.item(), tracker.item()) == (4.0, 0)
    # Growth that would overflow float32 keeps the old scale.
    big = tc.tensor([3e38])
    update_scale_(big, tc.zeros(1, dtype=tc.int32), tc.zeros(1), 2.0, 0.5, 1)
    assert big.item() == pytest.approx(3e38, rel=1e-6)


# ---------------------------------------------------------------- GradScaler


@pytest.mark.parametrize("interval", [1, 3, 7])
def test_trajectory_matches_update_rule(interval):
    rng = np.random.default_rng(interval)
    scaler = tc.amp.GradScaler(
        init_scale=1024.0, growth_factor=3.0, backoff_factor=0.25, growth_interval=interval
    )
    naive = NaiveScaler(1024.0, 3.0, 0.25, interval)
    w, opt = model_and_opt()
    for it in range(60):
        inf = bool(rng.random() < 0.3)
        loss = (w * w).sum()
        scaled = scaler.scale(loss)
        assert scaled.item() == pytest.approx(loss.item() * naive.scale, rel=1e-6)
        opt.zero_grad()
        scaled.backward()
        if inf:
            w.grad[1] = float("inf")
        before = w.detach().clone()
        scaler.step(opt)
        if inf:
            np.testing.assert_array_equal(w.detach().numpy(), before.numpy())  # skipped
        else:
            # The step used unscaled grads: w -= lr * 2w.
            np.testing.assert_allclose(w.detach().numpy(), before.numpy() * 0.8, rtol=1e-5)
        scaler.update()
        naive.update(inf)
        assert scaler.get_scale() == naive.scale
        assert scaler._get_growth_tracker() == naive.tracker


def test_scale_grows_and_backs_off():
    scaler = tc.amp.GradScaler(init_scale=8.0, growth_interval=2)
    w, opt = model_and_opt()
    history = []
    for inf in (False, False, False, True, False, False):
        opt.zero_grad()
        scaler.scale((w * 1.0).sum()).backward()
        if inf:
            w.grad[0] = float("nan")
        scaler.step(opt)
        scaler.update()
        history.append(scaler.get_scale())
    assert history == [8.0, 16.0, 16.0, 8.0, 8.0, 16.0]


def test_scale_nested_outputs():
    scaler = tc.amp.GradScaler(init_scale=4.0)
    a, b, c = tc.ones(2), tc.ones(3), tc.ones(1)
    out = scaler.scale([a, (b, c)])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    assert out[0].sum().item() == 8.0 and out[1][0].sum().item() == 12.0
    assert scaler.scale(a).sum().item() == 8.0
    with pytest.raises(ValueError):
        scaler.scale("loss")


def test_unscale_then_clip_then_step():
    scaler = tc.amp.GradScaler(init_scale=64.0)
    w, opt = model_and_opt(lr=1.0)
    scaler.scale((w * tc.tensor([1.0, 2.0, 3.0])).sum()).backward()
    scaler.unscale_(opt)
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 2.0, 3.0])
    tc.nn.utils.clip_grad_norm_([w], 1.0)
    scaler.step(opt)  # does not unscale a second time
    np.testing.assert_allclose(w.detach().numpy(), 1 - np.array([1, 2, 3]) / np.sqrt(14), rtol=1e-5)
    scaler.update()


def test_stage_errors():
    scaler = tc.amp.GradScaler()
    w, opt = model_and_opt()
    with pytest.raises(RuntimeError, match="_scale is None"):
        scaler.step(opt)
    scaler.scale(w.sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="after step"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="Closure"):
        scaler.step(opt, closure=lambda: 0)
    scaler.update()
    with pytest.raises(RuntimeError, match="No inf checks"):
        scaler.update()


def test_fp16_grads_rejected():
    scaler = tc.amp.GradScaler()
    w = tc.nn.Parameter(tc.ones(2, dtype=tc.float16))
    opt = tc.optim.SGD([w], lr=0.1)
    scaler.scale(tc.ones(1)).sum()
    w.grad = tc.ones(2, dtype=tc.float16)
    with pytest.raises(ValueError, match="FP16"):
        scaler.unscale_(opt)


def test_per_optimizer_state_and_two_optimizers():
    scaler = tc.amp.GradScaler(init_scale=2.0, growth_interval=1)
    w1, opt1 = model_and_opt()
    w2, opt2 = model_and_opt()
    scaler.scale((w1 + w2).sum()).backward()
    w2.grad[0] = float("inf")
    before1 = w1.detach().clone()
    before2 = w2.detach().clone()
    scaler.step(opt1)
    scaler.step(opt2)
    assert not np.array_equal(w1.detach().numpy(), before1.numpy())
    np.testing.assert_array_equal(w2.detach().numpy(), before2.numpy())
    scaler.update()
    assert scaler.get_scale() == 1.0  # any inf backs off


def test_update_with_new_scale():
    scaler = tc.amp.GradScaler()
    w, opt = model_and_opt()
    scaler.scale(w.sum())
    scaler.update(new_scale=128.0)
    assert scaler.get_scale() == 128.0
    scaler.update(tc.tensor([32.0]))
    assert scaler.get_scale() == 32.0
    with pytest.raises(TypeError):
        scaler.update(tc.tensor([32.0], dtype=tc.float64))


def test_state_dict_round_trip_and_pickle():
    scaler = tc.amp.GradScaler(
        init_scale=256.0, growth_factor=4.0, backoff_factor=0.125, growth_interval=5
    )
    w, opt = model_and_opt()
    for _ in range(3):
        opt.zero_grad()
        scaler.scale(w.sum()).backward()
        scaler.step(opt)
        scaler.update()
    sd = scaler.state_dict()
    assert sd == {
        "scale": 256.0,
        "growth_factor": 4.0,
        "backoff_factor": 0.125,
        "growth_interval": 5,
        "_growth_tracker": 3,
    }
    fresh = tc.amp.GradScaler()
    fresh.load_state_dict(sd)
    assert fresh.state_dict() == sd
    # A restored scaler continues the same trajectory: two more good steps grow the scale.
    for s in (scaler, fresh):
        for _ in range(2):
            opt.zero_grad()
            s.scale(w.sum()).backward()
            s.step(opt)
            s.update()
    assert scaler.get_scale() == fresh.get_scale() == 1024.0
    clone = pickle.loads(pickle.dumps(scaler))
    assert clone.state_dict() == scaler.state_dict()
    with pytest.raises(RuntimeError, match="empty"):
        fresh.load_state_dict({})
    assert tc.amp.GradScaler(enabled=False).state_dict() == {}
    # torch's state_dict loads too (same keys).
    tc.amp.GradScaler().load_state_dict(
        {
            "scale": 8.0,
            "growth_factor": 2.0,
            "backoff_factor": 0.5,
            "growth_interval": 2000,
            "_growth_tracker": 0,
        }
    )


def test_disabled_scaler_is_a_passthrough():
    scaler = tc.cuda.amp.GradScaler(enabled=False)
    w, opt = model_and_opt()
    loss = w.sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 1.0
    np.testing.assert_allclose(w.detach().numpy(), [0.9, 0.9, 0.9])


def test_constructor_validation():
    with pytest.raises(ValueError):
        tc.amp.GradScaler(growth_factor=1.0)
    with pytest.raises(ValueError):
        tc.amp.GradScaler(backoff_factor=1.5)
    with pytest.raises(ValueError):
        tc.amp.GradScaler(growth_interval=0)
