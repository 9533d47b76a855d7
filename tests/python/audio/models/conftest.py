import io

import numpy as np
import pytest

import tensorcore as tc

# ta_ref (and the torchaudio-first import) come from ../conftest.py.


def check_module_tree(ref, ours):
    """The same state-dict keys (in order) and shapes, and the same module classes in order."""
    ref_sd, our_sd = ref.state_dict(), ours.state_dict()
    assert list(ref_sd) == list(our_sd)
    for k in ref_sd:
        assert tuple(ref_sd[k].shape) == tuple(our_sd[k].shape), k
    assert [type(m).__name__ for m in ref.modules()] == [type(m).__name__ for m in ours.modules()]


class Bridge:
    """Moves weights and data between torch and tensorcore the way a user would: state dicts
    through torch.save bytes, loaded strictly."""

    def __init__(self, torch):
        self.torch = torch

    def load_weights(self, torch_model, our_model):
        buf = io.BytesIO()
        self.torch.save(torch_model.state_dict(), buf)
        state = tc.load(io.BytesIO(buf.getvalue()))
        missing, unexpected = our_model.load_state_dict(state, strict=True)
        assert not missing and not unexpected
        return our_model

    def to_tc(self, t, requires_grad=False):
        x = tc.from_numpy(t.detach().numpy().copy())
        return x.requires_grad_(requires_grad) if requires_grad else x

    check_module_tree = staticmethod(check_module_tree)

    @staticmethod
    def np(t):
        return t.detach().numpy()

    def check_forward_backward(self, torch_model, our_model, torch_inputs, rtol, atol, seed=0):
        """Same outputs, the same gradient for every parameter and floating input, under a
        random linear loss."""
        torch = self.torch
        ours_in = [self.to_tc(x, x.is_floating_point()) for x in torch_inputs]
        ref_in = [x.detach().clone().requires_grad_(x.is_floating_point()) for x in torch_inputs]
        ref = torch_model(*ref_in)
        out = our_model(*ours_in)
        assert tuple(out.shape) == tuple(ref.shape)
        np.testing.assert_allclose(self.np(out), self.np(ref), rtol=rtol, atol=atol)
        g = torch.Generator().manual_seed(seed)
        probe = torch.randn(ref.shape, generator=g, dtype=ref.dtype)
        (ref * probe).sum().backward()
        (out * self.to_tc(probe)).sum().backward()
        ref_params = dict(torch_model.named_parameters())
        our_params = dict(our_model.named_parameters())
        assert sorted(ref_params) == sorted(our_params)
        for name, p in ref_params.items():
            q = our_params[name]
            assert q.grad is not None, name
            scale = max(1.0, float(p.grad.abs().max()))
            np.testing.assert_allclose(
                self.np(q.grad), self.np(p.grad), rtol=rtol, atol=atol * scale, err_msg=name
            )
        for a, b in zip(ours_in, ref_in):
            if b.requires_grad:
                scale = max(1.0, float(b.grad.abs().max()))
                np.testing.assert_allclose(
                    self.np(a.grad), self.np(b.grad), rtol=rtol, atol=atol * scale
                )


@pytest.fixture
def bridge(torch_ref):
    return Bridge(torch_ref)
