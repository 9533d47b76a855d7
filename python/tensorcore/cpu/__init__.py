"""tc.cpu: CPU-specific namespaces (tc.cpu.amp), as torch.cpu."""
