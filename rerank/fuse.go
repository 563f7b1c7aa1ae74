package rerank

import "github.com/omoide/omoide/rrf"

// List is one search's ranked episode ids, best first.
type List struct {
	IDs    []int64
	Vector bool // a vector (KNN) list, weighed by Fusion.KNNWeight or LexicalKNNWeight; else a BM25 list, weighing 1
	// Expanded: a BM25 list of the message's terms' learned neighbours,
	// weighed by Fusion.ExpansionWeight.
	Expanded bool
}

// Fuse fuses the lists, in the order given, into the candidates by descending
// fused score, ties in the order ids were first seen, at most MaxCandidates.
// lexical says the vector lists come from a lexical embedder.
func (f Fusion) Fuse(lists []List, lexical bool) []rrf.Scored {
	knn := f.VectorWeight(lexical)
	ids := make([][]int64, len(lists))
	weights := make([]float64, len(lists))
	for i, l := range lists {
		ids[i], weights[i] = l.IDs, 1
		switch {
		case l.Vector:
			weights[i] = knn
		case l.Expanded:
			weights[i] = f.ExpansionWeight
		}
	}
	return rrf.FuseWeighted(f.K, f.MaxCandidates, weights, ids...)
}

// VectorWeight is the fusion weight of the vector lists: 0 means the vector
// arm adds nothing and need not run.
func (f Fusion) VectorWeight(lexical bool) float64 {
	if lexical {
		return f.LexicalKNNWeight
	}
	return f.KNNWeight
}
