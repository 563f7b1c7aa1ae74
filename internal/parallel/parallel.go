// Package parallel runs independent CPU-bound work items on every core.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// MinItems is the smallest n For spreads over goroutines; smaller jobs run
// inline, where starting goroutines would cost more than it saves.
const MinItems = 16

// For calls fn(i) for every i in [0, n), on up to GOMAXPROCS goroutines, and
// returns when all calls have returned. The calls must be independent.
func For(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if n < MinItems || workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}
