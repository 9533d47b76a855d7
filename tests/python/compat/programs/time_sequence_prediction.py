"""Sine-wave sequence prediction with two stacked LSTMCells trained by L-BFGS, in the style of
pytorch/examples/time_sequence_prediction (data generated with NumPy, double precision)."""

import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

history = []


class Sequence(nn.Module):
    def __init__(self, hidden=51):
        super().__init__()
        self.hidden = hidden
        self.lstm1 = nn.LSTMCell(1, hidden)
        self.lstm2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)

    def forward(self, input, future=0):
        outputs = []
        n = input.size(0)
        h_t = torch.zeros(n, self.hidden, dtype=torch.double)
        c_t = torch.zeros(n, self.hidden, dtype=torch.double)
        h_t2 = torch.zeros(n, self.hidden, dtype=torch.double)
        c_t2 = torch.zeros(n, self.hidden, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            outputs += [self.linear(h_t2)]
        for _ in range(future):  # feed predictions back in
            h_t, c_t = self.lstm1(outputs[-1], (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            outputs += [self.linear(h_t2)]
        return torch.cat(outputs, dim=1)


def make_data(n, length, period=20):
    rng = np.random.RandomState(2)
    x = np.empty((n, length), np.int64)
    x[:] = np.array(range(length)) + rng.randint(-4 * period, 4 * period, n).reshape(n, 1)
    return np.sin(x / 1.0 / period).astype("float64")


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--length", type=int, default=100)
    parser.add_argument("--hidden", type=int, default=51)
    parser.add_argument("--resume", type=str, default="")
    args = parser.parse_args(argv)
    data = make_data(args.samples, args.length)
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    seq = Sequence(args.hidden)
    seq.double()
    if args.resume:
        seq.load_state_dict(torch.load(args.resume))
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
    for i in range(args.steps):

        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            loss.backward()
            return loss

        loss = optimizer.step(closure)
        with torch.no_grad():
            future = 10
            pred = seq(test_input, future=future)
            test_loss = criterion(pred[:, :-future], test_target)
        print(f"step {i}: loss {loss.item():.6f} test loss {test_loss.item():.6f}")
        history.append((loss.item(), test_loss.item()))
        y = pred.detach().numpy()
    return y


if __name__ == "__main__":
    main()
