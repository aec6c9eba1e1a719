package rewrite

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestWeftDeps checks weftDeps against the modules that the packages
// rewritten code imports depend on.
func TestWeftDeps(t *testing.T) {
	args := []string{"list", "-deps", "-f", "{{if not .Standard}}{{.Module.Path}}{{end}}"}
	for _, path := range weftPkgs {
		args = append(args, path)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var got []string
	for _, m := range strings.Fields(string(out)) {
		if m != weftModule && !slices.Contains(got, m) {
			got = append(got, m)
		}
	}
	slices.Sort(got)
	if want := slices.Sorted(slices.Values(weftDeps)); !slices.Equal(got, want) {
		t.Errorf("the packages of rewritten code depend on the modules %v; weftDeps says %v", got, want)
	}
}
