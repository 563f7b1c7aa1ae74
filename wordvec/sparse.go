package wordvec

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// csr is a sparse square matrix in compressed sparse row form: row i's
// columns are cols[start[i]:start[i+1]], in increasing order, with their
// values in vals.
type csr struct {
	rows  int
	start []int
	cols  []int32
	vals  []float32
}

// rowChunk is how many rows a goroutine builds or multiplies at a time.
const rowChunk = 64

// buildRows builds an n×n csr row by row with workers goroutines: row(i,
// scratch, touched) adds row i's values into scratch (n zeros) and returns
// touched with the columns it made nonzero appended. Chunks of rows are
// assembled in order, so the result does not depend on the scheduling.
func buildRows(ctx context.Context, n, workers int, row func(i int, scratch []float32, touched []int32) []int32) (*csr, error) {
	type chunk struct {
		lens []int
		cols []int32
		vals []float32
	}
	chunks := make([]chunk, (n+rowChunk-1)/rowChunk)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Go(func() {
			scratch := make([]float32, n)
			var touched []int32
			for {
				c := int(next.Add(1) - 1)
				if c >= len(chunks) || ctx.Err() != nil {
					return
				}
				var ch chunk
				for i := c * rowChunk; i < min(n, (c+1)*rowChunk); i++ {
					touched = row(i, scratch, touched[:0])
					slices.Sort(touched)
					for _, j := range touched {
						ch.cols = append(ch.cols, j)
						ch.vals = append(ch.vals, scratch[j])
						scratch[j] = 0
					}
					ch.lens = append(ch.lens, len(touched))
				}
				chunks[c] = ch
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	nnz := 0
	for _, ch := range chunks {
		nnz += len(ch.cols)
	}
	m := &csr{rows: n, start: make([]int, n+1), cols: make([]int32, 0, nnz), vals: make([]float32, 0, nnz)}
	i := 0
	for c := range chunks {
		for _, k := range chunks[c].lens {
			m.start[i+1] = m.start[i] + k
			i++
		}
		m.cols = append(m.cols, chunks[c].cols...)
		m.vals = append(m.vals, chunks[c].vals...)
		chunks[c] = chunk{}
	}
	return m, nil
}

// transpose returns mᵀ.
func (m *csr) transpose() *csr {
	t := &csr{rows: m.rows, start: make([]int, m.rows+1), cols: make([]int32, len(m.cols)), vals: make([]float32, len(m.vals))}
	for _, c := range m.cols {
		t.start[c+1]++
	}
	for i := range m.rows {
		t.start[i+1] += t.start[i]
	}
	next := slices.Clone(t.start[:m.rows])
	for i := range m.rows {
		for k := m.start[i]; k < m.start[i+1]; k++ {
			c := m.cols[k]
			t.cols[next[c]], t.vals[next[c]] = int32(i), m.vals[k]
			next[c]++
		}
	}
	return t
}

// mul sets dst = m·d, rows in parallel with workers goroutines; dst must be
// m.rows×d's columns and not d. Each row is summed by one goroutine in
// column order, so the result does not depend on the scheduling.
func (m *csr) mul(ctx context.Context, dst, d *mat.Dense, workers int) error {
	dr, dc := d.Dims()
	if r, c := dst.Dims(); dr != m.rows || r != m.rows || c != dc {
		return fmt.Errorf("wordvec: multiplying a %d×%d sparse matrix by %d×%d into %d×%d", m.rows, m.rows, dr, dc, r, c)
	}
	out := dst.RawMatrix()
	in := d.RawMatrix()
	impl := blas64.Implementation()
	chunks := (m.rows + rowChunk - 1) / rowChunk
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks || ctx.Err() != nil {
					return
				}
				for i := c * rowChunk; i < min(m.rows, (c+1)*rowChunk); i++ {
					row := out.Data[i*out.Stride : i*out.Stride+dc]
					clear(row)
					for k := m.start[i]; k < m.start[i+1]; k++ {
						j := int(m.cols[k])
						impl.Daxpy(dc, float64(m.vals[k]), in.Data[j*in.Stride:j*in.Stride+dc], 1, row, 1)
					}
				}
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}
