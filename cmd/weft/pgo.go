package main

// default.pgo, in this directory, is the CPU profile that go build gives
// the compiler when it builds this command (profile-guided optimization):
// that of weft exploring a mix of programs, made by internal/pgogen.
//
//go:generate go run ./internal/pgogen -o default.pgo
