package wordvec

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
)

// The file format, version 1, all integers little-endian or uvarint:
//
//	magic   "OMOIDEWV"
//	version uint16 (1)
//	params  uvarint length, then Params as JSON
//	dim     uvarint
//	count   uvarint: the number of terms
//	terms   count times: uvarint length, the term's UTF-8, uvarint times seen
//	rows    count times: float32 scale, then dim int8 codes (value = code·scale)
//	sum     SHA-256 of everything before it (the fingerprint)
//
// int8 with a per-row scale rather than float16: a quarter of float32's size
// (half of float16's) and a cosine error below 0.001 to the learned row,
// where neighbours differ by hundredths (TestWriteRead measures both).
const (
	magic         = "OMOIDEWV"
	formatVersion = 1
)

// Limits of a file that Read accepts, so that a corrupt or hostile header
// cannot make it allocate without bound.
const (
	MaxDim        = 4096    // dimensions of a vector
	MaxTerms      = 1 << 24 // terms
	MaxTermBytes  = 1024    // bytes of one term
	maxParamBytes = 1 << 16 // bytes of the params' JSON
)

// Write writes the vectors to w in the binary format above.
func (v *Vectors) Write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	sum, err := v.encodeBody(bw)
	if err != nil {
		return err
	}
	if _, err := bw.Write(sum); err != nil {
		return fmt.Errorf("wordvec: writing vectors: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("wordvec: writing vectors: %w", err)
	}
	return nil
}

// encodeBody writes everything but the checksum to w (nil: nowhere) and
// returns the checksum.
func (v *Vectors) encodeBody(w io.Writer) ([]byte, error) {
	h := sha256.New()
	out := io.Writer(h)
	if w != nil {
		out = io.MultiWriter(w, h)
	}
	params, err := json.Marshal(v.params)
	if err != nil {
		return nil, fmt.Errorf("wordvec: encoding params: %w", err)
	}
	var buf []byte
	buf = append(buf, magic...)
	buf = binary.LittleEndian.AppendUint16(buf, formatVersion)
	buf = binary.AppendUvarint(buf, uint64(len(params)))
	buf = append(buf, params...)
	buf = binary.AppendUvarint(buf, uint64(v.dim))
	buf = binary.AppendUvarint(buf, uint64(len(v.terms)))
	for i, t := range v.terms {
		buf = binary.AppendUvarint(buf, uint64(len(t)))
		buf = append(buf, t...)
		buf = binary.AppendUvarint(buf, uint64(v.counts[i]))
		if len(buf) >= 32<<10 {
			if _, err := out.Write(buf); err != nil {
				return nil, fmt.Errorf("wordvec: writing vectors: %w", err)
			}
			buf = buf[:0]
		}
	}
	for i, scale := range v.scales {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(scale))
		for _, c := range v.codes[i*v.dim : (i+1)*v.dim] {
			buf = append(buf, byte(c))
		}
		if len(buf) >= 32<<10 {
			if _, err := out.Write(buf); err != nil {
				return nil, fmt.Errorf("wordvec: writing vectors: %w", err)
			}
			buf = buf[:0]
		}
	}
	if _, err := out.Write(buf); err != nil {
		return nil, fmt.Errorf("wordvec: writing vectors: %w", err)
	}
	return h.Sum(nil), nil
}

// ErrFormat marks a file that is not vectors of this format or is damaged.
var ErrFormat = errors.New("not a word vector file of a known version, or damaged")

// Read reads vectors written by Write, and checks their fingerprint.
func Read(r io.Reader) (*Vectors, error) {
	v, err := read(bufio.NewReaderSize(r, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("wordvec: reading vectors: %w", err)
	}
	return v, nil
}

// read reads the format from br.
func read(br *bufio.Reader) (*Vectors, error) {
	h := sha256.New()
	in := &hashingReader{r: br, h: h}
	head := make([]byte, len(magic)+2)
	if _, err := io.ReadFull(in, head); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	if string(head[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: no %q header", ErrFormat, magic)
	}
	if ver := binary.LittleEndian.Uint16(head[len(magic):]); ver != formatVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrFormat, ver, formatVersion)
	}
	n, err := in.uvarint("params length", maxParamBytes)
	if err != nil {
		return nil, err
	}
	pj := make([]byte, n)
	if _, err := io.ReadFull(in, pj); err != nil {
		return nil, fmt.Errorf("%w: params: %w", ErrFormat, err)
	}
	var p Params
	if err := json.Unmarshal(pj, &p); err != nil {
		return nil, fmt.Errorf("%w: params: %w", ErrFormat, err)
	}
	dim, err := in.uvarint("dim", MaxDim)
	if err != nil {
		return nil, err
	}
	count, err := in.uvarint("count", MaxTerms)
	if err != nil {
		return nil, err
	}
	if dim == 0 || count < 2 {
		return nil, fmt.Errorf("%w: %d terms of %d dimensions", ErrFormat, count, dim)
	}
	v := &Vectors{params: p, dim: int(dim), index: make(map[string]int32, min(count, 1<<16))}
	terms := make([]string, 0, min(count, 1<<16))
	counts := make([]int64, 0, min(count, 1<<16))
	var tb []byte
	for range count {
		n, err := in.uvarint("term length", MaxTermBytes)
		if err != nil {
			return nil, err
		}
		tb = resize(tb, int(n))
		if _, err := io.ReadFull(in, tb); err != nil {
			return nil, fmt.Errorf("%w: term %d: %w", ErrFormat, len(terms), err)
		}
		if !utf8.Valid(tb) {
			return nil, fmt.Errorf("%w: term %d is not UTF-8", ErrFormat, len(terms))
		}
		c, err := in.uvarint("term count", math.MaxInt64)
		if err != nil {
			return nil, err
		}
		terms = append(terms, string(tb))
		counts = append(counts, int64(c))
	}
	row := make([]byte, 4+dim)
	code := make([]int8, dim)
	for i, t := range terms {
		if _, err := io.ReadFull(in, row); err != nil {
			return nil, fmt.Errorf("%w: row %d: %w", ErrFormat, i, err)
		}
		scale := math.Float32frombits(binary.LittleEndian.Uint32(row))
		if !(scale > 0) || math.IsInf(float64(scale), 0) {
			return nil, fmt.Errorf("%w: row %d has scale %v", ErrFormat, i, scale)
		}
		nonzero := false
		for k, b := range row[4:] {
			code[k] = int8(b)
			nonzero = nonzero || b != 0
		}
		if !nonzero {
			return nil, fmt.Errorf("%w: row %d is zero", ErrFormat, i)
		}
		if _, dup := v.index[t]; dup {
			return nil, fmt.Errorf("%w: term %q twice", ErrFormat, t)
		}
		v.add(t, counts[i], scale, code)
	}
	want := h.Sum(nil)
	sum := make([]byte, sha256.Size)
	if _, err := io.ReadFull(br, sum); err != nil {
		return nil, fmt.Errorf("%w: checksum: %w", ErrFormat, err)
	}
	if !bytes.Equal(sum, want) {
		return nil, fmt.Errorf("%w: checksum does not match the content", ErrFormat)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%w: bytes after the checksum", ErrFormat)
	}
	copy(v.fingerprint[:], want)
	return v, nil
}

// resize returns b resized to n bytes.
func resize(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// hashingReader reads from r and hashes what it read.
type hashingReader struct {
	r *bufio.Reader
	h io.Writer
}

// Read reads from r into p, hashing what it read.
func (hr *hashingReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	return n, err
}

// uvarint reads a uvarint no larger than limit; what names it in errors.
func (hr *hashingReader) uvarint(what string, limit uint64) (uint64, error) {
	x, err := binary.ReadUvarint(byteReader{hr})
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrFormat, what, err)
	}
	if x > limit {
		return 0, fmt.Errorf("%w: %s %d is above %d", ErrFormat, what, x, limit)
	}
	return x, nil
}

// byteReader reads one byte at a time from a hashingReader.
type byteReader struct{ hr *hashingReader }

// ReadByte reads and hashes one byte.
func (b byteReader) ReadByte() (byte, error) {
	c, err := b.hr.r.ReadByte()
	if err == nil {
		b.hr.h.Write([]byte{c})
	}
	return c, err
}
