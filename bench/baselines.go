package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
)

// The baselines below model what other systems put in a model's context when
// a tool returns a large result, each after the system's published code or
// documentation, cited on its constructor. A model takes the numbers and the
// text of the system's message as they are; where the system keeps the full
// output in a file, the view names a fixed, made-up path of the same shape
// (so that views are deterministic), and the strategy's continuation reads
// that file in pages of the same size as the preview the system shows, from
// where the preview stopped: an agent that reads on pays for every page.
//
// These systems are JavaScript, TypeScript and Rust programs that hold tool
// output as a string: invalid UTF-8 is decoded to U+FFFD, one per invalid
// byte, before anything else, and "characters" are UTF-16 code units, as
// String.length counts them. NUL and other control bytes stay as they are.
//
// What is left out, and said on each: LLM summaries (they need a model and
// are off by default or optional), per-tool exemptions, and limits on whole
// conversations. A CallToolResult is treated as the JSON text the case
// holds, except where a system is documented to treat media specially.

// Names of the built-in strategies, in the order reports list them.
const (
	NameRaw          = "raw"
	NameCut50K       = "cut50k"
	NameB4           = "b4"
	NameCraft        = "craft"
	NameClaudeCode   = "claude-code"
	NameHeadTail     = "headtail"
	NameGemini       = "gemini"
	NameCrumb        = "crumb"
	NameHeadTailSame = "headtail-same"
)

// Baselines returns the strategies of other systems, in report order: raw,
// cut50k, b4, craft, claude-code, headtail and gemini.
func Baselines() []Strategy {
	return []Strategy{Raw(), Cut50K(), B4(), Craft(), ClaudeCode(), HeadTailCodex(), Gemini()}
}

// Lookup returns the built-in strategy with the given name: a baseline's,
// "crumb" (at crumb's default budget) or "crumb@N" (crumb at a budget of N
// tokens). "headtail-same" is not found here: it needs crumb's report (see
// [HeadTailSame]).
func Lookup(name string) (Strategy, error) {
	for _, s := range Baselines() {
		if s.Name() == name {
			return s, nil
		}
	}
	if name == NameCrumb {
		return Crumb(crumb.DefaultBudget), nil
	}
	if n, ok := strings.CutPrefix(name, NameCrumb+"@"); ok {
		b, err := strconv.Atoi(n)
		if err != nil || b <= 0 {
			return nil, fmt.Errorf("bench: %q: the budget after \"crumb@\" must be a positive number of tokens", name)
		}
		return CrumbAt(b), nil
	}
	return nil, fmt.Errorf("bench: no strategy %q; the strategies are %s, crumb@N and %s",
		name, strings.Join(StrategyNames(), ", "), NameHeadTailSame)
}

// StrategyNames lists the names Lookup knows, besides "crumb@N".
func StrategyNames() []string {
	var names []string
	for _, s := range Baselines() {
		names = append(names, s.Name())
	}
	return append(names, NameCrumb)
}

// CrumbAt returns crumb's strategy at a budget of the given number of tokens,
// named "crumb@N" so that it can stand beside crumb at its default budget.
func CrumbAt(budget int) Strategy {
	return namedStrategy{name: fmt.Sprintf("%s@%d", NameCrumb, budget), Strategy: Crumb(budget)}
}

type namedStrategy struct {
	name string
	Strategy
}

func (n namedStrategy) Name() string { return n.name }

// Cut50K returns the strategy that keeps the first 50,000 bytes of an output
// longer than that and adds a notice that the rest was cut. It stands for
// the plain byte cap many agent harnesses put on tool results (50 KB is the
// most common figure: opencode's MAX_BYTES, Hermes' terminal cap), without
// the file some of them also keep: nothing after the cut can be read.
func Cut50K() Strategy { return cut50k{} }

type cut50k struct{}

// cut50kBytes is the cap.
const cut50kBytes = 50_000

func (cut50k) Name() string { return NameCut50K }

func (cut50k) View(_ context.Context, c *Case, _ *Env) (*View, error) {
	text := lossy(c.Output)
	if len(text) <= cut50kBytes {
		return &View{Text: text}, nil
	}
	head := text[:runeStart(text, cut50kBytes)]
	return &View{Text: head + fmt.Sprintf("\n\n[output truncated: showing the first %s of %s bytes]",
		textfmt.Int(int64(len(head))), textfmt.Int(int64(len(text))))}, nil
}

// B4 returns the strategy of B4.run's tool-output offloading, on by default
// (B4.run documentation, "Context Management": toolOutput.offloadThresholdChars
// 40,000 and previewLines 10): an output longer than 40,000 characters is
// written to workspace/tool-outputs/ and the model gets a stub with the first
// 10 lines and the file's path:
//
//	[Tool output offloaded — 123,456 chars exceeded the 40,000-char limit.
//	Full output saved to: tool-outputs/ab12cd34ef56.txt
//	Preview (first 10 lines):
//	...
//	Read the full output with the readFile tool at the path above.]
//
// The documentation does not say that preview lines are shortened, so they
// are kept whole. Its continuation reads the file on from line 11, 10 lines
// a page (B4.run's readFile returns the whole file, which costs more).
func B4() Strategy { return b4{} }

type b4 struct{}

const (
	b4Threshold    = 40_000
	b4PreviewLines = 10
)

func (b4) Name() string { return NameB4 }

func (b4) View(_ context.Context, c *Case, _ *Env) (*View, error) {
	text := lossy(c.Output)
	n := jsLen(text)
	if n <= b4Threshold {
		return &View{Text: text}, nil
	}
	end := lineEnd(text, 0, b4PreviewLines)
	preview := strings.TrimSuffix(text[:end], "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "[Tool output offloaded — %s chars exceeded the %s-char limit.\n", textfmt.Int(int64(n)), textfmt.Int(b4Threshold))
	fmt.Fprintf(&b, "Full output saved to: tool-outputs/%s.txt\n", outputID(c)[:12])
	fmt.Fprintf(&b, "Preview (first %d lines):\n%s\n", b4PreviewLines, preview)
	b.WriteString("Read the full output with the readFile tool at the path above.]")
	return &View{Text: b.String(), Pages: newSlicePager(text, end, len(text), unitLines, b4PreviewLines)}, nil
}

// ClaudeCode returns the strategy of Claude Code's persisted tool results
// (Claude Code 2.1.51 changelog: "Tool results larger than 50K characters are
// now persisted to disk"; src/utils/toolResultStorage.ts:
// DEFAULT_MAX_RESULT_SIZE_CHARS 50,000, PREVIEW_SIZE_BYTES 2,000,
// generatePreview, buildLargeToolResultMessage): an output longer than 50,000
// characters is saved under the session's tool-results/ and the model gets
//
//	<persisted-output>
//	Output too large (1.2MB). Full output saved to: /home/user/.claude/projects/.../tool-results/toolu_....txt
//
//	Preview (first 2KB):
//	(the first 2,000 characters, cut back to the last newline when that
//	keeps more than half of them)
//	...
//	</persisted-output>
//
// A CallToolResult with media (an image, audio, a blob) is not persisted and
// reaches the model whole, as in Claude Code. Bash output has a lower
// threshold of its own (30,000 characters, anthropics/claude-code#17944),
// not modelled here. The continuation reads the saved file on from the end
// of the preview, 2,000 characters a page.
func ClaudeCode() Strategy { return claudeCode{} }

type claudeCode struct{}

const (
	claudeThreshold   = 50_000
	claudePreviewSize = 2_000
)

func (claudeCode) Name() string { return NameClaudeCode }

func (claudeCode) View(_ context.Context, c *Case, _ *Env) (*View, error) {
	if c.Kind == project.KindMCP && hasMedia(c.Output) {
		return &View{Text: string(c.Output)}, nil
	}
	text := lossy(c.Output)
	n := jsLen(text)
	if n <= claudeThreshold {
		return &View{Text: text}, nil
	}
	// generatePreview: the first 2,000 characters, back to the last
	// newline if it is past the middle.
	cut := jsCut(text, claudePreviewSize)
	if nl := strings.LastIndexByte(text[:cut], '\n'); nl >= 0 && jsLen(text[:nl]) > claudePreviewSize/2 {
		cut = nl
	}
	var b strings.Builder
	b.WriteString("<persisted-output>\n")
	fmt.Fprintf(&b, "Output too large (%s). Full output saved to: /home/user/.claude/projects/-home-user-project/%s/tool-results/toolu_%s.txt\n\n",
		claudeFileSize(int64(n)), sessionID(c), outputID(c)[:24])
	fmt.Fprintf(&b, "Preview (first %s):\n", claudeFileSize(claudePreviewSize))
	b.WriteString(text[:cut])
	b.WriteString("\n...\n</persisted-output>")
	return &View{Text: b.String(), Pages: newSlicePager(text, cut, len(text), unitChars, claudePreviewSize)}, nil
}

// claudeFileSize is Claude Code's formatFileSize: "512 bytes", "17.3KB",
// "4.8MB", "1.1GB" (binary units, one decimal place, ".0" dropped).
func claudeFileSize(n int64) string {
	kb := float64(n) / 1024
	if kb < 1 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	one := func(f float64) string { return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0") }
	if kb < 1024 {
		return one(kb) + "KB"
	}
	if mb := kb / 1024; mb < 1024 {
		return one(mb) + "MB"
	}
	return one(kb/1024/1024) + "GB"
}

// HeadTailCodex returns the strategy of Codex's head-and-tail cut, named
// "headtail" (openai/codex, codex-rs/core/src/truncate.rs:
// format_output_for_model_body with MODEL_FORMAT_MAX_BYTES 10 KiB and
// MODEL_FORMAT_MAX_LINES 256): an output over 10,240 bytes or 256 lines
// keeps its first 128 lines within 5,120 bytes and as much of its last 128
// lines as fits the rest of 10,240 bytes, with "[... omitted N of M lines
// ...]" in the middle, under a line "Total output lines: M". Codex keeps no
// copy the model can read: there is no continuation.
func HeadTailCodex() Strategy { return headTailCodex{} }

type headTailCodex struct{}

const (
	codexMaxBytes = 10 * 1024
	codexMaxLines = 256
)

func (headTailCodex) Name() string { return NameHeadTail }

func (headTailCodex) View(_ context.Context, c *Case, _ *Env) (*View, error) {
	return &View{Text: codexFormat(lossy(c.Output), codexMaxBytes, codexMaxLines)}, nil
}

// codexFormat is format_output_for_model_body.
func codexFormat(content string, limitBytes, limitLines int) string {
	total := rustLines(content)
	if len(content) <= limitBytes && total <= limitLines {
		return content
	}
	return fmt.Sprintf("Total output lines: %d\n\n%s", total, codexTruncate(content, total, limitBytes, limitLines))
}

// codexTruncate is truncate_formatted_exec_output.
func codexTruncate(content string, total, limitBytes, limitLines int) string {
	headLines := limitLines / 2
	tailLines := limitLines - headLines
	headBytes := limitBytes / 2
	segments := strings.SplitAfter(content, "\n")
	if segments[len(segments)-1] == "" {
		segments = segments[:len(segments)-1] // split_inclusive yields no empty last piece
	}
	headTake := min(headLines, len(segments))
	tailTake := min(tailLines, max(0, len(segments)-headTake))
	omitted := max(0, len(segments)-(headTake+tailTake))
	headEnd := 0
	for _, s := range segments[:headTake] {
		headEnd += len(s)
	}
	tailStart := len(content)
	for _, s := range segments[len(segments)-tailTake:] {
		tailStart -= len(s)
	}
	var marker string
	switch {
	case omitted > 0:
		marker = fmt.Sprintf("\n[... omitted %d of %d lines ...]\n\n", omitted, total)
	case len(content) > limitBytes:
		marker = fmt.Sprintf("\n[... output truncated to fit %d bytes ...]\n\n", limitBytes)
	}
	headBudget := min(headBytes, max(0, limitBytes-len(marker)))
	result := takeBytes(content[:headEnd], headBudget) + marker
	remaining := max(0, limitBytes-len(result))
	if remaining == 0 {
		return result
	}
	return result + takeLastBytes(content[tailStart:], remaining)
}

// rustLines counts lines as Rust's str::lines does: a last line without a
// newline counts, an empty string after the last newline does not.
func rustLines(s string) int {
	n := strings.Count(s, "\n")
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// takeBytes is take_bytes_at_char_boundary: the longest prefix of s within
// n bytes that ends on a character boundary.
func takeBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:runeStart(s, n)]
}

// takeLastBytes is take_last_bytes_at_char_boundary: the longest suffix of s
// within n bytes that starts on a character boundary.
func takeLastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// Gemini returns the strategy of Gemini CLI's cut of large tool output
// (google-gemini/gemini-cli, packages/core/src/utils/fileUtils.ts:
// formatTruncatedToolOutput and saveTruncatedToolOutput; the setting
// tools.truncateToolOutputThreshold, 40,000 by default): an output longer
// than 40,000 characters is saved under tool-outputs/ and the model gets
//
//	Output too large. Showing first 8,000 and last 32,000 characters. For full output see: PATH
//	(the first 8,000 characters)
//
//	... [N characters omitted] ...
//
//	(the last 32,000 characters)
//
// Its continuation reads the omitted middle of the saved file, 40,000
// characters a page.
func Gemini() Strategy { return gemini{} }

type gemini struct{}

const geminiThreshold = 40_000

func (gemini) Name() string { return NameGemini }

func (gemini) View(_ context.Context, c *Case, _ *Env) (*View, error) {
	text := lossy(c.Output)
	n := jsLen(text)
	if n <= geminiThreshold {
		return &View{Text: text}, nil
	}
	headChars := geminiThreshold / 5
	tailChars := geminiThreshold - headChars
	headEnd := jsCut(text, headChars)
	tailStart := jsCutLast(text, tailChars)
	omitted := n - headChars - tailChars
	path := fmt.Sprintf("/home/user/.gemini/tmp/%s/tool-outputs/%s_%s.txt", sessionID(c), safeName(c.Tool), outputID(c)[:8])
	text2 := fmt.Sprintf("Output too large. Showing first %s and last %s characters. For full output see: %s\n%s\n\n... [%s characters omitted] ...\n\n%s",
		textfmt.Int(int64(headChars)), textfmt.Int(int64(tailChars)), path, text[:headEnd], textfmt.Int(int64(omitted)), text[tailStart:])
	return &View{Text: text2, Pages: newSlicePager(text, headEnd, tailStart, unitChars, geminiThreshold)}, nil
}

// Craft returns the strategy of Craft Agents' large-response guard
// (lukilabs/craft-agents-oss, packages/shared/src/utils/large-response.ts:
// guardLargeResult, handleLargeResponse and formatLargeResponseMessage;
// binary-detection.ts: looksLikeBinary and extractBase64Binary; summarize.ts:
// TOKEN_LIMIT 15,000), in this order:
//
//   - binary content (a NUL, or over 10% control bytes among the ASCII bytes
//     of the first 8 KB) is saved to a file and the model gets
//     "[Binary content detected and saved]" with the path, size and type;
//   - a JSON document with base64 media in its strings (an MCP image) has
//     them saved as files and rewritten as references in a linked copy;
//     the model gets the list of assets and the two JSON files' paths;
//   - a result that is one data: URL or one base64 blob of binary is saved
//     decoded, with a message like the first;
//   - a result over 15,000 estimated tokens (characters / 4) is saved under
//     long_responses/ and the model gets its path, how to read it, and a
//     preview of its first 2,000 characters followed by "...".
//
// An LLM summary can replace the preview when a summarizer is configured;
// it is not modelled. (Later revisions lowered the limit to 12,000 tokens
// and estimate base64 text more tightly.) The continuation reads the saved
// text on from the end of the preview, or the linked JSON from its start,
// 2,000 characters a page.
func Craft() Strategy { return craft{} }

type craft struct{}

const (
	craftTokenLimit   = 15_000
	craftPreviewChars = 2_000
	craftSession      = "/home/user/.craft-agent/workspaces/default/sessions/260101-session"
	craftStamp        = "2026-01-01T00-00-00-000"
)

func (craft) Name() string { return NameCraft }

func (craft) View(_ context.Context, c *Case, _ *Env) (*View, error) {
	tool := c.Tool
	if tool == "" {
		tool = "tool"
	}
	if craftLooksBinary(c.Output) {
		ext := craftMagicExt(c.Output)
		if ext == "" {
			ext = ".bin"
		}
		return &View{Text: craftBinaryMessage("[Binary content detected and saved]",
			fmt.Sprintf("%s/downloads/%s_%s%s", craftSession, craftSanitize(tool), craftStamp[:19], ext), len(c.Output), ext,
			"Use the Read tool or reference this path to work with the file.")}, nil
	}
	text := lossy(c.Output)
	if linked, assets, ok := craftExtractAssets(text, tool); ok {
		return &View{Text: craftAssetsMessage(tool, assets), Pages: newSlicePager(linked, 0, len(linked), unitChars, craftPreviewChars)}, nil
	}
	if x, ok := craftBase64(text); ok {
		return &View{Text: craftBinaryMessage("[Base64-encoded binary detected and saved]",
			fmt.Sprintf("%s/downloads/%s_%s%s", craftSession, craftSanitize(tool), craftStamp[:19], x.ext), len(x.data), x.ext,
			"The tool result contained base64-encoded binary data which has been decoded and saved.")}, nil
	}
	n := jsLen(text)
	est := (n + 3) / 4
	if est <= craftTokenLimit {
		return &View{Text: text}, nil
	}
	rel := fmt.Sprintf("long_responses/%s_%s_.txt", craftStamp, tool)
	cut := jsCut(text, craftPreviewChars)
	var b strings.Builder
	fmt.Fprintf(&b, "[Response too large (~%d tokens)]\n\n", est)
	fmt.Fprintf(&b, "Full data saved to: %s/%s\n", craftSession, rel)
	b.WriteString("- Use Read/Grep to access specific content\n")
	fmt.Fprintf(&b, "- Use transform_data with inputFiles: [%q] for data analysis\n\n", rel)
	b.WriteString("Preview:\n" + text[:cut] + "...")
	return &View{Text: b.String(), Pages: newSlicePager(text, cut, len(text), unitChars, craftPreviewChars)}, nil
}

func craftBinaryMessage(title, path string, size int, ext, advice string) string {
	typ := strings.ToUpper(strings.TrimPrefix(ext, "."))
	if typ == "" {
		typ = "unknown"
	}
	return fmt.Sprintf("%s\n\nFile: %s\nSize: %s\nType: %s\n\n%s", title, path, craftFormatBytes(int64(size)), typ, advice)
}

// craftLooksBinary is looksLikeBinary: a NUL in the first 8 KB, or more than
// 10% of its ASCII bytes control bytes other than tab, newline, vertical
// tab, form feed and carriage return.
func craftLooksBinary(b []byte) bool {
	b = b[:min(len(b), 8192)]
	ascii, bad := 0, 0
	for _, c := range b {
		if c == 0 {
			return true
		}
		if c >= 0x80 {
			continue
		}
		ascii++
		if c < 0x09 || c > 0x0d && c < 0x20 {
			bad++
		}
	}
	return ascii > 0 && float64(bad)/float64(ascii) > 0.10
}

// craftMagicExt is detectExtensionFromMagic.
func craftMagicExt(b []byte) string {
	if len(b) < 8 {
		return ""
	}
	for _, m := range []struct{ magic, ext string }{
		{"%PDF", ".pdf"}, {"\x89PNG", ".png"}, {"\xff\xd8\xff", ".jpg"}, {"GIF8", ".gif"}, {"PK\x03\x04", ".zip"},
		{"Rar!", ".rar"}, {"\x1f\x8b", ".gz"}, {"BM", ".bmp"}, {"ID3", ".mp3"}, {"\xff\xfb", ".mp3"},
		{"RIFF", ".wav"}, {"OggS", ".ogg"}, {"fLaC", ".flac"},
	} {
		if strings.HasPrefix(string(b[:8]), m.magic) {
			return m.ext
		}
	}
	return ""
}

// craftFormatBytes is formatBytes: "0 B", "512 B", "12.3 KB", "1.1 MB"
// (binary units).
func craftFormatBytes(n int64) string {
	if n == 0 {
		return "0 B"
	}
	units := []string{"B", "KB", "MB", "GB"}
	i := min(int(math.Floor(math.Log(float64(n))/math.Log(1024))), len(units)-1)
	size := float64(n) / math.Pow(1024, float64(i))
	prec := 1
	if i == 0 {
		prec = 0
	}
	return strconv.FormatFloat(size, 'f', prec, 64) + " " + units[i]
}

// craftSanitize is sanitizeFilename.
func craftSanitize(s string) string {
	var b strings.Builder
	lastUnderscore := false
	for _, r := range s {
		switch {
		case strings.ContainsRune(`/\:*?"<>|`, r), r == ' ', r == '\t', r == '\n', r == '\r', r == '_':
			if !lastUnderscore {
				b.WriteByte('_')
			}
			lastUnderscore = true
		default:
			b.WriteRune(r)
			lastUnderscore = false
		}
	}
	out := strings.Trim(b.String(), "_")
	return out[:runeStart(out, min(len(out), 200))]
}

// lossy decodes output as a JavaScript or Rust program does when it reads it
// as a string: each byte of invalid UTF-8 becomes U+FFFD.
func lossy(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	s.Grow(len(b) + len(b)/4)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			s.WriteRune(utf8.RuneError)
		} else {
			s.Write(b[:size])
		}
		b = b[max(size, 1):]
	}
	return s.String()
}

// jsLen is the length JavaScript gives s: its UTF-16 code units.
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xffff {
			n++
		}
	}
	return n
}

// jsCut returns the byte offset in s after its first n UTF-16 code units,
// as s.slice(0, n) cuts it (a surrogate pair that would be split is left
// out).
func jsCut(s string, n int) int {
	units := 0
	for i, r := range s {
		w := 1
		if r > 0xffff {
			w = 2
		}
		if units+w > n {
			return i
		}
		units += w
	}
	return len(s)
}

// jsCutLast returns the byte offset in s where its last n UTF-16 code units
// begin, as s.slice(-n) cuts it.
func jsCutLast(s string, n int) int {
	units, i := 0, len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		w := 1
		if r > 0xffff {
			w = 2
		}
		if units+w > n {
			return i
		}
		units += w
		i -= size
	}
	return 0
}

// runeStart returns the largest offset at most n that starts a rune of s (or
// is its end).
func runeStart(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// lineEnd returns the offset just past the n-th newline at or after from, or
// the end of s when it has fewer.
func lineEnd(s string, from, n int) int {
	for k := 0; k < n; k++ {
		i := strings.IndexByte(s[from:], '\n')
		if i < 0 {
			return len(s)
		}
		from += i + 1
	}
	return from
}

// outputID names a case's saved output in made-up paths: the hex SHA-256 of
// its output, so that views stay deterministic.
func outputID(c *Case) string {
	sum := sha256.Sum256(c.Output)
	return hex.EncodeToString(sum[:])
}

// sessionID is a made-up session directory name: the same for every case.
func sessionID(*Case) string { return "3f6c1d2e-5a7b-4c8d-9e0f-1a2b3c4d5e6f" }

// safeName makes a tool name fit a file name.
func safeName(tool string) string {
	if tool == "" {
		return "tool"
	}
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return r
		}
		return '_'
	}, tool)
}

// hasMedia reports whether a CallToolResult holds a block that is not text:
// an image, audio, or a resource blob.
func hasMedia(output []byte) bool {
	c, ok := project.MCPCostOf(output)
	return ok && len(c.Payloads) > 0
}

// unit is what a page of a saved output is measured in.
type unit int

const (
	unitBytes unit = iota
	unitChars      // UTF-16 code units
	unitLines
)

// slicePager reads text[pos:end] in pages of size units, each page the
// text itself: what an agent reading a saved file in pieces is shown.
type slicePager struct {
	text     string
	pos, end int
	unit     unit
	size     int
}

func newSlicePager(text string, from, end int, u unit, size int) Pager {
	if from >= end {
		return nil
	}
	return &slicePager{text: text, pos: from, end: end, unit: u, size: size}
}

func (p *slicePager) Next(context.Context) (string, bool, error) {
	if p.pos >= p.end {
		return "", false, nil
	}
	rest := p.text[p.pos:p.end]
	var n int
	switch p.unit {
	case unitBytes:
		n = runeStart(rest, p.size)
	case unitChars:
		n = jsCut(rest, p.size)
	case unitLines:
		n = lineEnd(rest, 0, p.size)
	}
	if n == 0 { // a rune longer than a page: take it whole
		_, n = utf8.DecodeRuneInString(rest)
	}
	p.pos += n
	return rest[:n], true, nil
}
