package safetensors

import (
	"bytes"
	"encoding/binary"
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
		// Each tensor's bytes are the ones its offsets name after the header,
		// read from the input itself.
		body := data[8+binary.LittleEndian.Uint64(data):]
		for _, info := range file.Tensors() {
			raw, err := file.Raw(info.Name)
			if err != nil || !bytes.Equal(raw, body[info.Offsets[0]:info.Offsets[1]]) {
				t.Fatalf("Raw(%q) = %d bytes, %v; the file has %d there", info.Name, len(raw), err, info.Offsets[1]-info.Offsets[0])
			}
			// Decoding may refuse a dtype, never panic.
			file.Float32s(info.Name)
			file.Int64s(info.Name)
		}
		_ = file.Metadata()
	})
}
