package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestBuildFlags(t *testing.T) {
	tests := []struct {
		goFlags, want []string
	}{
		{nil, nil},
		{[]string{"-count=1", "-v"}, nil},
		{[]string{"-tags=a,b"}, []string{"-tags=a,b"}},
		{[]string{"-tags", "slow", "-run", "X"}, []string{"-tags=slow"}},
		{[]string{"--tags=x", "-mod", "vendor"}, []string{"-tags=x", "-mod=vendor"}},
		{[]string{"-mod=mod", "-modfile=alt.mod"}, []string{"-mod=mod"}},
		{[]string{"tags"}, nil},
	}
	for _, tc := range tests {
		if got := buildFlags(tc.goFlags); !slices.Equal(got, tc.want) {
			t.Errorf("buildFlags(%q) = %q, want %q", tc.goFlags, got, tc.want)
		}
	}
}

// TestPGOFlag checks that weft test -pgo builds the test binaries with
// weft's profile, unless the user chose a profile after -- or in GOFLAGS.
func TestPGOFlag(t *testing.T) {
	env := append(os.Environ(), "GOFLAGS=")
	tests := []struct {
		name     string
		env      []string
		goFlags  []string
		wantWeft bool
	}{
		{"default", env, nil, true},
		{"other flags", env, []string{"-count=1", "-tags=x"}, true},
		{"-pgo=off", env, []string{"-pgo=off"}, false},
		{"-pgo file", env, []string{"-pgo", "cpu.pprof"}, false},
		{"--pgo=file", env, []string{"--pgo=cpu.pprof"}, false},
		{"GOFLAGS", append(env, "GOFLAGS=-count=1 -pgo=off"), nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c, err := parseTest(append([]string{"-pgo", "./pkg", "--"}, tc.goFlags...), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if !c.pgo {
				t.Fatal("-pgo is not set")
			}
			pgo, err := pgoFlag(dir, tc.env, c.goArgs)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(dir, "weft.pgo")
			if !tc.wantWeft {
				if pgo != "" {
					t.Errorf("pgoFlag = %q, want none: the user chose", pgo)
				}
				return
			}
			if pgo != "-pgo="+name {
				t.Fatalf("pgoFlag = %q, want -pgo=%s", pgo, name)
			}
			if data, err := os.ReadFile(name); err != nil || !bytes.Equal(data, profile) {
				t.Errorf("%s is not weft's profile (%d bytes, %v)", name, len(data), err)
			}
			args := goTestArgs(c, pgo, "", nil)
			if want := append([]string{"test", pgo}, c.goArgs...); !slices.Equal(args, want) {
				t.Errorf("go %q, want go %q", args, want)
			}
		})
	}
}

func TestGoTestArgs(t *testing.T) {
	c, err := parseTest([]string{"-run", "X", "./a", "./b", "--", "-count=1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pgo, ov string
		ovFlags []string
		want    []string
	}{
		{"", "", nil, []string{"test", "-run=X", "-count=1", "./a", "./b"}},
		{"-pgo=p", "", nil, []string{"test", "-pgo=p", "-run=X", "-count=1", "./a", "./b"}},
		{"-pgo=p", "ov.json", []string{"-mod=mod"}, []string{"test", "-pgo=p", "-overlay=ov.json", "-run=X", "-count=1", "-mod=mod", "./a", "./b"}},
	}
	for _, tc := range tests {
		if got := goTestArgs(c, tc.pgo, tc.ov, tc.ovFlags); !slices.Equal(got, tc.want) {
			t.Errorf("goTestArgs(%q, %q, %q) = %q, want %q", tc.pgo, tc.ov, tc.ovFlags, got, tc.want)
		}
	}
}

// TestProfile checks that the embedded profile is a CPU profile of weft:
// gzipped, as runtime/pprof writes it, with samples in nanoseconds, of
// weft's engine and execution graph. (go build parses it: a profile it
// cannot read fails the build of this command.)
func TestProfile(t *testing.T) {
	z, err := gzip.NewReader(bytes.NewReader(profile))
	if err != nil {
		t.Fatalf("default.pgo is not gzipped: %v", err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("default.pgo: %v", err)
	}
	for _, fn := range []string{"nanoseconds", "weft.dev/weft/internal/engine/condpor.", "weft.dev/weft/internal/graph."} {
		if !bytes.Contains(data, []byte(fn)) {
			t.Errorf("default.pgo does not name %s", fn)
		}
	}
}
