package main

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// default.pgo is made by internal/pgogen, whose doc says when to make it
// again.
//
//go:generate go run ./internal/pgogen -o default.pgo

// profile is default.pgo, the CPU profile of weft exploring a mix of
// programs (see internal/pgogen) that go build gives the compiler when it
// builds this command (profile-guided optimization). It is embedded so
// that weft test -pgo builds the test binaries with it too: most of a
// check's time is spent in weft's packages, which the profile covers.
//
//go:embed default.pgo
var profile []byte

// choosesPGO says whether the go flags among flags (as -name=value or
// -name value) choose the profile of the build: a -pgo flag, "off" too.
func choosesPGO(flags []string) bool {
	return slices.ContainsFunc(flags, func(f string) bool {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		return strings.HasPrefix(f, "-") && name == "pgo"
	})
}

// pgoFlag returns the -pgo flag that builds the test binaries with weft's
// profile, written into dir, or "" if the user chose a profile among the
// arguments of go test goArgs or in GOFLAGS, as go env sees it in env.
func pgoFlag(dir string, env, goArgs []string) (string, error) {
	if choosesPGO(goArgs) {
		return "", nil
	}
	cmd := exec.Command("go", "env", "GOFLAGS")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	if choosesPGO(strings.Fields(string(out))) {
		return "", nil
	}
	name := filepath.Join(dir, "weft.pgo")
	if err := os.WriteFile(name, profile, 0o644); err != nil {
		return "", err
	}
	return "-pgo=" + name, nil
}
