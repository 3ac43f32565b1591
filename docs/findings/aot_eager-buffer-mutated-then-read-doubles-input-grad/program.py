def forward(self, y: Tensor) -> Tensor:
    self.x.mul_(2)
    v0 = torch.mul(y, self.x)
    return v0
