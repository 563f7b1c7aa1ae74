package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// ProgressBar draws "\r  12000/200000 episodes  6%  4100/s" on a terminal.
type ProgressBar struct {
	On    bool // draw; false: Update and Finish do nothing
	Total int  // episodes in all; 0 when unknown
	w     io.Writer
	start time.Time
	last  time.Time
	width int // of the last line drawn
}

// NewProgressBar returns a bar drawing on w when on, started now.
func NewProgressBar(w io.Writer, on bool, total int) *ProgressBar {
	return &ProgressBar{w: w, On: on, Total: total, start: time.Now()}
}

// Update redraws the bar with done episodes, at most ten times a second.
func (p *ProgressBar) Update(done int) {
	if !p.On || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.draw(done)
}

func (p *ProgressBar) draw(done int) {
	p.last = time.Now()
	var line string
	if p.Total > 0 {
		line = fmt.Sprintf("  %d/%d episodes  %d%%  %s/s", done, p.Total, min(100, done*100/p.Total), Rate(done, time.Since(p.start)))
	} else {
		line = fmt.Sprintf("  %d episodes  %s/s", done, Rate(done, time.Since(p.start)))
	}
	pad := max(0, p.width-len(line))
	p.width = len(line)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
}

// Finish draws the final state and ends the line.
func (p *ProgressBar) Finish(done int) {
	if !p.On || p.last.IsZero() && done == 0 {
		return
	}
	p.draw(done)
	fmt.Fprintln(p.w)
}

// WithProgress runs a rebuild of a store (reindex, reembed), drawing its
// progress on w when show is set or w is a terminal, and returns how many
// episodes it did and how long it took.
func WithProgress(w io.Writer, show bool, run func(progress func(done, total int)) (int, error)) (int, time.Duration, error) {
	start := time.Now()
	bar := NewProgressBar(w, show || IsTerminal(w), 0)
	n, err := run(func(done, total int) {
		bar.Total = total
		bar.Update(done)
	})
	bar.Finish(n)
	return n, time.Since(start), err
}

// Rate formats n per elapsed second, "-" for no time.
func Rate(n int, elapsed time.Duration) string {
	if elapsed <= 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(n)/elapsed.Seconds(), 'f', 0, 64)
}

// HumanBytes formats n in binary units: "512 B", "1.5 KiB", "2.0 GiB".
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
