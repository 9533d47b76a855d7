"""ImageList: a padded batch of images together with each image's size before padding."""


class ImageList:
    """`tensors` is the (N, C, H, W) padded batch; `image_sizes[i]` is image i's (height, width)."""

    def __init__(self, tensors, image_sizes):
        self.tensors = tensors
        self.image_sizes = image_sizes

    def to(self, device):
        return ImageList(self.tensors.to(device), self.image_sizes)

    def __repr__(self):
        return f"ImageList(tensors={tuple(self.tensors.shape)}, image_sizes={self.image_sizes})"
