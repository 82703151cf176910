package redisstore

import (
	"strings"
	"testing"
)

func TestValidNamespace(t *testing.T) {
	for ns, want := range map[string]bool{
		"crumb": true, "team-a.b_c": true, "A9": true, strings.Repeat("n", 64): true,
		"": false, strings.Repeat("n", 65): false, "a b": false, "x}y": false, "a:b": false, "é": false, "a/b": false,
	} {
		if got := validNamespace(ns); got != want {
			t.Errorf("validNamespace(%q) = %v, want %v", ns, got, want)
		}
	}
}
