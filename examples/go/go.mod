module example.com/token-sim-go-example

go 1.22

require github.com/testcontainers/testcontainers-go v0.34.0
