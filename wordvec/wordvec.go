// Package wordvec learns word vectors for an analyzer's own terms from
// conversation text, and reads and writes them.
//
// The vectors are for exactly the terms a store's full-text index holds: the
// space-separated terms of tokenize.Analyzer's Index of a message and of its
// reply. The method is the count-based baseline of Levy, Goldberg and Dagan
// (2015), "Improving Distributional Similarity with Lessons Learned from Word
// Embeddings": co-occurrence counts of the terms seen at least MinCount times
// (every pair of distinct terms of an exchange, or of terms at most Window
// apart in it), positive pointwise mutual information with the context
// distribution smoothed (counts raised to ContextSmoothing, 0.75), truncated
// to Dim dimensions by a randomized SVD (Halko, Martinsson and Tropp 2011:
// a seeded Gaussian projection, PowerIterations power iterations with QR
// between them, a small dense SVD), each term's row of U weighted by the
// singular values raised to SingularPower and normalised to unit length.
//
// The counts and the PPMI matrix are sparse; the SVD multiplies the sparse
// matrix with dense matrices of Dim+Oversample columns only, so memory grows
// with the pairs seen, never with the vocabulary squared. Learning is
// deterministic: the same exchanges, analyzer and Options give the same
// vectors, byte for byte, on one platform (rows are computed in parallel but
// each by one goroutine in a fixed order).
//
// Vectors are written in a compact binary format (Write, Read): each row
// quantised to int8 with a per-row float32 scale, a quarter of float32's size
// and half of float16's, at a cosine error far below the differences the
// neighbours are ranked by (see the test); the learning parameters and a
// SHA-256 fingerprint of the content travel with them.
package wordvec

import (
	"fmt"
	"math"
)

// Defaults of Options, applied where a field is zero.
const (
	// DefaultDim is the number of dimensions kept: the measured baseline's.
	DefaultDim = 256
	// DefaultMinCount is how many times a term must be seen to get a vector;
	// rarer terms are noise (a term in 9 exchanges has no reliable contexts).
	DefaultMinCount = 5
	// DefaultContextSmoothing is the exponent of the context counts in PPMI,
	// 0.75 as in Levy, Goldberg and Dagan (2015): it lowers the PMI of
	// pairs with a rare context, which raw PMI overrates.
	DefaultContextSmoothing = 0.75
	// DefaultSingularPower is the exponent of the singular values that
	// weight the rows (Levy et al.'s "eigenvalue weighting"; 1 is the plain
	// U·Σ, 0 the rows of U).
	DefaultSingularPower = 0.5
	// DefaultOversample is how many more random directions than Dim the
	// randomized SVD projects on (Halko et al. suggest 5 to 10).
	DefaultOversample = 10
	// DefaultPowerIterations is the number of power iterations of the
	// randomized SVD: the spectrum of a PPMI matrix decays slowly, and each
	// iteration sharpens the subspace found (Halko et al., section 4.5).
	DefaultPowerIterations = 2
	// DefaultSeed seeds the random projection.
	DefaultSeed = 1
)

// Options configure learning. The zero value learns with every default.
type Options struct {
	// Dim is the number of dimensions of a vector; 0 means DefaultDim. A
	// vocabulary smaller than Dim gets as many dimensions as it has terms.
	Dim int
	// MinCount is the number of times a term must be seen (repeats
	// counted) to get a vector; 0 means DefaultMinCount.
	MinCount int
	// Window is 0 to count every pair of distinct terms of an exchange
	// (message and reply together) once; n > 0 counts each pair of terms
	// at most n positions apart within an exchange, each time they are.
	Window int
	// ContextSmoothing is the exponent of the context counts in PPMI; 0
	// means DefaultContextSmoothing, 1 is plain PPMI.
	ContextSmoothing float64
	// SingularPower is the exponent of the singular values that weight the
	// rows; 0 means DefaultSingularPower, a negative value means 0 (the rows
	// of U, unweighted).
	SingularPower float64
	// Oversample is the number of random directions beyond Dim; 0 means
	// DefaultOversample.
	Oversample int
	// PowerIterations is the number of power iterations; 0 means
	// DefaultPowerIterations, a negative value none.
	PowerIterations int
	// Seed seeds the random projection; 0 means DefaultSeed.
	Seed uint64
	// Workers is the number of goroutines that analyze and multiply; 0
	// means GOMAXPROCS. It does not change the result.
	Workers int
}

// resolved returns o with its defaults applied, or an error for a value out
// of range.
func (o Options) resolved() (Options, error) {
	switch {
	case o.Dim < 0:
		return o, fmt.Errorf("wordvec: Dim %d is negative", o.Dim)
	case o.MinCount < 0:
		return o, fmt.Errorf("wordvec: MinCount %d is negative", o.MinCount)
	case o.Window < 0:
		return o, fmt.Errorf("wordvec: Window %d is negative", o.Window)
	case o.Oversample < 0:
		return o, fmt.Errorf("wordvec: Oversample %d is negative", o.Oversample)
	case o.Workers < 0:
		return o, fmt.Errorf("wordvec: Workers %d is negative", o.Workers)
	case o.ContextSmoothing < 0 || o.ContextSmoothing > 1 || math.IsNaN(o.ContextSmoothing):
		return o, fmt.Errorf("wordvec: ContextSmoothing %v is not in [0, 1]", o.ContextSmoothing)
	case math.IsNaN(o.SingularPower) || math.IsInf(o.SingularPower, 0):
		return o, fmt.Errorf("wordvec: SingularPower %v is not a number", o.SingularPower)
	case o.Dim > MaxDim:
		return o, fmt.Errorf("wordvec: Dim %d is above %d", o.Dim, MaxDim)
	}
	if o.Dim == 0 {
		o.Dim = DefaultDim
	}
	if o.MinCount == 0 {
		o.MinCount = DefaultMinCount
	}
	if o.ContextSmoothing == 0 {
		o.ContextSmoothing = DefaultContextSmoothing
	}
	if o.SingularPower == 0 {
		o.SingularPower = DefaultSingularPower
	} else if o.SingularPower < 0 {
		o.SingularPower = 0
	}
	if o.Oversample == 0 {
		o.Oversample = DefaultOversample
	}
	if o.PowerIterations == 0 {
		o.PowerIterations = DefaultPowerIterations
	} else if o.PowerIterations < 0 {
		o.PowerIterations = 0
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	return o, nil
}

// Params are how a set of vectors was learned, as its file records them:
// the Options with their defaults applied, the analyzer, and what was read.
type Params struct {
	Analyzer         string  `json:"analyzer"`          // the tokenize.Analyzer's Name
	Dim              int     `json:"dim"`               // dimensions kept (at most Options.Dim)
	MinCount         int     `json:"min_count"`         // Options.MinCount
	Window           int     `json:"window"`            // Options.Window (0: the whole exchange)
	ContextSmoothing float64 `json:"context_smoothing"` // Options.ContextSmoothing
	SingularPower    float64 `json:"singular_power"`    // Options.SingularPower (0: unweighted)
	Oversample       int     `json:"oversample"`        // Options.Oversample
	PowerIterations  int     `json:"power_iterations"`  // Options.PowerIterations
	Seed             uint64  `json:"seed"`              // Options.Seed
	Exchanges        int     `json:"exchanges"`         // exchanges read
	Tokens           int64   `json:"tokens"`            // terms read, repeats counted
	// Corpus is the SHA-256 (hex) of the analyzed exchanges, in the order
	// read: equal for the same text, analyzer and order.
	Corpus string `json:"corpus"`
}

// Exchange is one exchange of a conversation: a person's message and the
// reply to it.
type Exchange struct {
	Message string
	Reply   string
}
