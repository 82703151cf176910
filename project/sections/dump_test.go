package sections

import (
	"fmt"
	"os"
	"testing"
)

func TestDump(t *testing.T) {
	p := os.Getenv("SECTIONS_DUMP")
	if p == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(p)
	r := segment(t, p, b, os.Getenv("SECTIONS_INTENT"))
	fmt.Println("format", r.Format, "total", r.Total)
	if os.Getenv("SECTIONS_LIST") != "" {
		for _, x := range r.Sections {
			fmt.Printf("%5d-%5d/%5d L%d term=%v %q names=%q anchor=%q\n", x.Line, x.End, x.Last, x.Level, x.Term, x.Heading, x.Names, x.Anchor)
		}
	}
	for i, x := range r.Ranked {
		if i == 10 {
			break
		}
		fmt.Printf("RANK %.2f %5d-%5d L%d %q\n", x.Score, x.Line, x.Last, x.Level, x.Heading)
	}
}
