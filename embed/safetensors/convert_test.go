package safetensors

import (
	"math"
	"math/rand/v2"
	"testing"
)

// halfValue is an independent reference for HalfToFloat32: the value of a
// binary16 from its fields, in float64.
func halfValue(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(mant, -24)
	case 0x1f:
		if mant != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1+mant/1024, exp-15)
}

func TestHalfToFloat32(t *testing.T) {
	tests := []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0},
		{0x3C00, 1},
		{0xC000, -2},
		{0x3555, 0.333251953125},
		{0x3BFF, 0.99951171875},
		{0x7BFF, 65504},
		{0xFBFF, -65504},
		{0x0400, 1.0 / 16384},                    // smallest normal, 2^-14
		{0x0001, float32(math.Ldexp(1, -24))},    // smallest subnormal
		{0x03FF, float32(math.Ldexp(1023, -24))}, // largest subnormal
		{0x8001, -float32(math.Ldexp(1, -24))},   // negative subnormal
		{0x0200, float32(math.Ldexp(1, -15))},    // subnormal, one shift
		{0x2E66, 0.0999755859375},                // nearest to 0.1
		{0x7C00, float32(math.Inf(1))},           // +Inf
		{0xFC00, float32(math.Inf(-1))},          // −Inf
		{0x5640, 100},
	}
	for _, tc := range tests {
		if got := HalfToFloat32(tc.h); got != tc.want {
			t.Errorf("HalfToFloat32(%#04x) = %v, want %v", tc.h, got, tc.want)
		}
	}
	if got := HalfToFloat32(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("HalfToFloat32(0x8000) = %v, want -0", got)
	}
	for _, h := range []uint16{0x7E00, 0x7C01, 0xFE00, 0x7FFF} {
		if got := HalfToFloat32(h); !math.IsNaN(float64(got)) {
			t.Errorf("HalfToFloat32(%#04x) = %v, want NaN", h, got)
		}
	}
	// The NaN payload and sign survive a round trip.
	for _, h := range []uint16{0x7E00, 0x7C01, 0xFE00, 0x7FFF, 0x7D55} {
		if got := Float32ToHalf(HalfToFloat32(h)); got != h|0x0200 {
			t.Errorf("Float32ToHalf(HalfToFloat32(%#04x)) = %#04x, want %#04x", h, got, h|0x0200)
		}
	}
}

// TestHalfExhaustive checks all 65,536 half values against the reference
// formula and through a round trip.
func TestHalfExhaustive(t *testing.T) {
	for i := range 1 << 16 {
		h := uint16(i)
		got := HalfToFloat32(h)
		if tab := halfTable()[h]; math.Float32bits(tab) != math.Float32bits(got) {
			t.Errorf("halfTable()[%#04x] = %v, HalfToFloat32 %v", h, tab, got)
		}
		want := halfValue(h)
		if math.IsNaN(want) {
			if !math.IsNaN(float64(got)) {
				t.Errorf("HalfToFloat32(%#04x) = %v, want NaN", h, got)
			}
			continue
		}
		if float64(got) != want || math.Signbit(float64(got)) != (h&0x8000 != 0) {
			t.Errorf("HalfToFloat32(%#04x) = %v, want %v", h, got, want)
		}
		if back := Float32ToHalf(got); back != h {
			t.Errorf("Float32ToHalf(%v) = %#04x, want %#04x", got, back, h)
		}
	}
}

func TestFloat32ToHalf(t *testing.T) {
	tests := []struct {
		f    float32
		want uint16
	}{
		{1, 0x3C00},
		{-2, 0xC000},
		{65504, 0x7BFF},
		{65519, 0x7BFF},                               // below the midpoint to 65536
		{65520, 0x7C00},                               // the midpoint rounds to even: infinity
		{1e6, 0x7C00},                                 // overflow
		{-1e6, 0xFC00},                                // overflow
		{float32(math.Inf(1)), 0x7C00},                // +Inf
		{float32(math.Inf(-1)), 0xFC00},               // −Inf
		{1 + 1.0/2048, 0x3C00},                        // tie, to even (down)
		{1 + 3.0/2048, 0x3C02},                        // tie, to even (up)
		{1 + 1.0/2048 + 1.0/65536, 0x3C01},            // above the tie
		{float32(math.Ldexp(1, -24)), 0x0001},         // smallest subnormal
		{float32(math.Ldexp(1, -25)), 0x0000},         // tie with zero, to even
		{float32(math.Ldexp(1.0000001, -25)), 0x0001}, // just above the tie
		{float32(math.Ldexp(3, -25)), 0x0002},         // 1.5 units, to even (up)
		{float32(math.Ldexp(5, -25)), 0x0002},         // 2.5 units, to even (down)
		{float32(math.Ldexp(1, -26)), 0x0000},         // underflow
		{float32(math.Ldexp(2047, -25)), 0x0400},      // rounds up into the smallest normal
		{float32(math.Ldexp(1, -14)), 0x0400},         // smallest normal
		{-float32(math.Ldexp(1, -24)), 0x8001},        // negative subnormal
		{float32(math.Ldexp(1, -140)), 0x0000},        // float32 subnormal
		{-float32(math.Ldexp(1, -140)), 0x8000},       // negative float32 subnormal
		{0.1, 0x2E66},
		{100, 0x5640},
	}
	for _, tc := range tests {
		if got := Float32ToHalf(tc.f); got != tc.want {
			t.Errorf("Float32ToHalf(%v) = %#04x, want %#04x", tc.f, got, tc.want)
		}
	}
	if got := Float32ToHalf(float32(math.Copysign(0, -1))); got != 0x8000 {
		t.Errorf("Float32ToHalf(-0) = %#04x, want 0x8000", got)
	}
	if got := Float32ToHalf(float32(math.NaN())); got&0x7C00 != 0x7C00 || got&0x3FF == 0 {
		t.Errorf("Float32ToHalf(NaN) = %#04x, not a NaN", got)
	}
}

// TestFloat32ToHalfNearest checks on random float32 values in and around
// the half range that the result is the nearest half, ties to even.
func TestFloat32ToHalfNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		// Exponents from 2^-27 to 2^17: subnormals, normals, overflow.
		bits := rng.Uint32()&0x807fffff | uint32(100+rng.IntN(45))<<23
		f := float32(math.Float32frombits(bits))
		h := Float32ToHalf(f)
		x := float64(f)
		got := halfValue(h)
		if math.IsInf(got, 0) {
			if math.Abs(x) < 65520 {
				t.Fatalf("Float32ToHalf(%v) = Inf below the overflow threshold", f)
			}
			continue
		}
		if math.Abs(x) >= 65520 {
			t.Fatalf("Float32ToHalf(%v) = %#04x, want Inf", f, h)
		}
		// The neighbours of h on the same side of zero.
		for _, n := range []uint16{h - 1, h + 1} {
			if n&0x7fff > 0x7bff || (n^h)&0x8000 != 0 {
				continue
			}
			d, dn := math.Abs(x-got), math.Abs(x-halfValue(n))
			if dn < d || dn == d && h&1 == 1 {
				t.Fatalf("Float32ToHalf(%v) = %#04x (%v), but %#04x (%v) is nearer or even", f, h, got, n, halfValue(n))
			}
		}
	}
}

func TestBFloat16(t *testing.T) {
	decode := []struct {
		b    uint16
		want float32
	}{
		{0x3F80, 1},
		{0xC000, -2},
		{0x4010, 2.25},
		{0x7F7F, 3.3895313892515355e38}, // largest finite
		{0x0080, float32(math.Ldexp(1, -126))},
		{0x0001, float32(math.Ldexp(1, -133))}, // smallest subnormal
		{0x7F80, float32(math.Inf(1))},
		{0xFF80, float32(math.Inf(-1))},
	}
	for _, tc := range decode {
		if got := BFloat16ToFloat32(tc.b); got != tc.want {
			t.Errorf("BFloat16ToFloat32(%#04x) = %v, want %v", tc.b, got, tc.want)
		}
	}
	if got := BFloat16ToFloat32(0x7FC0); !math.IsNaN(float64(got)) {
		t.Errorf("BFloat16ToFloat32(0x7FC0) = %v, want NaN", got)
	}
	encode := []struct {
		f    float32
		want uint16
	}{
		{1, 0x3F80},
		{2.25, 0x4010},
		{0.1, 0x3DCD},
		{1 + 1.0/256, 0x3F80},           // tie, to even (down)
		{1 + 3.0/256, 0x3F82},           // tie, to even (up)
		{math.MaxFloat32, 0x7F80},       // rounds up to infinity
		{float32(math.Inf(-1)), 0xFF80}, // −Inf
		{float32(math.Ldexp(1, -133)), 0x0001},
	}
	for _, tc := range encode {
		if got := Float32ToBFloat16(tc.f); got != tc.want {
			t.Errorf("Float32ToBFloat16(%v) = %#04x, want %#04x", tc.f, got, tc.want)
		}
	}
	// A NaN whose payload lies only in the low bits must stay a NaN.
	if got := Float32ToBFloat16(math.Float32frombits(0x7F800001)); got&0x7F80 != 0x7F80 || got&0x7F == 0 {
		t.Errorf("Float32ToBFloat16(NaN) = %#04x, not a NaN", got)
	}
	for i := range 1 << 16 {
		b := uint16(i)
		f := BFloat16ToFloat32(b)
		if math.IsNaN(float64(f)) {
			continue
		}
		if back := Float32ToBFloat16(f); back != b {
			t.Errorf("Float32ToBFloat16(BFloat16ToFloat32(%#04x)) = %#04x", b, back)
		}
	}
}
