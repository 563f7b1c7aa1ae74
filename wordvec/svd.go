package wordvec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// randomizedSVD returns the rows U·Σ^SingularPower of m's truncated SVD of
// rank dim, by Halko, Martinsson and Tropp's (2011) randomized range finder
// with power iterations (their algorithms 4.4 and 5.1): Y = M·Ω for a
// Gaussian Ω of dim+Oversample columns, Q = qr(Y), then PowerIterations
// times Q = qr(M·qr(Mᵀ·Q)); finally the SVD of the small Qᵀ·M = W·Σ·Vᵀ
// gives U = Q·W. Only products of m with thin dense matrices are formed.
func randomizedSVD(ctx context.Context, m *csr, dim int, o Options) (*mat.Dense, error) {
	n := m.rows
	l := min(dim+o.Oversample, n)
	rng := rand.New(rand.NewPCG(o.Seed, 0x6f6d6f6964652d77)) // "omoide-w"
	omega := mat.NewDense(n, l, nil)
	raw := omega.RawMatrix()
	for i := range raw.Data {
		raw.Data[i] = rng.NormFloat64()
	}
	mt := m.transpose()
	q := mat.NewDense(n, l, nil)
	if err := m.mul(ctx, q, omega, o.Workers); err != nil {
		return nil, fmt.Errorf("wordvec: svd: %w", err)
	}
	z := omega // reused: Mᵀ·Q
	orthonormalize(q)
	for range o.PowerIterations {
		if err := mt.mul(ctx, z, q, o.Workers); err != nil {
			return nil, fmt.Errorf("wordvec: svd power iteration: %w", err)
		}
		orthonormalize(z)
		if err := m.mul(ctx, q, z, o.Workers); err != nil {
			return nil, fmt.Errorf("wordvec: svd power iteration: %w", err)
		}
		orthonormalize(q)
	}
	bt := z // (Qᵀ·M)ᵀ = Mᵀ·Q
	if err := mt.mul(ctx, bt, q, o.Workers); err != nil {
		return nil, fmt.Errorf("wordvec: svd: %w", err)
	}
	var svd mat.SVD
	if !svd.Factorize(bt, mat.SVDThinV) {
		return nil, errors.New("wordvec: svd of the projected matrix did not converge")
	}
	var w mat.Dense
	svd.VTo(&w) // Mᵀ·Q = U'·Σ·Wᵀ, so Qᵀ·M = W·Σ·U'ᵀ: W is the left factor
	sv := svd.Values(nil)
	rows := mat.NewDense(n, dim, nil)
	rows.Mul(q, w.Slice(0, l, 0, dim))
	for k := range dim {
		weight := math.Pow(sv[k], o.SingularPower)
		for i := range n {
			rows.Set(i, k, rows.At(i, k)*weight)
		}
	}
	return rows, ctx.Err()
}

// orthonormalize replaces a (n×l, n ≥ l) by the Q of its thin QR
// factorisation: an orthonormal basis of its columns.
func orthonormalize(a *mat.Dense) {
	raw := a.RawMatrix()
	g := blas64.General{Rows: raw.Rows, Cols: raw.Cols, Stride: raw.Stride, Data: raw.Data}
	tau := make([]float64, raw.Cols)
	work := []float64{0}
	lapack64.Geqrf(g, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(g, tau, work, len(work))
	lapack64.Orgqr(g, tau, work[:1], -1)
	if need := int(work[0]); need > len(work) {
		work = make([]float64, need)
	}
	lapack64.Orgqr(g, tau, work, len(work))
}
