package hftokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// precompiled is sentencepiece's normalization spec as the Rust crate reads
// it (spm_precompiled): a little-endian uint32 trie size in bytes, a
// darts-clone double-array trie of that size whose values are offsets into
// the rest of the blob, a pool of NUL-terminated replacement strings.
type precompiled struct {
	units []uint32
	pool  string
}

func parsePrecompiled(b64 string) (*precompiled, error) {
	blob, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("precompiled_charsmap is not base64: %w", err)
	}
	return decodeCharsmap(blob)
}

func decodeCharsmap(blob []byte) (*precompiled, error) {
	if len(blob) < 4 {
		return nil, errors.New("precompiled_charsmap is too short")
	}
	n := int(binary.LittleEndian.Uint32(blob) / 4)
	if n == 0 {
		return nil, errors.New("precompiled_charsmap has an empty trie")
	}
	if n > (len(blob)-4)/4 {
		return nil, fmt.Errorf("precompiled_charsmap trie of %d units exceeds the %d-byte blob", n, len(blob))
	}
	units := make([]uint32, n)
	for i := range units {
		units[i] = binary.LittleEndian.Uint32(blob[4+4*i:])
	}
	pool := blob[4+4*n:]
	if !utf8.Valid(pool) {
		return nil, errors.New("precompiled_charsmap replacement strings are not valid UTF-8")
	}
	return &precompiled{units: units, pool: string(pool)}, nil
}

func unitOffset(u uint32) int { return int(u>>10) << ((u & (1 << 9)) >> 6) }

// transform returns the replacement of the shortest key that is a prefix of
// chunk, as spm_precompiled does (it takes the first common-prefix result).
// Positions outside a malformed trie count as no match.
func (p *precompiled) transform(chunk string) (string, bool) {
	pos := unitOffset(p.units[0])
	for i := 0; i < len(chunk); i++ {
		c := chunk[i]
		if c == 0 {
			break
		}
		pos ^= int(c)
		if pos >= len(p.units) {
			return "", false
		}
		u := p.units[pos]
		if u&(1<<31|0xFF) != uint32(c) {
			return "", false
		}
		pos ^= unitOffset(u)
		if u>>8&1 == 1 {
			if pos >= len(p.units) {
				return "", false
			}
			start := int(p.units[pos] & (1<<31 - 1))
			if start > len(p.pool) {
				return "", false
			}
			end := start
			for end < len(p.pool) && p.pool[end] != 0 {
				end++
			}
			if !isBoundary(p.pool, start) || !isBoundary(p.pool, end) {
				return "", false
			}
			return p.pool[start:end], true
		}
	}
	return "", false
}

// normalize applies the charsmap per grapheme cluster shorter than six
// bytes, else per char, recording the changes like the crate.
func (p *precompiled) normalize(n *normString) {
	s := n.norm
	dest := make([]change, 0, len(s))
	modified := false
	for i := 0; i < len(s); {
		g := s[i : i+nextGrapheme(s[i:])]
		i += len(g)
		if len(g) < 6 {
			if repl, ok := p.transform(g); ok {
				modified = true
				dest = replaceChanges(dest, g, repl)
				continue
			}
		}
		for j, r := range g {
			part := g[j : j+utf8.RuneLen(r)]
			if repl, ok := p.transform(part); ok {
				modified = true
				dest = replaceChanges(dest, part, repl)
			} else {
				dest = append(dest, change{r, 0})
			}
		}
	}
	if modified {
		n.transform(dest, 0)
	}
}

// replaceChanges records old -> repl: extra chars count as insertions, fewer
// chars as a removal carried by the last recorded change (even one from an
// earlier cluster, as in the crate).
func replaceChanges(dest []change, old, repl string) []change {
	diff := utf8.RuneCountInString(repl) - utf8.RuneCountInString(old)
	for _, r := range repl {
		dest = append(dest, change{r, 0})
	}
	switch {
	case diff > 0:
		for k := 0; k < diff && k < len(dest); k++ {
			dest[len(dest)-1-k].n = 1
		}
	case diff < 0:
		if len(dest) > 0 {
			dest[len(dest)-1].n += diff
		}
	}
	return dest
}
