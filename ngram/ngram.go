// Package ngram builds sets of character n-grams over Unicode code points and
// compares them with the Dice coefficient, as the reference reranker does with
// Python sets of string slices.
//
// A Set is a sorted slice of unique keys. Each key packs up to three code
// points exactly (21 bits each), so two n-grams share a key only when they are
// the same string: no hashing, no collisions, and no map on the hot path.
package ngram

import (
	"slices"
	"unicode/utf8"
)

// MaxN is the largest n-gram size a Set can hold exactly.
const MaxN = 3

// Set is a sorted slice of unique n-gram keys. The zero value is the empty set.
type Set []uint64

// Len returns the number of unique n-grams in s.
func (s Set) Len() int { return len(s) }

// New returns the set of character n-grams of text, 1 <= n <= MaxN (n outside
// that range is clamped). As in the reference, a text of at most n code points
// is its own single n-gram and the empty text has none. text is used as is: the
// caller compacts or clips it first.
func New(text string, n int) Set {
	return Append(nil, text, n)
}

// Append is New that reuses dst's storage; dst's contents are discarded.
func Append(dst Set, text string, n int) Set {
	n = min(max(n, 1), MaxN)
	dst = dst[:0]
	// A text of r runes has at most r n-grams: grow once, not by doubling.
	if r := utf8.RuneCountInString(text); cap(dst) < r {
		dst = make(Set, 0, r)
	}
	var window [MaxN]rune
	count := 0
	for _, r := range text {
		if count < n {
			window[count] = r
			count++
			if count == n {
				dst = append(dst, pack(window[:n]))
			}
			continue
		}
		copy(window[:n-1], window[1:n])
		window[n-1] = r
		count++
		dst = append(dst, pack(window[:n]))
	}
	if count > 0 && count < n {
		dst = append(dst, pack(window[:count]))
	}
	slices.Sort(dst)
	return Set(slices.Compact(dst))
}

// pack encodes up to three code points as (r+1) in 21-bit fields, so that
// shorter grams never collide with longer ones.
func pack(rs []rune) uint64 {
	var k uint64
	for _, r := range rs {
		k = k<<21 | uint64(r+1)&(1<<21-1)
	}
	return k
}

// Intersection returns |a ∩ b|.
func Intersection(a, b Set) int {
	i, j, n := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// Dice returns 2|a ∩ b| / (|a| + |b|), and 0 when either set is empty.
func Dice(a, b Set) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return 2 * float64(Intersection(a, b)) / float64(len(a)+len(b))
}
