package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// This file holds what a backend in another package (such as the Redis
// store) needs to keep results exactly as [Dir] does: the same digests and
// line index, the same checks of a record and of every chunk read, the same
// settings format and the same errors.

// FutureSlack is how far ahead of a store's clock a recorded use may lie
// before the result counts as expired (see the rules of [Store]).
const FutureSlack = futureSlack

// Indexer computes the facts a store records about a result as its chunks
// are stored: the chunk digests and the digest of the whole, the size and
// the line index. Feed it every chunk in order with AddChunk; every chunk
// but the last must be ChunkSize bytes. The zero value is ready to use.
type Indexer struct {
	chunks [][sha256.Size]byte
	size   int64
	lines  lineIndex
}

// AddChunk hashes the next chunk and counts its newlines.
func (x *Indexer) AddChunk(p []byte) {
	x.chunks = append(x.chunks, sha256.Sum256(p))
	x.size += int64(len(p))
	x.lines.startChunk()
	x.lines.add(p)
}

// Fill sets the facts of info that follow from the chunks added: Ref,
// Digest, Size, Chunks and the line index.
func (x *Indexer) Fill(info *Info) {
	info.Digest = hex.EncodeToString(listDigest(x.chunks))
	info.Ref = RefOf(info.Digest)
	info.Size = x.size
	info.Chunks = make([]string, len(x.chunks))
	for i := range x.chunks {
		info.Chunks[i] = hex.EncodeToString(x.chunks[i][:])
	}
	if len(info.Chunks) == 0 {
		info.Chunks = nil
	}
	x.lines.fill(info)
}

// CheckInfo checks that info is a sound description of a result stored
// under ref, as [Dir] checks its records: well-formed digests that hash to
// the ref's digest, a chunk list that fits the size, a consistent line
// index. It returns an error wrapping [ErrBroken] when not. It does not read
// the content; [VerifyChunk] checks each chunk as it is read.
func CheckInfo(ref Ref, info Info) error {
	if _, err := validate(ref, record{V: recordVersion, Info: info}, time.Time{}); err != nil {
		return brokenErr(ref, err.Error())
	}
	return nil
}

// VerifyChunk checks chunk idx of the result info describes, whose bytes
// were read as chunk, against its digest and against the line index (see
// [Dir] and the rules of [Store]). It returns an error wrapping [ErrBroken]
// when either does not match.
func VerifyChunk(info Info, idx int64, chunk []byte) error {
	if idx < 0 || idx >= int64(len(info.Chunks)) {
		return brokenErr(info.Ref, fmt.Sprintf("chunk %d is not in its record", idx))
	}
	start := idx * ChunkSize
	if want := min(ChunkSize, info.Size-start); int64(len(chunk)) != want {
		return brokenErr(info.Ref, fmt.Sprintf("chunk %d holds %d bytes, its record says %d", idx, len(chunk), want))
	}
	sum := sha256.Sum256(chunk)
	if hex.EncodeToString(sum[:]) != info.Chunks[idx] {
		return brokenErr(info.Ref, fmt.Sprintf("chunk %d (bytes %d-%d) does not match its digest", idx, start, start+int64(len(chunk))-1))
	}
	if err := checkChunkLines(info, idx, chunk); err != nil {
		return brokenErr(info.Ref, err.Error())
	}
	return nil
}

// MissingError returns an error wrapping [ErrMissing] for ref, with detail
// (if not empty) saying why, and the hint to run the tool again.
func MissingError(ref Ref, detail string) error {
	if detail == "" {
		return missingErr(ref)
	}
	return fmt.Errorf("%w: ref %s: %s; run the tool again to get the result", ErrMissing, ref, detail)
}

// BrokenError returns an error wrapping [ErrBroken] for ref, with detail
// saying what does not verify.
func BrokenError(ref Ref, detail string) error { return brokenErr(ref, detail) }

// SortByUse sorts infos most recently used first, then by ref, as List
// returns them.
func SortByUse(infos []Info) { sortByUse(infos) }

// ParseSettings parses lifecycle settings in the JSON form of a [Dir]'s
// settings file, for example {"ttl": "48h0m0s", "max_bytes": 10737418240};
// an absent field is zero (the default).
func ParseSettings(data []byte) (Settings, error) {
	var sf settingsFile
	if err := json.Unmarshal(data, &sf); err != nil {
		return Settings{}, fmt.Errorf("it is not valid JSON (%v)", err)
	}
	var s Settings
	if sf.TTL != "" {
		var err error
		if s.TTL, err = time.ParseDuration(sf.TTL); err != nil || s.TTL <= 0 {
			return Settings{}, fmt.Errorf("its ttl %q is not a positive duration such as \"24h\"", sf.TTL)
		}
	}
	if sf.MaxBytes < 0 {
		return Settings{}, fmt.Errorf("its max_bytes %d is negative", sf.MaxBytes)
	}
	s.MaxBytes = sf.MaxBytes
	return s, nil
}

// MarshalSettings returns s in the JSON form ParseSettings reads.
func MarshalSettings(s Settings) []byte {
	sf := settingsFile{MaxBytes: s.MaxBytes}
	if s.TTL > 0 {
		sf.TTL = s.TTL.String()
	}
	data, _ := json.Marshal(sf) // a struct of a string and an int always marshals
	return data
}

// ReadChunked implements io.ReaderAt over a result of size bytes stored in
// ChunkSize chunks: it checks off, then calls piece for each stretch of p
// that lies within one chunk (pos is the stretch's offset in the result,
// idx its chunk), in order, and returns io.EOF when p reaches past the end.
// Backends supply piece, which reads and verifies; ref names the result in
// errors.
func ReadChunked(ref Ref, size int64, p []byte, off int64, piece func(dst []byte, pos, idx int64) (int, error)) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("store: reading %s: negative offset %d", ref, off)
	}
	if off >= size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && off+int64(n) < size {
		pos := off + int64(n)
		idx := pos / ChunkSize
		end := min((idx+1)*ChunkSize, size)
		want := int(min(int64(len(p)-n), end-pos))
		k, err := piece(p[n:n+want], pos, idx)
		n += k
		if err != nil {
			return n, err
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
