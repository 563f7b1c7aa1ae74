package inspect

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/omoide/omoide/lang"
)

// pageNames are the pages, each a template file beside layout.html.
var pageNames = []string{"people", "person", "detail", "ask", "error", "signin"}

// parsePages parses each page inside the layout. The templates are
// embedded and parsed by every test, so a failure is caught before release;
// it panics at New, never at a request.
func parsePages(h *Handler) map[string]*template.Template {
	funcs := template.FuncMap{
		"base":       func() string { return h.cfg.Base },
		"personPath": h.personPath,
		"time":       func(t time.Time) string { return t.In(h.zone()).Format("2006-01-02 15:04") },
		"stamp":      func(t time.Time) string { return t.In(h.zone()).Format("2006-01-02 15:04:05 -07:00") },
		"ago":        func(t time.Time) string { return ago(h.cfg.Now(), t) },
		"f2":         func(v float64) string { return fmt.Sprintf("%.2f", v) },
		"f3":         func(v float64) string { return fmt.Sprintf("%.3f", v) },
		"add":        func(a, b int) int { return a + b },
		"count":      count,
		"lang":       textLang,
	}
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		out[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

// count says n things: "1 memory", "12,345 memories" (thousands grouped).
func count(n int, one, many string) string {
	noun := many
	if n == 1 {
		noun = one
	}
	return grouped(n) + " " + noun
}

// grouped writes n with its thousands grouped by commas.
func grouped(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// zone is the time zone of every date the inspector shows and of a typed
// now without an offset: the memory's (-tz: Pack.Location, the evidence's),
// UTC without one.
func (h *Handler) zone() *time.Location {
	if h.mem != nil && h.mem.Pack.Location != nil {
		return h.mem.Pack.Location
	}
	return time.UTC
}

// textLang is the language tag of a memory's text, for its lang attribute,
// so that Chinese and Korean get their own typeface: ja, zh, ko, or en for
// any other script; Han alone is read as Chinese, as the default analyzer
// reads it.
func textLang(text string) string {
	if l := lang.Detect(text, lang.Chinese); l != lang.Other {
		return string(l)
	}
	return "en"
}
