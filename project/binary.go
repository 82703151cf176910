package project

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/internal/textfmt"
)

func init() {
	Register(KindBinary, ProjectorFunc(projectBinary))
}

// projectBinary describes binary content without showing any of its bytes:
// its detected type, its size and how to get the exact bytes back.
func projectBinary(ctx context.Context, in *Input) (Output, error) {
	head := make([]byte, min(in.Source.Size(), sniff.Len))
	n, err := in.Source.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return Output{}, err
	}
	desc := sniff.Describe(head[:n])
	size := in.Source.Size()
	if in.Truncated {
		size = in.SourceSize
	}
	var text string
	switch {
	case in.Ref != "":
		text = fmt.Sprintf("[crumb binary: %s, %s (%s bytes), ref %s; binary content is not shown. Save the exact bytes with: crumb read %s --all > FILE]",
			desc, textfmt.Size(size), textfmt.Int(size), in.Ref, in.Ref)
	default:
		text = fmt.Sprintf("[crumb binary: %s, %s (%s bytes); binary content is not shown, and it could not be stored: %s]",
			desc, textfmt.Size(size), textfmt.Int(size), in.StoreError)
	}
	return Output{Text: text}, nil
}
