package token

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"weft.dev/weft/internal/engine"
)

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		sched := make([]engine.Choice, rng.IntN(300))
		for j := range sched {
			sched[j] = engine.Choice{G: int32(rng.IntN(4))}
			if rng.IntN(10) == 0 {
				sched[j].Alt = int32(rng.IntN(3))
			}
			if rng.IntN(10) == 0 {
				sched[j].Alt = int32(rng.IntN(3) << 16)
				sched[j].With = 1 + int32(rng.IntN(5))
			}
		}
		tok := Encode(uint32(i), sched)
		got, err := Decode(tok, uint32(i))
		if err != nil {
			t.Fatalf("Decode(Encode(%v)): %v", sched, err)
		}
		if !slices.Equal(got, sched) && !(len(got) == 0 && len(sched) == 0) {
			t.Fatalf("round trip: got %v, want %v", got, sched)
		}
	}
}

func TestCompact(t *testing.T) {
	// A long run of one goroutine then another is a few bytes.
	var sched []engine.Choice
	for range 1000 {
		sched = append(sched, engine.Choice{G: 0})
	}
	for range 1000 {
		sched = append(sched, engine.Choice{G: 1})
	}
	if tok := Encode(7, sched); len(tok) > 30 {
		t.Errorf("token of 2 runs is %d characters: %s", len(tok), tok)
	}
}

func TestErrors(t *testing.T) {
	good := Encode(42, []engine.Choice{{G: 0}, {G: 1}, {G: 1, Alt: 2}})
	corrupt := []byte(good)
	corrupt[len(corrupt)-2] ^= 1
	tests := []struct {
		name, tok string
		prog      uint32
		want      string
	}{
		{"other program", good, 43, "different program"},
		{"corrupted", string(corrupt), 42, "corrupted"},
		{"truncated", good[:len(good)-3], 42, "corrupted"},
		{"not a token", "hello", 42, "does not start"},
		{"older version", "weft1-yPj3NIvjya4GEQAEAgcABg", 42, "another version"},
		{"weft2", "weft2-yPj3NIvjya4GEQAEAgcABg", 42, "another version"},
		{"other version", "weft9-AAAA", 42, "another version"},
		{"not base64", "weft3-***", 42, "corrupted"},
		{"empty", "", 42, "does not start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.tok, tt.prog)
			if err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode(%q) = %v, want an error containing %q", tt.tok, err, tt.want)
			}
		})
	}
	if _, err := Decode(good, 42); err != nil {
		t.Errorf("Decode(good) = %v", err)
	}
	if prog, sched, err := Parse(good); err != nil || prog != 42 || len(sched) != 3 {
		t.Errorf("Parse(good) = %d, %v, %v; want program 42 and 3 steps", prog, sched, err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode(1, []engine.Choice{{G: 0}, {G: 1, Alt: 1}}))
	f.Add("weft3-")
	f.Add("weft3-AAAAAAAA")
	f.Fuzz(func(t *testing.T, tok string) {
		prog, parsed, perr := Parse(tok)
		sched, err := Decode(tok, 1)
		if perr == nil && prog == 1 && (err != nil || !slices.Equal(parsed, sched)) {
			t.Fatalf("Parse gave %v, Decode %v, %v", parsed, sched, err)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if again, err := Decode(Encode(1, sched), 1); err != nil || !slices.Equal(again, sched) {
			t.Fatalf("re-encoding %v gave %v, %v", sched, again, err)
		}
	})
}
