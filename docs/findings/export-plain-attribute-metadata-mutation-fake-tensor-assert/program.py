def forward(self) -> None:
    self.x.as_strided_([2], [2], 1)
    return None
