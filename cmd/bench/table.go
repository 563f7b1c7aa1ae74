package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// table is a human table: the first left columns are left-aligned text, the
// rest right-aligned figures.
type table struct {
	header []string
	left   int
	rows   [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write renders the table as aligned text, or as a Markdown table when md.
func (t *table) write(w io.Writer, md bool) {
	widths := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], utf8.RuneCountInString(c))
			}
		}
	}
	line := func(r []string) string {
		cells := make([]string, len(widths))
		for i := range widths {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i < t.left {
				cells[i] = c + pad
			} else {
				cells[i] = pad + c
			}
		}
		if md {
			return "| " + strings.Join(cells, " | ") + " |"
		}
		return strings.TrimRight(strings.Join(cells, "  "), " ")
	}
	fmt.Fprintln(w, line(t.header))
	if md {
		seps := make([]string, len(widths))
		for i, wd := range widths {
			if i < t.left {
				seps[i] = strings.Repeat("-", max(3, wd))
			} else {
				seps[i] = strings.Repeat("-", max(3, wd)-1) + ":"
			}
		}
		fmt.Fprintln(w, "| "+strings.Join(seps, " | ")+" |")
	} else {
		total := 0
		for _, wd := range widths {
			total += wd + 2
		}
		fmt.Fprintln(w, strings.Repeat("-", max(0, total-2)))
	}
	for _, r := range t.rows {
		fmt.Fprintln(w, line(r))
	}
}

// f3 formats a fraction with three decimals.
func f3(v float64) string { return fmt.Sprintf("%.3f", v) }

// ms formats a duration in milliseconds.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v == 0:
		return "0"
	case v < 0.1:
		return fmt.Sprintf("%.3f", v)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// durMS is a duration in milliseconds, for JSON.
func durMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// mib formats a byte count in MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
