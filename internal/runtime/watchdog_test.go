package runtime

import (
	"strings"
	"testing"
	"time"
)

// dump is the output of runtime.Stack(buf, true) in a check: the test's
// goroutine, the driver, a worker that waits in its turn, one that holds
// it and spins, and a goroutine that it started with go.
const dump = `goroutine 7 [running]:
weft.dev/weft/internal/runtime.allStacks()
	/src/weft/internal/runtime/watchdog.go:221 +0x45
testing.tRunner(0xc000182000, 0x5b5f10)
	/usr/local/go/src/testing/testing.go:1690 +0xf4
created by testing.(*T).Run in goroutine 1
	/usr/local/go/src/testing/testing.go:1743 +0x390

goroutine 8 [coroutine]:
weft.dev/weft/internal/runtime.(*driver).drive(0xc0001c2000)
	/src/weft/internal/runtime/driver.go:250 +0x7c
created by weft.dev/weft/internal/runtime.Run in goroutine 7
	/src/weft/internal/runtime/driver.go:92 +0x2ee

goroutine 9 [coroutine]:
iter.Pull[...].func1.1()
	/usr/local/go/src/iter/iter.go:287 +0x53
weft.dev/weft/internal/runtime.(*goroutine).park(...)
	/src/weft/internal/runtime/goroutine.go:153
weft.dev/weft/internal/runtime.(*goroutine).run(0xc0001d0000)
	/src/weft/internal/runtime/goroutine.go:64 +0x4a
created by iter.Pull[...] in goroutine 8
	/usr/local/go/src/iter/iter.go:271 +0x90

goroutine 10 [runnable]:
example.com/app.spin(...)
	/src/app/app.go:12
example.com/app.worker()
	/src/app/app.go:20 +0x20
weft.dev/weft/internal/runtime.(*goroutine).run(0xc0001d0100)
	/src/weft/internal/runtime/goroutine.go:64 +0x4a
weft.dev/weft/internal/runtime.newWorker.func1(0xc0001e0000?)
	/src/weft/internal/runtime/goroutine.go:39 +0x7b
iter.Pull[...].func1()
	/usr/local/go/src/iter/iter.go:301 +0xe5
created by iter.Pull[...] in goroutine 8
	/usr/local/go/src/iter/iter.go:271 +0x90

goroutine 11 [chan receive, 2 minutes]:
example.com/app.helper()
	/src/app/app.go:30 +0x19
created by example.com/app.worker in goroutine 10
	/src/app/app.go:21 +0x296
`

func TestParseDump(t *testing.T) {
	if !strings.HasSuffix(runName, "internal/runtime.(*goroutine).run") {
		t.Fatalf("runName = %q", runName)
	}
	gs := parseDump(strings.ReplaceAll(dump, "weft.dev/weft/", modulePrefix))
	if len(gs) != 5 {
		t.Fatalf("%d goroutines: %+v", len(gs), gs)
	}
	for i, want := range []struct {
		id, creator int64
		state       string
		worker      bool
	}{
		{7, 1, "running", false},
		{8, 7, "coroutine", false},
		{9, 8, "coroutine", true},
		{10, 8, "runnable", true},
		{11, 10, "chan receive, 2 minutes", false},
	} {
		g := gs[i]
		if g.id != want.id || g.creator != want.creator || g.state != want.state || g.worker != want.worker {
			t.Errorf("goroutine %d: got %+v, want %+v", i, g, want)
		}
	}
	stuck := findStuck(gs, 10)
	if stuck == nil || stuck.id != 10 || !stuck.running() {
		t.Fatalf("stuck = %+v", stuck)
	}
	want := "goroutine 10 [runnable]:\nexample.com/app.spin\n\t/src/app/app.go:12\nexample.com/app.worker\n\t/src/app/app.go:20\n"
	if got := stuck.program(); got != want {
		t.Errorf("program() = %q, want %q", got, want)
	}
	if gs[4].running() {
		t.Error("a goroutine waiting on a channel runs")
	}
}

func TestFindStuckLeavesWeftAlone(t *testing.T) {
	busy := `goroutine 10 [running]:
weft.dev/weft/internal/engine/condpor.(*Engine).Step(0xc0001)
	/src/weft/internal/engine/condpor/condpor.go:100 +0x20
weft.dev/weft/internal/runtime.(*execution).dispatch(0xc0002)
	/src/weft/internal/runtime/exec.go:75 +0x20
weft.dev/weft/internal/runtime.(*goroutine).run(0xc0001d0100)
	/src/weft/internal/runtime/goroutine.go:64 +0x4a
created by iter.Pull[...] in goroutine 8
	/usr/local/go/src/iter/iter.go:271 +0x90
`
	if g := findStuck(parseDump(strings.ReplaceAll(busy, "weft.dev/weft/", modulePrefix)), 10); g != nil {
		t.Errorf("weft's engine at work taken for the program: %+v", g)
	}
	gs := parseDump(strings.ReplaceAll(dump, "weft.dev/weft/", modulePrefix))
	for _, id := range []int64{9, 11} {
		if g := findStuck(gs, id); g != nil {
			t.Errorf("goroutine %d, suspended or not a worker, taken for the one holding the turn: %+v", id, g)
		}
	}
}

func TestDumpOfThisProcess(t *testing.T) {
	id := selfID()
	if id <= 0 {
		t.Fatalf("selfID() = %d", id)
	}
	var me *dumped
	gs := parseDump(allStacks())
	for i := range gs {
		if gs[i].id == id {
			me = &gs[i]
		}
	}
	if me == nil || !me.running() || me.creator == 0 || me.worker {
		t.Fatalf("this goroutine in the dump: %+v", me)
	}
	if o, _ := whose(); o != ownerOutside {
		t.Errorf("whose() = %d for a test's goroutine, want ownerOutside", o)
	}
}

func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Second:        "10",
		2500 * time.Millisecond: "2.5",
		1940 * time.Millisecond: "1.9",
		30 * time.Millisecond:   "0.03",
		250 * time.Millisecond:  "0.25",
	} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%v) = %q, want %q", d, got, want)
		}
	}
}
