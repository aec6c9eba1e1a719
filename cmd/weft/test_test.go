package main

import (
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
