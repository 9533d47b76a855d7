"""Parity helpers for the vision model tests: torchvision models (random init) are saved with
torch.save, loaded into ours with tc.load + strict load_state_dict, and their outputs and
gradients compared."""

import contextlib

import numpy as np

import tensorcore as tc
import tensorcore.nn.init as tc_init


def channels_last(x):
    """An NCHW tensor whose memory is NHWC (tensorcore has no memory_format argument yet: this is
    the layout torch's x.contiguous(memory_format=torch.channels_last) produces)."""
    return x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)


@contextlib.contextmanager
def skip_random_init():
    """Builds our models without drawing their random initial weights, for tests that overwrite
    every parameter with torchvision's right away: tc's normal_ is several times slower than
    torch's, and the largest models would spend seconds on numbers nobody reads. The random
    initialisation itself is tested separately (test_models_init.py)."""
    names = (
        "normal_",
        "uniform_",
        "kaiming_normal_",
        "kaiming_uniform_",
        "trunc_normal_",
        "xavier_uniform_",
        "xavier_normal_",
    )
    saved = {n: getattr(tc_init, n) for n in names if hasattr(tc_init, n)}
    try:
        for n in saved:
            setattr(tc_init, n, lambda tensor, *args, **kwargs: tensor)
        yield
    finally:
        for n, fn in saved.items():
            setattr(tc_init, n, fn)


def perturb_batchnorm(torch, tmodel, seed=0):
    """Gives every BatchNorm of a torchvision model random statistics and affine parameters, so
    eval-mode outputs depend on each of them (fresh ones are the identity)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in tmodel.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(n, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(n, generator=gen) * 0.1)
                m.num_batches_tracked.fill_(7)
    return tmodel


class Parity:
    def __init__(self, torch, torchvision, tmp_path):
        self.torch, self.tv, self.tmp_path = torch, torchvision, tmp_path

    def transfer(self, tmodel, model, name="weights.pth"):
        """torch.save(tmodel.state_dict()) to a file, then tc.load it into model, strictly."""
        path = self.tmp_path / name
        self.torch.save(tmodel.state_dict(), path)
        result = model.load_state_dict(tc.load(path), strict=True)
        assert not result.missing_keys and not result.unexpected_keys
        path.unlink()
        return model

    def pair(self, tv_builder, tc_builder, seed=0, **kwargs):
        """(torchvision model, our model with the same weights), both in eval mode."""
        self.torch.manual_seed(seed)
        tmodel = perturb_batchnorm(self.torch, tv_builder(**kwargs).eval(), seed)
        with skip_random_init():
            model = tc_builder(**kwargs).eval()
        self.transfer(tmodel, model)
        return tmodel, model

    def pair_named(self, name, **kwargs):
        """pair() of the builder called `name` in both torchvision.models and ours."""
        import tensorcore.vision.models as models

        return self.pair(getattr(self.tv.models, name), getattr(models, name), **kwargs)

    @staticmethod
    def to_numpy(out):
        if isinstance(out, dict):
            return {k: Parity.to_numpy(v) for k, v in out.items()}
        return out.detach().numpy() if hasattr(out, "detach") else out

    def run_both(self, tmodel, model, x_np):
        with self.torch.no_grad():
            ref = self.to_numpy(tmodel(self.torch.from_numpy(x_np)))
        with tc.no_grad():
            out = self.to_numpy(model(tc.from_numpy(x_np)))
        return out, ref

    @staticmethod
    def assert_close(out, ref, rel, what="output"):
        if isinstance(ref, dict):
            assert list(out) == list(ref), f"{what}: keys {list(out)} != {list(ref)}"
            for k in ref:
                Parity.assert_close(out[k], ref[k], rel, f"{what}[{k!r}]")
            return
        assert out.shape == ref.shape, f"{what}: shape {out.shape} != {ref.shape}"
        assert out.dtype == ref.dtype, f"{what}: dtype {out.dtype} != {ref.dtype}"
        scale = max(1e-30, float(np.abs(ref).max()))
        err = float(np.abs(out.astype(np.float64) - ref).max())
        assert err <= rel * scale, f"{what}: max abs error {err:.3g} > {rel:g} * {scale:.3g}"

    def check_eval(self, tmodel, model, shape, seed=1, rel32=2e-5, rel64=1e-11):
        """float32 then float64 eval outputs against torchvision's (the models stay in float64)."""
        x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        out, ref = self.run_both(tmodel, model, x)
        self.assert_close(out, ref, rel32, "float32 output")
        tmodel.double()
        model.double()
        out, ref = self.run_both(tmodel, model, x.astype(np.float64))
        self.assert_close(out, ref, rel64, "float64 output")

    def _train_step(self, model, x, loss_fn, is_torch):
        model.train()
        for p in model.parameters():
            p.grad = None
        loss = loss_fn(model((self.torch if is_torch else tc).from_numpy(x)))
        loss.backward()
        return float(loss.item()), {n: p.grad for n, p in model.named_parameters()}

    def check_classifier_train(self, tmodel, model, shape, labels, rel64=1e-8):
        """check_train with cross-entropy against `labels` on a seeded random batch of `shape`."""
        x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
        y = np.array(labels)
        self.check_train(
            tmodel,
            model,
            x,
            lambda out: tc.nn.functional.cross_entropy(out, tc.from_numpy(y)),
            lambda out: self.torch.nn.functional.cross_entropy(out, self.torch.from_numpy(y)),
            rel64,
        )

    def check_train(self, tmodel, model, x_np, tc_loss, torch_loss, rel64=1e-8):
        """Train mode: loss, every parameter's gradient and the updated BatchNorm statistics.

        float64 against torchvision's float64 tightly (any formula difference shows). In float32,
        BatchNorm over a tiny batch makes some gradients ill-conditioned (torch's own float32
        gradients then differ from its float64 ones by 10% or more, and which library rounds
        luckier varies per parameter), so float32 gradients must be as accurate as torch's
        overall: the mean and max of the per-parameter relative errors against torch's float64
        gradients within 4x of torch's own float32 errors. A float32-only kernel bug gives errors
        of order 1. Gradients that are zero in exact arithmetic (a convolution bias followed by
        BatchNorm) are measured against a millionth of the model's largest gradient.
        The models are left in float64, in train mode."""
        tl32, tg32 = self._train_step(tmodel.float(), x_np.astype(np.float32), torch_loss, True)
        l32, g32 = self._train_step(model.float(), x_np.astype(np.float32), tc_loss, False)
        tl64, tg64 = self._train_step(tmodel.double(), x_np.astype(np.float64), torch_loss, True)
        l64, g64 = self._train_step(model.double(), x_np.astype(np.float64), tc_loss, False)
        assert list(g64) == list(tg64)
        self.assert_close(np.asarray(l64), np.asarray(tl64), 1e-10, "float64 loss")
        self.assert_close(np.asarray(l32), np.asarray(tl64), 1e-4, "float32 loss")
        floor = 1e-6 * max(float(g.abs().max()) for g in tg64.values())
        ours, theirs = [], []
        for name, truth_t in tg64.items():
            truth = truth_t.numpy()
            scale = max(float(np.abs(truth).max()), floor)
            assert g64[name] is not None and g32[name] is not None, f"no gradient for {name}"
            err64 = float(np.abs(g64[name].numpy() - truth).max())
            assert err64 <= rel64 * scale, (
                f"float64 grad of {name}: error {err64:.3g} > {rel64:g} * {scale:.3g}"
            )
            ours.append(float(np.abs(g32[name].numpy() - truth).max()) / scale)
            theirs.append(float(np.abs(tg32[name].numpy() - truth).max()) / scale)
        ours, theirs = np.array(ours), np.array(theirs)
        worst = [
            (list(tg64)[i], round(ours[i], 5), round(theirs[i], 5)) for i in np.argsort(-ours)[:3]
        ]
        assert ours.mean() <= 4 * theirs.mean() + 1e-5 and ours.max() <= 4 * theirs.max() + 1e-4, (
            f"float32 gradients less accurate than torch's: mean relative error {ours.mean():.3g} vs "
            f"{theirs.mean():.3g}, max {ours.max():.3g} vs {theirs.max():.3g}; worst (name, ours, torch): {worst}"
        )
        # Both libraries updated the running statistics twice (float32, then float64 steps).
        tbuffers = dict(tmodel.named_buffers())
        for name, b in model.named_buffers():
            # Running variances inherit the float32 rounding of the activations above them.
            self.assert_close(b.numpy(), tbuffers[name].numpy(), 1e-3, f"buffer {name}")
