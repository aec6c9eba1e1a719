package plainleak

import (
	"testing"
	"time"
)

func TestFetch(t *testing.T) {
	backend := func(key string) string { return "value of " + key }
	v, err := Fetch(backend, "k", time.Second)
	if err == nil && v != "value of k" {
		t.Errorf("got %q, want %q", v, "value of k")
	}
}
