package server_test

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/server"
)

// TestOneTableOfLimits (issue 20 item 10): the sidecar checks every number
// against the ranges the command line and the MCP tools check (one table,
// docs/limits.md); a value outside is a 400 that names the range, a skip
// past the last match says how many there are, and args must be a JSON
// object.
func TestOneTableOfLimits(t *testing.T) {
	ts := newServer(t, server.Options{})
	ref := ts.do(t, "POST", "/v1/results?kind=text&budget=200", "", bytes.NewReader(numberedLines(3000))).json(t)["ref"].(string)
	grep := "/v1/results/" + ref + "/grep?pattern=" + url.QueryEscape("5") + "&"
	fives := 0
	for _, l := range strings.Split(strings.TrimSuffix(string(numberedLines(3000)), "\n"), "\n") {
		if strings.Contains(l, "5") {
			fives++
		}
	}
	for _, c := range []struct {
		method, path string
		hdr          []string
		status       int
		code, msg    string
	}{
		{"POST", "/v1/results?args=" + url.QueryEscape("[1]"), nil, 400, server.CodeBadRequest, "args: it is JSON but not an object"},
		{"POST", "/v1/results?args=" + url.QueryEscape(`"x"`), nil, 400, server.CodeBadRequest, "not an object"},
		{"POST", "/v1/results?args=" + url.QueryEscape(`{"path":"a"}`), nil, 200, "", ""},
		{"POST", "/v1/results", []string{"X-Crumb-Args", "[1]"}, 400, server.CodeBadRequest, "not an object"},
		{"POST", "/v1/results?kind=command&exit_code=99999999999", nil, 400, server.CodeBadRequest, "parameter exit_code: 99,999,999,999 is out of range: want 0 to 255 (exit status)"},
		{"POST", "/v1/results?kind=command", []string{"X-Crumb-Exit-Code", "99999999999"}, 400, server.CodeBadRequest, "want 0 to 255 (exit status)"},
		{"POST", "/v1/results?kind=command&exit_code=-1", nil, 400, server.CodeBadRequest, "-1 is out of range"},
		{"POST", "/v1/results?kind=command&exit_code=255", nil, 200, "", ""},
		{"POST", "/v1/results?budget=1048576", nil, 400, server.CodeBadRequest, "parameter budget: 1,048,576 is out of range: want 1 to 1,000,000 (tokens)"},
		{"POST", "/v1/results?budget=1000000", nil, 200, "", ""},
		{"POST", "/v1/results?threshold=1000001", nil, 400, server.CodeBadRequest, "want 0 to 1,000,000 (tokens)"},
		{"GET", "/v1/results/" + ref + "?budget=1048576", nil, 400, server.CodeBadRequest, "want 1 to 1,000,000 (tokens)"},
		{"GET", "/v1/results/" + ref + "?budget=1000000&lines=1:3", nil, 200, "", ""},
		{"GET", grep + "skip=2147483647", nil, 416, server.CodeOutOfRange, "--skip 2,147,483,647 is past the last match: " + ref + " has only " + textfmt.Int(int64(fives)) + ` matches of "5" in 3,000 lines`},
		{"GET", grep + "skip=1073741825", nil, 416, server.CodeOutOfRange, "past the last match"},
		{"GET", grep + "skip=1099511627777", nil, 400, server.CodeBadRequest, "parameter skip: 1,099,511,627,777 is out of range: want 0 to 1,099,511,627,776 (matches)"},
		{"GET", grep + "from=100&skip=100", nil, 400, server.CodeBadRequest, "at most 99 matches come before line 100"},
		{"GET", grep + "from=2147483648", nil, 416, server.CodeOutOfRange, "past the end"},
		{"GET", grep + "context=1001", nil, 400, server.CodeBadRequest, "parameter context: 1,001 is out of range: want 0 to 1,000 (lines)"},
		{"GET", grep + "max=1099511627777", nil, 400, server.CodeBadRequest, "want 0 to 1,099,511,627,776 (matches)"},
		{"GET", "/v1/results?limit=0", nil, 400, server.CodeBadRequest, "parameter limit: 0 is out of range: want 1 to 1,048,576 (results)"},
		{"POST", "/v1/compact?budget=1000001", nil, 400, server.CodeBadRequest, "parameter budget: 1,000,001 is out of range: want 0 to 1,000,000 (tokens)"},
		{"POST", "/v1/compact?recent=0", nil, 400, server.CodeBadRequest, "want 1 to 1,000,000 (turns)"},
	} {
		body := "line one\n"
		if strings.HasPrefix(c.path, "/v1/compact") {
			body = `{"messages":[]}`
		}
		a := ts.do(t, c.method, c.path, "", strings.NewReader(body), c.hdr...)
		if a.status != c.status {
			t.Errorf("%s %s %v: %d %s, want %d", c.method, c.path, c.hdr, a.status, a.body, c.status)
			continue
		}
		if c.code == "" {
			continue
		}
		msg, _ := a.json(t)["error"].(map[string]any)["message"].(string)
		if a.errCode(t) != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%s %s %v: %s, want %s with %q", c.method, c.path, c.hdr, a.body, c.code, c.msg)
		}
	}
}

// TestOpenAPILimits: every whole-number parameter the OpenAPI document
// describes has the range the server checks, at both ends: the bounds are
// taken, one past either is a 400 that names them.
func TestOpenAPILimits(t *testing.T) {
	doc := loadOpenAPI(t)
	ts := newServer(t, server.Options{})
	ref := ts.do(t, "POST", "/v1/results?kind=text&budget=200", "", bytes.NewReader(numberedLines(3000))).json(t)["ref"].(string)
	checked := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, pr := range op.Parameters {
				p := pr.Value
				if !p.Schema.Value.Type.Is("integer") || p.In != "query" {
					continue
				}
				if p.Schema.Value.Min == nil || p.Schema.Value.Max == nil {
					t.Errorf("%s %s: parameter %s has no minimum and maximum", method, path, p.Name)
					continue
				}
				lo, hi := int64(*p.Schema.Value.Min), int64(*p.Schema.Value.Max)
				u := strings.ReplaceAll(path, "{ref}", ref) + "?"
				if strings.HasSuffix(path, "/grep") {
					u += "pattern=line&"
				}
				want := fmt.Sprintf("parameter %s: %s is out of range: want %s to %s", p.Name, textfmt.Int(hi+1), textfmt.Int(lo), textfmt.Int(hi))
				for _, v := range []int64{lo - 1, hi + 1} {
					a := ts.do(t, strings.ToUpper(method), u+p.Name+"="+strconv.FormatInt(v, 10), "", strings.NewReader("[]"))
					msg, _ := a.json(t)["error"].(map[string]any)["message"].(string)
					if v == hi+1 && !strings.Contains(msg, want) || a.status != 400 || !strings.Contains(msg, "is out of range: want "+textfmt.Int(lo)+" to "+textfmt.Int(hi)) {
						t.Errorf("%s %s %s=%d: %d %s, want 400 %q", method, path, p.Name, v, a.status, a.body, want)
					}
				}
				for _, v := range []int64{lo, hi} {
					a := ts.do(t, strings.ToUpper(method), u+p.Name+"="+strconv.FormatInt(v, 10), "", strings.NewReader("[]"))
					if a.status == 400 && strings.Contains(string(a.body), "parameter "+p.Name+":") {
						t.Errorf("%s %s %s=%d (in range): %s", method, path, p.Name, v, a.body)
					}
				}
				checked++
			}
		}
	}
	if checked < 15 {
		t.Errorf("checked %d whole-number parameters, want every one (15)", checked)
	}
}
