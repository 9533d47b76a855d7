"""tensorcore.Size: the tuple subclass that Tensor.shape returns (like torch.Size)."""


class Size(tuple):
    def __repr__(self):
        return f"tensorcore.Size([{', '.join(str(d) for d in self)}])"

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r
