package safetensors

import (
	"testing"
)

// FuzzParse parses arbitrary bytes and reads every tensor of whatever parses:
// nothing may panic, and a parsed file must keep its promises.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		refI32Zeros, refI32One, refBF16, refAligned, refMetadata, refMetadataOnly, refAttn0,
		refUnpadded, refOldMetadata, refScalar, refZeroSized, refTrailingWS, refLeadingWS,
		"", "\x01\x00\x00\x00\x00\x00\x00\x00{",
	} {
		f.Add([]byte(s))
	}
	f.Add(mustWrite(f, []Tensor{
		{"embeddings", F16, []int{2, 3}, mustEncodeF(f, F16, []float32{1, 2, 3, -1, 0.5, 65504})},
		{"weights", F64, []int{2}, mustEncodeF(f, F64, []float32{1, 2})},
		{"mapping", I64, []int{2}, mustEncodeI(f, I64, []int64{1, 0})},
		{"q", I8, []int{2}, mustEncodeF(f, I8, []float32{-1, 1})},
		{"f4", F4, []int{2}, []byte{0x12}},
	}, map[string]string{"k": "v"}))

	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := parseBytes(data)
		if err != nil {
			return
		}
		var total int64
		for _, info := range file.Tensors() {
			if got, ok := file.Tensor(info.Name); !ok || got.Offsets != info.Offsets {
				t.Fatalf("Tensor(%q) = %+v, %v", info.Name, got, ok)
			}
			total += info.ByteLen()
			raw, err := file.Raw(info.Name)
			if err != nil || int64(len(raw)) != info.ByteLen() {
				t.Fatalf("Raw(%q): %d bytes, %v", info.Name, len(raw), err)
			}
			if v, shape, err := file.Float32s(info.Name); err == nil && (len(v) != info.NumElements() || len(shape) != len(info.Shape)) {
				t.Fatalf("Float32s(%q): %d values, shape %v, want %d, %v", info.Name, len(v), shape, info.NumElements(), info.Shape)
			}
			if v, _, err := file.Int64s(info.Name); err == nil && len(v) != info.NumElements() {
				t.Fatalf("Int64s(%q): %d values, want %d", info.Name, len(v), info.NumElements())
			}
		}
		if total > int64(len(data)) {
			t.Fatalf("tensors claim %d bytes of a %d-byte file", total, len(data))
		}
		_ = file.Metadata()
	})
}
