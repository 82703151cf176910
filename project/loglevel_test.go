package project

import (
	"testing"

	"github.com/crumb-dev/crumb/project/internal/classify"
	"github.com/crumb-dev/crumb/recall"
)

func TestLogLevels(t *testing.T) {
	tests := []struct {
		line     string
		keywords bool
		want     classify.Level
		record   bool
	}{
		{"2024-05-01T12:00:00Z INFO request served", false, classify.SevInfo, true},
		{"2024-05-01T12:00:00Z ERROR db timeout", false, classify.SevError, true},
		{"2024-05-01 12:00:00,123 - app.db - WARNING - slow query", false, classify.SevWarn, true},
		{"2024-05-01 12:00:00.123 UTC [42] postgres@bench ERROR:  division by zero", false, classify.SevError, true},
		{"2024-05-01 12:00:00.123 UTC [42] postgres@bench FATAL:  database \"x\" does not exist", false, classify.SevError, true},
		{"2024-05-01 12:00:00.123 UTC [42] postgres@bench DETAIL:  Key (id)=(1) already exists.", false, classify.SevDetail, true},
		{"2024-05-01 12:00:00.123 UTC [42] LOG:  checkpoint starting", false, classify.SevInfo, true},
		{"2024/05/01 12:00:00 [error] 12#12: *1 open() failed", false, classify.SevError, true},
		{"2024/05/01 12:00:00 [warn] 12#12: conflicting server name", false, classify.SevWarn, true},
		{"1234:M 01 May 2024 12:00:00.123 # WARNING overcommit_memory is set to 0", false, classify.SevWarn, true},
		{"1234:S 01 May 2024 12:00:00.123 # Error condition on socket for SYNC: Connection refused", false, classify.SevError, true},
		{"1234:M 01 May 2024 12:00:00.123 * Ready to accept connections", false, classify.SevInfo, true},
		{`127.0.0.1 - - [01/May/2024:12:00:00 +0000] "GET /x HTTP/1.1" 404 153 "-" "curl/8"`, false, classify.SevWarn, true},
		{`127.0.0.1 - - [01/May/2024:12:00:00 +0000] "GET /api HTTP/1.1" 502 157 "-" "curl/8"`, false, classify.SevError, true},
		{`127.0.0.1 - - [01/May/2024:12:00:00 +0000] "GET / HTTP/1.1" 200 612 "-" "curl/8"`, false, classify.SevInfo, true},
		{`127.0.0.1 - - [29/Nov/2025 12:00:00] code 404, message File not found`, false, classify.SevWarn, true},
		{`{"time":"2024-05-01T12:00:00Z","level":"ERROR","msg":"boom"}`, false, classify.SevError, true},
		{`{"level":"warn","ts":1714564800.1,"msg":"slow"}`, false, classify.SevWarn, true},
		{`{"level":50,"time":1714564800000,"msg":"pino error"}`, false, classify.SevError, true},
		{`{"msg":"no level here"}`, false, classify.SevNone, false},
		{"time=2024-05-01T12:00:00Z level=ERROR msg=boom", false, classify.SevError, true},
		{`time=2024-05-01T12:00:00Z level="warn" msg=slow`, false, classify.SevWarn, true},
		{"E0501 12:00:00.123456   42 main.go:10] failed", false, classify.SevError, true},
		{"W0501 12:00:00.123456   42 main.go:10] slow", false, classify.SevWarn, true},
		{"E: Unable to locate package foo", false, classify.SevError, false},
		{"ERROR:root:something broke", false, classify.SevError, false},
		{"2024/05/01 12:00:00 error: cannot open config", false, classify.SevError, true},
		{"line 1 of a long log, with some words", false, classify.SevNone, false},
		{"2024-05-01 12:00:00 status installed libgpg-error-dev:amd64 1.46-1", true, classify.SevNone, true},
		{"2024-05-01 12:00:00 sshd[42]: Failed password for root", true, classify.SevError, true},
		{"May  1 12:00:00 host kernel: warning: clock skew", true, classify.SevWarn, true},
		{"May  1 12:00:00 host cron[7]: job done, 0 errors", true, classify.SevNone, true},
		{"Log started: 2024-05-01 12:00:00", false, classify.SevNone, true},
	}
	for _, tt := range tests {
		ll := classify.ClassifyLogLine([]byte(tt.line), tt.keywords)
		if ll.Hit.Level != tt.want || ll.Record != tt.record {
			t.Errorf("%q: level %v, record %v; want %v, %v", tt.line, ll.Hit.Level, ll.Record, tt.want, tt.record)
			continue
		}
		if tt.want >= classify.SevWarn {
			// The search the view offers finds the line.
			re, err := recall.Compile(recall.GrepSpec{Pattern: ll.Hit.Spell})
			if err != nil {
				t.Errorf("%q: pattern %q: %v", tt.line, ll.Hit.Spell, err)
				continue
			}
			if !re.MatchString(tt.line) {
				t.Errorf("%q: pattern %q does not find it", tt.line, ll.Hit.Spell)
			}
		}
	}
}

// TestLogPatternFindsAll checks, for every fixture, that the search a view
// offers for errors and warnings finds every line the view counts as one.
func TestLogPatternFindsAll(t *testing.T) {
	for _, f := range logFixtures(t) {
		if notLogs[f.name] {
			continue
		}
		in := testInput(t, f.output, 2000)
		doc := in.Doc()
		lf, _, err := detectLog(doc)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scanLog(t.Context(), in, doc, lf)
		if err != nil {
			t.Fatal(err)
		}
		p := s.pattern()
		if p == "" {
			if s.bySev[classify.SevError]+s.bySev[classify.SevWarn] > 0 {
				t.Errorf("%s: problems but no pattern", f.name)
			}
			continue
		}
		re, err := recall.Compile(recall.GrepSpec{Pattern: p})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		var found, want int64
		for _, line := range splitLines(f.output) {
			if classify.ClassifyLogLine(line[:min(len(line), logLineCap)], lf.keywords).Hit.Level >= classify.SevWarn {
				want++
				if re.Match(line) {
					found++
				}
			}
		}
		if found != want || want != s.bySev[classify.SevError]+s.bySev[classify.SevWarn] {
			t.Errorf("%s: pattern %q finds %d of %d problem lines (scan counted %d)", f.name, p, found, want, s.bySev[classify.SevError]+s.bySev[classify.SevWarn])
		}
	}
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		l := b[:i]
		if len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		out = append(out, l)
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

// TestLogStatusCode checks that an access log line's status is found, so
// that lines of different statuses keep to different templates.
func TestLogStatusCode(t *testing.T) {
	for _, tt := range []struct {
		line string
		code uint16
	}{
		{`127.0.0.1 - - [01/May/2024:12:00:00 +0000] "GET /x HTTP/1.1" 404 153 "-" "curl/8"`, 404},
		{`127.0.0.1 - - [01/May/2024:12:00:00 +0000] "POST /upload HTTP/1.1" 413 183 "-" "curl/8"`, 413},
		{`127.0.0.1 - - [01/May/2024:12:00:00 +0000] "GET / HTTP/1.1" 200 612 "-" "curl/8"`, 200},
		{`127.0.0.1 - - [29/Nov/2025 12:00:00] code 400, message Bad request version ('HTCPCP/1.0')`, 400},
		{`127.0.0.1 - - [29/Nov/2025 12:00:00] "BREW /pot HTCPCP/1.0" 400 -`, 400},
		{"2024-05-01T12:00:00Z ERROR request failed with 502", 0},
	} {
		if got := classify.ClassifyLogLine([]byte(tt.line), false).Hit.Code; got != tt.code {
			t.Errorf("%q: status %d, want %d", tt.line, got, tt.code)
		}
	}
	g := newLogGroups()
	a := g.of(classify.LevelHit{Level: classify.SevWarn, Code: 404})
	b := g.of(classify.LevelHit{Level: classify.SevWarn, Code: 413})
	if a == b || a == uint8(classify.SevWarn) || g.of(classify.LevelHit{Level: classify.SevWarn, Code: 404}) != a || g.levelOf(b) != classify.SevWarn || g.codeOf(b) != 413 {
		t.Errorf("groups: 404 → %d, 413 → %d (level %v, status %d)", a, b, g.levelOf(b), g.codeOf(b))
	}
	if g.of(classify.LevelHit{Level: classify.SevError}) != uint8(classify.SevError) || g.find(classify.LevelHit{Level: classify.SevInfo, Code: 200}) != uint8(classify.SevInfo) {
		t.Error("a line without a status, or of a status not seen, should keep to its level's group")
	}
}
