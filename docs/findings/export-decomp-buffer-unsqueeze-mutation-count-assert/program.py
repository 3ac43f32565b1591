def forward(self) -> None:
    self.x.unsqueeze_(0)
    return None
