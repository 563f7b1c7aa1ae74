package hftokenizer

import (
	"errors"
	"math"
	"strconv"
	"sync"
)

// parseSerdeFloat parses a JSON number the way serde_json does without its
// float_roundtrip feature, which is how the Rust crate reads Unigram scores:
// up to 19-20 significant digits go into a uint64, later digits are dropped,
// then the value is significand * 10^exp in float64 arithmetic. That is off
// from the correctly rounded value by one ulp for some 17-digit scores, and
// a one-ulp difference can flip a Viterbi tie, so it is reproduced here.
func parseSerdeFloat(s string) (float64, error) {
	bad := errors.New("invalid number " + strconv.Quote(s))
	i := 0
	positive := true
	if i < len(s) && s[i] == '-' {
		positive = false
		i++
	}
	if i >= len(s) {
		return 0, bad
	}
	var sig uint64
	exp := 0
	overflow := func(d uint64) bool {
		return sig > math.MaxUint64/10 || (sig == math.MaxUint64/10 && d > math.MaxUint64%10)
	}
	digit := func() (uint64, bool) {
		if i < len(s) && s[i] >= '0' && s[i] <= '9' {
			return uint64(s[i] - '0'), true
		}
		return 0, false
	}
	switch {
	case s[i] == '0':
		i++
		if _, ok := digit(); ok {
			return 0, bad
		}
	case s[i] >= '1' && s[i] <= '9':
		for {
			d, ok := digit()
			if !ok {
				break
			}
			if overflow(d) {
				// parse_long_integer: the remaining integer digits only
				// scale the value.
				for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
					exp++
				}
				break
			}
			sig = sig*10 + d
			i++
		}
	default:
		return 0, bad
	}
	isInt := true
	if i < len(s) && s[i] == '.' {
		isInt = false
		i++
		n := 0
		for {
			d, ok := digit()
			if !ok {
				break
			}
			if overflow(d) {
				for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
				}
				n = -1
				break
			}
			sig = sig*10 + d
			exp--
			i++
			n++
		}
		if n == 0 {
			return 0, bad
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		isInt = false
		i++
		posExp := true
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			posExp = s[i] == '+'
			i++
		}
		if _, ok := digit(); !ok {
			return 0, bad
		}
		e := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			d := int(s[i] - '0')
			if e > (math.MaxInt32-d)/10 {
				if sig != 0 && posExp {
					return 0, errors.New("number out of range " + strconv.Quote(s))
				}
				if positive {
					return 0, nil
				}
				return math.Copysign(0, -1), nil
			}
			e = e*10 + d
		}
		if posExp {
			exp = satAdd(exp, e)
		} else {
			exp = satAdd(exp, -e)
		}
	}
	if i != len(s) {
		return 0, bad
	}
	if isInt && exp == 0 {
		// Integers are read as u64/i64 and converted.
		if positive {
			return float64(sig), nil
		}
		if neg := -int64(sig); neg < 0 {
			return float64(neg), nil
		}
		return -float64(sig), nil
	}
	f := float64(sig)
	for {
		if a := absInt(exp); a < len(pow10Table()) {
			if exp >= 0 {
				f *= pow10Table()[a]
				if math.IsInf(f, 0) {
					return 0, errors.New("number out of range " + strconv.Quote(s))
				}
			} else {
				f /= pow10Table()[a]
			}
			break
		}
		if f == 0 {
			break
		}
		if exp >= 0 {
			return 0, errors.New("number out of range " + strconv.Quote(s))
		}
		f /= 1e308
		exp += 308
	}
	if !positive {
		f = -f
	}
	return f, nil
}

func satAdd(a, b int) int {
	c := a + b
	if c > math.MaxInt32 {
		return math.MaxInt32
	}
	if c < math.MinInt32 {
		return math.MinInt32
	}
	return c
}

func absInt(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// pow10Table holds 1e0..1e308 correctly rounded, like serde_json's POW10
// literals (math.Pow10 multiplies two table entries for large exponents).
var pow10Table = sync.OnceValue(func() []float64 {
	t := make([]float64, 309)
	for i := range t {
		t[i], _ = strconv.ParseFloat("1e"+strconv.Itoa(i), 64)
	}
	return t
})
