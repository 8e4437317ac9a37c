module tiers

go 1.24
