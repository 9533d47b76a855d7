"""WaveRNN's recurrence one sample at a time in Python, for the output heads the native
WaveRNN.infer does not sample (mixture of logistics, excitation through a prediction filter)."""

import tensorcore as tc
from tensorcore import nn

F = nn.functional


def run_recurrence(model, specgram, draw):
    """Feeds model outputs back one step at a time: draw(t, out) takes step t's output (B, classes)
    and returns the next input sample (B, 1); draw keeps what it needs."""
    pad = model._pad
    spec = F.pad(specgram, (pad, pad))
    spec, aux = model.upsample(spec)  # (B, n_freq, L), (B, n_output, L)
    batch, _, length = spec.shape
    n_aux = model.n_aux
    aux_parts = [aux[:, n_aux * i : n_aux * (i + 1), :] for i in range(4)]
    h1 = tc.zeros(1, batch, model.n_rnn)
    h2 = tc.zeros(1, batch, model.n_rnn)
    x = tc.zeros(batch, 1)
    with tc.no_grad():
        for t in range(length):
            a1, a2, a3, a4 = (a[:, :, t] for a in aux_parts)
            x = model.fc(tc.cat([x, spec[:, :, t], a1], dim=1))
            _, h1 = model.rnn1(x.unsqueeze(1), h1)
            x = x + h1[0]
            _, h2 = model.rnn2(tc.cat([x, a2], dim=1).unsqueeze(1), h2)
            x = x + h2[0]
            x = F.relu(model.fc1(tc.cat([x, a3], dim=1)))
            x = F.relu(model.fc2(tc.cat([x, a4], dim=1)))
            x = draw(t, model.fc3(x))
