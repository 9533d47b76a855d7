"""Parity helpers for the vision model tests: torchvision models (random init) are saved with
torch.save, loaded into ours with tc.load + strict load_state_dict, and their outputs and
gradients compared."""
import numpy as np

import tensorcore as tc


def channels_last(x):
    """An NCHW tensor whose memory is NHWC (tensorcore has no memory_format argument yet: this is
    the layout torch's x.contiguous(memory_format=torch.channels_last) produces)."""
    return x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)


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
        tmodel = tv_builder(**kwargs).eval()
        model = tc_builder(**kwargs).eval()
        self.transfer(tmodel, model)
        return tmodel, model

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
        scale = max(1.0, float(np.abs(ref).max()))
        err = float(np.abs(out.astype(np.float64) - ref).max())
        assert err <= rel * scale, f"{what}: max abs error {err:.3g} > {rel:g} * {scale:.3g}"

    def check_eval(self, tmodel, model, shape, seed=1, rel32=2e-5, rel64=1e-11):
        """float32 then float64 eval outputs against torchvision's."""
        x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        out, ref = self.run_both(tmodel, model, x)
        self.assert_close(out, ref, rel32, "float32 output")
        tmodel.double()
        model.double()
        out, ref = self.run_both(tmodel, model, x.astype(np.float64))
        self.assert_close(out, ref, rel64, "float64 output")
        tmodel.float()
        model.float()

    def _train_step(self, model, x_np, loss_fn, is_torch, dtype):
        model.float() if dtype == np.float32 else model.double()
        model.train()
        for p in model.parameters():
            p.grad = None
        x = x_np.astype(dtype)
        loss = loss_fn(model((self.torch if is_torch else tc).from_numpy(x)))
        loss.backward()
        grads = {n: p.grad.numpy().astype(np.float64) for n, p in model.named_parameters()}
        buffers = {n: b.numpy().astype(np.float64) for n, b in model.named_buffers()}
        return float(loss.item()), grads, buffers

    def check_train(self, tmodel, model, x_np, tc_loss, torch_loss):
        """Train mode: loss, every parameter's gradient and the updated BatchNorm statistics.
        float64 against torchvision's float64 tightly (any formula difference shows). In float32,
        BatchNorm over a tiny batch makes some gradients ill-conditioned (torch's own float32
        gradients then differ from its float64 ones by 10% or more, and which library rounds luckier
        varies per parameter), so float32 gradients must be as accurate as torch's overall: the mean
        and max of the per-parameter relative errors against torch's float64 gradients within 4x
        of torch's own float32 errors. A float32-only kernel bug gives errors of order 1."""
        state = {k: v.clone() for k, v in tmodel.state_dict().items()}
        ours = {k: tc.from_numpy(v.numpy().copy()) for k, v in state.items()}
        runs = {}
        for dtype in (np.float64, np.float32):
            tmodel.load_state_dict(state)
            model.load_state_dict(ours)
            runs["torch", dtype] = self._train_step(tmodel, x_np, torch_loss, True, dtype)
            runs["tc", dtype] = self._train_step(model, x_np, tc_loss, False, dtype)
        (tl64, tg64, tb64), (l64, g64, b64) = runs["torch", np.float64], runs["tc", np.float64]
        (tl32, tg32, tb32), (l32, g32, b32) = runs["torch", np.float32], runs["tc", np.float32]
        assert list(g64) == list(tg64)
        self.assert_close(np.asarray(l64), np.asarray(tl64), 1e-10, "float64 loss")
        self.assert_close(np.asarray(l32), np.asarray(tl64), 1e-4, "float32 loss")
        ours, theirs = [], []
        for name, truth in tg64.items():
            self.assert_close(g64[name], truth, 1e-8, f"float64 grad of {name}")
            scale = max(float(np.abs(truth).max()), 1e-30)
            ours.append(float(np.abs(g32[name] - truth).max()) / scale)
            theirs.append(float(np.abs(tg32[name] - truth).max()) / scale)
        ours, theirs = np.array(ours), np.array(theirs)
        worst = [(list(tg64)[i], round(ours[i], 5), round(theirs[i], 5)) for i in np.argsort(-ours)[:3]]
        assert ours.mean() <= 4 * theirs.mean() + 1e-5 and ours.max() <= 4 * theirs.max() + 1e-4, (
            f"float32 gradients less accurate than torch's: mean relative error {ours.mean():.3g} vs "
            f"{theirs.mean():.3g}, max {ours.max():.3g} vs {theirs.max():.3g}; worst (name, ours, torch): {worst}")
        for name, truth in tb64.items():
            self.assert_close(b64[name], truth, 1e-10, f"float64 buffer {name}")
            # Running variances inherit the float32 rounding of the activations above them.
            self.assert_close(b32[name], truth, 1e-3, f"float32 buffer {name}")
        model.float()
        tmodel.float()
