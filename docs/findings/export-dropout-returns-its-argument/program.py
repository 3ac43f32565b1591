def forward(self, y: Tensor) -> None:
    v0 = self.x.reshape([2, 1])
    v1 = torch.dropout(v0, 1.0, False)
    v0.transpose_(0, -1)
    v2 = [v1, y]
    v3 = torch.cat(v2, 0)
    return None
