package timeprog

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/context"
	"weft.dev/weft/time"
)

// TestContextTrees compares condpor with dfs on small trees of contexts
// that cancels race on: a parent's cancel against its child's, a child
// added while the parent is canceled, AfterFunc against its stop, and a
// deadline against a cancel. dfs must enumerate each, and condpor explore
// each of its classes exactly once.
func TestContextTrees(t *testing.T) {
	for name, body := range map[string]func(){
		"parent and child": func() {
			parent, cancel := context.WithCancel(context.Background())
			child, stop := context.WithCancel(parent)
			weft.Go(cancel)
			weft.Go(stop)
			if child.Err() != nil {
				weft.Select(child.Done().RecvCase(nil, nil), weft.Default())
			}
			_ = parent.Err()
		},
		"child of a canceled parent": func() {
			parent, cancel := context.WithCancel(context.Background())
			weft.Go(cancel)
			child, stop := context.WithCancel(parent)
			defer stop()
			_ = context.Cause(child)
		},
		"after func": func() {
			ctx, cancel := context.WithCancel(context.Background())
			ran := weft.MakeChan[int](1)
			stop := context.AfterFunc(ctx, func() { ran.Send(1) })
			weft.Go(cancel)
			if !stop() {
				ran.Recv()
			}
		},
		"deadline and cancel": func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			weft.Go(cancel)
			ctx.Done().Recv()
			_ = ctx.Err()
		},
	} {
		c, err := Compare(body, dfsLimit)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !c.DFS.Exhaustive {
			t.Errorf("%s: dfs not exhaustive in %d executions", name, dfsLimit)
			continue
		}
		if len(c.DFS.Kinds) > 0 || c.CondPOR.Complete != len(c.DFS.Classes) {
			t.Errorf("%s: dfs finds %v in %d classes, condpor %d complete executions", name, c.DFS.Kinds, len(c.DFS.Classes), c.CondPOR.Complete)
		}
		for _, p := range c.Problems() {
			t.Errorf("%s: %s", name, p)
		}
		t.Logf("%s: dfs %d executions in %d classes, condpor %d", name, c.DFS.Executions, len(c.DFS.Classes), c.CondPOR.Executions)
	}
}
