def forward(self) -> Tensor:
    v0 = self.x.as_strided([1, 1], [1, 1], 1)
    self.x = torch.sub(self.x, 1)
    return v0
