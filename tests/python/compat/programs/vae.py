"""Variational auto-encoder on MNIST-like images, in the style of pytorch/examples/vae:
reparameterization with randn_like, BCE + KL loss, Adam, sampling and save_image."""

import argparse
import os

import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from torchvision import datasets, transforms
from torchvision.utils import save_image

history = []


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(784, 64)
        self.fc21 = nn.Linear(64, 8)
        self.fc22 = nn.Linear(64, 8)
        self.fc3 = nn.Linear(8, 64)
        self.fc4 = nn.Linear(64, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def main(argv=None):
    parser = argparse.ArgumentParser(description="VAE MNIST Example")
    parser.add_argument("--data", type=str, required=True)
    parser.add_argument("--out", type=str, required=True)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    train_loader = torch.utils.data.DataLoader(
        datasets.MNIST(args.data, train=True, transform=transforms.ToTensor()),
        batch_size=args.batch_size,
        shuffle=True,
    )
    model = VAE().to(device)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    os.makedirs(args.out, exist_ok=True)
    for epoch in range(1, args.epochs + 1):
        model.train()
        train_loss = 0
        for batch_idx, (data, _) in enumerate(train_loader):
            data = data.to(device)
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(data)
            loss = loss_function(recon_batch, data, mu, logvar)
            loss.backward()
            train_loss += loss.item()
            optimizer.step()
        avg = train_loss / len(train_loader.dataset)
        print("====> Epoch: {} Average loss: {:.4f}".format(epoch, avg))
        history.append(avg)
        with torch.no_grad():
            sample = torch.randn(16, 8).to(device)
            sample = model.decode(sample).cpu()
            save_image(sample.view(16, 1, 28, 28), os.path.join(args.out, f"sample_{epoch}.png"))
            n = min(data.size(0), 4)
            comparison = torch.cat([data[:n], recon_batch.view(args.batch_size, 1, 28, 28)[:n]])
            save_image(
                comparison.cpu(), os.path.join(args.out, f"reconstruction_{epoch}.png"), nrow=n
            )


if __name__ == "__main__":
    main()
