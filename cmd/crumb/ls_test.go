package main

import (
	"testing"
	"time"
)

func TestUsedAgo(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		used time.Time
		want string
	}{
		{now, "0s ago"},
		{now.Add(-45 * time.Second), "45s ago"},
		{now.Add(-12 * time.Minute), "12m ago"},
		{now.Add(-3 * time.Hour), "3h ago"},
		{now.Add(-72 * time.Hour), "3d ago"},
		{now.Add(time.Second), "in the future"},
		{now.Add(2274781468 * time.Second), "in the future"},
		{time.Time{}, "-"},
	} {
		if got := usedAgo(now, tt.used); got != tt.want {
			t.Errorf("usedAgo(%v) = %q, want %q", now.Sub(tt.used), got, tt.want)
		}
	}
}
