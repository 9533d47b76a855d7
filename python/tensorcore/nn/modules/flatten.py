"""Flatten and Unflatten."""

from .module import Module


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        if (
            isinstance(unflattened_size, (list, tuple))
            and unflattened_size
            and isinstance(unflattened_size[0], tuple)
        ):
            self.names = [n for n, _ in unflattened_size]
            unflattened_size = tuple(s for _, s in unflattened_size)
        if not isinstance(unflattened_size, (list, tuple)):
            raise TypeError(
                f"Unflatten: unflattened_size must be a tuple of ints, got {type(unflattened_size).__name__}"
            )
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        dim = self.dim if self.dim >= 0 else self.dim + input.dim()
        shape = tuple(input.shape[:dim]) + self.unflattened_size + tuple(input.shape[dim + 1 :])
        return input.reshape(shape)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
