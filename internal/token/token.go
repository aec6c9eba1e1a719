// Package token encodes the schedule of an execution as a short string that
// a person can paste into WEFT_REPLAY, and decodes it with clear errors.
//
// A token is "weft3-" followed by unpadded base64url of: a CRC-32 of the
// rest, a hash of the program's name, the number of steps, and the steps
// run-length encoded (consecutive steps of one goroutine with the default
// outcome take one or two bytes; a step with an outcome or a partner spells
// them out).
package token

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"math"
	"strings"

	"weft.dev/weft/internal/engine"
)

// prefix names the version of the token format: weft3 schedules have a
// step for each failure of a goroutine (event.Fail), which weft2 ones lack.
const prefix = "weft3-"

// maxSteps bounds what a token may claim, so that a corrupted one cannot
// make the decoder allocate without limit.
const maxSteps = 1 << 26

// The kinds of steps, in the low bits of a step's first number.
const (
	stepRun  = 0 // a run of steps of one goroutine with the default outcome
	stepAlt  = 1 // one step with an outcome
	stepWith = 2 // one step with an outcome and a partner
)

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("invalid replay token")

// Program returns the hash that identifies a program in tokens.
func Program(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

// Encode returns the token of sched for the program with hash prog.
func Encode(prog uint32, sched []engine.Choice) string {
	var b []byte
	b = binary.AppendUvarint(b, uint64(prog))
	b = binary.AppendUvarint(b, uint64(len(sched)))
	for i := 0; i < len(sched); {
		c := sched[i]
		switch {
		case c.With != 0:
			b = binary.AppendUvarint(b, uint64(c.G)<<2|stepWith)
			b = binary.AppendUvarint(b, uint64(c.Alt))
			b = binary.AppendUvarint(b, uint64(c.With))
			i++
			continue
		case c.Alt != 0:
			b = binary.AppendUvarint(b, uint64(c.G)<<2|stepAlt)
			b = binary.AppendUvarint(b, uint64(c.Alt))
			i++
			continue
		}
		n := 1
		for i+n < len(sched) && sched[i+n] == c {
			n++
		}
		b = binary.AppendUvarint(b, uint64(c.G)<<2|stepRun)
		b = binary.AppendUvarint(b, uint64(n))
		i += n
	}
	sum := binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b))
	return prefix + base64.RawURLEncoding.EncodeToString(append(sum, b...))
}

// Decode returns the schedule in tok, checking that it was made for the
// program with hash prog.
func Decode(tok string, prog uint32) ([]engine.Choice, error) {
	p, sched, err := Parse(tok)
	if err != nil {
		return nil, err
	}
	if p != prog {
		return nil, fmt.Errorf("%w: it was recorded for a different program (run it with the test that printed it)", ErrMalformed)
	}
	return sched, nil
}

// Parse returns the program hash and the schedule in tok, whatever the
// program: it tells a corrupted token from a good one before any program
// runs.
func Parse(tok string) (prog uint32, sched []engine.Choice, err error) {
	tok = strings.TrimSpace(tok)
	rest, ok := strings.CutPrefix(tok, prefix)
	if !ok {
		if strings.HasPrefix(tok, "weft") {
			return 0, nil, fmt.Errorf("%w: %.12q… was made by another version of weft (this one reads %q tokens)", ErrMalformed, tok, prefix)
		}
		return 0, nil, fmt.Errorf("%w: %.12q… does not start with %q", ErrMalformed, tok, prefix)
	}
	raw, berr := base64.RawURLEncoding.DecodeString(rest)
	if berr != nil || len(raw) < 4 {
		return 0, nil, fmt.Errorf("%w: it is corrupted (not base64url)", ErrMalformed)
	}
	body := raw[4:]
	if binary.BigEndian.Uint32(raw) != crc32.ChecksumIEEE(body) {
		return 0, nil, fmt.Errorf("%w: it is corrupted (checksum mismatch): copy it again, whole", ErrMalformed)
	}
	r := reader{b: body}
	p := r.uint()
	if r.err == nil && p > math.MaxUint32 {
		r.err = fmt.Errorf("program %d", p)
	}
	n := r.uint()
	if r.err == nil && n > maxSteps {
		r.err = fmt.Errorf("%d steps", n)
	}
	sched = make([]engine.Choice, 0, min(n, 1<<16))
	for r.err == nil && uint64(len(sched)) < n {
		sched = r.steps(sched, n)
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return 0, nil, fmt.Errorf("%w: it is corrupted (%v)", ErrMalformed, r.err)
	}
	return uint32(p), sched, nil
}

// steps appends the steps of the next entry to sched, which holds fewer
// than n.
func (r *reader) steps(sched []engine.Choice, n uint64) []engine.Choice {
	head := r.uint()
	g := head >> 2
	if r.err == nil && g > 1<<30 {
		r.err = fmt.Errorf("goroutine %d", g)
	}
	c := engine.Choice{G: int32(g)}
	switch kind := head & 3; {
	case r.err != nil:
	case kind == stepRun:
		run := r.uint()
		if r.err == nil && (run == 0 || run > n-uint64(len(sched))) {
			r.err = fmt.Errorf("run of %d steps", run)
			break
		}
		for range run {
			sched = append(sched, c)
		}
	case kind == stepAlt || kind == stepWith:
		alt := r.uint()
		if r.err == nil && (alt > 1<<31-1 || kind == stepAlt && alt == 0) {
			r.err = fmt.Errorf("outcome %d", alt)
			break
		}
		c.Alt = int32(alt)
		if kind == stepWith {
			with := r.uint()
			if r.err == nil && (with == 0 || with > 1<<30) {
				r.err = fmt.Errorf("partner %d", with)
				break
			}
			c.With = int32(with)
		}
		sched = append(sched, c)
	default:
		r.err = fmt.Errorf("step kind %d", kind)
	}
	return sched
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("truncated")
		return 0
	}
	r.b = r.b[n:]
	return v
}
