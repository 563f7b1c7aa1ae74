package inspect

import "time"

// SetClock sets the clock of h's sessions and sign-in limits, for tests.
func SetClock(h *Handler, now func() time.Time) { h.clock = now }
