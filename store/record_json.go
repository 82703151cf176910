package store

import (
	"bytes"
	"errors"

	fastjson "github.com/segmentio/encoding/json"
)

// A record lists the digest of each chunk of its result: 1,024 of them, some
// 77 KB of JSON, for a result of 1 GB. Every read of a page decodes it, and
// encoding/json took about 0.7 ms to, a tenth of a whole "crumb read";
// segmentio's decoder (the one the MCP SDK uses, already linked) takes a
// fifth of that. It decodes into the same types with the same rules, but it
// recurses on nested values without a limit, so a record nested deeper than
// encoding/json allows is refused before it is decoded, as the MCP SDK does.

// maxRecordDepth is how deeply a record may nest arrays and objects:
// encoding/json's own limit.
const maxRecordDepth = 10000

var errRecordDepth = errors.New("nested too deeply")

// decodeRecord parses the JSON of a record into rec.
func decodeRecord(data []byte, rec *record) error {
	if err := checkDepth(data, maxRecordDepth); err != nil {
		return err
	}
	return fastjson.Unmarshal(data, rec)
}

// checkDepth returns errRecordDepth when data, read as JSON, nests arrays
// and objects more than max deep. It looks at brackets outside strings
// only; whether data is valid JSON is the decoder's to say.
func checkDepth(data []byte, max int) error {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			// Skip to the quote that ends the string: one not escaped by
			// an odd run of backslashes.
			for {
				j := bytes.IndexByte(data[i+1:], '"')
				if j < 0 {
					return nil
				}
				i += 1 + j
				n := 0
				for data[i-1-n] == '\\' {
					n++
				}
				if n%2 == 0 {
					break
				}
			}
		case '[', '{':
			if depth++; depth > max {
				return errRecordDepth
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}
