package jsonscan

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"unicode/utf8"
)

// Indent writes the JSON value in [start, end) of r to w, indented by two
// spaces a level, copying strings and numbers as they are. With stream
// set, [start, end) holds several top-level values, which are written as
// the elements of one array. It streams: memory stays at a window and the
// nesting depth, whatever the size.
func Indent(ctx context.Context, w io.Writer, r io.ReaderAt, start, end int64, stream bool) error {
	s := NewAt(r, start, end)
	if !stream {
		s.Single()
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	depth := 0
	first := true     // the current container has had no member yet
	afterKey := false // a key was just written
	if stream {
		bw.WriteByte('[')
		depth = 1
	}
	newline := func() {
		bw.WriteByte('\n')
		for i := 0; i < depth; i++ {
			bw.WriteString("  ")
		}
	}
	// prefix writes what goes before a value: nothing after a key, else
	// the separator and the line break of an array element.
	prefix := func() {
		if afterKey {
			afterKey = false
			return
		}
		if depth > 0 {
			if !first {
				bw.WriteByte(',')
			}
			newline()
		}
	}
	copyTok := func(t Token) error {
		if t.End-t.Start <= 4096 {
			b, err := s.Bytes(t.Start, t.End, 4096)
			if err != nil {
				return err
			}
			if !utf8.Valid(b) {
				// Keep the rendering text: JSON allows only UTF-8.
				b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
			}
			_, err = bw.Write(b)
			return err
		}
		_, err := io.Copy(bw, io.NewSectionReader(r, t.Start, t.End-t.Start))
		return err
	}
	for i := 0; ; i++ {
		if i&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		t, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t.Kind {
		case BeginObject, BeginArray:
			prefix()
			if t.Kind == BeginObject {
				bw.WriteByte('{')
			} else {
				bw.WriteByte('[')
			}
			depth++
			first = true
		case EndObject, EndArray:
			depth--
			if !first {
				newline()
			}
			if t.Kind == EndObject {
				bw.WriteByte('}')
			} else {
				bw.WriteByte(']')
			}
			first = false
		case Key:
			if !first {
				bw.WriteByte(',')
			}
			newline()
			if err := copyTok(t); err != nil {
				return err
			}
			bw.WriteString(": ")
			afterKey = true
			first = false
		default:
			prefix()
			if err := copyTok(t); err != nil {
				return err
			}
			first = false
		}
	}
	if stream {
		if !first {
			bw.WriteString("\n")
		}
		bw.WriteByte(']')
	}
	bw.WriteByte('\n')
	return bw.Flush()
}
