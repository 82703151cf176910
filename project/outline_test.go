package project

import (
	"bytes"
	"context"
	"github.com/crumb-dev/crumb/project/internal/view"
	"strings"
	"testing"
)

func TestLangOf(t *testing.T) {
	for _, c := range []struct {
		name, head string
		want       *srcLang
	}{
		{"a/b/server.go", "", langGo},
		{`C:\src\App.java`, "", langJv},
		{"x.PY", "", langPy},
		{"lib.rs", "", langRs},
		{"index.d.ts", "", langTS},
		{"vector.h", "namespace std {\n", langCc},
		{"zlib.h", "#ifndef ZLIB_H\n", langC},
		{"README.md", "", langMd},
		{"Makefile", "all:\n", nil},
		{"", "#!/usr/bin/env python3\nimport os\n", langPy},
		{"", "#!/bin/sh\necho hi\n", langSh},
		{"", "#   -*- shell-script -*-\n# a comment\n# more\n", langSh},
		{"", "# vim: ft=ruby\n", langRb},
		{"", "package main\n\nimport \"fmt\"\n\nfunc main() {\n}\n", langGo},
		{"", "# Title\n\nSome prose.\n\n## Part\n\nMore.\n", langMd},
		{"", "# comment\n# comment\n# comment\nif [ -x y ]; then\n  foo\nfi\n", langSh},
		{"", "use std::io;\n\nfn main() {}\n", langRs},
		{"", "just some words\nand more words\n", nil},
	} {
		if got := langOf(c.name, []byte(c.head)); got != c.want {
			t.Errorf("langOf(%q, %q) = %v, want %v", c.name, c.head, langName(got), langName(c.want))
		}
	}
}

func langName(l *srcLang) string {
	if l == nil {
		return "none"
	}
	return l.name
}

// TestMatchers checks each language's patterns on lines written the way
// that language writes definitions, and on lines that are not definitions.
func TestMatchers(t *testing.T) {
	for _, c := range []struct {
		lang   *srcLang
		line   string
		indent int
		name   string // "" when the line is no definition
	}{
		{langGo, "func (s *Server) Serve(l net.Listener) error {", 0, "Serve"},
		{langGo, "func New[T any](x T) *T {", 0, "New"},
		{langGo, "type Handler interface {", 0, "Handler"},
		{langGo, "\tfunc() {", 4, ""},
		{langPy, "async def fetch(self, url):", 4, "fetch"},
		{langPy, "class Parser(Base):", 0, "Parser"},
		{langPy, "define = 1", 0, ""},
		{langJS, "export default async function handler(req, res) {", 0, "handler"},
		{langJS, "export const add = (a, b) => a + b;", 0, "add"},
		{langJS, "const total = items.filter((x) => x.ok);", 0, ""},
		{langTS, "export interface Options {", 0, "Options"},
		{langTS, "type Id = string | number;", 0, "Id"},
		{langTS, "export declare const CallToolResultSchema: z.ZodObject<{", 0, "CallToolResultSchema"},
		{langTS, "declare const VERSION: string;", 0, "VERSION"},
		{langTS, "const limit: number = compute();", 0, ""},
		{langTS, "  private async load(id: string): Promise<void> {", 2, "load"},
		{langTS, "  if (x) {", 2, ""},
		{langJS, `describe("the parser", () => {`, 0, "the parser"},
		{langRs, "pub(crate) async fn run(&self) -> Result<()> {", 4, "run"},
		{langRs, "impl<T: Clone> From<T> for Wrapper<T> {", 0, "Wrapper"},
		{langRs, "pub struct Config {", 0, "Config"},
		{langRs, "let x = f();", 4, ""},
		{langJv, "public static void main(String[] args) {", 4, "main"},
		{langJv, "public final class Cache<K, V> implements Map<K, V> {", 0, "Cache"},
		{langJv, "return compute(x);", 8, ""},
		{langJv, "if (ready) {", 8, ""},
		{langKt, "suspend fun String.fetch(url: String): Response {", 4, "fetch"},
		{langKt, "data class Point(val x: Int, val y: Int)", 0, "Point"},
		{langCs, "public async Task<int> CountAsync(CancellationToken ct)", 8, "CountAsync"},
		{langCs, "namespace App.Services", 0, "App"},
		{langSw, "func viewDidLoad() {", 4, "viewDidLoad"},
		{langC, "static int compile(const char *src, size_t n)", 0, "compile"},
		{langC, "struct node {", 0, "node"},
		{langC, "int x = f(y);", 0, ""},
		{langC, "foo(bar);", 0, ""},
		{langCc, "void Widget::draw(Canvas& c) const {", 0, "draw"},
		{langCc, "      push_back(const value_type& __x)", 6, "push_back"},
		{langCc, "      : _Base(__a) { }", 6, ""},
		{langRb, "def self.call(env)", 2, "call"},
		{langRb, "module Rack", 0, "Rack"},
		{langSh, "_filedir() {", 0, "_filedir"},
		{langSh, "function cleanup {", 0, "cleanup"},
		{langSh, "echo done", 0, ""},
	} {
		h, ok := c.lang.match([]byte(strings.TrimLeft(c.line, " \t")), c.indent)
		if c.name == "" {
			if ok {
				t.Errorf("%s %q: matched %q, want no definition", c.lang.name, c.line, h.name)
			}
			continue
		}
		if !ok || h.name != c.name {
			t.Errorf("%s %q: got %q (%v), want %q", c.lang.name, c.line, h.name, ok, c.name)
		}
	}
}

// TestDefEnds checks where the pattern scanner ends definitions: by braces,
// by indentation, by "end" and by the next heading.
func TestDefEnds(t *testing.T) {
	for _, c := range []struct {
		path, src string
		want      map[string][2]int64 // name -> line, end
	}{
		{"a.js", "function a() {\n  return 1;\n}\n\n// doc\nexport class B {\n  m() {\n    x();\n  }\n}\n",
			map[string][2]int64{"a": {1, 3}, "B": {6, 10}, "m": {7, 9}}},
		{"a.py", "class A:\n    def f(self):\n        pass\n\n    @property\n    def g(self):\n        return 1\n\ndef h():\n    pass\n",
			map[string][2]int64{"A": {1, 7}, "f": {2, 3}, "g": {6, 7}, "h": {9, 10}}},
		{"a.rb", "class A\n  def f\n    1\n  end\nend\n", map[string][2]int64{"A": {1, 5}, "f": {2, 4}}},
		{"a.md", "# A\n\ntext\n\n## B\n\nmore\n\nC\n===\n```\n# not a heading\n```\n", map[string][2]int64{"A": {1, 8}, "B": {5, 8}, "C": {9, 13}}},
	} {
		in := testInput(t, []byte(c.src), 2000)
		f := &defFinder{in: in, lang: langOf(c.path, nil)}
		got := map[string][2]int64{}
		var defs []*srcDef
		if err := f.each(context.Background(), func(d *srcDef) { defs = append(defs, d) }); err != nil {
			t.Fatal(err)
		}
		for _, d := range defs {
			got[d.name] = [2]int64{d.line, d.end}
		}
		for name, want := range c.want {
			if got[name] != want {
				t.Errorf("%s: %s at %v, want %v (all: %v)", c.path, name, got[name], want, got)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: found %v, want %v", c.path, got, c.want)
		}
	}
}

func TestDetectNumbering(t *testing.T) {
	for _, c := range []struct {
		src   string
		on    bool
		first int64
	}{
		{"     1\tpackage a\n     2\t\n     3\tfunc A() {}\n", true, 1},
		{"  1200→x\n  1201→y\n", true, 1200},
		{"1\tone\n3\tthree\n", false, 0},
		{"     1\tonly one line\n", false, 0},
		{"plain\ntext\n", false, 0},
	} {
		e, err := newExcerptor(testInput(t, []byte(c.src), 2000), true)
		if err != nil {
			t.Fatal(err)
		}
		nb, err := view.DetectNumbering(e)
		if err != nil || nb.On != c.on || nb.First != c.first {
			t.Errorf("detectNumbering(%q) = %+v, %v; want on %v from %d", c.src, nb, err, c.on, c.first)
		}
	}
	if got := view.StripNumber([]byte("    12\tcode\there")); !bytes.Equal(got, []byte("code\there")) {
		t.Errorf("stripNumber = %q", got)
	}
}
