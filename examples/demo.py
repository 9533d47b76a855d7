"""A short tour: tensors, broadcasting, autograd, and a tiny linear regression fit by gradient
descent using only tensorcore ops."""
import tensorcore as tc

tc.set_num_threads(2)
x = tc.linspace(-1, 1, 200).reshape(200, 1)
true_w, true_b = 3.0, -0.5
y = x * true_w + true_b

w = tc.zeros(1, requires_grad=True)
b = tc.zeros(1, requires_grad=True)
for step in range(200):
    pred = x * w + b
    loss = ((pred - y) * (pred - y)).mean()
    loss.backward()
    with tc.no_grad():
        w -= w.grad * 0.5
        b -= b.grad * 0.5
    w.grad = None
    b.grad = None
print(f"fitted w={w.item():.4f} b={b.item():.4f} (true {true_w}, {true_b}); final loss {loss.item():.2e}")
assert abs(w.item() - true_w) < 1e-2 and abs(b.item() - true_b) < 1e-2
print(tc.arange(6).reshape(2, 3) * 1.5)
