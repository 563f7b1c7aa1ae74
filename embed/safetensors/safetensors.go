// Package safetensors reads and writes the safetensors tensor file format
// (https://github.com/huggingface/safetensors), in which static embedding
// models such as model2vec (model.safetensors: "embeddings" [vocab, dim], and
// optionally "weights" [vocab] and "mapping" [vocab]) and sentence-transformers'
// StaticEmbedding (0_StaticEmbedding/model.safetensors: "embedding.weight"
// [vocab, dim]) are distributed.
//
// A safetensors file is an 8-byte little-endian unsigned header length N, then
// N bytes of UTF-8 JSON header, then the data buffer. The header is an object
// mapping each tensor name to {"dtype", "shape", "data_offsets": [begin, end]},
// the offsets counting bytes from the start of the data buffer, plus an
// optional "__metadata__" object of string values. Tensors are stored
// row-major ("C" order), little-endian, back to back.
//
// Open and Parse validate the whole layout as the reference implementation
// does, and a little more strictly: the header is at most 100,000,000 bytes of
// valid UTF-8 JSON; tensor names and metadata keys are unique; every dtype is
// one the format defines; no dimension is negative and no size overflows;
// each tensor's byte length is its element count times its dtype's size; and
// the tensors tile the data buffer exactly, with no overlap, gap or trailing
// byte. A file that fails any check is refused with an error that says which.
// Nothing is read from the data buffer until a tensor is asked for, so
// opening a large model is cheap, and reading one converts it straight into
// the returned slice without holding a second copy of it.
//
// Float32s converts F32, F16, BF16 and F64 tensors, and I8 and U8 tensors as
// their integer values: a model that stores quantized int8 values with a
// separate scale tensor must apply the scale itself. Int64s reads the integer
// dtypes (I8, I16, I32, I64, U8, U16, U32, and U64 values up to 2^63-1), such
// as model2vec's "mapping". Raw returns the bytes of a tensor of any dtype.
//
// Write lays a file out as the reference implementation does: tensors in
// descending dtype alignment and then name order, and the header compact JSON
// padded with spaces to a multiple of eight bytes, so that every tensor's data
// is aligned. For the same tensors it writes the reference's bytes (the test
// suite checks this on the reference's own test vectors); metadata keys, which
// the reference writes in no fixed order, come sorted. EncodeFloat32s and
// EncodeInt64s make a Tensor's data from Go slices, for writing fixtures.
package safetensors

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MaxHeaderSize is the largest JSON header, in bytes, that Open, Parse and
// Write accept: the reference implementation's limit.
const MaxHeaderSize = 100_000_000

// metadataKey is the header key of the optional string→string metadata map.
const metadataKey = "__metadata__"

// ErrTensorNotFound is wrapped by the errors of the methods that read a tensor
// the file does not hold.
var ErrTensorNotFound = errors.New("no such tensor")

// DType is a tensor element type, spelled as in the header ("F32", "BF16").
type DType string

// The dtypes the safetensors format defines, in the reference
// implementation's order of increasing alignment.
const (
	Bool       DType = "BOOL"
	F4         DType = "F4"      // 4-bit MX float
	F6E2M3     DType = "F6_E2M3" // 6-bit MX float
	F6E3M2     DType = "F6_E3M2" // 6-bit MX float
	U8         DType = "U8"
	I8         DType = "I8"
	F8E5M2     DType = "F8_E5M2"
	F8E4M3     DType = "F8_E4M3"
	F8E8M0     DType = "F8_E8M0"
	F8E4M3FNUZ DType = "F8_E4M3FNUZ"
	F8E5M2FNUZ DType = "F8_E5M2FNUZ"
	I16        DType = "I16"
	U16        DType = "U16"
	F16        DType = "F16"  // IEEE 754 half precision
	BF16       DType = "BF16" // bfloat16: the top 16 bits of a float32
	I32        DType = "I32"
	U32        DType = "U32"
	F32        DType = "F32"
	C64        DType = "C64" // complex: two F32
	F64        DType = "F64"
	I64        DType = "I64"
	U64        DType = "U64"
)

// dtypes lists every dtype with its size in bits, in the order above.
var dtypes = []struct {
	dt   DType
	bits int
}{
	{Bool, 8}, {F4, 4}, {F6E2M3, 6}, {F6E3M2, 6}, {U8, 8}, {I8, 8},
	{F8E5M2, 8}, {F8E4M3, 8}, {F8E8M0, 8}, {F8E4M3FNUZ, 8}, {F8E5M2FNUZ, 8},
	{I16, 16}, {U16, 16}, {F16, 16}, {BF16, 16}, {I32, 32}, {U32, 32},
	{F32, 32}, {C64, 64}, {F64, 64}, {I64, 64}, {U64, 64},
}

// Bits returns the size of one element of dt in bits, or 0 if the format
// does not define dt.
func (dt DType) Bits() int {
	for _, d := range dtypes {
		if d.dt == dt {
			return d.bits
		}
	}
	return 0
}

// rank returns dt's position in the reference implementation's dtype order.
func (dt DType) rank() int {
	for i, d := range dtypes {
		if d.dt == dt {
			return i
		}
	}
	return -1
}

// TensorInfo describes one tensor of a file.
type TensorInfo struct {
	Name  string
	DType DType
	Shape []int // empty for a scalar
	// Offsets are the header's data_offsets: the tensor's first and one past
	// its last byte, counted from the start of the data buffer.
	Offsets [2]int64
}

// NumElements returns the product of the shape: 1 for a scalar.
func (t TensorInfo) NumElements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// ByteLen returns the length of the tensor's data in bytes.
func (t TensorInfo) ByteLen() int64 { return t.Offsets[1] - t.Offsets[0] }

func (t TensorInfo) clone() TensorInfo {
	t.Shape = slices.Clone(t.Shape)
	return t
}

// File is a parsed safetensors file. Its methods read tensors on demand and
// are safe for concurrent use.
type File struct {
	name      string // the path given to Open, or "" after Parse
	r         io.ReaderAt
	closer    io.Closer
	dataStart int64        // 8 + header length
	tensors   []TensorInfo // by offset
	index     map[string]int
	metadata  map[string]string
}

// Open opens and parses the safetensors file at path. Only the header is
// read; the file stays open for the tensor reads until Close.
func Open(path string) (*File, error) {
	osf, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	st, err := osf.Stat()
	if err != nil {
		osf.Close()
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	f, err := parse(osf, st.Size())
	if err != nil {
		osf.Close()
		return nil, fmt.Errorf("safetensors: %s: %w", path, err)
	}
	f.name, f.closer = path, osf
	return f, nil
}

// Parse parses the safetensors file of size bytes that r reads, such as a
// *bytes.Reader. The File reads its tensors from r, which must stay valid
// while the File is in use.
func Parse(r io.ReaderAt, size int64) (*File, error) {
	f, err := parse(r, size)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	return f, nil
}

// Close closes the file opened by Open. It does nothing after Parse.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	return f.closer.Close()
}

// Tensors returns the tensors of the file in the order of their data.
func (f *File) Tensors() []TensorInfo {
	out := make([]TensorInfo, len(f.tensors))
	for i, t := range f.tensors {
		out[i] = t.clone()
	}
	return out
}

// Tensor returns the description of the named tensor, and whether the file
// holds it.
func (f *File) Tensor(name string) (TensorInfo, bool) {
	i, ok := f.index[name]
	if !ok {
		return TensorInfo{}, false
	}
	return f.tensors[i].clone(), true
}

// Metadata returns a copy of the header's "__metadata__" map, or nil if it
// has none.
func (f *File) Metadata() map[string]string { return maps.Clone(f.metadata) }

// errorf returns an error prefixed with "safetensors: " and the file's path.
func (f *File) errorf(format string, args ...any) error {
	prefix := "safetensors: "
	if f.name != "" {
		prefix += f.name + ": "
	}
	return fmt.Errorf(prefix+format, args...)
}

// lookup returns the named tensor or an error wrapping ErrTensorNotFound.
func (f *File) lookup(name string) (TensorInfo, error) {
	i, ok := f.index[name]
	if !ok {
		return TensorInfo{}, f.errorf("tensor %q: %w", name, ErrTensorNotFound)
	}
	return f.tensors[i], nil
}

// readAt fills p from the data buffer at offset off, which is in bounds.
func (f *File) readAt(t TensorInfo, p []byte, off int64) error {
	n, err := f.r.ReadAt(p, f.dataStart+off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return f.errorf("reading tensor %q: %w", t.Name, err)
}

// Raw returns the little-endian bytes of the named tensor, of any dtype.
func (f *File) Raw(name string) ([]byte, error) {
	t, err := f.lookup(name)
	if err != nil {
		return nil, err
	}
	p := make([]byte, t.ByteLen())
	if err := f.readAt(t, p, t.Offsets[0]); err != nil {
		return nil, err
	}
	return p, nil
}

// parse reads and validates the header. Its errors have no "safetensors: "
// prefix: Open and Parse add it.
func parse(r io.ReaderAt, size int64) (*File, error) {
	if size < 8 {
		return nil, fmt.Errorf("file is %d bytes, too short for the 8-byte header length", size)
	}
	var lenBuf [8]byte
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return nil, fmt.Errorf("reading the header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > MaxHeaderSize {
		return nil, fmt.Errorf("header length %d exceeds the limit of %d bytes", n, MaxHeaderSize)
	}
	if int64(n) > size-8 {
		return nil, fmt.Errorf("header length %d runs past the end of the %d-byte file", n, size)
	}
	header := make([]byte, n)
	if k, err := r.ReadAt(header, 8); k < len(header) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading the header: %w", err)
	}
	tensors, meta, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	dataLen := size - 8 - int64(n)
	if err := validateLayout(tensors, dataLen); err != nil {
		return nil, err
	}
	index := make(map[string]int, len(tensors))
	for i, t := range tensors {
		index[t.Name] = i
	}
	return &File{r: r, dataStart: 8 + int64(n), tensors: tensors, index: index, metadata: meta}, nil
}

// parseHeader decodes the JSON header into tensors, in header order, and the
// metadata map.
func parseHeader(header []byte) ([]TensorInfo, map[string]string, error) {
	if !utf8.Valid(header) {
		return nil, nil, errors.New("header is not valid UTF-8")
	}
	if err := json.Unmarshal(header, new(json.RawMessage)); err != nil {
		return nil, nil, fmt.Errorf("malformed JSON header: %w", err)
	}
	var (
		tensors []TensorInfo
		meta    map[string]string
	)
	err := eachMember(header, "tensor", func(key string, val json.RawMessage) error {
		if key == metadataKey {
			m, err := parseMetadata(val)
			meta = m
			return err
		}
		t, err := parseInfo(key, val)
		if err != nil {
			return err
		}
		tensors = append(tensors, t)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return tensors, meta, nil
}

// eachMember calls fn for each member of the JSON object doc, which must be
// valid JSON, and refuses a key that appears twice, calling it what.
func eachMember(doc []byte, what string, fn func(key string, val json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("malformed JSON header: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("header is not a JSON object")
	}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("malformed JSON header: %w", err)
		}
		key, _ := tok.(string)
		if seen[key] {
			if key == metadataKey && what == "tensor" {
				what = "header key"
			}
			return fmt.Errorf("%s %q appears twice", what, key)
		}
		seen[key] = true
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return fmt.Errorf("malformed JSON header: %w", err)
		}
		if err := fn(key, val); err != nil {
			return err
		}
	}
	return nil
}

// parseMetadata decodes the "__metadata__" value: null or an object of
// strings.
func parseMetadata(val json.RawMessage) (map[string]string, error) {
	if string(val) == "null" {
		return nil, nil
	}
	if val[0] != '{' {
		return nil, fmt.Errorf("%s is not a JSON object", metadataKey)
	}
	meta := make(map[string]string)
	err := eachMember(val, metadataKey+" key", func(key string, v json.RawMessage) error {
		var s string
		if v[0] != '"' || json.Unmarshal(v, &s) != nil {
			return fmt.Errorf("%s: value of %q is %s, not a string", metadataKey, key, v)
		}
		meta[key] = s
		return nil
	})
	if err != nil {
		return nil, err
	}
	return meta, nil
}

// parseInfo decodes one tensor entry.
func parseInfo(name string, val json.RawMessage) (TensorInfo, error) {
	var raw struct {
		DType   *string           `json:"dtype"`
		Shape   []json.RawMessage `json:"shape"`
		Offsets []json.RawMessage `json:"data_offsets"`
	}
	if val[0] != '{' {
		return TensorInfo{}, fmt.Errorf("tensor %q: entry %s is not a JSON object", name, truncate(val))
	}
	if err := json.Unmarshal(val, &raw); err != nil {
		return TensorInfo{}, fmt.Errorf("tensor %q: malformed entry: %w", name, err)
	}
	switch {
	case raw.DType == nil:
		return TensorInfo{}, fmt.Errorf("tensor %q: no dtype", name)
	case raw.Shape == nil:
		return TensorInfo{}, fmt.Errorf("tensor %q: no shape", name)
	case raw.Offsets == nil:
		return TensorInfo{}, fmt.Errorf("tensor %q: no data_offsets", name)
	case len(raw.Offsets) != 2:
		return TensorInfo{}, fmt.Errorf("tensor %q: data_offsets has %d values, not 2", name, len(raw.Offsets))
	}
	t := TensorInfo{Name: name, DType: DType(*raw.DType), Shape: make([]int, len(raw.Shape))}
	if t.DType.Bits() == 0 {
		return TensorInfo{}, fmt.Errorf("tensor %q: dtype %q is not supported", name, *raw.DType)
	}
	for i, d := range raw.Shape {
		v, err := parseCount(d)
		if err != nil {
			return TensorInfo{}, fmt.Errorf("tensor %q: shape dimension %d: %w", name, i, err)
		}
		if v > math.MaxInt {
			return TensorInfo{}, fmt.Errorf("tensor %q: shape dimension %d: %d is too large", name, i, v)
		}
		t.Shape[i] = int(v)
	}
	for i, o := range raw.Offsets {
		v, err := parseCount(o)
		if err != nil {
			return TensorInfo{}, fmt.Errorf("tensor %q: data_offsets[%d]: %w", name, i, err)
		}
		t.Offsets[i] = v
	}
	return t, nil
}

// parseCount parses a non-negative JSON integer.
func parseCount(raw json.RawMessage) (int64, error) {
	s := string(raw)
	v, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err == nil && v < 0:
		return 0, fmt.Errorf("%d is negative", v)
	case err == nil:
		return v, nil
	case errors.Is(err, strconv.ErrRange):
		if s[0] == '-' {
			return 0, fmt.Errorf("%s is negative", s)
		}
		return 0, fmt.Errorf("%s overflows a 64-bit integer", s)
	default:
		return 0, fmt.Errorf("%s is not an integer", truncate(raw))
	}
}

// truncate shortens a JSON value for an error message.
func truncate(raw json.RawMessage) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "..."
	}
	return string(raw)
}

// byteLen returns the number of bytes that a tensor of dtype dt and the
// given shape occupies.
func byteLen(dt DType, shape []int) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("shape %v has a negative dimension", shape)
		}
		if d != 0 && n > math.MaxInt64/int64(d) {
			return 0, fmt.Errorf("shape %v overflows", shape)
		}
		n *= int64(d)
	}
	if n > math.MaxInt {
		return 0, fmt.Errorf("shape %v has too many elements", shape)
	}
	bits := int64(dt.Bits())
	if n > math.MaxInt64/bits {
		return 0, fmt.Errorf("shape %v of %s overflows", shape, dt)
	}
	if n*bits%8 != 0 {
		return 0, fmt.Errorf("%d elements of %d-bit %s do not fill whole bytes", n, bits, dt)
	}
	return n * bits / 8, nil
}

// validateLayout checks that each tensor's offsets match its shape and
// dtype, and that the tensors tile the dataLen-byte data buffer. It sorts
// tensors by offset.
func validateLayout(tensors []TensorInfo, dataLen int64) error {
	slices.SortStableFunc(tensors, func(a, b TensorInfo) int {
		if c := cmp.Compare(a.Offsets[0], b.Offsets[0]); c != 0 {
			return c
		}
		return cmp.Compare(a.Offsets[1], b.Offsets[1])
	})
	var pos int64
	for i, t := range tensors {
		begin, end := t.Offsets[0], t.Offsets[1]
		switch {
		case end < begin:
			return fmt.Errorf("tensor %q: data_offsets [%d, %d] end before they begin", t.Name, begin, end)
		case end > dataLen:
			return fmt.Errorf("tensor %q: data_offsets [%d, %d] run past the end of the %d-byte data buffer", t.Name, begin, end, dataLen)
		case begin < pos:
			return fmt.Errorf("tensor %q: data_offsets [%d, %d] overlap tensor %q", t.Name, begin, end, tensors[i-1].Name)
		case begin > pos:
			return fmt.Errorf("bytes %d to %d of the data buffer belong to no tensor (tensor %q begins at %d)", pos, begin, t.Name, begin)
		}
		size, err := byteLen(t.DType, t.Shape)
		if err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		if size != end-begin {
			return fmt.Errorf("tensor %q: shape %v of %s needs %d bytes, but data_offsets [%d, %d] hold %d", t.Name, t.Shape, t.DType, size, begin, end, end-begin)
		}
		pos = end
	}
	if pos != dataLen {
		return fmt.Errorf("the data buffer has %d bytes, but the tensors cover only the first %d", dataLen, pos)
	}
	return nil
}
