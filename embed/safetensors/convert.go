package safetensors

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"
	"unsafe"
)

// chunkSize bounds the scratch buffer of a converting read.
const chunkSize = 1 << 20

// nativeLittleEndian reports whether this machine stores numbers
// little-endian, as safetensors does, so that F32 data can be read straight
// into a []float32.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Float32s returns the named tensor converted to float32, and its shape. It
// converts F32, F16, BF16 and F64 exactly as the IEEE 754 conversion to
// float32 does (F64 rounds to nearest even; infinities and NaN stay so), and
// I8 and U8 to their integer values: applying a quantization scale is the
// caller's business. Other dtypes are refused. On a little-endian machine an
// F32 tensor is read straight into the result, without a second copy.
func (f *File) Float32s(name string) ([]float32, []int, error) {
	t, err := f.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	var conv func(dst []float32, src []byte)
	switch t.DType {
	case F32:
		conv = func(dst []float32, src []byte) {
			for i := range dst {
				dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
			}
		}
	case F16:
		table := halfTable()
		conv = func(dst []float32, src []byte) {
			for i := range dst {
				dst[i] = table[binary.LittleEndian.Uint16(src[2*i:])]
			}
		}
	case BF16:
		conv = func(dst []float32, src []byte) {
			for i := range dst {
				dst[i] = BFloat16ToFloat32(binary.LittleEndian.Uint16(src[2*i:]))
			}
		}
	case F64:
		conv = func(dst []float32, src []byte) {
			for i := range dst {
				dst[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:])))
			}
		}
	case I8:
		conv = func(dst []float32, src []byte) {
			for i := range dst {
				dst[i] = float32(int8(src[i]))
			}
		}
	case U8:
		conv = func(dst []float32, src []byte) {
			for i := range dst {
				dst[i] = float32(src[i])
			}
		}
	default:
		return nil, nil, f.errorf("tensor %q: dtype %s cannot be read as float32 (F32, F16, BF16, F64, I8 and U8 can)", name, t.DType)
	}
	out := make([]float32, t.NumElements())
	if t.DType == F32 && nativeLittleEndian && len(out) > 0 {
		raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), 4*len(out))
		if err := f.readAt(t, raw, t.Offsets[0]); err != nil {
			return nil, nil, err
		}
		return out, slices.Clone(t.Shape), nil
	}
	if err := readConverted(f, t, out, conv); err != nil {
		return nil, nil, err
	}
	return out, slices.Clone(t.Shape), nil
}

// Int64s returns the named integer tensor as int64 values, and its shape,
// from the dtypes I8, I16, I32, I64, U8, U16, U32 and U64. A U64 value above
// 2^63-1 is an error. Other dtypes are refused.
func (f *File) Int64s(name string) ([]int64, []int, error) {
	t, err := f.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	var conv func(dst []int64, src []byte)
	overflow := false
	switch t.DType {
	case I8:
		conv = func(dst []int64, src []byte) {
			for i := range dst {
				dst[i] = int64(int8(src[i]))
			}
		}
	case U8:
		conv = func(dst []int64, src []byte) {
			for i := range dst {
				dst[i] = int64(src[i])
			}
		}
	case I16:
		conv = func(dst []int64, src []byte) {
			for i := range dst {
				dst[i] = int64(int16(binary.LittleEndian.Uint16(src[2*i:])))
			}
		}
	case U16:
		conv = func(dst []int64, src []byte) {
			for i := range dst {
				dst[i] = int64(binary.LittleEndian.Uint16(src[2*i:]))
			}
		}
	case I32:
		conv = func(dst []int64, src []byte) {
			for i := range dst {
				dst[i] = int64(int32(binary.LittleEndian.Uint32(src[4*i:])))
			}
		}
	case U32:
		conv = func(dst []int64, src []byte) {
			for i := range dst {
				dst[i] = int64(binary.LittleEndian.Uint32(src[4*i:]))
			}
		}
	case I64:
		conv = func(dst []int64, src []byte) {
			for i := range dst {
				dst[i] = int64(binary.LittleEndian.Uint64(src[8*i:]))
			}
		}
	case U64:
		conv = func(dst []int64, src []byte) {
			for i := range dst {
				v := binary.LittleEndian.Uint64(src[8*i:])
				overflow = overflow || v > math.MaxInt64
				dst[i] = int64(v)
			}
		}
	default:
		return nil, nil, f.errorf("tensor %q: dtype %s is not an integer dtype that Int64s reads", name, t.DType)
	}
	out := make([]int64, t.NumElements())
	if err := readConverted(f, t, out, conv); err != nil {
		return nil, nil, err
	}
	if overflow {
		return nil, nil, f.errorf("tensor %q: a U64 value exceeds the int64 range", name)
	}
	return out, slices.Clone(t.Shape), nil
}

// readConverted reads tensor t chunk by chunk through a scratch buffer and
// converts each chunk into its share of out.
func readConverted[T any](f *File, t TensorInfo, out []T, conv func(dst []T, src []byte)) error {
	if len(out) == 0 {
		return nil
	}
	size := t.DType.Bits() / 8    // whole bytes: Float32s and Int64s read no sub-byte dtype
	per := max(1, chunkSize/size) // elements per chunk
	buf := make([]byte, min(per, len(out))*size)
	for i := 0; i < len(out); i += per {
		n := min(per, len(out)-i)
		src := buf[:n*size]
		if err := f.readAt(t, src, t.Offsets[0]+int64(i)*int64(size)); err != nil {
			return err
		}
		conv(out[i:i+n], src)
	}
	return nil
}

// halfTable returns HalfToFloat32 of every half value: a 256 KiB table, made
// on first use, that makes F16 tensors several times faster to convert.
var halfTable = sync.OnceValue(func() *[1 << 16]float32 {
	t := new([1 << 16]float32)
	for h := range t {
		t[h] = HalfToFloat32(uint16(h))
	}
	return t
})

// HalfToFloat32 converts an IEEE 754 half-precision (binary16) value, given
// by its bits, to the float32 of the same value: exactly, subnormals
// included. Infinities stay infinite, and a NaN stays a NaN with its sign and
// payload.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0: // normal: rebias the exponent from 15 to 127
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	case mant == 0: // ±0
		return math.Float32frombits(sign)
	}
	// Subnormal: mant × 2^-24. Shift the leading 1 into the implicit bit.
	e := uint32(127 - 15 + 1)
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
}

// Float32ToHalf converts f to the nearest IEEE 754 half-precision value, ties
// to even, and returns its bits. Values beyond the half range become
// infinities, values below half its smallest subnormal become zeros, and a
// NaN stays a (quiet) NaN.
func Float32ToHalf(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	exp := int(bits>>23) & 0xff
	mant := bits & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00 | uint16(mant>>13)
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// A half subnormal, or zero: the value is m × 2^(exp-150), and a
		// subnormal counts units of 2^-24, so it is m >> (126-exp).
		if exp == 0 {
			return sign // a float32 subnormal is far below the half range
		}
		m := mant | 0x800000
		s := uint(126 - exp) // at least 14
		if s > 24 {
			return sign // below half of the smallest subnormal, or exactly half: even is 0
		}
		q := m >> s
		rem := m & (1<<s - 1)
		halfway := uint32(1) << (s - 1)
		if rem > halfway || rem == halfway && q&1 == 1 {
			q++ // may carry into the smallest normal, 0x0400, which is right
		}
		return sign | uint16(q)
	}
	h := sign | uint16(e)<<10 | uint16(mant>>13)
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // may carry into the exponent, up to infinity, which is right
	}
	return h
}

// BFloat16ToFloat32 converts a bfloat16 value, given by its bits, to float32:
// exactly, as bfloat16 is the top half of a float32.
func BFloat16ToFloat32(b uint16) float32 {
	return math.Float32frombits(uint32(b) << 16)
}

// Float32ToBFloat16 converts f to the nearest bfloat16 value, ties to even,
// and returns its bits. A NaN stays a (quiet) NaN.
func Float32ToBFloat16(f float32) uint16 {
	bits := math.Float32bits(f)
	if bits&0x7fffffff > 0x7f800000 {
		return uint16(bits>>16) | 0x40
	}
	bits += 0x7fff + (bits>>16)&1
	return uint16(bits >> 16)
}
