package report_test

import (
	"encoding/json"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/internal/report"
	"weft.dev/weft/internal/report/reporttest"
	"weft.dev/weft/time"
)

// TestTimerEvents checks that the DOT, HTML and JSON of the classic
// time.After leak show the timers' events by what they mean, in virtual
// time, and the clock goroutine as a system one.
func TestTimerEvents(t *testing.T) {
	tr := trace(t, func() {
		reply := weft.MakeChan[int](0)
		weft.Go(func() {
			time.Sleep(2 * time.Second)
			reply.Send(42)
		})
		weft.Select(reply.RecvCase(nil, nil), time.After(time.Second).RecvCase(nil, nil))
	}, 0)
	page, err := reporttest.CheckHTML(report.HTML(tr))
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	outputs := []struct {
		name string
		text string
	}{
		{"DOT", string(report.DOT(tr))},
		{"HTML", page},
		{"JSON", string(js)},
	}
	for _, o := range outputs {
		for _, want := range []string{"timer#1 set to fire at +1s", "timer#2 set to fire at +2s", "timer#1 fires at +1s", "timer#2 fires at +2s", "timer#2 ends its Sleep"} {
			if !strings.Contains(o.text, want) {
				t.Errorf("the %s does not show %q:\n%s", o.name, want, o.text)
			}
		}
	}
	system := 0
	for _, g := range tr.Goroutines {
		if g.System {
			system++
		}
	}
	if system != 1 || !strings.Contains(string(js), `"system":true`) {
		t.Errorf("%d system goroutines in the trace, want the clock; JSON:\n%s", system, js)
	}
}

// TestObjectsInsideWeft checks that an object weft's own code made, with
// no frame of the program on its stack (the clock's), is named as such in
// the text, not as "first used at" nothing.
func TestObjectsInsideWeft(t *testing.T) {
	tr := trace(t, func() {
		reply := weft.MakeChan[int](0)
		weft.Go(func() {
			time.Sleep(2 * time.Second)
			reply.Send(42)
		})
		weft.Select(reply.RecvCase(nil, nil), time.After(time.Second).RecvCase(nil, nil))
	}, 0)
	text := report.Text(tr)
	if strings.Contains(text, "first used at \n") {
		t.Errorf("an object first used at no position:\n%s", text)
	}
	if !strings.Contains(text, "made inside weft") {
		t.Errorf("no object made inside weft:\n%s", text)
	}
}
