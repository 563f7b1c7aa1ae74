package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// rawFile assembles a file from a header and a data buffer, as the format
// says: the header's length as 8 little-endian bytes, the header, the data.
func rawFile(header string, data []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	out = append(out, header...)
	return append(out, data...)
}

func parseBytes(b []byte) (*File, error) { return Parse(bytes.NewReader(b), int64(len(b))) }

func mustParse(t *testing.T, b []byte) *File {
	t.Helper()
	f, err := parseBytes(b)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return f
}

func mustWrite(t testing.TB, tensors []Tensor, meta map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, tensors, meta); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

func mustEncodeF(t testing.TB, dt DType, v []float32) []byte {
	t.Helper()
	b, err := EncodeFloat32s(dt, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustEncodeI(t testing.TB, dt DType, v []int64) []byte {
	t.Helper()
	b, err := EncodeInt64s(dt, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func zeros(n int) []byte { return make([]byte, n) }

// The byte strings below are what the reference implementation writes, or
// reads, in its own test suite (huggingface/safetensors:
// bindings/python/tests/test_simple.py and test_pt_comparison.py,
// safetensors/src/tensor.rs): the interoperability check of this package.
var (
	refI32Zeros = "@\x00\x00\x00\x00\x00\x00\x00" +
		`{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}    ` + string(zeros(16))
	refI32One = "@\x00\x00\x00\x00\x00\x00\x00" +
		`{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}    ` + string(zeros(12)) + "\x01\x00\x00\x00"
	refBF16 = "@\x00\x00\x00\x00\x00\x00\x00" +
		`{"test":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}}    ` + "\x10@\x80?\x80?\x80?"
	refAligned = "\x80\x00\x00\x00\x00\x00\x00\x00" +
		`{"test1":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]},"test2":{"dtype":"F16","shape":[2,2],"data_offsets":[16,24]}}      ` +
		string(zeros(24))
	refMetadata = "`\x00\x00\x00\x00\x00\x00\x00" +
		`{"__metadata__":{"framework":"pt"},"test1":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}} ` + string(zeros(16))
	refMetadataOnly = "(\x00\x00\x00\x00\x00\x00\x00" + `{"__metadata__":{"framework":"pt"}}     `
	refAttn0        = "H\x00\x00\x00\x00\x00\x00\x00" +
		`{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       ` +
		"\x00\x00\x00\x00\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40\x00\x00\xa0\x40"
	// Read by the reference, written by older versions.
	refUnpadded = "<\x00\x00\x00\x00\x00\x00\x00" +
		`{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}` + string(zeros(16))
	refOldMetadata = "f\x00\x00\x00\x00\x00\x00\x00" +
		`{"__metadata__":{"framework":"pt"},"test1":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}       ` + string(zeros(16))
	refScalar     = "8\x00\x00\x00\x00\x00\x00\x00" + `{"test":{"dtype":"I32","shape":[],"data_offsets":[0,4]}}` + "\x00\x00\x00\x00"
	refZeroSized  = "<\x00\x00\x00\x00\x00\x00\x00" + `{"test":{"dtype":"I32","shape":[2,0],"data_offsets":[0, 0]}}`
	refTrailingWS = "\x06\x00\x00\x00\x00\x00\x00\x00{}\r \t\n"
	refLeadingWS  = "\x06\x00\x00\x00\x00\x00\x00\x00\t\n{}\r "
)

func TestReferenceFiles(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		tensor  string
		dtype   DType
		shape   []int
		ints    []int64   // for integer tensors
		floats  []float32 // for float tensors
		meta    map[string]string
		tensors int
	}{
		{"i32 zeros", refI32Zeros, "test", I32, []int{2, 2}, []int64{0, 0, 0, 0}, nil, nil, 1},
		{"i32 one", refI32One, "test", I32, []int{2, 2}, []int64{0, 0, 0, 1}, nil, nil, 1},
		{"bf16", refBF16, "test", BF16, []int{2, 2}, nil, []float32{2.25, 1, 1, 1}, nil, 1},
		{"aligned i32", refAligned, "test1", I32, []int{2, 2}, []int64{0, 0, 0, 0}, nil, nil, 2},
		{"aligned f16", refAligned, "test2", F16, []int{2, 2}, nil, []float32{0, 0, 0, 0}, nil, 2},
		{"metadata", refMetadata, "test1", I32, []int{2, 2}, []int64{0, 0, 0, 0}, nil, map[string]string{"framework": "pt"}, 1},
		{"metadata only", refMetadataOnly, "", "", nil, nil, nil, map[string]string{"framework": "pt"}, 0},
		{"attn0", refAttn0, "attn0", F32, []int{1, 1, 2, 3}, nil, []float32{0, 1, 2, 3, 4, 5}, nil, 1},
		{"unpadded", refUnpadded, "test", I32, []int{2, 2}, []int64{0, 0, 0, 0}, nil, nil, 1},
		{"old metadata", refOldMetadata, "test1", I32, []int{2, 2}, []int64{0, 0, 0, 0}, nil, map[string]string{"framework": "pt"}, 1},
		{"scalar", refScalar, "test", I32, []int{}, []int64{0}, nil, nil, 1},
		{"zero sized", refZeroSized, "test", I32, []int{2, 0}, []int64{}, nil, nil, 1},
		{"trailing whitespace", refTrailingWS, "", "", nil, nil, nil, nil, 0},
		{"leading whitespace", refLeadingWS, "", "", nil, nil, nil, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, []byte(tc.file))
			if got := len(f.Tensors()); got != tc.tensors {
				t.Errorf("%d tensors, want %d", got, tc.tensors)
			}
			if !reflect.DeepEqual(f.Metadata(), tc.meta) {
				t.Errorf("Metadata() = %v, want %v", f.Metadata(), tc.meta)
			}
			if tc.tensor == "" {
				return
			}
			info, ok := f.Tensor(tc.tensor)
			if !ok || info.DType != tc.dtype || !reflect.DeepEqual(info.Shape, tc.shape) {
				t.Fatalf("Tensor(%q) = %+v, %v", tc.tensor, info, ok)
			}
			if tc.ints != nil {
				got, shape, err := f.Int64s(tc.tensor)
				if err != nil || !reflect.DeepEqual(got, tc.ints) || !reflect.DeepEqual(shape, tc.shape) {
					t.Errorf("Int64s = %v, %v, %v; want %v", got, shape, err, tc.ints)
				}
			}
			if tc.floats != nil {
				got, shape, err := f.Float32s(tc.tensor)
				if err != nil || !reflect.DeepEqual(got, tc.floats) || !reflect.DeepEqual(shape, tc.shape) {
					t.Errorf("Float32s = %v, %v, %v; want %v", got, shape, err, tc.floats)
				}
			}
		})
	}
}

// TestWriteMatchesReference checks that Write produces the reference
// implementation's bytes for the same tensors.
func TestWriteMatchesReference(t *testing.T) {
	i32 := func(v ...int64) []byte { return mustEncodeI(t, I32, v) }
	tests := []struct {
		name    string
		tensors []Tensor
		meta    map[string]string
		want    string
	}{
		{"i32 zeros", []Tensor{{"test", I32, []int{2, 2}, i32(0, 0, 0, 0)}}, nil, refI32Zeros},
		{"i32 one", []Tensor{{"test", I32, []int{2, 2}, i32(0, 0, 0, 1)}}, nil, refI32One},
		{"bf16", []Tensor{{"test", BF16, []int{2, 2}, mustEncodeF(t, BF16, []float32{2.25, 1, 1, 1})}}, nil, refBF16},
		{"alignment order", []Tensor{
			{"test2", F16, []int{2, 2}, mustEncodeF(t, F16, make([]float32, 4))},
			{"test1", I32, []int{2, 2}, i32(0, 0, 0, 0)},
		}, nil, refAligned},
		{"metadata", []Tensor{{"test1", I32, []int{2, 2}, i32(0, 0, 0, 0)}}, map[string]string{"framework": "pt"}, refMetadata},
		{"metadata only", nil, map[string]string{"framework": "pt"}, refMetadataOnly},
		{"attn0", []Tensor{{"attn0", F32, []int{1, 1, 2, 3}, mustEncodeF(t, F32, []float32{0, 1, 2, 3, 4, 5})}}, nil, refAttn0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustWrite(t, tc.tensors, tc.meta)
			if string(got) != tc.want {
				t.Errorf("Write =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestRoundTripFloat32s(t *testing.T) {
	floats := []float32{0, 1, -2, 0.5, 3.25, -1024, 100}
	bytesOf := []float32{0, 1, 2, 100, 127, 5, 42}
	tests := []struct {
		dtype DType
		in    []float32
		want  []float32
	}{
		{F32, []float32{0, 1, -2, 1e-40, float32(math.Inf(1)), math.MaxFloat32, 0.1}, nil},
		{F64, floats, nil},
		{F16, floats, nil},
		{F16, []float32{0.1, 65504, 70000, 1e-8}, []float32{0.0999755859375, 65504, float32(math.Inf(1)), 0}},
		{BF16, floats, nil},
		{BF16, []float32{0.1, 1.00390625}, []float32{0.10009765625, 1}},
		{I8, []float32{0, 1, -1, 127, -128, 42, -7}, nil},
		{U8, bytesOf, nil},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(fmt.Sprintf("%s-%d", tc.dtype, i), func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("%d.safetensors", i))
			shape := []int{1, len(tc.in)}
			err := WriteFile(path, []Tensor{{"x", tc.dtype, shape, mustEncodeF(t, tc.dtype, tc.in)}}, map[string]string{"dtype": string(tc.dtype)})
			if err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, gotShape, err := f.Float32s("x")
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = tc.in
			}
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotShape, shape) {
				t.Errorf("Float32s = %v %v, want %v %v", got, gotShape, want, shape)
			}
			if m := f.Metadata(); m["dtype"] != string(tc.dtype) {
				t.Errorf("Metadata() = %v", m)
			}
		})
	}
}

func TestRoundTripInt64s(t *testing.T) {
	tests := []struct {
		dtype DType
		in    []int64
	}{
		{I8, []int64{0, 1, -1, math.MaxInt8, math.MinInt8}},
		{U8, []int64{0, 1, math.MaxUint8}},
		{I16, []int64{0, -1, math.MaxInt16, math.MinInt16}},
		{U16, []int64{0, 1, math.MaxUint16}},
		{I32, []int64{0, -1, math.MaxInt32, math.MinInt32}},
		{U32, []int64{0, 1, math.MaxUint32}},
		{I64, []int64{0, -1, math.MaxInt64, math.MinInt64}},
		{U64, []int64{0, 1, math.MaxInt64}},
	}
	for _, tc := range tests {
		t.Run(string(tc.dtype), func(t *testing.T) {
			f := mustParse(t, mustWrite(t, []Tensor{{"m", tc.dtype, []int{len(tc.in)}, mustEncodeI(t, tc.dtype, tc.in)}}, nil))
			got, shape, err := f.Int64s("m")
			if err != nil || !reflect.DeepEqual(got, tc.in) || !reflect.DeepEqual(shape, []int{len(tc.in)}) {
				t.Errorf("Int64s = %v %v %v, want %v", got, shape, err, tc.in)
			}
		})
	}
}

// TestLargeConversion reads tensors bigger than the conversion chunk, so
// that chunk boundaries are crossed.
func TestLargeConversion(t *testing.T) {
	n := 3*chunkSize/2 + 7
	v := make([]float32, n)
	ints := make([]int64, n)
	for i := range v {
		v[i] = float32(i%256) - 128 // exact in every dtype tested
		ints[i] = int64(i)
	}
	for _, dt := range []DType{F32, F16, BF16, F64} {
		f := mustParse(t, mustWrite(t, []Tensor{{"x", dt, []int{n}, mustEncodeF(t, dt, v)}}, nil))
		got, _, err := f.Float32s("x")
		if err != nil || !reflect.DeepEqual(got, v) {
			t.Errorf("%s: Float32s differs (err %v)", dt, err)
		}
	}
	f := mustParse(t, mustWrite(t, []Tensor{{"i", I64, []int{n}, mustEncodeI(t, I64, ints)}}, nil))
	got, _, err := f.Int64s("i")
	if err != nil || !reflect.DeepEqual(got, ints) {
		t.Errorf("I64: Int64s differs (err %v)", err)
	}
}

// TestStaticModelLayouts reads the layouts of model2vec and of
// sentence-transformers' StaticEmbedding.
func TestStaticModelLayouts(t *testing.T) {
	emb := []float32{1, 0, 0.5, -0.5, 0.25, 2}
	dir := t.TempDir()

	m2v := filepath.Join(dir, "model.safetensors")
	err := WriteFile(m2v, []Tensor{
		{"embeddings", F16, []int{3, 2}, mustEncodeF(t, F16, emb)},
		{"weights", F32, []int{5}, mustEncodeF(t, F32, []float32{1, 0.5, 0.25, 2, 3})},
		{"mapping", I64, []int{5}, mustEncodeI(t, I64, []int64{0, 1, 2, 1, 0})},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(m2v)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, shape, err := f.Float32s("embeddings")
	if err != nil || !reflect.DeepEqual(got, emb) || !reflect.DeepEqual(shape, []int{3, 2}) {
		t.Errorf("embeddings = %v %v %v", got, shape, err)
	}
	mapping, _, err := f.Int64s("mapping")
	if err != nil || !reflect.DeepEqual(mapping, []int64{0, 1, 2, 1, 0}) {
		t.Errorf("mapping = %v %v", mapping, err)
	}
	if _, ok := f.Tensor("weights"); !ok {
		t.Error("no weights")
	}
	names := []string{}
	for _, ti := range f.Tensors() {
		names = append(names, ti.Name)
	}
	// Reference order: 64-bit, then 32-bit, then 16-bit dtypes.
	if want := []string{"mapping", "weights", "embeddings"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Tensors() order %v, want %v", names, want)
	}

	st := filepath.Join(dir, "0_StaticEmbedding.safetensors")
	if err := WriteFile(st, []Tensor{{"embedding.weight", F32, []int{3, 2}, mustEncodeF(t, F32, emb)}}, nil); err != nil {
		t.Fatal(err)
	}
	g, err := Open(st)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	got, shape, err = g.Float32s("embedding.weight")
	if err != nil || !reflect.DeepEqual(got, emb) || !reflect.DeepEqual(shape, []int{3, 2}) {
		t.Errorf("embedding.weight = %v %v %v", got, shape, err)
	}
}

func TestAccessors(t *testing.T) {
	f := mustParse(t, []byte(refMetadata))
	info, ok := f.Tensor("test1")
	if !ok || info.NumElements() != 4 || info.ByteLen() != 16 || info.Offsets != [2]int64{0, 16} {
		t.Errorf("Tensor = %+v %v", info, ok)
	}
	// The returned values are copies.
	info.Shape[0] = 99
	f.Metadata()["framework"] = "x"
	f.Tensors()[0].Shape[1] = 99
	if info2, _ := f.Tensor("test1"); info2.Shape[0] != 2 || info2.Shape[1] != 2 {
		t.Errorf("shape was changed through a returned value: %v", info2.Shape)
	}
	if f.Metadata()["framework"] != "pt" {
		t.Error("metadata was changed through a returned value")
	}
	if _, ok := f.Tensor("nope"); ok {
		t.Error(`Tensor("nope") found`)
	}
	raw, err := f.Raw("test1")
	if err != nil || !bytes.Equal(raw, zeros(16)) {
		t.Errorf("Raw = %v %v", raw, err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close after Parse: %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	file := mustWrite(t, []Tensor{
		{"c", C64, []int{1}, zeros(8)},
		{"f", F32, []int{2}, mustEncodeF(t, F32, []float32{1, 2})},
		{"u", U64, []int{1}, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}},
	}, nil)
	f := mustParse(t, file)
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"missing Float32s", func() error { _, _, err := f.Float32s("nope"); return err }, `tensor "nope": no such tensor`},
		{"missing Int64s", func() error { _, _, err := f.Int64s("nope"); return err }, `tensor "nope": no such tensor`},
		{"missing Raw", func() error { _, err := f.Raw("nope"); return err }, `tensor "nope": no such tensor`},
		{"complex as float", func() error { _, _, err := f.Float32s("c"); return err }, `tensor "c": dtype C64 cannot be read as float32`},
		{"float as int", func() error { _, _, err := f.Int64s("f"); return err }, `tensor "f": dtype F32 is not an integer dtype`},
		{"u64 overflow", func() error { _, _, err := f.Int64s("u"); return err }, `tensor "u": a U64 value exceeds the int64 range`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || !strings.HasPrefix(err.Error(), "safetensors: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, _, err := f.Float32s("nope"); !errors.Is(err, ErrTensorNotFound) {
		t.Errorf("missing tensor error %v does not wrap ErrTensorNotFound", err)
	}

	// A file that shrinks after it was parsed.
	short := &shrinkingReader{data: file}
	g, err := Parse(short, int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	short.data = file[:len(file)-10]
	if _, _, err := g.Float32s("f"); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading a truncated file: %v, want io.ErrUnexpectedEOF", err)
	}
}

type shrinkingReader struct{ data []byte }

func (r *shrinkingReader) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(r.data).ReadAt(p, off)
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing.safetensors")); err == nil || !strings.HasPrefix(err.Error(), "safetensors: open ") {
		t.Errorf("Open(missing) = %v", err)
	}
	path := filepath.Join(dir, "bad.safetensors")
	if err := os.WriteFile(path, []byte("not a safetensors file"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if want := "safetensors: " + path + ": header length"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Open(bad) = %v, want prefix %q", err, want)
	}
}

func TestCorruptFiles(t *testing.T) {
	i32 := func(offsets string) string {
		return `{"t":{"dtype":"I32","shape":[2],"data_offsets":` + offsets + `}}`
	}
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "file is 0 bytes, too short"},
		{"short", []byte{1, 0, 0}, "file is 3 bytes, too short"},
		{"header too large", []byte(refI32Zeros[:5] + "\xff\xff\xff" + refI32Zeros[8:]), "exceeds the limit of 100000000 bytes"},
		{"header past end", []byte("<\x00\x00\x00\x00\x00\x00\x00"), "header length 60 runs past the end of the 8-byte file"},
		{"header 2^64-1", []byte("\xff\xff\xff\xff\xff\xff\xff\xff{}"), "exceeds the limit"},
		{"not utf-8", []byte("\x01\x00\x00\x00\x00\x00\x00\x00\xff"), "header is not valid UTF-8"},
		{"not json", []byte("\x01\x00\x00\x00\x00\x00\x00\x00{"), "malformed JSON header"},
		{"empty header", rawFile("", nil), "malformed JSON header"},
		{"two values", rawFile("{}{}", nil), "malformed JSON header"},
		{"not an object", rawFile("[]", nil), "header is not a JSON object"},
		{"entry not an object", rawFile(`{"t":5}`, nil), `tensor "t": entry 5 is not a JSON object`},
		{"entry malformed", rawFile(`{"t":{"dtype":5,"shape":[],"data_offsets":[0,0]}}`, nil), `tensor "t": malformed entry`},
		{"unknown dtype", rawFile(`{"t":{"dtype":"Q7","shape":[1],"data_offsets":[0,1]}}`, zeros(1)), `tensor "t": dtype "Q7" is not supported`},
		{"lower-case dtype", rawFile(`{"t":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}}`, zeros(4)), `tensor "t": dtype "f32" is not supported`},
		{"no dtype", rawFile(`{"t":{"shape":[1],"data_offsets":[0,4]}}`, zeros(4)), `tensor "t": no dtype`},
		{"no shape", rawFile(`{"t":{"dtype":"F32","data_offsets":[0,4]}}`, zeros(4)), `tensor "t": no shape`},
		{"null shape", rawFile(`{"t":{"dtype":"F32","shape":null,"data_offsets":[0,4]}}`, zeros(4)), `tensor "t": no shape`},
		{"no offsets", rawFile(`{"t":{"dtype":"F32","shape":[1]}}`, zeros(4)), `tensor "t": no data_offsets`},
		{"three offsets", rawFile(i32("[0,8,8]"), zeros(8)), `tensor "t": data_offsets has 3 values, not 2`},
		{"negative dim", rawFile(`{"t":{"dtype":"I32","shape":[-2],"data_offsets":[0,8]}}`, zeros(8)), `tensor "t": shape dimension 0: -2 is negative`},
		{"huge negative dim", rawFile(`{"t":{"dtype":"I32","shape":[-99999999999999999999],"data_offsets":[0,8]}}`, zeros(8)), `-99999999999999999999 is negative`},
		{"fractional dim", rawFile(`{"t":{"dtype":"I32","shape":[2.5],"data_offsets":[0,8]}}`, zeros(8)), `shape dimension 0: 2.5 is not an integer`},
		{"string dim", rawFile(`{"t":{"dtype":"I32","shape":["2"],"data_offsets":[0,8]}}`, zeros(8)), `shape dimension 0: "2" is not an integer`},
		{"negative offset", rawFile(i32("[-8,0]"), zeros(8)), `data_offsets[0]: -8 is negative`},
		{"dim overflows int64", []byte("O\x00\x00\x00\x00\x00\x00\x00" + `{"test":{"dtype":"I32","shape":[2,18446744073709551614],"data_offsets":[0,16]}}` + string(zeros(16))),
			"shape dimension 1: 18446744073709551614 overflows a 64-bit integer"},
		{"shape product overflows", []byte("N\x00\x00\x00\x00\x00\x00\x00" + `{"test":{"dtype":"I32","shape":[2,9223372036854775807],"data_offsets":[0,16]}}` + string(zeros(16))),
			`tensor "test": shape [2 9223372036854775807] overflows`},
		{"byte size overflows", rawFile(`{"t":{"dtype":"I32","shape":[4611686018427387904],"data_offsets":[0,16]}}`, zeros(16)), `overflows`},
		{"sub-byte misaligned", rawFile(`{"t":{"dtype":"F4","shape":[3],"data_offsets":[0,1]}}`, zeros(1)), `3 elements of 4-bit F4 do not fill whole bytes`},
		{"size mismatch", []byte("<\x00\x00\x00\x00\x00\x00\x00" + `{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0, 4]}}` + string(zeros(4))),
			`tensor "test": shape [2 2] of I32 needs 16 bytes, but data_offsets [0, 4] hold 4`},
		{"reversed offsets", rawFile(i32("[8,0]"), zeros(8)), `data_offsets [8, 0] end before they begin`},
		{"offsets past data", rawFile(i32("[0,8]"), zeros(4)), `data_offsets [0, 8] run past the end of the 4-byte data buffer`},
		{"gap at start", rawFile(i32("[4,12]"), zeros(12)), `bytes 0 to 4 of the data buffer belong to no tensor`},
		{"gap between", rawFile(`{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[4,6]}}`, zeros(6)),
			`bytes 2 to 4 of the data buffer belong to no tensor (tensor "b" begins at 4)`},
		{"overlap", rawFile(`{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}`, zeros(6)),
			`tensor "b": data_offsets [2, 6] overlap tensor "a"`},
		{"same offsets", rawFile(`{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}}`, zeros(4)),
			`data_offsets [0, 4] overlap tensor`},
		{"trailing data", []byte(refUnpadded + "extra_bogus_data_for_polyglot_file"), `the data buffer has 50 bytes, but the tensors cover only the first 16`},
		{"missing data", []byte(refUnpadded[:len(refUnpadded)-2]), `data_offsets [0, 16] run past the end of the 14-byte data buffer`},
		{"data but no tensors", rawFile("{}", zeros(3)), `the data buffer has 3 bytes, but the tensors cover only the first 0`},
		{"duplicate tensor", rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, zeros(2)),
			`tensor "a" appears twice`},
		{"duplicate metadata", rawFile(`{"__metadata__":{"k":"1","k":"2"}}`, nil), `__metadata__ key "k" appears twice`},
		{"two metadata", rawFile(`{"__metadata__":{},"__metadata__":{}}`, nil), `header key "__metadata__" appears twice`},
		{"metadata not object", rawFile(`{"__metadata__":["a"]}`, nil), `__metadata__ is not a JSON object`},
		{"metadata not string", rawFile(`{"__metadata__":{"n":1}}`, nil), `__metadata__: value of "n" is 1, not a string`},
		{"metadata null value", rawFile(`{"__metadata__":{"n":null}}`, nil), `__metadata__: value of "n" is null, not a string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseBytes(tc.file)
			if err == nil {
				t.Fatalf("Parse succeeded with %d tensors", len(f.Tensors()))
			}
			if !strings.HasPrefix(err.Error(), "safetensors: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestJSONAttack is the reference's test_json_attack: ten tensors claiming
// the same bytes.
func TestJSONAttack(t *testing.T) {
	var sb strings.Builder
	sb.WriteByte('{')
	for i := range 10 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `"weight_%d":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}`, i)
	}
	sb.WriteByte('}')
	_, err := parseBytes(rawFile(sb.String(), zeros(16)))
	if err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("error %v, want an overlap", err)
	}
}

func TestLenientHeader(t *testing.T) {
	// Unknown fields are ignored, keys may come in any order, null metadata
	// is no metadata, and tensors may be listed in any order.
	header := `{"b":{"data_offsets":[4,8],"shape":[1],"dtype":"F32","extra":true},"__metadata__":null,"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`
	f := mustParse(t, rawFile(header, mustEncodeF(t, F32, []float32{1, 2})))
	if f.Metadata() != nil {
		t.Errorf("Metadata() = %v, want nil", f.Metadata())
	}
	b, _, err := f.Float32s("b")
	if err != nil || b[0] != 2 {
		t.Errorf(`Float32s("b") = %v %v`, b, err)
	}
	if ts := f.Tensors(); ts[0].Name != "a" || ts[1].Name != "b" {
		t.Errorf("Tensors() not in offset order: %v", ts)
	}

	// Whitespace anywhere, as in a pretty-printed header.
	pretty := "\n{\n  \"__metadata__\" :\t{ \"k\" : \"v\" } ,\n  \"a\" : {\n    \"dtype\" : \"F32\" ,\n    \"shape\" : [ 1 , 2 ] ,\n    \"data_offsets\" : [ 0 , 8 ]\n  }\n}\n"
	g := mustParse(t, rawFile(pretty, mustEncodeF(t, F32, []float32{1, 2})))
	if a, shape, err := g.Float32s("a"); err != nil || !reflect.DeepEqual(a, []float32{1, 2}) || !reflect.DeepEqual(shape, []int{1, 2}) || g.Metadata()["k"] != "v" {
		t.Errorf("pretty header: %v %v %v %v", a, shape, err, g.Metadata())
	}
}

func TestConcurrentReads(t *testing.T) {
	v := make([]float32, 4096)
	for i := range v {
		v[i] = float32(i % 2048) // exact in F16
	}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := WriteFile(path, []Tensor{{"e", F16, []int{64, 64}, mustEncodeF(t, F16, v)}, {"f", F32, []int{4096}, mustEncodeF(t, F32, v)}}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := []string{"e", "f"}[i%2]
			got, _, err := f.Float32s(name)
			if err != nil || !reflect.DeepEqual(got, v) {
				t.Errorf("%s: concurrent Float32s differs (err %v)", name, err)
			}
		})
	}
	wg.Wait()
}
