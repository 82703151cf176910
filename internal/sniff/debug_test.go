package sniff

import (
	"os"
	"testing"
)

func TestDebugCounts(t *testing.T) {
	p := os.Getenv("SNIFF_DEBUG")
	if p == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(p)
	h, tl := sample(b)
	var c counts
	c.part(h, tl != nil, false)
	if tl != nil {
		c.part(tl, false, true)
	}
	t.Logf("%+v", c)
}
