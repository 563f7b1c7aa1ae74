package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWriteErrors(t *testing.T) {
	four := zeros(4)
	tests := []struct {
		name    string
		tensors []Tensor
		meta    map[string]string
		want    string
	}{
		{"duplicate", []Tensor{{"a", U8, []int{4}, four}, {"a", U8, []int{4}, four}}, nil, `tensor "a" appears twice`},
		{"reserved name", []Tensor{{"__metadata__", U8, []int{4}, four}}, nil, `tensor name "__metadata__" is reserved`},
		{"bad utf-8 name", []Tensor{{"a\xff", U8, []int{4}, four}}, nil, `is not valid UTF-8`},
		{"bad utf-8 metadata", nil, map[string]string{"k": "\xff"}, `metadata "k": "\xff" is not valid UTF-8`},
		{"unknown dtype", []Tensor{{"a", "F12", []int{4}, four}}, nil, `tensor "a": dtype "F12" is not supported`},
		{"empty dtype", []Tensor{{"a", "", []int{4}, four}}, nil, `tensor "a": dtype "" is not supported`},
		{"negative dim", []Tensor{{"a", U8, []int{-4}, four}}, nil, `tensor "a": shape [-4] has a negative dimension`},
		{"short data", []Tensor{{"a", F32, []int{2}, four}}, nil, `tensor "a": shape [2] of F32 needs 8 bytes, but Data has 4`},
		{"long data", []Tensor{{"a", U8, []int{2}, four}}, nil, `needs 2 bytes, but Data has 4`},
		{"overflow", []Tensor{{"a", F64, []int{math.MaxInt64/4 + 1}, four}}, nil, `overflows`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, tc.tensors, tc.meta)
			if err == nil || !strings.HasPrefix(err.Error(), "safetensors: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Write error %v, want one containing %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("Write wrote %d bytes before failing", buf.Len())
			}
		})
	}
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errors.New("disk full")
	}
	w.after--
	return len(p), nil
}

func TestWriteWriterError(t *testing.T) {
	tensors := []Tensor{{"a", U8, []int{1}, []byte{1}}}
	for after := range 3 {
		if err := Write(&failWriter{after}, tensors, nil); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("after %d writes: error %v, want disk full", after, err)
		}
	}
	if err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "dir"), tensors, nil); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
}

func TestWriteLayout(t *testing.T) {
	// Names that need escaping, metadata in sorted key order, a scalar and
	// an empty tensor, and data aligned to its dtype.
	tensors := []Tensor{
		{"b\"<&>\n", U8, []int{3}, []byte{1, 2, 3}},
		{"scalar", F64, nil, mustEncodeF(t, F64, []float32{7})},
		{"empty", F32, []int{0, 5}, nil},
		{"h", F16, []int{1}, mustEncodeF(t, F16, []float32{1})},
	}
	meta := map[string]string{"z": "last", "a": "first", "日本": "語"}
	file := mustWrite(t, tensors, meta)
	n := binary.LittleEndian.Uint64(file)
	if n%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8", n)
	}
	header := string(file[8 : 8+n])
	wantStart := `{"__metadata__":{"a":"first","z":"last","日本":"語"},"scalar":{"dtype":"F64","shape":[],"data_offsets":[0,8]},"empty":{"dtype":"F32","shape":[0,5],"data_offsets":[8,8]},"h":`
	if !strings.HasPrefix(header, wantStart) {
		t.Errorf("header\n%s\ndoes not start with\n%s", header, wantStart)
	}
	if !strings.Contains(header, `"b\"<&>\n":{"dtype":"U8"`) {
		t.Errorf("header %s lacks the escaped name", header)
	}
	f := mustParse(t, file)
	if !reflect.DeepEqual(f.Metadata(), meta) {
		t.Errorf("Metadata() = %v", f.Metadata())
	}
	for _, ti := range f.Tensors() {
		if align := int64(ti.DType.Bits() / 8); (8+int64(n)+ti.Offsets[0])%align != 0 {
			t.Errorf("tensor %q at file offset %d is not %d-aligned", ti.Name, 8+int64(n)+ti.Offsets[0], align)
		}
	}
	raw, err := f.Raw("b\"<&>\n")
	if err != nil || !bytes.Equal(raw, []byte{1, 2, 3}) {
		t.Errorf("Raw = %v %v", raw, err)
	}
	s, shape, err := f.Float32s("scalar")
	if err != nil || len(s) != 1 || s[0] != 7 || len(shape) != 0 {
		t.Errorf("scalar = %v %v %v", s, shape, err)
	}
	e, shape, err := f.Float32s("empty")
	if err != nil || len(e) != 0 || !reflect.DeepEqual(shape, []int{0, 5}) {
		t.Errorf("empty = %v %v %v", e, shape, err)
	}
}

func TestWriteEmpty(t *testing.T) {
	file := mustWrite(t, nil, nil)
	if want := "\x08\x00\x00\x00\x00\x00\x00\x00{}      "; string(file) != want {
		t.Errorf("Write(nil) = %q, want %q", file, want)
	}
	if f := mustParse(t, file); len(f.Tensors()) != 0 || f.Metadata() != nil {
		t.Errorf("parsed %v %v", f.Tensors(), f.Metadata())
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"i8 fraction", second(EncodeFloat32s(I8, []float32{1, 1.5})), "value 1.5 at index 1 is not an integer in the range of I8"},
		{"i8 range", second(EncodeFloat32s(I8, []float32{128})), "value 128 at index 0"},
		{"u8 negative", second(EncodeFloat32s(U8, []float32{-1})), "value -1 at index 0"},
		{"u8 NaN", second(EncodeFloat32s(U8, []float32{float32(math.NaN())})), "value NaN at index 0"},
		{"float complex", second(EncodeFloat32s(C64, []float32{1})), "EncodeFloat32s cannot encode C64"},
		{"int range", second(EncodeInt64s(I16, []int64{1 << 15})), "value 32768 at index 0 is out of the range of I16"},
		{"uint negative", second(EncodeInt64s(U64, []int64{-1})), "value -1 at index 0 is out of the range of U64"},
		{"int float", second(EncodeInt64s(F32, []int64{1})), "EncodeInt64s cannot encode F32"},
	}
	for _, tc := range tests {
		if tc.err == nil || !strings.HasPrefix(tc.err.Error(), "safetensors: ") || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestDTypeBits(t *testing.T) {
	want := map[DType]int{Bool: 8, F4: 4, F6E2M3: 6, U8: 8, F8E4M3: 8, I16: 16, F16: 16, BF16: 16, F32: 32, C64: 64, F64: 64, U64: 64, "X": 0, "f32": 0}
	for dt, bits := range want {
		if got := dt.Bits(); got != bits {
			t.Errorf("%q.Bits() = %d, want %d", dt, got, bits)
		}
	}
}
