package rrf

import (
	"math"
	"slices"
	"testing"
)

func ids(s []Scored) []int64 {
	out := make([]int64, len(s))
	for i, x := range s {
		out[i] = x.ID
	}
	return out
}

func TestFuse(t *testing.T) {
	tests := []struct {
		name  string
		lists [][]int64
		limit int
		want  []int64
	}{
		{"single list keeps its order", [][]int64{{3, 1, 2}}, 0, []int64{3, 1, 2}},
		// 1: 1/61+1/62, 2: 1/62+1/61 (tie, 1 seen first), 3: 1/63
		{"tie keeps first-seen order", [][]int64{{1, 2, 3}, {2, 1}}, 0, []int64{1, 2, 3}},
		{"tie keeps first-seen order, reversed", [][]int64{{2, 1}, {1, 2, 3}}, 0, []int64{2, 1, 3}},
		// 5 only in list 2 at rank 1 (1/61) ties 4 at rank 1 of list 1 (1/61); 4 seen first.
		{"tie across lists", [][]int64{{4}, {5}}, 0, []int64{4, 5}},
		// 9 is in three lists at rank 3: 3/63 > 1/61 of 7.
		{"agreement beats one top rank", [][]int64{{7, 8, 9}, {6, 8, 9}, {1, 2, 9}}, 0, []int64{9, 8, 7, 6, 1, 2}},
		{"limit", [][]int64{{1, 2, 3, 4}}, 2, []int64{1, 2}},
		{"empty", nil, 0, []int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(Fuse(DefaultK, tt.limit, tt.lists...))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Fuse = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFuseScores(t *testing.T) {
	got := Fuse(60, 0, []int64{10, 20}, []int64{20})
	want := map[int64]float64{10: 1.0 / 61, 20: 1.0/62 + 1.0/61}
	for _, s := range got {
		if math.Abs(s.Score-want[s.ID]) > 1e-15 {
			t.Errorf("score of %d = %v, want %v", s.ID, s.Score, want[s.ID])
		}
	}
	if got[0].ID != 20 {
		t.Errorf("top = %d, want 20", got[0].ID)
	}
	// k <= 0 falls back to DefaultK.
	if Fuse(0, 0, []int64{1})[0].Score != 1.0/61 {
		t.Error("k=0 did not use DefaultK")
	}
}

func BenchmarkFuse(b *testing.B) {
	var lists [4][]int64
	for l := range lists {
		for r := range 20 {
			lists[l] = append(lists[l], int64((l*7+r*3)%50))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		Fuse(DefaultK, 60, lists[:]...)
	}
}

func TestFuseWeighted(t *testing.T) {
	tests := []struct {
		name    string
		weights []float64
		lists   [][]int64
		want    []int64
		score1  float64 // the score of id 1
	}{
		// Equal weights are Fuse: 2 is in both lists and wins.
		{"nil weights", nil, [][]int64{{1, 2}, {2, 3}}, []int64{2, 1, 3}, 1.0 / 61},
		// Two top ranks tie (first seen wins) until a weight tells them apart.
		{"equal weights tie", []float64{1, 1}, [][]int64{{1}, {2}}, []int64{1, 2}, 1.0 / 61},
		{"half weight", []float64{0.5, 1}, [][]int64{{1}, {2}}, []int64{2, 1}, 0.5 / 61},
		// Weight 0 drops a list, ids it alone holds included.
		{"zero weight", []float64{0, 1}, [][]int64{{1, 2}, {2, 3}}, []int64{2, 3}, 0},
		// A missing weight is 1.
		{"short weights", []float64{2}, [][]int64{{1}, {3}}, []int64{1, 3}, 2.0 / 61},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FuseWeighted(DefaultK, 0, tt.weights, tt.lists...)
			if !slices.Equal(ids(got), tt.want) {
				t.Fatalf("FuseWeighted = %v, want %v", ids(got), tt.want)
			}
			for _, s := range got {
				if s.ID == 1 && math.Abs(s.Score-tt.score1) > 1e-15 {
					t.Errorf("score of 1 = %v, want %v", s.Score, tt.score1)
				}
			}
		})
	}
}
