package project

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestLogTracebackException: a Python traceback logged under an error
// (logger.exception, testdata/traceback/make.sh) ends with the exception it
// was about, some twenty lines down: the view shows the first failure's
// record through that line, though it runs past the lines a record keeps
// otherwise.
func TestLogTracebackException(t *testing.T) {
	b, err := os.ReadFile("testdata/traceback/orders.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	head, exc := -1, -1
	for i, l := range lines {
		if head < 0 && strings.HasSuffix(l, " failed") {
			head = i
		}
		if head >= 0 && strings.HasPrefix(l, "json.decoder.JSONDecodeError: ") {
			exc = i
			break
		}
	}
	if head < 0 || exc-head <= logRecordLines+1 {
		t.Fatalf("fixture: no traceback longer than a record (run testdata/traceback/make.sh)")
	}
	for _, budget := range []int{2000} {
		in := testInput(t, b, budget)
		in.Args, _ = json.Marshal(map[string]string{"path": "/var/log/orders.log"})
		out, err := Project(context.Background(), KindText, in)
		if err != nil {
			t.Fatal(err)
		}
		checkLogView(t, b, out, budget)
		for _, i := range []int{head, head + 1, exc} {
			if want := fmt.Sprintf("%d\t%s\n", i+1, lines[i]); !strings.Contains(out.Text, want) {
				t.Errorf("budget %d: the view does not show line %d of the first failure:\n%s", budget, i+1, out.Text)
			}
		}
	}
}
