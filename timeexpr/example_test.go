package timeexpr_test

import (
	"fmt"
	"time"

	"github.com/omoide/omoide/timeexpr"
)

// Parse reads the first time expression of a message as a window relative to
// the request's clock, in the person's time zone.
func ExampleParse() {
	tokyo := time.FixedZone("JST", 9*60*60)
	now := time.Date(2025, 6, 20, 20, 0, 0, 0, tokyo) // a Friday
	for _, text := range []string{"先週何話したっけ", "3日前に行ったカフェ", "去年の夏の旅行", "what did we talk about yesterday?", "上个月", "ラーメン食べたい"} {
		w, ok := timeexpr.Parse(text, now, tokyo)
		if !ok {
			fmt.Printf("%s: no window\n", text)
			continue
		}
		fmt.Printf("%s: %s .. %s (%q, only %v)\n", text, w.From.Format("2006-01-02 15:04"), w.To.Format("2006-01-02 15:04"), w.Expr, w.Only)
	}
	// Output:
	// 先週何話したっけ: 2025-06-09 00:00 .. 2025-06-16 00:00 ("先週", only true)
	// 3日前に行ったカフェ: 2025-06-17 00:00 .. 2025-06-18 00:00 ("3日前", only false)
	// 去年の夏の旅行: 2024-06-01 00:00 .. 2024-09-01 00:00 ("去年の夏", only false)
	// what did we talk about yesterday?: 2025-06-19 00:00 .. 2025-06-20 00:00 ("yesterday", only true)
	// 上个月: 2025-05-01 00:00 .. 2025-06-01 00:00 ("上个月", only true)
	// ラーメン食べたい: no window
}
