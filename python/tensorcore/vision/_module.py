"""Base class for transforms and op modules: tensorcore.nn.Module when the nn package is present,
otherwise a minimal stand-in with the same calling convention (forward / __call__ / __repr__)."""

try:
    from tensorcore.nn import Module
except ImportError:  # nn not built into this tree yet

    class Module:
        def __init__(self):
            self.training = True

        def forward(self, *args, **kwargs):
            raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

        def __call__(self, *args, **kwargs):
            return self.forward(*args, **kwargs)

        def extra_repr(self):
            return ""

        def __repr__(self):
            return f"{type(self).__name__}({self.extra_repr()})"

        def train(self, mode=True):
            self.training = mode
            return self

        def eval(self):
            return self.train(False)
