package bench

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadSummaries reads the summaries of a real run of "crumb bench --json"
// kept as a fixture.
func loadSummaries(t *testing.T) []Summary {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "svg", "summaries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sums []Summary
	if err := json.Unmarshal(raw, &sums); err != nil {
		t.Fatal(err)
	}
	return sums
}

// TestWriteSVG checks the chart against its golden file (-update rewrites
// it) and checks what a reader relies on: well-formed SVG, one mark per
// strategy in crumb's colour or the baselines', each named in a label, and
// the same bytes every time.
func TestWriteSVG(t *testing.T) {
	sums := loadSummaries(t)
	var b bytes.Buffer
	if err := WriteSVG(&b, sums, SVGOptions{Title: "62 cases, 162 needles, from testdata/corpus; one mark per strategy"}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "svg", "chart.svg"), b.String(), false)

	var again bytes.Buffer
	WriteSVG(&again, sums, SVGOptions{Title: "62 cases, 162 needles, from testdata/corpus; one mark per strategy"})
	if again.String() != b.String() {
		t.Error("the same summaries give two different charts")
	}

	// Well-formed: every element closes, and the root is an svg.
	dec := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	fills := map[string]bool{} // the colours of the marks
	var texts []string
	var stack []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 && el.Name.Local != "svg" {
				t.Fatalf("the root element is %s", el.Name.Local)
			}
			stack = append(stack, el.Name.Local)
			if el.Name.Local == "circle" {
				var fill string
				for _, a := range el.Attr {
					if a.Name.Local == "fill" {
						fill = a.Value
					}
				}
				fills[fill] = true
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 1 && stack[len(stack)-1] == "title" && stack[len(stack)-2] == "circle" {
				name, _, _ := strings.Cut(string(el), ":")
				texts = append(texts, name)
			}
		}
	}
	if len(texts) != len(sums) {
		t.Fatalf("%d marks for %d strategies", len(texts), len(sums))
	}
	for i, s := range sums {
		if texts[i] != s.Strategy {
			t.Errorf("mark %d is for %q, want %q", i, texts[i], s.Strategy)
		}
		if !strings.Contains(b.String(), ">"+s.Strategy+"</tspan>") {
			t.Errorf("no label names %s", s.Strategy)
		}
	}
	if !fills[colCrumb] || !fills[colBase] || len(fills) != 2 {
		t.Errorf("the marks' colours are %v, want crumb's %s and the baselines' %s", fills, colCrumb, colBase)
	}
	if err := WriteSVG(io.Discard, nil, SVGOptions{}); err == nil {
		t.Error("an empty chart is not an error")
	}
}

// TestLayoutKeepsLabelsApart checks, on crowded and on real figures, that
// no label covers another label or another strategy's mark.
func TestLayoutKeepsLabelsApart(t *testing.T) {
	lin := func(v float64) float64 { return plotL + math.Log10(math.Max(v, 1))*100 }
	pct := func(p float64) float64 { return plotB - p*3 }
	crowded := []Summary{
		{Strategy: "a", MeanFirstTokens: 1000, VisiblePct: 60},
		{Strategy: "b", MeanFirstTokens: 1010, VisiblePct: 60.5},
		{Strategy: "c", MeanFirstTokens: 1020, VisiblePct: 61},
		{Strategy: "crumb", MeanFirstTokens: 1200, VisiblePct: 60.2},
		{Strategy: "far-right", MeanFirstTokens: 1e6, VisiblePct: 60},
		{Strategy: "below", MeanFirstTokens: 1100, VisiblePct: 57},
	}
	for name, sums := range map[string][]Summary{"crowded": crowded, "real": loadSummaries(t)} {
		t.Run(name, func(t *testing.T) {
			marks := layout(sums, lin, pct)
			for i, m := range marks {
				if m.labelX0 < 0 || m.labelX0+m.labelW > svgW {
					t.Errorf("%s: the label runs off the chart (%.0f to %.0f)", m.label, m.labelX0, m.labelX0+m.labelW)
				}
				for j, o := range marks {
					if i == j {
						continue
					}
					if m.overlapsX(o.labelX0, o.labelX0+o.labelW) && m.ly-labelAbove < o.ly+labelBelow && o.ly-labelAbove < m.ly+labelBelow {
						t.Errorf("the labels of %s and %s overlap", m.label, o.label)
					}
					if m.overlapsX(o.cx-markR, o.cx+markR) && o.cy-markR < m.ly+labelBelow && m.ly-labelAbove < o.cy+markR {
						t.Errorf("the label of %s covers the mark of %s", m.label, o.label)
					}
				}
			}
		})
	}
}

func TestSVGHelpers(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{f1(12.34), "12.3"}, {f1(12.0), "12"}, {f1(-0.04), "0"}, {shortInt(100), "100"}, {shortInt(1000), "1k"},
		{shortInt(1e5), "100k"}, {shortInt(1e6), "1M"}, {xmlText(`a<b & "c">`), "a&lt;b &amp; &quot;c&quot;&gt;"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
