"""Single-image super-resolution with sub-pixel convolution, in the style of
pytorch/examples/super_resolution: PIL images cropped and downscaled by torchvision transforms,
PixelShuffle, orthogonal init, Adam and MSE with PSNR."""

import argparse
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.init as init
import torch.optim as optim
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision.transforms import CenterCrop, Compose, Resize, ToTensor

history = []


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(16, 8, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(8, upscale_factor**2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv2.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv3.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv4.weight)


def is_image_file(filename):
    return any(filename.endswith(extension) for extension in [".png", ".jpg", ".jpeg"])


def load_img(filepath):
    img = Image.open(filepath).convert("YCbCr")
    y, _, _ = img.split()
    return y


class DatasetFromFolder(Dataset):
    def __init__(self, image_dir, input_transform=None, target_transform=None):
        super(DatasetFromFolder, self).__init__()
        self.image_filenames = sorted(
            os.path.join(image_dir, x) for x in os.listdir(image_dir) if is_image_file(x)
        )
        self.input_transform = input_transform
        self.target_transform = target_transform

    def __getitem__(self, index):
        input = load_img(self.image_filenames[index])
        target = input.copy()
        if self.input_transform:
            input = self.input_transform(input)
        if self.target_transform:
            target = self.target_transform(target)
        return input, target

    def __len__(self):
        return len(self.image_filenames)


def calculate_valid_crop_size(crop_size, upscale_factor):
    return crop_size - (crop_size % upscale_factor)


def make_images(folder, count, size, seed=0):
    """Smooth random pictures (sums of a few gradients and blobs), written as PNG files."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:size, 0:size] / size
    for i in range(count):
        img = np.zeros((size, size, 3))
        for c in range(3):
            a, b, cx, cy = rng.rand(4)
            img[..., c] = (
                0.5 * a * xx + 0.5 * b * yy + np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) * 8)
            )
        img = (255 * img / img.max()).astype(np.uint8)
        Image.fromarray(img).save(os.path.join(folder, f"img{i:03d}.png"))


def main(argv=None):
    parser = argparse.ArgumentParser(description="PyTorch Super Res Example")
    parser.add_argument("--upscale_factor", type=int, default=3)
    parser.add_argument("--batchSize", type=int, default=4)
    parser.add_argument("--nEpochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--crop", type=int, default=48)
    parser.add_argument("--data", type=str, required=True)
    parser.add_argument("--resume", type=str, default="")
    opt = parser.parse_args(argv)
    make_images(opt.data, 8, 64)
    crop_size = calculate_valid_crop_size(opt.crop, opt.upscale_factor)
    train_set = DatasetFromFolder(
        opt.data,
        input_transform=Compose(
            [CenterCrop(crop_size), Resize(crop_size // opt.upscale_factor), ToTensor()]
        ),
        target_transform=Compose([CenterCrop(crop_size), ToTensor()]),
    )
    training_data_loader = DataLoader(dataset=train_set, batch_size=opt.batchSize, shuffle=False)
    model = Net(upscale_factor=opt.upscale_factor)
    if opt.resume:
        model.load_state_dict(torch.load(opt.resume))
    criterion = nn.MSELoss()
    optimizer = optim.Adam(model.parameters(), lr=opt.lr)
    for epoch in range(1, opt.nEpochs + 1):
        epoch_loss = 0
        for iteration, batch in enumerate(training_data_loader, 1):
            input, target = batch[0], batch[1]
            optimizer.zero_grad()
            loss = criterion(model(input), target)
            epoch_loss += loss.item()
            loss.backward()
            optimizer.step()
            print(
                f"===> Epoch[{epoch}]({iteration}/{len(training_data_loader)}): Loss: {loss.item():.4f}"
            )
            history.append(loss.item())
        print(
            f"===> Epoch {epoch} Complete: Avg. Loss: {epoch_loss / len(training_data_loader):.4f}"
        )
        with torch.no_grad():
            mse = criterion(model(input), target)
            psnr = 10 * math.log10(1 / mse.item())
        print(f"===> Avg. PSNR: {psnr:.4f} dB")


if __name__ == "__main__":
    main()
