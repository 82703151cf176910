// Package binary is crumb's projector of content that is not text: a view
// that names the content's type, what its own headers say (a program's build
// info, an archive's entries, a compressed file's original name), its size
// and the read that saves its exact bytes, and never shows a byte of it.
//
// It registers itself for [project.KindBinary] when imported; the crumb
// package imports it, as it imports every kind crumb ships.
package binary

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/recall"
)

func init() {
	project.Register(project.KindBinary, project.ProjectorFunc(projectBinary))
}

// maxArchiveEntries is the most entries of an archive a binary view lists.
const maxArchiveEntries = 30

// projectBinary describes binary content without showing any of its bytes:
// its detected type, what its own headers say (a program's build info, an
// archive's entries, a compressed file's original name), its size and how to
// get the exact bytes back.
func projectBinary(ctx context.Context, in *project.Input) (project.Output, error) {
	head := make([]byte, min(in.Source.Size(), sniff.Len))
	n, err := in.Source.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return project.Output{}, err
	}
	head = head[:n]
	desc := sniff.Describe(head)
	size := in.Source.Size()
	if in.Truncated {
		size = in.SourceSize
	}
	var text string
	switch {
	case in.Ref != "":
		// The hint names the program the way it can be run ("crumb read
		// REF", or crumb's absolute path).
		text = fmt.Sprintf("[crumb binary: %s, %s (%s bytes), ref %s; binary content is not shown. Save the exact bytes with: %s --all > FILE]",
			desc, textfmt.Size(size), textfmt.Int(size), in.Ref, in.Hint(recall.Request{Ref: in.Ref}))
	default:
		text = fmt.Sprintf("[crumb binary: %s, %s (%s bytes); binary content is not shown, and it could not be stored: %s]",
			desc, textfmt.Size(size), textfmt.Int(size), in.StoreError)
	}
	// Facts from the format's own headers, as long as they fit the budget.
	room := in.Budget - in.Counter.Count(text) - 4
	for _, d := range binaryDetails(in.Source, head) {
		d = textfmt.CleanLine([]byte(d))
		c := in.Counter.Count(d) + 1
		if c > room {
			break
		}
		text += "\n" + d
		room -= c
	}
	return project.Output{Text: text}, nil
}

// binaryDetails reads what a binary's own headers say about it, each fact a
// line. Formats it does not know give none. Reads are bounded: headers,
// section tables and archive directories, never the whole content.
func binaryDetails(src project.Source, head []byte) []string {
	sr := io.NewSectionReader(src, 0, src.Size())
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return elfDetails(sr)
	case bytes.HasPrefix(head, []byte("MZ")), bytes.HasPrefix(head, []byte{0xcf, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(head, []byte{0xce, 0xfa, 0xed, 0xfe}):
		return goDetails(sr)
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return gzipDetails(sr)
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return zipDetails(sr)
	case len(head) > 262 && string(head[257:262]) == "ustar":
		return tarDetails(sr)
	case bytes.HasPrefix(head, []byte("%PDF-")):
		if i := bytes.IndexAny(head, "\r\n"); i > 5 {
			return []string{"PDF version " + string(head[5:i])}
		}
	}
	return nil
}

func elfDetails(sr *io.SectionReader) []string {
	f, err := elf.NewFile(sr)
	if err != nil {
		return nil
	}
	defer f.Close()
	kind := map[elf.Type]string{elf.ET_EXEC: "executable", elf.ET_DYN: "shared object or PIE executable", elf.ET_REL: "relocatable object", elf.ET_CORE: "core dump"}[f.Type]
	if kind == "" {
		kind = f.Type.String()
	}
	bits := "32-bit"
	if f.Class == elf.ELFCLASS64 {
		bits = "64-bit"
	}
	out := []string{fmt.Sprintf("ELF %s %s, %s", bits, kind, strings.TrimPrefix(f.Machine.String(), "EM_"))}
	if libs, err := f.ImportedLibraries(); err == nil && len(libs) > 0 {
		out = append(out, "needs: "+strings.Join(libs, ", "))
	}
	return append(out, goDetails(sr)...)
}

// goDetails reads the build info a Go program carries: its main package,
// module, Go version and dependencies.
func goDetails(sr *io.SectionReader) []string {
	bi, err := buildinfo.Read(sr)
	if err != nil {
		return nil
	}
	out := []string{fmt.Sprintf("Go program %s, built with %s", bi.Path, bi.GoVersion)}
	if bi.Main.Path != "" {
		out = append(out, fmt.Sprintf("module %s %s", bi.Main.Path, bi.Main.Version))
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "GOOS" || s.Key == "GOARCH" || s.Key == "-tags" {
			out = append(out, s.Key+"="+s.Value)
		}
	}
	if len(bi.Deps) > 0 {
		deps := make([]string, 0, len(bi.Deps))
		for _, d := range bi.Deps {
			deps = append(deps, d.Path+" "+d.Version)
		}
		out = append(out, fmt.Sprintf("%d dependencies: %s", len(bi.Deps), strings.Join(deps, ", ")))
	}
	return out
}

func gzipDetails(sr *io.SectionReader) []string {
	zr, err := gzip.NewReader(sr)
	if err != nil {
		return nil
	}
	defer zr.Close()
	var out []string
	if zr.Name != "" {
		out = append(out, "gzip of "+zr.Name)
	} else {
		out = append(out, "gzip stream (no original name recorded)")
	}
	if !zr.ModTime.IsZero() {
		out = append(out, "modified "+zr.ModTime.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if zr.Comment != "" {
		out = append(out, "comment: "+zr.Comment)
	}
	return out
}

func zipDetails(sr *io.SectionReader) []string {
	zr, err := zip.NewReader(sr, sr.Size())
	if err != nil {
		return nil
	}
	out := []string{fmt.Sprintf("zip archive of %s:", textfmt.Int(int64(len(zr.File)))+" entries")}
	for i, f := range zr.File {
		if i == maxArchiveEntries {
			out = append(out, fmt.Sprintf("… and %s more", textfmt.Int(int64(len(zr.File)-i))))
			break
		}
		out = append(out, fmt.Sprintf("  %s  %s", textfmt.Size(int64(f.UncompressedSize64)), f.Name))
	}
	return out
}

func tarDetails(sr *io.SectionReader) []string {
	tr := tar.NewReader(sr)
	out := []string{"tar archive, first entries:"}
	for i := 0; ; i++ {
		h, err := tr.Next()
		if err != nil {
			break
		}
		if i == maxArchiveEntries {
			out = append(out, "…")
			break
		}
		out = append(out, fmt.Sprintf("  %s  %s", textfmt.Size(h.Size), h.Name))
	}
	return out
}
