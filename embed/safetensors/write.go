package safetensors

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Tensor is a tensor to write: its name, dtype, shape (empty for a scalar),
// and its elements' little-endian bytes in row-major order, as
// EncodeFloat32s and EncodeInt64s make them.
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	Data  []byte
}

// Write writes tensors and metadata (which may be nil) to w as a safetensors
// file. The tensors are laid out as the reference implementation lays them
// out, by descending dtype alignment and then by name, whatever their order
// in the slice, and the header is padded with spaces to a multiple of eight
// bytes; so, but for the order of metadata keys (sorted here, unordered
// there), the output is the reference implementation's for the same input.
// Write refuses duplicate or non-UTF-8 names, the reserved name
// "__metadata__", unknown dtypes, negative dimensions, and data whose length
// is not the shape's size in the dtype.
func Write(w io.Writer, tensors []Tensor, metadata map[string]string) error {
	header, sorted, err := encodeHeader(tensors, metadata)
	if err != nil {
		return err
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(header)))
	if _, err := w.Write(n[:]); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	if _, err := w.Write(header); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	for _, t := range sorted {
		if _, err := w.Write(t.Data); err != nil {
			return fmt.Errorf("safetensors: %w", err)
		}
	}
	return nil
}

// WriteFile writes tensors and metadata to a new file at path, as Write
// does, replacing any file there.
func WriteFile(path string, tensors []Tensor, metadata map[string]string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	if err := Write(f, tensors, metadata); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	return nil
}

// encodeHeader validates the tensors and returns the padded JSON header and
// the tensors in file order.
func encodeHeader(tensors []Tensor, metadata map[string]string) ([]byte, []Tensor, error) {
	seen := make(map[string]bool, len(tensors))
	for _, t := range tensors {
		switch {
		case !utf8.ValidString(t.Name):
			return nil, nil, fmt.Errorf("safetensors: tensor name %q is not valid UTF-8", t.Name)
		case t.Name == metadataKey:
			return nil, nil, fmt.Errorf("safetensors: tensor name %q is reserved for the metadata", t.Name)
		case seen[t.Name]:
			return nil, nil, fmt.Errorf("safetensors: tensor %q appears twice", t.Name)
		case t.DType.Bits() == 0:
			return nil, nil, fmt.Errorf("safetensors: tensor %q: dtype %q is not supported", t.Name, t.DType)
		}
		seen[t.Name] = true
		size, err := byteLen(t.DType, t.Shape)
		if err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", t.Name, err)
		}
		if size != int64(len(t.Data)) {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: shape %v of %s needs %d bytes, but Data has %d", t.Name, t.Shape, t.DType, size, len(t.Data))
		}
	}
	keys := make([]string, 0, len(metadata))
	for k, v := range metadata {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, nil, fmt.Errorf("safetensors: metadata %q: %q is not valid UTF-8", k, v)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)

	sorted := slices.Clone(tensors)
	slices.SortStableFunc(sorted, func(a, b Tensor) int {
		if c := cmp.Compare(b.DType.rank(), a.DType.rank()); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})

	var buf bytes.Buffer
	buf.WriteByte('{')
	if len(keys) > 0 {
		writeJSONString(&buf, metadataKey)
		buf.WriteString(":{")
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(&buf, k)
			buf.WriteByte(':')
			writeJSONString(&buf, metadata[k])
		}
		buf.WriteByte('}')
	}
	var offset int64
	for i, t := range sorted {
		if i > 0 || len(keys) > 0 {
			buf.WriteByte(',')
		}
		writeJSONString(&buf, t.Name)
		buf.WriteString(`:{"dtype":`)
		writeJSONString(&buf, string(t.DType))
		buf.WriteString(`,"shape":[`)
		for j, d := range t.Shape {
			if j > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(strconv.Itoa(d))
		}
		end := offset + int64(len(t.Data))
		fmt.Fprintf(&buf, `],"data_offsets":[%d,%d]}`, offset, end)
		offset = end
	}
	buf.WriteByte('}')
	for buf.Len()%8 != 0 {
		buf.WriteByte(' ')
	}
	if buf.Len() > MaxHeaderSize {
		return nil, nil, fmt.Errorf("safetensors: header of %d bytes exceeds the limit of %d", buf.Len(), MaxHeaderSize)
	}
	return buf.Bytes(), sorted, nil
}

// writeJSONString writes s as a JSON string, escaping quotes, backslashes
// and control characters, as the reference implementation does, and U+2028
// and U+2029, which any JSON reader decodes the same; but not <, > and &.
func writeJSONString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	buf.Truncate(buf.Len() - 1) // Encode's newline
}

// EncodeFloat32s returns v as the data of a tensor of dtype dt, for
// Tensor.Data: F32 and F64 exactly, F16 and BF16 rounded to nearest even
// (Float32ToHalf, Float32ToBFloat16), and I8 and U8 only when every value is
// an integer in the dtype's range. Other dtypes are refused.
func EncodeFloat32s(dt DType, v []float32) ([]byte, error) {
	switch dt {
	case F32:
		out := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
		}
		return out, nil
	case F64:
		out := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(float64(x)))
		}
		return out, nil
	case F16, BF16:
		conv := Float32ToHalf
		if dt == BF16 {
			conv = Float32ToBFloat16
		}
		out := make([]byte, 2*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint16(out[2*i:], conv(x))
		}
		return out, nil
	case I8, U8:
		lo, hi := float32(math.MinInt8), float32(math.MaxInt8)
		if dt == U8 {
			lo, hi = 0, math.MaxUint8
		}
		out := make([]byte, len(v))
		for i, x := range v {
			if x != float32(math.Trunc(float64(x))) || x < lo || x > hi {
				return nil, fmt.Errorf("safetensors: value %v at index %d is not an integer in the range of %s", x, i, dt)
			}
			if dt == I8 {
				out[i] = byte(int8(x))
			} else {
				out[i] = byte(x)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("safetensors: EncodeFloat32s cannot encode %s (F32, F64, F16, BF16, I8 and U8 it can)", dt)
}

// EncodeInt64s returns v as the data of a tensor of integer dtype dt (I8,
// I16, I32, I64, U8, U16, U32 or U64), for Tensor.Data. A value outside the
// dtype's range is an error.
func EncodeInt64s(dt DType, v []int64) ([]byte, error) {
	var lo, hi int64
	switch dt {
	case I8:
		lo, hi = math.MinInt8, math.MaxInt8
	case I16:
		lo, hi = math.MinInt16, math.MaxInt16
	case I32:
		lo, hi = math.MinInt32, math.MaxInt32
	case I64:
		lo, hi = math.MinInt64, math.MaxInt64
	case U8:
		hi = math.MaxUint8
	case U16:
		hi = math.MaxUint16
	case U32:
		hi = math.MaxUint32
	case U64:
		hi = math.MaxInt64
	default:
		return nil, fmt.Errorf("safetensors: EncodeInt64s cannot encode %s: not an integer dtype", dt)
	}
	size := dt.Bits() / 8
	out := make([]byte, size*len(v))
	for i, x := range v {
		if x < lo || x > hi {
			return nil, fmt.Errorf("safetensors: value %d at index %d is out of the range of %s", x, i, dt)
		}
		switch size {
		case 1:
			out[i] = byte(x)
		case 2:
			binary.LittleEndian.PutUint16(out[2*i:], uint16(x))
		case 4:
			binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
		case 8:
			binary.LittleEndian.PutUint64(out[8*i:], uint64(x))
		}
	}
	return out, nil
}
