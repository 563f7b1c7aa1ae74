package rerank

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// FitOptions are the ensemble's size and regularization.
type FitOptions struct {
	Trees        int     // boosting rounds; must be set
	Depth        int     // splits from the root to a leaf; must be set
	LearningRate float64 // each tree's share; must be set
	// MinHessian is the least Σ p(1-p) a leaf holds (about the number of
	// uncertain examples in it); 0 bounds nothing.
	MinHessian float64
	// L2 shrinks every leaf towards 0, as if it held L2 more examples of
	// no gradient; 0 shrinks nothing.
	L2 float64
}

// DefaultFitOptions are the sizes cmd/bench train fits with.
func DefaultFitOptions() FitOptions {
	return FitOptions{Trees: 120, Depth: 3, LearningRate: 0.1, MinHessian: 5, L2: 1}
}

// Fit fits a Model of P(y = 1 | x) on the rows of xs (NumFeatures each) and
// their labels ys (0 or 1): gradient-boosted regression trees with the
// logistic loss, then Platt scaling of their log-odds on the same rows. It is
// deterministic: the same rows give the same model.
func Fit(xs [][]float64, ys []float64, o FitOptions) (*Model, error) {
	n := len(xs)
	if n == 0 || len(ys) != n {
		return nil, fmt.Errorf("rerank: fit: %d rows, %d labels", n, len(ys))
	}
	if o.Trees <= 0 || o.Depth <= 0 || o.LearningRate <= 0 {
		return nil, errors.New("rerank: fit: Trees, Depth and LearningRate must be set")
	}
	pos, width := 0.0, NumFeatures
	for i, y := range ys {
		if y != 0 && y != 1 {
			return nil, fmt.Errorf("rerank: fit: label %d is %v, want 0 or 1", i, y)
		}
		if len(xs[i]) != width {
			return nil, fmt.Errorf("rerank: fit: row %d has %d features, want %d", i, len(xs[i]), width)
		}
		pos += y
	}
	if pos == 0 || pos == float64(n) {
		return nil, errors.New("rerank: fit: the labels are all alike")
	}
	// Each feature's row order, sorted once, and its values in that order
	// (read in sequence, not row by row).
	order, vals := make([][]int32, width), make([][]float64, width)
	for f := range order {
		ord := make([]int32, n)
		for i := range ord {
			ord[i] = int32(i)
		}
		slices.SortStableFunc(ord, func(a, b int32) int { return cmp.Compare(xs[a][f], xs[b][f]) })
		order[f] = ord
		vals[f] = make([]float64, n)
		for k, r := range ord {
			vals[f][k] = xs[r][f]
		}
	}
	m := &Model{Features: slices.Clone(FeatureNames), Bias: math.Log(pos / (float64(n) - pos))}
	z := make([]float64, n)
	for i := range z {
		z[i] = m.Bias
	}
	g, h := make([]float64, n), make([]float64, n)
	node := make([]int32, n) // the node each row is at in the tree being grown
	for range o.Trees {
		for i := range n {
			p := sigmoid(z[i])
			g[i], h[i] = p-ys[i], p*(1-p)
		}
		t := growTree(xs, g, h, order, vals, node, o)
		for i := range n {
			z[i] += t.Nodes[node[i]].Value
		}
		m.Trees = append(m.Trees, t)
	}
	m.Scale, m.Shift = plattScale(z, ys)
	return m, nil
}

// growTree grows one tree level by level on gradients g and hessians h;
// order and vals are each feature's rows and values, sorted; node ends
// holding each row's leaf.
func growTree(xs [][]float64, g, h []float64, order [][]int32, vals [][]float64, node []int32, o FitOptions) Tree {
	clear(node)
	t := Tree{Nodes: []Node{{Feature: -1}}}
	level := []int32{0} // the nodes that may split
	for range o.Depth {
		// Per node of the tree so far (a few dozen at most): whether it may
		// split, its sums, and its best split.
		k := len(t.Nodes)
		active := make([]bool, k)
		for _, nd := range level {
			active[nd] = true
		}
		sumG, sumH := make([]float64, k), make([]float64, k)
		for i := range g {
			sumG[node[i]] += g[i]
			sumH[node[i]] += h[i]
		}
		score := func(G, H float64) float64 { return G * G / (H + o.L2) }
		// The features' scans run in contiguous parts at once; each part
		// keeps its first best split per node, and a later part's wins only
		// when strictly better: the splits a scan in feature order finds.
		parts := min(runtime.GOMAXPROCS(0), len(order))
		bests := make([]split, parts*k)
		var wg sync.WaitGroup
		for p := range parts {
			wg.Go(func() {
				best := bests[p*k : (p+1)*k]
				for i := range best {
					best[i].feat = -1
				}
				leftG, leftH, last, seen := make([]float64, k), make([]float64, k), make([]float64, k), make([]bool, k)
				for f := p * len(order) / parts; f < (p+1)*len(order)/parts; f++ {
					clear(leftG)
					clear(leftH)
					clear(seen)
					fv := vals[f]
					for j, r := range order[f] {
						nd := node[r]
						if !active[nd] {
							continue
						}
						v := fv[j]
						if seen[nd] && last[nd] < v {
							lg, lh := leftG[nd], leftH[nd]
							rg, rh := sumG[nd]-lg, sumH[nd]-lh
							if lh >= o.MinHessian && rh >= o.MinHessian {
								if gn := score(lg, lh) + score(rg, rh) - score(sumG[nd], sumH[nd]); gn > best[nd].gain {
									best[nd] = split{gain: gn, feat: f, thr: (last[nd] + v) / 2}
								}
							}
						}
						leftG[nd] += g[r]
						leftH[nd] += h[r]
						last[nd], seen[nd] = v, true
					}
				}
			})
		}
		wg.Wait()
		gain, thr, feat := make([]float64, k), make([]float64, k), make([]int, k)
		for i := range feat {
			feat[i] = -1
		}
		for p := range parts {
			for nd, b := range bests[p*k : (p+1)*k] {
				if b.feat >= 0 && b.gain > gain[nd] {
					gain[nd], feat[nd], thr[nd] = b.gain, b.feat, b.thr
				}
			}
		}
		var next []int32
		for _, nd := range level {
			if feat[nd] < 0 {
				continue
			}
			l, r := len(t.Nodes), len(t.Nodes)+1
			t.Nodes[nd] = Node{Feature: feat[nd], Threshold: thr[nd], Left: l, Right: r}
			t.Nodes = append(t.Nodes, Node{Feature: -1}, Node{Feature: -1})
			next = append(next, int32(l), int32(r))
		}
		if len(next) == 0 {
			break
		}
		for i := range node {
			if n := t.Nodes[node[i]]; n.Feature >= 0 {
				if xs[i][n.Feature] < n.Threshold {
					node[i] = int32(n.Left)
				} else {
					node[i] = int32(n.Right)
				}
			}
		}
		level = next
	}
	// Leaf values: a Newton step, shrunk by the learning rate.
	G, H := make([]float64, len(t.Nodes)), make([]float64, len(t.Nodes))
	for i := range g {
		G[node[i]] += g[i]
		H[node[i]] += h[i]
	}
	for i := range t.Nodes {
		if t.Nodes[i].Feature < 0 {
			t.Nodes[i].Value = -o.LearningRate * G[i] / (H[i] + o.L2)
		}
	}
	return t
}

// split is a node's best split found so far: its gain, feature and
// threshold (feat -1: none).
type split struct {
	gain, thr float64
	feat      int
}

// plattScale fits P = sigmoid(a·z + b) to the labels by Newton's method on
// the log-loss (Platt scaling; gonum/optimize), from a = 1, b = 0: the
// trees' own log-odds.
func plattScale(z, ys []float64) (a, b float64) {
	logLoss := func(x []float64) float64 {
		var l float64
		for i, zi := range z {
			t := x[0]*zi + x[1] // log(1+e^t) − y·t, stable for either sign of t
			l += max(t, 0) + math.Log1p(math.Exp(-math.Abs(t))) - ys[i]*t
		}
		return l
	}
	grad := func(g, x []float64) {
		g[0], g[1] = 0, 0
		for i, zi := range z {
			d := sigmoid(x[0]*zi+x[1]) - ys[i]
			g[0] += d * zi
			g[1] += d
		}
	}
	hess := func(h *mat.SymDense, x []float64) {
		var haa, hab, hbb float64
		for _, zi := range z {
			p := sigmoid(x[0]*zi + x[1])
			w := max(p*(1-p), 1e-12)
			haa += w * zi * zi
			hab += w * zi
			hbb += w
		}
		h.SetSym(0, 0, haa)
		h.SetSym(0, 1, hab)
		h.SetSym(1, 1, hbb)
	}
	// The gradient is a sum over the rows: its bound grows with them. A line
	// search that can lower the loss no further ends with an error at its
	// best point: res.X is the fit either way.
	res, _ := optimize.Minimize(optimize.Problem{Func: logLoss, Grad: grad, Hess: hess}, []float64{1, 0},
		&optimize.Settings{GradientThreshold: 1e-10 * float64(len(z)), MajorIterations: 100}, &optimize.Newton{})
	if res == nil || len(res.X) != 2 || math.IsNaN(res.X[0]+res.X[1]) {
		return 1, 0 // the trees' log-odds as they are
	}
	return res.X[0], res.X[1]
}

// Bin is one bin of a reliability table.
type Bin struct {
	From, To  float64 // the predicted probabilities it holds, [From, To)
	N         int     // how many
	Predicted float64 // their mean predicted probability
	Observed  float64 // the share of them that is relevant
}

// Reliability returns the reliability table of predictions ps against labels
// ys in bins equal-width bins, and the expected calibration error: Σ over the
// bins of N/total · |Observed − Predicted|.
func Reliability(ps, ys []float64, bins int) ([]Bin, float64) {
	out := make([]Bin, bins)
	for i := range out {
		out[i].From, out[i].To = float64(i)/float64(bins), float64(i+1)/float64(bins)
	}
	for i, p := range ps {
		k := min(bins-1, int(p*float64(bins)))
		out[k].N++
		out[k].Predicted += p
		out[k].Observed += ys[i]
	}
	ece := 0.0
	for i := range out {
		if b := &out[i]; b.N > 0 {
			b.Predicted /= float64(b.N)
			b.Observed /= float64(b.N)
			ece += float64(b.N) / float64(len(ps)) * math.Abs(b.Observed-b.Predicted)
		}
	}
	return out, ece
}
